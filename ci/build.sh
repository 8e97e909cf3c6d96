#!/usr/bin/env bash
# build.sh - build vanilla 6.1 and every topic, one after the other
#
# All builds share one worktree and one O= directory, so each build only
# recompiles what its topic changed (and ccache catches the rest when the
# order comes round again).  A tree built before with the same config and
# compiler is not built again: its image comes from $IMAGES/by-key
# (FORCE=1 rebuilds).  The bzImages go to $IMAGES for the boot stage.
# A build fails on a compiler error and on a compiler warning in
# kernel/printk that vanilla does not have (for-next also at W=1).
# ci/configs/NAME.config gives kernel config-NAME, for-next in another
# configuration, built in a directory of its own.  KCONFIG_EXTRA=fragment and
# IMAGE_TAG=-suffix build variants (ci/bench.sh does); PLAN="name refs..."
# lines replace the build plan.  BUILD_TARGETS=changed compiles only
# kernel/printk/ and the .c files a kernel changes from its distro base,
# and makes no image (mail/export.sh checks the revisions so: each full
# build of another include/linux/printk.h costs minutes).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

LOGS=$OUT/build
CACHE=$IMAGES/by-key

# Compiler warnings in kernel/printk, without line numbers.
printk_warnings() {
	matching -E '(^|/)kernel/printk/[^:]*:[0-9]+:[0-9]+: warning:' "$1" |
		sed -E 's#^.*(kernel/printk/[^:]*):[0-9]+:[0-9]+: #\1: #'
}

# The kernel/printk warnings of the build of kernel $1 logged in $2, into
# $3; for vanilla and for-next also those of W=1, for which kernel/printk
# is compiled again (the next build recompiles it without).
build_warnings() {
	local name=$1 log=$2 out=$3
	printk_warnings "$log" >"$out.tmp"
	if [[ $name == "vanilla$SUFFIX" || $name == "for-next$SUFFIX" ]]; then
		run_logged "build: $name: W=1 kernel/printk" "$log.w1" kmake -s W=1 kernel/printk/
		printk_warnings "$log.w1" | sed 's/^/W=1 /' >>"$out.tmp"
	fi
	sort -u "$out.tmp" >"$out"
	rm "$out.tmp"
}

# Build the tree of $2... (merged_commit) as kernel $1 in $OBJ, unless a
# build of the same tree and inputs is in $CACHE: its bzImage and
# kernel/printk warnings.
build_one() {
	local name=$1 commit tree inputs key start log new how=built checkout files
	local targets=(bzImage) keyed=() made=bzImage
	# A configuration is built in a directory of its own (ci/configs).
	local OBJ=$OBJ KCONFIG_EXTRA=${KCONFIG_EXTRA:-}
	[[ $name != config-* ]] || OBJ=$BUILD_DIR/obj-${name#config-} KCONFIG_EXTRA=$(config_of "$name")
	shift
	commit=$(merged_commit "$@")
	tgit update-ref "refs/build/$name" "$commit"
	tree=$(tgit rev-parse "$commit^{tree}")
	inputs=$(build_inputs)
	if [ "${BUILD_TARGETS:-}" = changed ]; then
		read_lines files tgit diff --name-only "$(tgit merge-base "$commit" "refs/heads/distro$SUFFIX")" "$commit"
		read_lines targets sparse_targets "${files[@]}"
		keyed=("${targets[*]}") made=compiled
	fi
	key=$CACHE/$(key_of "$tree" "$inputs" "$(declare -f printk_warnings build_warnings)" "${keyed[@]}")
	log=$LOGS/$name.log
	start=$SECONDS
	checkout=$(kcidb_checkout "$commit" "$name")
	if cached "$key.$made"; then
		how="up to date"
		touch "$key".*
	else
		git -C "$WT" checkout -q -f --detach "$commit"
		configure strict
		# Reported as a failed build if it fails (build_results).
		BUILDING=("${key##*/}" "$checkout" "$log" "$name")
		run_logged "build: $name" "$log" kmake -s "${targets[@]}"
		BUILDING=()
		build_warnings "$name" "$log" "$key.warnings"
		if [ "$made" = bzImage ]; then
			cp "$OBJ/arch/x86/boot/bzImage" "$key.tmp"
			mv "$key.tmp" "$key.bzImage"
		else
			printf '%s\n' "${targets[@]}" >"$key.compiled"
		fi
	fi
	cp "$key.warnings" "$LOGS/$name.warnings"
	if [ "$made" = bzImage ]; then
		cp "$key.bzImage" "$IMAGES/$name${IMAGE_TAG:-}.bzImage"
		say "$commit" >"$IMAGES/$name${IMAGE_TAG:-}.commit"
		say "${key##*/}" >"$IMAGES/$name${IMAGE_TAG:-}.build-id"
	else
		how="$how (${targets[*]})"
	fi
	new=$(comm -13 "$LOGS/vanilla$SUFFIX.warnings" "$LOGS/$name.warnings")
	kcidb_build "${key##*/}" "$checkout" "$([ -z "$new" ] && say true || say false)" "$log" \
		"$(jq -cn --arg k "$name" --arg how "$how" --rawfile w "$LOGS/$name.warnings" \
			--arg new "$new" '{kernel: $k, result: $how, printk_warnings: $w, new_printk_warnings: $new}')"
	say "build: $name: $how, $((SECONDS - start))s, $(wc -l <"$LOGS/$name.warnings") warning(s) in kernel/printk"
	[ -z "$new" ] || die "$name adds compiler warnings in kernel/printk:
$new"
}

# The builds of this run into $LOGS/results.json, over the results kept
# there for the kernels it did not build (mail's and bench's runs build
# other kernels); a build under way when the stage failed is reported as
# a failed one.
build_results() {
	local json=$LOGS/results.json
	if [ "${#BUILDING[@]}" -gt 0 ]; then
		kcidb_build "${BUILDING[0]}" "${BUILDING[1]}" false "${BUILDING[2]}" \
			"$(jq -cn --arg k "${BUILDING[3]}" '{kernel: $k, result: "failed"}')"
		BUILDING=()
	fi
	kcidb_write "$LOGS/kcidb/run.json"
	[ -f "$json" ] || kcidb_write "$json"
	jq -s '.[0] as $old | .[1] as $new | ($new.builds | map(.misc.kernel)) as $built
		| $new + {builds: ([$old.builds[] | select(.misc.kernel as $k | $built | index([$k]) | not)]
				   + $new.builds),
			  checkouts: ($old.checkouts + $new.checkouts | unique_by(.id))}' \
		"$json" "$LOGS/kcidb/run.json" >"$json.tmp"
	mv "$json.tmp" "$json"
}

main() {
	local plan line fields
	need_tree
	stage_lock build
	# A base other than the default (BASE=6.12) has its kernels
	# (vanilla-6.12...), worktree and O= directory.
	SUFFIX=$(base_suffix)
	OBJ=$BUILD_DIR/obj$SUFFIX
	if [ -n "${PLAN:-}" ]; then
		read_lines plan say "$PLAN"
	else
		read_lines plan build_plan
	fi
	[ "${#plan[@]}" -gt 0 ] || die "the build plan is empty: nothing to build"
	mkdir -p "$OBJ" "$LOGS" "$IMAGES" "$CCACHE_DIR"
	prune_cache "$CACHE"
	WT=$(stage_worktree "build$SUFFIX")
	[ -f "$LOGS/vanilla$SUFFIX.warnings" ] || : >"$LOGS/vanilla$SUFFIX.warnings"
	kcidb_start "$LOGS/kcidb"
	BUILDING=()
	# The builds so far are reported when one fails too.
	at_exit build_results
	for line in "${plan[@]}"; do
		read -r -a fields <<<"$line"
		build_one "${fields[@]}"
	done
	build_results
	say "build: ${#plan[@]} kernels ready, images in $IMAGES, results in $LOGS/results.json"
}

main "$@"
