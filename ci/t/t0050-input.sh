#!/usr/bin/env bash
# t0050-input.sh - bad or unusual input gets one clear error, or works:
# topics without topic.conf, duplicate names, unknown dependencies,
# patches that are not mails; paths with spaces; a worktree as the tree
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export TARBALL=$TRASH/linux-source-6.1.tar.xz TOPICS_DIR=$TRASH/topics
regen() { bash "$TOP/topics/regen.sh"; }

test_expect_success 'set up a base and two topics' '
	make_fake_tarball "$TRASH" 90 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git init -q topics &&
	make_topic topics 01-first &&
	make_patch "$PRINTK_TREE" topics/01-first "s/^line 10;/line 10 first;/" "printk: first" &&
	make_topic topics 02-second first &&
	make_patch "$PRINTK_TREE" topics/02-second "s/^line 30;/line 30 second;/" "printk: second" &&
	git -C topics add . && git -C topics commit -q -m topics &&
	regen >/dev/null
'

test_expect_success 'a topic directory without topic.conf is named' '
	mkdir topics/03-stray && test_when_finished "rm -rf topics/03-stray" &&
	test_must_fail regen 2>err &&
	test_grep "^error: $TOPICS_DIR/03-stray: no topic.conf" err
'

test_expect_success 'a topic name used twice is named, with both directories' '
	cp -r topics/01-first topics/03-again && test_when_finished "rm -rf topics/03-again" &&
	test_must_fail regen 2>err &&
	test_grep "^error: $TOPICS_DIR/03-again/topic.conf: topic_name .first. is taken by $TOPICS_DIR/01-first" err
'

test_expect_success 'a dependency on no earlier topic is named' '
	make_topic topics 03-orphan nothere && test_when_finished "rm -rf topics/03-orphan" &&
	test_must_fail regen 2>err &&
	test_grep "^error: $TOPICS_DIR/03-orphan/topic.conf: topic_depends .nothere. is not an earlier topic" err
'

test_expect_success 'a patch that is not a mail is named, with its topic' '
	make_topic topics 03-plain && test_when_finished "rm -rf topics/03-plain" &&
	git -C "$PRINTK_TREE" diff distro topic/first >topics/03-plain/0001-plain.patch &&
	test_must_fail regen 2>err &&
	test_grep "^error: topic plain: $TOPICS_DIR/03-plain/0001-plain.patch is not a mail" err
'

test_expect_success 'load_topic forgets the fields of the topic read before' '
	printf "%s\n" topic_name=a topic_fixes=x "topic_in_base=\"y\"" >a.conf &&
	mkdir -p ta tb && mv a.conf ta/topic.conf &&
	say topic_name=b >tb/topic.conf &&
	load_topic ta && test "$topic_fixes" = x &&
	load_topic tb && test -z "$topic_fixes$topic_in_base$topic_depends"
'

test_expect_success 'TMPDIR and the cache with spaces in their paths work' '
	mkdir -p "$TRASH/tmp dir" &&
	cp -r topics "$TRASH/topics dir" &&
	TMPDIR="$TRASH/tmp dir" PRINTK_CACHE="$TRASH/cache dir" PRINTK_TREE="$TRASH/cache dir/linux" \
		TOPICS_DIR="$TRASH/topics dir" bash -c "
			bash \"$TOP/tree-setup/setup.sh\" &&
			bash \"$TOP/topics/regen.sh\"" >out 2>&1 &&
	test_grep "topics: 2 topics on distro/6.1.90" out &&
	git -C "$TRASH/cache dir/linux" show topic/second:kernel/printk/printk.c >printk.c &&
	test_grep "^line 30 second;" printk.c &&
	test -z "$(ls -A "$TRASH/tmp dir")"
'

test_expect_success 'a git worktree works as the kernel tree' '
	git -C "$PRINTK_TREE" worktree add -q --detach "$TRASH/wt" distro &&
	PRINTK_TREE=$TRASH/wt regen >out 2>&1 &&
	test_grep "topics: 2 topics on distro/6.1.90" out
'

test_done
