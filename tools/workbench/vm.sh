#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel in QEMU and watch it:
#   vm.sh KERNEL INITRD LOG [TIMEOUT [CMDLINE...]]
# The guest's console goes to LOG and, with VERBOSE=1, to the terminal.
# Fails when the guest hangs past TIMEOUT seconds, panics, or logs a BUG,
# WARNING, lockdep, RCU, KASAN or kmemleak report.
. "$(dirname "$0")/lib.sh"

kernel=$1 initrd=$2 log=$3 limit=${4:-300}
shift $(($# < 4 ? $# : 4))
# TCG by default: KVM here is nested and fails on XSAVE instructions
# ("KVM internal error"), which would hang the run. KPR_KVM=1 opts in.
accel=tcg
[ -n "${KPR_KVM:-}" ] && [ -w /dev/kvm ] && accel=kvm
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=4 $*"

interactive=${INTERACTIVE:-}
qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" -m 1024 -smp "${VM_SMP:-2}"
      -no-reboot -nographic -kernel "$kernel" -initrd "$initrd"
      -append "$cmdline" ${QEMU_EXTRA:-})
if [ -n "$interactive" ]; then
	exec "${qemu[@]}"
fi

rc=0
if [ -n "${VERBOSE:-}" ]; then
	timeout --foreground "$limit" "${qemu[@]}" </dev/null 2>&1 | tee "$log" || rc=$?
else
	timeout --foreground "$limit" "${qemu[@]}" </dev/null >"$log" 2>&1 || rc=$?
fi
[ "$rc" = 124 ] &&
	die "VM hung: no end after ${limit}s (console log: $log)"
grep -q 'KPR-VM-DONE' "$log" ||
	die "VM ended before its payload did (console log: $log)"
if grep -nE 'BUG:|WARNING:|Kernel panic|Oops|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|detected stalls|soft lockup|hung_task|KASAN:|unreferenced object|kmemleak: [1-9][0-9]* new suspected' "$log" >&2; then
	die "the guest kernel reported a problem (console log: $log)"
fi
exit 0
