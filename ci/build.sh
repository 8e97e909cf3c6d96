#!/usr/bin/env bash
# build.sh - build vanilla 6.1 and every topic, one after the other
#
# All builds share one worktree and one O= directory, so each build only
# recompiles what its topic changed (and ccache catches the rest when the
# order comes round again).  The bzImages go to $IMAGES for the boot stage.
# A build fails on a compiler error and on a compiler warning in
# kernel/printk that vanilla does not have.  KCONFIG_EXTRA=fragment and
# IMAGE_TAG=-suffix build variants (ci/bench.sh does); PLAN="name refs..."
# lines replace the build plan (mail/export.sh builds the revisions).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OBJ=$BUILD_DIR/obj
LOGS=$OUT/build

# Compiler warnings in kernel/printk, without line numbers.
printk_warnings() {
	{ grep -E '(^|/)kernel/printk/[^:]*:[0-9]+:[0-9]+: warning:' "$1" || true; } |
		sed -E 's#^.*(kernel/printk/[^:]*):[0-9]+:[0-9]+: #\1: #' | sort -u
}

build_one() {
	local name=$1 commit start log new
	shift
	commit=$(merged_commit "$@")
	tgit update-ref "refs/build/$name" "$commit"
	git -C "$WT" checkout -q -f --detach "$commit"
	start=$(date +%s)
	configure strict
	log=$LOGS/$name.log
	if ! kmake -s bzImage >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "build of $name failed (log: $log)"
	fi
	printk_warnings "$log" >"$LOGS/$name.warnings"
	cp "$OBJ/arch/x86/boot/bzImage" "$IMAGES/$name${IMAGE_TAG:-}.bzImage"
	say "$commit" >"$IMAGES/$name${IMAGE_TAG:-}.commit"
	new=$(comm -13 "$LOGS/vanilla.warnings" "$LOGS/$name.warnings")
	say "build: $name: $(($(date +%s) - start))s, $(wc -l <"$LOGS/$name.warnings") warning(s) in kernel/printk"
	[ -z "$new" ] || die "$name adds compiler warnings in kernel/printk:
$new"
}

main() {
	local name refs n=0
	need_tree
	mkdir -p "$OBJ" "$LOGS" "$IMAGES" "$CCACHE_DIR"
	WT=$(stage_worktree build)
	[ -f "$LOGS/vanilla.warnings" ] || : >"$LOGS/vanilla.warnings"
	while read -r name refs; do
		# shellcheck disable=SC2086
		build_one "$name" $refs
		n=$((n + 1))
	done < <(if [ -n "${PLAN:-}" ]; then say "$PLAN"; else build_plan; fi)
	say "build: $n kernels built, images in $IMAGES"
}

main "$@"
