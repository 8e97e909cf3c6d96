# lib.sh - shared settings and helpers for the printk maintainer tree scripts
#
# Sourced by every stage script.  All paths that hold kernel sources or build
# output live outside this repository, under $PRINTK_CACHE.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PRINTK_CACHE=${PRINTK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/printk-tree}
# The kernel git tree; the one variable to point the scripts elsewhere.
PRINTK_TREE=${PRINTK_TREE:-$PRINTK_CACHE/linux}
TARBALL=${TARBALL:-$(ls -1 /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}
TOPICS_DIR=${TOPICS_DIR:-$TOP/topics}
OUT=${OUT:-$PRINTK_CACHE/out}
BUILD_DIR=${BUILD_DIR:-$PRINTK_CACHE/build}
export PRINTK_CACHE PRINTK_TREE

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# git on the kernel tree
tgit() { git -C "$PRINTK_TREE" "$@"; }

need_tree() {
	[ -d "$PRINTK_TREE/.git" ] ||
		die "no kernel tree at $PRINTK_TREE (run 'make setup' first)"
}

# The newest distro base tag, e.g. distro/6.1.192 (override with BASE=).
base_ref() {
	if [ -n "${BASE:-}" ]; then
		tgit rev-parse -q --verify "$BASE^{commit}" >/dev/null ||
			die "base '$BASE' does not exist in $PRINTK_TREE"
		say "$BASE"
		return
	fi
	local tag
	tag=$(tgit tag -l 'distro/*' --sort=-v:refname | head -n 1)
	[ -n "$tag" ] || die "no distro/* base tag in $PRINTK_TREE (run 'make setup')"
	say "$tag"
}

# The topics, in series order: one directory per topic.
topic_dirs() {
	local d
	for d in "$TOPICS_DIR"/[0-9]*/; do
		[ -f "$d/topic.conf" ] && say "${d%/}"
	done
	return 0
}

# Read a topic's metadata into topic_name, topic_seed, topic_depends, ...
load_topic() {
	topic_name= topic_subject= topic_seed= topic_depends= topic_status= topic_series=
	# shellcheck source=/dev/null
	. "$1/topic.conf"
	[ -n "$topic_name" ] || die "$1/topic.conf: topic_name is not set"
}

# Patches of a topic, in order.
topic_patches() {
	local p
	for p in "$1"/*.patch; do
		[ -f "$p" ] && say "$p"
	done
	return 0
}

# The topic holding test code; every built kernel includes it.
SELFTEST_TOPIC=selftest
IMAGES=$PRINTK_CACHE/images

# The kernels the build and boot stages work on, in build order: a name,
# then the branches merged for it.  Each topic is built on its own
# (bisectable); all of them get the selftest topic so they run the same
# scenarios.  Topics based on the base come first, so that the stacked
# ones, which change include/linux/printk.h, rebuild the tree only once.
# BUILDS="name..." restricts the plan.
build_plan() {
	local dir
	{
		say "vanilla $(base_ref) topic/$SELFTEST_TOPIC"
		for dir in $(topic_dirs); do
			load_topic "$dir"
			[ "$topic_name" = "$SELFTEST_TOPIC" ] ||
				say "${topic_depends:+1}0 $topic_name topic/$topic_name topic/$SELFTEST_TOPIC"
		done | sort -s -k1,1 | cut -d' ' -f2-
		say "for-next for-next"
	} | if [ -n "${BUILDS:-}" ]; then
		grep -E "^($(tr ' ' '|' <<<"$BUILDS")) "
	else
		cat
	fi
}

# A commit with the trees of all refs in $@ merged (the ref itself if one).
merged_commit() {
	local tip tree date ref
	tip=$(tgit rev-parse "$1^{commit}")
	shift
	for ref in "$@"; do
		tgit merge-base --is-ancestor "$ref" "$tip" && continue
		tree=$(tgit merge-tree --write-tree "$tip" "$ref") ||
			die "$ref does not merge cleanly into $tip"
		date=$(tgit log -1 --format=%ad --date=raw "$ref")
		tip=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
			tgit commit-tree "$tree" -p "$tip" -p "$ref" -m "Merge $ref")
	done
	say "$tip"
}

# A git worktree of the kernel tree for a stage, created on first use.
stage_worktree() {
	local wt=$PRINTK_CACHE/worktrees/$1
	if ! git -C "$wt" rev-parse --git-dir >/dev/null 2>&1; then
		rm -rf "$wt"
		tgit worktree prune
		tgit worktree add -q --detach "$wt" "$(base_ref)" >&2
	fi
	say "$wt"
}

# Result caching: a stage keeps what it found for a state under a key of
# everything that state's result depends on (tree, config, the code that
# produced it), and skips the work when the key comes round again, as
# ccache does for one file.  FORCE=1 redoes everything.
key_of() { say "$*" | sha1sum | cut -c1-20; }
cached() { [ -z "${FORCE:-}" ] && [ -e "$1" ]; }

# Entries of cache directory $1 not used for two weeks go.
prune_cache() {
	mkdir -p "$1"
	find "$1" -type f -mtime +14 -delete
}

# make in worktree $WT with output in $OBJ (both set by the caller).  The
# build is reproducible: the same tree and config give the same bzImage.
JOBS=${JOBS:-$(($(nproc) + 1))}
export CCACHE_DIR=${CCACHE_DIR:-$PRINTK_CACHE/ccache}
kmake() {
	make -C "$WT" O="$OBJ" -j"$JOBS" CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="printk-tree" KBUILD_BUILD_USER=printk \
		KBUILD_BUILD_HOST=printk-tree KBUILD_BUILD_VERSION=1 "$@"
}

# The config fragments on top of tinyconfig, later ones win:
# ci/kernel.config and the one $KCONFIG_EXTRA names.
config_fragments() { printf '%s\n' "$TOP/ci/kernel.config" ${KCONFIG_EXTRA:+"$KCONFIG_EXTRA"}; }

# What a build in $OBJ depends on besides the tree: the fragments and how
# they are applied and built.
build_inputs() {
	local fragments
	mapfile -t fragments < <(config_fragments)
	cat "${fragments[@]}"
	declare -f kmake config_fragments configure
}

# tinyconfig + config_fragments in $OBJ.  With "strict", every option of
# the fragments must be in the result.  The old .config (and its mtime) is
# kept when nothing changed, so that an unchanged config rebuilds nothing.
configure() {
	local missing fragments
	mapfile -t fragments < <(config_fragments)
	mkdir -p "$OBJ"
	[ ! -f "$OBJ/.config" ] || cp -p "$OBJ/.config" "$OBJ/.config.prev"
	kmake -s tinyconfig >/dev/null
	"$WT/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		"${fragments[@]}" >/dev/null
	kmake -s olddefconfig >/dev/null
	# A later fragment overrides an earlier one, as in merge_config.sh.
	missing=$(cat "${fragments[@]}" | grep '^CONFIG_' |
		awk -F= '{ last[$1] = $0 } END { for (o in last) print last[o] }' |
		grep -vxFf "$OBJ/.config" || true)
	[ "${1:-}" != strict ] || [ -z "$missing" ] ||
		die "config options of ${fragments[*]#"$TOP/"} not in the final .config (missing dependency?):
$missing"
	if [ -f "$OBJ/.config.prev" ] && cmp -s "$OBJ/.config" "$OBJ/.config.prev"; then
		mv "$OBJ/.config.prev" "$OBJ/.config"
	fi
	rm -f "$OBJ/.config.prev"
}
