#!/usr/bin/env bash
# t0650-list.sh - mail/list.sh: a real public-inbox list on 127.0.0.1
#
# The inbox is in this script's cache; its server is stopped when the
# script ends, whatever happens.  A small series of a fixture repository
# goes through b4 send and comes back over HTTP with b4 mbox.
. "$(dirname "$0")/../test-lib.sh"

command -v public-inbox-httpd >/dev/null || skip_all "public-inbox is not installed (make deps)"
command -v b4 >/dev/null || skip_all "b4 is not installed (make deps)"
# (from /: $TRASH, the working directory, is gone by then)
at_exit env -C / bash "$TOP/mail/list.sh" stop

list() { bash "$TOP/mail/list.sh" "$@"; }
LIST=$PRINTK_CACHE/list

# message ID [HEADER-LINES...]: a mail to the list with Message-Id <ID>;
# a header given replaces the default one of that name, "-Name" drops it.
message() {
	local id=$1 h
	shift
	declare -A hdr=([From]="Test Reviewer <reviewer@printk-list.test>"
		[To]="printk@printk-list.test" [Subject]="test $id"
		[Date]="Sat, 5 Dec 2026 10:00:00 +0000" [Message-Id]="<$id>")
	for h; do
		if [[ $h == -* ]]; then unset "hdr[${h#-}]"; else hdr[${h%%: *}]=${h#*: }; fi
	done
	for h in From To Subject Date Message-Id; do
		[ -z "${hdr[$h]+set}" ] || say "$h: ${hdr[$h]}"
	done
	say
	say "body of $id"
}

# b4 $2... as the mail stages run it (mail/common.sh), on the list at URL $1.
stage_b4() {
	bash -c '. "$1/ci/lib.sh" && . "$1/mail/common.sh" && WORK=$2 LIST_URL=$3 && shift 3 && b4_run "$WORK" "$@"' \
		stage_b4 "$TOP" "$TRASH" "$@"
}

test_expect_success 'start creates the inbox and serves it on 127.0.0.1 (empty: 404)' '
	list start >out &&
	test_grep "^list: serving http://127.0.0.1:[0-9]*/printk (pid [0-9]*" out &&
	url=$(list status) &&
	case $url in http://127.0.0.1:*/printk) ;; *) return 1 ;; esac &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "$url/")" = 404 &&
	test_grep "spamcheck = none" "$LIST/pi-config" &&
	list start >out &&
	test_grep "^list: already serving $url\$" out
'

test_expect_success 'a delivered message is archived and served back' '
	message one@printk-list.test | list deliver -i -f reviewer@printk-list.test printk@printk-list.test &&
	test "$(list_count)" = 1 &&
	list has one@printk-list.test &&
	test_must_fail list has two@printk-list.test &&
	curl -fs "$(list status)/one@printk-list.test/raw" >raw &&
	test_grep "^Subject: test one@printk-list.test\$" raw &&
	test_grep "^body of one@printk-list.test\$" raw &&
	curl -fs "$(list status)/" >page &&
	test_grep "test one@printk-list.test" page &&
	test_grep "^one@printk-list.test printk@printk-list.test\$" "$LIST/delivered.log"
'

test_expect_success 'bad mail is refused, naming what is wrong, and not archived' '
	test_must_fail list deliver printk@printk-list.test <<<"not a message" 2>err &&
	test_grep "^error: list: malformed message: not a mail message" err &&
	message nomid@x -Message-Id | test_must_fail list deliver printk@printk-list.test 2>err &&
	test_grep "^error: list: malformed message: 0 Message-Id headers" err &&
	message nofrom@x "From: nobody" | test_must_fail list deliver printk@printk-list.test 2>err &&
	test_grep "^error: list: malformed message: no address in From: (<nofrom@x>)" err &&
	message nodate@x -Date | test_must_fail list deliver printk@printk-list.test 2>err &&
	test_grep "^error: list: malformed message: no Date: header (<nodate@x>)" err &&
	message one@printk-list.test | test_must_fail list deliver printk@printk-list.test 2>err &&
	test_grep "^error: list: <one@printk-list.test> is on the list already" err &&
	message norcpt@x | test_must_fail list deliver 2>err &&
	test_grep "^error: list deliver: no recipients" err &&
	test "$(list_count)" = 1
'

test_expect_success 'a port that is taken is named' '
	port=$(cat "$LIST/port") &&
	test_must_fail env PRINTK_CACHE=$TRASH/other LIST_PORT=$port bash "$TOP/mail/list.sh" start 2>err &&
	test_grep "^error: list: port $port on 127.0.0.1 is taken (LIST_PORT picks another)" err &&
	test_must_fail env PRINTK_CACHE=$TRASH/other bash "$TOP/mail/list.sh" status
'

test_expect_success 'b4 send mails a series to the list, b4 mbox gets it back' '
	git init -q repo &&
	git -C repo config user.name "Test Maintainer" &&
	git -C repo config user.email maintainer@printk-list.test &&
	echo a >repo/a && git -C repo add a && git -C repo commit -q -m base && git -C repo tag base &&
	git -C repo checkout -q -b b4/demo &&
	for n in 1 2; do
		echo $n >>repo/a && git -C repo commit -q -a -m "demo: change $n" \
			-m "Signed-off-by: Test Maintainer <maintainer@printk-list.test>" || return 1
	done &&
	(cd repo && b4 --no-interactive prep -e base) >log 2>&1 &&
	git -C repo log -1 --format=%B HEAD~2 | sed -n "/^--- b4-submit-tracking ---\$/,\$p" >tracking &&
	printf "demo: two changes\n\nA demo.\n\nTo: printk@printk-list.test\nCc: elsewhere@example.org\n\n" >cover &&
	cat tracking >>cover &&
	c=$(git -C repo commit-tree base^{tree} -p base -F "$TRASH/cover") &&
	git -C repo rebase -q --onto "$c" HEAD~2 &&
	export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=sendemail.smtpserver \
		GIT_CONFIG_VALUE_0="$TOP/mail/list.sh deliver" \
		GIT_CONFIG_KEY_1=b4.midmask GIT_CONFIG_VALUE_1="$(list status)/%s" &&
	(cd repo && b4 --no-interactive send --no-sign <<<"") >log 2>&1 &&
	test_grep "^Sent 3 messages" log &&
	git -C repo rev-parse -q --verify refs/tags/sent/demo-v1 >/dev/null &&
	test "$(list_count)" = 4 &&
	# every recipient is recorded, none is mailed: the list is all there is
	test_grep "elsewhere@example.org" "$LIST/delivered.log" &&
	cover_id=$(grep -- "-v1-0-" "$LIST/delivered.log" | cut -d" " -f1) &&
	test -n "$cover_id" &&
	mkdir mbox && b4 mbox -o mbox -n thread.mbox "$cover_id" >log 2>&1 &&
	test "$(grep -c "^Message-Id: " mbox/thread.mbox)" = 3 &&
	grep "^Subject: " mbox/thread.mbox >subjects &&
	printf "Subject: %s\n" "[PATCH 0/2] demo: two changes" "[PATCH 1/2] demo: change 1" \
		"[PATCH 2/2] demo: change 2" >expect &&
	test_cmp expect subjects &&
	git -C repo checkout -q --detach base &&
	# git am stops at the cover letter, which has no patch
	{ git -C repo am -q --patch-format=mboxrd "$TRASH/mbox/thread.mbox" >/dev/null 2>&1 ||
		git -C repo am -q --skip; } &&
	test "$(git -C repo rev-parse HEAD^{tree})" = "$(git -C repo rev-parse b4/demo^{tree})"
'

test_expect_success 'a search after a delivery works once the server is restarted' '
	url=$(list status) &&
	search() { curl -s -X POST -o "$1" -w "%{http_code}" "$url/?x=m&t=1&q=%22change-id%3A+t0650%22"; } &&
	test "$(search before)" = 404 &&
	message found@printk-list.test | sed "\$a change-id: t0650" >msg &&
	list deliver printk@printk-list.test <msg &&
	list restart &&
	test "$(list status)" = "$url" &&
	test "$(search after)" = 200 &&
	zcat after | grep -q "^Message-Id: <found@printk-list.test>"
'

test_expect_success 'a server a stage restarts does not keep that stage'"'"'s lock' '
	( exec 9>>"$TRASH/stage.lock" && flock -n 9 && list restart ) &&
	list status >/dev/null &&
	flock -n "$TRASH/stage.lock" true
'

test_expect_success 'a server that does not answer is named: status fails, start refuses' '
	pid=$(cat "$LIST/httpd.pid") &&
	kill -STOP "$pid" &&
	test_when_finished "kill -CONT $pid" &&
	test_must_fail list status &&
	test_must_fail list start 2>err &&
	test_grep "^error: list: the server of $LIST/httpd.pid (pid $pid) does not answer on http://127.0.0.1:[0-9]*/printk: stop it (make list-stop)" err
'

test_expect_success 'stop stops the server; stopping again says so' '
	list stop >out &&
	test_grep "^list: stopped\$" out &&
	test_must_fail list status &&
	list stop >out &&
	test_grep "^list: not running\$" out
'

test_expect_success 'b4 of a stage names the list server that is not running' '
	url=http://127.0.0.1:$(cat "$LIST/port")/printk &&
	test_must_fail stage_b4 "$url" mbox gone@printk-list.test 2>err &&
	test_grep "^error: b4 mbox gone@printk-list.test failed: the list.s server does not answer at $url " err
'

test_done
