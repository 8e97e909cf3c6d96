#!/usr/bin/env bash
# run-tests.sh - check the semantic patches against their test cases
#
# tests/NAME/ holds the cases of NAME.cocci, one C file each, possibly in
# subdirectories (a script may look at the path). Next to a case X.c:
#
#   X.res     what -D patch must turn X.c into, for scripts with
#             "virtual patch"; without X.res, X.c must come out unchanged
#   X.report  what -D report must print, for scripts with "virtual report",
#             one "file:line: message" per finding; empty for no finding
#   X.args    optional, more spatch arguments for both modes
#
# spatch runs in tests/NAME/ on the case's path below it, with the
# "// Options:" of the script, as scripts/coccicheck passes them. Report
# lines are compared sorted by file and line.
#
# The last test corrupts the expectations of a copied case and checks
# that the comparison then fails.
#
# Usage: run-tests.sh [--self-test]   (--self-test: only that last test)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SPATCH=${SPATCH:-spatch}
SELF_TEST_CASE=pr_cont/seq_buf_loop
count=0
failed=0

say() { printf '%s\n' "$*"; }

has_mode() { grep -qx "virtual $2" "$1"; }

# The Options: line of a script, read as scripts/coccicheck reads it.
spatch_options() { grep "Options:" "$1" | cut -d: -f2; }

sort_report() { sort -t: -k1,1 -k2,2n; }

# run_spatch COCCI DIR CASE MODE ARGS...: spatch in DIR on CASE. stderr
# is kept with the output: a script's complaint must fail the test.
run_spatch() {
	local cocci=$1 dir=$2 case=$3 mode=$4
	shift 4
	# shellcheck disable=SC2046 # the options are words
	(cd "$dir" && "$SPATCH" --very-quiet --sp-file "$cocci" -D "$mode" \
		$(spatch_options "$cocci") "$@" "$case")
}

# check_case COCCI DIR CASE: run the modes of COCCI on DIR/CASE and diff
# the results against the expectations; non-zero on any difference.
check_case() {
	local cocci=$1 dir=$2 case=$3 base=${3%.c} out expected status=0
	local args=()
	[ ! -f "$dir/$base.args" ] || read -r -a args <"$dir/$base.args"
	out=$(mktemp -d)
	if has_mode "$cocci" patch; then
		expected=$dir/$base.res
		[ -f "$expected" ] || expected=$dir/$case
		run_spatch "$cocci" "$dir" "$case" patch "${args[@]}" \
			--no-show-diff -o "$out/result.c" 2>"$out/stderr" || status=1
		diff -u "$expected" "$out/result.c" || status=1
		if [ -s "$out/stderr" ]; then
			cat "$out/stderr"
			status=1
		fi
	fi
	if has_mode "$cocci" report; then
		run_spatch "$cocci" "$dir" "$case" report "${args[@]}" 2>&1 |
			sort_report >"$out/report" || status=1
		diff -u "$dir/$base.report" "$out/report" || status=1
	fi
	rm -rf "$out"
	return "$status"
}

# record NAME COMMAND...: run a test, print its TAP line and, on
# failure, its output as TAP comments.
record() {
	local name=$1 log
	shift
	count=$((count + 1))
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		say "ok $count - $name"
	else
		failed=$((failed + 1))
		say "not ok $count - $name"
		sed 's/^/# /' "$log"
	fi
	rm -f "$log"
}

run_cases() {
	local cocci dir case
	for cocci in "$HERE"/*.cocci; do
		dir=$HERE/tests/$(basename "$cocci" .cocci)
		[ -d "$dir" ] || continue
		while read -r case; do
			record "$(basename "$dir"): $case" check_case "$cocci" "$dir" "$case"
		done < <(cd "$dir" && find . -name '*.c' | sed 's|^\./||' | sort)
	done
}

# A copy of a case must pass, and fail once its .res or .report is wrong.
self_test() {
	local tmp name=${SELF_TEST_CASE#*/} status=0
	local cocci=$HERE/${SELF_TEST_CASE%%/*}.cocci
	tmp=$(mktemp -d)
	cp "$HERE/tests/$SELF_TEST_CASE".{c,res,report} "$tmp"
	check_case "$cocci" "$tmp" "$name.c" || { say "intact copy fails"; status=1; }
	cp "$tmp/$name.res" "$tmp/good.res"
	sed -i 's/seq_buf_do_printk/seq_buf_printk/' "$tmp/$name.res"
	if check_case "$cocci" "$tmp" "$name.c"; then
		say "corrupted $name.res not detected"
		status=1
	fi
	mv "$tmp/good.res" "$tmp/$name.res"
	echo "$name.c:1: WARNING: not a finding" >>"$tmp/$name.report"
	if check_case "$cocci" "$tmp" "$name.c"; then
		say "corrupted $name.report not detected"
		status=1
	fi
	rm -rf "$tmp"
	return "$status"
}

main() {
	command -v "$SPATCH" >/dev/null || { say "$SPATCH not found" >&2; exit 2; }
	case ${1:-} in
	--self-test) ;;
	"") run_cases ;;
	*) say "usage: $0 [--self-test]" >&2; exit 2 ;;
	esac
	record "self-check: wrong expectations of $SELF_TEST_CASE fail" self_test
	say "1..$count"
	say "$((count - failed)) passed, $failed failed"
	[ "$failed" = 0 ]
}

main "$@"
