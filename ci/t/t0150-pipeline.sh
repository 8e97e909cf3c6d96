#!/usr/bin/env bash
# t0150-pipeline.sh - make ci runs every base, and one base's failure does
# not stop the others
. "$(dirname "$0")/../test-lib.sh"

# A copy of the project whose stages only log what they were asked to do
# (stage BASE=... BUILDS=...); FAIL_STAGE="stage base" fails one.
test_expect_success 'set up a project with stand-in stages' '
	mkdir -p top/ci top/tree-setup &&
	cp "$TOP/ci/lib.sh" "$TOP/ci/pipeline.sh" top/ci/ &&
	cp "$TOP/tree-setup/bases" top/tree-setup/ &&
	printf "%s\n" "SHELL := /bin/bash" "%:" \
		"	@echo \"\$@ BASE=\$\$BASE BUILDS=\$\$BUILDS\" >>$TRASH/stages" \
		"	@[ \"\$(FAIL_STAGE)\" != \"\$@ \$\$BASE\" ]" >top/Makefile &&
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

test_done
