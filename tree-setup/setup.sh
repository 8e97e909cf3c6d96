#!/usr/bin/env bash
# setup.sh - import the Debian linux-source tarball as a distro base commit
#
# The first import unpacks the tarball into $PRINTK_TREE and commits it on
# branch 'distro'.  A later, different tarball is committed on top of the
# previous import (so 'git diff distro/A distro/B' shows the distro update)
# without touching the maintainer's checkout.  Each import is tagged
# distro/<kernel version>.  Importing the same tarball again is a no-op.
. "$(dirname "$0")/../ci/lib.sh"

DISTRO_IDENT_NAME="Debian Kernel Team"
DISTRO_IDENT_EMAIL="debian-kernel@lists.debian.org"
SCRATCH=
trap '[ -z "$SCRATCH" ] || rm -rf "$SCRATCH"' EXIT

tarball_package() {
	dpkg-query -S "$TARBALL" 2>/dev/null | cut -d: -f1 | head -n 1
}

package_version() {
	local pkg
	pkg=$(tarball_package)
	[ -n "$pkg" ] || return 0
	dpkg-query -W -f='${Version}' "$pkg"
}

# Tag already carrying this tarball, if any.
tag_of_tarball() {
	local sum=$1 tag
	for tag in $(tgit tag -l 'distro/*'); do
		if tgit cat-file tag "$tag" | grep -qx "Tarball-sha256: $sum"; then
			say "$tag"
			return
		fi
	done
}

kernel_version() {
	local mk=$1
	awk -F' = ' '/^VERSION =/ {v=$2} /^PATCHLEVEL =/ {p=$2}
		/^SUBLEVEL =/ {s=$2} /^EXTRAVERSION =/ {e=$2; exit}
		END {if (v == "") exit 1; printf "%s.%s.%s%s\n", v, p, s, e}' "$mk"
}

unpack() {
	local dest=$1
	mkdir -p "$dest"
	tar -xJf "$TARBALL" -C "$dest" --strip-components=1 ||
		die "cannot unpack $TARBALL"
	[ -f "$dest/Makefile" ] || die "$TARBALL has no top-level Makefile: not a kernel source tarball"
}

ensure_identity() {
	# Commits in the tree need an identity; CI machines may have none.
	tgit config user.email >/dev/null ||
		tgit config user.email "printk-tree@localhost"
	tgit config user.name >/dev/null ||
		tgit config user.name "printk tree"
}

# Commit the files in $1 (the unpacked source, staged through index file $2)
# on top of branch 'distro'.
commit_import() {
	local src=$1 index=$2 msg=$3 date tree parent commit
	# Debian's top-level .gitignore ignores everything ('/*'): force-add.
	GIT_INDEX_FILE=$index git --git-dir="$PRINTK_TREE/.git" --work-tree="$src" \
		add -f -A .
	tree=$(GIT_INDEX_FILE=$index tgit write-tree)
	date=$(stat -c %Y "$TARBALL")
	parent=$(tgit rev-parse -q --verify refs/heads/distro || true)
	commit=$(GIT_AUTHOR_NAME=$DISTRO_IDENT_NAME GIT_AUTHOR_EMAIL=$DISTRO_IDENT_EMAIL \
		GIT_COMMITTER_NAME=$DISTRO_IDENT_NAME GIT_COMMITTER_EMAIL=$DISTRO_IDENT_EMAIL \
		GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000" \
		tgit commit-tree "$tree" ${parent:+-p "$parent"} -m "$msg")
	tgit update-ref refs/heads/distro "$commit" ${parent:-}
	say "$commit"
}

main() {
	local sum tag version pkgver staging index commit fresh= msg

	[ -n "$TARBALL" ] && [ -f "$TARBALL" ] ||
		die "no kernel source tarball (${TARBALL:-/usr/src/linux-source-*.tar.xz}): install the Debian package 'linux-source' (make deps)"
	mkdir -p "$PRINTK_CACHE"

	if [ ! -d "$PRINTK_TREE/.git" ]; then
		[ ! -e "$PRINTK_TREE" ] || [ -z "$(ls -A "$PRINTK_TREE")" ] ||
			die "$PRINTK_TREE exists and is not a git tree; move it away or set PRINTK_TREE"
		git init -q -b distro "$PRINTK_TREE"
		tgit config gc.auto 0
		fresh=1
	fi
	ensure_identity

	sum=$(sha256sum "$TARBALL" | cut -d' ' -f1)
	tag=$(tag_of_tarball "$sum")
	if [ -n "$tag" ]; then
		say "setup: $TARBALL already imported as $tag ($(tgit rev-parse --short "$tag^{commit}"))"
		return
	fi

	if [ -n "$fresh" ]; then
		# The first import is the maintainer's checkout itself.
		staging=$PRINTK_TREE
		index=$PRINTK_TREE/.git/index
	else
		SCRATCH=$(mktemp -d "$PRINTK_CACHE/import.XXXXXX")
		staging=$SCRATCH/src
		index=$SCRATCH/index
	fi
	say "setup: unpacking $TARBALL"
	unpack "$staging"
	version=$(kernel_version "$staging/Makefile") || die "cannot read the kernel version from $TARBALL"
	pkgver=$(package_version)
	tag=distro/$version
	if tgit rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
		# Same kernel version, new Debian revision: tag the package version.
		[ -n "$pkgver" ] && ! tgit rev-parse -q --verify "refs/tags/distro/$pkgver" >/dev/null ||
			die "$tag already exists with different content and no free tag for $TARBALL${pkgver:+ ($pkgver)}"
		tag=distro/$pkgver
	fi

	msg="Import $(basename "$TARBALL") ($version)

Pristine kernel source of the Debian package${pkgver:+ $(tarball_package) $pkgver},
imported by printk-tree tree-setup."
	say "setup: committing $version (this takes a while for a full tree)"
	commit=$(commit_import "$staging" "$index" "$msg")
	tgit tag -a -m "$msg

Tarball-sha256: $sum" "$tag" "$commit"
	say "setup: imported $TARBALL as $tag ($(tgit rev-parse --short "$commit"))"
}

main "$@"
