#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make e2e: kportreserve on a real Debian system. A Debian trixie root
# made by mmdebstrap (systemd, auditd, nginx-light, rpcbind, nfs-common,
# python3, AppArmor, SELinux's selinux-policy-default), cached under
# build/e2e/ by its package list; the kportreserve package and the
# kernel's (make deb: the distribution-shaped kernel packaged by
# bindeb-pkg) installed into a copy with apt, as an administrator would;
# that copy labelled for SELinux (setfiles) and booted from a virtio disk
# with systemd as PID 1 on the kernel its package installed in /boot (QEMU
# boots that vmlinuz directly: there is no boot loader), four times:
#
#   main    kpr-e2e.service (e2e/check.sh) runs the checks once
#           multi-user.target is reached, with the real programs;
#   reboot  the same disk again: the policy is in force again;
#   lock    with kportreserve.lock=1: kportreserve load fails (exit 3);
#   selinux a copy of the disk as mkfs made it, with security=selinux
#           enforcing=1: SELinux, not AppArmor, is the major LSM,
#           enforcing Debian's policy with the package's own module
#           (no rule of the test's), and kportreserve still works beside
#           it (and SELinux still refuses what its policy denies).
#
# E2E_PHASES, when set, names the boots to run (reboot and lock need
# main's changes to the disk; "none" only makes the disk). E2E_SUITE is
# the Debian release: trixie, Debian 13 (bookworm, Debian 12, passes the
# same checks).
#
# With E2E_DEMO=1 (make demo DEMO=real) it boots once instead and prints
# the story e2e/demo.sh tells on that system.
#
# The guest prints "KPR-E2E: ok N - ..." or "not ok" a check on its
# serial console; vm.sh fails a boot on a kernel splat. E2E_KERNEL, when
# set, is a bzImage to boot instead of a packaged kernel (none is built
# or installed); E2E_DEB the kportreserve .deb instead of one built
# here. Ends with
# "e2e: N passed, N failed".
. "$(dirname "$0")/lib.sh"

out=$BUILD/e2e
run=$out/run
stage=$(stage_name e2e)
mkdir -p "$out"

need_packages e2e mmdebstrap e2fsprogs qemu-system-x86 cpio
# mmdebstrap in root mode, chroot and mkfs.ext4 -d with the owners kept.
[ "$(id -u)" = 0 ] || die "make e2e needs root (mmdebstrap, chroot)"

# The Debian archive this machine reaches: the first URIs of its sources.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
	2>/dev/null | grep -v security | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
	/etc/apt/sources.list 2>/dev/null)
export E2E_SUITE=${E2E_SUITE:-trixie} E2E_MIRROR=${mirror:-http://deb.debian.org/debian}
export E2E_PACKAGES=systemd,systemd-sysv,udev,dbus,auditd,nginx-light,rpcbind,nfs-common,python3,apparmor,apparmor-utils,iproute2,kmod,procps,util-linux,login,passwd,netbase,selinux-basics,selinux-policy-default

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); say "e2e: ok - $1"; }
fail() {
	failed=$((failed + 1))
	say "e2e: FAILED - $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/e2e:   /' >&2
}
finish() {
	if [ "$skipped" = 0 ]; then
		echo "$stage: $passed passed, $failed failed"
	else
		echo "$stage: $passed passed, $failed failed, $skipped skipped"
	fi
	[ "$failed" = 0 ]
	exit
}

# The root, cached by what makes it.
key=$( { echo "$E2E_SUITE $E2E_MIRROR $E2E_PACKAGES"; cat "$WB_DIR/e2e/image.sh"; } |
	sha256sum | cut -c1-16)
root=$out/root-$key
if [ ! -d "$root" ]; then
	say "e2e: mmdebstrap $E2E_SUITE into $root (log $out/image.log)"
	start=$SECONDS
	ticker "e2e: mmdebstrap" 1800 &
	tick=$!
	ok=0
	"$WB_DIR/e2e/image.sh" "$root" >"$out/image.log" 2>&1 || ok=$?
	kill "$tick" 2>/dev/null || :
	wait "$tick" 2>/dev/null || :
	if [ "$ok" = 0 ]; then
		pass "Debian $E2E_SUITE root made by mmdebstrap in $((SECONDS - start))s"
	else
		fail "Debian $E2E_SUITE root made by mmdebstrap ($out/image.log)" \
			"$(tail -n 20 "$out/image.log")"
		finish
	fi
fi

# The packages: make deb's, unless given.
kernel=${E2E_KERNEL:-}
deb=${E2E_DEB:-}
kdeb=
if [ -z "$deb" ] || [ -z "$kernel" ]; then
	DEB_KERNEL=$([ -n "$kernel" ] && echo 0 || echo 1) "$WB_DIR/deb.sh" >&2 ||
		fail "make deb passed its checks (its lines above)"
	[ -n "$deb" ] || deb=$(ls "$BUILD"/deb/kportreserve_*.deb 2>/dev/null | head -n 1)
	[ -n "$deb" ] || { fail "make deb built the kportreserve package"; finish; }
	if [ -z "$kernel" ]; then
		kdeb=$(ls "$BUILD"/deb/kernel/linux-image-*.deb 2>/dev/null |
			grep -v -- -dbg_ | head -n 1)
		[ -n "$kdeb" ] || { fail "make deb built the kernel package"; finish; }
	fi
fi
[ -z "$kernel" ] || [ -f "$kernel" ] || die "no kernel at $kernel"

say "e2e: copying the root to $run"
# A run that died while /proc was mounted in the copy (below) left it.
! mountpoint -q "$run/root/proc" || umount "$run/root/proc"
rm -rf --one-file-system "$run"
mkdir -p "$run"
cp -a "$root" "$run/root"
r=$run/root
# apt installs the packages as an administrator would, from files.
debs=()
for d in "$deb" $kdeb; do
	cp "$d" "$r/root/"
	debs+=("/root/$(basename "$d")")
done
if chroot "$r" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y "${debs[@]}" >"$run/apt.log" 2>&1; then
	pass "apt-get install ${debs[*]#/root/}"
else
	fail "apt-get install ${debs[*]#/root/} ($run/apt.log)" "$(tail -n 20 "$run/apt.log")"
	finish
fi
# QEMU boots the kernel that the package put in /boot.
if [ -n "$kdeb" ]; then
	kernel=$(ls "$r"/boot/vmlinuz-* 2>/dev/null | head -n 1)
	[ -n "$kernel" ] || { fail "the kernel package installed /boot/vmlinuz"; finish; }
	cp "$kernel" "$run/vmlinuz"
	say "e2e: booting $(basename "$kernel") from $(basename "$kdeb")"
	kernel=$run/vmlinuz
fi

# What the checks need: their unit, a policy drop-in, a sysctl.d file,
# the AppArmor profiles.
install -D -m 755 "$WB_DIR/e2e/check.sh" "$r/usr/local/lib/kpr-e2e/check.sh"
install -D -m 755 "$WB_DIR/e2e/demo.sh" "$r/usr/local/lib/kpr-e2e/demo.sh"
install -D -m 755 "$WB_DIR/e2e/families.py" "$r/usr/local/lib/kpr-e2e/families.py"
# The owner of the policy's ranges: a program that exists (kportreserve
# check warns of one that does not) and never runs.
install -D -m 755 "$r/usr/bin/true" "$r/usr/local/bin/kpr-e2e-owner"
cp "$WB_DIR"/e2e/guest/kpr-e2e.service "$r/etc/systemd/system/"
ln -sf /etc/systemd/system/kpr-e2e.service \
	"$r/etc/systemd/system/multi-user.target.wants/kpr-e2e.service"
# No login prompt on the console: agetty's vhangup() would cut the
# checks' output off.
ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
mkdir -p "$r/etc/kportreserve/policy.d"
cp "$WB_DIR"/e2e/guest/50-e2e.policy "$r/etc/kportreserve/policy.d/"
cp "$WB_DIR"/e2e/guest/60-kpr-e2e.conf "$r/etc/sysctl.d/"
cp "$WB_DIR"/e2e/guest/apparmor/* "$r/etc/apparmor.d/"

# SELinux, for the selinux boot; the AppArmor boots ignore it. /proc is
# mounted for semodule and setfiles (which sets each label through
# /proc/self/fd).
mount -t proc proc "$r/proc"
# The package's postinst installed its SELinux module, which lets
# kportreserve.service load its policy under SELinux: the selinux boot
# has no rule of the test's own.
if chroot "$r" semodule -n -l 2>&1 | tee "$run/semodule.log" | grep -qx kportreserve; then
	pass "apt-get install put the package's SELinux module in the policy store"
else
	fail "apt-get install put the package's SELinux module in the policy store" \
		"$(tail -n 20 "$run/semodule.log")"
fi
# The labels of Debian's policy, written as security.selinux attributes
# (this host's kernel does not check them); mkfs.ext4 -d copies them.
start=$SECONDS
if chroot "$r" setfiles -F /etc/selinux/default/contexts/files/file_contexts / \
	>"$run/setfiles.log" 2>&1; then
	pass "setfiles labelled the root for SELinux ($((SECONDS - start))s)"
else
	fail "setfiles labelled the root for SELinux ($run/setfiles.log)" \
		"$(tail -n 20 "$run/setfiles.log")"
fi
umount "$r/proc"

say "e2e: mkfs.ext4 -d $r"
truncate -s 3G "$run/disk.img"
mkfs.ext4 -q -F -L root -d "$r" "$run/disk.img" >"$run/mkfs.log" 2>&1 ||
	{ fail "mkfs.ext4 -d" "$(cat "$run/mkfs.log")"; finish; }
rm -rf "$r"
# No initramfs: an empty one, since vm.sh passes one; the root is /dev/vda.
cpio -o -H newc </dev/null >"$run/empty.cpio" 2>/dev/null

# boot PHASE CHECKS TIMEOUT [CMDLINE...]: one boot of the disk; the guest's
# checks counted, and each check missing from its "1..N" fails.
boot() {
	local phase=$1 want=$2 limit=$3 log=$run/$1.log start=$SECONDS p k f plan
	local disk=$run/disk.img
	[ ! -f "$run/$phase.img" ] || disk=$run/$phase.img
	shift 3
	say "e2e: booting ($phase), console log $log"
	if QEMU_EXTRA="-drive file=$disk,format=raw,if=virtio -nic none" \
		"$WB_DIR/vm.sh" "$kernel" "$run/empty.cpio" "$log" "$limit" \
		root=/dev/vda rw kpr_e2e.phase="$phase" kpr_e2e.kdeb="${kdeb:+1}" "$@"; then
		pass "$phase boot: ended, no kernel splat ($((SECONDS - start))s)"
	else
		fail "$phase boot: ended, no kernel splat ($log)" "$(tail -n 5 "$log")"
	fi
	grep -a '^KPR-E2E: ' "$log" | tr -d '\r' | sed 's/^KPR-E2E: //' >"$run/$phase.tap"
	p=$(grep '^ok ' "$run/$phase.tap" | grep -vc ' # SKIP') || true
	k=$(grep -c '^ok .* # SKIP' "$run/$phase.tap") || true
	f=$(grep -c '^not ok ' "$run/$phase.tap") || true
	grep -E '^(ok|not ok|#)' "$run/$phase.tap" | sed "s/^/e2e: $phase: /" >&2
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$run/$phase.tap")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
	if [ "$((p + k + f))" -lt "$want" ] || [ "${plan:-0}" != "$want" ]; then
		fail "$phase: $want checks ran (ran $((p + k + f)), plan ${plan:-none})"
	fi
}

# make demo DEMO=real: one boot that tells the story (e2e/demo.sh).
if [ -n "${E2E_DEMO:-}" ]; then
	say "e2e: booting (demo), console log $run/demo.log"
	QEMU_EXTRA="-drive file=$run/disk.img,format=raw,if=virtio -nic none" \
		"$WB_DIR/vm.sh" "$kernel" "$run/empty.cpio" "$run/demo.log" 900 \
		root=/dev/vda rw quiet kpr_e2e.phase=demo || true
	grep -a '^KPR-DEMO: ' "$run/demo.log" | tr -d '\r' | sed 's/^KPR-DEMO: \{0,1\}//'
	grep -aq 'The demo is over' "$run/demo.log" ||
		die "the demo did not finish (console log $run/demo.log)"
	exit 0
fi

# E2E_PHASES: the boots to run, of "main reboot lock selinux".
phases=" ${E2E_PHASES:-main reboot lock selinux} "
# The selinux boot gets a copy of the disk as mkfs made it: the main boot
# reinstalls nginx and writes files with SELinux off, which leaves them
# unlabelled (the reinstalled /usr/sbin/nginx would not be httpd_exec_t).
[[ $phases != *" selinux "* ]] ||
	cp --sparse=always "$run/disk.img" "$run/selinux.img"
[[ $phases != *" main "* ]] || boot main 30 1500
[[ $phases != *" reboot "* ]] || boot reboot 5 600
[[ $phases != *" lock "* ]] || boot lock 3 600 kportreserve.lock=1
[[ $phases != *" selinux "* ]] ||
	boot selinux 9 600 security=selinux enforcing=1
finish
