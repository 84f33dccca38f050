#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The per-patch build of make patches (its PATCHES_BUILD hook):
#   patch-build.sh TREE N
# builds in TREE, checked out at patch N of the series, what that patch
# adds, with what the patches before it added:
#   1 the rxrpc fix: configure (tinyconfig plus the workbench's
#     kernel.config and, for 7.2, distro.config) and compile
#     net/rxrpc/af_rxrpc.c
#   2 the sunrpc fix: compile net/sunrpc/xprtsock.c
#   3 sunrpc skipping the sysctl's ports: compile the same file
#   4 9p skipping them: compile net/9p/trans_fd.c
#   5 the network stack's reservations: compile the sysctl's file, the
#     allocators that test the bitmap and its sunrpc and 9p users
#   6-11 the LSM, one concern a patch (core, audit, boot policy, mode
#     and lock, denials, automatic assignment): configure again, now that
#     its Kconfig is there, compile security/kportreserve/ and link it on
#     its own, which must leave no kpr_ symbol undefined: a call put in
#     before the patch that adds its callee compiles, but does not link
#  12 the KUnit tests: compile lib/kunit-tests/
#  13 the selftests: build them with their Makefile
#  14 kportreserve(8): build it with its Makefile
#  15 the admin guide: kernel-doc -Wall on the sources, docutils on it
# Objects go to build/patch-build-KVER, kept from patch to patch.
. "$(dirname "$0")/lib.sh"

tree=$1 n=$2
out=$BUILD/patch-build-$KVER
pmake() {
	make -C "$tree" O="$out" -j"$JOBS" CC="${CCACHE}gcc" HOSTCC="${CCACHE}gcc" \
		-s "$@"
}

fragments=("$WB_DIR/config/kernel.config")
# What differs between the series (config/kernel-KVER.config).
[ -f "$WB_DIR/config/kernel-$KVER.config" ] &&
	fragments+=("$WB_DIR/config/kernel-$KVER.config")
[ "$KVER" = 7.2 ] && fragments+=("$WB_DIR/config/distro.config")
configure() {
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "${fragments[@]}" >/dev/null)
	pmake olddefconfig >/dev/null
}

case $n in
1)
	rm -rf "$out"
	mkdir -p "$out"
	pmake tinyconfig >/dev/null
	configure
	grep -qx 'CONFIG_AF_RXRPC=y' "$out/.config" ||
		die "patch 1: the configuration has no AF_RXRPC"
	pmake net/rxrpc/af_rxrpc.o
	;;
2 | 3)
	grep -qx 'CONFIG_SUNRPC=y' "$out/.config" ||
		die "patch $n: the configuration has no SUNRPC"
	pmake net/sunrpc/xprtsock.o
	;;
4)
	pmake net/9p/trans_fd.o
	;;
5)
	pmake net/ipv4/sysctl_net_ipv4.o net/ipv4/inet_connection_sock.o \
		net/ipv4/inet_hashtables.o net/ipv4/udp.o net/sctp/socket.o \
		net/sunrpc/xprtsock.o net/9p/trans_fd.o
	;;
[6-9] | 1[01])
	configure
	grep -qx 'CONFIG_SECURITY_KPORTRESERVE=y' "$out/.config" ||
		die "patch $n: CONFIG_SECURITY_KPORTRESERVE did not stick"
	pmake security/kportreserve/
	ld -r -z noexecstack --whole-archive "$out/security/kportreserve/built-in.a" \
		-o "$out/kportreserve-alone.o"
	undefined=$(nm -u "$out/kportreserve-alone.o" | awk '$2 ~ /^kpr_/ { print $2 }')
	[ -z "$undefined" ] ||
		die "patch $n: security/kportreserve/ calls what it does not define:" $undefined
	;;
12)
	grep -qx 'CONFIG_SECURITY_KPORTRESERVE_KUNIT_TEST=y' "$out/.config" ||
		die "patch 12: the KUnit tests are not configured"
	pmake lib/kunit-tests/
	[ -f "$out/lib/kunit-tests/kportreserve_policy_kunit.o" ] ||
		die "patch 12: lib/kunit-tests was not built"
	;;
13)
	mkdir -p "$out/selftests"
	make -s -C "$tree/tools/testing/selftests/kportreserve" \
		OUTPUT="$out/selftests" CC="${CCACHE}gcc"
	;;
14)
	make -s -C "$tree/tools/kportreserve" O="$out/admin" CC="${CCACHE}gcc"
	;;
15)
	rst='import docutils.core, sys
docutils.core.publish_string(open(sys.argv[1]).read(), writer_name="null",
	settings_overrides={"report_level": 2, "halt_level": 5})'
	python3 -c "$rst" "$tree/Documentation/admin-guide/LSM/kportreserve.rst"
	wall=-Wall	# kept for kernel-doc versions without it
	"$tree/scripts/kernel-doc" -h 2>&1 | grep -q -- -Wall || wall=
	for f in "$tree"/security/kportreserve/*.[ch] "$tree"/lib/kunit-tests/*.c; do
		"$tree/scripts/kernel-doc" $wall -none "$f"
	done 2>&1 | { ! grep .; }
	;;
*)
	die "patch-build: no patch $n in the series"
	;;
esac
