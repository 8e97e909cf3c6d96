#!/usr/bin/env bash
# export.sh - send the v1..v6 mail series to the printk list (make mail)
#
# Each revision vN (mail/vN/revision.conf) is a patch series: the last one
# is the series topics as they are in topics/ now, the earlier ones are
# kept in mail/vN/*.patch.  For each revision not sent yet, in order:
#
#   1. its patches become commits on its base (rev_base), branch mail/vN;
#   2. b4 prep enrolls them on branch b4/printk-safe in the worktree
#      $PRINTK_CACHE/worktrees/mail, and the cover commit b4 made gets the
#      series' cover letter and tracking (change-id, revision, history);
#   3. b4 send mails it to the list of mail/list.sh, which archives it and
#      sends nothing anywhere else; b4 tags it sent/printk-safe-vN and
#      rerolls the prep branch to the next revision;
#   4. the thread is fetched back from the list over HTTP (b4 mbox) into
#      $OUT/mail/vN.mbox and vN/*.eml, and checked: git am gives the tree
#      of mail/vN, b4 am finds the cover and every patch.
#
# A sent revision is frozen: its branch, tag and messages never change.
# When its inputs have changed since, the export says so: the change is
# for a new revision.  With an argument vN it stops after vN (make send).
# The list server is started for the export if it is not running, and
# stopped again.
#
# Then every revision is compiled (ci/build.sh BUILD_TARGETS=changed:
# kernel/printk/ and the .c files it changes, with the test topic), unless
# MAIL_NO_BUILD is set (the mail tests, which check the messages only).
# Not a full build: v1..v4 each have an include/linux/printk.h of their
# own, and a full build of each would cost cold CI 20 minutes.
#
# b4/printk-safe is left at the revision after the last one sent.  See
# mail/README.md for what differs per revision.
#
# BASE=6.12 sends the series of that base instead: mail/6.12/ (its own
# change-id and cover, revisions made on 6.12 from the topics' 6.12
# variants), as printk-safe-6.12 on branches mail-6.12/vN and
# b4/printk-safe-6.12 in worktree mail-6.12.
. "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"
. "$TOP/topics/apply.sh"
. "$TOP/mail/common.sh"

# Read mail/$1/revision.conf into rev_date, rev_name, rev_topics, and its
# base (rev_base) into REV_BASE and BASE_COMMIT.  A revision is pinned to the
# base it was made on: a newer distro base is a new revision.
load_revision() {
	rev_date= rev_name= rev_topics= rev_base=
	# shellcheck source=/dev/null
	. "$MAIL_DIR/$1/revision.conf"
	[ -n "$rev_date" ] && [ -n "$rev_name" ] && [ -n "$rev_base" ] ||
		die "$MAIL_NAME/$1/revision.conf: rev_date, rev_name and rev_base must be set"
	REV_BASE=$rev_base
	BASE_COMMIT=$(tgit rev-parse -q --verify "refs/tags/$REV_BASE^{commit}") ||
		die "$MAIL_NAME/$1 is made on $REV_BASE, which $PRINTK_TREE does not have (it has $(tgit tag -l 'distro/*' | paste -sd' ')): make setup imports that linux-source; a revision is never moved to another base, a newer base is a new revision"
}

# The patch files of the loaded revision $1, in order: a topic's as they
# are on the revision's base (its variant there).
revision_patches() {
	local topic topics patches
	if [ -z "$rev_topics" ]; then
		topic_patches "$MAIL_DIR/$1"
		return
	fi
	read -r -a topics <<<"$rev_topics"
	for topic in "${topics[@]}"; do
		[ -f "$TOPICS_DIR/$topic/topic.conf" ] || die "$MAIL_NAME/$1: no topic $topic in $TOPICS_DIR"
		load_topic "$TOPICS_DIR/$topic"
		read_lines patches base_patches "$TOPICS_DIR/$topic"
		[ "${#patches[@]}" -gt 0 ] ||
			die "$MAIL_NAME/$1: topic $topic has no patches on $APPLY_SERIES (topic_superseded[$APPLY_SERIES]: the base has it)"
		printf '%s\n' "${patches[@]}"
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
	if tgit rev-parse -q --verify "refs/heads/topic/maintainers$SUFFIX" >/dev/null &&
		[ "$(tgit rev-parse "$tree:MAINTAINERS")" != "$(tgit rev-parse "topic/maintainers$SUFFIX:MAINTAINERS")" ]; then
		warn "topic/maintainers$SUFFIX has another MAINTAINERS than topics/ (run 'make topics')"
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

# The cover letter text of revision $1: mail/$1/cover, else that of the
# newest revision before it that has one (a cover letter carries over to
# the next revision), else mail/cover.
cover_text() {
	local i
	for ((i = ${#REVISIONS[@]} - 1; i >= 0; i--)); do
		[[ ${REVISIONS[i]#v} -le ${1#v} && -f $MAIL_DIR/${REVISIONS[i]}/cover ]] || continue
		say "$MAIL_DIR/${REVISIONS[i]}/cover"
		return
	done
	say "$MAIL_DIR/cover"
}

# What the messages of the loaded revision $1 are made of: its patches
# $2..., cover letter, changes, name, date and base, and the recipients.
# Not where the patches are kept (topics/ until the next revision, then
# mail/$1/), so that keeping a sent revision's patches changes nothing.
# KEY_SCHEME names this in a sent record: a record without it was keyed
# otherwise (before v6), and is keyed anew once.
KEY_SCHEME="key of: patches, cover, changes, name, date, base, recipients"
revision_inputs() {
	local v=$1
	shift
	cat "$@" "$(cover_text "$v")" "$WORK/MAINTAINERS"
	[ ! -f "$MAIL_DIR/$v/changes" ] || cat "$MAIL_DIR/$v/changes"
	say "$rev_name $rev_date $rev_base"
}

# The cover letter of revision $1 (number $2): its text (cover_text),
# the To/Cc trailers b4 send turns into headers, then below "---" the
# changes since v1, newest first, as b4's reroll writes them, and the
# range-diff against the revision before ($WORK/range-diff, from b4 prep
# --compare-to).
cover_letter() {
	local v=$1 n=$2 k id
	sed -e "s/@NAME@/$rev_name/g" -e "s|@BASE@|$REV_BASE|g" "$(cover_text "$v")"
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
	cat "$WORK/range-diff"
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
	m=$(tgit rev-list --count "$BASE_COMMIT..refs/heads/$MAIL_BRANCH/$v")
	wgit checkout -q -B "$PREP_BRANCH" "refs/heads/$MAIL_BRANCH/$v"
	b4_run "$WT" prep -e "$BASE_COMMIT"
	# Each side on its own base: that of the sent tag, and this one's.
	[ "$n" = 1 ] || B4_STDOUT=$WORK/range-diff b4_run "$WT" prep --compare-to "v$((n - 1))"
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
	read_lines commits tgit rev-list --reverse "$BASE_COMMIT..refs/heads/$MAIL_BRANCH/$v"
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
	b4_run "$WT" prep --show-info
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

# b4 send revision $1 to the list and record it; b4 tags it and rerolls
# the prep branch, whose tracking then holds the cover's Message-Id.
send_revision() {
	local v=$1 key=$2 id
	b4_run "$WT" send --no-sign --not-me-too
	tgit rev-parse -q --verify "refs/tags/sent/$SERIES-$v" >/dev/null ||
		die "$v: b4 send made no tag sent/$SERIES-$v"
	id=$(tgit log -1 --format=%B "$(wgit rev-parse "$PREP_BRANCH~$3")" |
		sed -n '/^--- b4-submit-tracking ---$/,$p' | sed 1,2d |
		jq -r --arg v "$v" '.series.history[$v][-1] // empty')
	[ -n "$id" ] || die "$v: sent, but b4 recorded no Message-Id for it"
	mkdir -p "$SENT_DIR"
	write_record "$v" "$id" "$key"
}

# The sent record of revision $1: cover Message-Id $2, inputs key $3.
write_record() { printf '%s\n%s\n%s\n' "$2" "$3" "$KEY_SCHEME" >"$(sent_record "$1")"; }

# The thread of revision $1 ($2 patches) as the list archived it, from its
# server: $OUT/mail/vN.mbox (mboxrd), and one NNNN.eml per message,
# numbered as in its subject (0000 the cover letter).
fetch_revision() {
	local v=$1 m=$2 f k
	rm -rf "$WORK/thread" && mkdir -p "$WORK/thread" "$MAIL_OUT"
	b4_run "$WT" mbox -o "$WORK/thread" -n thread.mbox "$(cover_msgid "$v")"
	split_thread "$WORK/thread/thread.mbox" "$MAIL_OUT/$v" >/dev/null
	# The replies in the thread are the review's, not the series'.
	rm -r "$MAIL_OUT/$v/other"
	for ((k = 0; k <= m; k++)); do
		[ -f "$MAIL_OUT/$v/$(printf '%04d' "$k").eml" ] ||
			die "$v: the thread of <$(cover_msgid "$v")> on the list lacks $k/$m"
	done
	for f in "$MAIL_OUT/$v"/*.eml; do
		say "From mboxrd@z Thu Jan  1 00:00:00 1970"
		unfold_headers "$f" | sed 's/^\(>*From \)/>\1/'
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
	[ "$tree" = "$(tgit rev-parse "refs/heads/$MAIL_BRANCH/$v^{tree}")" ] ||
		die "$v: git am of the mbox gives tree $tree, not the tree of $MAIL_BRANCH/$v"
	# b4 0.12 does not create the -o directory itself.
	rm -rf "$WORK/am" && mkdir "$WORK/am"
	b4_run "$WT" am -m "$MAIL_OUT/$v.mbox" -o "$WORK/am"
	grep -q "^Total patches: $m\$" "$WORK/b4.log" && ls "$WORK/am"/*.cover >/dev/null 2>&1 ||
		{ cat "$WORK/b4.log" >&2; die "$v: b4 am did not find the cover and $m patches"; }
}

# Revision $1 ($2 patches, inputs key $3), sent before: check that the
# list and the tree still have it; its messages are fetched again only if
# they are not in $OUT.
frozen_revision() {
	local v=$1 m=$2 key=$3 id tag=refs/tags/sent/$SERIES-$1
	id=$(cover_msgid "$v")
	bash "$LIST" has "$id" ||
		die "$v: $(sent_record "$v") says it was sent as <$id>, but the list does not hold it"
	tgit rev-parse -q --verify "$tag" >/dev/null ||
		die "$v: sent as <$id>, but the tree has no tag sent/$SERIES-$v"
	tgit rev-parse -q --verify "refs/heads/$MAIL_BRANCH/$v" >/dev/null ||
		tgit update-ref "refs/heads/$MAIL_BRANCH/$v" "$tag^{commit}"
	if [ ! -s "$MAIL_OUT/$v.mbox" ]; then
		fetch_revision "$v" "$m"
		verify_revision "$v" "$m"
	fi
	if [ "$(sed -n 3p "$(sent_record "$v")")" != "$KEY_SCHEME" ]; then
		write_record "$v" "$id" "$key"
		say "mail: $v: its sent record was keyed otherwise: keyed anew (a change made since it was sent goes untold this once)"
	elif [ "$(sed -n 2p "$(sent_record "$v")")" != "$key" ]; then
		warn "$v: its patches, cover or recipients have changed since it was sent; a sent revision stays as it was: the change is for the next one"
	fi
	say "mail: $v: sent as <$id>, unchanged -> $MAIL_OUT/$v.mbox"
}

# Send revision $1 unless it was sent: see the top of this file.
export_revision() {
	local v=$1 n=${1#v} patches tip m inputs key
	load_revision "$v"
	read_lines patches revision_patches "$v"
	[ "${#patches[@]}" -gt 0 ] || die "$MAIL_NAME/$v: no patches"
	m=${#patches[@]}
	inputs=$(revision_inputs "$v" "${patches[@]}")
	key=$(key_of "$inputs" "$CHANGE_ID $BASE_COMMIT" "$AS_NAME <$AS_EMAIL>")
	if [ -f "$(sent_record "$v")" ]; then
		frozen_revision "$v" "$m" "$key"
		return
	fi
	# Left by an export that wrote the messages without sending them.
	if tgit rev-parse -q --verify "refs/tags/sent/$SERIES-$v" >/dev/null; then
		warn "$v: tag sent/$SERIES-$v is not of a revision sent to the list: replacing it"
		tgit tag -d "sent/$SERIES-$v" >/dev/null
	fi
	say "mail: $v: sending (b4 log: $WORK/b4.log, messages: $MAIL_OUT/$v)"
	tip=$(commit_patches "$BASE_COMMIT" "${patches[@]}")
	tgit update-ref "refs/heads/$MAIL_BRANCH/$v" "$tip"
	get_maintainers "${patches[@]}"
	prep_revision "$v" "$n"
	send_revision "$v" "$key" "$m"
	fetch_revision "$v" "$m"
	verify_revision "$v" "$m"
	say "mail: $v: sent as <$(cover_msgid "$v")>, $m patches + cover, To $(wc -l <"$WORK/to") Cc $(wc -l <"$WORK/cc"); as archived: git am = $MAIL_BRANCH/$v, b4 am ok -> $MAIL_OUT/$v.mbox"
}

main() {
	local v last upto last_patches tip plan=()
	need_tree
	need_b4
	mail_base
	upto=${1:-${REVISIONS[-1]}} last=${REVISIONS[-1]}
	[[ " ${REVISIONS[*]} " == *" $upto "* ]] || die "no revision $upto: the revisions are ${REVISIONS[*]}"
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
	WT=$(stage_worktree "mail$SUFFIX")
	# A run that died in git am leaves its session behind.
	[ ! -d "$(wgit rev-parse --absolute-git-dir)/rebase-apply" ] || wgit am --abort
	require_clean_worktree "$WT"
	mkdir -p "$MAIL_OUT"
	use_list
	# The MAINTAINERS of the last revision serves every revision; it is
	# built first for it.
	load_revision "$last"
	read_lines last_patches revision_patches "$last"
	tip=$(commit_patches "$BASE_COMMIT" "${last_patches[@]}")
	write_maintainers "$tip"
	for v in "${REVISIONS[@]}"; do
		export_revision "$v"
		plan+=("mail-$v$SUFFIX refs/heads/$MAIL_BRANCH/$v topic/$SELFTEST_TOPIC$SUFFIX")
		[ "$v" != "$upto" ] || break
	done
	[ -n "${MAIL_NO_BUILD:-}" ] || [ $# -gt 0 ] || PLAN=$(printf '%s\n' "${plan[@]}") BUILD_TARGETS=changed bash "$TOP/ci/build.sh"
	say "mail: ${REVISIONS[0]}..$upto sent to $LIST_URL, change-id $CHANGE_ID, tags sent/$SERIES-${REVISIONS[0]}..$upto; $PREP_BRANCH in $WT holds the next revision"
}

main "$@"
