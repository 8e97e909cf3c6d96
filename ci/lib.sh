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
