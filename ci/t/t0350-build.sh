#!/usr/bin/env bash
# t0350-build.sh - the build stage, on a stand-in kernel (fake kbuild):
# each tree is built once, a new compiler builds again, a bad plan or a
# new warning fails, one build runs at a time, and long builds say so
. "$(dirname "$0")/../test-lib.sh"
. "$TOP/ci/t/fake-kernel.sh"

export TARBALL=$TRASH/linux-source-6.1.tar.xz TOPICS_DIR=$TRASH/topics
build() { bash "$TOP/ci/build.sh"; }

test_expect_success 'set up a fake kernel tree with a test topic and two topics' '
	make_fake_kbuild "$TRASH" 90 &&
	bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	git init -q topics &&
	make_topic topics 01-first &&
	make_patch "$PRINTK_TREE" topics/01-first "s/^static int printk_line_10;/static long printk_line_10;/" "printk: first" &&
	make_topic topics 02-second &&
	make_patch "$PRINTK_TREE" topics/02-second "s/^static int printk_line_20;/static long printk_line_20;/" "printk: second" &&
	make_topic topics 10-selftest &&
	sed -i "s/^topic_name=.*/topic_name=selftest/" topics/10-selftest/topic.conf &&
	make_patch "$PRINTK_TREE" topics/10-selftest "s/^static int printk_line_50;/static char printk_line_50;/" "printk: test code" &&
	bash "$TOP/topics/regen.sh" >/dev/null
'

test_expect_success 'every kernel of the plan is built, each once' '
	build >out &&
	test_grep "^build: vanilla: built" out &&
	test_grep "^build: first: built" out &&
	test_grep "^build: second: built" out &&
	test_grep "^build: for-next: built" out &&
	test_grep "^build: 4 kernels ready" out &&
	json=$PRINTK_CACHE/out/build/results.json &&
	test "$(jq -r "[.builds[] | select(.valid) | .misc.kernel] | sort | join(\" \")" "$json")" = "first for-next second vanilla" &&
	build >out &&
	test "$(grep -c ": up to date," out)" = 4
'

# What the stand-in compiled in kernel $1's directory so far, a count.
compiled() { cat "$PRINTK_CACHE/build/kernels/$1/compiled" 2>/dev/null | wc -l; }
image() { cat "$PRINTK_CACHE/images/$1.bzImage"; }

test_expect_success 'each kernel has a directory of its own: built again after the others, it compiles nothing' '
	for k in vanilla first second for-next; do
		compiled $k >$k.before && image $k >$k.image || return 1
	done &&
	FORCE=1 build >out &&
	test "$(grep -c ": built," out)" = 4 &&
	for k in vanilla first second for-next; do
		test "$(compiled $k)" = "$(cat $k.before)" && test "$(image $k)" = "$(cat $k.image)" || return 1
	done
'

test_expect_success 'an edit compiles its files again in the kernels it changes, as an empty directory would' '
	test_when_finished "rm topics/02-second/0002-* topics/02-second/0003-* && bash \"$TOP/topics/regen.sh\" >/dev/null && build >/dev/null" &&
	# second takes first line 10 too: the worktree keeps printk.c as
	# for-next, built last, had it, and second was built with another;
	# for-next is then the tree of second
	make_patch "$PRINTK_TREE" topics/02-second "s/^static int printk_line_10;/static long printk_line_10;/" "printk: second too" &&
	make_patch "$PRINTK_TREE" topics/02-second "s/++printk_context;/printk_context++;/" "printk: second in safe" kernel/printk/printk_safe.c &&
	bash "$TOP/topics/regen.sh" >/dev/null &&
	compiled second >before &&
	build >out &&
	test "$(grep ": built," out | cut -d: -f1-2)" = "build: second" &&
	test "$(($(compiled second) - $(cat before)))" = 2 &&
	image second >incremental &&
	rm -rf "$PRINTK_CACHE/build/kernels/second" &&
	FORCE=1 BUILDS=second build >/dev/null &&
	test "$(image second)" = "$(cat incremental)"
'

test_expect_success 'BUILD_TARGETS=changed compiles what a kernel changes, makes no image' '
	PLAN="compiled refs/heads/topic/first" BUILD_TARGETS=changed build >out &&
	test_grep "^build: compiled: built (kernel/printk/), " out &&
	test ! -e "$PRINTK_CACHE/images/compiled.bzImage" &&
	PLAN="compiled refs/heads/topic/first" BUILD_TARGETS=changed build >out &&
	test_grep "^build: compiled: up to date (kernel/printk/), " out &&
	# a full build of the same tree is another build
	PLAN="compiled refs/heads/topic/first" build >out &&
	test_grep "^build: compiled: built, " out &&
	test -s "$PRINTK_CACHE/images/compiled.bzImage"
'

test_expect_success 'a git lock left by a killed build is removed, and named' '
	lock=$(git -C "$PRINTK_CACHE/worktrees/build" rev-parse --absolute-git-dir)/index.lock &&
	>"$lock" &&
	FORCE=1 BUILDS=first build >out 2>&1 &&
	test_grep "^warning: removing $lock, left by a run that was killed" out &&
	test_grep "^build: first: built" out &&
	test ! -e "$lock"
'

test_expect_success 'each build says where its log is' '
	FORCE=1 build >out &&
	test_grep "^build: first: started (log: $PRINTK_CACHE/out/build/first.log)" out
'

test_expect_success 'a build longer than the heartbeat says it still runs' '
	FORCE=1 HEARTBEAT=1 FAKE_BUILD_SECS=3 BUILDS=first build >out &&
	test_grep "^build: first: still running after [0-9]* s (log: .*first.log)" out
'

test_expect_success 'another compiler version builds again' '
	stand_in gcc "echo \"gcc (Debian 99.0.0-1) 99.0.0\"" &&
	build >out &&
	test "$(grep -c ": built," out)" = 4
'

test_expect_success 'BUILDS naming no kernel of the plan fails, naming the kernels' '
	test_must_fail env BUILDS=for_next bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "BUILDS: no kernel .for_next. in the build plan (kernels: vanilla first second for-next)" out &&
	test_must_fail grep "kernels ready" out
'

test_expect_success 'an empty build plan fails' '
	test_must_fail env BUILDS=" " bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "BUILDS is set but names no kernel" out
'

test_expect_success 'a failure inside the plan stops the stage, naming where' '
	mv topics/01-first/topic.conf topics/01-first/topic.conf.away &&
	test_when_finished "mv topics/01-first/topic.conf.away topics/01-first/topic.conf" &&
	test_must_fail bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "topics/01-first: no topic.conf" out &&
	test_must_fail grep "kernels ready" out
'

test_expect_success 'a mutant is built on for-next, or on the topic it mutates; one that does not apply is named' '
	mkdir -p "$MUTANTS_DIR" &&
	test_when_finished "rm -rf \"$MUTANTS_DIR\"" &&
	{
		say "Mutant: printk_line_30 is a long." &&
		printf "%s\n" "--- a/kernel/printk/printk.c" "+++ b/kernel/printk/printk.c" \
			"@@ -29,3 +29,3 @@" " static int printk_line_29;" \
			"-static int printk_line_30;" "+static long printk_line_30;" \
			" static int printk_line_31;"
	} >"$MUTANTS_DIR/wide.patch" &&
	BUILDS=mutant-wide build >out &&
	test_grep "^build: mutant-wide: built" out &&
	git -C "$PRINTK_TREE" show refs/build/mutant-wide:kernel/printk/printk.c >printk.c &&
	test_grep "^static long printk_line_30;" printk.c &&
	test "$(git -C "$PRINTK_TREE" rev-parse refs/build/mutant-wide^)" = "$(git -C "$PRINTK_TREE" rev-parse for-next)" &&
	sed -i "1a Mutates: second" "$MUTANTS_DIR/wide.patch" &&
	BUILDS="second mutant-wide" build >out &&
	test_grep "^build: mutant-wide: built" out &&
	test "$(git -C "$PRINTK_TREE" rev-parse refs/build/mutant-wide^)" = "$(git -C "$PRINTK_TREE" rev-parse refs/build/second)" &&
	git -C "$PRINTK_TREE" show refs/build/mutant-wide:kernel/printk/printk.c >printk.c &&
	test_grep "^static int printk_line_10;" printk.c && test_grep "^static long printk_line_30;" printk.c &&
	git -C "$PRINTK_TREE" checkout -q topic/first &&
	make_patch "$PRINTK_TREE" topics/01-first "s/^static int printk_line_11;/static long printk_line_11;/" "printk: first again" &&
	git -C "$PRINTK_TREE" checkout -q --detach &&
	test_when_finished "rm topics/01-first/0002-* && bash \"$TOP/topics/regen.sh\" >/dev/null" &&
	bash "$TOP/topics/regen.sh" >/dev/null &&
	BUILDS="mutant-wide" build >out && test_grep "^build: mutant-wide: up to date" out &&
	sed -i "s/printk_line_31;/printk_line_32;/" "$MUTANTS_DIR/wide.patch" &&
	test_must_fail env BUILDS=mutant-wide bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "$MUTANTS_DIR/wide.patch does not apply to topic/second" out &&
	sed -i "s#kernel/printk/printk.c#kernel/fork.c#" "$MUTANTS_DIR/wide.patch" &&
	test_must_fail env BUILDS=mutant-wide bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "$MUTANTS_DIR/wide.patch changes files that are neither kernel/printk/\*.c nor .c files of the series: kernel/fork.c" out
'

test_expect_success 'a new compiler warning in kernel/printk fails the build' '
	git -C "$PRINTK_TREE" checkout -q topic/second &&
	echo "/* FAKE_WARNING */" >>"$PRINTK_TREE/kernel/printk/printk_safe.c" &&
	git -C "$PRINTK_TREE" commit -q -a -m "printk: a warning" &&
	test_when_finished "git -C \"$PRINTK_TREE\" reset -q --hard HEAD~1 && git -C \"$PRINTK_TREE\" checkout -q --detach" &&
	test_must_fail env BUILDS=second bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "second adds compiler warnings in kernel/printk:" out &&
	test_grep "kernel/printk/printk_safe.c: warning: planted" out &&
	test "$(jq -r ".builds[] | select(.misc.kernel == \"second\") | .valid" \
		"$PRINTK_CACHE/out/build/results.json")" = false
'

test_expect_success 'for-next and vanilla are also compiled at W=1 in kernel/printk' '
	FORCE=1 BUILDS="vanilla for-next first" build >out &&
	test_grep "^build: vanilla: W=1 kernel/printk: started" out &&
	test_grep "^build: for-next: W=1 kernel/printk: started" out &&
	! grep -q "^build: first: W=1" out
'

test_expect_success 'a warning for-next adds at W=1 fails the build' '
	git -C "$PRINTK_TREE" checkout -q for-next &&
	echo "/* FAKE_W1_WARNING */" >>"$PRINTK_TREE/kernel/printk/printk_safe.c" &&
	git -C "$PRINTK_TREE" commit -q -a -m "printk: a W=1 warning" &&
	test_when_finished "git -C \"$PRINTK_TREE\" reset -q --hard HEAD~1 && git -C \"$PRINTK_TREE\" checkout -q --detach" &&
	test_must_fail env BUILDS=for-next bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "for-next adds compiler warnings in kernel/printk:" out &&
	test_grep "^W=1 kernel/printk/printk_safe.c: warning: planted at W=1" out
'

test_expect_success 'a configuration in ci/configs is for-next built in a directory of its own' '
	mkdir -p "$CONFIGS_DIR" &&
	test_when_finished "rm -rf \"$CONFIGS_DIR\"" &&
	printf "CONFIG_FAKE_VARIANT=y\n# CONFIG_FAKE_OFF is not set\n" >"$CONFIGS_DIR/variant.config" &&
	for dir in "$PRINTK_CACHE"/build/kernels/*/; do
		: >"$dir/copied" || return 1
	done &&
	build >out &&
	test_grep "^build: config-variant: built" out &&
	# A copy of another kernel'"'"'s directory, not an empty one.
	test -f "$PRINTK_CACHE/build/kernels/config-variant/copied" &&
	test_grep "^build: for-next: up to date" out &&
	test_grep "^CONFIG_FAKE_VARIANT=y" "$PRINTK_CACHE/build/kernels/config-variant/.config" &&
	! grep -q FAKE_VARIANT "$PRINTK_CACHE/build/kernels/for-next/.config" &&
	test "$(cat "$PRINTK_CACHE/images/config-variant.commit")" = "$(git -C "$PRINTK_TREE" rev-parse for-next)" &&
	build >out &&
	test_grep "^build: config-variant: up to date" out
'

test_expect_success 'another configuration starts from a kernel of the default one, not from the first' '
	mkdir -p "$CONFIGS_DIR" &&
	test_when_finished "rm -rf \"$CONFIGS_DIR\"" &&
	printf "CONFIG_FAKE_VARIANT=y\n# CONFIG_FAKE_OFF is not set\n" >"$CONFIGS_DIR/variant.config" &&
	printf "CONFIG_FAKE_ANOTHER=y\n" >"$CONFIGS_DIR/another.config" &&
	rm "$PRINTK_CACHE/build/kernels/config-variant/copied" &&
	build >out &&
	test_grep "^build: config-variant: up to date" out &&
	test_grep "^build: config-another: built" out &&
	test -f "$PRINTK_CACHE/build/kernels/config-another/copied"
'

test_expect_success 'an option a configuration unsets but the build keeps fails it, named' '
	mkdir -p "$CONFIGS_DIR" &&
	test_when_finished "rm -rf \"$CONFIGS_DIR\"" &&
	printf "# CONFIG_SMP is not set\n" >"$CONFIGS_DIR/up.config" &&
	test_must_fail env BUILDS=config-up bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "not in the final .config" out &&
	test_grep "^# CONFIG_SMP is not set" out
'

# A build that runs until it is stopped; once it has said that it still
# runs, it is waiting for make (and a signal is not lost in between).
slow_build() {
	{ FORCE=1 FAKE_BUILD_SECS=601 HEARTBEAT=1 BUILDS=first bash "$TOP/ci/build.sh" >first.out 2>&1 & } &&
	pid=$! &&
	wait_for 60 grep -q "still running" first.out
}

test_expect_success 'a second build while one runs is refused, naming the first' '
	slow_build &&
	test_when_finished "kill_tree $pid" &&
	test_must_fail bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "make build is already running (pid $pid)" out
'

test_expect_success 'a stopped build leaves the lock and nothing running behind' '
	slow_build &&
	kill -TERM "$pid" &&
	test_must_fail wait "$pid" &&
	test_must_fail pgrep -f "sleep 601" &&
	BUILDS=first bash "$TOP/ci/build.sh" >out 2>&1 &&
	test_grep "^build: first: up to date" out &&
	test "$(jq -r ".builds[] | select(.misc.kernel == \"first\") | .valid" \
		"$PRINTK_CACHE/out/build/results.json")" = true
'

test_expect_success 'a second base builds its own kernels, and a mutant from its variant' '
	mkdir -p t612 "$MUTANTS_DIR/6.12" &&
	test_when_finished "rm -rf \"$MUTANTS_DIR\"" &&
	make_fake_kbuild "$TRASH/t612" 5 12 &&
	TARBALL=$TRASH/t612/linux-source-6.12.tar.xz bash "$TOP/tree-setup/setup.sh" >/dev/null &&
	BASE=6.12 bash "$TOP/topics/regen.sh" >/dev/null &&
	for n in 40 41; do
		printf "%s\n" "--- a/kernel/printk/printk.c" "+++ b/kernel/printk/printk.c" \
			"@@ -$((n - 1)),3 +$((n - 1)),3 @@" " static int printk_line_$((n - 1));" \
			"-static int printk_line_$n;" "+static long printk_line_$n;" \
			" static int printk_line_$((n + 1));" >"wide.$n" || return 1
	done &&
	mv wide.40 "$MUTANTS_DIR/wide.patch" && mv wide.41 "$MUTANTS_DIR/6.12/wide.patch" &&
	BASE=6.12 build >out &&
	for k in vanilla first second for-next mutant-wide; do
		test_grep "^build: $k-6.12: built" out || return 1
	done &&
	git -C "$PRINTK_TREE" show refs/build/mutant-wide-6.12:kernel/printk/printk.c >printk.c &&
	test_grep "^static long printk_line_41;" printk.c &&
	test_grep "^static int printk_line_40;" printk.c &&
	test "$(git -C "$PRINTK_TREE" rev-parse refs/build/mutant-wide-6.12^)" = "$(git -C "$PRINTK_TREE" rev-parse for-next-6.12)" &&
	test -f "$PRINTK_CACHE/build/kernels/for-next-6.12/.config" &&
	BUILDS="vanilla for-next" build >out &&
	test "$(grep -c ": up to date," out)" = 2
'

test_done
