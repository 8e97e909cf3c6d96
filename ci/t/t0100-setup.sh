#!/usr/bin/env bash
# t0100-setup.sh - tree-setup imports the distro tarball idempotently
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export PRINTK_CACHE=$TRASH/cache PRINTK_TREE=$TRASH/linux TARBALL=$TRASH/linux-source-6.1.tar.xz
setup() { bash "$TOP/tree-setup/setup.sh"; }

test_expect_success 'first import commits the whole tarball and tags it' '
	make_fake_tarball "$TRASH" 90 &&
	setup >out &&
	test_grep "imported .* as distro/6.1.90" out &&
	git -C linux ls-files >files &&
	test_grep "^kernel/printk/printk.c$" files &&
	test_grep "^Makefile$" files &&
	test "$(git -C linux rev-parse distro)" = "$(git -C linux rev-parse "distro/6.1.90^{commit}")" &&
	test -z "$(git -C linux status --porcelain)"
'

test_expect_success 'importing the same tarball again is a no-op' '
	git -C linux for-each-ref >refs.before &&
	setup >out &&
	test_grep "already imported as distro/6.1.90" out &&
	git -C linux for-each-ref >refs.after &&
	test_cmp refs.before refs.after
'

test_expect_success 'the same source gives the same base commit on another machine' '
	PRINTK_TREE=$TRASH/linux2 setup >out &&
	test "$(git -C linux2 rev-parse distro)" = "$(git -C linux rev-parse distro)"
'

test_expect_success 'a new distro version adds a tag, leaves the old one and the checkout' '
	old=$(git -C linux rev-parse "distro/6.1.90^{commit}") &&
	make_fake_tarball "$TRASH" 91 &&
	setup >out &&
	test_grep "as distro/6.1.91" out &&
	test "$(git -C linux rev-parse "distro/6.1.90^{commit}")" = "$old" &&
	test "$(git -C linux rev-parse "distro/6.1.91^{commit}^")" = "$old" &&
	git -C linux show distro/6.1.91:kernel/printk/version.c >v &&
	test_grep "sublevel 91" v &&
	test_grep "sublevel 90" linux/kernel/printk/version.c
'

test_expect_success 'a missing tarball names the package to install' '
	test_must_fail env TARBALL=$TRASH/nope.tar.xz bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "install the Debian package .linux-source." err
'

test_expect_success 'a non-git directory in the way is refused, not overwritten' '
	mkdir -p other && echo mine >other/file &&
	test_must_fail env PRINTK_TREE=$TRASH/other bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "exists and is not a git tree" err &&
	test_grep mine other/file
'

test_done
