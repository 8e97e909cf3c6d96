#!/usr/bin/env bash
# t0210-bases.sh - the topics on a second distro base (tree-setup/bases)
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export PRINTK_CACHE=$TRASH/cache PRINTK_TREE=$TRASH/linux TARBALL_DIR=$TRASH/tarballs
export TOPICS_DIR=$TRASH/topics
regen() { bash "$TOP/topics/regen.sh"; }
refs() { git -C linux for-each-ref refs/heads refs/regen; }

# base_6_12 SUBLEVEL SED: the 6.12 tarball, its printk.c edited by SED
# (where 6.12's code differs from 6.1's).
base_6_12() {
	make_fake_tarball tarballs "$1" 12 &&
	sed -i "$2" "tarballs/src.6.12.$1/linux-source-6.12/kernel/printk/printk.c" &&
	tar -cJf tarballs/linux-source-6.12.tar.xz -C "tarballs/src.6.12.$1" linux-source-6.12
}

test_expect_success 'set up the 6.1 base and three topics' '
	mkdir tarballs &&
	make_fake_tarball tarballs 90 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git init -q topics &&
	make_topic topics 01-first &&
	make_patch linux topics/01-first "s/^line 10;/line 10 first;/" "printk: first" &&
	make_topic topics 02-second first &&
	make_patch linux topics/02-second "s/^line 30;/line 30 second;/" "printk: second" &&
	make_topic topics 03-other &&
	make_patch linux topics/03-other "s/^line 55;/line 55 other;/" "printk: other" &&
	git -C topics add . && git -C topics commit -q -m topics &&
	regen >/dev/null
'

test_expect_success 'a base that is not imported is named, with its package' '
	test_must_fail env BASE=6.12 bash "$TOP/topics/regen.sh" 2>err &&
	test_grep "no distro/6.12.\* base tag in .* (it has distro/6.1.90): install linux-source-6.12" err &&
	test_must_fail env BASE=6.14 bash "$TOP/topics/regen.sh" 2>err &&
	test_grep "BASE=6.14: 6.14 is not a base the tree follows (tree-setup/bases: 6.1 6.12)" err
'

# 6.12 moved line 10 (topic first conflicts) and has topic other's change
# in its own words.
test_expect_success 'a second base leaves the default one and its branches alone' '
	base_6_12 7 "s/^line 10;/line 10 moved;/; s/^line 55;/line 55 upstream;/" &&
	refs >before &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git -C linux rev-parse -q --verify "distro/6.12.7^{commit}" &&
	regen >out 2>&1 &&
	test_grep "regenerating onto distro/6.1.90" out &&
	refs >after && grep -v refs/heads/distro-6.12 after >after.default &&
	test_cmp before after.default
'

test_expect_success 'conflicts on the second base are all reported and change nothing' '
	refs >before &&
	test_must_fail env BASE=6.12 bash "$TOP/topics/regen.sh" >out 2>&1 &&
	test_grep "topic first: 0001-printk-first.patch does not apply" out &&
	test_grep "kernel/printk/printk.c: hunk #1 (@@ -7,7 +7,7 @@" out &&
	test_grep "second: not applied: it depends on first, which does not apply" out &&
	test_grep "topic other: 0001-printk-other.patch does not apply" out &&
	test_grep "3 topic(s) do not apply on distro/6.12.7: first second other; nothing was changed" out &&
	refs >after && test_cmp before after
'

test_expect_success 'a variant, a topic already in base and a plain topic on 6.12' '
	git -C linux checkout -q distro/6.12.7 &&
	mkdir topics/01-first/6.12 &&
	make_patch linux topics/01-first/6.12 "s/^line 10 moved;/line 10 first;/" "printk: first" &&
	git -C linux checkout -q distro &&
	test_must_fail regen 2>err &&
	test_grep "01-first/topic.conf: variant 6.12/ without topic_on_base\[6.12\]" err &&
	echo "topic_on_base[6.12]=\"6.12 moved line 10\"" >>topics/01-first/topic.conf &&
	cat >>topics/03-other/topic.conf <<-\EOF &&
	topic_superseded[6.12]="kernel/printk/printk.c: line 55 upstream;"
	topic_superseded_why[6.12]="6.12 says it itself"
	EOF
	git -C topics add . && git -C topics commit -q -m "topics on 6.12" &&
	refs >before &&
	BASE=6.12 regen >out 2>&1 &&
	test_grep "first: 1 applied as the 6.12 variant" out &&
	test_grep "second: 1 applied, 0 already in base" out &&
	test_grep "other: already in base: 6.12 says it itself (kernel/printk/printk.c:55: line 55 upstream;)" out &&
	test_grep "for-next-6.12 at" out &&
	test "$(git -C linux rev-parse topic/other-6.12)" = "$(git -C linux rev-parse "distro/6.12.7^{commit}")" &&
	test "$(git -C linux rev-parse topic/second-6.12~1)" = "$(git -C linux rev-parse topic/first-6.12)" &&
	git -C linux show for-next-6.12:kernel/printk/printk.c >merged &&
	test_grep "^line 10 first;" merged && test_grep "^line 30 second;" merged &&
	git -C linux log --merges --format=%s for-next-6.12 >merges &&
	test_grep "Merge branch .topic/second-6.12. into for-next-6.12" merges &&
	refs >after &&
	grep -v "topic/.*-6.12\|for-next-6.12" after >after.default && test_cmp before after.default
'

test_expect_success 'the default base does not use the variants' '
	regen >out 2>&1 &&
	test_grep "first: 1 applied, 0 already in base" out &&
	test_grep "other: 1 applied, 0 already in base" out
'

test_expect_success 'code named as superseding a topic must be in the base' '
	sed -i "s/line 55 upstream;/line 55 elsewhere;/" topics/03-other/topic.conf &&
	test_when_finished "git -C topics checkout -q -- 03-other/topic.conf" &&
	refs >before &&
	test_must_fail env BASE=6.12 bash "$TOP/topics/regen.sh" >out 2>&1 &&
	test_grep "topic other: topic_superseded\[6.12\] says kernel/printk/printk.c has .line 55 elsewhere;., which distro/6.12.7 does not" out &&
	refs >after && test_cmp before after
'

test_expect_success 'a variant or superseded entry for a base the tree does not follow is refused' '
	mkdir topics/01-first/6.7 &&
	cp topics/01-first/6.12/*.patch topics/01-first/6.7/ &&
	test_must_fail regen 2>err &&
	test_grep "topic first: variant .*/01-first/6.7: 6.7 is not a base the tree follows" err &&
	rm -r topics/01-first/6.7 &&
	echo "topic_superseded[6.7]=\"kernel/printk/printk.c: line 1;\"" >>topics/02-second/topic.conf &&
	test_when_finished "git -C topics checkout -q -- 02-second/topic.conf" &&
	test_must_fail regen 2>err &&
	test_grep "02-second/topic.conf: topic_superseded\[6.7\]: 6.7 is not a base the tree follows" err
'

test_expect_success 'commits on a topic branch of 6.12 are exported as its 6.12 variant' '
	git -C linux checkout -q topic/second-6.12 &&
	sed -i "s/^line 45;/line 45 fixup;/" linux/kernel/printk/printk.c &&
	git -C linux commit -q -a -m "printk: second, fixed on 6.12" &&
	BASE=6.12 bash "$TOP/topics/export.sh" >out 2>&1 &&
	test_grep "export: topic/second-6.12 -> 02-second/6.12 (2 patches)" out &&
	ls topics/02-second/6.12 >variant &&
	test_grep "^0002-printk-second-fixed-on-6.12.patch$" variant &&
	ls topics/02-second/*.patch >default && test "$(wc -l <default)" = 1 &&
	echo "topic_on_base[6.12]=\"6.12 needs a fixup\"" >>topics/02-second/topic.conf &&
	git -C topics add . && git -C topics commit -q -m "second on 6.12" &&
	tip=$(git -C linux rev-parse topic/second-6.12) &&
	git -C linux checkout -q distro &&
	BASE=6.12 regen >out 2>&1 &&
	test_grep "second: 2 applied as the 6.12 variant" out &&
	test "$(git -C linux rev-parse "topic/second-6.12^{tree}")" = "$(git -C linux rev-parse "$tip^{tree}")"
'

test_expect_success 'a topic 6.12 has already cannot take commits' '
	git -C linux checkout -q topic/other-6.12 &&
	test_when_finished "git -C linux checkout -q distro" &&
	git -C linux commit -q --allow-empty -m "printk: other, on 6.12" &&
	test_must_fail env BASE=6.12 bash "$TOP/topics/export.sh" 2>err &&
	test_grep "topic/other-6.12 has commits, but .*03-other/topic.conf says 6.12 has the topic already" err &&
	git -C linux reset -q --hard HEAD^
'

test_done
