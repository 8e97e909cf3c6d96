#!/usr/bin/env bash
# install-deps.sh - install the Debian packages listed in tree-setup/packages
#
# Installs only what is missing; needs root (or sudo) only then.
. "$(dirname "$0")/../ci/lib.sh"

missing_packages() {
	local pkg
	grep -v '^#' "$TOP/tree-setup/packages" | while read -r pkg; do
		[ -n "$pkg" ] || continue
		dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || say "$pkg"
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
	missing=$(missing_packages | tr '\n' ' ')
	if [ -z "$missing" ]; then
		say "deps: all packages installed"
		return
	fi
	say "deps: installing $missing"
	as_root apt-get update -qq
	# shellcheck disable=SC2086
	as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq $missing >/dev/null ||
		die "apt-get install failed for: $missing"
	missing=$(missing_packages | tr '\n' ' ')
	[ -z "$missing" ] || die "packages still missing after install: $missing"
}

main "$@"
