#!/usr/bin/env bash
# t0400-boot-harness.sh - the boot harness reports failures, hangs and
# splats, and boots an image again only when it or the harness changed
. "$(dirname "$0")/../test-lib.sh"
OUT=$TRASH/stage
. "$TOP/ci/boot.sh"

# A console log with the KTAP framing and the given body lines.
console_log() {
	say "[    1.000000][    T1] KTAP version 1"
	say "[    1.000001][    T1] 1..2"
	printf '%s\n' "$@"
}

results() { ktap "$1" | sed 's/ \[.*\]$//'; }

test_expect_success 'a passing scenario passes' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test "$(cat out)" = "owner pass"
'

test_expect_success 'not ok is a failure, with its reason' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.2][    T1] not ok 1 owner # '\''owner 1'\'' 0 times, want 1" >log &&
	results log >out && test_grep "^owner fail .owner 1. 0 times, want 1$" out
'

test_expect_success 'a scenario without a result is a hang' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" >log &&
	results log >out && test_grep "^owner hang" out
'

test_expect_success 'a missing KTAP plan is reported' '
	printf "%s\n" "[    1.0][    T1] KTAP version 1" \
		"[    1.1][    T1] # pstest: start 1 owner" "[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test_grep "^ktap fail no KTAP plan" out
'

test_expect_success 'a log that never reached the tests is reported' '
	say "[    0.1][    T0] Linux version 6.1.192" >log &&
	results log >out && test_grep "^ktap fail no .KTAP version 1. line" out
'

test_expect_success 'a splat the scenario does not expect fails it' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.15][    C0] BUG: spinlock recursion on CPU#0, init/1" \
		"[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test_grep "^owner fail unexpected: BUG: spinlock recursion" out
'

test_expect_success 'a splat while the kernel boots fails the scenarios of the boot' '
	say "[    0.5][    T1] BUG: sleeping function called from invalid context at mm/slab.h:1" >early &&
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.2][    T1] ok 1 owner" >log &&
	cat early log >log2 &&
	results log2 >out &&
	test_grep "^owner fail splat before the tests: BUG: sleeping function" out &&
	results log >out && test "$(cat out)" = "owner pass"
'

test_expect_success 'a splat the scenario causes itself is accepted' '
	console_log "[    1.1][    T1] # pstest: start 1 recursion" \
		"[    1.15][    C0] WARNING: CPU: 0 PID: 1 at kernel/printk/x.c:1 f+0x0/0x1" \
		"[    1.2][    T1] ok 1 recursion" >log &&
	results log >out && test "$(cat out)" = "recursion pass"
'

test_expect_success 'a panic passes only with every NMI line printed once, and its end line' '
	lines=$(for i in $(seq 0 19); do say "[    2.0][    C1] printk_safe_test: panic line $i"; done) &&
	panic="[    2.1][    C1] Kernel panic - not syncing: printk_safe_test: panic in NMI" &&
	end="[    2.2][    C1] ---[ end Kernel panic - not syncing: printk_safe_test: panic in NMI ]---" &&
	console_log "[    1.1][    T1] # pstest: start 1 panic" "$lines" "$panic" "$end" >log &&
	results log >out && test_grep "^panic pass" out &&
	console_log "[    1.1][    T1] # pstest: start 1 panic" "$(grep -v "line 7$" <<<"$lines")" \
		"$panic" "$end" >log &&
	results log >out && test_grep "^panic fail NMI lines not printed once each: 7(x0)" out &&
	console_log "[    1.1][    T1] # pstest: start 1 panic" "$lines" "$panic" >log &&
	results log >out && test_grep "^panic fail no .---\[ end Kernel panic. line" out
'

test_expect_success 'a panic may report NMI lines lost, with what it held, exactly' '
	start="[    1.1][    T1] # pstest: start 1 panic_flush_stopped" &&
	held="[    1.2][    T1] printk_safe_test: panic_flush_stopped held 1" &&
	lines=$(for i in $(seq 0 16); do say "[    2.0][    C1] printk_safe_test: panic line $i"; done) &&
	panic="[    2.1][    C1] Kernel panic - not syncing: printk_safe_test: panic in NMI" &&
	end="[    2.3][    C1] ---[ end Kernel panic - not syncing: printk_safe_test: panic in NMI ]---" &&
	console_log "$start" "$held" "$lines" "$panic" "[    2.2][    C1] Lost 4 message(s)!" "$end" >log &&
	results log >out && test_grep "^panic_flush_stopped pass 17 NMI lines before the panic, 4 reported lost (1 held)" out &&
	console_log "$start" "$held" "$lines" "$panic" "[    2.2][    C1] Lost 3 message(s)!" "$end" >log &&
	results log >out && test_grep "^panic_flush_stopped fail 3 NMI line(s) not printed and 1 held, but 3 reported lost" out &&
	console_log "$start" "$lines" "$panic" "[    2.2][    C1] Lost 4 message(s)!" "$end" >log &&
	results log >out && test_grep "^panic_flush_stopped fail 3 NMI line(s) not printed and 0 held, but 4 reported lost" out
'

test_expect_success 'a plan that does not match the results of a finished run is reported' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" "[    1.2][    T1] ok 1 owner" \
		"[    1.3][    T1] # pstest: end" >log &&
	results log >out && test_grep "^ktap fail plan 1..2 but 1 results" out &&
	console_log "[    1.0][    T1] ok 1 recursion # SKIP run in an earlier boot" \
		"[    1.1][    T1] # pstest: start 2 owner" "[    1.2][    T1] ok 2 owner" \
		"[    1.3][    T1] # pstest: end" >log &&
	results log >out && test "$(cat out)" = "owner pass"
'

# Real console logs of make ci's boots (ci/t/data), with the results the
# harness must read from them.
for data in "$TOP"/ci/t/data/*.log; do
	[ -f "$data" ] || continue
	test_expect_success "real console log $(basename "$data")" '
		results "$data" >out &&
		test_cmp "${data%.log}.expect" out
	'
done

# boot_kernel with a stand-in for QEMU: run_kernel notes each boot in
# "boots" and passes every scenario but $FAIL.
fake_boots() {
	IMAGES=$TRASH/images
	mkdir -p "$IMAGES" "$BOOT_OUT" "$CACHE"
	load_scenarios
	: >boots
	run_kernel() {
		local s
		say "$1" >>boots
		for s in "${SCENARIOS[@]}"; do
			if [ "$s" = "${FAIL:-}" ]; then say "$s fail planted"; else say "$s pass"; fi
		done >"$BOOT_OUT/$1.results"
	}
}

test_expect_success 'an image booted before with the same harness is not booted again' '
	fake_boots && HARNESS=one &&
	say image1 >"$IMAGES/k.bzImage" &&
	boot_kernel k >out && test_grep "^boot: k: booted, .* 0 not" out &&
	boot_kernel k >out && test_grep "^boot: k: up to date, .* 0 not" out &&
	test "$(wc -l <boots)" = 1 &&
	say image2 >"$IMAGES/k.bzImage" &&
	boot_kernel k >out && test_grep "^boot: k: booted" out &&
	HARNESS=two boot_kernel k >out && test_grep "^boot: k: booted" out &&
	FORCE=1 boot_kernel k >out && test_grep "^boot: k: booted" out &&
	test "$(wc -l <boots)" = 4
'

test_expect_success 'a new "fails on" entry boots nothing again; a new scenario does' '
	harness "$TOP/ci/scenarios" >one &&
	sed "s/^\(recursion  *main  *\)vanilla[^ ]* /\1mutant-x /" "$TOP/ci/scenarios" >scenarios &&
	! cmp -s "$TOP/ci/scenarios" scenarios &&
	harness scenarios >two &&
	test_cmp one two &&
	sed "s/^recursion  *main /recursion  own  /" "$TOP/ci/scenarios" >scenarios &&
	harness scenarios >three &&
	! cmp -s one three
'

test_expect_success 'results with a failure that counts are booted again' '
	fake_boots && HARNESS=one &&
	say image3 >"$IMAGES/k.bzImage" &&
	FAIL=recursion boot_kernel k >out && test_grep "^boot: k: booted, .* 1 not" out &&
	FAIL=recursion boot_kernel k >out && test_grep "^boot: k: booted, .* 1 not" out &&
	# not fixed in vanilla: shown, not counted, so kept
	FIXED_BY[recursion]=use-safe-buffers &&
	say image4 >"$IMAGES/vanilla.bzImage" &&
	FAIL=recursion boot_kernel vanilla >out &&
	FAIL=recursion boot_kernel vanilla >out && test_grep "^boot: vanilla: up to date, .* 1 not" out &&
	test "$(wc -l <boots)" = 3
'

# The report of two kernels: vanilla with recursion failing (not fixed
# there), for-next with a hang in owner, which must pass everywhere.
fake_report() {
	fake_boots && HARNESS=one && TOPIC_DIRS=() &&
	FIXED_BY[recursion]=use-safe-buffers &&
	git init -q "$PRINTK_TREE" &&
	tgit commit -q --allow-empty -m base &&
	for k in vanilla for-next; do
		say "$k" >"$IMAGES/$k.bzImage" &&
		tgit rev-parse HEAD >"$IMAGES/$k.commit" &&
		say "key-$k" >"$IMAGES/$k.build-id" || return 1
	done &&
	FAIL=recursion boot_kernel vanilla >/dev/null &&
	boot_kernel for-next >/dev/null &&
	sed -i "s|^owner pass$|owner hang no result [$TRASH/owner.log]|" "$BOOT_OUT/for-next.results" &&
	seq -f "console line %g" 1 50 >owner.log &&
	BASE=HEAD
}

test_expect_success 'the report is KCIDB v4 JSON, and the table is rendered from it' '
	fake_report &&
	report vanilla for-next >out &&
	json=$BOOT_OUT/results.json &&
	test "$(counted "$json")" = 1 &&
	test "$(jq -c .version "$json")" = "{\"major\":4,\"minor\":3}" &&
	test "$(jq ".checkouts | length" "$json")" = 1 &&
	test "$(jq -r ".builds[].id" "$json" | sort | paste -sd" ")" = "printk_tree:key-for-next printk_tree:key-vanilla" &&
	test "$(jq ".tests | length" "$json")" = $((2 * ${#SCENARIOS[@]})) &&
	test "$(jq -r ".tests[] | select(.path == \"boot.recursion\" and .misc.kernel == \"vanilla\") | .status" "$json")" = FAIL &&
	test "$(jq -r ".tests[] | select(.path == \"boot.owner\" and .misc.kernel == \"for-next\") | .status + \" \" + .misc.result" "$json")" = "FAIL hang" &&
	test_grep "^| recursion | fail | pass |$" "$BOOT_OUT/results.md" &&
	test_grep "^| owner | pass | hang \*\*!\*\* |$" "$BOOT_OUT/results.md" &&
	test_grep "^- for-next: owner hang no result" "$BOOT_OUT/results.md" &&
	test_grep "^      console line 50$" "$BOOT_OUT/results.md" &&
	test_must_fail grep "^- vanilla" "$BOOT_OUT/results.md" &&
	# rendered from the JSON: another status there, another cell here
	jq "(.tests[] | select(.path == \"boot.sem_up\" and .misc.kernel == \"vanilla\") | .misc.result) = \"planted\"" \
		"$json" >changed.json &&
	render_table changed.json vanilla for-next >table &&
	test_grep "^| sem_up | planted | pass |$" table
'

# Kernels $@ with their images and results, the ones named "k:SCENARIO"
# failing SCENARIO.
fake_kernels() {
	local spec k
	for spec in "$@"; do
		k=${spec%%:*}
		say "$k" >"$IMAGES/$k.bzImage" &&
		tgit rev-parse HEAD >"$IMAGES/$k.commit" &&
		say "key-$k" >"$IMAGES/$k.build-id" &&
		if [ "$spec" = "$k" ]; then
			boot_kernel "$k" >/dev/null
		else
			FAIL=${spec#*:} boot_kernel "$k" >/dev/null
		fi || return 1
	done
}

test_expect_success 'a pass where a scenario must fail counts, and is named' '
	fake_report &&
	FAILS_ON[sem_up]=,vanilla, &&
	report vanilla for-next >out &&
	test "$(counted "$BOOT_OUT/results.json")" = 2 &&
	test_grep "^| sem_up | pass \*\*!\*\* | pass |$" "$BOOT_OUT/results.md" &&
	test_grep "^- vanilla: sem_up pass, where it must fail$" "$BOOT_OUT/results.md" &&
	test_grep "^sem_up pass, where it must fail$" <(counted_failures vanilla) &&
	FAILS_ON[sem_up]=,vanilla,for-next, &&
	test_grep "^sem_up pass, where it must fail$" <(counted_failures for-next)
'

test_expect_success 'a failure where a scenario must fail is shown, not counted' '
	fake_report &&
	FAILS_ON[recursion]=,vanilla, &&
	report vanilla for-next >out &&
	test "$(counted "$BOOT_OUT/results.json")" = 1 &&
	test_grep "^| recursion | fail (as it must) | pass |$" "$BOOT_OUT/results.md"
'

test_expect_success 'on another base: mutants named without its suffix, topics it has must pass' '
	SUFFIX=-6.12 &&
	FAILS_ON[owner]=,mutant-x,vanilla-6.12, &&
	must_fail mutant-x-6.12 owner &&
	must_fail vanilla-6.12 owner &&
	test_must_fail must_fail vanilla owner &&
	PARENT[second]=first && PARENT[first]= &&
	FIXED_BY[owner]=first &&
	test_must_fail must_pass vanilla-6.12 owner &&
	must_pass second-6.12 owner &&
	IN_BASE[first]=1 &&
	must_pass vanilla-6.12 owner &&
	test_must_fail must_pass mutant-x-6.12 owner
'

test_expect_success 'mutants: each caught or survived, and the score' '
	fake_report &&
	FAILS_ON[sem_up]=,mutant-caught, && FAILS_ON[owner]=,mutant-caught, &&
	fake_kernels mutant-caught:sem_up mutant-survivor:owner &&
	report vanilla for-next mutant-caught mutant-survivor >out &&
	test_grep "^- mutant-caught: caught by sem_up$" "$BOOT_OUT/results.md" &&
	test_grep "^- mutant-survivor: survived \*\*!\*\*$" "$BOOT_OUT/results.md" &&
	test_grep "^Mutation score: 1/2 mutants caught.$" "$BOOT_OUT/results.md" &&
	# owner passed on mutant-caught, where it must fail; the survivor
	# failing owner is not judged: a mutant need pass nothing
	test "$(counted "$BOOT_OUT/results.json")" = 2 &&
	test_grep "^- mutant-caught: owner pass, where it must fail$" "$BOOT_OUT/results.md" &&
	test_must_fail grep "^- mutant-survivor: owner" "$BOOT_OUT/results.md" &&
	test_grep "^Scenarios no kernel here must fail on (unproven): .*console_write" "$BOOT_OUT/results.md" &&
	test_must_fail grep "unproven.*sem_up" "$BOOT_OUT/results.md"
'

# qemu_boot as a stand-in that notes each boot's command line in "boots"
# and passes the scenarios of its pstest.only= list from pstest.from=.
fake_qemu() {
	IMAGES=$TRASH/images
	mkdir -p "$IMAGES" "$BOOT_OUT"
	load_scenarios
	: >boots
	qemu_boot() {
		local only=() from=1 arg args i n=0
		say "$3" >>boots
		read -r -a args <<<"$3"
		for arg in "${args[@]}"; do
			case $arg in
			pstest.only=*) IFS=, read -r -a only <<<"${arg#*=}" ;;
			pstest.from=*) from=${arg#*=} ;;
			esac
		done
		{
			printf "%s\n" "[ 1.0][ T1] KTAP version 1" "[ 1.0][ T1] 1..${#only[@]}"
			for ((i = from; i <= ${#only[@]}; i++)); do
				printf "%s\n" "[ 1.1][ T1] # pstest: start $i ${only[i - 1]}" "[ 1.2][ T1] ok $i ${only[i - 1]}"
			done
			say "[ 1.3][ T1] # pstest: end"
		} >"$2"
		BOOT_RESULT=done
	}
}

# The KCIDB tests kernel_tests makes of kernel $1's results, in "tests".
kernel_tests_of() {
	git init -q "$PRINTK_TREE" && tgit commit -q --allow-empty -m base &&
	tgit rev-parse HEAD >"$IMAGES/$1.commit" && say "key-$1" >"$IMAGES/$1.build-id" &&
	kcidb_start kcidb && kernel_tests "$1" && cp kcidb/tests tests
}

test_expect_success 'a mutant boots only the scenarios that must fail on it' '
	fake_qemu &&
	FAILS_ON[sem_up]=,mutant-x, && FAILS_ON[suppress]=,mutant-x, &&
	FAILS_ON[panic_zap]=,mutant-x, &&
	run_kernel mutant-x &&
	printf "%s\n" "pstest.only=sem_up,suppress pstest.from=1" "pstest.only=panic_zap" >expect &&
	test_cmp expect boots &&
	test "$(grep -c " pass$" "$BOOT_OUT/mutant-x.results")" = 3 &&
	test "$(grep -c " skip it need neither pass nor fail on this kernel" "$BOOT_OUT/mutant-x.results")" = $((${#SCENARIOS[@]} - 3)) &&
	kernel_tests_of mutant-x &&
	test "$(jq -r "select(.path == \"boot.owner\") | .status + \" \" + (.log_url // \"none\")" tests)" = "SKIP none" &&
	test "$(jq -r "select(.path == \"boot.sem_up\") | .status" tests)" = PASS
'

test_expect_success 'a topic kernel does not boot what a topic it lacks fixes; vanilla boots what it must fail' '
	fake_qemu && FAILS_ON=() && PARENT=([late]=early) &&
	FIXED_BY=([owner]=late [panic]=late [panic_zap]=other) && FAILS_ON[panic]=,vanilla, &&
	run_kernel early && run_kernel late && run_kernel vanilla &&
	test "$(grep -c " skip it need neither" "$BOOT_OUT/early.results")" = 3 &&
	test "$(grep -c " skip it need neither" "$BOOT_OUT/late.results")" = 1 &&
	test "$(grep " skip" "$BOOT_OUT/vanilla.results" | cut -d" " -f1 | paste -sd" ")" = "owner panic_zap" &&
	test "$(grep -c "pstest.only=panic$" boots)" = 2
'

test_expect_success 'a mutant named in another "fails on" entry boots again; other kernels do not' '
	fake_qemu && HARNESS=one && FAILS_ON=() &&
	FAILS_ON[sem_up]=,mutant-x, &&
	say image >"$IMAGES/mutant-x.bzImage" && say image >"$IMAGES/k.bzImage" &&
	key=$(boot_key mutant-x) && kkey=$(boot_key k) &&
	FAILS_ON[owner]=,mutant-x,k, &&
	test "$(boot_key mutant-x)" != "$key" &&
	test "$(boot_key k)" = "$kkey"
'

test_expect_success 'a mutant no scenario names boots them all, as other kernels do' '
	fake_qemu &&
	run_kernel mutant-y && run_kernel vanilla &&
	test "$(grep -c "^pstest.only=recursion,.*,nested_store pstest.from=1$" boots)" = 2 &&
	test "$(wc -l <boots)" = $((2 * (1 + $(scenario_names own | wc -l)))) &&
	test_must_fail grep -q " skip" "$BOOT_OUT/mutant-y.results" &&
	test "$(grep -c " pass$" "$BOOT_OUT/vanilla.results")" = ${#SCENARIOS[@]}
'

test_expect_success 'kernels boot side by side, BOOT_JOBS at a time; one failing fails the stage' '
	BOOT_JOBS=2 && RUNNING=0 && mkdir running &&
	# each run notes how many were running as it ended
	side_by_side() { touch "running/$BASHPID" && sleep 0.3 && ls running | wc -l >>counts && rm "running/$BASHPID"; } &&
	for i in 1 2 3 4 5; do pool_run side_by_side || return 1; done &&
	pool_wait &&
	test "$RUNNING" = 0 && test "$(wc -l <counts)" = 5 &&
	test "$(sort -n counts | tail -n 1)" = 2 &&
	RUNNING=0 &&
	test_must_fail in_subshell eval "pool_run sleep 0.2 && pool_run false && pool_run sleep 0.2 && pool_wait"
'

test_expect_success 'panic boots on 2 vCPUs, two side by side, never beside a main boot' '
	fake_qemu && BOOT_JOBS=2 && RUNNING=0 && mkdir -p running &&
	eval "fake_$(declare -f qemu_boot)" &&
	# each boot notes its kind, its vCPUs and the kinds of the others
	# running as it ends
	qemu_boot() {
		local kind=main me=$BASHPID
		[[ $3 != pstest.only=panic* ]] || kind=panic
		touch "running/$me.$kind" && sleep 0.3 &&
		say "$kind ${BOOT_SMP:-4} $(ls running | grep -v "^$me\\." | sed "s/^[0-9]*\\.//" | paste -sd,)" >>overlaps &&
		rm "running/$me.$kind" &&
		fake_qemu_boot "$@"
	} &&
	pool_run run_kernel k1 && pool_run run_kernel k2 && pool_wait &&
	test "$(grep -c "^panic 2 " overlaps)" = 8 && test "$(grep -c "^main 4 " overlaps)" = 2 &&
	test_must_fail grep -E "^panic .*main|^main .*panic" overlaps &&
	grep "^panic 2 panic$" overlaps && grep "^main 4 main$" overlaps
'

# A stand-in QEMU that prints nothing and never ends, noting its pid.
hanging_qemu() { stand_in qemu-system-x86_64 "echo \$\$ >\"$TRASH/qemu.pid\"; exec sleep 600"; }

test_expect_success 'a QEMU that hangs is killed after the silence of a hang, not before' '
	hanging_qemu && INITRAMFS=/dev/null && rm -f qemu.pid &&
	start=$(date +%s%N) &&
	HANG_SECS=2 qemu_boot /dev/null hang.log "" >out &&
	ms=$((($(date +%s%N) - start) / 1000000)) &&
	test "$BOOT_RESULT" = hang &&
	test_must_fail kill -0 "$(cat qemu.pid)" 2>/dev/null &&
	{ test "$ms" -ge 2000 || { say "killed after $ms ms"; false; }; }
'

# A stand-in QEMU whose guest panics and stays, as panic=0 keeps it: the
# end line written in two parts $1 s apart, then, $2 s later, a line of a
# CPU that missed the stop.
panicking_qemu() {
	stand_in qemu-system-x86_64 "for a; do case \$a in file:*) log=\${a#file:} ;; esac; done
echo \$\$ >\"$TRASH/qemu.pid\"
printf '%s\\n' '[ 1.0] Kernel panic - not syncing: x' >\"\$log\"
printf '%s' '[ 1.1] ---[ end Kernel panic - not syncing: x' >>\"\$log\"
sleep $1; printf ' ]---\\n' >>\"\$log\"
sleep $2; printf '[ 1.2] late\\n' >>\"\$log\"; exec sleep 600"
}

test_expect_success 'a boot ends as soon as the panic has printed its last line' '
	panicking_qemu 0 0 && INITRAMFS=/dev/null && rm -f qemu.pid &&
	start=$(date +%s%N) &&
	qemu_boot /dev/null panic.log "" >out &&
	ms=$((($(date +%s%N) - start) / 1000000)) &&
	test "$BOOT_RESULT" = done &&
	test_grep "end Kernel panic" panic.log &&
	test_must_fail kill -0 "$(cat qemu.pid)" 2>/dev/null &&
	{ test "$ms" -lt 1000 || { say "took $ms ms"; false; }; }
'

test_expect_success 'a panic boot ends after the whole last line, and what comes right after it' '
	panicking_qemu 0.5 0.1 && INITRAMFS=/dev/null &&
	qemu_boot /dev/null panic.log "" >out &&
	test "$BOOT_RESULT" = done &&
	test_grep "x ]---$" panic.log &&
	test_grep "late" panic.log
'

test_expect_success 'stopping the boot stage stops its QEMU' '
	hanging_qemu && rm -f qemu.pid &&
	printf "%s\n" ". \"$TOP/ci/boot.sh\"" "INITRAMFS=/dev/null" \
		"qemu_boot /dev/null \"$TRASH/stopped.log\" \"\"" >driver.sh &&
	{ bash driver.sh >driver.out 2>&1 & } &&
	pid=$! &&
	wait_for 30 test -s qemu.pid &&
	kill -0 "$(cat qemu.pid)" &&
	kill -TERM "$pid" &&
	test_must_fail wait "$pid" &&
	test_must_fail kill -0 "$(cat qemu.pid)" 2>/dev/null
'

test_expect_success 'Ctrl-C stops the boot stage and its QEMU' '
	hanging_qemu && rm -f qemu.pid &&
	set -m &&
	{ ctrl_c_able bash driver.sh >driver.out 2>&1 & } &&
	pid=$! &&
	wait_for 30 test -s qemu.pid &&
	kill -INT -- "-$pid" &&
	test_must_fail wait "$pid" &&
	test_must_fail kill -0 "$(cat qemu.pid)" 2>/dev/null
'

test_expect_success 'QEMU failing to start fails the boot with its messages' '
	stand_in qemu-system-x86_64 "echo \"qemu-system-x86_64: Could not access KVM kernel module: No such file or directory\" >&2; exit 1" &&
	INITRAMFS=/dev/null &&
	test_must_fail in_subshell qemu_boot /dev/null kvm.log "" >out 2>&1 &&
	test_grep "qemu: qemu-system-x86_64: Could not access KVM kernel module" out &&
	test_grep "QEMU failed (exit 1) booting /dev/null (messages: kvm.log.stderr)" out
'

test_expect_success 'a change to the code that judges boots boots nothing again; one to the code a boot runs does' '
	stand_in qemu-system-x86_64 "echo QEMU emulator version 7.2" &&
	h=$(harness "$TOP/ci/scenarios") &&
	before=$(declare -f mutation_score) &&
	eval "$(sed "s/Mutation score/Mutants caught/" <<<"$before")" &&
	test "$(declare -f mutation_score)" != "$before" &&
	test "$(harness "$TOP/ci/scenarios")" = "$h" &&
	before=$(declare -f qemu_start) &&
	eval "$(sed "s/-m 256/-m 512/" <<<"$before")" &&
	test "$(declare -f qemu_start)" != "$before" &&
	test "$(harness "$TOP/ci/scenarios")" != "$h"
'

test_expect_success 'a mutant must fail only where the kernel it mutates must pass' '
	mkdir -p "$MUTANTS_DIR" && load_scenarios &&
	declare -gA TOPIC_DIR=([early]=1 [late]=2) && PARENT=([late]=early) &&
	FIXED_BY=([overflow]=late) && FAILS_ON=([overflow]=,mutant-m,) &&
	printf "%s\n" "Mutant: m." "" "Mutates: early" "" "diff --git a/x b/x" "Mutates: late" >"$MUTANTS_DIR/m.patch" &&
	test_must_fail in_subshell check_mutant_base mutant-m 2>err &&
	test_grep "overflow must fail on mutant-m, but mutant-m mutates early, which lacks topic late that fixes overflow" err &&
	sed -i "3s/early/late/" "$MUTANTS_DIR/m.patch" && check_mutant_base mutant-m &&
	sed -i "3d" "$MUTANTS_DIR/m.patch" && check_mutant_base mutant-m &&
	sed -i "3i Mutates: nowhere" "$MUTANTS_DIR/m.patch" &&
	test_must_fail in_subshell mutant_topic m 2>err &&
	test_grep "m.patch: Mutates: .nowhere. is not a topic" err
'

# Real boots of an image make ci built (read from its cache, not written).
image=$REAL_CACHE/images/vanilla.bzImage
test_lazy_prereq VANILLA_IMAGE 'test -f "$image" && is_git_tree "$REAL_TREE"'

test_expect_success VANILLA_IMAGE 'a planted not ok in a real boot is a failure' '
	use_kernel_tree && make_initramfs >/dev/null &&
	qemu_boot "$image" boot.log pstest.only=planted_fail >/dev/null &&
	test "$BOOT_RESULT" = done &&
	results boot.log >out && test "$(cat out)" = "planted_fail fail planted failure"
'

test_expect_success VANILLA_IMAGE 'a planted hang in a real boot is a hang' '
	use_kernel_tree && make_initramfs >/dev/null &&
	HANG_SECS=5 qemu_boot "$image" boot.log pstest.only=planted_hang >/dev/null &&
	test "$BOOT_RESULT" = hang &&
	results boot.log >out && test "$(cat out)" = "planted_hang hang no result"
'

test_done
