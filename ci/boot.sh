#!/usr/bin/env bash
# boot.sh - boot every built kernel in QEMU and run the KTAP scenarios
#
# Each kernel of the build plan boots with the test initramfs
# (ci/guest/init.c): one boot runs the "main" scenarios of ci/scenarios,
# resumed after the scenario that hung, and each panic scenario gets a
# boot of its own.  ci/ktap.awk reads the console logs.  Results are judged
# both ways: a scenario must pass on a kernel unless the topic that fixes
# it (topic_fixes in topic.conf) is not in that kernel, or the kernel is a
# mutant; and it must not pass on the kernels ci/scenarios says it fails
# on (vanilla or a mutant).  The mutation score counts the mutants that
# some scenario caught.
# An image booted before with the same harness is not booted again (see
# boot_kernel; FORCE=1 boots all).
# The results go to $OUT/boot/results.json (KCIDB v4), and the table
# rendered from it to results.md.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BOOT_OUT=$OUT/boot
CACHE=$BOOT_OUT/by-key
# The kernels of a base other than the default (BASE=6.12) are named
# with its suffix (vanilla-6.12) and have their own results (boot_dirs).
SUFFIX=
ACCEL=${ACCEL:-tcg}		# ACCEL=kvm where KVM works
HANG_SECS=${HANG_SECS:-15}	# silence on the console that means a hang
# Kernels booted at once (a boot keeps about one host CPU busy, less
# while the scenarios wait for the console); boot_locked keeps the
# panics from booting beside the others.
BOOT_JOBS=${BOOT_JOBS:-$(nproc)}
BOOT_TIMEOUT=${BOOT_TIMEOUT:-300}
INITRAMFS=$BOOT_OUT/initramfs.cpio

make_initramfs() {
	local dir=$BOOT_OUT/initramfs base
	base=$(base_ref)
	mkdir -p "$dir"
	gcc -static -O2 -Wall -Werror -o "$dir/init" "$TOP/ci/guest/init.c"
	tgit show "$base:usr/gen_init_cpio.c" >"$dir/gen_init_cpio.c"
	gcc -O2 -o "$dir/gen_init_cpio" "$dir/gen_init_cpio.c"
	cat >"$dir/list" <<-LIST
	dir /dev 0755 0 0
	nod /dev/console 0600 0 0 c 5 1
	dir /proc 0755 0 0
	dir /sys 0755 0 0
	file /init $dir/init 0755 0 0
	LIST
	"$dir/gen_init_cpio" "$dir/list" >"$INITRAMFS"
}

# Start QEMU in the background ($! is its pid): kernel $1, extra command
# line $3, console to $2, QEMU's own messages to $2.stderr.  ICOUNT=1:
# guest time counts executed instructions (1 ns each), so that a boot's
# timings repeat exactly; on one vCPU, as QEMU 7.2 with icount never
# brings up the secondary CPUs.
qemu_start() {
	local -a cpus=(-smp "${BOOT_SMP:-4}")
	[ -z "${ICOUNT:-}" ] || cpus=(-smp 1 -icount shift=0,sleep=off)
	: >"$2"
	# Without the stage lock (fd 9) and the boot locks (fds 7, 8):
	# a QEMU left behind must not hold them.
	qemu-system-x86_64 -accel "$ACCEL" "${cpus[@]}" -m 256 -display none \
		-monitor none -no-reboot -serial "file:$2" \
		-kernel "$1" -initrd "$INITRAMFS" \
		-append "console=ttyS0 panic=0 log_buf_len=4M printk.devkmsg=on $3" \
		>"$2.stderr" 2>&1 </dev/null 7>&- 8>&- 9>&- &
}

# Boot $1 with extra command line $3, console to $2; BOOT_RESULT says
# "done" (the guest ended) or "hang" (killed after $HANG_SECS of silence
# or $BOOT_TIMEOUT in all).  QEMU failing is an error, with its messages.
# panic=0 keeps a panicked guest from rebooting before panic() prints its
# last line: once that whole line is on the console and the console was
# quiet for one poll since, the boot is over (what a CPU that missed the
# stop prints after it counts too: ktap.awk).  The console is looked at
# every $POLL s: a boot's end is seen at once.  Clocks in microseconds.
PANIC_END='---[[] end Kernel panic - not syncing'
POLL=0.2
qemu_boot() {
	local log=$2 pid size last=-1 ended="" now start=${EPOCHREALTIME/./} changed beat rc=0
	say "boot: $(basename "$log" .log): started (console: $log)"
	qemu_start "$1" "$log" "$3"
	pid=$!
	changed=$start beat=$((start + HEARTBEAT * 1000000))
	BOOT_RESULT="done"
	while kill -0 "$pid" 2>/dev/null; do
		sleep "$POLL"
		now=${EPOCHREALTIME/./}
		size=$(stat -c %s "$log")
		if [ -n "$ended" ] && [ "$size" = "$last" ]; then
			kill_tree "$pid"
			return
		fi
		! grep -q -- "$PANIC_END.*]---" "$log" || ended=1
		if [ "$now" -ge "$beat" ]; then
			say "boot: $(basename "$log" .log): still running after $(((now - start) / 1000000)) s (console: $log)"
			beat=$((beat + HEARTBEAT * 1000000))
		fi
		[ "$size" = "$last" ] || last=$size changed=$now
		if [ $((now - changed)) -ge $((HANG_SECS * 1000000)) ] ||
			[ $((now - start)) -ge $((BOOT_TIMEOUT * 1000000)) ]; then
			kill_tree "$pid"
			BOOT_RESULT=hang
			return
		fi
	done
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || {
		sed 's/^/  qemu: /' "$log.stderr" >&2
		die "QEMU failed (exit $rc) booting $1 (messages: $log.stderr)"
	}
}

scenario_names() { awk -v boot="$1" '!/^#/ && NF && $2 == boot { print $1 }' "$TOP/ci/scenarios"; }

# Scenario results of console log $1; a hang names the log.
ktap() {
	awk -v scenarios="$TOP/ci/scenarios" -v panic_end="^$PANIC_END" -f "$TOP/ci/ktap.awk" "$1" |
		sed "s|^\([a-z_]* hang .*\)|\1 [$1]|"
}

# The scenarios kernel $1 boots: those whose result counts there, that
# it must pass or must fail (a mutant need pass nothing, a topic kernel
# not what a topic it lacks fixes); all of them if none does (a mutant
# that no scenario names: the table then shows which could).
boot_scenarios() {
	local s mine=()
	for s in "${SCENARIOS[@]}"; do
		! must_pass "$1" "$s" && ! must_fail "$1" "$s" || mine+=("$s")
	done
	[ "${#mine[@]}" -gt 0 ] || mine=("${SCENARIOS[@]}")
	printf '%s\n' "${mine[@]}"
}

# qemu_boot "$@" under the boot locks (fds 7 and 8): a main boot (-s)
# takes both shared, a panic boot (-x) one of them alone.  A panic gives
# the other CPUs 10 ms to stop: with another 4-vCPU guest on the host's
# CPUs, one missed that, and a panic scenario failed.  So panic boots run
# on 2 vCPUs (BOOT_SMP=2), two at most side by side (4 vCPUs, as one main
# boot), never beside a main boot.
boot_locked() {
	local mode=$1
	shift
	exec 7>>"$BOOT_OUT/boot.lock.0" 8>>"$BOOT_OUT/boot.lock.1"
	if [ "$mode" = -s ]; then
		flock -s 7
		flock -s 8
	else
		until flock -n -x 7 || flock -n -x 8; do
			sleep 0.1
		done
	fi
	qemu_boot "$@"
	exec 7>&- 8>&-
}

# Scenarios $2... that are of kind $1 (main, own).
of_kind() {
	local s kind=()
	local -A wanted=()
	for s in "${@:2}"; do
		wanted[$s]=1
	done
	read_lines kind scenario_names "$1"
	for s in "${kind[@]}"; do
		[ -z "${wanted[$s]:-}" ] || say "$s"
	done
}

# Run the scenarios of kernel $1; results in $BOOT_OUT/$1.results.
run_kernel() {
	local name=$1 image=$IMAGES/$1.bzImage res=$BOOT_OUT/$1.results
	local mine=() main=() own=() from=1 n=0 log last scenario
	rm -f "$BOOT_OUT/$name".*.log*
	read_lines mine boot_scenarios "$name"
	read_lines main of_kind main "${mine[@]}"
	read_lines own of_kind own "${mine[@]}"
	for scenario in "${SCENARIOS[@]}"; do
		[[ " ${mine[*]} " == *" $scenario "* ]] ||
			say "$scenario skip it need neither pass nor fail on this kernel"
	done >"$res"
	while [ "$from" -le "${#main[@]}" ]; do
		n=$((n + 1))
		log=$BOOT_OUT/$name.main$n.log
		boot_locked -s "$image" "$log" "pstest.only=$(IFS=, && say "${main[*]}") pstest.from=$from"
		ktap "$log" >"$log.results"
		! grep -q '^ktap fail plan' "$log.results" ||
			die "boot: $log: the KTAP stream is broken: $(grep '^ktap ' "$log.results")"
		if grep -q '^ktap ' "$log.results"; then
			for scenario in "${main[@]}"; do
				say "$scenario fail boot did not reach the tests ($log)"
			done >>"$res"
			break
		fi
		cat "$log.results" >>"$res"
		last=$(tail -n 1 "$log.results" | cut -d' ' -f1)
		# Resume after the scenario that did not finish.
		from=$(($(printf '%s\n' "${main[@]}" | grep -nx "$last" | cut -d: -f1) + 1))
		grep -q "^$last hang" "$log.results" || break
	done
	for scenario in "${own[@]}"; do
		log=$BOOT_OUT/$name.$scenario.log
		BOOT_SMP=2 boot_locked -x "$image" "$log" "pstest.only=$scenario"
		ktap "$log" | grep "^$scenario " >>"$res" ||
			say "$scenario fail did not start ($log)" >>"$res"
	done
}

# All scenarios, in table order.
load_scenarios() { read_lines SCENARIOS awk '!/^#/ && NF { print $1 }' "$TOP/ci/scenarios"; }

# The scenarios fixed by each topic, the topics in each kernel, the
# topics the base has already (topic_superseded), and the kernels each
# scenario must fail on (",k1,k2,", "" for none).
declare -A FIXED_BY PARENT FAILS_ON IN_BASE
load_fixes() {
	local dir s fixes name boot fails series
	series=$(base_series)
	load_scenarios
	while read -r name boot fails _; do
		[[ $name != \#* && -n $name ]] || continue
		[ "$fails" = - ] || FAILS_ON[$name]=",$fails,"
	done <"$TOP/ci/scenarios"
	load_topics
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		PARENT[$topic_name]=$topic_depends
		[ -z "${topic_superseded[$series]:-}" ] || IN_BASE[$topic_name]=1
		read -r -a fixes <<<"$topic_fixes"
		for s in "${fixes[@]}"; do
			FIXED_BY[$s]=$topic_name
		done
	done
}

# Does kernel $1 contain topic $2?
has_topic() {
	local t=${1%"$SUFFIX"}
	[[ $t == for-next || $t == config-* || -n ${IN_BASE[$2]:-} ]] && return 0
	while [ -n "$t" ] && [ "$t" != vanilla ]; do
		[ "$t" = "$2" ] && return 0
		t=${PARENT[$t]:-}
	done
	return 1
}

must_pass() {
	local fixer=${FIXED_BY[$2]:-}
	[[ $1 != mutant-* ]] && { [ -z "$fixer" ] || has_topic "$1" "$fixer"; }
}

# ci/scenarios names a mutant without the base's suffix: it breaks the
# same property on every base.
must_fail() {
	local k=$1
	[[ $k != mutant-* ]] || k=${k%"$SUFFIX"}
	[[ ${FAILS_ON[$2]:-} == *",$k,"* ]]
}

# A mutant's catch proves something only where the kernel it mutates
# passes: the topic kernel of mutant $1 (mutant_topic) must pass each
# scenario that must fail on it.
check_mutant_base() {
	local m=${1%"$SUFFIX"} base s
	base=$(mutant_topic "${m#mutant-}")
	base=${base:-for-next}$SUFFIX
	for s in "${SCENARIOS[@]}"; do
		! must_fail "$1" "$s" || must_pass "$base" "$s" ||
			die "ci/scenarios: $s must fail on $1, but $1 mutates $base, which lacks topic ${FIXED_BY[$s]} that fixes $s: a failure there proves nothing (Mutates: in $MUTANTS_DIR/${m#mutant-}.patch)"
	done
}

# Kernels $@ in the order of the table: vanilla, the topics in series
# order, for-next, its configurations, the mutants.
table_order() {
	local dir k prefix order=(vanilla)
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		order+=("$topic_name")
	done
	for k in "${order[@]}" for-next; do
		[[ " $* " != *" $k$SUFFIX "* ]] || say "$k$SUFFIX"
	done
	for prefix in config- mutant-; do
		for k in "$@"; do
			[[ $k != "$prefix"* ]] || say "$k"
		done
	done
}

# The result line of scenario $2 on kernel $1 ("<scenario> missing" if none).
result_line() { grep -m1 "^$2 " "$BOOT_OUT/$1.results" || say "$2 missing"; }

# Result lines of kernel $1 that count: scenarios that must pass and did
# not, and those that must fail and passed.
counted_failures() {
	local s line
	for s in "${SCENARIOS[@]}"; do
		line=$(result_line "$1" "$s")
		if [[ "$line" == "$s pass"* ]]; then
			! must_fail "$1" "$s" || say "$line, where it must fail"
		else
			! must_pass "$1" "$s" || say "$line"
		fi
	done
}

# The results of kernel $1 as KCIDB tests of its build.
kernel_tests() {
	local k=$1 s line result detail lost status build log
	build=$(cat "$IMAGES/$k.build-id")
	kcidb_build "$build" "$(kcidb_checkout "$(cat "$IMAGES/$k.commit")" "$k")" true \
		"$OUT/build/$k.log" "$(jq -cn --arg k "$k" '{kernel: $k}')"
	for s in "${SCENARIOS[@]}"; do
		line=$(result_line "$k" "$s")
		read -r _ result detail <<<"$line"
		lost=
		[[ ! $detail =~ ^lost=([0-9]+)\ ?(.*)$ ]] || lost=${BASH_REMATCH[1]} detail=${BASH_REMATCH[2]}
		case $result in
		pass) status=PASS ;;
		fail | hang) status=FAIL ;;
		skip) status=SKIP ;;
		*) status=ERROR ;;
		esac
		[[ $detail != "did not start"* && $detail != "boot did not reach"* ]] || status=ERROR
		log=
		[ "$status" = SKIP ] || log=$(boot_log "$k" "$s" "$detail")
		printf '%s\t' "boot.$s" "$status" "$detail" "$log" "$s" "$result" \
			"$(must_pass "$k" "$s" && say true || say false)" \
			"$(must_fail "$k" "$s" && say true || say false)"
		say "$lost"
	done | kcidb_tests "$build" '{kernel: $k, scenario: $f[4], result: $f[5],
		must_pass: ($f[6] == "true"), must_fail: ($f[7] == "true")}
		+ (if $f[8] == "" then {} else {lost: ($f[8] | tonumber)} end)' --arg k "$k"
}

# The console log a result came from: named in a hang's detail, else the
# boot of its own or the first main boot.
boot_log() {
	if [[ $3 =~ \[(.*)\]$ ]]; then
		say "${BASH_REMATCH[1]}"
	elif [ -f "$BOOT_OUT/$1.$2.log" ]; then
		say "$BOOT_OUT/$1.$2.log"
	else
		say "$BOOT_OUT/$1.main1.log"
	fi
}

# The scenario table of results.json $1, kernels in the order of $2...
render_table() {
	local json=$1
	shift
	jq -r '
		($ARGS.positional) as $kernels
		| (.tests | map({key: "\(.misc.kernel) \(.misc.scenario)", value: .}) | from_entries) as $t
		| (.tests | map(.misc.scenario) | reduce .[] as $s ([]; if index([$s]) then . else . + [$s] end)) as $scenarios
		| "| scenario | " + ($kernels | join(" | ")) + " |",
		  "|---|" + ($kernels | map("---|") | join("")),
		  ($scenarios[] as $s | "| \($s) | " + ([$kernels[] as $k | $t["\($k) \($s)"]
			| .misc.result + (if .misc.lost then " (lost \(.misc.lost))" else "" end)
			  + (if .status != "PASS" and .misc.must_fail then " (as it must)" else "" end)
			  + (if (.status != "PASS" and .misc.must_pass) or (.status == "PASS" and .misc.must_fail)
			     then " **!**" else "" end)]
			| join(" | ")) + " |")
	' "$json" --args "$@"
}

# The failures that count in results.json $1, a hang with the end of its
# console log.
render_failures() {
	local kernel scenario result comment log
	jq -r '.tests[] | select(.status != "PASS" and .misc.must_pass
				 or .status == "PASS" and .misc.must_fail)
		| [.misc.kernel, .misc.scenario,
		   .misc.result + (if .misc.must_fail then ", where it must fail" else "" end),
		   .comment // "", (.log_url // "" | ltrimstr("file://"))]
		| join("\u001f")' "$1" |
	# Not tab-separated: read would merge the tabs around an empty field.
	while IFS=$'\x1f' read -r kernel scenario result comment log; do
		say "- $kernel: $scenario $result${comment:+ $comment}"
		[ "$result" = hang ] && [ -f "$log" ] || continue
		say
		say "  Last 40 console lines:"
		say
		tail -n 40 "$log" | sed 's/^/      /'
	done
}

# results.json and the Markdown table rendered from it.
report() {
	local kernels k json=$BOOT_OUT/results.json md=$BOOT_OUT/results.md
	read_lines kernels table_order "$@"
	kcidb_start "$BOOT_OUT/kcidb"
	for k in "${kernels[@]}"; do
		kernel_tests "$k"
	done
	kcidb_write "$json"
	{
		say "# printk_safe boot scenarios"
		say
		say "$(date -u '+%Y-%m-%d %H:%M UTC'), QEMU $ACCEL -smp 4 (panic scenarios -smp 2), base $(base_ref)."
		say "Cells: pass / fail / hang (lost N = messages reported lost)."
		say "A cell marked **!** must pass on that kernel and did not, or must fail"
		say "there (ci/scenarios) and passed."
		say "Rendered from $json (KCIDB v4)."
		say
		render_table "$json" "${kernels[@]}"
		say
		say "## Mutants"
		say
		mutation_score "$json"
		say
		say "Scenarios no kernel here must fail on (unproven): $(unproven "$json")."
		say
		say "## Failures that count"
		say
		render_failures "$json"
	} >"$md"
	cat "$md"
}

# How many results of results.json $1 fail where they must pass, or pass
# where they must fail.
counted() {
	jq '[.tests[] | select(.status != "PASS" and .misc.must_pass
			      or .status == "PASS" and .misc.must_fail)] | length' "$1"
}

# The mutants of results.json $1, one line each: the kernel, a tab, and
# the scenarios that caught it (failed on it, as they must), "" if none.
mutant_results() {
	jq -r '[.tests[] | select(.misc.kernel | startswith("mutant-"))]
		| group_by(.misc.kernel)[]
		| [.[0].misc.kernel,
		   ([.[] | select(.misc.must_fail and (.status == "FAIL" or .status == "ERROR")) | .misc.scenario]
		    | join(", "))]
		| @tsv' "$1"
}

# Each mutant and what caught it, and the mutation score.
mutation_score() {
	local kernel by total=0 caught=0
	while IFS=$'\t' read -r kernel by; do
		# by is the last field: an empty one is read as empty.
		total=$((total + 1))
		if [ -n "$by" ]; then
			caught=$((caught + 1))
			say "- $kernel: caught by $by"
		else
			say "- $kernel: survived **!**"
		fi
	done < <(mutant_results "$1")
	if [ "$total" = 0 ]; then
		say "No mutants in this run."
	else
		say
		say "Mutation score: $caught/$total mutants caught."
	fi
}

# Scenarios that no kernel of results.json $1 must fail on.
unproven() {
	jq -r '[.tests | group_by(.misc.scenario)[] | select(all(.misc.must_fail | not)) | .[0].misc.scenario]
		| if . == [] then "none" else join(", ") end' "$1"
}

# Everything a boot's results depend on besides the image, with the
# scenarios of file $1: the code a boot runs, not that which judges or
# reports it (a change there boots nothing again); not the scenarios'
# "fails on" column either: it changes the verdicts, not the boots.
BOOT_RUNS=(make_initramfs qemu_start qemu_boot kill_tree process_tree boot_locked
	of_kind run_kernel scenario_names ktap)
harness() {
	declare -f "${BOOT_RUNS[@]}"
	say "$PANIC_END"
	cat "$TOP"/ci/{ktap.awk,guest/init.c}
	awk '!/^#/ && NF { $3 = ""; print }' "$1"
	qemu-system-x86_64 --version
	gcc --version
	say "$ACCEL $HANG_SECS $BOOT_TIMEOUT ${ICOUNT:-}"
}

# The key of kernel $1's results: its image, the harness and the
# scenarios it boots.
boot_key() {
	local image scenarios
	[ -f "$IMAGES/$1.bzImage" ] || die "no image for $1: run 'make build' first"
	image=$(sha1sum <"$IMAGES/$1.bzImage")
	scenarios=$(boot_scenarios "$1")
	say "$CACHE/$(key_of "$image" "$HARNESS" "$scenarios")"
}

# Boot kernel $1, unless the same image already passed these scenarios
# with this harness (key $2, its boot_key if not given): then its results
# come from $CACHE.  Results with a failure that counts are not kept, so
# that the next run boots again.
boot_kernel() {
	local name=$1 start=$SECONDS key=${2:-} how=booted
	[ -n "$key" ] || key=$(boot_key "$name")
	if cached "$key.results"; then
		cp "$key.results" "$BOOT_OUT/$name.results"
		touch "$key.results"
		how="up to date"
	else
		run_kernel "$name"
		if [ -z "$(counted_failures "$name")" ]; then
			cp "$BOOT_OUT/$name.results" "$key.results.tmp"
			mv "$key.results.tmp" "$key.results"
		fi
	fi
	say "boot: $name: $how, $(matching -c '^[^ ]* pass' "$BOOT_OUT/$name.results") passed, $(matching -vc '^[^ ]* \(pass\|skip\)' "$BOOT_OUT/$name.results") not, $(matching -c '^[^ ]* skip' "$BOOT_OUT/$name.results") skipped, $((SECONDS - start))s"
}

# Run "$@" in the background once fewer than $BOOT_JOBS runs are under
# way; it fails as a run it reaps did (which has said why).
# A run that fails kills what it started (QEMU): kill_children in the
# stage's EXIT trap finds only the stage's own children.
RUNNING=0
pool_run() {
	if [ "$RUNNING" -ge "$BOOT_JOBS" ]; then
		RUNNING=$((RUNNING - 1))
		wait -n || return
	fi
	(
		trap 'kill_children "$BASHPID"' EXIT
		"$@"
	) &
	RUNNING=$((RUNNING + 1))
}

pool_wait() {
	while [ "$RUNNING" -gt 0 ]; do
		RUNNING=$((RUNNING - 1))
		wait -n || return
	done
}

# Results of base $1's boots (BASE=6.12): $OUT/boot-6.12.
boot_dirs() {
	SUFFIX=$(base_suffix)
	BOOT_OUT=$OUT/boot$SUFFIX
	CACHE=$BOOT_OUT/by-key
	INITRAMFS=$BOOT_OUT/initramfs.cpio
}

# The vanilla and for-next columns of every base booted so far, side by
# side, into $OUT/bases.md: what each base fixes itself and what the
# series adds there.
bases_table() {
	local series s json kernels=() jsons=()
	load_bases
	for series in "${BASE_SERIES[@]}"; do
		s=$(BASE=$series base_suffix)
		json=$OUT/boot$s/results.json
		[ -f "$json" ] || continue
		jsons+=("$json")
		kernels+=("vanilla$s" "for-next$s")
	done
	[ "${#jsons[@]}" -gt 1 ] || return 0
	{
		say "# printk_safe boot scenarios on every base"
		say
		say "Vanilla and for-next of each base (tree-setup/bases), from ${jsons[*]}."
		say
		render_table <(jq -s '{tests: map(.tests) | add}' "${jsons[@]}") "${kernels[@]}"
	} >"$OUT/bases.md"
	cat "$OUT/bases.md"
}

main() {
	local plan line name key survivors kernels=() later=()
	local -A keys=() kernel_key=()
	need_tree
	stage_lock boot
	boot_dirs
	read_lines plan build_plan
	[ "${#plan[@]}" -gt 0 ] || die "the build plan is empty: nothing to boot"
	mkdir -p "$BOOT_OUT"
	prune_cache "$CACHE"
	HARNESS=$(harness "$TOP/ci/scenarios")
	make_initramfs
	load_fixes
	[[ $BOOT_JOBS =~ ^[1-9][0-9]*$ ]] || die "BOOT_JOBS=$BOOT_JOBS: not a number of boots at once"
	for line in "${plan[@]}"; do
		name=${line%% *}
		[[ $name != mutant-* ]] || check_mutant_base "$name"
	done
	for line in "${plan[@]}"; do
		name=${line%% *}
		if compile_only "$name"; then
			say "boot: $name: compile only ($(config_of "$name"))"
			continue
		fi
		kernels+=("$name")
		# An image another kernel has boots once: the other's results
		# are in the cache when its turn comes, after the others.
		key=$(boot_key "$name")
		kernel_key[$name]=$key
		if [ -n "${keys[$key]:-}" ]; then
			later+=("$name")
			continue
		fi
		keys[$key]=1
		pool_run boot_kernel "$name" "$key"
	done
	pool_wait
	for name in "${later[@]}"; do
		boot_kernel "$name" "${kernel_key[$name]}"
	done
	report "${kernels[@]}"
	bases_table
	[ "$(counted "$BOOT_OUT/results.json")" = 0 ] ||
		die "boot: scenarios failed where they must pass or passed where they must fail (see above, logs in $BOOT_OUT)"
	survivors=$(mutant_results "$BOOT_OUT/results.json" | awk -F'\t' '$2 == "" { print $1 }' | paste -sd' ')
	[ -z "$survivors" ] ||
		die "boot: no scenario caught $survivors: name it in the 'fails on' column of ci/scenarios"
}

# Sourced by the harness self-test for its functions.
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
