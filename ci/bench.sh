#!/usr/bin/env bash
# bench.sh - printk cost and loss, series against vanilla 6.1, and the
# pipeline's timings; writes and prints $OUT/bench/bench.md
#
# 1. printk() cost per call in normal context, in a printk_safe section and
#    in NMI, measured in the guest by the selftest's "bench": vanilla and
#    for-next booted in turns, BENCH_ROUNDS times each, the fastest kept.
# 2. Loss under flood: the "flood" scenario with FLOOD_LINES lines per
#    CPU and context, on vanilla and on the series built with each buffer
#    shift of SHIFTS.
# 3. Repeatability: VERDICT_RUNS runs of `FORCE=1 make boot`, and how many
#    gave the same verdicts as the first.
# 4. Pipeline: stage times of the last cold `make ci` (BENCH_COLD=1 runs
#    one in the scratch cache $COLD_CACHE; a CI run with PRINTK_CACHE
#    there counts too) and of a warm run with one topic edited, and the
#    time from QEMU start to the first KTAP line.
. "$(dirname "${BASH_SOURCE[0]}")/boot.sh"

BENCH_OUT=$OUT/bench
COLD_CACHE=$BENCH_OUT/cold
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
FLOOD_LINES=${FLOOD_LINES:-500}
read -r -a SHIFTS <<<"${SHIFTS:-12 13 16}"
VERDICT_RUNS=${VERDICT_RUNS:-3}
STAGES=(setup topics lint build boot mail)

# A serial console log ends its lines with CR LF.
console_text() { tr -d '\r' <"$1"; }

# "# bench: <context> calls N call_ns X total_ns Y" lines of a boot log.
cost_of() {
	console_text "$1" |
		sed -n 's/^.*# bench: \([a-z]*\) calls [0-9]* call_ns \([0-9.]*\) total_ns \([0-9.]*\)$/\1 \2 \3/p'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }

# Per context, the fastest of the rounds and the spread (max / min - 1)
# of "context call total" lines.
best_of_rounds() {
	awk '{ n = $1
		if (!(n in call)) { order[++k] = n; call[n] = $2; total[n] = $3; worst[n] = $2 }
		if ($2 < call[n]) call[n] = $2
		if ($3 < total[n]) total[n] = $3
		if ($2 > worst[n]) worst[n] = $2 }
	END { for (i = 1; i <= k; i++) { n = order[i]
		printf "%s %s %s %.0f%%\n", n, call[n], total[n], 100 * (worst[n] / call[n] - 1) } }'
}

# The kernels boot in turns, so that a slow spell of the host hits both.
bench_cost() {
	local k round context v_call v_total v_spread s_call s_total s_spread
	rm -f "$BENCH_OUT"/*.cost.all
	for ((round = 1; round <= BENCH_ROUNDS; round++)); do
		for k in vanilla for-next; do
			qemu_boot "$IMAGES/$k.bzImage" "$BENCH_OUT/$k.cost.log" pstest.only=bench >&2
			cost_of "$BENCH_OUT/$k.cost.log" >"$BENCH_OUT/$k.cost"
			[ "$(wc -l <"$BENCH_OUT/$k.cost")" = 3 ] ||
				die "no bench results from $k (see $BENCH_OUT/$k.cost.log)"
			cat "$BENCH_OUT/$k.cost" >>"$BENCH_OUT/$k.cost.all"
		done
	done
	for k in vanilla for-next; do
		best_of_rounds <"$BENCH_OUT/$k.cost.all" >"$BENCH_OUT/$k.cost"
	done
	say "## printk() cost, ns per call in the guest"
	say
	say "$(grep -o 'calls [0-9]*' "$BENCH_OUT/vanilla.cost.log" | sed -n 1p | cut -d' ' -f2) calls per context, KERN_DEBUG (not printed on the console);"
	say "the fastest of $BENCH_ROUNDS boots of each kernel, booted in turns. 'call' is"
	say "the time in printk() itself; 'total' includes flushing the per-CPU"
	say "buffers (irq_work after each batch of 32 calls). 'spread' is how much"
	say "slower the slowest boot's call was: the noise of this measurement."
	say
	say "| context | vanilla call | spread | series call | spread | ratio | vanilla total | series total | ratio |"
	say "|---|---|---|---|---|---|---|---|---|"
	while read -r context v_call v_total v_spread; do
		read -r _ s_call s_total s_spread < <(grep "^$context " "$BENCH_OUT/for-next.cost")
		say "| $context | $v_call | $v_spread | $s_call | $s_spread | $(ratio "$v_call" "$s_call") | $v_total | $s_total | $(ratio "$v_total" "$s_total") |"
	done <"$BENCH_OUT/vanilla.cost"
	say
	say "Goals: normal context within 1% of vanilla (ratio <= 1.010); printk_safe"
	say "context no slower than vanilla's deferred store (call ratio <= 1.000)."
	say
}

# produced delivered lost of a "flood" boot with FLOOD_LINES lines.
flood_of() {
	qemu_boot "$1" "$2" "pstest.only=flood pstest.lines=$FLOOD_LINES" >&2
	console_text "$2" |
		sed -n 's/^.*# flood: produced \([0-9-]*\) delivered \([0-9]*\) lost \([0-9]*\)$/\1 \2 \3/p'
}

flood_row() {
	local label=$1 buffer=$2 produced delivered lost
	read -r produced delivered lost
	[ -n "$produced" ] || die "no flood result for $label"
	say "| $label | $buffer | $produced | $delivered | $lost | $((produced - delivered - lost)) |"
}

bench_flood() {
	local shift extra=$BENCH_OUT/shift.config
	say "## Loss under flood"
	say
	say "$FLOOD_LINES lines per CPU from NMI and from a printk_safe section, 4 vCPUs."
	say "Unaccounted = produced - delivered - reported lost; it must be 0."
	say
	say "| kernel | per-CPU buffer | produced | delivered | reported lost | unaccounted |"
	say "|---|---|---|---|---|---|"
	flood_of "$IMAGES/vanilla.bzImage" "$BENCH_OUT/vanilla.flood.log" | flood_row vanilla none
	for shift in "${SHIFTS[@]}"; do
		say "CONFIG_PRINTK_SAFE_LOG_BUF_SHIFT=$shift" >"$extra"
		# In an O= directory of their own, so that the warm run below
		# finds the stages' one as make ci left it.
		BUILD_DIR=$BENCH_OUT/build KCONFIG_EXTRA=$extra IMAGE_TAG=-shift$shift \
			BUILDS=for-next bash "$TOP/ci/build.sh" >&2
		flood_of "$IMAGES/for-next-shift$shift.bzImage" "$BENCH_OUT/shift$shift.flood.log" |
			flood_row series "$((1 << shift >> 10)) KiB (shift $shift)"
	done
	say
}

# Seconds from QEMU start to the first KTAP line, best of three.
boot_to_ktap() {
	local start t log=$BENCH_OUT/ktap.log best=
	for _ in 1 2 3; do
		start=$(date +%s.%N)
		qemu_start "$IMAGES/for-next.bzImage" "$log" pstest.only=planted_hang
		timeout "$BOOT_TIMEOUT" sh -c "until grep -q 'KTAP version 1' '$log'; do sleep 0.05; done" ||
			die "no KTAP line in $log"
		t=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
		kill_tree "$!"
		[ -n "$best" ] && awk -v a="$best" -v b="$t" 'BEGIN { exit !(a <= b) }' || best=$t
	done
	say "$best"
}

# Patch file $1 with line $3 added after its first line $2, and the hunk
# holding it one line longer.
add_patch_line() {
	local file=$1 n h
	n=$(grep -n -m 1 -x -F -e "$2" "$file" | cut -d: -f1)
	[ -n "$n" ] || return 1
	h=$(head -n "$n" "$file" | grep -n '^@@ ' | tail -n 1 | cut -d: -f1)
	awk -v n="$n" -v h="$h" -v line="$3" '
		NR == h && match($0, /\+[0-9]+,[0-9]+/) {
			split(substr($0, RSTART + 1, RLENGTH - 1), a, ",")
			$0 = substr($0, 1, RSTART) a[1] "," a[2] + 1 substr($0, RSTART + RLENGTH)
		}
		{ print }
		NR == n { print line }' "$file" >"$file.new"
	mv "$file.new" "$file"
}

# Stage times (file of "stage seconds" lines) of a warm run with one topic
# edited, in a scratch copy of topics/: a line of code added to the last
# series topic.  It puts a string, new in each run, into the image and
# changes nothing else, so that no stage has a result for it yet and
# every kernel holding the topic is built and booted.  The real topics are
# regenerated and rebuilt afterwards.
warm_edited() {
	local scratch=$BENCH_OUT/topics stage start patch
	rm -rf "$scratch"
	cp -r "$TOPICS_DIR" "$scratch"
	patch=$(ls "$scratch"/06-*/*.patch | sed -n 1p)
	add_patch_line "$patch" $'+\t\tdebug_locks_off();' \
		$'+\t\tbarrier_data("warm edit '"$(date +%s)"'");' ||
		die "cannot edit $patch for the warm run"
	: >"$BENCH_OUT/warm-edited"
	for stage in "${STAGES[@]}"; do
		start=$(date +%s)
		TOPICS_DIR=$scratch make -C "$TOP" --no-print-directory "$stage" >&2 ||
			{ restore_topics; die "warm run: stage $stage failed"; }
		say "$stage $(($(date +%s) - start))" >>"$BENCH_OUT/warm-edited"
	done
	restore_topics
}

# The branches and builds of the real topics/, after the edited copy's.
restore_topics() {
	make -C "$TOP" --no-print-directory topics build >&2
}

# A cold `make ci` in a scratch cache: nothing of this one (tree, ccache)
# is inherited, as on a new machine.
cold_run() {
	rm -rf "$COLD_CACHE"
	tgit worktree prune
	env -u PRINTK_TREE -u CCACHE_DIR PRINTK_CACHE="$COLD_CACHE" \
		make -C "$TOP" --no-print-directory ci >&2
}

bench_pipeline() {
	local cold=$COLD_CACHE/out/pipeline-times.cold stage c w
	[ -z "${BENCH_COLD:-}" ] || cold_run
	[ -f "$cold" ] || cold=$OUT/pipeline-times.cold
	warm_edited
	say "## Pipeline, seconds of wall time on this machine"
	say
	if [ -f "$cold" ]; then
		say "Cold: the last \`make ci\` with an empty cache ($(date -u -r "$cold" '+%Y-%m-%d %H:%M UTC'))."
	else
		say "Cold: not measured yet (\`make bench BENCH_COLD=1\` runs one)."
		cold=/dev/null
	fi
	say "Warm: \`make ci\` stages after editing one topic."
	say
	say "| stage | cold | warm, one topic edited |"
	say "|---|---|---|"
	for stage in "${STAGES[@]}"; do
		c=$(awk -v s="$stage" '$1 == s { print $2 }' "$cold")
		w=$(awk -v s="$stage" '$1 == s { print $2 }' "$BENCH_OUT/warm-edited")
		say "| $stage | ${c:--} | $w |"
	done
	say "| **total** | $(awk '{ t += $2 } END { print NR ? t : "-" }' "$cold") | $(awk '{ t += $2 } END { print t }' "$BENCH_OUT/warm-edited") |"
	say
	say "Goals: cold < 720 s, warm < 90 s. Boot to the first KTAP line: $(boot_to_ktap) s (goal < 5 s), best of 3."
	say
}

# The boot verdicts (kernel, scenario, result) of the last make boot.
verdicts() {
	jq -r '.tests[] | [.misc.kernel, .misc.scenario, .misc.result] | join(" ")' \
		"$OUT/boot/results.json" | sort
}

# Boot every kernel VERDICT_RUNS times (FORCE=1 make boot) and count the
# runs whose verdicts are those of the first: a verdict that changes from
# one run to the next is a flaky check.
bench_verdicts() {
	local run same=1 first=$BENCH_OUT/verdicts.1
	for ((run = 1; run <= VERDICT_RUNS; run++)); do
		# A run with failures that count still gives verdicts.
		FORCE=1 make -C "$TOP" --no-print-directory boot >&2 ||
			warn "verdicts: make boot run $run failed (see above)"
		verdicts >"$BENCH_OUT/verdicts.$run"
		[ "$run" = 1 ] || ! cmp -s "$first" "$BENCH_OUT/verdicts.$run" || same=$((same + 1))
	done
	say "## Boot verdicts, repeated"
	say
	say "\`FORCE=1 make boot\` $VERDICT_RUNS times: $same of $VERDICT_RUNS runs gave the verdicts of the first"
	say "($(wc -l <"$first") kernel x scenario verdicts each)."
	for ((run = 2; run <= VERDICT_RUNS; run++)); do
		cmp -s "$first" "$BENCH_OUT/verdicts.$run" && continue
		say
		say "Run $run differs from run 1:"
		say
		diff "$first" "$BENCH_OUT/verdicts.$run" | sed -n 's/^[<>] /    /p'
	done
	say
}

machine() {
	say "# printk_safe benchmarks"
	say
	say "$(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs ($(sed -n 's/^model name\t: //p' /proc/cpuinfo | sed -n 1p)), $(free -g | awk '/^Mem:/ { print $2 }') GiB,"
	say "$(. /etc/os-release && say "$PRETTY_NAME"), $(qemu-system-x86_64 --version | sed -n 1p), base $(base_ref)."
	say "Guests: QEMU $ACCEL, -smp 4, the build and boot configuration of ci/."
	say "Absolute numbers vary between runs (emulated CPUs on a shared host):"
	say "compare the ratios, which come from one run of this script."
	say
}

main() {
	need_tree
	stage_lock bench
	mkdir -p "$BENCH_OUT"
	make_initramfs
	{
		machine
		bench_cost
		bench_flood
		bench_verdicts
		bench_pipeline
	} >"$BENCH_OUT/bench.md.new"
	mv "$BENCH_OUT/bench.md.new" "$BENCH_OUT/bench.md"
	cat "$BENCH_OUT/bench.md"
}

main "$@"
