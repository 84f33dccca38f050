#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put our tree into a pristine Linux source: unpack it once, copy our
# files over it (only those that changed, so rebuilds stay short; for
# Linux 6.1 with its backport layer applied) and apply the glue patches of
# the series, each once.
. "$(dirname "$0")/lib.sh"

# mutants.sh has put a deliberate defect into the grafted tree: keep it.
[ -n "${KPR_KEEP_GRAFT:-}" ] && [ -f "$SRC/.unpacked" ] && exit 0

tarball=/usr/src/linux-source-$KVER.tar.xz
patches=$WB_DIR/patches/$KVER

if [ ! -f "$SRC/.unpacked" ]; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
	say "graft: unpacking $tarball"
	rm -rf "$SRC" "$BUILD/linux-source-$KVER"
	mkdir -p "$BUILD"
	tar -C "$BUILD" -xf "$tarball"
	mv "$BUILD/linux-source-$KVER" "$SRC"
	touch "$SRC/.unpacked"
fi

# Our files, as laid out in the kernel tree, staged first: an older series
# than the one the sources are written for applies its backport layer
# there (patches/KVER/backport/: patches over our own sources, which the
# upstream series never sees). --checksum then keeps the mtime of
# unchanged files, so make rebuilds only what was edited.
ours=(security/kportreserve lib/kunit-tests
      tools/testing/selftests/kportreserve Documentation/admin-guide/LSM)
stage=$BUILD/graft-$KVER
rm -rf "$stage"
for dir in "${ours[@]}"; do
	[ -d "$TOP/$dir" ] || continue
	mkdir -p "$stage/$dir"
	cp -a "$TOP/$dir/." "$stage/$dir/"
done
for p in "$patches"/backport/*.patch; do
	[ -e "$p" ] || continue
	patch -d "$stage" -p1 -s -f --no-backup-if-mismatch <"$p" ||
		die "backport patch $(basename "$p") does not apply"
done
for dir in "${ours[@]}"; do
	[ -d "$stage/$dir" ] || continue
	mkdir -p "$SRC/$dir"
	rsync -r --checksum "$stage/$dir/" "$SRC/$dir/"
done

# The workbench's selfcheck suite, in the test kernels only: its Kbuild
# file takes our lib/kunit-tests/Makefile and adds the suite.
rsync -r --checksum "$WB_DIR/selfcheck/" "$SRC/lib/kunit-tests/"

# kunit.py --kunitconfig security/kportreserve, as in a kernel tree.
cp "$TOP/.kunitconfig" "$SRC/security/kportreserve/.kunitconfig"

for p in "$patches"/*.patch; do
	[ -e "$p" ] || continue
	if patch -d "$SRC" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
		continue	# already applied
	fi
	patch -d "$SRC" -p1 -s -f --no-backup-if-mismatch <"$p" ||
		die "glue patch $(basename "$p") does not apply"
done
