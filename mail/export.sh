#!/usr/bin/env bash
# export.sh - write the v1..v5 mail series, ready for b4 send (make mail)
#
# Each revision vN (mail/vN/revision.conf) is a patch series: the last one
# is the series topics as they are in topics/ now, the earlier ones are
# kept in mail/vN/*.patch.  For each revision, in order:
#
#   1. its patches become commits on the distro base, branch mail/vN;
#   2. b4 prep enrolls them on branch b4/printk-safe in the worktree
#      $PRINTK_CACHE/worktrees/mail, and the cover commit b4 made gets the
#      series' cover letter and tracking (change-id, revision, history);
#   3. b4 send -o writes the messages to $OUT/mail/vN/ (nothing is sent),
#      and they are collected in $OUT/mail/vN.mbox;
#   4. the mbox is checked: git am gives the tree of mail/vN, b4 am finds
#      the cover and every patch;
#   5. a sent/printk-safe-vN tag records the revision, as a real b4 send
#      would, so that the next revision has its range-diff and link.
#
# A revision whose inputs, and those of the revisions before it, are as at
# its last export, with its messages and refs still there, is skipped
# (FORCE=1 exports all).
#
# Then every revision is built (ci/build.sh), as every topic is, unless
# MAIL_NO_BUILD is set (the mail tests, which check the messages only).
#
# The last stays enrolled on b4/printk-safe: 'b4 send' in the worktree would
# mail it for real.  See mail/README.md for what differs per revision.
. "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"
. "$TOP/topics/apply.sh"

MAIL_DIR=$TOP/mail
MAIL_OUT=$OUT/mail
REVISIONS=(v1 v2 v3 v4 v5)
SERIES=printk-safe
PREP_BRANCH=b4/$SERIES
LINKMASK=https://lore.kernel.org/r/

# b4 0.12 finds the cover commit with 'git log --since=1.year', which stops
# at the first older commit: every commit of the prep branch needs a recent
# committer date (author dates are the 2016 ones).  Midnight UTC today keeps
# the commits, and so the range-diffs, the same for every run of the day.
COMMIT_DATE=${MAIL_COMMIT_DATE:-$(date -u +%Y-%m-%dT00:00:00Z)}

# b4 in the worktree, offline and never asking.  sendemail.smtpserver makes
# b4 use "SMTP" (a command that fails) rather than its web endpoint, which
# insists on patatt signatures; with -o, b4 send only writes files anyway.
b4_run() {
	local log=$WORK/b4.log
	if ! (cd "$WT" &&
		GIT_CONFIG_COUNT=2 \
		GIT_CONFIG_KEY_0=sendemail.smtpserver GIT_CONFIG_VALUE_0=/bin/false \
		GIT_CONFIG_KEY_1=b4.prep-cover-strategy GIT_CONFIG_VALUE_1=commit \
		GIT_COMMITTER_DATE=$COMMIT_DATE \
		b4 --offline-mode --no-interactive "$@") >"$log" 2>&1; then
		cat "$log" >&2
		die "b4 $* failed"
	fi
}

wgit() { git -C "$WT" "$@"; }

# Read mail/$1/revision.conf into rev_date, rev_name, rev_topics.
load_revision() {
	rev_date= rev_name= rev_topics=
	# shellcheck source=/dev/null
	. "$MAIL_DIR/$1/revision.conf"
	[ -n "$rev_date" ] && [ -n "$rev_name" ] ||
		die "mail/$1/revision.conf: rev_date and rev_name must be set"
}

# The patch files of the loaded revision $1, in order.
revision_patches() {
	local topic topics
	if [ -z "$rev_topics" ]; then
		topic_patches "$MAIL_DIR/$1"
		return
	fi
	read -r -a topics <<<"$rev_topics"
	for topic in "${topics[@]}"; do
		[ -f "$TOPICS_DIR/$topic/topic.conf" ] || die "mail/$1: no topic $topic in $TOPICS_DIR"
		topic_patches "$TOPICS_DIR/$topic"
	done
}

# Commit the patches $2... on commit $1 (topics/apply.sh), authored at
# rev_date + k seconds for the k-th one, as git send-email dates the k-th
# message, so that git am of the mails would date them too; print the tip.
commit_patches() {
	local tip=$1 epoch patch k=0
	shift
	epoch=$(date -d "$rev_date" +%s)
	GIT_INDEX_FILE=$INDEX tgit read-tree "$tip"
	for patch in "$@"; do
		k=$((k + 1))
		[ "$(patch_state "$patch")" = applies ] ||
			die "$(basename "$(dirname "$patch")")/$(basename "$patch") does not apply: $(cat "$INDEX.err")"
		tip=$(commit_patch "$patch" "$tip" "$((epoch + k)) ${rev_date##* }" "$COMMIT_DATE")
	done
	say "$tip"
}

# MAINTAINERS as topic maintainers leaves it: the last revision's tree
# with that topic's patches (MAINTAINERS.fragment) applied, or skipped
# where the base has them.  get_maintainer.pl reads it with --mpath, so the
# series' tree itself needs no MAINTAINERS change.
write_maintainers() {
	local last_tip=$1 dir=${TOPIC_DIR[maintainers]:-} tree
	[ -n "$dir" ] || die "no maintainers topic in $TOPICS_DIR"
	load_topic "$dir"
	tree=$(APPLY_WHO=mail build_topic "$dir" "$last_tip")"^{tree}"
	tgit cat-file blob "$tree:MAINTAINERS" >"$WORK/MAINTAINERS"
	# The same file as on topic/maintainers, unless the branches are stale.
	if tgit rev-parse -q --verify refs/heads/topic/maintainers >/dev/null &&
		[ "$(tgit rev-parse "$tree:MAINTAINERS")" != "$(tgit rev-parse topic/maintainers:MAINTAINERS)" ]; then
		warn "topic/maintainers has another MAINTAINERS than topics/ (run 'make topics')"
	fi
}

# To (maintainers, reviewers) and Cc (lists) for patches $@, with the
# options b4 prep --auto-to-cc uses.
get_maintainers() {
	local opts=(--mpath "$WORK/MAINTAINERS" --nogit --nogit-fallback
		--nogit-chief-penguins --norolestats --nofixes)
	(cd "$WT" && perl scripts/get_maintainer.pl "${opts[@]}" --nol "$@") >"$WORK/to"
	(cd "$WT" && perl scripts/get_maintainer.pl "${opts[@]}" --nom "$@") >"$WORK/lists"
	[ -s "$WORK/to" ] || die "get_maintainer.pl found no maintainer for $1"
	# Like b4, name nobody twice: reviewers of one file may maintain another.
	matching -vxFf "$WORK/to" "$WORK/lists" >"$WORK/cc"
}

# Message-Id (without <>) of the cover letter written for revision $1.
cover_msgid() {
	local id
	id=$(sed -n 's/^Message-Id: <\(.*\)>$/\1/Ip' "$MAIL_OUT/$1"/0000-*.eml)
	[ -n "$id" ] || die "no cover letter of $1 in $MAIL_OUT/$1"
	say "$id"
}

# The cover letter of revision $1 (number $2): the text of mail/$1/cover
# (or else mail/cover), the To/Cc trailers b4 send turns into headers,
# then below "---" the changes since v1, newest first, as b4's reroll
# writes them, and the range-diff.
cover_letter() {
	local v=$1 n=$2 k id text=$MAIL_DIR/$1/cover
	[ -f "$text" ] || text=$MAIL_DIR/cover
	sed -e "s/@NAME@/$rev_name/g" -e "s|@BASE@|$BASE|g" "$text"
	say
	sed 's/^/To: /' "$WORK/to"
	sed 's/^/Cc: /' "$WORK/cc"
	[ "$n" -gt 1 ] || return 0
	say
	say "---"
	for ((k = n; k > 1; k--)); do
		say "Changes in v$k:"
		cat "$MAIL_DIR/v$k/changes"
		id=$(cover_msgid "v$((k - 1))")
		say "- Link to v$((k - 1)): $LINKMASK$id"
		say
	done
	say "Range-diff against v$((n - 1)):"
	tgit range-diff --no-color "$BASE_COMMIT..refs/heads/mail/v$((n - 1))" \
		"$BASE_COMMIT..refs/heads/mail/$v"
}

# b4's tracking data from its cover commit $1, with the series' stable
# change-id, revision $2, the RFC prefix and the cover Message-Ids of the
# revisions before (b4 records them when it sends).
tracking_json() {
	local cover=$1 n=$2 k id history=()
	for ((k = 1; k < n; k++)); do
		id=$(cover_msgid "v$k")
		history+=("$id")
	done
	tgit log -1 --format=%B "$cover" | sed -n '/^--- b4-submit-tracking ---$/,$p' |
		sed 1,2d | python3 -c '
import json, sys
tracking = json.load(sys.stdin)
series = tracking["series"]
series["change-id"] = sys.argv[1]
series["revision"] = int(sys.argv[2])
series["prefixes"] = ["RFC"]
if len(sys.argv) > 3:
    series["history"] = {"v%d" % k: [m] for k, m in enumerate(sys.argv[3:], 1)}
print(json.dumps(tracking, indent=2))' "$CHANGE_ID" "$n" "${history[@]}"
}

# Enroll mail/$1 with b4 prep on $PREP_BRANCH and give it the cover letter
# of revision number $2.  b4 0.12 always makes a random change-id and
# revision 1, and edits covers with git-filter-repo: the cover commit is
# rewritten here instead, in the same format, and the patches put back on
# top of it.
prep_revision() {
	local v=$1 n=$2 m cover tip c commits
	m=$(tgit rev-list --count "$BASE_COMMIT..refs/heads/mail/$v")
	wgit checkout -q -B "$PREP_BRANCH" "refs/heads/mail/$v"
	b4_run prep -e "$BASE_COMMIT"
	cover=$(wgit rev-parse "$PREP_BRANCH~$m")
	tgit log -1 --format=%B "$cover" >"$WORK/b4-cover"
	grep -q '^--- b4-submit-tracking ---$' "$WORK/b4-cover" ||
		die "b4 prep -e made no cover commit at $PREP_BRANCH~$m"
	{
		cover_letter "$v" "$n"
		say
		say "--- b4-submit-tracking ---"
		say "# This section is used internally by b4 prep for tracking purposes."
		tracking_json "$cover" "$n"
	} >"$WORK/cover"
	tip=$(GIT_AUTHOR_DATE=$rev_date GIT_COMMITTER_DATE=$COMMIT_DATE \
		tgit commit-tree "$BASE_COMMIT^{tree}" -p "$BASE_COMMIT" -F "$WORK/cover")
	read_lines commits tgit rev-list --reverse "$BASE_COMMIT..refs/heads/mail/$v"
	for c in "${commits[@]}"; do
		tip=$(tgit log -1 --format=%B "$c" |
			GIT_AUTHOR_NAME=$(tgit log -1 --format=%an "$c") \
			GIT_AUTHOR_EMAIL=$(tgit log -1 --format=%ae "$c") \
			GIT_AUTHOR_DATE=$(tgit log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_DATE=$COMMIT_DATE \
			tgit commit-tree "$c^{tree}" -p "$tip")
	done
	wgit reset -q --hard "$tip"
	# b4 must read back what it will send.
	b4_run prep --show-info
	grep -qx "change-id: $CHANGE_ID" "$WORK/b4.log" && grep -qx "revision: $n" "$WORK/b4.log" ||
		die "b4 prep --show-info does not show change-id $CHANGE_ID, revision $n"
}

# A message with its headers unfolded.  b4 send folds the long Subject of
# the cover letter, and b4 0.12's am then crashes on it: it copies the
# header value, line break included, into a new message, which Python's
# email package refuses.
unfold_headers() {
	awk '
		body { print; next }
		/^[ \t]/ { sub(/^[ \t]+/, " "); held = held $0; next }
		{ if (NR > 1) print held; held = $0 }
		/^$/ { print; body = 1 }
	' "$1"
}

# b4 send -o: the messages of revision $1 as .eml files, then one mbox
# (mboxrd: a body line starting with "From " or ">From " gets a '>').
send_revision() {
	local v=$1 eml
	rm -rf "${MAIL_OUT:?}/$v" "$MAIL_OUT/$v.mbox"
	b4_run send --no-sign --not-me-too -o "$MAIL_OUT/$v"
	for eml in "$MAIL_OUT/$v"/*.eml; do
		say "From mboxrd@z Thu Jan  1 00:00:00 1970"
		unfold_headers "$eml" | sed 's/^\(>*From \)/>\1/'
		say
	done >"$MAIL_OUT/$v.mbox"
}

# git am the mbox of revision $1 onto the base.  It stops at the cover
# letter, which has no patch: skip that one, as a maintainer does.
am_revision() {
	local v=$1
	wgit checkout -q --detach "$BASE_COMMIT"
	wgit am -q --patch-format=mboxrd "$MAIL_OUT/$v.mbox" >"$WORK/am.log" 2>&1 && return
	wgit am --show-current-patch=raw >"$WORK/am.current"
	grep -qix "Message-Id: <$(cover_msgid "$v")>" "$WORK/am.current" &&
		wgit am -q --skip >>"$WORK/am.log" 2>&1 && return
	cat "$WORK/am.log" >&2
	wgit am --abort || true
	return 1
}

# The mbox of revision $1 applies with git am onto the base and gives the
# tree of mail/$1; b4 am takes the cover and all $2 patches from it.
verify_revision() {
	local v=$1 m=$2 tree=
	am_revision "$v" && tree=$(wgit rev-parse "HEAD^{tree}")
	wgit checkout -q "$PREP_BRANCH"
	[ -n "$tree" ] || die "$v: git am of $MAIL_OUT/$v.mbox failed"
	[ "$tree" = "$(tgit rev-parse "refs/heads/mail/$v^{tree}")" ] ||
		die "$v: git am of the mbox gives tree $tree, not the tree of mail/$v"
	# b4 0.12 does not create the -o directory itself.
	rm -rf "$WORK/am" && mkdir "$WORK/am"
	b4_run am -m "$MAIL_OUT/$v.mbox" -o "$WORK/am"
	grep -q "^Total patches: $m\$" "$WORK/b4.log" && ls "$WORK/am"/*.cover >/dev/null 2>&1 ||
		{ cat "$WORK/b4.log" >&2; die "$v: b4 am did not find the cover and $m patches"; }
}

# Tag revision $1 as sent, the way b4 send does after mailing: an annotated
# tag on the cover-less series, holding the cover letter (with its
# base-commit: and change-id:), which b4 prep --compare-to reads.
tag_sent() {
	local v=$1 eml
	eml=$(ls "$MAIL_OUT/$v"/0000-*.eml)
	{
		head -n 1 "$WORK/cover"	# the title, as prep_revision wrote it
		say
		sed '1,/^$/d' "$eml" | sed '/^-- $/,$d'
	} >"$WORK/tag"
	GIT_COMMITTER_DATE=$COMMIT_DATE \
		tgit tag -f -a -F "$WORK/tag" "sent/$SERIES-$v" "refs/heads/mail/$v" >/dev/null
}

# The refs export_revision leaves for revision $1: its branch, and its
# sent tag or, for the last revision, the b4 prep branch.
revision_refs() {
	local ref=refs/tags/sent/$SERIES-$1
	[ "$1" != "${REVISIONS[-1]}" ] || ref=refs/heads/$PREP_BRANCH
	tgit rev-parse -q --verify "refs/heads/mail/$1" || say none
	tgit rev-parse -q --verify "$ref" || say none
}

# Export revision $1, unless its inputs and the revisions before it are
# as at the last export and its messages and refs are still there.
# REV_KEY is the key of everything up to the revision last exported.
export_revision() {
	local v=$1 n=${1#v} patches tip m stamp=$MAIL_OUT/$1.done inputs refs
	load_revision "$v"
	read_lines patches revision_patches "$v"
	[ "${#patches[@]}" -gt 0 ] || die "mail/$v: no patches"
	inputs=$(cat "${patches[@]}" "$MAIL_DIR/$v"/* "$MAIL_DIR/cover" "${BASH_SOURCE[0]}" "$WORK/MAINTAINERS")
	REV_KEY=$(key_of "$REV_KEY" "$inputs" "$CHANGE_ID $COMMIT_DATE $BASE_COMMIT" "$TOOLS" "$AS_NAME <$AS_EMAIL>")
	refs=$(revision_refs "$v")
	if cached "$stamp" && [ "$(cat "$stamp")" = "$REV_KEY $refs" ] &&
		[ -s "$MAIL_OUT/$v.mbox" ]; then
		say "mail: $v: up to date -> $MAIL_OUT/$v.mbox"
		return
	fi
	rm -f "$stamp"
	say "mail: $v: started (b4 log: $WORK/b4.log, messages: $MAIL_OUT/$v)"
	tip=$(commit_patches "$BASE_COMMIT" "${patches[@]}")
	tgit update-ref "refs/heads/mail/$v" "$tip"
	m=${#patches[@]}
	get_maintainers "${patches[@]}"
	prep_revision "$v" "$n"
	send_revision "$v"
	verify_revision "$v" "$m"
	[ "$v" = "${REVISIONS[-1]}" ] || tag_sent "$v"
	say "$REV_KEY $(revision_refs "$v")" >"$stamp"
	say "mail: $v: $m patches + cover, To $(wc -l <"$WORK/to") Cc $(wc -l <"$WORK/cc"), git am = mail/$v, b4 am ok -> $MAIL_OUT/$v.mbox"
}

main() {
	local v last=${REVISIONS[-1]} last_patches tip plan=()
	need_tree
	command -v b4 >/dev/null || die "b4 is not installed: install the Debian package 'b4' (make deps)"
	stage_lock mail
	# Mailed as the maintainer who runs this: From: and the Signed-off-by:
	# of the patches' author (commit_patch); the originals are credited in
	# the messages.
	maintainer_identity tgit
	export AS_NAME AS_EMAIL
	apply_init
	load_topics
	scratch_dir WORK mail-export
	CHANGE_ID=$(grep -v '^#' "$MAIL_DIR/change-id")
	TOOLS=$(tool_versions b4 git perl)
	BASE=$(base_ref)
	BASE_COMMIT=$(tgit rev-parse "$BASE^{commit}")
	WT=$(stage_worktree mail)
	# A run that died in git am leaves its session behind.
	[ ! -d "$(wgit rev-parse --absolute-git-dir)/rebase-apply" ] || wgit am --abort
	[ -z "$(wgit status --porcelain --untracked-files=no)" ] ||
		die "$WT has uncommitted changes"
	mkdir -p "$MAIL_OUT"
	REV_KEY=
	# The MAINTAINERS of the last revision serves every revision; it is
	# built first for it.
	load_revision "$last"
	read_lines last_patches revision_patches "$last"
	tip=$(commit_patches "$BASE_COMMIT" "${last_patches[@]}")
	write_maintainers "$tip"
	for v in "${REVISIONS[@]}"; do
		export_revision "$v"
		plan+=("mail-$v refs/heads/mail/$v topic/$SELFTEST_TOPIC")
	done
	[ -n "${MAIL_NO_BUILD:-}" ] || PLAN=$(printf '%s\n' "${plan[@]}") bash "$TOP/ci/build.sh"
	say "mail: ${REVISIONS[*]} on $BASE, change-id $CHANGE_ID; $PREP_BRANCH holds $last (b4 send in $WT), tags sent/$SERIES-${REVISIONS[0]}..${REVISIONS[-2]}"
}

main "$@"
