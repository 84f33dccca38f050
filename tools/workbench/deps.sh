#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs from the Debian archive, if missing.
# Quiet when everything is there.
. "$(dirname "$0")/lib.sh"

# Both series: make check tests on Linux 7.2, the series' base, and on
# 6.12, its backport. The cross compilers are for make lint's i386 and
# arm64 builds of security/kportreserve.
pkgs=(
	linux-source-7.2 linux-source-6.12 build-essential bc bison flex cpio
	kmod libelf-dev libssl-dev python3 rsync xz-utils ccache sparse
	qemu-system-x86 busybox-static clang libclang-rt-14-dev
	python3-docutils libcap-dev groff-base systemd python3-ply python3-git
	gcc-i686-linux-gnu gcc-aarch64-linux-gnu
)

# Linux 7.2 is in trixie-backports (and sid) only. The suite is added to
# apt's sources for that one package: everything else from it is pinned
# to -1, so no other package of this machine ever comes from there.
backports() {
	local sources=/etc/apt/sources.list.d/kportreserve-trixie-backports.sources
	local pin=/etc/apt/preferences.d/kportreserve-trixie-backports

	[ -f "$sources" ] && [ -f "$pin" ] && return 0
	say "deps: adding trixie-backports for linux-source-7.2 alone ($sources, $pin)"
	cat >"$pin" <<-'PIN'
	# kportreserve's workbench (tools/workbench/deps.sh): Linux 7.2's
	# source from trixie-backports, and nothing else.
	Package: *
	Pin: release n=trixie-backports
	Pin-Priority: -1

	Package: linux-source-7.2
	Pin: release n=trixie-backports
	Pin-Priority: 500
	PIN
	cat >"$sources" <<-'SOURCES'
	# kportreserve's workbench (tools/workbench/deps.sh); pinned in
	# /etc/apt/preferences.d/kportreserve-trixie-backports.
	Types: deb
	URIs: http://deb.debian.org/debian
	Suites: trixie-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
say "deps: installing ${missing[*]}"
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
case " ${missing[*]} " in *" linux-source-7.2 "*) backports ;; esac
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
