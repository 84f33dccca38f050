#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot the kernel with the example policy and show, in plain
# words, who may bind what. The VM ends by itself.
# DEMO=real tells the same story on make e2e's Debian system, with the
# real nginx, systemd, journal and auditd: slower (a Debian image, once,
# and a boot with systemd), so not the default.
. "$(dirname "$0")/lib.sh"

[ "${DEMO:-}" = real ] && E2E_DEMO=1 exec "$WB_DIR/e2e.sh"

kernel=$("$WB_DIR/kernel.sh")
out=$BUILD/demo-$KVER
mkdir -p "$out"
gcc -static -O2 -Wall -o "$out/demo-bind" "$WB_DIR/vm/demo-bind.c"
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$WB_DIR/vm/demo.sh" \
	"$out/demo-bind:opt/kpr/demo-bind" \
	"$WB_DIR/vm/demo.policy:etc/kportreserve/policy"
say "demo: booting $kernel (console log: $out/console.log)"
"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/console.log" 120 quiet loglevel=3
# Show what the payload said, without the kernel's boot chatter.
sed -n '/== kportreserve demo ==/,/The demo is over/p' "$out/console.log" | tr -d '\r'
grep -q 'The demo is over' "$out/console.log" || die "the demo did not finish"
