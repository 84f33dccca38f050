#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Put our tree into a pristine Linux source: unpack it once, copy our
# files over it (only those that changed, so rebuilds stay short; for
# Linux 6.12 with its backport layer applied) and apply the glue patches
# of the series, each once.
#
# A warm tree tests what a cold one would: a new upload of Debian's
# source package (the security archive moves 6.12 often) unpacks afresh,
# a file removed from our tree leaves the grafted one, and a glue patch
# that changed or left the series is taken back before the new one goes
# in.
. "$(dirname "$0")/lib.sh"

# mutants.sh has put a deliberate defect into the grafted tree: keep it.
[ -n "${KPR_KEEP_GRAFT:-}" ] && [ -f "$SRC/.unpacked" ] && exit 0

# KPR_TARBALL: another tarball of the same layout (workbench.sh's test).
tarball=${KPR_TARBALL:-/usr/src/linux-source-$KVER.tar.xz}
patches=$WB_DIR/patches/$KVER

# make check builds a kernel in the background while the stages in front
# build and boot another of the same tree: one graft at a time.
mkdir -p "$BUILD"
exec 9>"$BUILD/.graft-$KVER.lock"
flock 9

[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
# The upload that was unpacked: the package's version, and the tarball's
# size and time in case it came from elsewhere.
upload="$(dpkg-query -W -f='${Version}' "linux-source-$KVER" 2>/dev/null || :) \
$(stat -c '%s %Y' "$tarball")"
if [ ! -f "$SRC/.unpacked" ] || [ "$(cat "$SRC/.unpacked")" != "$upload" ]; then
	say "graft: unpacking $tarball ($upload)"
	rm -rf "$SRC" "$BUILD/linux-source-$KVER"
	# --touch: files of the new upload are newer than the objects built
	# from the last one, so make builds them again.
	tar -C "$BUILD" --touch -xf "$tarball"
	mv "$BUILD/linux-source-$KVER" "$SRC"
	echo "$upload" >"$SRC/.unpacked"
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
# The workbench's own KUnit suites, in the test kernels only: the
# selfcheck suite and the lookup microbenchmark. The Kbuild file of
# selfcheck/ takes our lib/kunit-tests/Makefile and adds them.
mkdir -p "$stage/lib/kunit-tests"
cp -a "$WB_DIR/selfcheck/." "$WB_DIR/bench/kportreserve_bench_kunit.c" \
	"$stage/lib/kunit-tests/"
for dir in "${ours[@]}"; do
	[ -d "$stage/$dir" ] || continue
	mkdir -p "$SRC/$dir"
	rsync -r --checksum "$stage/$dir/" "$SRC/$dir/"
done

# What the last graft put in and this one did not (a file removed from
# our tree) leaves the source. The list is of our files only: the
# directories we share with Linux (Documentation/admin-guide/LSM) keep
# theirs.
grafted=$SRC/.kpr-grafted
(cd "$stage" && find . -type f | sort) >"$grafted.new"
if [ -f "$grafted" ]; then
	comm -23 "$grafted" "$grafted.new" | while IFS= read -r f; do
		say "graft: removing $f"
		rm -f "$SRC/$f"
	done
fi
mv "$grafted.new" "$grafted"

# kunit.py --kunitconfig security/kportreserve, as in a kernel tree.
cp "$TOP/.kunitconfig" "$SRC/security/kportreserve/.kunitconfig"

# The glue patches in force are kept, as applied, in .kpr-glue/. One that
# changed or left the series is taken back first, last first (no two glue
# patches touch the same file).
applied=$SRC/.kpr-glue
mkdir -p "$applied"
shopt -s nullglob
in_force=("$applied"/*.patch)
for ((i = ${#in_force[@]} - 1; i >= 0; i--)); do
	a=${in_force[i]}
	cmp -s "$a" "$patches/$(basename "$a")" && continue
	say "graft: taking back glue patch $(basename "$a")"
	patch -d "$SRC" -p1 -R -s -f --no-backup-if-mismatch <"$a" ||
		die "glue patch $(basename "$a") does not come off: rm -r $SRC"
	rm "$a"
done
for p in "$patches"/*.patch; do
	[ -e "$p" ] || continue
	[ -f "$applied/$(basename "$p")" ] && continue
	# A tree grafted before .kpr-glue/ existed has it applied already.
	if ! patch -d "$SRC" -p1 -R --dry-run -s -f <"$p" >/dev/null 2>&1; then
		patch -d "$SRC" -p1 -s -f --no-backup-if-mismatch <"$p" ||
			die "glue patch $(basename "$p") does not apply"
	fi
	cp "$p" "$applied/"
done
