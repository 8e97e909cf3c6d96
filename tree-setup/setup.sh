#!/usr/bin/env bash
# setup.sh - import the Debian linux-source tarballs as distro base commits
#
# Every tarball of a base tree-setup/bases lists is imported (or only
# $TARBALL).  The first import builds the tree in a scratch directory next
# to $PRINTK_TREE and moves it into place when it is complete, so that an
# interrupted import leaves nothing half-made behind.  A later, different
# tarball of a series is committed on top of that series' previous import,
# on branch 'distro' for the default base and distro-<series> for another
# (so 'git diff distro/A distro/B' shows the distro update); a checkout on
# that branch moves along, and no other.  Each import is tagged
# distro/<kernel version>.  Importing the same tarball again is a no-op.
. "$(dirname "$0")/../ci/lib.sh"

DISTRO_IDENT_NAME="Debian Kernel Team"
DISTRO_IDENT_EMAIL="debian-kernel@lists.debian.org"
TARBALL_DIR=${TARBALL_DIR:-/usr/src}

# The tarballs to import, into TARBALLS: $TARBALL, or those Debian's
# packages installed for the bases tree-setup/bases lists, the default
# base first (the first import's checkout).
find_tarballs() {
	local series f
	TARBALLS=()
	if [ -n "${TARBALL:-}" ]; then
		[ -f "$TARBALL" ] || die "no kernel source tarball $TARBALL"
		TARBALLS=("$TARBALL")
		return
	fi
	load_bases
	for series in "${BASE_SERIES[@]}"; do
		f=$TARBALL_DIR/linux-source-$series.tar.xz
		[ ! -f "$f" ] || TARBALLS+=("$f")
	done
	for f in "$TARBALL_DIR"/linux-source-*.tar.xz; do
		[ -f "$f" ] && ! [[ " ${TARBALLS[*]} " == *" $f "* ]] || continue
		say "setup: not importing $f: its series is not in tree-setup/bases"
	done
	[ "${#TARBALLS[@]}" -gt 0 ] ||
		die "no kernel source tarball $TARBALL_DIR/linux-source-${BASE_SERIES[0]}.tar.xz: install the Debian package '${BASE_PACKAGE[${BASE_SERIES[0]}]}' with 'make deps' (or 'apt-get install ${BASE_PACKAGE[${BASE_SERIES[0]}]}' as root)"
}

# git on the repository being imported into.
igit() { git -C "$REPO" "$@"; }

tarball_package() {
	{ dpkg-query -S "$TARBALL" 2>/dev/null || true; } | cut -d: -f1 | sed -n 1p
}

package_version() {
	local pkg
	pkg=$(tarball_package)
	[ -z "$pkg" ] || dpkg-query -W -f='${Version}' "$pkg"
}

# Tag already carrying this tarball, if any.
tag_of_tarball() {
	local sum=$1 tag tags
	read_lines tags igit tag -l 'distro/*'
	for tag in "${tags[@]}"; do
		if igit cat-file tag "$tag" | grep -qx "Tarball-sha256: $sum"; then
			say "$tag"
			return
		fi
	done
}

kernel_version() {
	awk -F' = ' '/^VERSION =/ {v=$2} /^PATCHLEVEL =/ {p=$2}
		/^SUBLEVEL =/ {s=$2} /^EXTRAVERSION =/ {e=$2; exit}
		END {if (v == "") exit 1; printf "%s.%s.%s%s\n", v, p, s, e}' "$1"
}

unpack() {
	local dest=$1
	mkdir -p "$dest"
	tar -xJf "$TARBALL" -C "$dest" --strip-components=1 ||
		die "cannot unpack $TARBALL"
	[ -f "$dest/Makefile" ] || die "$TARBALL has no top-level Makefile: not a kernel source tarball"
}

# Commit the files in $1 (the unpacked source, staged through index file
# $2) with message $3 as the next commit of branch $4; print it.
commit_import() {
	local src=$1 index=$2 msg=$3 branch=$4 date tree parent
	# Debian's top-level .gitignore ignores everything ('/*'): force-add.
	GIT_INDEX_FILE=$index git --git-dir="$(igit rev-parse --absolute-git-dir)" \
		--work-tree="$src" add -f -A .
	tree=$(GIT_INDEX_FILE=$index igit write-tree)
	date=$(stat -c %Y "$TARBALL")
	parent=$(igit rev-parse -q --verify "refs/heads/$branch" || true)
	GIT_AUTHOR_NAME=$DISTRO_IDENT_NAME GIT_AUTHOR_EMAIL=$DISTRO_IDENT_EMAIL \
		GIT_COMMITTER_NAME=$DISTRO_IDENT_NAME GIT_COMMITTER_EMAIL=$DISTRO_IDENT_EMAIL \
		GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000" \
		igit commit-tree "$tree" ${parent:+-p "$parent"} -m "$msg"
}

# The branch a kernel of series $1 is imported on: 'distro' for the
# default base, distro-<series> for another, so that one base's update
# never moves another's branch.
import_branch() { BASE=$1 base_branch distro; }

# Import the unpacked tarball in $1 (index $2) and tag it; $3 is the
# tarball's sha256.  The tag goes to TAG.
import() {
	local src=$1 index=$2 sum=$3 version pkgver tag msg commit parent branch
	version=$(kernel_version "$src/Makefile") || die "cannot read the kernel version from $TARBALL"
	load_bases
	need_series "$(version_series "$version")" "$TARBALL ($version)"
	branch=$(import_branch "$(version_series "$version")")
	pkgver=$(package_version)
	tag=distro/$version
	if igit rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		# Same kernel version, new Debian revision: tag the package version.
		[ -n "$pkgver" ] && ! igit rev-parse -q --verify "refs/tags/distro/$pkgver" >/dev/null ||
			die "$tag already exists with different content and no free tag for $TARBALL${pkgver:+ ($pkgver)}"
		tag=distro/$pkgver
	fi
	msg="Import $(basename "$TARBALL") ($version)

Pristine kernel source of the Debian package${pkgver:+ $(tarball_package) $pkgver},
imported by printk-tree tree-setup."
	say "setup: committing $version on $branch (this takes a while for a full tree)"
	parent=$(igit rev-parse -q --verify "refs/heads/$branch" || true)
	commit=$(commit_import "$src" "$index" "$msg" "$branch")
	igit tag -a -m "$msg

Tarball-sha256: $sum" "$tag" "$commit"
	if [ "$REPO" = "$PRINTK_TREE" ]; then
		say "update refs/heads/$branch $commit $parent" | update_refs
	else
		# The first import's checkout: on the branch of its series.
		igit symbolic-ref HEAD "refs/heads/$branch"
		igit update-ref "refs/heads/$branch" "$commit"
	fi
	TAG=$tag
}

# The first import: a new repository in a scratch directory beside
# $PRINTK_TREE, moved into place once complete.
first_import() {
	local sum=$1 scratch
	[ ! -e "$PRINTK_TREE" ] || [ -z "$(ls -A "$PRINTK_TREE")" ] ||
		die "$PRINTK_TREE exists and is not a git tree; move it away or set PRINTK_TREE"
	mkdir -p "$(dirname "$PRINTK_TREE")"
	scratch=$(mktemp -d "$(dirname "$PRINTK_TREE")/.$(basename "$PRINTK_TREE").import.XXXXXX")
	at_exit rm -rf "$scratch"
	REPO=$scratch/tree
	git init -q "$REPO"
	igit config gc.auto 0
	maintainer_identity igit
	say "setup: unpacking $TARBALL"
	unpack "$REPO"
	import "$REPO" "$REPO/.git/index" "$sum"
	[ ! -e "$PRINTK_TREE" ] || rmdir "$PRINTK_TREE"
	mv "$REPO" "$PRINTK_TREE"
}

# A later import: unpacked and staged in a scratch directory, committed
# into the existing tree.
next_import() {
	local sum=$1 scratch
	scratch=$(mktemp -d "$PRINTK_CACHE/import.XXXXXX")
	at_exit rm -rf "$scratch"
	say "setup: unpacking $TARBALL"
	unpack "$scratch/src"
	import "$scratch/src" "$scratch/index" "$sum"
}

# Import tarball $TARBALL, unless it is already.
import_tarball() {
	local sum
	sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
	REPO=$PRINTK_TREE
	if ! is_git_tree "$PRINTK_TREE"; then
		first_import "$sum"
	else
		TAG=$(tag_of_tarball "$sum")
		if [ -n "$TAG" ]; then
			say "setup: $TARBALL already imported as $TAG ($(tgit rev-parse --short "$TAG^{commit}"))"
			return
		fi
		next_import "$sum"
	fi
	say "setup: imported $TARBALL as $TAG ($(tgit rev-parse --short "$TAG^{commit}"))"
}

main() {
	find_tarballs
	stage_lock setup
	for TARBALL in "${TARBALLS[@]}"; do
		import_tarball
	done
}

main "$@"
