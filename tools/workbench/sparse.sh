#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the path of a sparse that the kernel of KVER accepts for C=1/C=2.
#
# Linux 7.2 asks its checker for __typeof_unqual__ (scripts/checker-valid.sh),
# which Debian 12's sparse 0.6.4 and trixie's lack; without it kbuild
# warns once and checks nothing. sid's sparse 0.6.5~rc1 has it, but its
# binary package needs sid's libc. So its Debian source package is
# fetched (a deb-src entry for sid: apt can install nothing from it) and
# built here, once, into build/sparse: about ten seconds.
. "$(dirname "$0")/lib.sh"

valid() {
	[ ! -f "$SRC/scripts/checker-valid.sh" ] ||
		[ "$(sh "$SRC/scripts/checker-valid.sh" "$1" -m64 2>/dev/null)" = 1 ]
}

"$WB_DIR/graft.sh"
if valid sparse; then
	command -v sparse
	exit 0
fi
dir=$BUILD/sparse
if [ -x "$dir/bin/sparse" ] && valid "$dir/bin/sparse"; then
	echo "$dir/bin/sparse"
	exit 0
fi

src=/etc/apt/sources.list.d/kportreserve-sid-src.sources
if [ ! -f "$src" ]; then
	[ "$(id -u)" = 0 ] || die "need root to add $src"
	say "sparse: adding sid's source packages to apt ($src), for sparse"
	cat >"$src" <<-'SOURCES'
	# kportreserve's workbench (tools/workbench/sparse.sh): the source
	# of sid's sparse, built for Linux 7.2's checker test. Sources only:
	# no binary package comes from here.
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: sid
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	SOURCES
	apt-get update -qq >/dev/null
fi
rm -rf "$dir" && mkdir -p "$dir/src"
(cd "$dir/src" && apt-get source -qq --download-only sparse/sid) >/dev/null 2>&1 ||
	die "sparse: apt-get source sparse/sid failed"
tar -C "$dir/src" -xzf "$dir"/src/sparse_*.orig.tar.gz
make -s -C "$dir"/src/sparse-*/ -j"$JOBS" sparse >/dev/null 2>&1 ||
	die "sparse: sid's sparse does not build"
mkdir -p "$dir/bin"
cp "$dir"/src/sparse-*/sparse "$dir/bin/sparse"
valid "$dir/bin/sparse" || die "sparse: sid's sparse fails $SRC/scripts/checker-valid.sh too"
say "sparse: built $(basename "$dir"/src/sparse_*.dsc .dsc) from sid's source package"
echo "$dir/bin/sparse"
