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

test_expect_success 'a new distro version adds a tag; the checkout on distro moves along' '
	old=$(git -C linux rev-parse "distro/6.1.90^{commit}") &&
	make_fake_tarball "$TRASH" 91 &&
	setup >out &&
	test_grep "as distro/6.1.91" out &&
	test "$(git -C linux rev-parse "distro/6.1.90^{commit}")" = "$old" &&
	test "$(git -C linux rev-parse "distro/6.1.91^{commit}^")" = "$old" &&
	git -C linux show distro/6.1.91:kernel/printk/version.c >v &&
	test_grep "sublevel 91" v &&
	test_grep "sublevel 91" linux/kernel/printk/version.c &&
	test -z "$(git -C linux status --porcelain)"
'

test_expect_success 'every base is imported on its own branch; the checkout stays on distro' '
	mkdir -p usr-src &&
	cp linux-source-6.1.tar.xz usr-src/ &&
	make_fake_tarball "$TRASH/usr-src" 5 12 &&
	git -C linux for-each-ref refs/heads/distro refs/tags/distro/6.1.91 >refs.before &&
	env -u TARBALL TARBALL_DIR=$TRASH/usr-src bash "$TOP/tree-setup/setup.sh" >out &&
	test_grep "already imported as distro/6.1.91" out &&
	test_grep "imported .*/linux-source-6.12.tar.xz as distro/6.12.5" out &&
	git -C linux for-each-ref refs/heads/distro refs/tags/distro/6.1.91 >refs.after &&
	test_cmp refs.before refs.after &&
	test "$(git -C linux rev-parse distro-6.12)" = "$(git -C linux rev-parse "distro/6.12.5^{commit}")" &&
	test "$(git -C linux rev-list --count distro-6.12)" = 1 &&
	test "$(git -C linux symbolic-ref HEAD)" = refs/heads/distro &&
	test -z "$(git -C linux status --porcelain)"
'

test_expect_success 'a tarball of a series tree-setup/bases does not list is named' '
	make_fake_tarball "$TRASH/usr-src" 1 14 &&
	env -u TARBALL TARBALL_DIR=$TRASH/usr-src bash "$TOP/tree-setup/setup.sh" >out &&
	test_grep "not importing .*/linux-source-6.14.tar.xz: its series is not in tree-setup/bases" out &&
	test_must_fail env TARBALL=$TRASH/usr-src/linux-source-6.14.tar.xz bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "linux-source-6.14.tar.xz (6.14.1): 6.14 is not a base the tree follows (tree-setup/bases: 6.1 6.12)" err &&
	test -z "$(git -C linux tag -l "distro/6.14*")"
'

test_expect_success 'a tarball that is not there is named' '
	test_must_fail env TARBALL=$TRASH/nope.tar.xz bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "no kernel source tarball $TRASH/nope.tar.xz" err
'

test_expect_success 'without a git identity, setup names the missing key and invents none' '
	make_fake_tarball "$TRASH" 92 &&
	test_must_fail env HOME=$TRASH/nohome GIT_CONFIG_NOSYSTEM=1 \
		PRINTK_TREE=$TRASH/linux3 bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "git config user.name is not set" err &&
	test ! -e linux3
'

# A machine without the kernel source: a tmpfs over /usr/src in a mount
# namespace of its own, and a stand-in apt-get that installs nothing.
test_lazy_prereq UNSHARE 'unshare -m true'

without_source() {
	unshare -m bash -c 'mount -t tmpfs none /usr/src && exec "$@"' - "$@"
}

test_expect_success UNSHARE 'without the tarball, make deps asks apt-get for linux-source' '
	stand_in apt-get "echo \"\$*\" >>\"$TRASH/apt-get.log\"" &&
	stand_in dpkg-query "case \"\$*\" in *linux-source*) exec /usr/bin/dpkg-query \"\$@\" ;; *) echo \"install ok installed\" ;; esac" &&
	unset TARBALL &&
	test_must_fail without_source make -C "$TOP" deps >out 2>&1 &&
	# linux-source, or the package of the tarball where dpkg has it
	test_grep "^deps: installing linux-source\(-[0-9.]*\)\?$" out &&
	test_grep "install -y -qq --reinstall linux-source" apt-get.log &&
	test_grep "packages still missing after .apt-get install.: linux-source" out
'

test_expect_success UNSHARE 'make deps asks for the other missing packages too' '
	stand_in apt-get "echo \"\$*\" >>\"$TRASH/apt-get.log\"" &&
	stand_in dpkg-query "case \"\$*\" in *linux-source*|*sparse*|*b4*) exit 1 ;; *) echo \"install ok installed\" ;; esac" &&
	unset TARBALL &&
	test_must_fail without_source make -C "$TOP" deps >out 2>&1 &&
	test_grep "^deps: installing linux-source sparse b4$" out &&
	test_grep "install -y -qq --reinstall linux-source sparse b4$" apt-get.log
'

test_expect_success UNSHARE 'make deps BASES="6.1 6.12" asks for both kernel sources' '
	stand_in apt-get "echo \"\$*\" >>\"$TRASH/apt-get.log\"" &&
	stand_in dpkg-query "case \"\$*\" in *linux-source*) exit 1 ;; *) echo \"install ok installed\" ;; esac" &&
	test_must_fail without_source make -C "$TOP" deps BASES="6.1 6.12" >out 2>&1 &&
	test_grep "^deps: installing linux-source linux-source-6.12$" out &&
	test_must_fail without_source make -C "$TOP" deps BASES="6.1 6.14" >out 2>&1 &&
	test_grep "BASES: 6.14 is not a base the tree follows (tree-setup/bases: 6.1 6.12)" out
'

test_expect_success UNSHARE 'without the tarball, setup names the package and the command' '
	unset TARBALL &&
	PRINTK_TREE=$TRASH/fresh &&
	test_must_fail without_source bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "install the Debian package .linux-source. with .make deps." err &&
	test_grep "apt-get install linux-source" err &&
	test ! -e fresh
'

test_expect_success 'Ctrl-C in the first import leaves no tree and no scratch behind' '
	stand_in tar "echo \$\$ >\"$TRASH/tar.pid\"; exec sleep 600" &&
	PRINTK_TREE=$TRASH/interrupted &&
	set -m &&
	{ ctrl_c_able bash "$TOP/tree-setup/setup.sh" >out 2>&1 & } &&
	pid=$! &&
	wait_for 30 test -s tar.pid &&
	kill -INT -- "-$pid" &&
	test_must_fail wait "$pid" &&
	test ! -e interrupted &&
	test -z "$(ls -A | grep "^\.interrupted\.import")"
'

test_expect_success 'a non-git directory in the way is refused, not overwritten' '
	mkdir -p other && echo mine >other/file &&
	test_must_fail env PRINTK_TREE=$TRASH/other bash "$TOP/tree-setup/setup.sh" 2>err &&
	test_grep "exists and is not a git tree" err &&
	test_grep mine other/file
'

test_done
