#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the x86_64 test kernel: kernel.sh [debug|package|bench]
# Prints the path of the bootable image on standard output.
#
# bench is the plain 7.2 kernel with the BPF LSM (config/bench.config),
# for the allocator boots of make bench.
#
# package is the plain 7.2 kernel without the test boot policy, with the
# socket families Debian builds as modules built as modules too
# (config/package.config): make deb packages it. Its first build starts
# from a copy of the plain kernel's output directory, so that only what
# the boot policy and those families' options touch is built again.
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
out=$(kernel_out "$flavour")
fragments=("$WB_DIR/config/kernel.config")
# What differs between the series (config/kernel-KVER.config).
[ -f "$WB_DIR/config/kernel-$KVER.config" ] &&
	fragments+=("$WB_DIR/config/kernel-$KVER.config")
# The plain 7.2 kernel has the shape of a distribution's (distro.config);
# the debug flavour and Linux 6.12 keep to what the tests need, which keeps
# their builds short.
case $flavour in
'' | package | bench)
	[ "$KVER" = 7.2 ] && fragments+=("$WB_DIR/config/distro.config") ;;
esac
[ -n "$flavour" ] && fragments+=("$WB_DIR/config/$flavour.config")
if [ "$flavour" = package ] && [ ! -d "$out" ] && [ -f "$(kernel_out)/.config" ]; then
	say "kernel: $out starts from a copy of $(kernel_out)"
	rm -rf "$out.tmp"
	cp -a --reflink=auto "$(kernel_out)" "$out.tmp" && mv "$out.tmp" "$out"
fi
mkdir -p "$out"
# The boot policy of the plain test kernels lives in this tree: its path
# is known only here. The debug kernel has none, so that its lane sees
# kportreserve.lock=1 wait for the first policy (selftest.sh).
if [ -z "$flavour" ]; then
	echo "CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY=\"$WB_DIR/vm/boot.policy\"" \
		>"$out/boot-policy.config"
	fragments+=("$out/boot-policy.config")
fi

"$WB_DIR/graft.sh"
mkdir -p "$out"

kconfig "$out" "${fragments[@]}"

say "kernel: building $out"
# The package kernel's modules too (package.config), which bindeb-pkg
# then only packages: make check builds this flavour in the background.
targets=(bzImage)
[ "$flavour" != package ] || targets+=(modules)
kbuild kernel "$out" "${targets[@]}" >&2
kernel_image "$flavour"
