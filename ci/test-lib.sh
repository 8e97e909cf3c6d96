# shellcheck shell=bash
# test-lib.sh - a small TAP test library in the spirit of git's t/test-lib.sh
#
# A test script sources this file, calls test_expect_success for each case
# and ends with test_done.  Each case runs in a subshell inside the
# script's scratch directory $TRASH; its output is shown only when it
# fails (or with TEST_VERBOSE=1).
#
#   test_expect_success [PREREQ,...] DESC BODY
#	BODY must chain its commands with && (checked first, as git's
#	chain-lint does); a case whose prerequisite is missing is a skip.
#   test_when_finished CMD	(in a BODY) run CMD when the case ends
#   test_set_prereq NAME, test_lazy_prereq NAME SCRIPT, test_have_prereq NAME
#   skip_all REASON		(before any case) skip the whole script
#
# Every script runs with its own PRINTK_CACHE (and so its own kernel tree,
# outputs and lock) in $TRASH: the maintainer's cache is never touched.
# Scripts that need the kernel tree of 'make ci' say so with the
# prerequisite KERNEL_TREE and call use_kernel_tree, which clones it into
# $TRASH sharing its objects.
REAL_CACHE=${PRINTK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/printk-tree}
REAL_TREE=${PRINTK_TREE:-$REAL_CACHE/linux}
TEST_NAME=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/$TEST_NAME.XXXXXX")
export PRINTK_CACHE=$TRASH/cache PRINTK_TREE=$TRASH/cache/linux
# The project's mutants patch the real tree, not a test's stand-in.
export MUTANTS_DIR=$TRASH/mutants CONFIGS_DIR=$TRASH/configs
unset OUT BUILD_DIR TOPICS_DIR CCACHE_DIR BUILDS BASE BASES BASES_FILE FORCE TARBALL TARBALL_DIR PLAN \
	KCONFIG_EXTRA IMAGE_TAG LIST_PORT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

test_count=0
test_failures=0
at_exit rm -rf "$TRASH"
cd "$TRASH"

declare -A PREREQ=() LAZY_PREREQ=()
test_set_prereq() { PREREQ[$1]=1; }
test_lazy_prereq() { LAZY_PREREQ[$1]=$2; }

# test_have_prereq A,B: all of them hold.  A lazy one is evaluated once,
# in a subshell in $TRASH.
test_have_prereq() {
	local name names
	IFS=, read -r -a names <<<"$1"
	for name in "${names[@]}"; do
		if [ -z "${PREREQ[$name]+set}" ] && [ -n "${LAZY_PREREQ[$name]+set}" ]; then
			PREREQ[$name]=
			if (eval "${LAZY_PREREQ[$name]}") >/dev/null 2>&1; then
				PREREQ[$name]=1
			fi
		fi
		[ -n "${PREREQ[$name]:-}" ] || return 1
	done
}

skip_all() {
	[ "$test_count" = 0 ] || die "skip_all after $test_count test(s)"
	say "1..0 # SKIP $*"
	exit 0
}

# In a case: CMD runs when the case ends, pass or fail; a failing CMD
# fails the case.  The last registered runs first.
test_when_finished() { TEST_CLEANUP="$* && ${TEST_CLEANUP:-:}"; }

# The body of a case, in a subshell of its own with errexit in force: the
# first failing command ends it, naming itself (lib.sh's ERR trap).  Its
# cleanup runs at the subshell's exit, whatever the status.
run_body() {
	TEST_CLEANUP=
	trap finish_case EXIT
	# A body that ends with a failing && chain has said why already.
	trap 'rc=$? statuses=${PIPESTATUS[*]}
		[ "$BASH_COMMAND" != "eval \"\$1\"" ] || exit $rc
		on_err $rc "$statuses" "$LINENO" "$BASH_COMMAND"' ERR
	eval "$1"
}

finish_case() {
	local rc=$?
	trap - EXIT ERR
	if [ -n "$TEST_CLEANUP" ] && ! eval "$TEST_CLEANUP"; then
		say "test_when_finished: '$TEST_CLEANUP' failed"
		[ "$rc" != 0 ] || rc=1
	fi
	exit "$rc"
}

# A body whose first command is "(exit 117)" must end with status 117:
# anything else means a command not chained with &&, whose failure would
# go unnoticed (git's chain-lint).  A DEBUG trap ends the check at the
# first command after a break, before it runs.
chain_ok() {
	local rc=0
	(
		trap - ERR
		set +e -T
		eval "trap '[ \"\$BASH_COMMAND\" = \"exit 117\" ] || exit 118' DEBUG
(exit 117) && $1"
	) >/dev/null 2>&1 </dev/null || rc=$?
	[ "$rc" = 117 ]
}

test_expect_success() {
	local prereq= desc body log rc
	[ $# = 2 ] || { prereq=$1; shift; }
	desc=$1 body=$2
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq "$prereq"; then
		say "ok $test_count - $TEST_NAME: $desc # SKIP missing $prereq"
		return
	fi
	log=$TRASH/.log.$test_count
	if ! chain_ok "$body"; then
		test_failures=$((test_failures + 1))
		say "not ok $test_count - $TEST_NAME: $desc"
		say "# bug in the test script: broken &&-chain"
		return
	fi
	# In the background, not in a condition, so that errexit holds.
	(run_body "$body") >"$log" 2>&1 </dev/null &
	rc=0
	wait "$!" || rc=$?
	if [ "$rc" = 0 ]; then
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
	[ "$test_failures" = 0 ] || exit 1
}

# The kernel tree 'make ci' set up, with topic branches.
test_lazy_prereq KERNEL_TREE '
	is_git_tree "$REAL_TREE" &&
	git -C "$REAL_TREE" rev-parse -q --verify refs/heads/topic/zap-locks
'

# $PRINTK_TREE as a clone of the kernel tree of 'make ci' that shares its
# objects, with its branches and tags (and what regeneration last wrote,
# so that make topics runs there) and no checkout: what the test writes
# stays in $TRASH.  Not the refs of the maintainer's own mail
# (make mail, review and pull): a test mails its own revisions, and a
# tag of the maintainer's pull request would refuse the test's.
use_kernel_tree() {
	local objects
	objects=$(git -C "$REAL_TREE" rev-parse --path-format=absolute --git-common-dir)/objects
	git init -q "$PRINTK_TREE"
	say "$objects" >"$PRINTK_TREE/.git/objects/info/alternates"
	tgit fetch -q --no-tags --update-head-ok "$REAL_TREE" \
		'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*' 'refs/regen/*:refs/regen/*' \
		'^refs/heads/b4/*' '^refs/heads/applied/*' '^refs/heads/for-linus' \
		'^refs/tags/sent/*' '^refs/tags/printk-for-*'
	tgit config user.name "$(git -C "$REAL_TREE" config user.name)"
	tgit config user.email "$(git -C "$REAL_TREE" config user.email)"
}

# The number of messages the list of mail/list.sh holds.
list_count() {
	python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM msgmap").fetchone()[0])' \
		"$PRINTK_CACHE/list/inbox/msgmap.sqlite3"
}

# commit_file BASE FILE GIT-COMMIT-TREE-ARGS...: a commit on BASE with
# FILE's content from stdin, made with plumbing on a private index (the
# kernel tree's checkout is not touched); prints the commit.
commit_file() {
	local base=$1 file=$2 blob tree
	shift 2
	blob=$(tgit hash-object -w --stdin)
	GIT_INDEX_FILE=$TRASH/index tgit read-tree "$base"
	GIT_INDEX_FILE=$TRASH/index tgit update-index --add --cacheinfo "100644,$blob,$file"
	tree=$(GIT_INDEX_FILE=$TRASH/index tgit write-tree)
	tgit commit-tree "$tree" -p "$base" "$@"
}

# stand_in NAME SCRIPT: a stand-in command, first on PATH for the rest of
# the case (each case has a directory of its own).
stand_in() {
	local bin=$TRASH/bin.$test_count
	mkdir -p "$bin"
	printf '#!/bin/bash\n%s\n' "$2" >"$bin/$1"
	chmod +x "$bin/$1"
	case ":$PATH:" in *":$bin:"*) ;; *) PATH=$bin:$PATH ;; esac
}

# A PATH of the directories of $PATH with commands $@ left out: links to
# everything else in $TRASH/path-without.
path_without() {
	local dir=$TRASH/path-without d f dirs
	rm -rf "$dir" && mkdir -p "$dir"
	IFS=: read -r -a dirs <<<"$PATH"
	for d in "${dirs[@]}"; do
		for f in "$d"/*; do
			[ -x "$f" ] && [ ! -e "$dir/${f##*/}" ] || continue
			ln -s "$f" "$dir/${f##*/}"
		done
	done
	for f in "$@"; do
		rm -f "$dir/$f"
	done
	say "$dir"
}

# Run $@ as Ctrl-C would reach it: cases run in the background, where
# bash ignores SIGINT (and so would every command they start); perl
# restores it.  Send it to the process group (set -m gives one).
ctrl_c_able() { perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "$ARGV[0]: $!"' -- "$@"; }

# wait_for SECONDS CMD...: until CMD succeeds, for at most SECONDS.
wait_for() {
	local tries=$(($1 * 10))
	shift
	until "$@"; do
		[ $((tries -= 1)) -gt 0 ] || { say "waited in vain for: $*"; return 1; }
		sleep 0.1
	done
}

# A function that may die (exit), in a subshell, for test_must_fail.
in_subshell() { ("$@"); }

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
