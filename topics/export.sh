#!/usr/bin/env bash
# export.sh - save commits made on topic branches back into topics/
#
# For every topic branch that differs from what regen.sh last wrote, the
# whole topic is re-exported with git format-patch, replacing the topic's
# patch files.  Afterwards regen.sh rebuilds the same trees from topics/.
# Nothing is written unless every topic to export has no uncommitted
# edits in topics/ (it must be in git, so that this can be told).
# BASE=6.12 exports the branches of that base (topic/<name>-6.12) into
# each topic's variant for it, NN-name/6.12/.
. "$(dirname "$0")/../ci/lib.sh"

# Where the commits of topic branch $1 start: its parent branch if the
# branch is on top of it, else what the parent was when regenerated.
range_start() {
	local branch=$1 parent=$2 ref
	for ref in "refs/heads/$parent" "refs/regen/$parent"; do
		if tgit rev-parse -q --verify "$ref" >/dev/null &&
			tgit merge-base --is-ancestor "$ref" "refs/heads/$branch"; then
			say "$ref"
			return
		fi
	done
	die "cannot tell where $branch starts: it is not on top of $parent"
}

# The first commit not to export for the loaded topic.
topic_start() {
	local branch=topic/$topic_name$SUFFIX
	if [ -n "$topic_depends" ]; then
		range_start "$branch" "topic/$topic_depends$SUFFIX"
	else
		tgit merge-base --is-ancestor "$BASE_COMMIT" "refs/heads/$branch" ||
			die "$branch is not based on $(base_ref)"
		say "$BASE_COMMIT"
	fi
}

# Is the loaded topic's branch other than regeneration left it?
changed() {
	local branch=topic/$topic_name$SUFFIX
	tgit rev-parse -q --verify "refs/heads/$branch" >/dev/null || return 1
	[ "$(tgit rev-parse "refs/heads/$branch")" != \
	  "$(tgit rev-parse -q --verify "refs/regen/$branch" || true)" ]
}

require_committed() {
	local dir=$1 status
	status=$(git -C "$dir" status --porcelain -- . 2>&1) ||
		die "$dir is not in a git repository: cannot tell whether exporting would overwrite edits ($status)"
	[ -z "$status" ] ||
		die "$dir has uncommitted changes: commit them before exporting over them:
$status"
}

# Replace the patches of topic directory $1 (its variant $1/<series> on
# a base other than the default) with commits $2..topic/<name>.  A branch
# without commits of its own (its patches are already in the base, so
# regeneration skipped them all) keeps the patches it has.
export_topic() {
	local dir=$1 start=$2 branch=topic/$topic_name$SUFFIX new patch
	[ -z "$SUFFIX" ] || dir=$dir/$SERIES
	if [ "$(tgit rev-list --count "$start..refs/heads/$branch")" = 0 ] &&
		compgen -G "$dir/*.patch" >/dev/null; then
		tgit update-ref "refs/regen/$branch" "refs/heads/$branch"
		say "export: $branch has no commits of its own: $(basename "$dir") keeps its patches (already in the base)"
		return
	fi
	scratch_dir new export
	tgit format-patch -q --zero-commit --no-signature -o "$new" "$start..refs/heads/$branch"
	mkdir -p "$dir"
	rm -f "$dir"/*.patch
	for patch in "$new"/*.patch; do
		[ ! -f "$patch" ] || mv "$patch" "$dir/"
	done
	tgit update-ref "refs/regen/$branch" "refs/heads/$branch"
	say "export: $branch -> ${dir#"$TOPICS_DIR"/} ($(tgit rev-list --count "$start..refs/heads/$branch") patches)"
}

main() {
	local dir todo=() starts=() start i
	need_tree
	stage_lock export-topics
	load_topics
	BASE_COMMIT=$(tgit rev-parse "$(base_ref)^{commit}")
	SERIES=$(base_series) SUFFIX=$(base_suffix)
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		changed || continue
		[ -z "${topic_superseded[$SERIES]:-}" ] ||
			die "topic/$topic_name$SUFFIX has commits, but $dir/topic.conf says $SERIES has the topic already (topic_superseded[$SERIES]): remove that entry to carry a variant"
		require_committed "$dir"
		start=$(topic_start)
		todo+=("$dir")
		starts+=("$start")
	done
	for i in "${!todo[@]}"; do
		load_topic "${todo[i]}"
		export_topic "${todo[i]}" "${starts[i]}"
	done
	say "export: ${#todo[@]} topic(s) exported; run 'make topics' to regenerate"
}

main "$@"
