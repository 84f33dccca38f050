#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack an initramfs for the test VM:
#   initramfs.sh OUT RUN_SCRIPT [SRC:DEST]...
# busybox-static and vm/init come first; RUN_SCRIPT becomes /run.sh, the
# payload that init runs; each SRC file is copied to DEST in the image.
. "$(dirname "$0")/lib.sh"

out=$1 run=$2
shift 2
stage=$(mktemp -d)
chmod 755 "$stage"
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,etc,usr/bin,usr/sbin}
cp /bin/busybox "$stage/bin/busybox"
cp "$WB_DIR/vm/init" "$stage/init"
cp "$run" "$stage/run.sh"
for spec in "$@"; do
	dest=$stage/${spec#*:}
	mkdir -p "$(dirname "$dest")"
	cp "${spec%%:*}" "$dest"
done
chmod 755 "$stage/init"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
