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
# kernel tree did not exist yet, and the build results are kept as
# $OUT/build-results.cold.json), which the benchmark reads; a stage of
# another base is named stage-<series>.  The stages run under this run's
# stage lock (they inherit it).
# A make ci that finds nothing changed since the last one passed
# (ci_state; FORCE=1 runs it all) runs no stage: each stage redoes only
# what changed anyway, but finding that out costs each of them seconds.
# Likewise another base is skipped when nothing its stages read changed
# since they passed ($PASSED-<series>).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
. "$TOP/topics/apply.sh"

STAGES=(setup topics lint build boot mail review pull)
OTHER_BASE_STAGES=(topics lint build boot mail review pull)
PASSED=$OUT/ci-passed

# The mode and content hash of each file named on standard input
# (NUL-terminated); an error for one that is gone.
files_state() {
	xargs -0 -r sh -c 'stat -c "%a %n" -- "$@" 2>&1; sha1sum -- "$@" 2>&1' - || :
}

# The topic patches that base series $1 applies (base_patches: a
# variant of its own, none for a topic it has), one per line.
applied_patches() {
	local dir APPLY_SERIES=$1
	[ -d "$TOPICS_DIR" ] || return 0
	load_topics
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		base_patches "$dir"
	done
}

# NUL-terminated paths on standard input, less the topic patches that base
# series $1 does not apply.
used_by_base() {
	local patches=() path
	local -A used=()
	read_lines patches applied_patches "$1"
	for path in "${patches[@]}"; do
		used[$path]=1
	done
	while IFS= read -r -d '' path; do
		[[ $path == "$TOPICS_DIR"/*.patch && -z ${used[$path]:-} ]] || printf '%s\0' "$path"
	done
}

# The kernel tree's refs ("id name"), less, for a base other than the
# default (its suffix $1), the default base's topics, for-next and builds:
# its stages do not read them.
base_refs() {
	tgit for-each-ref --format='%(objectname) %(refname)' |
		if [ -z "$1" ]; then
			cat
		else
			awk -v s="$1" '!($2 ~ /^refs\/(heads\/topic\/|heads\/for-next$|regen\/|build\/)/ &&
				substr($2, length($2) - length(s) + 1) != s)'
		fi
}

# What the outcome of make ci depends on, as a hash: this repository's
# files (mode, content) and path, the topics, mutants, configs and bases
# named from elsewhere, the kernel tree (refs, uncommitted changes), the
# list's refs, the packages and the tools on PATH, git's configuration
# (the maintainer's identity), the images and results the stages left,
# and the environment, less what changes from one shell to the next.
# With a base series $1 other than the default, what its stages depend
# on: the same, less the topic patches it does not apply and the default
# base's refs, images and results, which its stages do not read: then an
# edit of a topic patch of the default base only leaves it up to date.
# Empty where this repository is not a git tree: then every stage runs.
ci_state() {
	local series=${1:-} suffix='' inbox dir tool path
	is_git_tree "$TOP" || return 0
	[ -z "$series" ] || suffix=$(BASE=$series base_suffix)
	{
		say "$TOP"
		{
			git -C "$TOP" ls-files -z --cached --others --exclude-standard |
				while IFS= read -r -d '' path; do printf '%s/%s\0' "$TOP" "$path"; done
			for dir in "$TOPICS_DIR" "$MUTANTS_DIR" "$CONFIGS_DIR" "$BASES_FILE"; do
				[[ $dir == "$TOP"/* ]] || [ ! -e "$dir" ] || find "$dir" -type f -print0 | sort -z
			done
		} | if [ -n "$series" ]; then used_by_base "$series"; else cat; fi | files_state
		for dir in "$TOPICS_DIR" "$MUTANTS_DIR" "$CONFIGS_DIR" "$BASES_FILE"; do
			[ -e "$dir" ] || say "no $dir"
		done
		if is_git_tree "$PRINTK_TREE"; then
			base_refs "$suffix"
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
		if [ -n "$suffix" ]; then
			stat -c '%n %s %Y' "$IMAGES"/*"$suffix".* "$OUT"/*"$suffix"/results.json 2>&1 || :
		else
			stat -c '%n %s %Y' "$IMAGES"/* "$OUT"/*/results.json 2>&1 || :
		fi
		env | grep -Ev '^(_|SHLVL|PWD|OLDPWD|TERM|COLUMNS|LINES|MAKEFLAGS|MFLAGS|MAKELEVEL|MAKE_TERMOUT|MAKE_TERMERR|SSH_[A-Z_]*|DISPLAY|XDG_[A-Z_]*)=' | sort
	} | sha1sum | cut -d' ' -f1
}

# Is $1 a state (ci_state) that stamp file $2 says passed?  Never with
# FORCE=1 or where there is no state.
passed() { [ -z "${FORCE:-}" ] && [ -n "$1" ] && [ "$(cat "$2" 2>/dev/null)" = "$1" ]; }

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

# ci_state "$@", or nothing (then the stages run) where it fails: a
# broken topic fails the stages that read it, not make ci here.  In the
# background, so that errexit holds in it.
state_or_none() {
	local file=$OUT/ci-state.tmp
	ci_state "$@" >"$file" &
	if wait "$!"; then
		cat "$file"
	fi
	rm -f "$file"
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
	local series others state start failed=()
	stage_lock ci
	TIMES=$OUT/pipeline-times.warm
	is_git_tree "$PRINTK_TREE" || TIMES=$OUT/pipeline-times.cold
	mkdir -p "$OUT"
	: >"$TIMES.new"
	state=$(ci_state)
	if passed "$state" "$PASSED"; then
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
		start=$SECONDS
		state=$(state_or_none "$series")
		if passed "$state" "$PASSED-$series"; then
			say "=== BASE=$series: up to date: nothing its stages read changed since they passed"
			say "up-to-date-$series $((SECONDS - start))" >>"$TIMES.new"
			continue
		fi
		rm -f "$PASSED-$series"
		if run_stages "$series" "${OTHER_BASE_STAGES[@]}"; then
			state=$(state_or_none "$series")
			[ -z "$state" ] || say "$state" >"$PASSED-$series"
		else
			failed+=("$series")
		fi
	done
	mv "$TIMES.new" "$TIMES"
	# Later builds rewrite the build results: the cold run's, for bench.
	[ "$TIMES" != "$OUT/pipeline-times.cold" ] || [ ! -f "$OUT/build/results.json" ] ||
		cp "$OUT/build/results.json" "$OUT/build-results.cold.json"
	[ "${#failed[@]}" = 0 ] || die "ci: the stages of base(s) ${failed[*]} failed (see above)"
	# As the stages left it: a run from there would do the same again.
	state=$(ci_state)
	[ -z "$state" ] || say "$state" >"$PASSED"
	say "=== ci: all stages passed"
	column -t "$TIMES" | sed 's/^/  /'
}

main "$@"
