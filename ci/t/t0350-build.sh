#!/usr/bin/env bash
# t0350-build.sh - the build stage builds a tree once: the same tree and
# config come from its cache, a new tree is built, and the same sources
# give the same image (which lets the boot stage's cache share results)
. "$(dirname "$0")/../test-lib.sh"

export OUT=$TRASH/stage
WT=$PRINTK_CACHE/worktrees/build

if ! head=$(git -C "$WT" rev-parse -q --verify HEAD 2>/dev/null); then
	say "ok 1 - $TEST_NAME # SKIP no build worktree (make build)"
	test_done
	exit
fi

# build NAME COMMIT: ci/build.sh of that one commit.
build() { PLAN="$1 $2" bash "$TOP/ci/build.sh"; }

# The images and refs of the test's builds go when it ends.
cleanup() {
	rm -rf "$TRASH" "$IMAGES"/t0350-*
	tgit for-each-ref --format='%(refname)' 'refs/build/t0350-*' |
		xargs -r -n 1 git -C "$PRINTK_TREE" update-ref -d
}
trap cleanup EXIT

# The last tree built in the worktree, with a new line in a document that
# no build reads: a tree no run has built before.
doc_commit() {
	{ tgit show "$head:README" && say "$TRASH"; } |
		commit_file "$head" README -m "t0350: a document changed"
}

test_expect_success 'the tree built last is up to date' '
	build t0350-head "$head" >out &&
	test_grep "^build: t0350-head: up to date" out
'

test_expect_success 'a new tree is built, to the same image if no source changed' '
	commit=$(doc_commit) &&
	build t0350-doc "$commit" >out &&
	test_grep "^build: t0350-doc: built" out &&
	cmp "$IMAGES/t0350-head.bzImage" "$IMAGES/t0350-doc.bzImage" &&
	build t0350-doc "$commit" >out &&
	test_grep "^build: t0350-doc: up to date" out
'

test_done
