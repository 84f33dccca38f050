#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The checks of make e2e, run in the Debian guest by kpr-e2e.service once
# multi-user.target is reached: one TAP-like line a check on the serial
# console ("KPR-E2E: ok N - ..." or "KPR-E2E: not ok N - ..."), the
# kernel log between KPR-DMESG-BEGIN and KPR-DMESG-END for vm.sh's scan,
# KPR-VM-DONE, and the guest reboots, which ends QEMU (-no-reboot). The phase comes from the kernel
# command line: kpr_e2e.phase=main (the first boot), reboot (the same
# disk booted again), lock (booted with kportreserve.lock=1) or selinux (a
# copy of the disk as made, booted with SELinux enforcing).
set -u
# Standard output is the console, /dev/ttyS0, which kpr-e2e.service opens
# without making it the controlling terminal (job control would stop the
# checks that timeout(1) runs in a process group of their own); e2e.sh
# masks serial-getty@ttyS0, whose vhangup() would cut the output off.
trap '' HUP
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C.UTF-8

phase=$(sed -n 's/.*kpr_e2e\.phase=\([a-z]*\).*/\1/p' /proc/cmdline)
n=0
ok() { n=$((n + 1)); echo "KPR-E2E: ok $n - $1"; }
notok() {
	n=$((n + 1)); echo "KPR-E2E: not ok $n - $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | head -n 40 | sed 's/^/KPR-E2E: #   /'
}
# check NAME FUNC ARGS...: ok when FUNC succeeds within 300 seconds (it
# runs in a copy of this script); its output is shown as comments either
# way, with the processes left when it timed out.
check() {
	local name=$1 out rc
	shift
	out=$(timeout -k 10 300 "$0" --run "$@" 2>&1)
	rc=$?
	[ "$rc" = 124 ] || [ "$rc" = 137 ] &&
		out+=$'\n'"timed out; processes:"$'\n'"$(ps -eo pid,stat,wchan:20,args | tail -n 25)"
	if [ "$rc" = 0 ]; then ok "$name"; else notok "$name"; fi
	[ -z "$out" ] || printf '%s\n' "$out" | head -n 40 | sed 's/^/KPR-E2E: #   /'
}
SFS=/sys/kernel/security/kportreserve
nginx_pid() { systemctl show -p MainPID --value nginx.service; }
# listeners PROGRAM: the "PROTO PORT" of each socket PROGRAM has bound.
listeners() {
	ss -Htuanp 2>/dev/null | awk -v p="\"$1\"" '
		index($0, "((" p ",") {
			a = $5; sub(/.*:/, "", a); print $1, a }' | sort -u
}

t_pid1() {
	local exe
	exe=$(readlink /proc/1/exe)
	echo "pid 1: $exe; kernel $(uname -r); lsm $(cat /sys/kernel/security/lsm)"
	[ "$exe" = /usr/lib/systemd/systemd ]
}
# The kernel running is the one the linux-image package installed
# (kpr_e2e.kdeb=1), unless e2e.sh booted an E2E_KERNEL.
t_kernel_package() {
	local pkg
	pkg=$(dpkg -S "/boot/vmlinuz-$(uname -r)" 2>&1)
	echo "$pkg"
	dpkg -s "${pkg%%:*}" 2>/dev/null | grep -E '^(Status|Version):'
	case $pkg in linux-image-*:*) ;; *) return 1 ;; esac
	dpkg -s "${pkg%%:*}" | grep -qx 'Status: install ok installed' &&
	grep -qx 'CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY=""' "/boot/config-$(uname -r)"
}
t_lsms() {
	local l
	l=$(cat /sys/kernel/security/lsm)
	echo "$l"
	case ",$l," in *,kportreserve,*) ;; *) return 1 ;; esac
	case ",$l," in *,apparmor,*) ;; *) return 1 ;; esac
}
t_unit() {
	systemctl is-active kportreserve.service &&
	grep -x '80/tcp /usr/sbin/nginx uid=0' "$SFS/policy"
	local rc=$?
	cat "$SFS/policy"
	systemctl status --no-pager kportreserve.service
	return $rc
}
# kportreserve.service finished before network-pre.target was reached,
# so no network service started before the policy was in force.
t_order() {
	local fin pre
	# systemd's own record, which needs no journal (under SELinux
	# enforcing on Debian 13 this service may not read the journal): a
	# oneshot with RemainAfterExit= becomes active once its command ended.
	fin=$(systemctl show -P ActiveEnterTimestampMonotonic kportreserve.service)
	pre=$(systemctl show -P ActiveEnterTimestampMonotonic network-pre.target)
	echo "kportreserve.service active at ${fin:-none} us, network-pre.target at ${pre:-none} us"
	[ "${fin:-0}" -gt 0 ] && [ "${pre:-0}" -gt 0 ] && [ "$fin" -le "$pre" ]
}
t_nginx() {
	local pid l
	pid=$(nginx_pid)
	l=$(listeners nginx)
	echo "nginx MainPID $pid exe $(readlink /proc/$pid/exe); sockets:"
	echo "$l"
	systemctl is-active nginx.service && [ "$pid" -gt 0 ] &&
	[ "$(readlink /proc/$pid/exe)" = /usr/sbin/nginx ] &&
	grep -qx 'tcp 80' <<<"$l"
}
# http.server PORT: python3 -m http.server on PORT as alice (uid 1000),
# with her login uid set as a login would: prints "PID RC" and the
# program's output.
HTTP_PID=
http_server() {
	local port=$1 out rc
	shift
	rm -f /tmp/http.pid
	out=$(PYTHONUNBUFFERED=1 timeout 30 sh -c 'port=$1; shift
		echo 1000 >/proc/self/loginuid && echo $$ >/tmp/http.pid &&
		exec "$@" setpriv --reuid=1000 --regid=1000 --init-groups \
			python3 -m http.server --bind 0.0.0.0 "$port"' sh "$port" "$@" 2>&1)
	rc=$?
	HTTP_PID=$(cat /tmp/http.pid 2>/dev/null)
	echo "pid $HTTP_PID exit $rc"
	echo "$out" | tail -n 3
}
# A port that is free but reserved for nginx (8080: nginx does not listen
# there), so that only kportreserve can refuse it; then port 80, where
# nginx listens; and the control, 8081, reserved for nobody, where
# alice's server listens (serves_on, below).
t_http_reserved() {
	local out
	out=$(http_server 8080)
	echo "$out"
	grep -q 'Errno 98' <<<"$out" && ! grep -q 'exit 124' <<<"$out"
}
t_http_control() {
	serves_on 8081 1000
}
# ausearch finds the event of the denial of PID: kportreserve's record
# (port, protocol by number, which ausearch -i reads as tcp) and the
# SYSCALL record of the bind() (pid, uid, auid, exe, EADDRINUSE).
t_ausearch() {
	local pid=$1 port=$2 r i
	sleep 1
	r=$(ausearch -m 1427 -p "$pid" --raw 2>&1)
	echo "$r"
	i=$(ausearch -m 1427 -p "$pid" -i 2>&1)
	echo "$i"
	grep -q "lsm=kportreserve op=bind proto=6 lport=$port .* res=0" <<<"$r" &&
	grep -q "type=SYSCALL .* syscall=49 success=no exit=-98 .* pid=$pid " <<<"$r" &&
	grep -q "type=SYSCALL .* auid=1000 uid=1000 " <<<"$r" &&
	grep -Eq 'exe="/usr/bin/python3(\.[0-9]+)?"' <<<"$r" &&
	grep -q "lsm=kportreserve op=bind proto=tcp lport=$port " <<<"$i"
}
# aureport --mac and ausearch -i read kportreserve's loads as they read
# SELinux's: MAC_POLICY_LOAD events with the digest of the policy. The
# unit's load at boot comes before auditd enables audit, so this loads
# the same files again.
t_aureport() {
	local r i
	kportreserve load || return 1
	sleep 1
	r=$(aureport --mac -i 2>&1)
	echo "$r" | tail -n 5
	i=$(ausearch -m MAC_POLICY_LOAD --raw 2>&1 | grep lsm=kportreserve | tail -n 1)
	echo "$i"
	grep -q 'MAC_POLICY_LOAD' <<<"$r" &&
	grep -Eq 'op=load generation=[1-9][0-9]* .*policy_digest=sha256:[0-9a-f]{64} .*lsm=kportreserve res=1' <<<"$i"
}
# who names the rule's file and line, as the unit loaded it at boot.
t_who() {
	local w
	w=$(kportreserve who 8080/tcp)
	echo "$w"
	grep -qx '8080/tcp: /usr/sbin/nginx uid=0 (/etc/kportreserve/policy.d/50-e2e.policy:6)' <<<"$w"
}
t_status() {
	local s pid=$1
	s=$(kportreserve status)
	echo "$s"
	# The ports that saw denials: 8080, with the pid and exe of the last.
	grep -E '^ *8080(/tcp)? ' <<<"$s" | grep -q " $pid " &&
	grep -E '^ *8080(/tcp)? ' <<<"$s" | grep -q python3
}
# rpcbind and rpc.statd (glibc's bindresvport) restarted many times never
# hold a port of 600-1000, which the policy reserves for another program:
# at least 3 restarts, and up to 12 while they fit in 80 seconds (under
# TCG a restart takes 30-40 seconds, so 3 it is there).
t_rpc() {
	local i=0 l p bad= seen= start=$SECONDS
	while [ $i -lt 3 ] || { [ $i -lt 12 ] && [ $((SECONDS - start)) -lt 80 ]; }; do
		i=$((i + 1))
		# systemd allows 5 starts of a unit in 10 s (StartLimitBurst=):
		# the count starts again, as the restarts are the test's.
		systemctl reset-failed rpcbind.service rpcbind.socket \
			rpc-statd.service 2>/dev/null || :
		systemctl restart rpcbind.service rpc-statd.service || {
			echo "restart $i failed"; systemctl status --no-pager rpc-statd; return 1; }
		l=$( (listeners rpcbind; listeners rpc.statd) | awk '{ print $2 }')
		seen+=" $(echo $l)"
		for p in $l; do
			[ "$p" -ge 600 ] && [ "$p" -le 1000 ] && bad+=" $p"
		done
	done
	echo "$i restarts in $((SECONDS - start))s; ports seen:$seen"
	echo "reserved ports taken:${bad:- none}"
	# statd must have bound ports at all, or the check checks nothing.
	[ -z "$bad" ] && [ $i -ge 3 ] && [ -n "$(listeners rpc.statd)" ]
}
t_apparmor() {
	local pid attr
	pid=$(nginx_pid)
	attr=$(cat /proc/$pid/attr/apparmor/current 2>/dev/null || cat /proc/$pid/attr/current)
	echo "nginx $pid: $attr"
	aa-status 2>&1 | head -n 20
	[ "$attr" = "nginx (enforce)" ] && grep -qx 'tcp 80' <<<"$(listeners nginx)"
}
# bind_event PID PORT: the records of the audit event that holds
# kportreserve's record of PID's denied bind of tcp PORT, read from
# audit.log: ausearch skips an event it finds malformed, as it does one
# with an AppArmor AVC in it. Shows them on standard error, with what
# ausearch finds, and prints them; fails when there is no such record.
bind_event() {
	local pid=$1 port=$2 ev r
	sleep 2
	# kportreserve's record names no pid: the SYSCALL record of its
	# event does.
	ev=$(grep -a "lsm=kportreserve op=bind proto=6 lport=$port " \
		/var/log/audit/audit.log | sed -n 's/.*msg=audit(\([0-9.:]*\)).*/\1/p' |
		while read -r e; do
			grep -aF "msg=audit($e)" /var/log/audit/audit.log |
				grep -q "^type=SYSCALL .* pid=$pid " && echo "$e"
		done | tail -n 1)
	echo "kportreserve's record of pid $pid: event ${ev:-none}" >&2
	[ -n "$ev" ] || return 1
	r=$(grep -aF "msg=audit($ev)" /var/log/audit/audit.log)
	echo "$r" | cut -c 1-300 >&2
	echo "ausearch -m 1427 -p $pid finds: $(ausearch -m 1427 -p "$pid" --raw 2>/dev/null |
		grep -c lsm=kportreserve) record(s)" >&2
	echo "$r"
}
# Both LSMs judge the same bind: python3 -m http.server on 8080, confined
# by the enforce-mode profile kpr-e2e-python, which allows the network and
# audits it. AppArmor's socket_bind hook runs first (it is earlier in the
# LSM order) and allows the bind; kportreserve refuses it. The bind's
# audit event holds both verdicts: AppArmor's AVC (apparmor="AUDIT"
# operation="bind") and kportreserve's 1427 record, with the SYSCALL
# record of the failed bind(). ausearch (3.0.9 and 4.0.2, Debian 12 and
# 13) skips an event with an AppArmor AVC in it as malformed, so the event
# is read from audit.log.
t_both() {
	local out pid r attr
	out=$(http_server 8080 aa-exec -p kpr-e2e-python --)
	echo "$out"
	grep -q 'Errno 98' <<<"$out" || return 1
	pid=$(cat /tmp/http.pid)
	r=$(bind_event "$pid" 8080) || return 1
	attr=$(aa-exec -p kpr-e2e-python -- setpriv --reuid=1000 \
		--regid=1000 --init-groups cat /proc/self/attr/current 2>&1)
	echo "confinement under aa-exec: $attr"
	[ "$attr" = "kpr-e2e-python (enforce)" ] &&
	grep -q "apparmor=\"AUDIT\" operation=\"bind\" .*profile=\"kpr-e2e-python\" pid=$pid " <<<"$r" &&
	grep -q "lsm=kportreserve op=bind proto=6 .* res=0" <<<"$r" &&
	grep -q "type=SYSCALL .* syscall=49 success=no exit=-98 .* pid=$pid .* subj=kpr-e2e-python" <<<"$r"
}
# AppArmor's own verdict still stands beside kportreserve: under
# kpr-e2e-nonet (deny network inet), python3 gets EACCES from AppArmor
# for an IPv4 socket on a port kportreserve does not reserve.
t_apparmor_refuses() {
	local out
	out=$(aa-exec -p kpr-e2e-nonet -- python3 -c '
import socket
try:
    socket.socket().bind(("0.0.0.0", 8082)); print("created and bound")
except OSError as e:
    print("refused:", e.errno)' 2>&1)
	echo "an IPv4 socket under kpr-e2e-nonet: $out"
	[ "$out" = "refused: 13" ]
}
# ip_local_reserved_ports from /etc/sysctl.d, applied at boot, does not
# reopen the ports kportreserve reserves to automatic assignment: the
# range is 50000-50199, kportreserve reserves 50000-50149 and sysctl.d
# 50175; binds to port 0 get only 50150-50199 but 50175, then fail.
t_sysctl() {
	local v out
	v=$(cat /proc/sys/net/ipv4/ip_local_reserved_ports)
	echo "ip_local_reserved_ports=$v range=$(cat /proc/sys/net/ipv4/ip_local_port_range)"
	[ "$v" = 50175 ] || return 1
	out=$(setpriv --reuid=1000 --regid=1000 --init-groups python3 -c '
import socket
for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
    socks, ports = [], []
    while True:
        s = socket.socket(socket.AF_INET, kind)
        try:
            s.bind(("0.0.0.0", 0))
        except OSError:
            break
        socks.append(s); ports.append(s.getsockname()[1])
        if len(ports) > 200: break
    print(kind, " ".join(map(str, sorted(ports))))
    for s in socks: s.close()
')
	echo "$out"
	awk '{ if (NF < 2) exit 1
	       for (i = 2; i <= NF; i++)
	         if ($i < 50150 || $i > 50199 || $i == 50175) exit 1 }' <<<"$out"
}
# listens_within PORT [PROGRAM]: PROGRAM (nginx) listens on tcp PORT
# within 30 seconds.
listens_within() {
	local i
	for i in $(seq 1 30); do
		grep -qx "tcp $1" <<<"$(listeners "${2:-nginx}")" && return 0
		sleep 1
	done
	return 1
}
# The package reinstalled while nginx runs, as an upgrade does, with the
# restart held back by policy-rc.d: the binary is replaced on disk, and
# the running master keeps port 80. It is still nginx to kportreserve: a
# reload that adds "listen 8080" binds 8080 in that same master, whose
# executable is now the unlinked old file. A restart runs the new binary,
# which binds both again.
t_reinstall() {
	local ino1 ino2 pid1 pid2 rc
	ino1=$(stat -c %i /usr/sbin/nginx)
	pid1=$(nginx_pid)
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	dpkg -i /root/debs/*.deb >/tmp/dpkg.log 2>&1
	rc=$?
	rm -f /usr/sbin/policy-rc.d
	[ "$rc" = 0 ] || { cat /tmp/dpkg.log; return 1; }
	ino2=$(stat -c %i /usr/sbin/nginx)
	echo "inode $ino1 -> $ino2; nginx $pid1 -> $(nginx_pid)," \
		"exe $(readlink /proc/"$pid1"/exe)"
	listeners nginx
	[ "$ino1" != "$ino2" ] && [ "$(nginx_pid)" = "$pid1" ] &&
	grep -qx 'tcp 80' <<<"$(listeners nginx)" || return 1
	printf 'server {\n\tlisten 8080;\n}\n' >/etc/nginx/conf.d/kpr-e2e.conf
	systemctl reload nginx.service || return 1
	listens_within 8080
	rc=$?
	echo "after reload: nginx $(nginx_pid)"
	listeners nginx
	[ "$rc" = 0 ] && [ "$(nginx_pid)" = "$pid1" ] || return 1
	systemctl restart nginx.service || { systemctl status --no-pager nginx; return 1; }
	pid2=$(nginx_pid)
	listens_within 8080
	echo "after restart: nginx $pid2, exe $(readlink /proc/"$pid2"/exe)"
	listeners nginx
	[ "$pid2" != "$pid1" ] && [ "$(readlink /proc/"$pid2"/exe)" = /usr/sbin/nginx ] &&
	grep -qx 'tcp 80' <<<"$(listeners nginx)" &&
	grep -qx 'tcp 8080' <<<"$(listeners nginx)"
}
# /etc/portreserve/ in the portreserve package's format.
t_import() {
	local out w
	mkdir -p /etc/portreserve
	printf 'ipp\n' >/etc/portreserve/cups
	printf '# a comment\n\n4444/udp\n' >/etc/portreserve/kpr-e2e
	printf '9999\n' >/etc/portreserve/ignored.dpkg-old
	out=$(kportreserve import-portreserve -m cups=/usr/sbin/cupsd \
		-p /usr/local/bin/kpr-e2e-server) || { echo "$out"; return 1; }
	echo "$out"
	grep -qx '631/tcp /usr/sbin/cupsd' <<<"$out" &&
	# ipp over UDP only where /etc/services lists it (netbase 6.4 does not).
	if grep -Eq '^ipp[[:space:]]+631/udp' /etc/services; then
		grep -qx '631/udp /usr/sbin/cupsd' <<<"$out"
	else
		! grep -q '^631/udp' <<<"$out"
	fi &&
	grep -qx '4444/udp /usr/local/bin/kpr-e2e-server' <<<"$out" &&
	! grep -q 9999 <<<"$out" || return 1
	echo "$out" >/etc/kportreserve/policy.d/70-portreserve.policy
	kportreserve load || return 1
	w=$(kportreserve who 631/tcp)
	echo "$w"
	grep -qx '631/tcp: /usr/sbin/cupsd (/etc/kportreserve/policy.d/70-portreserve.policy:2)' <<<"$w"
}
t_again() {
	local w
	w=$(kportreserve who 631/tcp; kportreserve who 80/tcp)
	echo "$w"
	systemctl is-active kportreserve.service &&
	grep -Eqx '631/tcp: /usr/sbin/cupsd( \(.*/70-portreserve\.policy:2\))?' <<<"$w" &&
	grep -Eqx '80/tcp: /usr/sbin/nginx uid=0( \(.*/50-e2e\.policy:5\))?' <<<"$w" &&
	grep -qx 'tcp 80' <<<"$(listeners nginx)"
}
# kportreserve.lock=1 on the packaged kernel, which has no boot policy:
# the policy kportreserve.service loaded at boot is the one locked
# (generation 1, nginx's ports reserved), and a later load fails.
t_lock() {
	local out rc gen
	out=$(kportreserve load 2>&1); rc=$?
	gen=$(awk '$1 == "generation" { print $2 }' $SFS/stats)
	echo "lock=$(cat $SFS/lock); generation $gen; kportreserve load: exit $rc"
	echo "$out"
	journalctl -k --no-pager -o cat -g 'kportreserve: (kportreserve.lock|locked)'
	[ "$(cat $SFS/lock)" = 1 ] && [ "$rc" = 3 ] && [ "$gen" = 1 ] &&
	grep -q 'locked until reboot' <<<"$out" && who_nginx 80
}
# Nothing loaded is a failure nobody can miss: with the policy locked, a
# restart of the unit loads nothing (the kernel refuses it), and the unit
# fails, its error at error priority in the journal.
t_nothing_loaded() {
	local err
	systemctl restart kportreserve.service
	err=$(journalctl -b --no-pager -o cat -u kportreserve.service -p err 2>&1)
	echo "kportreserve.service: $(systemctl is-active kportreserve.service)"
	echo "$err"
	systemctl --failed --no-legend --plain | grep kportreserve
	systemctl is-failed --quiet kportreserve.service &&
	grep -qx 'kportreserve: nothing was loaded; the policy in force is unchanged' <<<"$err" &&
	who_nginx 80
}

# modules_loaded: the modules of the socket families Debian builds as
# modules that /proc/modules lists (built-in code is not listed there).
modules_loaded() {
	awk '{ print $1 }' /proc/modules |
		grep -Ex 'sctp|smc|rxrpc|rds|rds_tcp|tipc|l2tp_core|l2tp_ip|l2tp_netlink' |
		sort | paste -sd ' '
}
# The socket families Debian builds as modules (SCTP, SMC, AF_RXRPC, RDS,
# TIPC, L2TP), none loaded at boot. alice's own socket() calls load
# SCTP, SMC, rxrpc and L2TP's IPPROTO_L2TP by their aliases
# (e2e/families.py): her binds of 7000, reserved in every protocol, are
# refused in SCTP, SMC (AF_SMC and IPPROTO_SMC) and rxrpc alike, 7009 is
# not, and the kernel's choice of an SCTP port skips the reserved ones.
# RDS and TIPC declare no alias: her sockets get EAFNOSUPPORT and load
# nothing (Debian's kernel disables RDS's alias as a mitigation;
# upstream, her socket() would load it). Once root loads them, her RDS
# socket option loads rds_tcp, which listens on 16385/tcp, reserved for
# the kernel: refused to her before, held by the kernel's own socket
# after, which status finds in order. rds_tcp listens there until the
# guest stops.
t_modules() {
	local out rds rc f
	echo "loaded at the start: $(modules_loaded)"
	[ -z "$(modules_loaded)" ] || return 1
	out=$(setpriv --reuid=1000 --regid=1000 --clear-groups \
		python3 /usr/local/lib/kpr-e2e/families.py 2>&1)
	echo "$out"
	echo "loaded by alice: $(modules_loaded)"
	[ "$(modules_loaded)" = "l2tp_core l2tp_ip rxrpc sctp smc" ] || return 1
	modprobe rds && modprobe tipc || return 1
	rds=$(setpriv --reuid=1000 --regid=1000 --clear-groups \
		python3 /usr/local/lib/kpr-e2e/families.py rds 2>&1)
	echo "after root's modprobe rds tipc: $rds"
	echo "loaded now: $(modules_loaded)"
	ss -Htlnp 'sport = :16385'
	kportreserve status >/tmp/status.out 2>&1
	rc=$?
	echo "kportreserve status: exit $rc"
	sed -n '/^sockets on ports/,$p' /tmp/status.out
	for f in sctp smc smc-inet rxrpc; do
		grep -qx "$f 7000: refused: 98" <<<"$out" &&
		grep -qx "$f 7009: bound" <<<"$out" || return 1
	done
	awk '/^sctp port 0:/ { if (NF < 4) exit 1
	       for (i = 4; i <= NF; i++)
	         if ($i < 50150 || $i > 50199 || $i == 50175) exit 1
	       found = 1 }
	     END { exit !found }' <<<"$out" &&
	grep -qx 'l2tp_ip: socket created' <<<"$out" &&
	grep -qx 'rds: socket() failed: 97' <<<"$out" &&
	grep -qx 'tipc: socket() failed: 97' <<<"$out" &&
	grep -qx 'tcp 16385: refused: 98' <<<"$out" &&
	grep -qx 'rds: transport tcp set' <<<"$rds" &&
	grep -qx 'tipc: socket created' <<<"$rds" &&
	[ "$(modules_loaded)" = "l2tp_core l2tp_ip rds rds_tcp rxrpc sctp smc tipc" ] &&
	# rds_tcp's listener: a socket of no process, which status, which
	# names such sockets (t_kernel_socket), finds in order.
	[ -n "$(ss -Htln 'sport = :16385')" ] &&
	! ss -Htlnp 'sport = :16385' | grep -q 'users:' && [ "$rc" = 0 ]
}
# A kernel socket takes a reserved port: root's unmanaged L2TP tunnel
# over UDP binds 7000 with kernel_bind(), which no hook sees (the guide's
# "Other ways to a port"); status names it as held by no process, exits
# 6, and is quiet again once the tunnel is gone.
t_kernel_socket() {
	local rc1 rc2
	ip l2tp add tunnel tunnel_id 7 peer_tunnel_id 7 encap udp \
		local 127.0.0.1 remote 127.0.0.1 udp_sport 7000 udp_dport 7010 || return 1
	ss -Hulnp 'sport = :7000'
	kportreserve status >/tmp/status.out 2>&1
	rc1=$?
	sed -n '/^sockets on ports/,$p' /tmp/status.out
	ip l2tp del tunnel tunnel_id 7
	sleep 1
	kportreserve status >/dev/null 2>&1
	rc2=$?
	echo "kportreserve status: exit $rc1 with the tunnel, $rc2 without"
	[ "$rc1" = 6 ] && [ "$rc2" = 0 ] &&
	grep -A1 -Ex '  7000/udp: socket [0-9]+, (held by no process \(a kernel socket\)|holder unknown)' \
		/tmp/status.out | grep -qx '    reserved for: /usr/local/bin/kpr-e2e-owner'
}
# The README's rule as Debian 13 spells its python: /usr/bin/python3 is a
# link to python3.13. kportreserve check accepts the drop-in and says
# where the link leads (FILE:LINE, the real path); the unit's load puts the
# real path in force and leaves the file as written; the rule lets alice's
# python3 serve on 8090 and keeps uid 1001's off (EADDRINUSE). The drop-in
# is removed afterwards.
t_resolved() {
	local f=/etc/kportreserve/policy.d/80-python.policy real out rc
	real=$(readlink -f /usr/bin/python3)
	echo "/usr/bin/python3 -> $real"
	printf '# alice'\''s server\n8090/tcp /usr/bin/python3 uid=1000\n' >"$f"
	out=$(kportreserve check 2>&1)
	rc=$?
	echo "kportreserve check: exit $rc"
	echo "$out" | grep -v 'does not exist'
	[ "$rc" = 0 ] && [ "$real" != /usr/bin/python3 ] &&
	grep -q "^$f:2: note: /usr/bin/python3 is a symbolic link to $real," <<<"$out" ||
		return 1
	systemctl reload kportreserve.service || return 1
	grep -qx "8090/tcp $real uid=1000" "$SFS/policy" &&
	grep -qx '8090/tcp /usr/bin/python3 uid=1000' "$f" || return 1
	serves_on 8090 1000 && ! serves_on 8090 1001 &&
	grep -q 'Errno 98' /tmp/serve.out || return 1
	rm "$f"
	systemctl reload kportreserve.service
}
# binds PROGRAM PORT UID: PROGRAM, a python, binds tcp PORT as UID; prints
# "PROGRAM as UID on PORT: bound" or "...: refused: ERRNO".
binds() {
	local r
	r=$(setpriv --reuid="$3" --regid="$3" --clear-groups "$1" -c '
import socket, sys
try:
    socket.socket().bind(("0.0.0.0", int(sys.argv[1]))); print("bound")
except OSError as e:
    print("refused:", e.errno)' "$2" 2>&1)
	echo "$1 as $3 on $2: $r"
	[ "$r" = bound ]
}
# make_deb NAME VERSION DIR [POSTINST]: /tmp/kpr-debs/NAME_VERSION.deb of
# the files under DIR, with POSTINST as its postinst script.
make_deb() {
	mkdir -p "$3/DEBIAN" /tmp/kpr-debs
	printf 'Package: %s\nVersion: %s\nArchitecture: all\nMaintainer: e2e <e2e@localhost>\nDescription: kportreserve e2e %s\n' \
		"$1" "$2" "$1" >"$3/DEBIAN/control"
	if [ -n "${4:-}" ]; then
		printf '#!/bin/sh\nset -e\n%s\n' "$4" >"$3/DEBIAN/postinst"
		chmod 755 "$3/DEBIAN/postinst"
	fi
	dpkg-deb --root-owner-group -b "$3" "/tmp/kpr-debs/$1_$2.deb" >/dev/null
}
# A rule names programs as packages lay them out, and follows them: two
# pythons installed side by side (kpr-py-a, kpr-py-b, copies of
# python3.13), a link /usr/bin/kpr-py that a package's upgrade moves from
# one to the other (as python3-minimal moves /usr/bin/python3), and an
# alternative /usr/bin/kpr-alt that a package installing a better one
# switches (as a new JDK does). The package's dpkg file trigger loads the
# policy again after each: the owner binds, the old program does not.
t_follow() {
	local real w=/tmp/kpr-pkg f=/etc/kportreserve/policy.d/81-follow.policy
	local alt='update-alternatives --install /usr/bin/kpr-alt kpr-alt /usr/bin/kpr-py-b 20'
	real=$(readlink -f /usr/bin/python3)
	rm -rf "$w" /tmp/kpr-debs
	mkdir -p "$w/interps/usr/bin" "$w/py1/usr/bin" "$w/py2/usr/bin" \
		"$w/alt/usr/lib/kpr-e2e-alt-b"
	cp "$real" "$w/interps/usr/bin/kpr-py-a"
	cp "$real" "$w/interps/usr/bin/kpr-py-b"
	ln -s kpr-py-a "$w/py1/usr/bin/kpr-py"
	ln -s kpr-py-b "$w/py2/usr/bin/kpr-py"
	echo b >"$w/alt/usr/lib/kpr-e2e-alt-b/marker"
	make_deb kpr-e2e-interps 1 "$w/interps" &&
	make_deb kpr-e2e-py 1 "$w/py1" && make_deb kpr-e2e-py 2 "$w/py2" &&
	make_deb kpr-e2e-alt-b 1 "$w/alt" "$alt" || return 1
	dpkg -i /tmp/kpr-debs/kpr-e2e-interps_1.deb /tmp/kpr-debs/kpr-e2e-py_1.deb \
		>/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; return 1; }
	update-alternatives --install /usr/bin/kpr-alt kpr-alt /usr/bin/kpr-py-a 10 >/dev/null
	printf '8093/tcp /usr/bin/kpr-py uid=1000\n8095/tcp /usr/bin/kpr-alt uid=1000\n' >"$f"
	systemctl reload kportreserve.service || return 1
	grep -E '^809[35]/' "$SFS/policy"
	grep -qx '8093/tcp /usr/bin/kpr-py-a uid=1000' "$SFS/policy" &&
	grep -qx '8095/tcp /usr/bin/kpr-py-a uid=1000' "$SFS/policy" &&
	binds /usr/bin/kpr-py 8093 1000 && binds /usr/bin/kpr-alt 8095 1000 || return 1
	# The upgrade and the switch, each by dpkg alone.
	dpkg -i /tmp/kpr-debs/kpr-e2e-py_2.deb >/tmp/dpkg.log 2>&1 &&
	dpkg -i /tmp/kpr-debs/kpr-e2e-alt-b_1.deb >>/tmp/dpkg.log 2>&1 ||
		{ cat /tmp/dpkg.log; return 1; }
	grep -i 'trigger' /tmp/dpkg.log
	echo "kpr-py -> $(readlink -f /usr/bin/kpr-py), kpr-alt -> $(readlink -f /usr/bin/kpr-alt)"
	grep -E '^809[35]/' "$SFS/policy"
	grep -qx '8093/tcp /usr/bin/kpr-py-b uid=1000' "$SFS/policy" &&
	grep -qx '8095/tcp /usr/bin/kpr-py-b uid=1000' "$SFS/policy" &&
	binds /usr/bin/kpr-py 8093 1000 && ! binds /usr/bin/kpr-py-a 8093 1000 &&
	binds /usr/bin/kpr-alt 8095 1000 && ! binds /usr/bin/kpr-py-a 8095 1000 ||
		return 1
	rm "$f"
	dpkg -P kpr-e2e-alt-b kpr-e2e-py kpr-e2e-interps >/dev/null 2>&1
	update-alternatives --remove-all kpr-alt >/dev/null 2>&1
	systemctl reload kportreserve.service
}
# add saves its rule (as written: a link, a user's name) where every load
# reads it; add --runtime does not. The reboot boot finds the first in
# force and not the second (t_saved).
t_add_saves() {
	local real out
	real=$(readlink -f /usr/bin/python3)
	out=$(kportreserve add 8098/tcp /usr/bin/python3 uid=alice 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	out=$(kportreserve add --runtime 8099/tcp /usr/bin/python3 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	cat /etc/kportreserve/policy.d/local.policy
	grep -qx "8098/tcp $real uid=1000" "$SFS/policy" &&
	grep -qx "8099/tcp $real" "$SFS/policy" &&
	grep -qx '8098/tcp /usr/bin/python3 uid=alice' /etc/kportreserve/policy.d/local.policy &&
	! grep -q 8099 /etc/kportreserve/policy.d/local.policy
}
# A drop-in with a typo on its second line, left for the reboot boot
# (t_partial): interactive check is strict about it.
t_typo() {
	local f=/etc/kportreserve/policy.d/90-typo.policy out rc
	printf '8097/tcp /usr/sbin/nginx uid=0\n8096/tcp nginx\n' >"$f"
	out=$(kportreserve check 2>&1)
	rc=$?
	echo "kportreserve check: exit $rc"
	echo "$out" | grep -v 'does not exist'
	[ "$rc" = 1 ] &&
	grep -qx "$f:2: program must be an absolute path or <kernel>" <<<"$out"
}
# The boot after t_add_saves: what add saved is in force, what add
# --runtime did is not.
t_saved() {
	local real
	real=$(readlink -f /usr/bin/python3)
	grep -E '^809[89]/' "$SFS/policy"
	grep -qx "8098/tcp $real uid=1000" "$SFS/policy" &&
	! grep -q '^8099/' "$SFS/policy" &&
	kportreserve del 8098/tcp /usr/bin/python3 uid=alice &&
	! grep -q 8098 /etc/kportreserve/policy.d/local.policy
}
# The boot after t_typo: the unit left the bad line out, at warning
# priority with its FILE:LINE, and put every other rule in force; it is
# active, with exit status 7. Without the drop-in, a reload exits 0.
t_partial() {
	local f=/etc/kportreserve/policy.d/90-typo.policy status warn
	status=$(systemctl show -P ExecMainStatus kportreserve.service)
	warn=$(journalctl -b --no-pager -o cat -u kportreserve.service -p warning..warning 2>&1)
	echo "kportreserve.service: $(systemctl is-active kportreserve.service), exit status $status"
	echo "$warn" | grep -v 'does not exist'
	systemctl is-active --quiet kportreserve.service && [ "$status" = 7 ] &&
	grep -qx "$f:2: program must be an absolute path or <kernel>; the rule is left out" <<<"$warn" &&
	grep -qx '8097/tcp /usr/sbin/nginx uid=0' "$SFS/policy" &&
	grep -qx '80/tcp /usr/sbin/nginx uid=0' "$SFS/policy" || return 1
	rm "$f"
	# A reload's status is not ExecMainStatus: a restart's is.
	systemctl restart kportreserve.service &&
	[ "$(systemctl show -P ExecMainStatus kportreserve.service)" = 0 ]
}
# serves_on PORT UID: python3 -m http.server as UID listens on PORT
# within 60 seconds (and is stopped then).
serves_on() {
	local pid i l=
	setpriv --reuid="$2" --regid="$2" --clear-groups python3 -m http.server \
		--bind 0.0.0.0 "$1" >/tmp/serve.out 2>&1 </dev/null &
	pid=$!
	for i in $(seq 1 60); do
		l=$(listeners python3)
		grep -qx "tcp $1" <<<"$l" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "uid $2's python3 on $1: $(grep -qx "tcp $1" <<<"$l" && echo serves ||
		tail -n 1 /tmp/serve.out)"
	grep -qx "tcp $1" <<<"$l"
}
# bind_8091: python3 binding 8091/tcp prints "bound" or "refused: ERRNO".
BIND_8091='import socket
try:
    socket.socket().bind(("0.0.0.0", 8091)); print("bound")
except OSError as e:
    print("refused:", e.errno)'
# A service named as a service: a rule for python3.13 in the cgroup of
# kpr-myapp.service, added as unit=; systemd-run --unit=kpr-myapp's
# python3 serves on 8091, root's python3 in another unit and alice's
# outside any are refused.
t_unit_rule() {
	local real pid served cg other mine
	real=$(readlink -f /usr/bin/python3)
	[ -z "$(ss -Htln 'sport = :8091')" ] || { echo "8091 is in use"; return 1; }
	kportreserve add 8091/tcp "$real" unit=kpr-myapp || return 1
	kportreserve who 8091/tcp
	grep -qx "8091/tcp $real cgroup=/system.slice/kpr-myapp.service" "$SFS/policy" ||
		return 1
	systemd-run --quiet --unit=kpr-myapp python3 -m http.server 8091 ||
		{ kportreserve del 8091/tcp "$real" unit=kpr-myapp; return 1; }
	listens_within 8091 python3
	served=$?
	pid=$(systemctl show -P MainPID kpr-myapp.service)
	cg=$(cut -d: -f3 /proc/"$pid"/cgroup)
	systemctl stop kpr-myapp.service
	other=$(systemd-run --quiet --wait --pipe --unit=kpr-other python3 -c "$BIND_8091" 2>&1)
	mine=$(setpriv --reuid=1000 --regid=1000 --clear-groups python3 -c "$BIND_8091" 2>&1)
	echo "kpr-myapp.service (pid $pid, cgroup $cg) listened on 8091:" \
		"$([ "$served" = 0 ] && echo yes || echo no)"
	echo "root's python3 in kpr-other.service: $other; alice's: $mine"
	kportreserve del 8091/tcp "$real" unit=kpr-myapp
	[ "$served" = 0 ] && [ "$cg" = /system.slice/kpr-myapp.service ] &&
	[ "$other" = "refused: 98" ] && [ "$mine" = "refused: 98" ]
}
# nginx's rule names root (uid=0), as its master binds: alice's own nginx,
# the same binary with a configuration of hers on 8080, is refused.
t_user_nginx() {
	local d=/tmp/alice-nginx m out
	rm -rf "$d"
	mkdir -p "$d"
	{
		echo "pid $d/nginx.pid; error_log $d/error.log;"
		echo "events {}"
		echo "http { access_log off; client_body_temp_path $d/body;"
		for m in proxy fastcgi uwsgi scgi; do
			nginx -V 2>&1 | grep -q -- "--without-http_${m}_module" ||
				echo "${m}_temp_path $d/$m;"
		done
		echo "server { listen 8080; } }"
	} >"$d/nginx.conf"
	chown -R 1000:1000 "$d"
	# Nothing holds 8080 (t_reinstall, later, makes nginx listen there):
	# the refusal can only be kportreserve's.
	[ -z "$(ss -Htln 'sport = :8080')" ] || { echo "8080 is in use"; return 1; }
	out=$(timeout 30 setpriv --reuid=1000 --regid=1000 --clear-groups \
		/usr/sbin/nginx -p "$d" -c "$d/nginx.conf" -e "$d/error.log" \
		-g 'daemon off;' 2>&1)
	echo "alice's nginx: exit $?"
	echo "$out" | tail -n 3
	grep -q 'bind() to 0.0.0.0:8080 failed (98: Address already in use)' <<<"$out$(cat $d/error.log 2>/dev/null)"
}
# A listener that holds a port before the policy reserves it: alice's
# python3 on 8092, then a drop-in reserving 8092 for nginx. load puts
# the policy in force, exits 6 and names her process (pid, executable,
# uid, gid, cgroup) and the rule it holds the port against; so does
# status; with her server gone, status exits 0.
t_holders() {
	local f=/etc/kportreserve/policy.d/85-held.policy pid real i out rc rc2
	real=$(readlink -f /usr/bin/python3)
	setpriv --reuid=1000 --regid=1000 --clear-groups python3 -m http.server \
		--bind 0.0.0.0 8092 >/dev/null 2>&1 </dev/null &
	pid=$!
	listens_within 8092 python3 || echo "alice's python3 does not listen on 8092"
	printf '8092/tcp /usr/sbin/nginx uid=0\n' >"$f"
	out=$(kportreserve load 2>&1)
	rc=$?
	echo "kportreserve load: exit $rc"
	echo "$out"
	grep -qx '8092/tcp /usr/sbin/nginx uid=0' "$SFS/policy" || rc="$rc, not in force"
	kportreserve status >/tmp/status.out 2>&1
	rc2=$?
	echo "kportreserve status: exit $rc2"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	kportreserve status >/dev/null 2>&1
	i=$?
	echo "after pid $pid ended: status exit $i"
	rm -f "$f"
	kportreserve load >/dev/null
	[ "$rc" = 6 ] && [ "$rc2" = 6 ] && [ "$i" = 0 ] &&
	grep -A1 -E "^  8092/tcp: pid $pid $real uid=1000 gid=1000 cgroup=/" <<<"$out" |
		grep -qx '    reserved for: /usr/sbin/nginx uid=0' &&
	grep -Eq "^  8092/tcp: pid $pid $real uid=1000 gid=1000 cgroup=/" /tmp/status.out
}

# The selinux boot (security=selinux enforcing=1): SELinux, not AppArmor,
# is the major LSM, enforcing Debian's selinux-policy-default, and
# kportreserve is active beside it. The checks themselves run in
# initrc_t, an unconfined domain: there systemd starts a program that has
# no domain of its own (check.sh is lib_t), as it does kportreserve.
t_selinux() {
	local l e
	l=$(cat /sys/kernel/security/lsm)
	e=$(cat /sys/fs/selinux/enforce 2>&1)
	echo "lsm $l; /sys/fs/selinux/enforce $e; getenforce $(getenforce 2>&1)"
	sestatus 2>&1 | grep -E '^(SELinux status|Loaded policy name|Current mode|Policy MLS)'
	echo "the checks run in $(id -Z 2>&1)"
	[ "$e" = 1 ] && [ "$(getenforce)" = Enforcing ] &&
	sestatus | grep -Eq '^Loaded policy name: +default$' || return 1
	case ",$l," in *,apparmor,*) return 1 ;; esac
	case ",$l," in *,selinux,*) ;; *) return 1 ;; esac
	case ",$l," in *,kportreserve,*) ;; *) return 1 ;; esac
}
# who_nginx PORT: kportreserve names nginx, as root, the owner of tcp PORT
# (and the drop-in line of its rule, while the unit's load is in force).
who_nginx() {
	local w
	w=$(kportreserve who "$1/tcp")
	echo "$w"
	grep -Eqx "$1/tcp: /usr/sbin/nginx uid=0( \(.*/50-e2e\.policy:[0-9]+\))?" <<<"$w"
}
# nginx, started by systemd (init_t) from /usr/sbin/nginx (httpd_exec_t),
# runs in httpd_t, the domain the policy gives web servers.
t_nginx_httpd_t() {
	local pid ctx
	pid=$(nginx_pid)
	ctx=$(tr -d '\0' </proc/"$pid"/attr/current 2>&1)
	echo "nginx MainPID $pid: $ctx; $(ls -Z /usr/sbin/nginx)"
	ps -eZ | grep -E 'LABEL|nginx'
	listeners nginx
	systemctl is-active nginx.service &&
	[[ $ctx == *:httpd_t:* ]] && grep -qx 'tcp 80' <<<"$(listeners nginx)"
}
# audit_event PID PORT: kportreserve's record of PID's denied bind of tcp
# PORT with the other records of its event (bind_event): SELinux allowed
# the bind (no AVC), kportreserve refused it, bind() failed with
# EADDRINUSE.
t_audit_event() {
	local pid=$1 port=$2 r
	r=$(bind_event "$pid" "$port") || return 1
	grep -q "lsm=kportreserve op=bind proto=6 .* res=0" <<<"$r" &&
	grep -q ' auid=1000 ' <<<"$r" && grep -q ' uid=1000 ' <<<"$r" &&
	grep -Eq 'exe="/usr/bin/python3(\.[0-9]+)?"' <<<"$r" &&
	grep -q "type=SYSCALL .* syscall=49 success=no exit=-98 .* pid=$pid " <<<"$r" &&
	! grep -q 'avc: ' <<<"$r"
}
# SELinux's own verdict still stands beside kportreserve: a reload that
# makes nginx (httpd_t) listen on 25, smtp_port_t, which the policy does
# not let a web server bind and kportreserve does not reserve, is refused
# by SELinux with an AVC; nginx keeps its old configuration and port 80.
t_selinux_refuses() {
	local pid i r
	pid=$(nginx_pid)
	printf 'server {\n\tlisten 25;\n}\n' >/etc/nginx/conf.d/kpr-e2e-smtp.conf
	ls -Z /etc/nginx/conf.d/kpr-e2e-smtp.conf
	systemctl reload nginx.service || echo "reload failed"
	for i in $(seq 1 30); do
		r=$(grep -aE "avc: +denied +\{ name_bind \} for +pid=$pid comm=\"nginx\" src=25 " \
			/var/log/audit/audit.log)
		[ -z "$r" ] || break
		sleep 1
	done
	rm -f /etc/nginx/conf.d/kpr-e2e-smtp.conf
	echo "$r"
	grep -a ':25 failed' /var/log/nginx/error.log | tail -n 2
	echo "nginx $(nginx_pid) listens on: $(listeners nginx | tr '\n' ' ')"
	grep -Eq 'scontext=[^ ]*:httpd_t:[^ ]* tcontext=[^ ]*:smtp_port_t:[^ ]* tclass=tcp_socket permissive=0' <<<"$r" &&
	[ "$(nginx_pid)" = "$pid" ] && grep -qx 'tcp 80' <<<"$(listeners nginx)" &&
	! grep -qx 'tcp 25' <<<"$(listeners nginx)"
}
# The AVC denials of this boot, as comments: the kernel's (before auditd
# ran) and audit.log's, one line each of what was denied to whom.
avc_summary() {
	{ kernel_log; cat /var/log/audit/audit.log; } 2>/dev/null |
		grep -a 'avc: *denied' |
		sed -E 's/.*denied +(\{[^}]*\}).* comm=("[^"]*").* scontext=([^ ]*) tcontext=([^ ]*) tclass=([^ ]*).*/\2 \1 \3 -> \4 \5/' |
		sort | uniq -c | sort -rn | head -n 30 | sed 's/^/KPR-E2E: # avc: /'
}

# The kernel log, for vm.sh's scan. Under SELinux dmesg runs in dmesg_t,
# which may not write to the console the checks write to (its output is
# lost, with an AVC): python3, which stays in the checks' domain, reads
# the log with syslog(2) instead, as dmesg does.
kernel_log() {
	if [ "$(cat /sys/fs/selinux/enforce 2>/dev/null)" != 1 ]; then
		dmesg
		return
	fi
	python3 -c '
import ctypes, re, sys
c = ctypes.CDLL(None, use_errno=True)
size = c.klogctl(10, None, 0)          # SYSLOG_ACTION_SIZE_BUFFER
buf = ctypes.create_string_buffer(max(size, 1))
n = c.klogctl(3, buf, size)            # SYSLOG_ACTION_READ_ALL
if n < 0:
    sys.exit("klogctl: errno %d" % ctypes.get_errno())
text = buf.raw[:n].decode(errors="replace")
sys.stdout.write(re.sub(r"(?m)^<[0-9]+>", "", text))'
}

if [ "${1:-}" = --run ]; then
	shift
	"$@"
	exit
fi

echo "KPR-E2E: phase ${phase:-none}"
case $phase in
main)
	check "systemd is PID 1 on the test kernel" t_pid1
	if grep -q 'kpr_e2e\.kdeb=1' /proc/cmdline; then
		check "the kernel is the one its linux-image package installed" t_kernel_package
	else
		ok "the kernel is the one its linux-image package installed # SKIP E2E_KERNEL"
	fi
	check "kportreserve and AppArmor are both active" t_lsms
	check "kportreserve.service loaded the policy of policy.d" t_unit
	check "the policy is in force before network-pre.target (systemd's timestamps)" t_order
	check "nginx, started by its own unit, owns port 80" t_nginx
	check "python3 -m http.server as alice on nginx's 8080: EADDRINUSE" t_http_reserved
	pid8080=$(cat /tmp/http.pid)
	check "ausearch: the denial of 8080 with exe, pid, port and auid" t_ausearch "$pid8080" 8080
	http_server 80 >/tmp/http80.out
	pid80=$(cat /tmp/http.pid)
	check "python3 -m http.server as alice on nginx's 80: EADDRINUSE" grep -q 'Errno 98' /tmp/http80.out
	check "ausearch: the denial of 80 with exe, pid, port and auid" t_ausearch "$pid80" 80
	check "aureport --mac and ausearch -i read the policy load" t_aureport
	check "python3 -m http.server as alice on unreserved 8081 serves" t_http_control
	check "kportreserve who 8080/tcp names nginx" t_who
	check "kportreserve status lists the denial of 8080" t_status "$pid8080"
	if grep -q 'kpr_e2e\.kdeb=1' /proc/cmdline; then
		check "SCTP, SMC, rxrpc, L2TP loaded by alice's socket(), RDS and TIPC by root: reserved ports stay refused" t_modules
	else
		ok "SCTP, SMC, rxrpc, L2TP loaded by alice's socket(), RDS and TIPC by root: reserved ports stay refused # SKIP E2E_KERNEL has no modules"
	fi
	check "status names root's L2TP tunnel, a kernel socket, on a reserved port: exit 6" t_kernel_socket
	check "check accepts /usr/bin/python3 (a link) and names the real path, which the unit loads and lets alice serve" t_resolved
	check "an interpreter upgrade and an alternative switch by dpkg: the trigger reloads, the owner binds, the old program does not" t_follow
	check "add saves its rule (a link, a user's name) in policy.d, add --runtime does not" t_add_saves
	check "systemd-run --unit=kpr-myapp serves on its unit= port; the same python3 elsewhere: EADDRINUSE" t_unit_rule
	check "alice's own nginx on nginx's 8080 (a uid=0 rule): EADDRINUSE" t_user_nginx
	check "load and status name alice's python3, which held 8092 before its rule: exit 6" t_holders
	check "AppArmor enforces its nginx profile while nginx owns port 80" t_apparmor
	check "kportreserve refuses python3's bind of 8080 under AppArmor (enforce)" t_both
	check "AppArmor still refuses what its profile denies, beside kportreserve" t_apparmor_refuses
	check "sysctl.d ip_local_reserved_ports does not reopen automatic assignment" t_sysctl
	check "rpcbind and rpc.statd never take a reserved port (restarted 3 times or more)" t_rpc
	check "nginx keeps its port across a reinstall, binds as nginx on reload and restart" t_reinstall
	check "import-portreserve translates /etc/portreserve and load puts it in force" t_import
	# Last: the reboot boot starts with it.
	check "a drop-in with a bad line for the next boot: check names it, exit 1" t_typo
	;;
reboot)
	check "systemd is PID 1 on the test kernel" t_pid1
	check "after a reboot the policy is in force again" t_again
	check "the policy is in force before network-pre.target (systemd's timestamps)" t_order
	# After t_order: t_partial restarts the unit.
	check "after a reboot what add saved is in force, what add --runtime did is not" t_saved
	check "a boot with a bad line: left out at warning priority, every other rule in force, unit active with status 7" t_partial
	;;
lock)
	check "systemd is PID 1 on the test kernel" t_pid1
	check "kportreserve.lock=1 locks the policy the unit loaded; a later load fails, exit 3" t_lock
	check "a restart that loads nothing fails the unit, at error priority; the policy in force stays" t_nothing_loaded
	;;
selinux)
	check "systemd is PID 1 on the test kernel" t_pid1
	check "SELinux enforces Debian's policy, kportreserve beside it, no AppArmor" t_selinux
	check "kportreserve.service loaded the policy of policy.d" t_unit
	check "kportreserve who 80/tcp names nginx" who_nginx 80
	check "the policy is in force before network-pre.target (systemd's timestamps)" t_order
	check "nginx, started by its own unit, runs in httpd_t and owns port 80" t_nginx_httpd_t
	check "python3 -m http.server as alice on nginx's 8080: EADDRINUSE" t_http_reserved
	pid8080=$(cat /tmp/http.pid)
	check "audit.log: kportreserve's record of the denial of 8080, no AVC" t_audit_event "$pid8080" 8080
	check "SELinux still refuses nginx (httpd_t) port 25, with its AVC, beside kportreserve" t_selinux_refuses
	avc_summary
	;;
demo)
	# make demo DEMO=real: the story told, no checks.
	"$(dirname "$0")/demo.sh" || echo "KPR-DEMO: (the demo failed)"
	;;
*)
	notok "a phase on the kernel command line" "$(cat /proc/cmdline)"
	;;
esac
echo "KPR-E2E: 1..$n"
systemctl --failed --no-legend --plain | sed 's/^/KPR-E2E: # failed unit: /'
echo KPR-DMESG-BEGIN
kernel_log
echo KPR-DMESG-END
echo KPR-VM-DONE
sync
# The kernel has no ACPI to power off with: a reboot ends QEMU, which
# vm.sh runs with -no-reboot.
systemctl reboot --no-block
