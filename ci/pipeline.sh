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
# A make ci that finds nothing changed since the last one passed
# (ci_state; FORCE=1 runs it all) runs no stage: each stage redoes only
# what changed anyway, but finding that out costs each of them seconds.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STAGES=(setup topics lint build boot mail review pull)
OTHER_BASE_STAGES=(topics lint build boot mail review pull)
PASSED=$OUT/ci-passed

# The mode and content hash of each file named on standard input
# (NUL-terminated); an error for one that is gone.
files_state() {
	xargs -0 -r sh -c 'stat -c "%a %n" -- "$@" 2>&1; sha1sum -- "$@" 2>&1' - || :
}

# What the outcome of make ci depends on, as a hash: this repository's
# files (mode, content) and path, the topics, mutants, configs and bases
# named from elsewhere, the kernel tree (refs, uncommitted changes), the
# list's refs, the packages and the tools on PATH, git's configuration
# (the maintainer's identity), the images and results the stages left,
# and the environment, less what changes from one shell to the next.
# Empty where this repository is not a git tree: then every stage runs.
ci_state() {
	local inbox dir tool
	is_git_tree "$TOP" || return 0
	{
		say "$TOP"
		git -C "$TOP" ls-files -z --cached --others --exclude-standard | (cd "$TOP" && files_state)
		for dir in "$TOPICS_DIR" "$MUTANTS_DIR" "$CONFIGS_DIR" "$BASES_FILE"; do
			if [[ $dir == "$TOP"/* ]]; then
				continue
			elif [ -e "$dir" ]; then
				find "$dir" -type f -print0 | sort -z | files_state
			else
				say "no $dir"
			fi
		done
		if is_git_tree "$PRINTK_TREE"; then
			tgit for-each-ref --format='%(objectname) %(refname)'
			tgit status --porcelain
			tgit config -l
		fi
		for inbox in "$PRINTK_CACHE"/list/*/git/*.git; do
			[ ! -d "$inbox" ] || git -C "$inbox" for-each-ref --format="%(objectname) $inbox %(refname)"
		done
		dpkg-query -W -f '${Package} ${Version}\n' 2>&1 || :
		for tool in gcc make ccache sparse spatch perl python3 b4 qemu-system-x86_64 public-inbox-mda; do
			stat -L -c '%n %s %Y' "$(type -P "$tool")" 2>&1 || :
		done
		stat -c '%n %s %Y' "$IMAGES"/* "$OUT"/*/results.json 2>&1 || :
		env | grep -Ev '^(_|SHLVL|PWD|OLDPWD|TERM|COLUMNS|LINES|MAKEFLAGS|MFLAGS|MAKELEVEL|MAKE_TERMOUT|MAKE_TERMERR|SSH_[A-Z_]*|DISPLAY|XDG_[A-Z_]*)=' | sort
	} | sha1sum | cut -d' ' -f1
}

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
	local series others state failed=()
	stage_lock ci
	TIMES=$OUT/pipeline-times.warm
	is_git_tree "$PRINTK_TREE" || TIMES=$OUT/pipeline-times.cold
	mkdir -p "$OUT"
	: >"$TIMES.new"
	state=$(ci_state)
	if [ -z "${FORCE:-}" ] && [ -n "$state" ] && [ "$(cat "$PASSED" 2>/dev/null)" = "$state" ]; then
		say "up-to-date $SECONDS" >"$TIMES.new"
		mv "$TIMES.new" "$TIMES"
		say "=== ci: up to date: nothing changed since make ci passed ($(date -r "$PASSED" '+%F %T'))"
		return
	fi
	rm -f "$PASSED"
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
	# As the stages left it: a run from there would do the same again.
	state=$(ci_state)
	[ -z "$state" ] || say "$state" >"$PASSED"
	say "=== ci: all stages passed"
	column -t "$TIMES" | sed 's/^/  /'
}

main "$@"
