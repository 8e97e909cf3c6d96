#!/usr/bin/env bash
# build.sh - build vanilla 6.1 and every topic, one after the other
#
# All builds share one worktree and one O= directory, so each build only
# recompiles what its topic changed (and ccache catches the rest when the
# order comes round again).  A tree built before with the same config is
# not built again: its image comes from $IMAGES/by-key (FORCE=1 rebuilds).
# The bzImages go to $IMAGES for the boot stage.
# A build fails on a compiler error and on a compiler warning in
# kernel/printk that vanilla does not have.  KCONFIG_EXTRA=fragment and
# IMAGE_TAG=-suffix build variants (ci/bench.sh does); PLAN="name refs..."
# lines replace the build plan (mail/export.sh builds the revisions).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OBJ=$BUILD_DIR/obj
LOGS=$OUT/build
CACHE=$IMAGES/by-key

# Compiler warnings in kernel/printk, without line numbers.
printk_warnings() {
	{ grep -E '(^|/)kernel/printk/[^:]*:[0-9]+:[0-9]+: warning:' "$1" || true; } |
		sed -E 's#^.*(kernel/printk/[^:]*):[0-9]+:[0-9]+: #\1: #' | sort -u
}

# Build the tree of $@ (merged_commit) in $OBJ, unless a build of the same
# tree and config is in $CACHE: its bzImage and kernel/printk warnings.
build_one() {
	local name=$1 commit key start log new how=built
	shift
	commit=$(merged_commit "$@")
	tgit update-ref "refs/build/$name" "$commit"
	key=$CACHE/$(key_of "$(tgit rev-parse "$commit^{tree}")" "$(build_inputs)" "$(declare -f printk_warnings)")
	log=$LOGS/$name.log
	start=$(date +%s)
	if cached "$key.bzImage"; then
		how="up to date"
		touch "$key".*
	else
		git -C "$WT" checkout -q -f --detach "$commit"
		configure strict
		if ! kmake -s bzImage >"$log" 2>&1; then
			tail -n 30 "$log" >&2
			die "build of $name failed (log: $log)"
		fi
		printk_warnings "$log" >"$key.warnings"
		cp "$OBJ/arch/x86/boot/bzImage" "$key.tmp"
		mv "$key.tmp" "$key.bzImage"
	fi
	cp "$key.warnings" "$LOGS/$name.warnings"
	cp "$key.bzImage" "$IMAGES/$name${IMAGE_TAG:-}.bzImage"
	say "$commit" >"$IMAGES/$name${IMAGE_TAG:-}.commit"
	new=$(comm -13 "$LOGS/vanilla.warnings" "$LOGS/$name.warnings")
	say "build: $name: $how, $(($(date +%s) - start))s, $(wc -l <"$LOGS/$name.warnings") warning(s) in kernel/printk"
	[ -z "$new" ] || die "$name adds compiler warnings in kernel/printk:
$new"
}

main() {
	local name refs n=0
	need_tree
	mkdir -p "$OBJ" "$LOGS" "$IMAGES" "$CCACHE_DIR"
	prune_cache "$CACHE"
	WT=$(stage_worktree build)
	[ -f "$LOGS/vanilla.warnings" ] || : >"$LOGS/vanilla.warnings"
	while read -r name refs; do
		# shellcheck disable=SC2086
		build_one "$name" $refs
		n=$((n + 1))
	done < <(if [ -n "${PLAN:-}" ]; then say "$PLAN"; else build_plan; fi)
	say "build: $n kernels ready, images in $IMAGES"
}

main "$@"
