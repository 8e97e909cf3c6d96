#!/usr/bin/env bash
# export.sh - save commits made on topic branches back into topics/
#
# For every topic branch that differs from what regen.sh last wrote, the
# whole topic is re-exported with git format-patch, replacing the topic's
# patch files.  Afterwards regen.sh rebuilds the same trees from topics/.
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

export_topic() {
	local dir=$1 base=$2 branch=topic/$topic_name start
	if [ -n "$topic_depends" ]; then
		start=$(range_start "$branch" "topic/$topic_depends")
	else
		tgit merge-base --is-ancestor "$base" "refs/heads/$branch" ||
			die "$branch is not based on $base"
		start=$base
	fi
	[ -z "$(git -C "$dir" status --porcelain -- .)" ] ||
		die "$dir has uncommitted changes: commit them before exporting over them"
	rm -f "$dir"/*.patch
	tgit format-patch -q --zero-commit --no-signature -o "$dir" "$start..refs/heads/$branch"
	tgit update-ref "refs/regen/$branch" "refs/heads/$branch"
	say "export: $branch -> $(basename "$dir") ($(tgit rev-list --count "$start..refs/heads/$branch") patches)"
}

main() {
	local base dir branch exported=0
	need_tree
	base=$(base_ref)
	for dir in $(topic_dirs); do
		load_topic "$dir"
		branch=topic/$topic_name
		tgit rev-parse -q --verify "refs/heads/$branch" >/dev/null || continue
		[ "$(tgit rev-parse "refs/heads/$branch")" != \
		  "$(tgit rev-parse -q --verify "refs/regen/$branch" || true)" ] || continue
		export_topic "$dir" "$base"
		exported=$((exported + 1))
	done
	say "export: $exported topic(s) exported; run 'make topics' to regenerate"
}

main "$@"
