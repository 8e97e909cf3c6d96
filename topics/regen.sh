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

INDEX=
cleanup() { [ -z "$INDEX" ] || rm -f "$INDEX" "$INDEX.msg" "$INDEX.patch" "$INDEX.err"; }
trap cleanup EXIT

require_clean_tree() {
	local gitdir f
	gitdir=$(tgit rev-parse --absolute-git-dir)
	for f in rebase-apply rebase-merge MERGE_HEAD CHERRY_PICK_HEAD; do
		[ ! -e "$gitdir/$f" ] ||
			die "$PRINTK_TREE has an operation in progress ($f): finish or abort it first"
	done
	[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
		die "$PRINTK_TREE has uncommitted changes: commit or stash them first"
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

# Hunk number and header of the hunk of patch $1 for file $2 starting at old line $3.
hunk_of() {
	awk -v file="$2" -v line="$3" '
		/^diff --git / { in_file = ($3 == "a/" file); n = 0; next }
		in_file && /^@@ / {
			n++
			split($2, old, ",")
			if (-old[1] == line) { print "hunk #" n " (" $0 ")"; exit }
		}' "$1"
}

# Explain why patch $1 does not apply: one line per failing hunk.
describe_conflict() {
	local patch=$1 err=$2 file line
	grep '^error: patch failed: ' "$err" | sed 's/^error: patch failed: //' |
	while IFS= read -r loc; do
		file=${loc%:*} line=${loc##*:}
		say "  $file: $(hunk_of "$patch" "$file" "$line")"
	done
	grep -v '^error: patch failed: ' "$err" | sed 's/^/  /'
}

# Apply patch $1 on commit $2 (already in $INDEX); print the new commit.
# Returns 2 when the patch is already in $2, 1 when it does not apply.
commit_patch() {
	local patch=$1 parent=$2 info author email date subject tree
	if ! GIT_INDEX_FILE=$INDEX tgit apply --cached --check "$patch" 2>"$INDEX.err"; then
		GIT_INDEX_FILE=$INDEX tgit apply --cached --check -R "$patch" 2>/dev/null && return 2
		return 1
	fi
	info=$(tgit mailinfo "$INDEX.msg" "$INDEX.patch" <"$patch")
	author=$(sed -n 's/^Author: //p' <<<"$info")
	email=$(sed -n 's/^Email: //p' <<<"$info")
	date=$(sed -n 's/^Date: //p' <<<"$info")
	subject=$(sed -n 's/^Subject: //p' <<<"$info")
	GIT_INDEX_FILE=$INDEX tgit apply --cached "$INDEX.patch"
	tree=$(GIT_INDEX_FILE=$INDEX tgit write-tree)
	# Committer date = author date: the same patches give the same commits.
	{ say "$subject"; say; cat "$INDEX.msg"; } |
		GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_DATE=$date tgit commit-tree "$tree" -p "$parent"
}

# Build topic in $1 on commit $2; print its new tip.
build_topic() {
	local dir=$1 tip=$2 patch rc applied=0 inbase=0 commit
	GIT_INDEX_FILE=$INDEX tgit read-tree "$tip"
	for patch in $(topic_patches "$dir"); do
		rc=0
		commit=$(commit_patch "$patch" "$tip") || rc=$?
		case $rc in
		0) tip=$commit; applied=$((applied + 1)) ;;
		2) inbase=$((inbase + 1))
		   say "topics: $topic_name: $(basename "$patch"): already in base, skipped" >&2 ;;
		*) {
			say "error: topic $topic_name: $(basename "$patch") does not apply:"
			describe_conflict "$patch" "$INDEX.err"
			say "nothing was changed in $PRINTK_TREE"
		   } >&2
		   return 1 ;;
		esac
	done
	say "topics: $topic_name: $applied applied, $inbase already in base -> topic/$topic_name" >&2
	say "$tip"
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

	INDEX=$(mktemp "${TMPDIR:-/tmp}/regen-index.XXXXXX")
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
