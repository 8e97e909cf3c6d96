#!/usr/bin/env bash
# t0600-mail.sh - mail/export.sh sends the v1..v6 series to the list,
# review.sh and pull.sh take it into for-next and for-linus
#
# Runs the export on a clone of the kernel tree of make ci (it needs the
# topic branches of 'make topics', b4 and public-inbox), in the scratch
# directory, with a list of its own (mail-lib.sh).  The 6.12 series is
# t0610's, so that the two can run side by side.
. "$(dirname "$0")/mail-lib.sh"

MAIL=$OUT/mail
BASE_COMMIT=$(tgit rev-parse "$(base_ref)^{commit}")
CHANGE_ID=$(grep -v '^#' "$TOP/mail/change-id")
WT=$PRINTK_CACHE/worktrees/mail
REVISIONS="v1 v2 v3 v4 v5 v6"

# The files the changelog checks read, of each revision ref $@:
# printk_safe.c, printk.c and panic.c as safe.REF, printk.REF, panic.REF.
show_files() {
	local r
	for r; do
		tgit show "mail/$r:kernel/printk/printk_safe.c" >"safe.$r" &&
		tgit show "mail/$r:kernel/printk/printk.c" >"printk.$r" &&
		tgit show "mail/$r:kernel/panic.c" >"panic.$r" || return 1
	done
}

# The messages of revision $1, cover letter first.
messages() { ls "$MAIL/$1"/*.eml; }

# The subjects each revision must have, cover letter first.
expected_subjects() {
	local v=$1 pfx name p1=1 n
	case $v in
	v1) pfx="PATCH RFC" name=alt_printk n=5 ;;
	v2) pfx="PATCH RFC v2" name=alt_printk n=6 ;;
	v5 | v6) pfx="PATCH RFC $v" name=printk_safe n=7 ;;
	*) pfx="PATCH RFC $v" name=printk_safe n=6 ;;
	esac
	if [ "$n" = 7 ]; then
		say "[$pfx 0/$n] printk: keep what 6.1's ringbuffer drops in printk_safe buffers"
	else
		say "[$pfx 0/$n] printk: use $name to handle printk() recursive calls"
	fi
	{
		if [ "$n" = 7 ]; then
			say "printk: honour NMI and printk_safe context in vprintk_emit()"
			say "printk: call printk_safe_init() and printk_safe_flush_on_panic() again"
		else
			say "printk: use vprintk_func in vprintk()"
			say "printk: rename nmi.c and exported api"
		fi
		say "printk: introduce per-cpu safe_print seq buffer"
		case $v in
		v1) say "printk: use printk_safe buffers"
		    say "printk: report printk recursion" ;;
		v2) say "printk: use printk_safe buffers"
		    say "printk: report printk recursion"
		    say "printk: remove zap_locks() function" ;;
		v5 | v6) say "printk: report lost messages in printk safe/nmi contexts"
		    say "printk: use printk_safe buffers"
		    say "printk: let printk_safe limit printk() recursion"
		    say "printk: do not deadlock on printk locks in panic()" ;;
		*) say "printk: report lost messages in printk safe/nmi contexts"
		   say "printk: use printk_safe buffers"
		   say "printk: remove zap_locks() function" ;;
		esac
	} | while IFS= read -r s; do
		say "[$pfx $p1/$n] $s"
		p1=$((p1 + 1))
	done
}

# Apply the patches of mbox $1 to the base with plumbing, as git am does;
# the cover letter, which has no diff, is skipped.  Print the tree.
am_tree() {
	local dir=$TRASH/am.$$ f
	rm -rf "$dir" && mkdir "$dir"
	git mailsplit --mboxrd -o"$dir" "$1" >/dev/null
	GIT_INDEX_FILE=$dir/index tgit read-tree "$BASE_COMMIT"
	for f in "$dir"/[0-9]*; do
		tgit mailinfo "$dir/msg" "$dir/patch" <"$f" >/dev/null
		grep -q "^diff --git " "$dir/patch" || continue
		GIT_INDEX_FILE=$dir/index tgit apply --cached "$dir/patch"
	done
	GIT_INDEX_FILE=$dir/index tgit write-tree
}

test_expect_success 'export sends six revisions to the list and reports each' '
	bash "$TOP/mail/export.sh" >log &&
	cat log &&
	test "$(grep -c "^mail: v[1-6]: sending" log)" = 6 &&
	test "$(grep -c "^mail: v[1-6]: sent as <.*>, .* patches + cover" log)" = 6 &&
	test_grep "^mail: v1: sent as <.*>, 5 patches + cover" log &&
	test_grep "^mail: v4: sent as <.*>, 6 patches + cover" log &&
	test_grep "^mail: v5: sent as <.*>, 7 patches + cover" log &&
	test_grep "^mail: v6: sent as <.*>, 7 patches + cover" log &&
	test_grep "change-id $CHANGE_ID" log &&
	test_grep "^list: stopped" log &&
	# 6 covers and 5 + 6 + 6 + 6 + 7 + 7 patches
	test "$(list_count)" = 43 &&
	for v in $REVISIONS; do
		test -s "$MAIL/$v.mbox" && messages $v >/dev/null || return 1
	done
'

test_expect_success 'subjects: the seed subjects, numbered, cover letter first' '
	for v in $REVISIONS; do
		expected_subjects $v >expect &&
		for m in $(messages $v); do hdr "$m" Subject; done >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'threading: every patch replies to its cover letter' '
	for v in $REVISIONS; do
		cover=$(messages $v | head -n 1) &&
		id=$(hdr "$cover" Message-Id) &&
		case $id in "<$(echo "$CHANGE_ID" | sed "s/-[0-9a-f]*$//")-$v-0-"*) ;; *) echo "cover id $id"; return 1 ;; esac &&
		test -z "$(hdr "$cover" In-Reply-To)" &&
		for m in $(messages $v | tail -n +2); do
			test "$(hdr "$m" In-Reply-To)" = "$id" &&
			test "$(hdr "$m" References)" = "$id" || { echo "$m: not a reply to $id"; return 1; }
		done || return 1
	done
'

test_expect_success 'covers: base-commit, one change-id, changelog with links, range-diff' '
	for v in $REVISIONS; do
		cover=$(messages $v | head -n 1) &&
		test_grep "^base-commit: $BASE_COMMIT\$" "$cover" &&
		test_grep "^change-id: $CHANGE_ID\$" "$cover" || return 1
	done &&
	! grep -q "^Changes in" "$(messages v1 | head -n 1)" &&
	cover=$(messages v6 | head -n 1) &&
	grep "^Changes in v" "$cover" >actual &&
	printf "Changes in v%s:\n" 6 5 4 3 2 >expect &&
	test_cmp expect actual &&
	# v6 keeps the cover letter of v5
	test_grep "^In v5 a message of NMI context" "$cover" &&
	for k in 1 2 3 4 5; do
		id=$(hdr "$(messages v$k | head -n 1)" Message-Id | tr -d "<>") &&
		test_grep "^- Link to v$k: https://lore.kernel.org/r/$id\$" "$cover" || return 1
	done &&
	test_grep "^Range-diff against v5:" "$cover" &&
	test_grep "^Range-diff against v4:" "$(messages v5 | head -n 1)" &&
	test_grep "^Range-diff against v1:" "$(messages v2 | head -n 1)" &&
	# against v5 as sent: its left side is what b4 tagged
	sed -n "s/^ *[0-9]*:  \([0-9a-f]*\) [=!<] .*/\1/p" "$cover" >left &&
	test "$(wc -l <left)" = 7 &&
	tgit rev-list "$BASE_COMMIT..sent/printk-safe-v5" >sent &&
	while read -r c; do
		grep -q "^$c" sent || { echo "$c is not a commit of sent/printk-safe-v5"; return 1; }
	done <left
'

test_expect_success 'the changelogs of the ported v2..v4 say which changes are 2016 ones' '
	cover=$(messages v4 | head -n 1) &&
	test_grep "\[2016\] marks the changes" "$cover" &&
	sed -n "/^Changes in v4:/,/^Range-diff/p" "$cover" |
		grep "^- " | grep -v "^- Link to v" >items &&
	test "$(wc -l <items)" -ge 10 &&
	! grep -v "^- \[\(2016\|port\)\] " items
'

test_expect_success 'each patch is from the maintainer running the export, crediting the 2016 one' '
	for v in $REVISIONS; do
		for m in $(messages $v | tail -n +2); do
			test "$(hdr "$m" From)" = "$MAINTAINER" &&
			sed "/^---\$/,\$d" "$m" >body &&
			grep -qxF "Signed-off-by: $MAINTAINER" body &&
			test_grep "^Link: " body &&
			test_grep "Sergey Senozhatsky" body || { echo "in $m"; return 1; }
		done || return 1
	done &&
	! grep -l "Seed 840804d4\|a-seed-840804d4" "$MAIL"/v[1-6].mbox
'

test_expect_success 'To/Cc: get_maintainer.pl on the tree of topic/maintainers' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	. "$TOP/mail/v6/revision.conf" &&
	patches=$(for t in $rev_topics; do topic_patches "$TOPICS_DIR/$t"; done) &&
	opts="--mpath $TRASH/MAINTAINERS --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nofixes" &&
	(cd "$WT" && perl scripts/get_maintainer.pl $opts --nol $patches) >to &&
	# Cc: the lists and whoever is not in To already, as b4 does
	(cd "$WT" && perl scripts/get_maintainer.pl $opts --nom $patches) | grep -vxFf to >cc &&
	test_grep "^Sergey Senozhatsky <senozhatsky@chromium.org>\$" to &&
	test_grep "^John Ogness <john.ogness@linutronix.de>\$" to &&
	test_grep "^Petr Mladek <pmladek@suse.com>\$" to &&
	test_grep "^linux-kernel@vger.kernel.org\$" cc &&
	test "$(messages v6 | wc -l)" = 8 &&
	# b4 also Cc:s the addresses in the trailers of a patch: stable@ for patch 1
	test_grep "stable@vger.kernel.org" <(hdr "$(messages v6 | sed -n 2p)" Cc) &&
	for m in $(messages v6); do
		hdr "$m" To | sed "s/, */\n/g" | sed "/^\$/d" >actual &&
		test_cmp to actual &&
		hdr "$m" Cc | sed "s/, */\n/g" | sed "/^\$/d" | grep -vx "stable@vger.kernel.org" >actual &&
		test_cmp cc actual || return 1
	done &&
	cat "$MAIL"/v[1-6].mbox >all &&
	# mailed today: the addresses of today, not those of 2016 (which
	# only the Message-Ids of the 2016 postings in Link: still carry)
	awk "/^From /{ h = 1 } h && /^\$/{ h = 0 } h" all >headers &&
	test_grep "senozhatsky@chromium.org" headers &&
	! grep -q "sergey.senozhatsky@gmail.com" headers
'

test_expect_success 'each mbox applies onto the base to the tree it came from' '
	test "$(am_tree "$MAIL/v6.mbox")" = "$(tgit rev-parse topic/panic-locks^{tree})" &&
	for v in v1 v2 v3 v4 v5; do
		GIT_INDEX_FILE=$TRASH/index tgit read-tree "$BASE_COMMIT" &&
		for p in "$TOP/mail/$v"/*.patch; do
			GIT_INDEX_FILE=$TRASH/index tgit apply --cached "$p" || return 1
		done &&
		test "$(am_tree "$MAIL/$v.mbox")" = "$(GIT_INDEX_FILE=$TRASH/index tgit write-tree)" &&
		test "$(am_tree "$MAIL/$v.mbox")" = "$(tgit rev-parse "mail/$v^{tree}")" || return 1
	done
'

test_expect_success 'b4 am takes the cover letter and every patch from each mbox' '
	for v in $REVISIONS; do
		n=$(($(messages $v | wc -l) - 1)) &&
		rm -rf am && mkdir am &&
		(cd am && b4 --offline-mode --no-interactive am -m "$MAIL/$v.mbox" -o .) >log 2>&1 &&
		test_grep "^Total patches: $n\$" log &&
		ls am/*.cover &&
		test "$(grep -c "^Subject: \[PATCH" am/*.mbx)" = "$n" || return 1
	done
'

test_expect_success 'b4 reads the prep branch back: v7 next, the change-id, the sent ones' '
	(cd "$WT" && b4 --offline-mode prep --show-info) >info 2>&1 &&
	test_grep "^revision: 7\$" info &&
	for v in $REVISIONS; do
		id=$(hdr "$(messages $v | head -n 1)" Message-Id | tr -d "<>") &&
		test_grep "^series-$v: .*\.\.sent/printk-safe-$v $id\$" info || return 1
	done &&
	test_grep "^change-id: $CHANGE_ID\$" info &&
	test_grep "^base-commit: $BASE_COMMIT\$" info &&
	(cd "$WT" && b4 --offline-mode prep --compare-to v4) >rd 2>&1 &&
	test_grep "^3:  [0-9a-f]* ! 3:  [0-9a-f]* printk: introduce per-cpu safe_print seq buffer" rd
'

test_expect_success 'v1..v3 differ from v4 as their changelogs say' '
	show_files v1 v2 v3 v4 v2~1 v3~1 v4~1 &&
	# v1: no timestamps kept in the buffers; v2 on: kept
	! grep -q "ts_nsec" safe.v1 &&
	test_grep "m->ts_nsec = ts_nsec;" safe.v2 &&
	# renamed from alt_printk to printk_safe in v3
	test_grep "^void alt_printk_flush(void)" safe.v2 &&
	test_grep "^void printk_safe_flush(void)" safe.v3 &&
	! tgit grep -q -w alt_printk_flush mail/v3 -- . &&
	# the two !NMI fixes: nmi_print_seq used outside CONFIG_HAVE_NMI
	test "$(grep -c "^#ifdef CONFIG_HAVE_NMI" safe.v1)" = 1 &&
	test "$(grep -c "^#ifdef CONFIG_HAVE_NMI" safe.v2)" = 3 &&
	test "$(grep -c "^#ifdef CONFIG_HAVE_NMI" safe.v3)" = 4 &&
	# the recursion report: in v2 patch 5, gone with zap_locks() in patch 6
	test_grep "BUG: recent printk recursion" printk.v2~1 &&
	! grep -q "recent printk recursion" printk.v2 &&
	# lost messages: reported from v3 on
	! grep -q "message_lost" safe.v2 &&
	test_grep "Lost %d message(s)" safe.v3 &&
	# v3 patch 5 enters printk_safe for new records only, v4 for all
	test_grep "^out_safe:" printk.v3~1 &&
	! grep -q "^out_safe:" printk.v4~1 &&
	# v4: the panic flush tries the lock, buffered messages are suppressed
	! grep -q "raw_spin_trylock_irqsave(&safe_read_lock" safe.v3 &&
	test_grep "raw_spin_trylock_irqsave(&safe_read_lock" safe.v4 &&
	! grep -q "printk_suppressed()" safe.v3 &&
	test_grep "printk_suppressed()" safe.v4 &&
	test_grep "sema_init(&console_sem, 1);" printk.v4 &&
	# and nothing else: the other files are those of v3
	tgit diff --name-only mail/v3 mail/v4 >changed &&
	printf "%s\n" kernel/printk/internal.h kernel/printk/printk.c \
		kernel/printk/printk_safe.c >expect &&
	test_cmp expect changed
'

test_expect_success 'v5 differs from v4 as its changelog says' '
	show_files v4 v5 &&
	# v4 buffered every NMI and printk_safe message, v5 stores directly
	# as far as 6.1 does and buffers only the deeper nesting
	! grep -q "PRINTK_MAX_DIRECT" safe.v4 &&
	test_grep "if (s->depth <= PRINTK_MAX_DIRECT)" safe.v5 &&
	# console_sem: zapped by the panic flush with one CPU online in v4,
	# by panic() once it stopped the other CPUs in v5
	test_grep "console_sem_zap_on_panic" safe.v4 &&
	! grep -q "console_sem_zap_on_panic" safe.v5 &&
	test_grep "^	console_sem_zap_on_panic();" panic.v5 &&
	# printk_trigger_flush() keeps its name and callers in v5
	test_grep "^	printk_safe_flush();" <(tgit show mail/v4:lib/nmi_backtrace.c) &&
	test_grep "^	printk_trigger_flush();" <(tgit show mail/v5:lib/nmi_backtrace.c) &&
	# v5 patch 1: vprintk_emit() checks the context itself, for stable
	test_grep "^Cc: stable@vger.kernel.org\$" "$(messages v5 | sed -n 2p)" &&
	test_grep "^Fixes: 42a0bb3f7138 " "$(messages v5 | sed -n 2p)" &&
	tgit diff --name-only mail/v4 mail/v5 >changed &&
	printf "%s\n" arch/powerpc/kernel/watchdog.c include/linux/console.h \
		include/linux/printk.h init/Kconfig kernel/panic.c kernel/printk/internal.h \
		kernel/printk/printk.c kernel/printk/printk_safe.c lib/nmi_backtrace.c >expect &&
	test_cmp expect changed
'

test_expect_success 'v6 differs from v5 as its changelog says: printk.h changes once' '
	test "$(tgit rev-parse "mail/v6^{tree}")" = "$(tgit rev-parse "mail/v5^{tree}")" &&
	# the patches of each revision that change include/linux/printk.h
	for v in v5 v6; do
		for k in 6 5 4 3 2 1 0; do
			tgit diff --quiet "mail/$v~$((k + 1))" "mail/$v~$k" -- include/linux/printk.h ||
				echo $((7 - k))
		done >printk.h.$v || return 1
	done &&
	printf "%s\n" 2 3 >expect &&
	test_cmp expect printk.h.v5 &&
	echo 2 >expect &&
	test_cmp expect printk.h.v6 &&
	test_grep "^+void printk_safe_flush_on_panic(void)" "$(messages v6 | sed -n 3p)"
'

test_expect_success 'a second export sends nothing: tags, list and mboxes unchanged' '
	tgit for-each-ref refs/tags/sent/ >tags.before &&
	cp -r "$MAIL" first &&
	bash "$TOP/mail/export.sh" >log 2>&1 &&
	test "$(grep -c "^mail: v[1-6]: sent as <.*>, unchanged" log)" = 6 &&
	! grep -q "sending" log &&
	tgit for-each-ref refs/tags/sent/ >tags.after &&
	test_cmp tags.before tags.after &&
	test "$(list_count)" = 43 &&
	diff -r first "$MAIL"
'

test_expect_success 'keeping a sent revision in mail/vN changes nothing; a change to it is warned about' '
	# a copy of this repository where v6 is kept, as when v7 is made
	mkdir copy &&
	cp -r "$TOP/ci" "$TOP/mail" "$TOP/topics" "$TOP/tree-setup" copy/ &&
	. "$TOP/mail/v6/revision.conf" &&
	k=0 &&
	for t in $rev_topics; do
		k=$((k + 1)) &&
		p=$(topic_patches "$TOP/topics/$t") &&
		cp "$p" "copy/mail/v6/$(printf %04d $k)-${p##*/0001-}" || return 1
	done &&
	grep -v "^rev_topics=" "$TOP/mail/v6/revision.conf" >copy/mail/v6/revision.conf &&
	bash copy/mail/export.sh >log 2>&1 &&
	test "$(grep -c "^mail: v[1-6]: sent as <.*>, unchanged" log)" = 6 &&
	! grep -q "changed since it was sent\|keyed anew" log &&
	# a record keyed before v6 (two lines) is keyed anew, once
	record=$PRINTK_CACHE/list/sent/printk-safe-v6 &&
	cp "$record" record.kept &&
	sed -i 3d "$record" &&
	bash copy/mail/export.sh >log 2>&1 &&
	test_grep "^mail: v6: its sent record was keyed otherwise: keyed anew" log &&
	test_cmp record.kept "$record" &&
	bash copy/mail/export.sh >log 2>&1 &&
	! grep -q "changed since it was sent\|keyed anew" log &&
	# a kept patch changed after it was sent
	sed -i "s/^Subject: \[PATCH\] printk: /&changed: /" copy/mail/v6/0001-*.patch &&
	bash copy/mail/export.sh >log 2>&1 &&
	test_grep "^warning: v6: its patches, cover or recipients have changed since it was sent" log &&
	test "$(list_count)" = 43
'

test_expect_success 'a revision stays on the base it was made on: a newer base changes nothing sent' '
	newer=$(echo newer | commit_file "$BASE_COMMIT" NEWER -m "Debian linux-source 6.1.999") &&
	tgit tag distro/6.1.999 "$newer" &&
	test_when_finished "tgit tag -d distro/6.1.999" &&
	bash "$TOP/mail/export.sh" >log 2>&1 &&
	test "$(grep -c "^mail: v[1-6]: sent as <.*>, unchanged" log)" = 6 &&
	! grep -q "changed since it was sent" log &&
	tgit for-each-ref refs/tags/sent/ >tags.after &&
	test_cmp tags.before tags.after
'

test_expect_success 'a revision whose base the tree lacks is refused, naming the base' '
	tag=$(tgit rev-parse refs/tags/distro/6.1.192) &&
	tgit tag distro/6.1.999 "$BASE_COMMIT" &&
	tgit tag -d distro/6.1.192 &&
	test_when_finished "tgit update-ref refs/tags/distro/6.1.192 $tag && tgit tag -d distro/6.1.999" &&
	test_must_fail bash "$TOP/mail/export.sh" >log 2>&1 &&
	test_grep "^error: mail/v6 is made on distro/6.1.192, which .* does not have (it has distro/6.1.999[ )]" log &&
	tgit for-each-ref refs/tags/sent/ >tags.after &&
	test_cmp tags.before tags.after
'

test_expect_success 'messages gone from the output are fetched back; a thread missing a patch is refused' '
	rm -rf "$MAIL" &&
	bash "$TOP/mail/export.sh" v2 >log 2>&1 &&
	test_grep "^mail: v2: sent as <.*>, unchanged" log &&
	diff -r first/v1 "$MAIL/v1" &&
	test_cmp first/v2.mbox "$MAIL/v2.mbox" &&
	! test -e "$MAIL/v3.mbox" &&
	# a thread missing a patch is refused, naming the revision
	rm "$MAIL/v2.mbox" &&
	mv "$PRINTK_CACHE/list/inbox" inbox.kept &&
	cp -r inbox.kept "$PRINTK_CACHE/list/inbox" &&
	test_when_finished "rm -rf \"$PRINTK_CACHE/list/inbox\" && mv inbox.kept \"$PRINTK_CACHE/list/inbox\"" &&
	PI_CONFIG=$PRINTK_CACHE/list/pi-config HOME=$PRINTK_CACHE/list/home \
		public-inbox-purge "$PRINTK_CACHE/list/inbox" <first/v2/0003.eml >/dev/null 2>&1 &&
	test_must_fail bash "$TOP/mail/export.sh" v2 >log 2>&1 &&
	cat log &&
	test_grep "error: v2: the thread of <.*> on the list lacks 3/6" log
'

test_expect_success 'review: replies on the list, trailers by b4 trailers -u and by b4 shazam' '
	{ bash "$TOP/mail/review.sh" >log 2>&1 || { cat log "$PRINTK_CACHE/list/httpd.log"; return 1; }; } &&
	cat log &&
	test_grep "^review: v6: 4 replies posted to <.*>, 0 already on the list" log &&
	test "$(list_count)" = 47 &&
	rita="Reviewed-by: Rita Reviewer <rita.reviewer@printk-list.test>" &&
	andy="Acked-by: Andy Acker <andy.acker@printk-list.test>" &&
	tess="Tested-by: Tess Tester <tess.tester@printk-list.test>" &&
	for b in b4/printk-safe applied/printk-safe-v6; do
		tgit log -1 --format=%B $b~6 >p1 &&
		tgit log -1 --format=%B $b~5 >p2 &&
		tgit log -1 --format=%B $b~4 >p3 &&
		grep -qxF "$rita" p1 && grep -qxF "$tess" p1 &&
		grep -qxF "$andy" p3 && grep -qxF "$tess" p3 &&
		# the question gives no trailer
		grep -qxF "$tess" p2 && ! grep -q "Quinn" p2 &&
		test "$(tgit log --format=%B $b~7..$b | grep -c "^Tested-by: ")" = 7 || return 1
	done &&
	test "$(tgit rev-parse applied/printk-safe-v6^{tree})" = "$(tgit rev-parse mail/v6^{tree})" &&
	test "$(tgit rev-parse applied/printk-safe-v6~7)" = "$BASE_COMMIT" &&
	# the topics take the applied commits: for-next has each patch once,
	# with its trailers
	test_grep "^review: v6: for-next holds 7 of the 7 patches of applied/printk-safe-v6 (topics regenerated)" log &&
	test "$(tgit rev-parse topic/panic-locks)" = "$(tgit rev-parse applied/printk-safe-v6)" &&
	test "$(tgit rev-parse topic/vprintk-func)" = "$(tgit rev-parse applied/printk-safe-v6~6)" &&
	tgit merge-base --is-ancestor applied/printk-safe-v6 for-next &&
	tgit log --no-merges --format=%s "$BASE_COMMIT..for-next" | sort | uniq -d >dups &&
	test ! -s dups &&
	tgit log -1 --format=%B topic/vprintk-func | grep -qxF "$rita" &&
	tgit rev-parse for-next >for-next.before &&
	bash "$TOP/topics/regen.sh" >log 2>&1 &&
	test_grep "^topics: panic-locks: 1 applied (1 as applied from the list), 0 already in base" log &&
	tgit rev-parse for-next | test_cmp for-next.before - &&
	tgit rev-parse applied/printk-safe-v6 >applied.before &&
	bash "$TOP/mail/review.sh" >log 2>&1 &&
	test_grep "^review: v6: 0 replies posted to <.*>, 4 already on the list" log &&
	test_grep "^review: v6: applied/printk-safe-v6 applied before, kept" log &&
	test_grep "^review: v6: for-next holds 7 of the 7 patches of applied/printk-safe-v6 (make topics took them)" log &&
	tgit rev-parse for-next | test_cmp for-next.before - &&
	tgit rev-parse applied/printk-safe-v6 | test_cmp applied.before - &&
	test "$(list_count)" = 47 &&
	# the thread has the replies now: fetched again, it is the series
	rm -f "$MAIL/v6.mbox" &&
	bash "$TOP/mail/export.sh" >log 2>&1 &&
	test_grep "^mail: v6: sent as <.*>, unchanged" log &&
	test_cmp first/v6.mbox "$MAIL/v6.mbox"
'

test_expect_success 'a reply naming no patch of the series is refused before anything is posted' '
	printf "%s\n" "1|Ann Other <ann.other@printk-list.test>|Reviewed-by" \
		"9|Ann Other <ann.other@printk-list.test>|Acked-by" >bad &&
	test_must_fail env REVIEWS=$TRASH/bad bash "$TOP/mail/review.sh" >log 2>&1 &&
	test_grep "^error: review: $TRASH/bad:2: patch 9: the series <.*> has patches 1..7 (0 the cover letter)" log &&
	printf "%s\n" "1|Ann Other <ann.other@printk-list.test>|Signed-off-by" >bad &&
	test_must_fail env REVIEWS=$TRASH/bad bash "$TOP/mail/review.sh" >log 2>&1 &&
	test_grep "^error: review: $TRASH/bad:1: .Signed-off-by. is neither a trailer" log &&
	test "$(list_count)" = 47
'

test_expect_success 'pull: for-linus merges the applied series, tagged, pull request and thanks on the list' '
	tag=printk-for-$(base_ref | sed "s|^distro/||") &&
	{ bash "$TOP/mail/pull.sh" >log 2>&1 || { cat log; return 1; }; } &&
	cat log &&
	test "$(tgit cat-file -t "refs/tags/$tag")" = tag &&
	test "$(tgit rev-parse "for-linus^2")" = "$(tgit rev-parse applied/printk-safe-v6)" &&
	test "$(tgit rev-parse "for-linus^1")" = "$BASE_COMMIT" &&
	test "$(tgit rev-parse "$tag^{commit}")" = "$(tgit rev-parse for-linus)" &&
	tgit cat-file tag "$tag" >tagmsg &&
	test_grep "^Test Maintainer (7):" tagmsg &&
	test_grep "printk: do not deadlock on printk locks in panic()" tagmsg &&
	id=$(sed -n "s/^pull: pull request for $tag sent to the list: <\(.*\)>/\1/p" log) &&
	bash "$TOP/mail/list.sh" start >/dev/null &&
	curl -fs "$(bash "$TOP/mail/list.sh" status)/$id/raw" >pr &&
	test_grep "^Subject: \[GIT PULL\] printk for ${tag#printk-for-}" pr &&
	test_grep "tags/$tag\$" pr &&
	test_grep "^Test Maintainer (7):" pr &&
	test_grep "^pull: b4 ty: 1 thank-you(s) sent" log &&
	test "$(grep -c "b4-ty@" "$PRINTK_CACHE/list/delivered.log")" = 1 &&
	bash "$TOP/mail/pull.sh" >log 2>&1 &&
	test_grep "^pull: $tag is on for-linus already" log &&
	test_grep "^pull: the pull request for $tag is on the list already" log &&
	test_grep "^pull: b4 ty: 0 thank-you(s) sent" log
'

test_expect_success 'a pull request of what for-next does not hold is refused' '
	old=$(tgit rev-parse for-next) &&
	test_when_finished "tgit update-ref refs/heads/for-next $old" &&
	tgit update-ref refs/heads/for-next "$BASE_COMMIT" &&
	test_must_fail bash "$TOP/mail/pull.sh" >log 2>&1 &&
	test_grep "^error: for-next does not hold applied/printk-safe-v6: a pull request sends what linux-next has tested" log
'

test_expect_success 'a tag is never moved: a different applied series is refused' '
	tag=printk-for-$(base_ref | sed "s|^distro/||") &&
	old=$(tgit rev-parse applied/printk-safe-v6) &&
	test_when_finished "tgit update-ref refs/heads/applied/printk-safe-v6 $old" &&
	tgit update-ref refs/heads/applied/printk-safe-v6 "$old~1" &&
	test_must_fail bash "$TOP/mail/pull.sh" >log 2>&1 &&
	test_grep "^error: tag $tag is on [0-9a-f]*, for-linus would be [0-9a-f]*: a tag is never moved" log &&
	test "$(tgit rev-parse "$tag^{commit}")" = "$(tgit rev-parse for-linus)"
'

test_done
