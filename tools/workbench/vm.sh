#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel in QEMU and watch it:
#   vm.sh KERNEL INITRD LOG [TIMEOUT [CMDLINE...]]
# The guest's console goes to LOG and, with VERBOSE=1, to the terminal;
# VM_APPEND adds to the kernel command line of every boot.
#
# Every VM lane boots through here, and here it fails when the guest hangs
# past TIMEOUT seconds, stops before its payload is done, or its kernel
# reported a problem (see scan_log) at any log level: at the end of the
# run vm/init prints the whole kernel log between KPR-DMESG-BEGIN and
# KPR-DMESG-END, so what the console's log level kept off the console is
# scanned too. A kernel built with KASAN (the debug flavour) is booted
# with panic_on_warn=1 as well: its first warning ends the run.
. "$(dirname "$0")/lib.sh"

kernel=$1 initrd=$2 log=$3 limit=${4:-300}
shift $(($# < 4 ? $# : 4))
# TCG by default: KVM here is nested and fails on XSAVE instructions
# ("KVM internal error"), which would hang the run. KPR_KVM=1 opts in.
accel=tcg
[ -n "${KPR_KVM:-}" ] && [ -w /dev/kvm ] && accel=kvm
# log_buf_len: the log read back at the end must still hold the boot.
cmdline="console=ttyS0 panic=-1 oops=panic loglevel=5 log_buf_len=8M"
config=${kernel%/arch/x86/boot/bzImage}/.config
grep -qx 'CONFIG_KASAN=y' "$config" 2>/dev/null && cmdline+=" panic_on_warn=1"
# VM_APPEND: more of the command line, for every boot of a lane.
cmdline+=" $* ${VM_APPEND:-}"

interactive=${INTERACTIVE:-}
qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" -m 1024 -smp "${VM_SMP:-2}"
      -no-reboot -nographic -kernel "$kernel" -initrd "$initrd"
      -append "$cmdline" ${QEMU_EXTRA:-})
if [ -n "$interactive" ]; then
	exec "${qemu[@]}"
fi

# The kernel's reports, by the first line each prints: WARN() and the
# lockdep and RCU-usage reports ("WARNING:"), the reports of KASAN,
# sleeping in atomic context and soft lockups ("BUG:"), BUG() ("kernel BUG
# at"), oopses and panics, RCU stalls, hard lockups (where a watchdog can
# see them: not under TCG), hung tasks, kmemleak and UBSAN reports and a
# kmemleak that gave up, and any stack trace at all.
problems='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic'
problems+='|possible recursive locking|possible circular locking'
problems+='|inconsistent lock state|suspicious RCU usage|detected stall'
problems+='|soft lockup|hard LOCKUP|blocked for more than'
problems+='|KASAN:|UBSAN:|unreferenced object|kmemleak: [1-9][0-9]* new suspected'
problems+='|kmemleak: .*disabled'
problems+='|Call Trace:'

# without_injected LOG: LOG, less the reports of allocations that fault
# injection failed on purpose when VM_FAULTS is set (the debug lane's
# failslab and fail_page_alloc test): warn_alloc() reports each with a
# stack trace, from its first line to the trace's "</TASK>". Any other
# report still counts.
without_injected() {
	if [ -n "${VM_FAULTS:-}" ]; then
		tr -d '\r' <"$1" | awk '
			/page allocation failure: order:|vmalloc error: size / { skip = 1 }
			!skip { print }
			skip && /<\/TASK>/ { skip = 0 }'
	else
		cat "$1"
	fi
}

# scan_log LOG: fail when the guest's kernel reported a problem; the
# console lines and the kernel log read back at the end both count.
scan_log() {
	local found

	found=$(without_injected "$1" | grep -anE "$problems" | tr -d '\r' |
		head -n 20) || true
	[ -z "$found" ] && return 0
	say "$found"
	die "the guest kernel reported a problem (console log: $1)"
}

rc=0
if [ -n "${VERBOSE:-}" ]; then
	timeout --foreground "$limit" "${qemu[@]}" </dev/null 2>&1 | tee "$log" || rc=$?
else
	# How long the boot has run, unless the caller judges what vm.sh
	# says (workbench.sh).
	tick=
	if [ "${KPR_PROGRESS:-1}" != 0 ]; then
		ticker "vm: ${log##*/}" "$limit" &
		tick=$!
	fi
	timeout --foreground "$limit" "${qemu[@]}" </dev/null >"$log" 2>&1 || rc=$?
	if [ -n "$tick" ]; then
		kill "$tick" 2>/dev/null || :
		wait "$tick" 2>/dev/null || :
	fi
fi
scan_log "$log"
[ "$rc" = 124 ] &&
	die "VM hung: no end after ${limit}s (console log: $log)"
grep -aq 'KPR-VM-DONE' "$log" ||
	die "VM ended before its payload did (console log: $log)"
grep -aq 'KPR-DMESG-END' "$log" ||
	die "the guest did not print its kernel log (console log: $log)"
# The log read back must start at the boot, or the scan missed its start.
awk '/KPR-DMESG-BEGIN/ { d = 1 } d && /Linux version/ { f = 1 } END { exit !f }' "$log" ||
	die "the kernel log read back lost its start: raise log_buf_len (console log: $log)"
exit 0
