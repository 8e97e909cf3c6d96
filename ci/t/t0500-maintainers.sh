#!/usr/bin/env bash
# t0500-maintainers.sh - the PRINTK entry of topic/maintainers is
# MAINTAINERS.fragment, it names every person at one address, and
# get_maintainer.pl names the printk maintainers for every series patch
. "$(dirname "$0")/../test-lib.sh"

test_have_prereq KERNEL_TREE || skip_all "needs the kernel tree of make ci (run after make ci)"
use_kernel_tree

# The PRINTK entry of MAINTAINERS file $1.
printk_entry() { awk '/^PRINTK$/ { p = 1 } p && /^$/ { exit } p' "$1"; }

# Names in MAINTAINERS file $1 that appear with more than one address.
two_addresses() {
	sed -n 's/^[MR]:\t\(.*\) <\(.*\)>$/\1\t\2/p' "$1" | sort -u |
		awk -F '\t' 'seen[$1]++ { print $1 }'
}

test_expect_success 'the PRINTK entry of topic/maintainers is the fragment' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	printk_entry MAINTAINERS >entry &&
	test_cmp "$TOP/MAINTAINERS.fragment" entry
'

test_expect_success 'the fragment names each of its people at one address' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	sed -n "s/^[MR]:\t\(.*\) <.*>$/\1/p" "$TOP/MAINTAINERS.fragment" >people &&
	test -s people &&
	two_addresses MAINTAINERS >twice &&
	test_must_fail grep -Fxf people twice
'

test_expect_success 'the check sees a person at two addresses' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	sed "s/<senozhatsky@chromium.org>/<sergey.senozhatsky@gmail.com>/" \
		"$TOP/MAINTAINERS.fragment" >>MAINTAINERS &&
	two_addresses MAINTAINERS >twice &&
	test_grep "^Sergey Senozhatsky$" twice
'

test_expect_success 'get_maintainer.pl names the printk maintainers for every series patch' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	for patch in "$TOP"/topics/0[1-6]-*/*.patch; do
		(cd "$REAL_TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats --mpath "$TRASH/MAINTAINERS" "$patch") >who &&
		while IFS= read -r line; do
			case $line in
			[MR]:*) grep -qxF "${line#?:?}" who ||
				{ say "$patch: ${line#?:?} not named"; exit 1; } ;;
			esac
		done <"$TOP/MAINTAINERS.fragment" || exit 1
	done
'

test_done
