#!/usr/bin/env bash
# regen.sh - regenerate the topic branches and for-next from topics/
#
# Every topic NN-name/ becomes branch topic/<name>, stacked on the topic it
# depends on (or on the distro base), and for-next merges all topics in
# series order.  Commits are made with plumbing on a private index, so the
# maintainer's checkout is never touched, and refs are only updated once
# every topic applied: a failure leaves the tree exactly as it was.
#
# refs/regen/<branch> remembers what the last run wrote to <branch>; commits
# on a branch beyond that are the maintainer's own, and regeneration refuses
# to drop them (see export.sh).
. "$(dirname "$0")/../ci/lib.sh"
. "$TOP/topics/apply.sh"

require_clean_tree() {
	local gitdir f hidden
	gitdir=$(tgit rev-parse --absolute-git-dir)
	for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
		[ ! -e "$gitdir/$f" ] ||
			die "$PRINTK_TREE has an operation in progress ($f): finish or abort it first"
	done
	[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
		die "$PRINTK_TREE has uncommitted changes: commit or stash them first"
	# Debian's top-level .gitignore ('/*') hides every new file.
	hidden=$(tgit status --porcelain --ignored --untracked-files=all | sed -n 's/^!! //p')
	[ -z "$hidden" ] ||
		die "$PRINTK_TREE has new files that Debian's .gitignore hides from 'git status':
$hidden
add them with 'git add -f' and commit them, or move them away"
}

# Commits on $1 that the last regeneration did not write.
local_commits() {
	local branch=$1 base=$2
	tgit rev-parse -q --verify "refs/heads/$branch" >/dev/null || return 0
	if tgit rev-parse -q --verify "refs/regen/$branch" >/dev/null; then
		tgit rev-list "refs/regen/$branch..refs/heads/$branch"
	else
		tgit rev-list "$base..refs/heads/$branch"
	fi
}

require_no_local_commits() {
	local base=$1 dir branch commits bad=
	for dir in $(topic_dirs); do
		load_topic "$dir"
		branch=topic/$topic_name
		commits=$(local_commits "$branch" "$base")
		[ -z "$commits" ] && continue
		warn "$branch has commits that are not in topics/$(basename "$dir"):"
		tgit log --oneline --no-decorate $commits -- >&2
		bad=1
	done
	commits=$(local_commits for-next "$base")
	if [ -n "$commits" ]; then
		warn "for-next has commits that regeneration would drop:"
		tgit log --oneline --no-decorate $commits -- >&2
		bad=1
	fi
	[ -z "$bad" ] ||
		die "refusing to regenerate: save those commits with 'make export-topics' (topics/export.sh) or delete the branch"
}

# Merge the topic tips $3... into base $1 as for-next; $2 is the topic names.
build_for_next() {
	local tip=$1 name commit tree date out
	shift
	while [ $# -gt 0 ]; do
		name=$1 commit=$2
		shift 2
		tgit merge-base --is-ancestor "$commit" "$tip" && continue
		if ! out=$(tgit merge-tree --write-tree --name-only "$tip" "$commit"); then
			die "topic $name conflicts with the topics merged before it in for-next:
$(sed -n '2,/^$/p' <<<"$out")"
		fi
		tree=$(head -n 1 <<<"$out")
		date=$(tgit log -1 --format=%ad --date=raw "$commit")
		tip=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
			tgit commit-tree "$tree" -p "$tip" -p "$commit" \
			-m "Merge branch 'topic/$name' into for-next")
	done
	say "$tip"
}

main() {
	local base base_commit dir tip parent name names=() merges=() updates= head old new
	declare -A tips

	need_tree
	base=$(base_ref)
	base_commit=$(tgit rev-parse "$base^{commit}")
	require_clean_tree
	require_no_local_commits "$base_commit"

	say "topics: regenerating onto $base"
	for dir in $(topic_dirs); do
		load_topic "$dir"
		if [ -n "$topic_depends" ]; then
			parent=${tips[$topic_depends]:-}
			[ -n "$parent" ] ||
				die "topic $topic_name depends on '$topic_depends', which is not an earlier topic"
		else
			parent=$base_commit
		fi
		tip=$(build_topic "$dir" "$parent") || exit 1
		tips[$topic_name]=$tip
		names+=("$topic_name")
		merges+=("$topic_name" "$tip")
	done
	tip=$(build_for_next "$base_commit" "${merges[@]}")

	for name in "${names[@]}"; do
		updates+="update refs/heads/topic/$name ${tips[$name]}
update refs/regen/topic/$name ${tips[$name]}
"
	done
	updates+="update refs/heads/for-next $tip
update refs/regen/for-next $tip
"
	# Keep the maintainer's checkout in step if it is on a rewritten branch.
	head=$(tgit symbolic-ref -q HEAD || true)
	old=$(tgit rev-parse HEAD)
	printf '%s' "$updates" | tgit update-ref --stdin
	new=$(tgit rev-parse HEAD)
	if [ -n "$head" ] && [ "$old" != "$new" ]; then
		tgit read-tree -m -u "$old" "$new"
	fi
	say "topics: ${#names[@]} topics on $base, for-next at $(tgit rev-parse --short "$tip")"
}

main "$@"
