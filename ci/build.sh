#!/usr/bin/env bash
# build.sh - build vanilla 6.1 and every topic, one after the other
#
# All builds share one worktree; each kernel has an O= directory of its
# own (start_dir), so that building it again recompiles only what changed
# in it, and a new one starts as a copy of the closest one (ccache
# catches the rest).  A tree built before with the same config and
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

# The worktree's files, shared by all O= directories, as make must see
# them for a build of commit $1 in $OBJ: newer than its objects where they
# differ from the tree last built there or were compiled by a build there
# that did not end, older where they do not.  $OBJ/.built has that tree's
# id ("-" in a new directory) and then the files of a build under way;
# $NEWER lists the files made newer last time.
checkout_for() {
	local commit=$1 built=() changed=() was=() newer=() older=() file
	local -A differs=() seen=()
	read_lines built cat "$OBJ/.built"
	read_lines was git -C "$WT" diff --no-renames --name-only HEAD "$commit"
	git -C "$WT" checkout -q -f --detach "$commit"
	[ ! -f "$NEWER" ] || read_lines newer cat "$NEWER"
	[ "${built[0]}" = - ] ||
		read_lines changed git -C "$WT" diff --no-renames --name-only "${built[0]}" "$commit"
	for file in "${changed[@]}" "${built[@]:1}"; do
		differs[$file]=1
	done
	changed=("${!differs[@]}")
	write_file "$OBJ/.built" "${built[0]}" "${changed[@]}"
	for file in "${was[@]}" "${newer[@]}"; do
		[ -n "${differs[$file]:-}${seen[$file]:-}" ] || older+=("$file")
		seen[$file]=1
	done
	touch_existing @946684800 "${older[@]}"
	touch_existing now "${changed[@]}"
	# Else the next checkout, seeing new times, writes the files again.
	git -C "$WT" update-index -q --refresh
	write_file "$NEWER" "${changed[@]}"
}

# File $1 with lines $2..., whole or not at all.
write_file() {
	local file=$1
	shift
	printf '%s\n' "$@" >"$file.tmp"
	mv "$file.tmp" "$file"
}

# touch -d $1 the files $2... of the worktree that exist, in batches
# (a checkout from the other base's tree names most of it).
touch_existing() {
	local when=$1 file files=()
	shift
	for file in "$@"; do
		[ ! -e "$WT/$file" ] || files+=("$file")
	done
	[ "${#files[@]}" = 0 ] ||
		printf '%s\0' "${files[@]}" | (cd "$WT" && xargs -0 touch -m -d "$when" --)
}

# Kernel $1's O= directory for commit $2 and build inputs $3, moved to
# $OBJ: every kernel is built at that one path, as the objtool build
# compares command lines that name it.  One whose last build is not known
# (a new one, one a build from empty did not finish) starts again, as a
# copy of the directory whose tree is closest to $2 among those of the
# same inputs or, if there is none, of inputs $4, the default
# configuration's (Kbuild recompiles what the options that differ reach,
# and the host programs and objtool are built), or empty; not of a
# partial one (BUILD_TARGETS=changed), whose files outside the image are
# not tracked.
start_dir() {
	local dir=$BUILD_DIR/kernels/$1 best
	park_dir
	if ! known_dir "$dir"; then
		rm -rf "$dir" "$dir.tmp"
		best=$(closest_dir "$3" "$2")
		[ -n "$best" ] || [ "$4" = "$3" ] || best=$(closest_dir "$4" "$2")
		if [ -n "$best" ]; then
			cp -a "$best" "$dir.tmp"
		else
			mkdir "$dir.tmp"
			say - >"$dir.tmp/.built"
		fi
		mv "$dir.tmp" "$dir"
	fi
	say "$1" >"$dir/.name"
	say "$3" >"$dir/.inputs"
	mv "$dir" "$OBJ"
}

# The whole directory of a kernel of build inputs $1 whose last build's
# tree is closest to commit $2, if any.
closest_dir() {
	local seed n best="" least=""
	for seed in "$BUILD_DIR"/kernels/*; do
		[[ $seed != *.tmp ]] && [ ! -e "$seed/.partial" ] && known_dir "$seed" &&
			[ "$(cat "$seed/.inputs")" = "$1" ] || continue
		n=$(git -C "$WT" diff --no-renames --name-only "$(head -n 1 "$seed/.built")" "$2" | wc -l)
		[ -n "$least" ] && [ "$n" -ge "$least" ] || best=$seed least=$n
	done
	say "$best"
}

# The directory at $OBJ back to its kernel's place; one of no kernel (an
# older layout's) goes.
park_dir() {
	local name
	mkdir -p "$BUILD_DIR/kernels"
	[ -d "$OBJ" ] || return 0
	if [ -s "$OBJ/.name" ]; then
		name=$(cat "$OBJ/.name")
		rm -rf "$BUILD_DIR/kernels/$name"
		mv "$OBJ" "$BUILD_DIR/kernels/$name"
	else
		rm -rf "$OBJ"
	fi
}

# Is directory $1's last build known: a tree this repository still has
# (the tree of a kernel's last build may be gone after a git gc)?
known_dir() {
	local tree
	[ -f "$1/.inputs" ] && [ -s "$1/.built" ] || return 1
	tree=$(head -n 1 "$1/.built")
	[ "$tree" != - ] && git -C "$WT" cat-file -e "$tree^{tree}" 2>/dev/null
}

# Build the tree of $2... (merged_commit) as kernel $1 in $OBJ, unless a
# build of the same tree and inputs is in $CACHE: its bzImage and
# kernel/printk warnings.
build_one() {
	local name=$1 commit tree inputs key start log new how=built checkout files
	local targets=(bzImage) keyed=() made=bzImage
	local KCONFIG_EXTRA=${KCONFIG_EXTRA:-}
	[[ $name != config-* ]] || KCONFIG_EXTRA=$(config_of "$name")
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
		# The seeds of a directory: the same inputs on the same base, else
		# the default configuration there.
		start_dir "$name${IMAGE_TAG:-}" "$commit" "$(key_of "$inputs" "$WT")" \
			"$(key_of "$(KCONFIG_EXTRA="" build_inputs)" "$WT")"
		checkout_for "$commit"
		configure_once "$inputs" strict
		# Reported as a failed build if it fails (build_results).
		BUILDING=("${key##*/}" "$checkout" "$log" "$name")
		run_logged "build: $name" "$log" kmake -s "${targets[@]}"
		BUILDING=()
		build_warnings "$name" "$log" "$key.warnings"
		if [ "$made" = bzImage ]; then
			cp "$OBJ/arch/x86/boot/bzImage" "$key.tmp"
			mv "$key.tmp" "$key.bzImage"
			write_file "$OBJ/.built" "$tree"
		else
			# What it did not compile stays to do (.built).
			printf '%s\n' "${targets[@]}" >"$key.compiled"
			: >"$OBJ/.partial"
		fi
		park_dir
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
			--arg new "$new" --argjson secs "$((SECONDS - start))" \
			'{kernel: $k, result: $how, seconds: $secs, printk_warnings: $w, new_printk_warnings: $new}')"
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
	if [ -n "${PLAN:-}" ]; then
		read_lines plan say "$PLAN"
	else
		read_lines plan build_plan
	fi
	[ "${#plan[@]}" -gt 0 ] || die "the build plan is empty: nothing to build"
	mkdir -p "$LOGS" "$IMAGES" "$CCACHE_DIR"
	prune_cache "$CACHE"
	WT=$(stage_worktree "build$SUFFIX")
	NEWER=$(git -C "$WT" rev-parse --absolute-git-dir)/printk-tree.newer OBJ=$BUILD_DIR/obj$SUFFIX
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
