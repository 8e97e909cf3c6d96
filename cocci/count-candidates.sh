#!/usr/bin/env bash
# count-candidates.sh - count what pr_cont.cocci finds in a kernel tree
#
# Usage: count-candidates.sh TREE [REPORT]
#
# Runs pr_cont.cocci in report mode on the C files of TREE that mention
# pr_cont or KERN_CONT (388 of the 55k .c and .h files of 6.1), each file on
# its own, $JOBS (default 2) at a time, and prints how many candidates
# each rule found. REPORT, if given, receives the report lines.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
COCCI=$HERE/pr_cont.cocci
SPATCH=${SPATCH:-spatch}
JOBS=${JOBS:-2}
WORK=

say() { printf '%s\n' "$*"; }
die() { say "count-candidates.sh: $*" >&2; exit 1; }

# The report line counts and distinct files of one rule's message.
count() {
	local n files
	n=$(grep -c -e "$2" "$1" || true)
	files=$(grep -e "$2" "$1" | cut -d: -f1 | sort -u | wc -l)
	say "$n candidates in $files files"
}

main() {
	local tree=${1:-} report=${2:-} start files n1 n2
	[ -d "$tree" ] || die "usage: count-candidates.sh TREE [REPORT]"
	WORK=$(mktemp -d)
	trap 'rm -rf "$WORK"' EXIT
	start=$(date +%s)

	# One file per group, so that spatch handles each file on its own.
	# grep exits 1 when no file matches: no candidates, not an error.
	(cd "$tree" && { grep -rlwE --include='*.[ch]' 'pr_cont|KERN_CONT' . || [ $? = 1 ]; } |
		sed 's|^\./||' | sort) >"$WORK/files"
	files=$(wc -l <"$WORK/files")
	sed 's/$/\n/' "$WORK/files" >"$WORK/groups"

	: >"$WORK/report"
	: >"$WORK/errors"
	# shellcheck disable=SC2046 # the options are words
	[ "$files" = 0 ] || (cd "$tree" && "$SPATCH" --very-quiet --sp-file "$COCCI" -D report \
		$(grep "Options:" "$COCCI" | cut -d: -f2) \
		--jobs "$JOBS" --file-groups "$WORK/groups") \
		>"$WORK/report" 2>"$WORK/errors" ||
		die "spatch failed: $(head -n 5 "$WORK/errors")"
	[ -z "$report" ] || cp "$WORK/report" "$report"

	n1=$(count "$WORK/report" 'printk(KERN_CONT \.\.\.) can be pr_cont')
	n2=$(count "$WORK/report" 'line can be built in a struct seq_buf')
	say "tree: $tree"
	say "files mentioning pr_cont or KERN_CONT: $files"
	say "rule 1, printk(KERN_CONT ...) -> pr_cont(...): $n1"
	say "rule 2, pr_cont() line -> seq_buf: $n2"
	say "spatch: $JOBS jobs, $(($(date +%s) - start)) s"
	if [ -s "$WORK/errors" ]; then
		say "spatch errors (files skipped), first lines:"
		head -n 5 "$WORK/errors" | sed 's/^/  /'
	fi
}

main "$@"
