#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make shell: an interactive VM with the example policy loaded. Leave with
# "exit" (the VM powers off) or Ctrl-a x.
. "$(dirname "$0")/lib.sh"

kernel=$("$WB_DIR/kernel.sh")
out=$BUILD/shell-$KVER
mkdir -p "$out"
gcc -static -O2 -Wall -o "$out/demo-bind" "$WB_DIR/vm/demo-bind.c"
printf '%s\n' 'echo "kportreserve shell: policy in /sys/kernel/security/kportreserve; /opt/kpr/demo-bind PORT [udp] binds a port"' \
	'setsid cttyhack sh -l' >"$out/run.sh"
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh" \
	"$out/demo-bind:opt/kpr/demo-bind" \
	"$WB_DIR/vm/demo.policy:etc/kportreserve/policy"
INTERACTIVE=1 exec "$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" /dev/null 0 quiet
