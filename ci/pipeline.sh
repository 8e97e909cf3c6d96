#!/usr/bin/env bash
# pipeline.sh - run every stage in order (make ci), timing each one
#
# Stage wall times go to $OUT/pipeline-times.cold or .warm (cold: the
# kernel tree did not exist yet), which the benchmark reads.  The stages
# run under this run's stage lock (they inherit it).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STAGES=(setup topics lint build boot mail review pull)

main() {
	local stage start times=$OUT/pipeline-times.warm
	stage_lock ci
	is_git_tree "$PRINTK_TREE" || times=$OUT/pipeline-times.cold
	mkdir -p "$OUT"
	: >"$times.new"
	for stage in "${STAGES[@]}"; do
		say "=== make $stage"
		start=$SECONDS
		make -C "$TOP" --no-print-directory "$stage" ||
			die "stage '$stage' failed (see above); later stages were not run"
		say "$stage $((SECONDS - start))" >>"$times.new"
	done
	mv "$times.new" "$times"
	say "=== ci: all stages passed"
	column -t "$times" | sed 's/^/  /'
}

main "$@"
