#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the x86_64 test kernel: kernel.sh [debug]
# Prints the path of the bootable image on standard output.
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
out=$(kernel_out "$flavour")
fragments=("$WB_DIR/config/kernel.config")
# The plain 6.12 kernel has the shape of a distribution's (distro.config);
# the debug flavour and Linux 6.1 keep to what the tests need, which keeps
# their builds short.
if [ -z "$flavour" ] && [ "$KVER" = 6.12 ]; then
	fragments+=("$WB_DIR/config/distro.config")
fi
[ -n "$flavour" ] && fragments+=("$WB_DIR/config/$flavour.config")
mkdir -p "$out"
# The boot policy lives in this tree: its path is known only here.
echo "CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY=\"$WB_DIR/vm/boot.policy\"" \
	>"$out/boot-policy.config"
fragments+=("$out/boot-policy.config")

"$WB_DIR/graft.sh"
mkdir -p "$out"

kconfig "$out" "${fragments[@]}"

say "kernel: building $out"
kmake O="$out" -s bzImage >&2
kernel_image "$flavour"
