#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kportreserve selftests statically, boot them in the test
# kernel and report: selftest.sh [debug]
# Ends with "NAME: N passed, N failed, N skipped", NAME being selftest or
# selftest-debug; fails when a test fails or the guest reports a problem.
#
# The plain flavour boots three times: once for every test, then twice
# for what only a fresh boot shows and what cannot be undone: the mode
# given by kportreserve.mode= and the lock, and kportreserve.lock=1. The
# debug flavour boots twice: its subset of the tests, then
# kportreserve.lock=1 in a kernel without a boot policy.
# The plain 7.2 kernel, shaped like a distribution's, also runs every
# test in an lsm= matrix (see lsm_boot).
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
name=$(stage_name "selftest${flavour:+-$flavour}")
kernel=$("$WB_DIR/kernel.sh" $flavour)
out=${SELFTEST_OUT:-$BUILD/selftest${flavour:+-$flavour}-$KVER}
mkdir -p "$out"
rm -f "$out"/console-*.log

# Static, as lib.mk lets a caller ask, for the busybox guest: it has no
# C library.
make -s -C "$SRC/tools/testing/selftests/kportreserve" \
	OUTPUT="$out" CC="${CCACHE}gcc" USERLDFLAGS=-static >&2
tests=(kportreserve_test admin_test autobind_test)
# kportreserve(8), static for the busybox guest, and its tests there.
make -s -C "$TOP/tools/kportreserve" O="$out/admin" CC="${CCACHE}gcc" \
	KERNEL_TOOLS_INCLUDE="$SRC/tools/include" static >&2

# What each program runs in each flavour. KASAN and lockdep under TCG run
# the whole suite in about ten minutes; the debug flavour runs what
# allocates, frees and swaps under RCU: loading, identity (the cgroup of
# cgroup= included), stats, concurrency, audit, denials, the sysctl and
# 9p's privport, and a few of the bind variants. SELFTEST_ARGS="" runs everything.
declare -A args
if [ "$flavour" = debug ]; then
	args[kportreserve_test]="-f load -f identity -t stats_count_exactly_what_happened -v ipv4_tcp -v ipv6_sctp"
	args[admin_test]="-t audit_records_denials_loads_and_modes -t denials_name_the_last_offender -t uid_and_gid_qualify_the_program -t uid_list_admits_each_uid_it_names -t cgroup_qualifies_the_program -f mode"
	args[autobind_test]="-t sysctl_reads_back_what_the_admin_wrote -t privport_9p_skips_reserved_ports -v tcp4_connect -v udp4_sendto"
fi
if [ -n "${SELFTEST_ARGS+set}" ]; then
	for t in "${tests[@]}"; do args[$t]=$SELFTEST_ARGS; done
fi

# Under KASAN and TCG the debug subset takes about 8 minutes.
timeout=600
[ "$flavour" = debug ] && timeout=1200

# boot NAME "CMDLINE" PAYLOAD: boot with PAYLOAD as /run.sh; judges the
# results of its console log against expect/$name-NAME, the tests that
# boot must run (tapcheck.py), and adds them to the sums.
pass=0 fail=0 skip=0
boot() {
	local boot=$1 cmdline=$2 payload=$3 log=$out/console-$1.log
	local vm_rc=0 p f s markers=${4:+--marker $4}
	local expect=$WB_DIR/expect/${name%"${KVER_TAG:+-$KVER_TAG}"}-${5:-$boot}
	local files=()

	# The debug flavour exists for kmemleak among others: its scan must
	# have run.
	[ "$flavour" = debug ] && [ "$boot" = main ] &&
		markers="--marker KPR-KMEMLEAK-SCANNED"

	# A subset picked by hand has no list to be judged against.
	[ -n "${SELFTEST_ARGS+set}" ] && expect=-
	printf '%s\n' "$payload" >"$out/run-$boot.sh"
	for t in "${tests[@]}"; do files+=("$out/$t:opt/kpr/$t"); done
	files+=("$out/admin/kportreserve-static:opt/kpr/kportreserve"
		"$TOP/tools/kportreserve/tests/vm.sh:opt/kpr/admin-vm.sh")
	"$WB_DIR/initramfs.sh" "$out/initramfs-$boot.cpio.gz" \
		"$out/run-$boot.sh" "${files[@]}"
	say "$name: booting $kernel ($boot${cmdline:+: $cmdline})"
	# The debug kernel's main boot injects allocation failures
	# (load.faults_lose_nothing): vm.sh leaves their reports out.
	# shellcheck disable=SC2086
	VM_FAULTS=$([ "$flavour" = debug ] && [ "$boot" = main ] && echo 1) \
	"$WB_DIR/vm.sh" "$kernel" "$out/initramfs-$boot.cpio.gz" "$log" \
		"${VM_TIMEOUT:-$timeout}" $cmdline || vm_rc=$?

	# How many injected failures the loads and binds survived.
	grep -a 'KPR-FAULTS' "$log" | tr -d '\r' | sed 's/.*KPR-FAULTS/KPR-FAULTS/' >&2 || true

	grep -aE '^(not )?ok |^# (FAIL|SKIP)|KPR-(RUN|ADMIN|END) ' "$log" >&2 || true
	# shellcheck disable=SC2086
	read -r p f s < <(tapcheck $markers "$expect" "$WB_DIR/expect/skips" \
		"$KVER" "$log")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$vm_rc" = 0 ] || fail=$((fail + 1))
}

# The first program of the main boot probes the boot policy.
# The kernel's messages stay off the console while the tests print their
# results (vm.sh reads the whole log back at the end).
main="dmesg -n 1
timeout 2 nc -l -p 1023 </dev/null >/dev/null 2>&1
dmesg >/tmp/boot.log
export KPR_BOOT_POLICY_PORT=1023 KPR_BOOT_LOG=/tmp/boot.log
rc=0"
for t in "${tests[@]}"; do
	main+="
echo KPR-RUN $t at \$(cut -d' ' -f1 /proc/uptime) s; /opt/kpr/$t ${args[$t]:-} || rc=1"
done
# kportreserve(8) against the real files: user space, so the plain boot
# is enough.
[ -z "$flavour" ] && main+='
echo KPR-ADMIN at $(cut -d" " -f1 /proc/uptime) s
sh /opt/kpr/admin-vm.sh /opt/kpr/kportreserve || rc=1'
main+='
echo KPR-END at $(cut -d" " -f1 /proc/uptime) s
# A test may have mounted debugfs already (load.faults_lose_nothing).
if [ -d /sys/kernel/debug ] &&
   { [ -e /sys/kernel/debug/kmemleak ] ||
     mount -t debugfs debugfs /sys/kernel/debug; } &&
   [ -e /sys/kernel/debug/kmemleak ]; then
	echo clear >/sys/kernel/debug/kmemleak
	/opt/kpr/kportreserve_test -t every_error_class_keeps_policy \
		-t read_back_round_trip >/dev/null 2>&1
	/opt/kpr/admin_test -t denials_name_the_last_offender >/dev/null 2>&1
	sleep 1; echo scan >/sys/kernel/debug/kmemleak &&
	sleep 6 && echo scan >/sys/kernel/debug/kmemleak &&
	cat /sys/kernel/debug/kmemleak && echo KPR-KMEMLEAK-SCANNED
fi
exit $rc'
# lsm_boot NAME LSMS [default]: the main boot's tests, with lsm=LSMS, or
# with the kernel's default lsm= that LSMS spells out: the LSMs that
# /sys/kernel/security/lsm must list, besides capability, all of them.
lsm_boot() {
	local check

	check=$(cat <<-EOF
	want=\$(echo capability,$2 | tr , '\n' | sort)
	have=\$(tr , '\n' </sys/kernel/security/lsm | sort)
	if [ "\$have" = "\$want" ]; then echo KPR-LSM-LISTED
	else echo KPR-LSM-WRONG \$(cat /sys/kernel/security/lsm); fi
	EOF
	)
	boot "$1" "$([ -n "${3:-}" ] || echo "lsm=$2")" "$check
$main" KPR-LSM-LISTED main
}

if [ -z "$flavour" ] && [ -z "${SELFTEST_ARGS+set}" ] && [ "$KVER" = 7.2 ]; then
	# The default lsm= of distro.config: kportreserve last, beside
	# AppArmor, TOMOYO and the minor LSMs (SELinux gives way to AppArmor,
	# as both want the exclusive blobs).
	lsm_boot main "$(distro_lsms),kportreserve" default
	# First, beside SELinux; in the middle, beside AppArmor.
	lsm_boot lsm-first "kportreserve,landlock,lockdown,yama,loadpin,safesetid,ipe,selinux,tomoyo"
	lsm_boot lsm-middle "landlock,lockdown,yama,loadpin,kportreserve,safesetid,ipe,apparmor,tomoyo"
else
	boot main "" "$main"
fi

# The lock boots: what cannot be undone.
if [ -z "$flavour" ] && [ -z "${SELFTEST_ARGS+set}" ]; then
	boot lock "kportreserve.mode=permissive" \
		"dmesg -n 1; echo KPR-RUN admin_test; KPR_LOCK_TEST=1 /opt/kpr/admin_test -f lock; echo KPR-END"
	boot locked-at-boot "kportreserve.lock=1" \
		"dmesg -n 1; echo KPR-RUN admin_test; KPR_LOCKED_AT_BOOT=1 /opt/kpr/admin_test -t locked_at_boot_keeps_boot_policy; echo KPR-END"
fi

# kportreserve.lock=1 without a boot policy, which only the debug kernel
# lacks: the lock waits for the first policy loaded.
if [ "$flavour" = debug ] && [ -z "${SELFTEST_ARGS+set}" ]; then
	boot lock-waits "kportreserve.lock=1" \
		"dmesg -n 1; echo KPR-RUN admin_test; KPR_LOCK_WAITS=1 /opt/kpr/admin_test -t lock_waits_for_the_first_policy; echo KPR-END"
fi

echo "$name: $pass passed, $fail failed, $skip skipped"
[ -n "$flavour" ] && { [ "$fail" = 0 ]; exit; }
# kportreserve(8) against the real securityfs, from the main boot, judged
# against the list expect/admin-vm.
read -r p f s < <(tapcheck --plain admin-vm "$WB_DIR/expect/admin-vm" \
	"$WB_DIR/expect/skips" "$KVER" "$out/console-main.log" KPR-ADMIN)
echo "$(stage_name admin-vm): $p passed, $f failed"
[ "$fail" = 0 ] && [ "$f" = 0 ]
