#!/usr/bin/env bash
# list.sh - the printk list: a public-inbox archive served on 127.0.0.1
#
#   list.sh start    create the inbox if there is none, serve it over HTTP
#                    (make list); LIST_PORT=N picks the port, else a free one
#   list.sh stop     stop the server (make list-stop)
#   list.sh restart  stop and start it on the same port, if it runs: a
#                    search after a delivery needs it (see cmd_restart)
#   list.sh status   the URL of the inbox if the server runs and answers,
#                    else exit 1
#   list.sh has MSGID   exit 0 if the archive holds the message, else 1
#   list.sh deliver [-i] [-f SENDER] RCPT...
#                    sendmail for b4 and git send-email: take a message on
#                    stdin into the archive
#
# Everything is under $PRINTK_CACHE/list: public-inbox's config (PI_CONFIG)
# and HOME, the v2 inbox, the server's pid, port and log, and a log of the
# delivered messages with their envelope recipients.  A message is
# delivered to the archive only: whoever its recipients are, nothing
# leaves the machine, which is what lets b4 send for real here.
. "$(dirname "${BASH_SOURCE[0]}")/../ci/lib.sh"

LIST_DIR=$PRINTK_CACHE/list
LIST_NAME=printk
LIST_ADDR=printk@printk-list.test
INBOX=$LIST_DIR/inbox

# public-inbox, reading only the list's own config and home.
pi() { HOME=$LIST_DIR/home PI_CONFIG=$LIST_DIR/pi-config PI_DIR=$LIST_DIR/home/.public-inbox "$@"; }

need_public_inbox() {
	command -v public-inbox-mda >/dev/null && command -v public-inbox-httpd >/dev/null ||
		die "public-inbox is not installed: install the Debian package 'public-inbox' (make deps)"
}

# A new inbox when there is no complete one; an interrupted init leaves
# no "ready" mark and is redone.
init_inbox() {
	[ ! -f "$INBOX/ready" ] || return 0
	rm -rf "$INBOX" "$LIST_DIR/pi-config"
	mkdir -p "$LIST_DIR/home"
	pi public-inbox-init -V2 "$LIST_NAME" "$INBOX" "http://127.0.0.1/$LIST_NAME" "$LIST_ADDR" ||
		die "public-inbox-init of $INBOX failed"
	# Mail comes from b4 and the review script here, not from outside.
	git config -f "$LIST_DIR/pi-config" publicinboxmda.spamcheck none
	: >"$INBOX/ready"
}

# The pid of the running server, or nothing.
server_pid() {
	local pid
	pid=$(cat "$LIST_DIR/httpd.pid" 2>/dev/null) || return 0
	! kill -0 "$pid" 2>/dev/null || say "$pid"
}

list_url() { say "http://127.0.0.1:$(cat "$LIST_DIR/port")/$LIST_NAME"; }

# Whether the server answers on its port, if only with a 404 for an empty
# inbox; 5 s, for a loaded machine.
answers() { curl -s -m 5 -o /dev/null "$(list_url)/"; }

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd_status() {
	[ -n "$(server_pid)" ] && answers || return 1
	list_url
}

# The server runs detached (a double fork), so that it outlives this
# script; make list-stop, or the stage that started it, stops it.  It
# must not keep the stage's lock (fd 9, ci/lib.sh stage_lock) open: a
# server a stage restarts outlives that stage.
cmd_start() {
	local port=${LIST_PORT:-} pid deadline=$((SECONDS + 30))
	need_public_inbox
	mkdir -p "$LIST_DIR"
	init_inbox
	pid=$(server_pid)
	if [ -n "$pid" ]; then
		answers ||
			die "list: the server of $LIST_DIR/httpd.pid (pid $pid) does not answer on $(list_url): stop it (make list-stop)"
		say "list: already serving $(list_url)"
		return
	fi
	[ -n "$port" ] || port=$(free_port)
	rm -f "$LIST_DIR/httpd.pid"
	say "$port" >"$LIST_DIR/port"
	(pi setsid public-inbox-httpd -W0 -l "http://127.0.0.1:$port" -P "$LIST_DIR/httpd.pid" \
		</dev/null >"$LIST_DIR/httpd.log" 2>&1 9>&- &)
	# Up when it has written its pid and answers (a server of another
	# cache on the same port answers too); 30 s, for a loaded machine.
	until pid=$(server_pid) && [ -n "$pid" ] && answers; do
		if grep -qs 'Address already in use' "$LIST_DIR/httpd.log"; then
			die "list: port $port on 127.0.0.1 is taken (LIST_PORT picks another)"
		fi
		[ "$SECONDS" -lt "$deadline" ] ||
			die "list: public-inbox-httpd does not answer on port $port: $(cat "$LIST_DIR/httpd.log")"
		sleep 0.1
	done
	say "list: serving $(list_url) (pid $pid, log $LIST_DIR/httpd.log)"
}

cmd_stop() {
	local pid tries=50
	pid=$(server_pid)
	if [ -z "$pid" ]; then
		say "list: not running"
		return
	fi
	kill -TERM "$pid"
	while kill -0 "$pid" 2>/dev/null && [ $((tries -= 1)) -gt 0 ]; do
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$LIST_DIR/httpd.pid"
	say "list: stopped"
}

# public-inbox-httpd 1.9 keeps its Xapian index open and aborts on the
# first search after the inbox changed under it (uncaught
# Xapian::DatabaseModifiedError): whoever searches what it delivered
# restarts the server first.
cmd_restart() {
	local port
	[ -n "$(server_pid)" ] || return 0
	port=$(cat "$LIST_DIR/port")
	cmd_stop >/dev/null
	LIST_PORT=$port cmd_start >/dev/null
}

# The Message-Id of the message in file $1, after checking it has what a
# list needs: one Message-Id, a From address, a Subject and a Date.
checked_msgid() {
	python3 - "$1" <<-'EOF'
	import email, email.policy, email.utils, sys
	msg = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.compat32)
	def bad(why):
	    sys.exit("malformed message: " + why)
	if msg.defects or not msg.keys():
	    bad("not a mail message (%s)" % (msg.defects or "no headers"))
	ids = msg.get_all("Message-Id") or []
	if len(ids) != 1:
	    bad("%d Message-Id headers" % len(ids))
	mid = ids[0].strip()
	if not (mid.startswith("<") and mid.endswith(">") and "@" in mid):
	    bad("Message-Id %r is not <id@domain>" % mid)
	if "@" not in email.utils.parseaddr(msg.get("From", ""))[1]:
	    bad("no address in From: (%s)" % mid)
	for header in ("Subject", "Date"):
	    if not msg.get(header):
	        bad("no %s: header (%s)" % (header, mid))
	print(mid[1:-1])
	EOF
}

# Whether the archive holds Message-Id $1.
archived() {
	python3 - "$INBOX/msgmap.sqlite3" "$1" <<-'EOF'
	import sqlite3, sys
	db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
	sys.exit(0 if db.execute("SELECT 1 FROM msgmap WHERE mid = ?", (sys.argv[2],)).fetchone() else 1)
	EOF
}

cmd_deliver() {
	local msg mid rcpts=()
	need_public_inbox
	[ -f "$INBOX/ready" ] || die "list: no inbox in $INBOX (make list creates it)"
	while [ $# -gt 0 ]; do
		case $1 in
		-i) shift ;;
		-f) shift 2 ;;
		-*) die "list deliver: unknown option $1" ;;
		*) rcpts+=("$1"); shift ;;
		esac
	done
	[ "${#rcpts[@]}" -gt 0 ] || die "list deliver: no recipients"
	scratch_dir msg list-deliver
	cat >"$msg/eml"
	mid=$(checked_msgid "$msg/eml" 2>"$msg/err") || die "list: $(cat "$msg/err")"
	! archived "$mid" || die "list: <$mid> is on the list already"
	ORIGINAL_RECIPIENT=$LIST_ADDR pi public-inbox-mda --no-precheck <"$msg/eml" 2>"$msg/err" ||
		die "list: public-inbox-mda failed on <$mid>: $(cat "$msg/err")"
	archived "$mid" || die "list: public-inbox-mda did not archive <$mid>: $(cat "$msg/err")"
	printf '%s %s\n' "$mid" "${rcpts[*]}" >>"$LIST_DIR/delivered.log"
}

main() {
	local cmd=${1:-}
	[ $# -eq 0 ] || shift
	case $cmd in
	start | stop | restart | deliver) "cmd_$cmd" "$@" ;;
	status) cmd_status || exit 1 ;;
	has) [ -f "$INBOX/ready" ] && archived "${1:?list.sh has MSGID}" || exit 1 ;;
	*) die "usage: list.sh start|stop|restart|status|has MSGID|deliver [-i] [-f SENDER] RCPT..." ;;
	esac
}

main "$@"
