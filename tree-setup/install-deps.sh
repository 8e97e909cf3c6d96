#!/usr/bin/env bash
# install-deps.sh - install the Debian packages listed in tree-setup/packages
#
# Installs only what is missing; needs root (or sudo) only then.  The
# kernel sources are those of the bases BASES names (default: the first
# of tree-setup/bases; BASES="6.1 6.12" for both): one counts as missing
# when its tarball is not in /usr/src, and then the package that
# installed it (linux-source-6.1) is installed again.
. "$(dirname "$0")/../ci/lib.sh"

TARBALL_DIR=/usr/src

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The kernel source packages of the bases asked for that are missing.
missing_sources() {
	local series names=() pkg tarball
	load_bases
	read -r -a names <<<"${BASES:-${BASE_SERIES[0]}}"
	[ "${#names[@]}" -gt 0 ] || die "BASES is set but names no base"
	for series in "${names[@]}"; do
		need_series "$series" BASES
		pkg=${BASE_PACKAGE[$series]}
		tarball=$TARBALL_DIR/linux-source-$series.tar.xz
		if ! installed "$pkg"; then
			say "$pkg"
		elif [ ! -f "$tarball" ]; then
			# dpkg's record of who installed the tarball, which is gone.
			{ dpkg-query -S "$tarball" 2>/dev/null || say "$pkg:"; } | cut -d: -f1 | tr ', ' '\n\n' | sed '/^$/d'
		fi
	done
}

# The packages to install: the missing sources, then those of
# tree-setup/packages not installed.
missing_packages() {
	local pkg
	missing_sources
	grep -v '^#' "$TOP/tree-setup/packages" | while read -r pkg; do
		[ -z "$pkg" ] || installed "$pkg" || say "$pkg"
	done
}

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

main() {
	local missing
	read_lines missing missing_packages
	if [ "${#missing[@]}" = 0 ]; then
		say "deps: all packages installed"
		return
	fi
	say "deps: installing ${missing[*]}"
	as_root apt-get update -qq ||
		die "apt-get update failed: cannot install ${missing[*]}"
	# --reinstall: a package whose files are gone comes back too.
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --reinstall "${missing[@]}" >/dev/null ||
		die "apt-get install failed for: ${missing[*]}"
	read_lines missing missing_packages
	[ "${#missing[@]}" = 0 ] ||
		die "packages still missing after 'apt-get install': ${missing[*]}"
	say "deps: installed"
}

main "$@"
