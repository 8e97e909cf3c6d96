#!/usr/bin/env bash
# install-deps.sh - install the Debian packages listed in tree-setup/packages
#
# Installs only what is missing; needs root (or sudo) only then.  The
# kernel source counts as missing when its tarball is not in /usr/src:
# then the package that installed it (linux-source-6.1) is installed
# again.
. "$(dirname "$0")/../ci/lib.sh"

TARBALLS='/usr/src/linux-source-*.tar.xz'

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The packages of tree-setup/packages to install: those not installed,
# and for linux-source with its tarball gone, the packages it came from.
missing_packages() {
	local pkg
	grep -v '^#' "$TOP/tree-setup/packages" | while read -r pkg; do
		[ -n "$pkg" ] || continue
		if ! installed "$pkg"; then
			say "$pkg"
		elif [ "$pkg" = linux-source ] && ! compgen -G "$TARBALLS" >/dev/null; then
			# dpkg's record of who installed the tarballs, which are gone.
			{ dpkg-query -S "$TARBALLS" 2>/dev/null || say "$pkg:"; } | cut -d: -f1 | tr ', ' '\n\n' | sed '/^$/d'
		fi
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
