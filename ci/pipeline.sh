#!/usr/bin/env bash
# pipeline.sh - run every stage in order (make ci), timing each one
#
# The default base (the first of tree-setup/bases) goes through every
# stage.  Each other base whose source is imported (make setup imports the
# linux-source-<series> installed) then gets its regeneration, lint, a
# build and boot of its vanilla and for-next (BASE=6.12 make build boot
# builds and boots its every topic and mutant; README.md), and its own
# mail series (mail/<series>/): sent, reviewed, applied and pulled as
# for-linus-<series>.  A base whose stage fails
# stops there without stopping the other bases, and make ci fails at the
# end naming it.
# Stage wall times go to $OUT/pipeline-times.cold or .warm (cold: the
# kernel tree did not exist yet), which the benchmark reads; a stage of
# another base is named stage-<series>.  The stages run under this run's
# stage lock (they inherit it).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STAGES=(setup topics lint build boot mail review pull)
OTHER_BASE_STAGES=(topics lint build boot mail review pull)

# Run stages $2... on base series $1 ("" for the default) until one fails.
run_stages() {
	local series=$1 stage start suffix
	shift
	suffix=$(BASE=$series base_suffix)
	for stage in "$@"; do
		say "=== make $stage${series:+ BASE=$series}"
		start=$SECONDS
		if ! BASE=$series BUILDS=${series:+"vanilla$suffix for-next$suffix"} \
			make -C "$TOP" --no-print-directory "$stage"; then
			warn "stage '$stage'${series:+ of base $series} failed (see above); its later stages were not run"
			return 1
		fi
		say "$stage$suffix $((SECONDS - start))" >>"$TIMES.new"
	done
}

# The bases other than the default that the tree has imported.
imported_other_bases() {
	local series
	load_bases
	for series in "${BASE_SERIES[@]:1}"; do
		[ -z "$(tgit tag -l "distro/$series.*")" ] || say "$series"
	done
}

main() {
	local series others failed=()
	stage_lock ci
	TIMES=$OUT/pipeline-times.warm
	is_git_tree "$PRINTK_TREE" || TIMES=$OUT/pipeline-times.cold
	mkdir -p "$OUT"
	: >"$TIMES.new"
	load_bases
	# Every base needs the tree setup makes.
	run_stages "" setup || die "stage 'setup' failed (see above); no later stage was run"
	run_stages "" "${STAGES[@]:1}" || failed+=("${BASE_SERIES[0]}")
	read_lines others imported_other_bases
	for series in "${others[@]}"; do
		run_stages "$series" "${OTHER_BASE_STAGES[@]}" || failed+=("$series")
	done
	mv "$TIMES.new" "$TIMES"
	[ "${#failed[@]}" = 0 ] || die "ci: the stages of base(s) ${failed[*]} failed (see above)"
	say "=== ci: all stages passed"
	column -t "$TIMES" | sed 's/^/  /'
}

main "$@"
