# test-lib.sh - a small TAP test library in the spirit of git's t/test-lib.sh
#
# A test script sources this file, calls test_expect_success for each case
# and ends with test_done.  Each case runs in a subshell inside the script's
# scratch directory $TRASH; its output is shown only when it fails (or with
# TEST_VERBOSE=1).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEST_NAME=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/$TEST_NAME.XXXXXX")
test_count=0
test_failures=0
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH"

test_expect_success() {
	local desc=$1 body=$2 log
	test_count=$((test_count + 1))
	log=$TRASH/.log.$test_count
	if (set -euo pipefail; eval "$body") >"$log" 2>&1; then
		say "ok $test_count - $TEST_NAME: $desc"
		[ -z "${TEST_VERBOSE:-}" ] || sed 's/^/# /' "$log"
	else
		test_failures=$((test_failures + 1))
		say "not ok $test_count - $TEST_NAME: $desc"
		sed 's/^/# /' "$log"
	fi
}

test_done() {
	say "1..$test_count"
	[ "$test_failures" = 0 ]
}

# commit_file BASE FILE GIT-COMMIT-TREE-ARGS...: a commit on BASE with
# FILE's content from stdin, made with plumbing on a private index (the
# kernel tree's checkout is not touched); prints the commit.
commit_file() {
	local base=$1 file=$2 blob tree
	shift 2
	blob=$(tgit hash-object -w --stdin)
	GIT_INDEX_FILE=$TRASH/index tgit read-tree "$base"
	GIT_INDEX_FILE=$TRASH/index tgit update-index --cacheinfo "100644,$blob,$file"
	tree=$(GIT_INDEX_FILE=$TRASH/index tgit write-tree)
	tgit commit-tree "$tree" -p "$base" "$@"
}

# Assertions that say what they expected when they fail.
test_cmp() { diff -u "$1" "$2"; }

test_grep() {
	grep -q -e "$1" "$2" || { say "expected /$1/ in $2:"; cat "$2"; return 1; }
}

test_must_fail() {
	if "$@"; then
		say "expected failure: $*"
		return 1
	fi
}
