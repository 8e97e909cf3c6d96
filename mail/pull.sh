#!/usr/bin/env bash
# pull.sh - merge the applied series, tag it, send the pull request (make pull)
#
#   pull.sh [vN]      vN: the revision applied by review.sh, by default
#                     the last one sent
#
#   1. branch for-linus: the base, then a merge of applied/printk-safe-vN,
#      which for-next must hold (make review takes it into the topics);
#      BASE=6.12: for-linus-6.12, applied/printk-safe-6.12-vN and
#      for-next-6.12;
#   2. tag printk-for-<base version> on that merge, annotated with the
#      shortlog (signed with git tag -s when user.signingkey is set);
#   3. git request-pull of the tag, mailed to the list as [GIT PULL];
#   4. b4 ty -a: the thank-you replies for what b4 shazam applied and
#      the branch holds, mailed to the list.
#
# A tag once made is never moved: when it exists on another commit, the
# pull is refused, naming both.  Running again sends nothing twice: the
# pull request has a Message-Id made from the tag, and b4 ty thanks each
# series once.
. "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"
. "$TOP/mail/common.sh"

# The merge of branch $2 into base $1, with the applied tip's dates so
# that it is the same commit every time.
merge_commit() {
	local base=$1 applied=$2 out tree date
	out=$(tgit merge-tree --write-tree --name-only "$base" "$applied") ||
		die "$applied does not merge into $base: $out"
	tree=$(head -n 1 <<<"$out")
	date=$(tgit log -1 --format=%cd --date=raw "$applied")
	GIT_AUTHOR_NAME=$AS_NAME GIT_AUTHOR_EMAIL=$AS_EMAIL GIT_COMMITTER_NAME=$AS_NAME \
		GIT_COMMITTER_EMAIL=$AS_EMAIL GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		tgit commit-tree "$tree" -p "$base" -p "$applied" \
		-m "Merge branch '${applied#refs/heads/}' into $BRANCH"
}

# Tag $1 on commit $2 unless it is there already.
make_tag() {
	local tag=$1 commit=$2 at sign=-a
	if at=$(tgit rev-parse -q --verify "refs/tags/$tag^{commit}"); then
		[ "$at" = "$commit" ] ||
			die "tag $tag is on $(tgit rev-parse --short "$at"), $BRANCH would be $(tgit rev-parse --short "$commit"): a tag is never moved; delete it by hand if it was never sent"
		say "pull: $tag is on $BRANCH already"
		return
	fi
	! tgit config user.signingkey >/dev/null || sign=-s
	{
		say "printk for ${tag#printk-for-}"
		say
		say "The printk_safe series, v${V#v}, as reviewed on the list."
		say
		tgit shortlog --no-merges "$BASE_COMMIT..$commit"
	} | GIT_COMMITTER_DATE=$(tgit log -1 --format=%cd --date=raw "$commit") \
		tgit tag "$sign" -F - "$tag" "$commit"
	say "pull: tagged $tag ($( [ "$sign" = -s ] && say signed || say unsigned))"
}

# The pull request for tag $1 as a mail in $WORK/pull.eml.
write_pull_request() {
	local tag=$1 id
	id="$(tgit rev-parse "refs/tags/$tag" | cut -c1-16).$tag@printk-list.test"
	{
		say "From: $AS_NAME <$AS_EMAIL>"
		say "To: $LIST_ADDR"
		say "Subject: [GIT PULL] printk for ${tag#printk-for-}"
		say "Date: $(date -R)"
		say "Message-Id: <$id>"
		say
		say "Hi,"
		say
		say "please pull the printk_safe series, reviewed on the list."
		say
		tgit request-pull "$BASE_COMMIT" "file://$PRINTK_TREE" "$tag"
	} >"$WORK/pull.eml" 2>"$WORK/request-pull.err" ||
		die "git request-pull of $tag failed: $(cat "$WORK/request-pull.err")"
	say "$id"
}

# The distro/* tag of the base commit $1 is on.
distro_base() {
	local at base
	at=$(tgit merge-base "$1" "refs/heads/$DISTRO") || die "${1#refs/heads/} is not on the $DISTRO branch"
	base=$(tgit tag --points-at "$at" -l 'distro/*' | head -n 1)
	[ -n "$base" ] || die "${1#refs/heads/} is on $(tgit rev-parse --short "$at") of the $DISTRO branch, which has no distro/* tag"
	say "$base"
}

main() {
	local applied base next tag tip id
	need_tree
	need_b4
	mail_base
	BRANCH=$(base_branch for-linus)
	DISTRO=$(base_branch distro)
	NEXT=$(base_branch for-next)
	V=${1:-$(last_sent)}
	applied=refs/heads/applied/$SERIES-$V
	tgit rev-parse -q --verify "$applied" >/dev/null ||
		die "no branch ${applied#refs/heads/}: make review applies $V from the list first"
	# The base the series was applied on, whichever base is the newest.
	base=$(distro_base "$applied")
	BASE_COMMIT=$(tgit rev-parse "$base^{commit}")
	if ! tgit merge-base --is-ancestor "$applied" "refs/heads/$NEXT"; then
		next=$(distro_base "refs/heads/$NEXT")
		[ "$next" = "$base" ] ||
			die "$NEXT is on $next, ${applied#refs/heads/} on $base: a newer base is a new revision of the series, sent, reviewed and applied on it"
		die "$NEXT does not hold ${applied#refs/heads/}: a pull request sends what linux-next has tested (make topics takes the applied series into the topic branches)"
	fi
	stage_lock pull
	maintainer_identity tgit
	scratch_dir WORK mail-pull
	tag=printk-for-${base#distro/}
	tip=$(merge_commit "$BASE_COMMIT" "$applied")
	make_tag "$tag" "$tip"
	tgit update-ref "refs/heads/$BRANCH" "$tip"
	use_list
	id=$(write_pull_request "$tag")
	if bash "$LIST" has "$id"; then
		say "pull: the pull request for $tag is on the list already: <$id>"
	else
		bash "$LIST" deliver "$LIST_ADDR" <"$WORK/pull.eml"
		say "pull: pull request for $tag sent to the list: <$id>"
	fi
	B4_DATA=$B4_THANKS b4_run "$PRINTK_TREE" ty -a -S -b "$BRANCH" --since 10.years
	say "pull: b4 ty: $(grep -c '^  Sending: ' "$WORK/b4.log" || true) thank-you(s) sent; $BRANCH at $(tgit rev-parse --short "$tip")"
	sed -n '/^The following changes/,/^---/p' "$WORK/pull.eml" | sed 's/^/  /'
}

main "$@"
