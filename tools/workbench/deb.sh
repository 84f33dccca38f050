#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the Debian packages, made with Debian's own tools, in
# build/deb/.
#
# kportreserve_VERSION_ARCH.deb: kportreserve(8), its man page, the
# systemd unit and /etc/kportreserve/, from tools/kportreserve/debian
# (debhelper, compat 13) by dpkg-buildpackage -b -us -uc in a staged copy
# of tools/kportreserve/, security/kportreserve/ (the parser) and the
# grafted kernel's tools/include/ (the headers the parser builds with), then
# checked: lintian without an error or a warning, the files and conffiles
# it holds, its maintainer scripts, and its command run from the unpacked
# package on policy files under a fake root and a fake securityfs.
#
# kernel/: the distribution-shaped kernel without the workbench's test
# boot policy ("kernel.sh package", build/kernel-7.2-package) packaged
# with the kernel's own "make bindeb-pkg" in that output directory, and
# checked: it holds /boot/vmlinuz and a config whose boot policy is
# empty. DEB_KERNEL=0 skips it: a first build copies the plain kernel's
# objects and links again, or builds a whole kernel where there is none.
#
# Ends with "deb: N passed, N failed" (", 1 skipped" with DEB_KERNEL=0).
. "$(dirname "$0")/lib.sh"

DEB_KERNEL=${DEB_KERNEL:-1}
out=$BUILD/deb
log=$out/build.log
pkgdir=$TOP/tools/kportreserve/debian

# Debian's packaging tools, installed here rather than for every target,
# and what the kernel's bindeb-pkg declares as Build-Depends-Arch
# (scripts/package/mkdebian): 7.2 adds libdw-dev.
need_packages deb debhelper dpkg-dev fakeroot lintian
[ "$DEB_KERNEL" = 0 ] || need_packages deb bc libdw-dev libelf-dev \
	libssl-dev kmod python3 rsync

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); say "deb: ok - $1"; }
fail() {
	failed=$((failed + 1))
	say "deb: FAILED - $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/deb:   /' >&2
}

version=$(dpkg-parsechangelog -l "$pkgdir/changelog" -S Version)
arch=$(dpkg-architecture -q DEB_HOST_ARCH)
deb=$out/kportreserve_${version}_$arch.deb
changes=$out/kportreserve_${version}_$arch.changes
stage=$out/kportreserve-$version
rm -rf "$out"
mkdir -p "$stage/tools" "$stage/security"

# The staged source: laid out as a kernel tree, so that the command's
# Makefile finds the parser and the kernel's tools/include where it does
# in Linux, with debian/ on top. This repository has no tools/include:
# it comes from the grafted tree.
[ -d "$SRC/tools/include" ] || "$WB_DIR/graft.sh"
rsync -a --exclude=/debian --exclude='*.o' --exclude='*.d' \
	--exclude=/kportreserve --exclude=/kportreserve-static \
	"$TOP/tools/kportreserve/" "$stage/tools/kportreserve/"
rsync -a "$TOP/security/kportreserve/" "$stage/security/kportreserve/"
rsync -a --copy-unsafe-links "$SRC/tools/include/" "$stage/tools/include/"
rsync -a "$pkgdir/" "$stage/debian/"

say "deb: dpkg-buildpackage -b -us -uc in $stage"
if (cd "$stage" && nice -n 19 dpkg-buildpackage -b -us -uc) >"$log" 2>&1 &&
   [ -f "$deb" ]; then
	pass "kportreserve $version built"
else
	fail "kportreserve $version built ($log)" "$(tail -20 "$log")"
fi

# lintian: no error and no warning. Info tags and the two overridden
# ones (debian/kportreserve.lintian-overrides says why) are shown.
lint=$(lintian --info --display-info --show-overrides "$changes" 2>&1) || true
printf '%s\n' "$lint" >"$out/lintian.txt"
if [ -f "$changes" ] && ! grep -q '^[EW]: ' <<<"$lint"; then
	pass "lintian: no error, no warning"
else
	fail "lintian: no error, no warning" "$lint"
fi
[ -z "$lint" ] || printf '%s\n' "$lint" | sed 's/^/deb: lintian: /' >&2

# The files, their modes and owners, as packaged.
want_files='drwxr-xr-x root/root ./
drwxr-xr-x root/root ./etc/
drwxr-xr-x root/root ./etc/kportreserve/
-rw-r--r-- root/root ./etc/kportreserve/policy
drwxr-xr-x root/root ./etc/kportreserve/policy.d/
drwxr-xr-x root/root ./usr/
drwxr-xr-x root/root ./usr/lib/
drwxr-xr-x root/root ./usr/lib/kportreserve/
drwxr-xr-x root/root ./usr/lib/kportreserve/policy.d/
drwxr-xr-x root/root ./usr/lib/systemd/
drwxr-xr-x root/root ./usr/lib/systemd/system/
-rw-r--r-- root/root ./usr/lib/systemd/system/kportreserve.service
drwxr-xr-x root/root ./usr/sbin/
-rwxr-xr-x root/root ./usr/sbin/kportreserve
drwxr-xr-x root/root ./usr/share/
drwxr-xr-x root/root ./usr/share/doc/
drwxr-xr-x root/root ./usr/share/doc/kportreserve/
-rw-r--r-- root/root ./usr/share/doc/kportreserve/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/kportreserve/copyright
drwxr-xr-x root/root ./usr/share/lintian/
drwxr-xr-x root/root ./usr/share/lintian/overrides/
-rw-r--r-- root/root ./usr/share/lintian/overrides/kportreserve
drwxr-xr-x root/root ./usr/share/man/
drwxr-xr-x root/root ./usr/share/man/man5/
-rw-r--r-- root/root ./usr/share/man/man5/kportreserve.policy.5.gz
drwxr-xr-x root/root ./usr/share/man/man8/
-rw-r--r-- root/root ./usr/share/man/man8/kportreserve.8.gz
drwxr-xr-x root/root ./usr/share/selinux/
drwxr-xr-x root/root ./usr/share/selinux/packages/
-rw-r--r-- root/root ./usr/share/selinux/packages/kportreserve.cil'
got_files=$(dpkg-deb -c "$deb" 2>&1 | awk '{ print $1, $2, $6 }')
if [ "$got_files" = "$want_files" ]; then
	pass "the package holds the command, man page, unit, SELinux module and /etc/kportreserve/"
else
	fail "the package holds the command, man page, unit, SELinux module and /etc/kportreserve/" \
		"$(diff <(echo "$want_files") <(echo "$got_files"))"
fi

ctl=$out/control
unpacked=$out/unpacked
dpkg-deb -e "$deb" "$ctl" 2>/dev/null || true
dpkg-deb -x "$deb" "$unpacked" 2>/dev/null || true
if [ "$(cat "$ctl/conffiles" 2>/dev/null)" = /etc/kportreserve/policy ]; then
	pass "/etc/kportreserve/policy is the one conffile"
else
	fail "/etc/kportreserve/policy is the one conffile" \
		"$(cat "$ctl/conffiles" 2>&1)"
fi
# debhelper's enable-and-start of the unit, and the trigger that loads
# the policy files again when a package changes a drop-in.
if grep -q 'deb-systemd-helper.*enable.*kportreserve.service' \
		"$ctl/postinst" 2>/dev/null &&
   grep -q 'deb-systemd-invoke restart kportreserve.service' \
		"$ctl/postinst" &&
   grep -q '! kportreserve diff' "$ctl/postinst" &&
   grep -qx 'interest-noawait /usr/lib/kportreserve/policy.d' \
		"$ctl/triggers" 2>/dev/null &&
   grep -qx 'interest-noawait /usr/bin' "$ctl/triggers"; then
	pass "postinst enables the unit and loads again on a drop-in's trigger"
else
	fail "postinst enables the unit and loads again on a drop-in's trigger" \
		"$(cat "$ctl/postinst" "$ctl/triggers" 2>&1 | head -40)"
fi
# The SELinux module: the maintainer scripts run with stand-ins of
# semodule (its store a file), selinuxenabled (SELinux off, as in a
# chroot) and systemd's helpers first on PATH. Installed on configure
# where a policy store is, removed with the package, left alone where no
# store is.
fake=$out/fakebin
rm -rf "$fake"
mkdir -p "$fake"
for c in deb-systemd-helper deb-systemd-invoke systemctl; do
	printf '#!/bin/sh\nexit 0\n' >"$fake/$c"
done
printf '#!/bin/sh\nexit 1\n' >"$fake/selinuxenabled"
cat >"$fake/semodule" <<'EOF'
#!/bin/sh
# A policy store in $SEMODULE_STORE (one module a line), if it exists.
[ -f "$SEMODULE_STORE" ] || exit 1
echo "$*" >>"$SEMODULE_STORE.log"
case "$*" in
"-n -l") cat "$SEMODULE_STORE" ;;
"-n -i "*) basename "${3%.cil}" >>"$SEMODULE_STORE" ;;
"-n -r "*) grep -vx "$3" "$SEMODULE_STORE" >"$SEMODULE_STORE.new"
	mv "$SEMODULE_STORE.new" "$SEMODULE_STORE" ;;
*) exit 1 ;;
esac
EOF
chmod 755 "$fake"/*
store=$out/semodule-store
rm -f "$store" "$store.log"
echo base >"$store"
selinux_script() {
	PATH=$fake:$PATH SEMODULE_STORE=$store sh "$ctl/$1" "$2" >>"$out/selinux.out" 2>&1
}
if [ -f "$unpacked/usr/share/selinux/packages/kportreserve.cil" ] &&
   selinux_script postinst configure && grep -qx kportreserve "$store" &&
   grep -qx -- '-n -i /usr/share/selinux/packages/kportreserve.cil' "$store.log" &&
   selinux_script postrm remove && ! grep -qx kportreserve "$store" &&
   rm "$store" && selinux_script postinst configure && [ ! -f "$store" ]; then
	pass "postinst installs the SELinux module where a policy store is, postrm removes it"
else
	fail "postinst installs the SELinux module where a policy store is, postrm removes it" \
		"$(cat "$store.log" "$out/selinux.out" 2>&1)"
fi

unit=$unpacked/usr/lib/systemd/system/kportreserve.service
if grep -qx 'ExecStart=/usr/sbin/kportreserve load' "$unit" 2>/dev/null &&
   grep -qx 'After=local-fs.target sys-kernel-security.mount systemd-sysctl.service' "$unit" &&
   grep -qx 'Before=network-pre.target sysinit.target shutdown.target' "$unit"; then
	pass "the packaged unit loads the policy files after systemd-sysctl, before network-pre"
else
	fail "the packaged unit loads the policy files after systemd-sysctl, before network-pre" \
		"$(cat "$unit" 2>&1)"
fi

# The packaged command, run on the unpacked package as its root: a
# package's drop-in, the administrator's override, the conffile.
fs=$out/securityfs
mkdir -p "$fs" "$unpacked/run"
printf 'generation 7\nrules 0\nports 0\n' >"$fs/stats"
# The kernel's load file takes the policy in one write(); a plain file
# keeps it. The policy file, read back after the load, stays empty.
: >"$fs/load"
: >"$fs/policy"
# The programs exist, as the command checks (a missing one only warns).
mkdir -p "$unpacked/usr/sbin"
: >"$unpacked/usr/sbin/cupsd"
: >"$unpacked/usr/sbin/apache2"
echo '631/tcp /usr/sbin/cupsd' \
	>"$unpacked/usr/lib/kportreserve/policy.d/50-cups.policy"
echo '80/tcp /usr/sbin/nginx' \
	>"$unpacked/usr/lib/kportreserve/policy.d/60-web.policy"
echo '80/tcp /usr/sbin/apache2' \
	>"$unpacked/etc/kportreserve/policy.d/60-web.policy"
want_policy="631/tcp /usr/sbin/cupsd
80/tcp /usr/sbin/apache2
$(cat "$unpacked/etc/kportreserve/policy" 2>/dev/null)"
if KPORTRESERVE_ROOT=$unpacked "$unpacked/usr/sbin/kportreserve" \
		-s "$fs" load >"$out/load.out" 2>&1 &&
   [ "$(cat "$fs/load")" = "$want_policy" ] &&
   KPORTRESERVE_ROOT=$unpacked "$unpacked/usr/sbin/kportreserve" \
		-s "$fs" status | grep -qx 'policy files of generation 7:'; then
	pass "the packaged command loads its policy files"
else
	fail "the packaged command loads its policy files" \
		"$(cat "$out/load.out" "$fs/policy" 2>&1)"
fi

# The kernel: the distribution-shaped one that "kernel.sh package"
# configures, packaged by the kernel's bindeb-pkg in its output
# directory. dpkg-buildpackage puts the packages beside that directory,
# in build/.
if [ "$DEB_KERNEL" = 0 ]; then
	skipped=$((skipped + 1))
	say "deb: skipped - the kernel package (DEB_KERNEL=0)"
else
	kout=$(kernel_out package)
	klog=$out/kernel.log
	rm -rf "$out/kernel"
	mkdir -p "$out/kernel"
	rm -f "$BUILD"/linux-*.deb "$BUILD"/linux-*.changes \
		"$BUILD"/linux-*.buildinfo
	say "deb: the kernel package (bindeb-pkg in $kout, log $klog)"
	# The kernel's build and bindeb-pkg show their progress (kbuild());
	# the log keeps the first's messages.
	: >"$klog"
	if "$WB_DIR/kernel.sh" package 2>&1 >/dev/null | tee -a "$klog" >&2 &&
	   kbuild "deb: bindeb-pkg" "$kout" bindeb-pkg &&
	   mv "$BUILD"/linux-*.deb "$BUILD"/linux-*.changes \
		"$BUILD"/linux-*.buildinfo "$out/kernel/"; then
		kdeb=$(ls "$out"/kernel/linux-image-*.deb | grep -v -- -dbg_ | head -n 1)
		kx=$out/kernel/x
		rm -rf "$kx"
		dpkg-deb -x "$kdeb" "$kx"
		kcfg=$(ls "$kx"/boot/config-* 2>/dev/null | head -n 1)
		if ls "$kx"/boot/vmlinuz-* >/dev/null 2>&1 && [ -n "$kcfg" ] &&
		   grep -qx 'CONFIG_SECURITY_KPORTRESERVE=y' "$kcfg" &&
		   grep -qx 'CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY=""' "$kcfg"; then
			pass "the kernel package $(basename "$kdeb") (bindeb-pkg), no boot policy built in"
		else
			fail "the kernel package $(basename "$kdeb") holds vmlinuz and a config with kportreserve and no boot policy" \
				"$(dpkg-deb -c "$kdeb" | grep boot/; grep KPORTRESERVE "$kcfg")"
		fi
		# The socket families Debian builds as modules, and the
		# aliases by which socket() loads two of them.
		missing=
		for m in sctp smc rxrpc rds rds_tcp tipc l2tp_core l2tp_ip l2tp_netlink; do
			[ -n "$(find "$kx" -name "$m.ko" -path '*/kernel/net/*')" ] ||
				missing+=" $m"
		done
		kdep=$(find "$kx" -name modules.alias -path '*/modules/*' | head -n 1)
		if [ -z "$missing" ] && [ -n "$kdep" ] &&
		   grep -q '^alias net-pf-43 smc$' "$kdep" &&
		   grep -q '^alias net-pf-2-proto-132 sctp$' "$kdep"; then
			pass "the kernel package holds SCTP, SMC, rxrpc, RDS, TIPC and L2TP as modules, with their aliases"
		else
			fail "the kernel package holds SCTP, SMC, rxrpc, RDS, TIPC and L2TP as modules, with their aliases" \
				"missing:${missing:- none}; modules.alias: ${kdep:-none}"
		fi
		rm -rf "$kx"
	else
		fail "the kernel package from $kout (bindeb-pkg) ($klog)" \
			"$(tail -20 "$klog")"
	fi
fi

summary="deb: $passed passed, $failed failed"
[ "$skipped" = 0 ] || summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" = 0 ]
