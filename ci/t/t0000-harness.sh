#!/usr/bin/env bash
# t0000-harness.sh - the test harness counts honestly (a script that dies
# fails, a skip is a skip), test-lib's features work, and every failure
# in a stage script is named
. "$(dirname "$0")/../test-lib.sh"

# tap_script NAME LINES...: a test script printing those lines (an "exit
# N" line exits).
tap_script() {
	local name=$1
	shift
	printf '%s\n' "$@" | sed -e 's/^exit \(.*\)/exit \1/;t' -e 's/.*/echo "&"/' >"$name.sh"
}

runner() { bash "$TOP/ci/run-tests.sh" "$@"; }

test_expect_success 'passes, failures and skips are totalled apart' '
	tap_script good "ok 1 - a" "ok 2 - b # SKIP no thing" "1..2" &&
	tap_script bad "ok 1 - a" "not ok 2 - b" "1..2" "exit 1" &&
	tap_script skipped "1..0 # SKIP needs the kernel tree" &&
	test_must_fail runner good.sh bad.sh skipped.sh >out 2>&1 &&
	test_grep "^2 passed, 1 failed, 2 skipped$" out
'

test_expect_success 'a script that dies part way is a failure' '
	tap_script died "ok 1 - a" "exit 3" &&
	test_must_fail runner died.sh >out 2>&1 &&
	test_grep "^1 passed, 1 failed, 0 skipped$" out &&
	test_grep "^not ok - died.sh: .*exit status 3" out
'

test_expect_success 'a plan that does not match is a failure' '
	tap_script short "ok 1 - a" "ok 2 - b" "1..3" &&
	test_must_fail runner short.sh >out 2>&1 &&
	test_grep "^2 passed, 1 failed, 0 skipped$" out &&
	test_grep "Bad plan" out
'

test_expect_success 'all good is a pass' '
	tap_script good "ok 1 - a" "1..1" &&
	runner good.sh >out 2>&1 &&
	test_grep "^1 passed, 0 failed, 0 skipped$" out
'

# A test script using test-lib.sh, with the given body.
lib_script() {
	printf '%s\n' ". \"$TOP/ci/test-lib.sh\"" "$@" "test_done" >"$TRASH/lib-case.sh"
}

test_expect_success 'test_when_finished runs after a failing case, and its failure fails' '
	lib_script "test_expect_success one \"test_when_finished \\\"touch $TRASH/cleaned\\\" && false\"" \
		"test_expect_success two \"test_when_finished false && true\"" &&
	test_must_fail bash lib-case.sh >out 2>&1 &&
	test -f cleaned &&
	test_grep "^not ok 1 - lib-case: one" out &&
	test_grep "^not ok 2 - lib-case: two" out &&
	test_grep "test_when_finished: .false && :. failed" out
'

test_expect_success 'a case with a missing prerequisite is a skip' '
	lib_script "test_lazy_prereq NEVER false" "test_set_prereq ALWAYS" \
		"test_expect_success NEVER one \"touch $TRASH/ran\"" \
		"test_expect_success ALWAYS two true" &&
	bash lib-case.sh >out 2>&1 &&
	test_grep "^ok 1 - lib-case: one # SKIP missing NEVER" out &&
	test_grep "^ok 2 - lib-case: two$" out &&
	test ! -f ran
'

test_expect_success 'a broken &&-chain fails the case before anything runs' '
	lib_script "test_expect_success broken \"true
touch $TRASH/after-the-break\"" &&
	test_must_fail bash lib-case.sh >out 2>&1 &&
	test_grep "^not ok 1 - lib-case: broken" out &&
	test_grep "broken &&-chain" out &&
	test ! -f after-the-break
'

test_expect_success 'a case stops at its first failing command, which is named' '
	lib_script "test_expect_success stops \"cd . &&
	{ false; touch $TRASH/not-reached; }\"" &&
	test_must_fail bash lib-case.sh >out 2>&1 &&
	test ! -f not-reached &&
	test_grep "false failed (exit 1)" out
'

# A stage-like script sourcing lib.sh.
stage_script() {
	printf '%s\n' ". \"$TOP/ci/lib.sh\"" "$@" >"$TRASH/stage.sh"
}

test_expect_success 'a failing command in a stage script is named with file and line' '
	stage_script "f() {" "	ls /nonexistent" "}" "x=\$(f)" "echo not reached" &&
	test_must_fail bash stage.sh >out 2>&1 &&
	test_grep "^stage.sh:3: ls /nonexistent failed (exit 2)$" out &&
	test_grep "^  in f, called at stage.sh:5$" out &&
	test_must_fail grep "not reached" out &&
	test "$(grep -c "failed (exit" out)" = 1
'

test_expect_success 'a failing pipeline says which of its commands failed' '
	stage_script "false | cat" &&
	test_must_fail bash stage.sh >out 2>&1 &&
	test_grep "^stage.sh:2: cat (pipeline exit statuses: 1 0) failed (exit 1)$" out
'

test_expect_success 'die reports once, however deep' '
	stage_script "f() { die \"the reason\"; }" "g() { local y; y=\$(f); }" "g" &&
	test_must_fail bash stage.sh >out 2>&1 &&
	test "$(cat out)" = "error: the reason"
'

test_expect_success 'a failing plan inside a process substitution is not missed' '
	stage_script "plan() { echo a; false; }" "read_lines lines plan" "echo \"\${#lines[@]} lines taken\"" &&
	test_must_fail bash stage.sh >out 2>&1 &&
	test_grep "^stage.sh:2: false failed" out &&
	test_must_fail grep "lines taken" out
'

test_done
