#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# e2e/image.sh DIR: the Debian root of make e2e (E2E_SUITE) in DIR, made by
# mmdebstrap from the mirror of this machine's apt sources. Sourced
# settings (E2E_SUITE, E2E_MIRROR, E2E_PACKAGES) come from e2e.sh, which
# keys its cache by them and by this file.
set -euo pipefail

dir=$1
rm -rf "$dir.tmp"
# /root/debs: nginx's packages, which the guest reinstalls while nginx
# runs: nginx-common and the one that holds /usr/sbin/nginx (in bookworm
# "nginx"; nginx-light only depends on it).
nice -n 19 mmdebstrap --mode=root --variant=minbase \
	--include="$E2E_PACKAGES" \
	--customize-hook='echo kpr-e2e >"$1/etc/hostname"' \
	--customize-hook='echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$1/etc/fstab"' \
	--customize-hook='chroot "$1" passwd -d root' \
	--customize-hook='chroot "$1" useradd -m -u 1000 -s /bin/bash alice' \
	--customize-hook='rm -f "$1/etc/machine-id"; : >"$1/etc/machine-id"' \
	--customize-hook='mkdir -p "$1/root/debs"' \
	--customize-hook='chroot "$1" sh -c "cd /root/debs && apt-get download -q \$(dpkg -S /usr/sbin/nginx | cut -d: -f1) nginx-common"' \
	--customize-hook='chroot "$1" apt-get clean' \
	"$E2E_SUITE" "$dir.tmp" "$E2E_MIRROR"
mv "$dir.tmp" "$dir"
