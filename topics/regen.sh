#!/usr/bin/env bash
# regen.sh - regenerate the topic branches and for-next from topics/
#
# Every topic NN-name/ becomes branch topic/<name>, stacked on the topic it
# depends on (or on the distro base), and for-next merges all topics in
# series order.  Commits are made with plumbing on a private index, so the
# maintainer's checkout is never touched, and refs are only updated once
# every topic applied, in one transaction that checks each ref still has
# the value this run started from: a failure, or a commit made on a branch
# meanwhile, leaves the tree exactly as it was.
#
# A topic patch the maintainer has applied from the list (make review:
# branch applied/<series>-vN) is taken as that commit, with the review's
# trailers, where it has the same parent, tree and message but for the
# trailers.
#
# refs/regen/<branch> remembers what the last run wrote to <branch>; commits
# on a branch beyond that are the maintainer's own, and regeneration refuses
# to drop them (see export.sh).
. "$(dirname "$0")/../ci/lib.sh"
. "$TOP/topics/apply.sh"

ZERO=0000000000000000000000000000000000000000

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

# The value of ref $1 now, or the zero id if it does not exist.
ref_value() { tgit rev-parse -q --verify "$1" || say "$ZERO"; }

# Commits on branch $1 that the last regeneration did not write.
local_commits() {
	local branch=$1 base=$2
	[ "${OLD[refs/heads/$branch]}" != "$ZERO" ] || return 0
	if [ "${OLD[refs/regen/$branch]}" != "$ZERO" ]; then
		tgit rev-list "refs/regen/$branch..refs/heads/$branch"
	else
		tgit rev-list "$base..refs/heads/$branch"
	fi
}

# Refuse to regenerate over commits that are only on a branch; $1 is the
# base, $2... the branches.
require_no_local_commits() {
	local base=$1 branch name commits bad=
	shift
	for branch in "$@"; do
		commits=$(local_commits "$branch" "$base")
		[ -n "$commits" ] || continue
		if [[ $branch == topic/* ]]; then
			name=${branch#topic/}
			name=${name%"$SUFFIX"}
			warn "$branch has commits that are not in topics/$(basename "${TOPIC_DIR[$name]}"):"
		else
			warn "$branch has commits that regeneration would drop:"
		fi
		tgit log --oneline --no-decorate --no-walk=unsorted --stdin <<<"$commits" >&2
		bad=1
	done
	[ -z "$bad" ] ||
		die "refusing to regenerate: save those commits with 'make export-topics' (topics/export.sh) or delete the branch"
}

# The commits of the series applied from the list (mail/review.sh keeps
# them as applied/<series>-vN) on base $1, by parent and tree, the latest
# revision last so that its trailers win: regeneration takes them in
# place of its own (apply.sh, from_list).
load_list_commits() {
	local base=$1 ref refs line lines
	read_lines refs tgit for-each-ref --sort=version:refname --format='%(refname)' refs/heads/applied/
	for ref in "${refs[@]}"; do
		# A series applied on another base has nothing for this one.
		tgit merge-base --is-ancestor "$base" "$ref" || continue
		read_lines lines tgit log --no-merges --format='%H %P %T' "$base..$ref"
		for line in "${lines[@]}"; do
			LIST_COMMITS[${line#* }]=${line%% *}
		done
	done
}

# Merge the topic tips into base $1 as for-next; $2... are name, tip pairs.
build_for_next() {
	local tip=$1 name commit tree date out
	shift
	while [ $# -gt 0 ]; do
		name=$1 commit=$2
		shift 2
		tgit merge-base --is-ancestor "$commit" "$tip" && continue
		out=$(tgit merge-tree --write-tree --name-only "$tip" "$commit") ||
			die "topic $name conflicts with the topics merged before it in for-next:
$(sed -n '2,/^$/p' <<<"$out")"
		tree=$(head -n 1 <<<"$out")
		date=$(tgit log -1 --format=%ad --date=raw "$commit")
		tip=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
			tgit commit-tree "$tree" -p "$tip" -p "$commit" \
			-m "Merge branch 'topic/$name' into for-next$SUFFIX")
	done
	say "$tip"
}

main() {
	local base base_commit dir tip parent branches=() merges=() ref
	local conflicts=()
	local -A tips
	declare -gA OLD=()

	need_tree
	stage_lock topics
	APPLY_CONFLICT=report
	apply_init
	load_topics
	base=$(base_ref)
	# The branches of a base other than the default: NAME-<series>.
	SUFFIX=$(base_suffix)
	base_commit=$(tgit rev-parse "$base^{commit}")
	require_clean_tree
	load_list_commits "$base_commit"
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		branches+=("topic/$topic_name$SUFFIX")
	done
	branches+=("for-next$SUFFIX")
	for ref in "${branches[@]}"; do
		OLD[refs/heads/$ref]=$(ref_value "refs/heads/$ref")
		OLD[refs/regen/$ref]=$(ref_value "refs/regen/$ref")
	done
	require_no_local_commits "$base_commit" "${branches[@]}"

	say "topics: regenerating onto $base"
	for dir in "${TOPIC_DIRS[@]}"; do
		load_topic "$dir"
		parent=$base_commit
		[ -z "$topic_depends" ] || parent=${tips[$topic_depends]}
		if [ "$parent" = conflict ]; then
			say "topics: $topic_name: not applied: it depends on $topic_depends, which does not apply" >&2
			tip=conflict
		else
			tip=$(build_topic "$dir" "$parent")
		fi
		tips[$topic_name]=$tip
		if [ "$tip" = conflict ]; then
			conflicts+=("$topic_name")
		else
			merges+=("$topic_name$SUFFIX" "$tip")
		fi
	done
	[ "${#conflicts[@]}" = 0 ] ||
		die "${#conflicts[@]} topic(s) do not apply on $base: ${conflicts[*]}; nothing was changed in $PRINTK_TREE"
	tips[for-next]=$(build_for_next "$base_commit" "${merges[@]}")

	for ref in "${branches[@]}"; do
		ref=${ref%"$SUFFIX"}
		tip=${tips[${ref#topic/}]}
		say "update refs/heads/$ref$SUFFIX $tip ${OLD[refs/heads/$ref$SUFFIX]}"
		say "update refs/regen/$ref$SUFFIX $tip ${OLD[refs/regen/$ref$SUFFIX]}"
	done | update_refs ||
		die "a branch moved while regenerating (a commit made meanwhile?): nothing was updated; run 'make topics' again"
	say "topics: ${#TOPIC_DIRS[@]} topics on $base, for-next$SUFFIX at $(tgit rev-parse --short "${tips[for-next]}")"
}

main "$@"
