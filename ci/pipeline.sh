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
# A stage that passed in make ci is not run again while nothing it may
# depend on has changed since (ci_state; FORCE=1 runs it): each stage
# redoes only what changed anyway, but finding that out costs each of
# them seconds.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STAGES=(setup topics lint build boot mail review pull)
STAMPS=$OUT/ci-passed
OTHER_BASE_STAGES=(topics lint build boot mail review pull)

# What a stage's outcome depends on, as a hash: this repository's files
# and path, the kernel tree's and the list's refs, the packages, git's
# configuration (the maintainer's identity), the stages' results and the
# environment, less what changes from one shell to the next.  Empty where this repository
# is not a git tree: then every stage runs.
ci_state() {
	local inbox
	is_git_tree "$TOP" || return 0
	{
		say "$TOP"
		git -C "$TOP" ls-files -z --cached --others --exclude-standard |
			(cd "$TOP" && xargs -0 -r sha1sum -- 2>&1) || :
		if is_git_tree "$PRINTK_TREE"; then
			tgit for-each-ref --format='%(objectname) %(refname)'
			tgit config -l
		fi
		for inbox in "$PRINTK_CACHE"/list/*/git/*.git; do
			[ ! -d "$inbox" ] || git -C "$inbox" for-each-ref --format="%(objectname) $inbox %(refname)"
		done
		dpkg-query -W -f '${Package} ${Version}\n' 2>&1 || :
		# The stages' results as they left them (make bench, a stage
		# on its own, a hand rewrite them).
		stat -c '%n %s %Y' "$OUT"/*/results.json 2>&1 || :
		env | grep -Ev '^(_|SHLVL|PWD|OLDPWD|TERM|COLUMNS|LINES|MAKEFLAGS|MFLAGS|MAKELEVEL|MAKE_TERMOUT|MAKE_TERMERR|SSH_[A-Z_]*|DISPLAY|XDG_[A-Z_]*)=' | sort
	} | sha1sum | cut -d' ' -f1
}

# Run stages $2... on base series $1 ("" for the default) until one fails.
# A stage that passed in make ci with nothing changed since (ci_state) is
# not run again; a stage run on its own (stage_lock) forgets them all.
run_stages() {
	local series=$1 stage start suffix stamp
	shift
	suffix=$(BASE=$series base_suffix)
	for stage in "$@"; do
		start=$SECONDS
		stamp=$STAMPS/$stage$suffix
		# STATE: as the last stage that ran left it.
		[ -n "${STATE+set}" ] || STATE=$(ci_state)
		if [ -z "${FORCE:-}" ] && [ -n "$STATE" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$STATE" ]; then
			say "=== make $stage${series:+ BASE=$series}: up to date (passed with this state, $(date -r "$stamp" '+%F %T'))"
		else
			say "=== make $stage${series:+ BASE=$series}"
			rm -f "$stamp"
			if ! BASE=$series BUILDS=${series:+"vanilla$suffix for-next$suffix"} \
				make -C "$TOP" --no-print-directory "$stage"; then
				warn "stage '$stage'${series:+ of base $series} failed (see above); its later stages were not run"
				unset STATE
				return 1
			fi
			STATE=$(ci_state)
			[ -z "$STATE" ] || say "$STATE" >"$stamp"
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
	mkdir -p "$STAMPS"
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
