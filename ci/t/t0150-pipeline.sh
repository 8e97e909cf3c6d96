#!/usr/bin/env bash
# t0150-pipeline.sh - make ci runs every base, and one base's failure does
# not stop the others
. "$(dirname "$0")/../test-lib.sh"

# A copy of the project whose stages only log what they were asked to do
# (stage BASE=... BUILDS=...); FAIL_STAGE="stage base", or that line in
# file "fail", fails one.
test_expect_success 'set up a project with stand-in stages' '
	mkdir -p top/ci top/tree-setup &&
	cp "$TOP/ci/lib.sh" "$TOP/ci/pipeline.sh" top/ci/ &&
	cp "$TOP/tree-setup/bases" top/tree-setup/ &&
	printf "%s\n" "SHELL := /bin/bash" "%:" \
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

test_expect_success 'make ci runs no stage again when nothing changed since it passed' '
	git -C top init -q && git -C top add -A && git -C top commit -q -m top &&
	: >stages && bash top/ci/pipeline.sh >out 2>&1 && test "$(wc -l <stages)" = 15 &&
	: >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test ! -s stages &&
	test "$(grep -c ": up to date (passed with this state" out)" = 15
'

# Does state change "$@" (a command, or nothing with CHANGE="env...")
# make the next make ci run every stage again?
runs_again() {
	bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	"$@" && : >stages &&
	env ${CHANGE:-} bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(wc -l <stages)" = 15
}

test_expect_success 'a change to the repository, the kernel tree, the list, the identity or the environment runs them again' '
	runs_again eval "echo x >top/new-file" &&
	runs_again eval "echo y >>top/new-file" &&
	runs_again git -C "$PRINTK_TREE" tag mark &&
	mkdir -p "$PRINTK_CACHE/list/inbox/git" && git init -q --bare "$PRINTK_CACHE/list/inbox/git/0.git" &&
	inbox=$PRINTK_CACHE/list/inbox/git/0.git &&
	runs_again eval "git -C \"\$inbox\" update-ref refs/heads/master \$(git -C \"\$inbox\" commit-tree -m mail \$(git -C \"\$inbox\" mktree </dev/null))" &&
	runs_again git -C "$PRINTK_TREE" config user.email maintainer@example.org &&
	CHANGE="REVIEWS=other" runs_again : &&
	CHANGE="FORCE=1" runs_again : &&
	mkdir -p "$OUT/boot" && runs_again eval "echo {} >\"$OUT/boot/results.json\""
'

test_expect_success 'a stage run on its own, or one that failed, runs again in the next make ci' '
	runs_again in_subshell stage_lock lint &&
	bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	echo z >top/new-file && say "boot " >fail && test_must_fail bash top/ci/pipeline.sh >/dev/null 2>&1 &&
	: >stages && test_must_fail bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(cut -d" " -f1,2 stages)" = "boot BASE=" &&
	rm fail && : >stages && bash top/ci/pipeline.sh >out 2>&1 &&
	test "$(cut -d" " -f1,2 stages | paste -sd" ")" = "boot BASE= mail BASE= review BASE= pull BASE="
'

test_done
