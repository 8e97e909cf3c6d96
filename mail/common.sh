# common.sh - what the mail stages share: the series, its sent record,
# the list and b4.  Sourced after ci/lib.sh.

LIST=$TOP/mail/list.sh
LIST_ADDR=printk@printk-list.test
# Which revisions were sent, kept with the list's archive (sent_record).
SENT_DIR=$PRINTK_CACHE/list/sent
# What b4 shazam records of the series it applied, for b4 ty: with the
# list (B4_DATA=$B4_THANKS b4_run ...); other b4 runs keep their data in
# $WORK, so that the checks of the export are not thanked for.
B4_THANKS=$PRINTK_CACHE/list/b4
# Links to the postings, as in the cover letters' "Link to vN" lines.
LINKMASK=https://lore.kernel.org/r/

# b4 0.12 finds the cover commit with 'git log --since=1.year', which stops
# at the first older commit: every commit of the prep branch needs a recent
# committer date (author dates are the 2016 ones).  Midnight UTC today keeps
# the commits, and so the range-diffs, the same for every run of the day.
COMMIT_DATE=${MAIL_COMMIT_DATE:-$(date -u +%Y-%m-%dT00:00:00Z)}

# The record of revision $1 sent to the list: its cover's Message-Id (no
# <>), then the key of its inputs when it was sent and what that key is
# of (export.sh: revision_inputs).  It is kept with the
# list, as sent/ tags are kept in the tree: whoever has the archive has
# sent what it holds.
sent_record() { say "$SENT_DIR/$SERIES-$1"; }

# Message-Id (without <>) of the cover letter of revision $1 as sent.
cover_msgid() {
	local id
	id=$(head -n 1 "$(sent_record "$1")" 2>/dev/null) || true
	[ -n "$id" ] || die "$1 has not been sent to the list (no $(sent_record "$1"); make send V=${1#v})"
	say "$id"
}

# The series of the base a mail stage works on (BASE), into MAIL_DIR (its
# revisions vN/, change-id and cover), REVISIONS, SERIES, PREP_BRANCH,
# MAIL_BRANCH (of branches MAIL_BRANCH/vN) and MAIL_OUT: mail/ for the
# default base, mail/<series>/ for another (BASE=6.12: printk-safe-6.12,
# its own b4 series).
mail_base() {
	SUFFIX=$(base_suffix)
	MAIL_DIR=$TOP/mail${SUFFIX:+/$(base_series)}
	MAIL_NAME=${MAIL_DIR#"$TOP"/}
	[ -f "$MAIL_DIR/change-id" ] ||
		die "no mail series for base $(base_series): no $MAIL_DIR/change-id"
	read_lines REVISIONS revisions
	[ "${#REVISIONS[@]}" -gt 0 ] || die "$MAIL_DIR has no revision (v1/revision.conf)"
	SERIES=printk-safe$SUFFIX
	PREP_BRANCH=b4/$SERIES
	MAIL_BRANCH=mail$SUFFIX
	MAIL_OUT=$OUT/mail$SUFFIX
}

# The revisions of $MAIL_DIR, in order.
revisions() {
	local dir
	for dir in "$MAIL_DIR"/v[0-9]*/; do
		[ -f "$dir/revision.conf" ] || continue
		[[ $(basename "$dir") =~ ^v[1-9][0-9]*$ ]] ||
			die "${dir%/}: a revision is named vN, N its number"
		basename "$dir"
	done | sort -V
}

wgit() { git -C "$WT" "$@"; }

# The messages of the series in thread mbox $1 as $2/NNNN.eml, numbered
# as in their "[PATCH ... N/M]" subjects (0000 the cover letter), the
# others (replies) left in $2/other; print M.
split_thread() {
	local dir=$2 f nm total=
	rm -rf "$dir" && mkdir -p "$dir/other"
	git mailsplit --mboxrd -o"$dir/other" "$1" >/dev/null
	for f in "$dir/other"/*; do
		[ -e "$f" ] || continue
		nm=$(sed -n 's/^Subject: \[[^]]* \([0-9]*\)\/\([0-9]*\)\].*/\1 \2/p' "$f" | head -n 1)
		[ -n "$nm" ] || continue
		# (without the mbox "From " line mailsplit leaves in)
		sed '1{/^From /d}' "$f" >"$dir/$(printf '%04d' "${nm% *}").eml"
		rm "$f"
		total=${nm#* }
	done
	say "$total"
}

need_b4() {
	command -v b4 >/dev/null || die "b4 is not installed: install the Debian package 'b4' (make deps)"
}

# Worktree $1 has no uncommitted changes to lose.
require_clean_worktree() {
	[ -z "$(git -C "$1" status --porcelain --untracked-files=no)" ] || die "$1 has uncommitted changes"
}

# The revision last sent.
last_sent() {
	local v
	v=$(ls "$SENT_DIR" 2>/dev/null | sed -n "s/^$SERIES-v\([0-9]*\)\$/\1/p" | sort -n | tail -n 1)
	[ -n "$v" ] || die "no revision of $SERIES has been sent to the list (make send V=N)"
	say "v$v"
}

# Serve the list for this stage unless it runs already (then it is left
# running); set LIST_URL.
use_list() {
	local out
	if ! LIST_URL=$(bash "$LIST" status); then
		out=$(bash "$LIST" start)
		say "$out"
		# (a slow server of the maintainer's answered the second time)
		[[ $out == "list: already serving"* ]] || at_exit bash "$LIST" stop
		LIST_URL=$(bash "$LIST" status)
	fi
}

# b4 $2... in directory $1, never asking, logging to $WORK/b4.log (its
# output to $B4_STDOUT instead when that is set: b4 prep --compare-to).  Its
# mail goes to the list's sendmail, which archives it and nothing else (a
# local command is also what keeps b4 off its web endpoint); it fetches
# and searches threads on the list's server, never on lore, with a cache
# of this run only (a cached thread would hide replies posted since).  b4 send asks for Enter before
# it sends: stdin gives it.
b4_run() {
	local dir=$1 log=$WORK/b4.log
	shift
	if ! (cd "$dir" &&
		if [ -n "${B4_STDOUT:-}" ]; then exec >"$B4_STDOUT" 2>"$log"; else exec >"$log" 2>&1; fi &&
		GIT_CONFIG_COUNT=6 \
		GIT_CONFIG_KEY_0=sendemail.smtpserver \
		GIT_CONFIG_VALUE_0="$(printf '%q' "$LIST") deliver" \
		GIT_CONFIG_KEY_1=b4.prep-cover-strategy GIT_CONFIG_VALUE_1=commit \
		GIT_CONFIG_KEY_2=b4.midmask GIT_CONFIG_VALUE_2="$LIST_URL/%s" \
		GIT_CONFIG_KEY_3=b4.linkmask GIT_CONFIG_VALUE_3="$LINKMASK%s" \
		GIT_CONFIG_KEY_4=b4.searchmask GIT_CONFIG_VALUE_4="$LIST_URL/?x=m&t=1&q=%s" \
		GIT_CONFIG_KEY_5=color.ui GIT_CONFIG_VALUE_5=never \
		GIT_COMMITTER_DATE=$COMMIT_DATE \
		XDG_CACHE_HOME=$WORK/b4-cache XDG_DATA_HOME=${B4_DATA:-$WORK/b4-data} \
		b4 --no-interactive "$@" <<<""); then
		cat "$log" >&2
		bash "$LIST" status >/dev/null ||
			die "b4 $* failed: the list's server does not answer at $LIST_URL (see $PRINTK_CACHE/list/httpd.log; make list starts it)"
		die "b4 $* failed"
	fi
}
