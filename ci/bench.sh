#!/usr/bin/env bash
# bench.sh - printk cost and loss, series against vanilla 6.1, and the
# pipeline's timings; writes and prints $OUT/bench/bench.md, and every
# figure in $OUT/bench/bench.json.  BENCH_PARTS picks parts (all of them
# by default, in this order):
#
# icount    printk() cost per call in normal context, in a printk_safe
#           section and in NMI, in guest instructions (QEMU -icount):
#           vanilla and for-next, ICOUNT_RUNS boots each, with the spread.
# cost      the same in wall-clock ns, BENCH_ROUNDS boots each, in turns.
# flood     loss under flood: the "flood" scenario with FLOOD_LINES lines
#           per CPU and context, on vanilla and on the series built with
#           each buffer shift of SHIFTS.
# verdicts  VERDICT_RUNS runs of `FORCE=1 make boot`, and how many gave
#           the same verdicts as the first.
# pipeline  stage times of the last cold `make ci` (BENCH_COLD=1 runs one
#           in the scratch cache $COLD_CACHE; a CI run with PRINTK_CACHE
#           there counts too) and the least it could take, of warm runs
#           with the last 1, 3 and all topics edited (BENCH_EDITS) and of
#           one with nothing changed, and the time from QEMU start to the
#           first KTAP line.
. "$(dirname "${BASH_SOURCE[0]}")/boot.sh"

BENCH_OUT=$OUT/bench
COLD_CACHE=$BENCH_OUT/cold
BENCH_ROUNDS=${BENCH_ROUNDS:-5}
ICOUNT_RUNS=${ICOUNT_RUNS:-2}
read -r -a PARTS <<<"${BENCH_PARTS:-icount cost flood verdicts pipeline}"
FLOOD_LINES=${FLOOD_LINES:-500}
read -r -a SHIFTS <<<"${SHIFTS:-12 13 16}"
VERDICT_RUNS=${VERDICT_RUNS:-3}
# Warm runs with the last N topics edited: 1 first (the inner loop).
read -r -a EDITS <<<"${BENCH_EDITS:-1 3 all}"

# make ci "$@" without this script's knobs in its environment: make ci
# counts the environment in its state (ci/pipeline.sh), and a bench's run
# would otherwise differ from the maintainer's (another base not skipped).
ci_run() {
	env -u BENCH_PARTS -u BENCH_EDITS -u BENCH_ROUNDS -u BENCH_COLD -u ICOUNT_RUNS \
		-u FLOOD_LINES -u SHIFTS -u VERDICT_RUNS "$@" make -C "$TOP" --no-print-directory ci
}

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
		printf "%s %s %s %.2f\n", n, call[n], total[n], 100 * (worst[n] / call[n] - 1) } }'
}

# One figure of the benchmark into bench.json: name, unit, value, spread
# (%, or null), kernel (its image's commit is looked up).
figure() {
	local commit=null
	[ ! -f "$IMAGES/$5.commit" ] || commit=\"$(cat "$IMAGES/$5.commit")\"
	jq -nc --arg name "$1" --arg unit "$2" --argjson value "$3" --argjson spread "${4:-null}" \
		--arg kernel "$5" --argjson commit "$commit" \
		'{name: $name, unit: $unit, value: $value, spread: $spread, kernel: $kernel, commit: $commit}' \
		>>"$BENCH_OUT/figures.jsonl"
}

# "met" when $1 $2 $3 holds (awk comparison), else "NOT met".
goal() { awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }" && say met || say "NOT met"; }

# Boot vanilla and for-next with the bench scenario, in turns (a slow
# spell of the host hits both), $2 rounds; $BENCH_OUT/<kernel>.$1 gets
# per context "context call total spread".
cost_runs() {
	local label=$1 rounds=$2 k round out
	for k in vanilla for-next; do : >"$BENCH_OUT/$k.$label.all"; done
	for ((round = 1; round <= rounds; round++)); do
		for k in vanilla for-next; do
			out=$BENCH_OUT/$k.$label.$round
			qemu_boot "$IMAGES/$k.bzImage" "$out.log" pstest.only=bench >&2
			cost_of "$out.log" >"$out"
			[ "$(wc -l <"$out")" = 3 ] || die "no bench results from $k (see $out.log)"
			cat "$out" >>"$BENCH_OUT/$k.$label.all"
		done
	done
	for k in vanilla for-next; do
		best_of_rounds <"$BENCH_OUT/$k.$label.all" >"$BENCH_OUT/$k.$label"
	done
}

# The side-by-side table of cost_runs $1, in unit $2; its figures.
cost_table() {
	local label=$1 unit=$2 context v_call v_total v_spread s_call s_total s_spread
	say "| context | vanilla, $unit | spread | series, $unit | spread | ratio | vanilla, flush included | series, flush included | ratio |"
	say "|---|---|---|---|---|---|---|---|---|"
	while read -r context v_call v_total v_spread; do
		read -r _ s_call s_total s_spread < <(grep "^$context " "$BENCH_OUT/for-next.$label")
		say "| $context | $v_call | $v_spread% | $s_call | $s_spread% | $(ratio "$v_call" "$s_call") | $v_total | $s_total | $(ratio "$v_total" "$s_total") |"
		figure "$label.$context.call" "$unit" "$v_call" "$v_spread" vanilla
		figure "$label.$context.call" "$unit" "$s_call" "$s_spread" for-next
		figure "$label.$context.total" "$unit" "$v_total" "" vanilla
		figure "$label.$context.total" "$unit" "$s_total" "" for-next
		figure "$label.$context.ratio" "series/vanilla" "$(ratio "$v_call" "$s_call")" "" for-next
		figure "$label.$context.total_ratio" "series/vanilla" "$(ratio "$v_total" "$s_total")" "" for-next
	done <"$BENCH_OUT/vanilla.$label"
}

# jq filter $1 over the array of the figures so far.
figures() { jq -rs "$1" "$BENCH_OUT/figures.jsonl"; }

bench_icount() {
	local normal safe spread
	ICOUNT=1 cost_runs icount "$ICOUNT_RUNS"
	say "## printk() cost, guest instructions per call"
	say
	say "QEMU -icount shift=0,sleep=off, one vCPU: guest time counts executed"
	say "instructions, one per ns, so these figures repeat from boot to boot."
	say "$(grep -o 'calls [0-9]*' "$BENCH_OUT/vanilla.icount.1.log" | sed -n 1p | cut -d' ' -f2) calls per context, KERN_DEBUG (not printed on the console);"
	say "$ICOUNT_RUNS boots of each kernel. 'spread' is max / min - 1 over the boots."
	say "'flush included' counts the whole run, the irq_work flushes too."
	say
	cost_table icount insns
	normal=$(figures 'map(select(.name == "icount.normal.ratio"))[0].value')
	safe=$(figures 'map(select(.name == "icount.safe.ratio"))[0].value')
	spread=$(figures 'map(select(.name | startswith("icount.")) | .spread // 0) | max')
	say
	say "Goals: normal-context ratio <= 1.010: $normal, $(goal "$normal" '<=' 1.010);"
	say "printk_safe context no slower than vanilla's deferred store (ratio <= 1.000):"
	say "$safe, $(goal "$safe" '<=' 1.000); spread between boots < 0.5%: at most $spread%,"
	say "$(goal "$spread" '<' 0.5)."
	say
}

bench_cost() {
	cost_runs wall "$BENCH_ROUNDS"
	say "## printk() cost, ns per call in the guest, wall clock"
	say
	say "QEMU $ACCEL, -smp 4, guest time following the host's: the fastest of"
	say "$BENCH_ROUNDS boots of each kernel, booted in turns. 'call' is the time"
	say "in printk() itself; 'flush included' also counts flushing the per-CPU"
	say "buffers (irq_work after each batch of 32 calls). 'spread' is how much"
	say "slower the slowest boot's call was: the noise of this measurement."
	say
	cost_table wall ns
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
		KCONFIG_EXTRA=$extra IMAGE_TAG=-shift$shift BUILDS=for-next bash "$TOP/ci/build.sh" >&2
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

# Patch file $1 with line $3 added after its line $2, and the hunk
# holding it one line longer.
add_patch_line() {
	local file=$1 n=$2 h
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

# The number of the last line of file $1, a patch, that adds a function
# call statement to a function of a .c file; none if it adds none.
call_line() {
	awk '/^diff --git / { c = ($0 ~ /\.c$/) }
		c && /^\+\t[a-z_][a-z0-9_]*\(.*\);$/ { n = NR }
		END { if (n) print n }' "$1"
}

# The last patch of topic directory $1 that adds a call statement to a
# .c file; nothing for a topic that adds none (MAINTAINERS only).
patch_to_edit() {
	local patches patch
	read_lines patches ls -r "$1"/*.patch
	for patch in "${patches[@]}"; do
		[ -z "$(call_line "$patch")" ] || { say "$patch"; return; }
	done
}

# The patches edited in place, each with its copy: edit_copy INDEX.
EDITED=()
edit_copy() { say "$BENCH_OUT/edited/$1.patch"; }

# The edited patches back as they were.
restore_edits() {
	local i
	for i in "${!EDITED[@]}"; do
		cp "$(edit_copy "$i")" "${EDITED[i]}"
	done
	EDITED=()
}

# Patch $1 with a call added after its last call statement: a string new
# in each run, so that no stage has a result for it yet and every kernel
# holding the topic is built and booted, and nothing else changes.  In
# place, as the maintainer edits: a copy of the topics elsewhere would be
# another TOPICS_DIR, which every base's state counts anew (pipeline.sh).
# Its copy first, for restore_edits.
edit_patch() {
	local copy
	copy=$(edit_copy "${#EDITED[@]}")
	say "bench: $1 edited in place, restored when the run ends (a copy: $copy)" >&2
	mkdir -p "$BENCH_OUT/edited"
	cp "$1" "$copy"
	EDITED+=("$1")
	add_patch_line "$1" "$(call_line "$1")" $'+\tbarrier_data("warm edit '"$EDIT_STAMP"'");'
}

# make ci with the last $1 topics of the series ("all": every one) that
# add code edited (edit_patch), then restored; its stage times into
# $BENCH_OUT/warm-edited-$1, and a line "edited kernels-built
# kernels-booted seconds outcome" into warm-scale-$1.  It may fail, and
# the times count still: an edit of a topic of the mail series after
# its last revision was applied makes the pull stage refuse (that is for
# the next revision), and the stages after a failed one do not run.
edited_run() {
	local n=$1 dirs=() edited=() i patch outcome=passed
	local log=$BENCH_OUT/warm-edited-$1.log
	read_lines dirs ls -d "$TOPICS_DIR"/[0-9]*/
	EDIT_STAMP=$(date +%s)
	for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
		[ "$n" = all ] || [ "${#edited[@]}" -lt "$n" ] || break
		# The test topic is in every kernel: not a topic of the series.
		load_topic "${dirs[i]%/}"
		[ "$topic_name" != "$SELFTEST_TOPIC" ] || continue
		patch=$(patch_to_edit "${dirs[i]%/}")
		[ -z "$patch" ] || edited+=("$patch")
	done
	[ "$n" = all ] || [ "${#edited[@]}" = "$n" ] ||
		die "warm run: only ${#edited[@]} topics add code to edit, not $n"
	for patch in "${edited[@]}"; do
		edit_patch "$patch"
	done
	rm -f "$OUT/pipeline-times.warm"
	ci_run 2>&1 | tee "$log" >&2 ||
		outcome="failed:$(sed -n -e "s/^warning: stage '\([^']*\)' of base \([^ ]*\) failed.*/\1-\2/p" \
			-e "s/^warning: stage '\([^']*\)' failed.*/\1/p" "$log" | paste -sd, -)"
	restore_edits
	[ -f "$OUT/pipeline-times.warm" ] || die "warm run with ${edited[*]} edited failed before its stages ran"
	cp "$OUT/pipeline-times.warm" "$BENCH_OUT/warm-edited-$n"
	say "${#edited[@]} $(grep -c '^build: .*: built,' "$log") $(grep -c '^boot: .*: booted,' "$log") $(total_secs "$OUT/pipeline-times.warm") $outcome" \
		>"$BENCH_OUT/warm-scale-$n"
}

# Stage times of `make ci` (file of "stage seconds" lines, $OUT/pipeline-
# times.warm), after one that is not timed: with each count of
# BENCH_EDITS topics edited (edited_run), each followed by make ci with
# the edit undone (warm-undone: the last one's); then once more, nothing
# changed since, into warm-unchanged.
warm_runs() {
	local n
	# The bench's stage lock dropped the marks of the last make ci that
	# passed (stage_lock): one first, so that the edited run starts where
	# the maintainer's would, another base up to date.
	ci_run >&2
	for n in "${EDITS[@]}"; do
		edited_run "$n"
		ci_run >&2
		cp "$OUT/pipeline-times.warm" "$BENCH_OUT/warm-undone"
	done
	ci_run >&2
	cp "$OUT/pipeline-times.warm" "$BENCH_OUT/warm-unchanged"
}

# How the warm loop grows with the topics edited (goal 4), and what each
# kernel took to build in the cold run whose build results are $1.
scaling() {
	local n f json=$1
	say "Warm \`make ci\` with the last N topics that add code edited:"
	say
	say "| N | topics edited | kernels built | kernels booted | seconds | make ci |"
	say "|---|---|---|---|---|---|"
	for n in "${EDITS[@]}"; do
		read -r -a f <"$BENCH_OUT/warm-scale-$n"
		say "| $n | ${f[0]} | ${f[1]} | ${f[2]} | ${f[3]} | ${f[4]} |"
		figure "pipeline.warm_edited_$n" s "${f[3]}" "" for-next
	done
	say
	[ -f "$json" ] || return 0
	say "Cold build per kernel (s): $(jq -r '[.builds[] | select(.misc.result == "built") | "\(.misc.kernel) \(.misc.seconds)"] | join(", ")' "$json")."
	say
}

# A cold `make ci` in a scratch cache: nothing of this one (tree, ccache)
# is inherited, as on a new machine.
cold_run() {
	rm -rf "$COLD_CACHE"
	tgit worktree prune
	ci_run -u PRINTK_TREE -u CCACHE_DIR PRINTK_CACHE="$COLD_CACHE" >&2
}

# Seconds of stage $2 in times file $1, "-" if not there.
stage_secs() { awk -v s="$2" '$1 == s { t = $2 } END { print t == "" ? "-" : t }' "$1"; }
total_secs() { awk '{ t += $2 } END { print NR ? t : "-" }' "$1"; }

# The least a cold `make ci` can take here (goal 3), a sentence: the
# builds a change of include/linux/printk.h makes (a full build per state
# of that file among the kernels with an image, and per configuration of
# ci/configs) and the boots.  From the cold run in cache $1: the seconds
# of its first build (vanilla, from nothing) and of its boot stages.
cold_bound() {
	local cache=$1 json=$1/out/build-results.cold.json states configs full boots
	[ -f "$json" ] || { say "The cold run kept no build results ($json): no bound."; return; }
	full=$(jq -r '[.builds[] | select(.misc.kernel == "vanilla") | .misc.seconds][0] // empty' "$json")
	if [ -z "$full" ]; then
		say "The cold run's builds have no times: no bound."
		return
	fi
	states=$(jq -r '.builds[] | select(.misc.result == "built" and (.misc.kernel | startswith("config-") | not))
			| .checkout_id | sub("^.*:"; "")' "$json" |
		sort -u | while read -r tree; do
			git -C "$cache/linux" rev-parse -q --verify "$tree:include/linux/printk.h"
		done | sort -u | wc -l)
	configs=$(jq '[.builds[] | select(.misc.result == "built" and (.misc.kernel | startswith("config-")))] | length' "$json")
	boots=$(awk '$1 ~ /^boot/ { t += $2 } END { print t + 0 }' "$cache/out/pipeline-times.cold")
	say "The least a cold run can take here: $(((states + configs) * full + boots)) s ($states states of include/linux/printk.h and $configs configurations x $full s for a full build, and $boots s of boots)."
}

bench_pipeline() {
	local cold=$COLD_CACHE/out/pipeline-times.cold stage c w d u stages
	[ "${EDITS[0]:-}" = 1 ] && ! grep -qvxE '[1-9][0-9]*|all' < <(printf '%s\n' "${EDITS[@]}") ||
		die "BENCH_EDITS=${BENCH_EDITS:-}: counts of topics (or all), the first 1"
	[ -z "${BENCH_COLD:-}" ] || cold_run
	at_exit restore_edits
	[ -f "$cold" ] || cold=$OUT/pipeline-times.cold
	warm_runs
	say "## Pipeline, seconds of wall time on this machine"
	say
	if [ -f "$cold" ]; then
		say "Cold: \`make ci\` with an empty cache ($(date -u -r "$cold" '+%Y-%m-%d %H:%M UTC'))."
	else
		say "Cold: not measured yet (\`make bench BENCH_COLD=1\` runs one)."
		cold=/dev/null
	fi
	say "Warm: \`make ci\` after a line of code is added to the last topic, after the edit is undone, then with nothing changed."
	say
	say "| stage | cold | warm, last topic edited | warm, edit undone | warm, unchanged |"
	say "|---|---|---|---|---|"
	read_lines stages awk '{ print $1 }' "$BENCH_OUT/warm-edited-1"
	for stage in "${stages[@]}"; do
		c=$(stage_secs "$cold" "$stage")
		w=$(stage_secs "$BENCH_OUT/warm-edited-1" "$stage")
		d=$(stage_secs "$BENCH_OUT/warm-undone" "$stage")
		u=$(stage_secs "$BENCH_OUT/warm-unchanged" "$stage")
		say "| $stage | $c | $w | $d | $u |"
	done
	c=$(total_secs "$cold") w=$(total_secs "$BENCH_OUT/warm-edited-1")
	d=$(total_secs "$BENCH_OUT/warm-undone") u=$(total_secs "$BENCH_OUT/warm-unchanged")
	say "| **total** | $c | $w | $d | $u |"
	figure pipeline.warm_edited s "$w" "" for-next
	figure pipeline.warm_unchanged s "$u" "" for-next
	[ "$c" = - ] || figure pipeline.cold s "$c" "" for-next
	say
	say "Goals: cold < 1500 s, warm with an edit < 90 s, unchanged < 15 s."
	# The cache the cold run was made in: $cache/out/pipeline-times.cold.
	[ "$c" = - ] || cold_bound "$(dirname "$(dirname "$cold")")"
	say
	scaling "$(dirname "$cold")/build-results.cold.json"
	say "Boot to the first KTAP line: $(boot_to_ktap) s (goal < 5 s), best of 3."
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
	say "Guests: the build and boot configuration of ci/. Wall-clock figures"
	say "vary between runs (emulated CPUs on a shared host): compare their"
	say "ratios, which come from one run of this script."
	say
}

main() {
	local part
	need_tree
	stage_lock bench
	mkdir -p "$BENCH_OUT"
	for part in "${PARTS[@]}"; do
		declare -F "bench_$part" >/dev/null ||
			die "BENCH_PARTS: no part '$part' (icount cost flood verdicts pipeline)"
	done
	make_initramfs
	: >"$BENCH_OUT/figures.jsonl"
	{
		machine
		for part in "${PARTS[@]}"; do
			"bench_$part"
		done
	} >"$BENCH_OUT/bench.md.new"
	jq -s . "$BENCH_OUT/figures.jsonl" >"$BENCH_OUT/bench.json"
	mv "$BENCH_OUT/bench.md.new" "$BENCH_OUT/bench.md"
	cat "$BENCH_OUT/bench.md"
	say "bench: figures in $BENCH_OUT/bench.json" >&2
}

main "$@"
