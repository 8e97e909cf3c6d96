#!/usr/bin/env bash
# t0400-boot-harness.sh - the boot harness reports failures, hangs and
# splats, and boots an image again only when it or the harness changed
. "$(dirname "$0")/../test-lib.sh"
OUT=$TRASH/stage
. "$TOP/ci/boot.sh"

# A console log with the KTAP framing and the given body lines.
console_log() {
	say "[    1.000000][    T1] KTAP version 1"
	say "[    1.000001][    T1] 1..2"
	printf '%s\n' "$@"
}

results() { ktap "$1" | sed 's/ \[.*\]$//'; }

test_expect_success 'a passing scenario passes' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test "$(cat out)" = "owner pass"
'

test_expect_success 'not ok is a failure, with its reason' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.2][    T1] not ok 1 owner # '\''owner 1'\'' 0 times, want 1" >log &&
	results log >out && test_grep "^owner fail .owner 1. 0 times, want 1$" out
'

test_expect_success 'a scenario without a result is a hang' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" >log &&
	results log >out && test_grep "^owner hang" out
'

test_expect_success 'a missing KTAP plan is reported' '
	printf "%s\n" "[    1.0][    T1] KTAP version 1" \
		"[    1.1][    T1] # pstest: start 1 owner" "[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test_grep "^ktap fail no KTAP plan" out
'

test_expect_success 'a log that never reached the tests is reported' '
	say "[    0.1][    T0] Linux version 6.1.192" >log &&
	results log >out && test_grep "^ktap fail no .KTAP version 1. line" out
'

test_expect_success 'a splat the scenario does not expect fails it' '
	console_log "[    1.1][    T1] # pstest: start 1 owner" \
		"[    1.15][    C0] BUG: spinlock recursion on CPU#0, init/1" \
		"[    1.2][    T1] ok 1 owner" >log &&
	results log >out && test_grep "^owner fail unexpected: BUG: spinlock recursion" out
'

test_expect_success 'a splat the scenario causes itself is accepted' '
	console_log "[    1.1][    T1] # pstest: start 1 recursion" \
		"[    1.15][    C0] WARNING: CPU: 0 PID: 1 at kernel/printk/x.c:1 f+0x0/0x1" \
		"[    1.2][    T1] ok 1 recursion" >log &&
	results log >out && test "$(cat out)" = "recursion pass"
'

test_expect_success 'a panic passes only with every NMI line printed once' '
	lines=$(for i in $(seq 0 19); do say "[    2.0][    C1] printk_safe_test: panic line $i"; done) &&
	console_log "[    1.1][    T1] # pstest: start 1 panic" "$lines" \
		"[    2.1][    C1] Kernel panic - not syncing: printk_safe_test: panic in NMI" >log &&
	results log >out && test_grep "^panic pass" out &&
	console_log "[    1.1][    T1] # pstest: start 1 panic" "$(grep -v "line 7$" <<<"$lines")" \
		"[    2.1][    C1] Kernel panic - not syncing: printk_safe_test: panic in NMI" >log &&
	results log >out && test_grep "^panic fail NMI lines not printed once each: 7(x0)" out
'

# boot_kernel with a stand-in for QEMU: run_kernel notes each boot in
# "boots" and passes every scenario but $FAIL.
fake_boots() {
	IMAGES=$TRASH/images
	mkdir -p "$IMAGES" "$BOOT_OUT" "$CACHE"
	: >boots
	run_kernel() {
		local s
		say "$1" >>boots
		for s in $(scenario_names main) $(scenario_names own); do
			if [ "$s" = "${FAIL:-}" ]; then say "$s fail planted"; else say "$s pass"; fi
		done >"$BOOT_OUT/$1.results"
	}
}

test_expect_success 'an image booted before with the same harness is not booted again' '
	fake_boots && HARNESS=one &&
	say image1 >"$IMAGES/k.bzImage" &&
	boot_kernel k >out && test_grep "^boot: k: booted, .* 0 not" out &&
	boot_kernel k >out && test_grep "^boot: k: up to date, .* 0 not" out &&
	test "$(wc -l <boots)" = 1 &&
	say image2 >"$IMAGES/k.bzImage" &&
	boot_kernel k >out && test_grep "^boot: k: booted" out &&
	HARNESS=two boot_kernel k >out && test_grep "^boot: k: booted" out &&
	FORCE=1 boot_kernel k >out && test_grep "^boot: k: booted" out &&
	test "$(wc -l <boots)" = 4
'

test_expect_success 'results with a failure that counts are booted again' '
	fake_boots && HARNESS=one &&
	say image3 >"$IMAGES/k.bzImage" &&
	FAIL=recursion boot_kernel k >out && test_grep "^boot: k: booted, .* 1 not" out &&
	FAIL=recursion boot_kernel k >out && test_grep "^boot: k: booted, .* 1 not" out &&
	# not fixed in vanilla: shown, not counted, so kept
	FIXED_BY[recursion]=use-safe-buffers &&
	say image4 >"$IMAGES/vanilla.bzImage" &&
	FAIL=recursion boot_kernel vanilla >out &&
	FAIL=recursion boot_kernel vanilla >out && test_grep "^boot: vanilla: up to date, .* 1 not" out &&
	test "$(wc -l <boots)" = 3
'

image=$IMAGES/vanilla.bzImage
if [ -f "$image" ]; then
	make_initramfs
	test_expect_success 'a planted not ok in a real boot is a failure' '
		test "$(qemu_boot "$image" boot.log pstest.only=planted_fail)" = done &&
		results boot.log >out && test "$(cat out)" = "planted_fail fail planted failure"
	'

	test_expect_success 'a planted hang in a real boot is a hang' '
		test "$(HANG_SECS=5 qemu_boot "$image" boot.log pstest.only=planted_hang)" = hang &&
		results boot.log >out && test "$(cat out)" = "planted_hang hang no result"
	'
else
	say "ok $((test_count += 1)) - $TEST_NAME: real boots # SKIP no $image (make build)"
fi

test_done
