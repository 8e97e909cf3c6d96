#!/usr/bin/env bash
# t0500-maintainers.sh - the MAINTAINERS topic carries MAINTAINERS.fragment
# and get_maintainer.pl names the printk maintainers for every series patch
. "$(dirname "$0")/../test-lib.sh"

test_have_prereq KERNEL_TREE || skip_all "needs the kernel tree of make ci (run after make ci)"
use_kernel_tree

test_expect_success 'the PRINTK entry of topic/maintainers holds the fragment' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	awk "/^PRINTK\$/ { p = 1 } p && /^\$/ { exit } p" MAINTAINERS >entry &&
	test -s entry &&
	while IFS= read -r line; do
		grep -qxF "$line" entry || { say "missing: $line"; exit 1; }
	done <"$TOP/MAINTAINERS.fragment"
'

test_expect_success 'get_maintainer.pl names the printk maintainers for every series patch' '
	tgit show topic/maintainers:MAINTAINERS >MAINTAINERS &&
	for patch in "$TOP"/topics/0[1-6]-*/*.patch; do
		(cd "$REAL_TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats --mpath "$TRASH/MAINTAINERS" "$patch") >who &&
		test_grep "^Petr Mladek <pmladek@suse.com>$" who &&
		test_grep "^Sergey Senozhatsky <sergey.senozhatsky@gmail.com>$" who &&
		test_grep "^Steven Rostedt <rostedt@goodmis.org>$" who || exit 1
	done
'

test_expect_success 'without the topic the base names another address' '
	tgit show "$(base_ref):MAINTAINERS" >"$TRASH/base-MAINTAINERS" &&
	(cd "$REAL_TREE" &&
	 perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		--mpath "$TRASH/base-MAINTAINERS" "$TOP"/topics/01-*/*.patch) >who &&
	test_must_fail grep -q "sergey.senozhatsky@gmail.com" who
'

test_done
