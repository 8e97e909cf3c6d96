#!/usr/bin/env bash
# review.sh - the review round trip of a sent revision (make review)
#
#   review.sh [vN]     vN: the revision, by default the last one sent
#
#   1. reviewers reply on the list (mail/reviews, mail/6.12/reviews for
#      BASE=6.12's series, or REVIEWS=FILE): a
#      trailer to a patch, a Tested-by to the cover letter for the whole
#      series, a question with no trailer;
#   2. contributor side: b4 trailers -u takes the trailers from the list
#      onto the prep branch b4/printk-safe (b4/printk-safe-6.12: the next
#      revision);
#   3. maintainer side: b4 shazam applies the revision from the list onto
#      its base as branch applied/printk-safe-vN (applied/printk-safe-
#      6.12-vN), the trailers in place;
#   4. the topic branches of that base take those commits
#      (topics/regen.sh), so that for-next (for-next-6.12) merges the
#      series as applied, trailers included.
#
# Each step checks its result: every trailer on the commit it names.
# Replies have fixed Message-Ids, so a reply already on the list is not
# posted again; an applied branch is kept as it was applied (delete it to
# apply again).  A reply naming no patch of the series stops the round
# before anything is posted.
. "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"
. "$TOP/mail/common.sh"

# The replies of $REVIEWS to the series of $1/NNNN.eml ($2 patches, cover
# <$3>), as $WORK/replies/NN.eml, and in $WORK/expect one
# "patch<TAB>trailer" line per trailer each patch must end up with (patch
# 0: every patch).
write_replies() {
	mkdir -p "$WORK/replies"
	python3 - "$1" "$2" "$3" "$REVIEWS" "$WORK/replies" "$WORK/expect" "$LIST_ADDR" <<-'EOF'
	import email, email.message, email.policy, email.utils, hashlib, os, sys
	# No folding: a Message-Id longer than a line would otherwise be
	# RFC 2047-encoded in In-Reply-To, which breaks the threading.
	policy = email.policy.default.clone(max_line_length=998)
	series, total, cover_id, reviews, out, expect, list_addr = sys.argv[1:]
	total = int(total or -1)
	patches = {int(f[:4]): email.message_from_binary_file(open(os.path.join(series, f), "rb"))
	           for f in os.listdir(series) if f.endswith(".eml")}
	if total < 1 or sorted(patches) != list(range(total + 1)):
	    sys.exit("the thread of <%s> on the list lacks patches: it has %s" % (cover_id, sorted(patches)))
	trailers = open(expect, "w")
	for n, line in enumerate(open(reviews), 1):
	    line = line.rstrip("\n")
	    if not line or line.startswith("#"):
	        continue
	    where = "%s:%d" % (reviews, n)
	    try:
	        k, who, reply = line.split("|")
	        k = int(k)
	    except ValueError:
	        sys.exit("%s: not 'patch|reviewer|reply': %s" % (where, line))
	    if k not in patches:
	        sys.exit("%s: patch %d: the series <%s> has patches 1..%d (0 the cover letter)" % (where, k, cover_id, total))
	    if "@" not in email.utils.parseaddr(who)[1]:
	        sys.exit("%s: no address in reviewer %r" % (where, who))
	    if reply.startswith("?"):
	        text = reply[1:] + "\n"
	    elif reply in ("Reviewed-by", "Acked-by", "Tested-by"):
	        text = "%s: %s\n" % (reply, who)
	        trailers.write("%d\t%s: %s\n" % (k, reply, who))
	    else:
	        sys.exit("%s: %r is neither a trailer (Reviewed-by, Acked-by, Tested-by) nor ?question" % (where, reply))
	    parent = patches[k]
	    pid = parent["Message-Id"].strip()
	    body = parent.get_payload(decode=True).decode("utf-8", "replace").split("\n")
	    quoted = "".join("> %s\n" % l for l in body[:6])
	    reply_msg = email.message.EmailMessage(policy=policy)
	    reply_msg["From"] = who
	    reply_msg["To"] = parent["From"]
	    reply_msg["Cc"] = list_addr
	    reply_msg["Subject"] = "Re: " + " ".join(parent["Subject"].split())
	    reply_msg["Date"] = email.utils.formatdate()
	    digest = hashlib.sha1(("%s %s" % (pid, line)).encode()).hexdigest()[:16]
	    reply_msg["Message-Id"] = "<%s.review@printk-list.test>" % digest
	    reply_msg["In-Reply-To"] = pid
	    reply_msg["References"] = ("<%s> %s" % (cover_id, pid)) if k else pid
	    reply_msg.set_content("On %s, %s wrote:\n%s>\n\n%s" % (parent["Date"],
	        email.utils.parseaddr(parent["From"])[0], quoted, text))
	    with open(os.path.join(out, "%02d.eml" % n), "wb") as f:
	        f.write(bytes(reply_msg))
	EOF
}

# The Message-Id (without <>) of reply file $1.
reply_msgid() { sed -n 's/^Message-Id: <\(.*\)>$/\1/p' "$1"; }

# Post the replies not on the list yet; say how many were posted.
post_replies() {
	local f id posted=0 kept=0
	for f in "$WORK/replies"/*.eml; do
		[ -e "$f" ] || continue
		id=$(reply_msgid "$f")
		if bash "$LIST" has "$id"; then
			kept=$((kept + 1))
			continue
		fi
		bash "$LIST" deliver "$LIST_ADDR" <"$f"
		posted=$((posted + 1))
	done
	say "review: $V: $posted replies posted to <$COVER>, $kept already on the list"
	[ "$posted" = 0 ] || bash "$LIST" restart
}

# Every reply is in the thread of the cover letter as the list serves it
# now (not as cached before they were posted): b4 sees only what is
# threaded.
check_threaded() {
	local f id
	b4_run "$WT" mbox -C -o "$WORK" -n threaded.mbox "$COVER"
	for f in "$WORK/replies"/*.eml; do
		[ -e "$f" ] || continue
		id=$(reply_msgid "$f")
		grep -qiF "Message-Id: <$id>" "$WORK/threaded.mbox" ||
			die "$V: reply <$id> ($(basename "$f")) is on the list but not in the thread of <$COVER>"
	done
}

# Every trailer of $WORK/expect is on its commit of branch $1, whose last
# $2 commits are the patches 1..$2.
check_trailers() {
	local branch=$1 m=$2 k trailer p
	while IFS=$'\t' read -r k trailer; do
		for ((p = 1; p <= m; p++)); do
			[ "$k" = 0 ] || [ "$k" = "$p" ] || continue
			tgit log -1 --format=%B "$branch~$((m - p))" | grep -qxF "$trailer" ||
				die "$V: $branch: patch $p ($(tgit log -1 --format=%s "$branch~$((m - p))")) lacks '$trailer' from the list"
		done
	done <"$WORK/expect"
}

# Contributor side: the trailers onto the prep branch.
update_prep() {
	local m=$1
	require_clean_worktree "$WT"
	wgit checkout -q "$PREP_BRANCH"
	b4_run "$WT" trailers -u -F "$COVER"
	check_trailers "$PREP_BRANCH" "$m"
	say "review: $V: b4 trailers -u: $PREP_BRANCH has the $(wc -l <"$WORK/expect") trailers from the list"
}

# Maintainer side: b4 shazam of the thread onto its base-commit.
apply_series() {
	local m=$1 branch=applied/$SERIES-$V base mt
	if tgit rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		check_trailers "$branch" "$m"
		say "review: $V: $branch applied before, kept: $m patches with their trailers"
		return
	fi
	base=$(sed -n 's/^base-commit: \([0-9a-f]*\)$/\1/p' "$WORK/thread.mbox" | head -n 1)
	[ -n "$base" ] && tgit rev-parse -q --verify "$base^{commit}" >/dev/null ||
		die "$V: the cover letter names no base-commit this tree has (${base:-none})"
	mt=$(stage_worktree maintainer)
	require_clean_worktree "$mt"
	git -C "$mt" checkout -q --detach "$base"
	B4_DATA=$B4_THANKS b4_run "$mt" shazam -l -t "$COVER"
	[ "$(git -C "$mt" rev-list --count "$base..HEAD")" = "$m" ] ||
		die "$V: b4 shazam applied $(git -C "$mt" rev-list --count "$base..HEAD") patches, not $m"
	[ "$(git -C "$mt" rev-parse "HEAD^{tree}")" = "$(tgit rev-parse "refs/heads/$MAIL_BRANCH/$V^{tree}")" ] ||
		die "$V: b4 shazam of the thread gives another tree than $MAIL_BRANCH/$V"
	check_trailers "$(git -C "$mt" rev-parse HEAD)" "$m"
	tgit branch "$branch" "$(git -C "$mt" rev-parse HEAD)"
	git -C "$mt" checkout -q --detach "$base"
	say "review: $V: b4 shazam -> $branch: $m patches on $(tgit rev-parse --short "$base"), with the trailers from the list"
}

# The topic branches and for-next take the applied series ($1 patches).
take_into_topics() {
	local m=$1 applied=refs/heads/applied/$SERIES-$V next missing=$1 how="make topics took them"
	next=$(base_branch for-next)
	! tgit rev-parse -q --verify "refs/heads/$next" >/dev/null ||
		missing=$(tgit rev-list --count "refs/heads/$next..$applied")
	# regen.sh takes applied/ commits: where make topics did, a
	# regeneration gives the same refs again (and takes seconds).
	if [ "$missing" != 0 ]; then
		bash "$TOP/topics/regen.sh" >"$WORK/regen.log" 2>&1 || { cat "$WORK/regen.log" >&2; die "review: $V: make topics failed"; }
		missing=$(tgit rev-list --count "refs/heads/$next..$applied")
		how="topics regenerated"
	fi
	say "review: $V: $next holds $((m - missing)) of the $m patches of ${applied#refs/heads/} ($how)"
	[ "$missing" = 0 ] ||
		warn "review: $V: topics/ differs from what was sent as $V, or $next is on another base (see $WORK/regen.log)"
}

main() {
	local m
	need_tree
	need_b4
	mail_base
	V=${1:-$(last_sent)}
	COVER=$(cover_msgid "$V")
	REVIEWS=${REVIEWS:-$MAIL_DIR/reviews}
	stage_lock review
	scratch_dir WORK mail-review
	WT=$(stage_worktree "mail$SUFFIX")
	use_list
	b4_run "$WT" mbox -o "$WORK" -n thread.mbox "$COVER"
	m=$(split_thread "$WORK/thread.mbox" "$WORK/series")
	write_replies "$WORK/series" "$m" "$COVER" 2>"$WORK/err" || die "review: $(cat "$WORK/err")"
	post_replies
	check_threaded
	update_prep "$m"
	apply_series "$m"
	take_into_topics "$m"
}

main "$@"
