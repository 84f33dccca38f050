#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what the workbench needs from the Debian archive, if missing.
# Quiet when everything is there.
. "$(dirname "$0")/lib.sh"

# Both series: make check tests on Linux 6.1 too. The cross compilers are
# for make lint's i386 and arm64 builds of security/kportreserve.
pkgs=(
	linux-source-6.12 linux-source-6.1 build-essential bc bison flex cpio kmod
	libelf-dev libssl-dev python3 rsync xz-utils ccache sparse
	qemu-system-x86 busybox-static clang libclang-rt-14-dev
	python3-docutils libcap-dev groff-base systemd python3-ply python3-git
	gcc-i686-linux-gnu gcc-aarch64-linux-gnu
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
say "deps: installing ${missing[*]}"
[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
