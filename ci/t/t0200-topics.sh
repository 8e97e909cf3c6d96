#!/usr/bin/env bash
# t0200-topics.sh - topic regeneration is safe and round-trips local work
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export PRINTK_CACHE=$TRASH/cache PRINTK_TREE=$TRASH/linux TARBALL=$TRASH/linux-source-6.1.tar.xz
export TOPICS_DIR=$TRASH/topics
regen() { bash "$TOP/topics/regen.sh"; }
refs() { git -C linux for-each-ref refs/heads refs/regen; }

# The topics directory is a git repository of its own, as in the project.
test_expect_success 'set up a base and three topics' '
	make_fake_tarball "$TRASH" 90 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git init -q topics &&
	make_topic topics 01-first &&
	make_patch linux topics/01-first "s/^line 10;/line 10 first;/" "printk: first" &&
	make_topic topics 02-second first &&
	make_patch linux topics/02-second "s/^line 30;/line 30 second;/" "printk: second" &&
	make_patch linux topics/02-second "s/^line 40;/line 40 second;/" "printk: second again" &&
	make_topic topics 03-other &&
	make_patch linux topics/03-other "s/^line 55;/line 55 other;/" "printk: other" &&
	git -C topics add . && git -C topics commit -q -m topics
'

test_expect_success 'regeneration stacks the topics and merges them into for-next' '
	regen >out 2>&1 &&
	test_grep "first: 1 applied" out &&
	test_grep "second: 2 applied" out &&
	test "$(git -C linux rev-parse topic/second~2)" = "$(git -C linux rev-parse topic/first)" &&
	test "$(git -C linux rev-parse topic/other~1)" = "$(git -C linux rev-parse "distro/6.1.90^{commit}")" &&
	git -C linux show for-next:kernel/printk/printk.c >merged &&
	test_grep "line 10 first;" merged && test_grep "line 40 second;" merged &&
	test_grep "line 55 other;" merged &&
	git -C linux log --merges --format=%s for-next >merges &&
	test_grep "Merge branch .topic/other. into for-next" merges
'

test_expect_success 'regenerating unchanged topics gives the same commits' '
	refs >before && regen >/dev/null && refs >after && test_cmp before after
'

test_expect_success 'a patch applied from the list is taken, trailers and all; another is not' '
	first=$(git -C linux rev-parse topic/first) &&
	other=$(git -C linux rev-parse topic/other) &&
	# as b4 shazam leaves them: the same patch with a trailer, one whose
	# patch is not the topic'"'"'s, one whose message is not
	git -C linux log -1 --format=%B "$first" >msg &&
	echo "Reviewed-by: Rita Reviewer <rita.reviewer@printk-list.test>" >>msg &&
	listed=$(git -C linux commit-tree "$first^{tree}" -p "$first^" -F "$TRASH/msg") &&
	stale=$(git -C linux commit-tree "topic/second^{tree}" -p "$other^" -m "printk: other, as it was") &&
	reworded=$(git -C linux commit-tree "$other^{tree}" -p "$other^" -m "printk: other, reworded") &&
	git -C linux branch applied/demo-v1 "$listed" &&
	git -C linux branch applied/demo-v2 "$stale" &&
	git -C linux branch applied/demo-v3 "$reworded" &&
	test_when_finished "git -C linux branch -D applied/demo-v1 applied/demo-v2 applied/demo-v3 && regen >/dev/null" &&
	regen >out 2>&1 &&
	test_grep "^topics: other: 0001-.*: its message differs from $(git -C linux rev-parse --short "$reworded"), applied from the list: taken from topics/" out &&
	test_grep "^topics: first: 1 applied (1 as applied from the list), 0 already in base" out &&
	test_grep "^topics: other: 1 applied (0 as applied from the list), 0 already in base" out &&
	test "$(git -C linux rev-parse topic/first)" = "$listed" &&
	test "$(git -C linux rev-parse topic/second~2)" = "$listed" &&
	test "$(git -C linux rev-parse topic/other)" = "$other" &&
	git -C linux merge-base --is-ancestor "$listed" for-next &&
	refs >before && regen >/dev/null && refs >after && test_cmp before after
'

test_expect_success 'a dirty tree is refused and left as it was' '
	echo "line 61;" >>linux/kernel/printk/printk.c &&
	refs >before &&
	test_must_fail regen 2>err &&
	test_grep "uncommitted changes" err &&
	test_grep "^line 61;" linux/kernel/printk/printk.c &&
	refs >after && test_cmp before after &&
	git -C linux checkout -q -- kernel/printk/printk.c
'

test_expect_success 'a new file hidden by the Debian .gitignore is refused' '
	echo "new work" >linux/kernel/printk/new.c &&
	test_must_fail regen 2>err &&
	test_grep "new files that Debian.s .gitignore hides" err &&
	test_grep "kernel/printk/new.c" err &&
	test_grep "new work" linux/kernel/printk/new.c &&
	rm linux/kernel/printk/new.c
'

test_expect_success 'a conflicting patch names topic, file and hunk and changes nothing' '
	cp -r topics topics.good &&
	sed -i "s/^-line 30;/-line 30 changed upstream;/" topics/02-second/0001-*.patch &&
	git -C linux checkout -q topic/first &&
	refs >before &&
	test_must_fail regen 2>err &&
	test_grep "topic second: 0001-printk-second.patch does not apply" err &&
	test_grep "kernel/printk/printk.c: hunk #1 (@@ -27,7 +27,7 @@" err &&
	refs >after && test_cmp before after &&
	test -z "$(git -C linux status --porcelain --untracked-files=all)" &&
	test "$(git -C linux symbolic-ref HEAD)" = refs/heads/topic/first &&
	rm -rf topics && mv topics.good topics
'

test_expect_success 'a patch already in the base is reported, not failed' '
	make_fake_tarball "$TRASH" 91 &&
	(cd src.6.1.91/linux-source-6.1 && sed -i "s/^line 55;/line 55 other;/" kernel/printk/printk.c) &&
	tar -cJf linux-source-6.1.tar.xz -C src.6.1.91 linux-source-6.1 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	regen >out 2>&1 &&
	test_grep "other: 0001-printk-other.patch: already in base, skipped" out &&
	test_grep "other: 0 applied, 1 already in base" out &&
	test_grep "regenerating onto distro/6.1.91" out &&
	test "$(git -C linux rev-parse topic/other)" = "$(git -C linux rev-parse "distro/6.1.91^{commit}")"
'

test_expect_success 'the checked-out topic branch follows regeneration' '
	test "$(git -C linux symbolic-ref HEAD)" = refs/heads/topic/first &&
	test -z "$(git -C linux status --porcelain)" &&
	test_grep "sublevel 91" linux/kernel/printk/version.c
'

test_expect_success 'local commits on a topic branch are refused' '
	git -C linux checkout -q topic/second &&
	sed -i "s/^line 45;/line 45 local;/" linux/kernel/printk/printk.c &&
	git -C linux commit -q -a -m "printk: local fix" &&
	refs >before &&
	test_must_fail regen 2>err &&
	test_grep "topic/second has commits that are not in topics/02-second" err &&
	test_grep "printk: local fix" err &&
	test_grep "make export-topics" err &&
	refs >after && test_cmp before after
'

test_expect_success 'export-topics round-trips the local commit through topics/' '
	tree=$(git -C linux rev-parse topic/second^{tree}) &&
	bash "$TOP/topics/export.sh" >out &&
	test_grep "topic/second -> 02-second (3 patches)" out &&
	ls topics/02-second/0003-printk-local-fix.patch &&
	regen >/dev/null &&
	test "$(git -C linux rev-parse topic/second^{tree})" = "$tree" &&
	git -C linux log --format=%s -1 topic/second >subject &&
	test_grep "printk: local fix" subject
'

test_expect_success 'export refuses to overwrite uncommitted edits in topics/' '
	git -C linux commit -q --allow-empty -m "printk: another" &&
	echo "# my note" >>topics/02-second/0001-printk-second.patch &&
	test_must_fail bash "$TOP/topics/export.sh" 2>err &&
	test_grep "02-second has uncommitted changes" err &&
	test_grep "# my note" topics/02-second/0001-printk-second.patch
'

test_expect_success 'a commit made on a branch while regenerating is kept' '
	sed -i "/^# my note$/d" topics/02-second/0001-printk-second.patch &&
	git -C topics add -A && git -C topics commit -q -m "round trip" &&
	git -C linux reset -q --hard HEAD~1 &&
	regen >/dev/null &&
	stand_in git "
		if [ \"\$3 \$4\" = \"update-ref --stdin\" ] && [ ! -e \"$TRASH/raced\" ]; then
			touch \"$TRASH/raced\"
			c=\$(/usr/bin/git -C \"\$2\" commit-tree -p topic/first -m meanwhile topic/first^{tree})
			/usr/bin/git -C \"\$2\" update-ref refs/heads/topic/first \$c
		fi
		exec /usr/bin/git \"\$@\"" &&
	make_patch linux topics/01-first "s/^line 12;/line 12 first;/" "printk: first again" &&
	test_must_fail regen 2>err &&
	test_grep "a branch moved while regenerating" err &&
	git -C linux log -1 --format=%s topic/first >subject &&
	test_grep "^meanwhile$" subject
'

test_expect_success 'export refuses a topics directory that is not in git' '
	cp -r topics "$TRASH/plain" && rm -rf "$TRASH/plain/.git" &&
	git -C linux checkout -q topic/other &&
	git -C linux commit -q --allow-empty -m "printk: more" &&
	test_must_fail env TOPICS_DIR="$TRASH/plain" bash "$TOP/topics/export.sh" 2>err &&
	test_grep "is not in a git repository: cannot tell whether exporting would overwrite edits" err
'

test_expect_success 'a topic whose patches are all in the base keeps them on export' '
	git init -q t2 &&
	make_topic t2 01-a &&
	git -C linux checkout -q "distro/6.1.91^{commit}" &&
	make_patch linux t2/01-a "s/^line 12;/line 12 a;/" "printk: a" &&
	make_topic t2 02-inbase a &&
	git -C linux checkout -q "distro/6.1.90^{commit}" &&
	make_patch linux t2/02-inbase "s/^line 55;/line 55 other;/" "printk: other again" &&
	git -C t2 add . && git -C t2 commit -q -m t2 &&
	TOPICS_DIR=$TRASH/t2 regen >out 2>&1 &&
	test_grep "inbase: 0 applied, 1 already in base" out &&
	# amend the parent topic and move the child onto it, as a rebase does
	git -C linux checkout -q topic/a &&
	git -C linux commit -q --amend -m "printk: a, amended" &&
	git -C linux branch -f topic/inbase topic/a &&
	TOPICS_DIR=$TRASH/t2 bash "$TOP/topics/export.sh" >out &&
	test_grep "topic/a -> 01-a (1 patches)" out &&
	test_grep "topic/inbase has no commits of its own: 02-inbase keeps its patches" out &&
	test_grep "line 55 other;" t2/02-inbase/0001-printk-other-again.patch
'

test_done
