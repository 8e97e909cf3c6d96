#!/usr/bin/env bash
# t0300-lint.sh - the lint stage, with the real tools on the kernel tree of
# make ci (so it runs after make ci): it fails on a planted checkpatch
# error or check and a planted sparse warning, and passes a clean patch
. "$(dirname "$0")/../test-lib.sh"

test_have_prereq KERNEL_TREE || skip_all "needs the kernel tree of make ci (run after make ci)"
use_kernel_tree
# The tree-wide pr_cont count of the base takes minutes: read it from make
# ci's lint cache.
mkdir -p "$PRINTK_CACHE/out/lint/by-key"
cp "$REAL_CACHE"/out/lint/by-key/*.candidates "$PRINTK_CACHE/out/lint/by-key/" 2>/dev/null || :

# kernel_patch DIR SUBJECT SED-SCRIPT: a patch of kernel/printk/printk_safe.c
# against the base (commit_file).
kernel_patch() {
	local dir=$TRASH/$1 subject=$2 script=$3 file=kernel/printk/printk_safe.c
	local base commit
	base=$(tgit rev-parse "$(base_ref)^{commit}")
	commit=$(tgit show "$base:$file" | sed "$script" | commit_file "$base" "$file" \
		-m "$subject" -m "A planted fault for the lint test." \
		-m "Signed-off-by: $(tgit config user.name) <$(tgit config user.email)>")
	mkdir -p "$dir"
	printf 'topic_name=%s\ntopic_depends=\n' "$(basename "$dir" | cut -d- -f2-)" >"$dir/topic.conf"
	tgit format-patch -q --zero-commit --no-signature -o "$dir" -1 "$commit"
}

lint() { TOPICS_DIR=$TRASH/$1 bash "$TOP/ci/lint.sh"; }

test_expect_success 'a clean patch passes lint' '
	kernel_patch clean/01-clean "printk: add a blank comment" \
		"s|^static DEFINE_PER_CPU(int, printk_context);|/* The printk context of each CPU. */\n&|" &&
	lint clean >out 2>&1 &&
	test_grep "clean/0001-printk-add-a-blank-comment.patch | clean | clean |" out
'

test_expect_success 'a planted checkpatch error fails lint, naming the patch' '
	kernel_patch error/01-error "printk: planted checkpatch error" \
		"s|^static DEFINE_PER_CPU(int, printk_context);|&   |" &&
	test_must_fail lint error >out 2>&1 &&
	test_grep "error: 0001-printk-planted-checkpatch-error.patch: checkpatch 1 error(s)" out &&
	test_grep "ERROR: trailing whitespace" out &&
	test_grep "lint: 1 of 1 patch(es) failed" out
'

test_expect_success 'from the cache, the same patch elsewhere fails the same way' '
	cp -r error moved &&
	test_must_fail lint moved >out 2>&1 &&
	test_grep "error: 0001-printk-planted-checkpatch-error.patch: checkpatch 1 error(s)" out &&
	test_grep "^$TRASH/moved/01-error/0001-printk-planted-checkpatch-error.patch:[0-9]*: ERROR: trailing whitespace" \
		"$PRINTK_CACHE/out/lint/0001-printk-planted-checkpatch-error.patch.checkpatch"
'

test_expect_success 'a planted checkpatch check (not an error) fails lint too' '
	kernel_patch check/01-check "printk: space out printk_context" \
		"s|^static DEFINE_PER_CPU(int, printk_context);|&\n|" &&
	test_must_fail lint check >out 2>&1 &&
	test_grep "0001-printk-space-out-printk_context.patch: checkpatch 1 warning(s)" out &&
	test_grep "CHECK: Please don.t use multiple blank lines" out &&
	test_grep "lint: 1 of 1 patch(es) failed" out
'

test_expect_success 'a planted sparse warning fails lint, naming the warning' '
	kernel_patch sparse/01-sparse "printk: add a global without a declaration" \
		"s|^static DEFINE_PER_CPU(int, printk_context);|&\n\nint printk_planted;|" &&
	test_must_fail lint sparse >out 2>&1 &&
	test_grep "sparse: kernel/printk/printk_safe.c: warning: symbol .printk_planted. was not declared" out &&
	test_grep "0001-printk-add-a-global-without-a-declaration.patch | clean | 1 new warning(s) |" out
'

test_done
