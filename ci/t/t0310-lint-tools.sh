#!/usr/bin/env bash
# t0310-lint-tools.sh - lint on a stand-in kernel: a missing or failing
# tool fails the stage (never a false "clean"), findings are redone for a
# new tool version, and a planted fault is caught by each tool
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export TARBALL=$TRASH/linux-source-6.1.tar.xz TOPICS_DIR=$TRASH/topics
lint() { bash "$TOP/ci/lint.sh"; }

# A topic directory $1 with one patch of printk_safe.c made by sed script $2.
topic_with() {
	rm -rf "topics/$1" &&
	make_topic topics "$1" &&
	make_patch "$PRINTK_TREE" "topics/$1" "$2" "printk: $1" kernel/printk/printk_safe.c &&
	git -C topics add -A && git -C topics commit -q -m "$1"
}

test_expect_success 'set up a fake kernel tree and a clean topic' '
	make_fake_kbuild "$TRASH" 90 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git init -q topics &&
	topic_with 01-clean "s/^static int printk_context;/static int printk_context; \\/* per CPU *\\//" &&
	lint >out 2>&1 &&
	test_grep "^| clean/0001-printk-01-clean.patch | clean | clean | clean |" out &&
	json=$PRINTK_CACHE/out/lint/results.json &&
	test "$(jq -r "[.tests[] | .path + \" \" + .status] | join(\",\")" "$json")" = \
		"lint.checkpatch.0 PASS,lint.sparse.0 PASS,lint.coccinelle.0 PASS" &&
	test "$(jq ".builds | length" "$json")" = 1
'

test_expect_success 'an unchanged tree is not linted again' '
	lint >out 2>&1 &&
	test_must_fail grep "lint: sparse" out &&
	test_grep "^| clean/0001-printk-01-clean.patch | clean | clean | clean |" out
'

test_expect_success 'a new sparse version lints again' '
	stand_in sparse "[ \"\$1\" != --version ] || { echo \"sparse 99\"; exit; }; exec /usr/bin/sparse \"\$@\"" &&
	lint >out 2>&1 &&
	test_grep "^lint: sparse base: started" out &&
	test_grep "^lint: sparse clean: started" out
'

test_expect_success 'without sparse on PATH lint fails up front, naming the package' '
	test_must_fail env PATH="$(path_without sparse)" bash "$TOP/ci/lint.sh" >out 2>&1 &&
	test_grep "lint: sparse not found: install the Debian package .sparse." out
'

test_expect_success 'without spatch on PATH lint fails, naming coccinelle' '
	test_must_fail env PATH="$(path_without spatch)" bash "$TOP/ci/lint.sh" >out 2>&1 &&
	test_grep "lint: spatch not found: install the Debian package .coccinelle." out
'

test_expect_success 'a sparse that does not run fails lint up front' '
	stand_in sparse "kill -SEGV \$\$" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "lint: .sparse --version. fails" out
'

test_expect_success 'a sparse that crashes on the code fails lint, naming the log' '
	stand_in sparse "[ \"\$1\" != --version ] || { echo \"sparse 98\"; exit; }; kill -SEGV \$\$" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "lint: sparse base failed (exit [0-9]*, log: .*/base.sparse.log)" out
'

test_expect_success 'a spatch that fails fails lint' '
	stand_in spatch "[ \"\$1\" != --version ] || { echo \"spatch 99\"; exit; }; echo boom >&2; exit 1" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "lint: spatch failed with" out
'

test_expect_success 'a planted sparse warning fails lint, naming it' '
	topic_with 01-clean "s/^static int printk_context;/int printk_planted;\\n&/" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "lint: clean: sparse: kernel/printk/printk_safe.c: warning: symbol .printk_planted. was not declared" out &&
	test "$(jq -r ".tests[] | select(.path == \"lint.sparse.0\") | .status" "$PRINTK_CACHE/out/lint/results.json")" = FAIL &&
	test_grep "lint: 1 of 1 patch(es) failed" out
'

test_expect_success 'a planted checkpatch error fails lint' '
	topic_with 01-clean "s/^static int printk_context;/& \\/* PLANTED_ERROR *\\//" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "checkpatch 1 error(s)" out &&
	test_grep "ERROR: planted error" out
'

test_expect_success 'a checkpatch that crashes fails lint, not a clean cell' '
	topic_with 01-clean "s/^static int printk_context;/& \\/* PLANTED_CRASH *\\//" &&
	test_must_fail lint >out 2>&1 &&
	test_grep "lint: checkpatch failed on .* (exit [0-9]*) without a finding" out
'

test_done
