#!/usr/bin/env bash
# run-tests.sh - run the project's own tests and total them
#
# Runs every ci/t/t*.sh script and cocci/run-tests.sh; each prints TAP
# lines.  Ends with one line: "N passed, N failed".
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

passed=0
failed=0

run_script() {
	local out
	out=$(bash "$@" 2>&1) || true
	printf '%s\n' "$out" | grep -v '^1\.\.[0-9]*$' | grep -v '^[0-9]* passed, [0-9]* failed$' || true
	passed=$((passed + $(grep -c '^ok ' <<<"$out" || true)))
	failed=$((failed + $(grep -c '^not ok ' <<<"$out" || true)))
	# A script that died before reporting anything is a failure too.
	if ! grep -q '^\(not \)\?ok ' <<<"$out"; then
		say "not ok - $* reported no results"
		failed=$((failed + 1))
	fi
}

main() {
	local t
	for t in "$TOP"/ci/t/t[0-9]*.sh; do
		run_script "$t"
	done
	[ ! -f "$TOP/cocci/run-tests.sh" ] || run_script "$TOP/cocci/run-tests.sh"
	say "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

main "$@"
