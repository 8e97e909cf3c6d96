#!/usr/bin/env bash
# t0150-pipeline.sh - make ci runs every base, and one base's failure does
# not stop the others
. "$(dirname "$0")/../test-lib.sh"

# A copy of the project whose stages only log what they were asked to do
# (stage BASE=... BUILDS=...); FAIL_STAGE="stage base", or that line in
# file "fail", fails one.
test_expect_success 'set up a project with stand-in stages' '
	mkdir -p top/ci top/tree-setup &&
	mkdir -p top/topics && cp "$TOP/ci/lib.sh" "$TOP/ci/pipeline.sh" top/ci/ && cp "$TOP/topics/apply.sh" top/topics/ &&
	cp "$TOP/tree-setup/bases" top/tree-setup/ &&
	printf "%s\n" "SHELL := /bin/bash" ".PHONY: setup topics lint build boot mail review pull" "setup topics lint build boot mail review pull:" \
		"	@echo \"\$@ BASE=\$\$BASE BUILDS=\$\$BUILDS\" >>$TRASH/stages" \
		"	@[ \"\$(FAIL_STAGE)\" != \"\$@ \$\$BASE\" ]" \
		"	@[ \"\$\$(cat $TRASH/fail 2>/dev/null)\" != \"\$@ \$\$BASE\" ]" >top/Makefile &&
	git init -q "$PRINTK_TREE" &&
	git -C "$PRINTK_TREE" commit -q --allow-empty -m base &&
	git -C "$PRINTK_TREE" tag distro/6.1.90
'

test_expect_success 'with only the default base imported, make ci is the default base' '
	: >stages &&
	bash top/ci/pipeline.sh >out 2>&1 &&
	cut -d" " -f1,2 stages >got &&
	printf "%s BASE=\n" setup topics lint build boot mail review pull >want &&
	test_cmp want got
'

test_expect_success 'an imported second base gets regeneration, lint, build, boot, mail, review and pull' '
	git -C "$PRINTK_TREE" tag distro/6.12.7 &&
	: >stages &&
	bash top/ci/pipeline.sh >out 2>&1 &&
	grep "BASE=6.12" stages >got &&
	printf "%s BASE=6.12 BUILDS=vanilla-6.12 for-next-6.12\n" topics lint build boot mail review pull >want &&
	test_cmp want got &&
	test_grep "^  boot-6.12 " out
'

test_expect_success 'a failing stage of one base does not stop the other; make ci fails naming it' '
	: >stages &&
	test_must_fail env FAIL_STAGE="build " bash top/ci/pipeline.sh >out 2>&1 &&
	test_grep "stage .build. failed" out &&
	test_must_fail grep "^boot BASE= " stages &&
	test_grep "^boot BASE=6.12 " stages &&
	test_grep "the stages of base(s) 6.1 failed" out &&
	: >stages &&
	test_must_fail env FAIL_STAGE="topics 6.12" bash top/ci/pipeline.sh >out 2>&1 &&
	test_grep "^pull BASE= " stages &&
	test_must_fail grep "^lint BASE=6.12" stages &&
	test_grep "the stages of base(s) 6.12 failed" out
'

test_expect_success 'a failed setup stops everything' '
	: >stages &&
	test_must_fail env FAIL_STAGE="setup " bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(cat stages)" = "setup BASE= BUILDS=" &&
	test_grep "no later stage was run" out
'

# Each stand-in stage now leaves what a real one does: its results
# rewritten, a ref set (to the same commit each time).
test_expect_success 'make ci runs no stage when nothing changed since it passed' '
	printf "%s\n" "SHELL := /bin/bash" ".PHONY: setup topics lint build boot mail review pull" "setup topics lint build boot mail review pull:" \
		"	@echo \"\$@ BASE=\$\$BASE BUILDS=\$\$BUILDS\" >>$TRASH/stages" \
		"	@[ \"\$\$(cat $TRASH/fail 2>/dev/null)\" != \"\$@ \$\$BASE\" ]" \
		"	@mkdir -p $OUT/\$@\$\${BASE:+-\$\$BASE} && date +%s%N >$OUT/\$@\$\${BASE:+-\$\$BASE}/results.json" \
		"	@git -C $PRINTK_TREE update-ref refs/build/\$@\$\${BASE:+-\$\$BASE} HEAD" >top/Makefile &&
	git -C top init -q && git -C top add -A && git -C top commit -q -m top &&
	: >stages && bash top/ci/pipeline.sh >out 2>&1 && test "$(wc -l <stages)" = 15 &&
	: >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test ! -s stages &&
	test_grep "=== ci: up to date: nothing changed since make ci passed" out
'

# Does "$@" (a command; CHANGE="VAR=value" for the run after it) make
# the next make ci run every stage again (RUNS: that many)?
runs_again() {
	bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	"$@" && : >stages &&
	env ${CHANGE:-} bash top/ci/pipeline.sh >out 2>&1 &&
	{ test "$(wc -l <stages)" = "${RUNS:-15}" || { say "ran $(wc -l <stages) stages after: $*"; false; }; }
}

test_expect_success 'a change to the repository, the kernel tree, the list, the identity, the results or the environment runs it all again' '
	runs_again eval "echo x >top/new-file" &&
	runs_again eval "echo y >>top/new-file" &&
	runs_again chmod +x top/new-file &&
	runs_again git -C "$PRINTK_TREE" tag mark &&
	runs_again eval "echo dirty >\"$PRINTK_TREE/file\"" &&
	inbox=$PRINTK_CACHE/list/inbox/git/0.git && git init -q --bare "$inbox" &&
	runs_again eval "git -C \"\$inbox\" update-ref refs/heads/master \$(git -C \"\$inbox\" commit-tree -m mail \$(git -C \"\$inbox\" mktree </dev/null))" &&
	runs_again git -C "$PRINTK_TREE" config user.email maintainer@example.org &&
	mkdir -p "$PRINTK_CACHE/images" && runs_again eval "echo image >\"$PRINTK_CACHE/images/k-6.12.bzImage\"" &&
	runs_again rm "$PRINTK_CACHE/images/k-6.12.bzImage" &&
	runs_again eval "echo {} >\"$OUT/boot-6.12/results.json\"" &&
	CHANGE="REVIEWS=other" runs_again : &&
	CHANGE="FORCE=1" runs_again :
'

# The default base's stages only: 8 of them.
test_expect_success 'a change to the kernels, images or results of the default base leaves the other base up to date' '
	RUNS=8 runs_again git -C "$PRINTK_TREE" update-ref refs/heads/for-next HEAD &&
	RUNS=8 runs_again git -C "$PRINTK_TREE" update-ref refs/heads/topic/a HEAD &&
	RUNS=8 runs_again eval "echo image >\"$PRINTK_CACHE/images/k.bzImage\"" &&
	RUNS=8 runs_again eval "echo {} >\"$OUT/boot/results.json\"" &&
	test_grep "=== BASE=6.12: up to date" out &&
	grep "^up-to-date-6.12 [0-9]*$" "$OUT/pipeline-times.warm" &&
	runs_again git -C "$PRINTK_TREE" update-ref refs/heads/for-next-6.12 HEAD
'

test_expect_success 'topics from outside the repository: an edit of one there runs it all again' '
	mkdir -p ext/01-a && say topic_name=a >ext/01-a/topic.conf &&
	printf "%s\n" "From: A <a@example.org>" "Subject: [PATCH] a" "" "one" >ext/01-a/0001-a.patch &&
	TOPICS_DIR=$TRASH/ext bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	: >stages && TOPICS_DIR=$TRASH/ext bash top/ci/pipeline.sh >/dev/null 2>&1 && test ! -s stages &&
	echo two >>ext/01-a/0001-a.patch &&
	TOPICS_DIR=$TRASH/ext bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	test "$(wc -l <stages)" = 15
'

# Topic a, with a variant for 6.12 where $1 is "variant".
topic_a() {
	local dir=top/topics/01-a
	rm -rf "$dir" && mkdir -p "$dir" &&
	say "topic_name=a" >"$dir/topic.conf" &&
	printf "%s\n" "From: A <a@example.org>" "Subject: [PATCH] a" "" "one" >"$dir/0001-a.patch" &&
	if [ "${1:-}" = variant ]; then
		mkdir "$dir/6.12" && cp "$dir/0001-a.patch" "$dir/6.12/" &&
		say "topic_on_base[6.12]=\"it differs there\"" >>"$dir/topic.conf"
	fi
}

test_expect_success 'an edit of a topic patch that another base does not apply leaves that base up to date' '
	topic_a variant &&
	RUNS=8 runs_again eval "echo two >>top/topics/01-a/0001-a.patch" &&
	test_grep "=== BASE=6.12: up to date: nothing its stages read changed since they passed" out &&
	runs_again eval "echo two >>top/topics/01-a/6.12/0001-a.patch" &&
	topic_a &&
	runs_again eval "echo two >>top/topics/01-a/0001-a.patch"
'

test_expect_success 'a topic that cannot be read does not keep the other base from running' '
	mkdir -p top/topics/02-b && : >top/topics/02-b/topic.conf &&
	: >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(grep -c BASE=6.12 stages)" = 7 &&
	rm -r top/topics/02-b
'

test_expect_success 'a stage run on its own runs it all again; a failed base runs again, a passed one not' '
	runs_again in_subshell stage_lock lint &&
	echo z >top/new-file && say "boot " >fail && test_must_fail bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	rm fail && : >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(wc -l <stages)" = 8 && test_must_fail grep BASE=6.12 stages &&
	echo w >top/new-file && say "boot 6.12" >fail && test_must_fail bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	rm fail && : >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(wc -l <stages)" = 15
'

test_expect_success 'a cold run keeps its build results for the benchmark; a warm one not' '
	cp top/Makefile Makefile.warm &&
	printf "%s\n" "SHELL := /bin/bash" ".PHONY: setup topics lint build boot mail review pull" \
		"setup:" "	@git init -q \$\$PRINTK_TREE" \
		"topics lint boot mail review pull:" "build:" "	@echo \$\$MARK >$OUT/build/results.json" >top/Makefile &&
	mkdir -p "$OUT/build" &&
	PRINTK_TREE=$TRASH/cold-tree MARK=cold bash top/ci/pipeline.sh >out 2>&1 &&
	test -f "$OUT/pipeline-times.cold" && test "$(cat "$OUT/build-results.cold.json")" = cold &&
	PRINTK_TREE=$TRASH/cold-tree MARK=warm bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(cat "$OUT/build/results.json")" = warm && test "$(cat "$OUT/build-results.cold.json")" = cold &&
	mv Makefile.warm top/Makefile
'

test_done
