#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's half of "make demo DEMO=real": on the Debian system of make
# e2e, booted with systemd, the story of the quick demo told with the
# real programs: the packaged unit, nginx, python3, the journal, auditd
# and kportreserve(8). Each line goes to the console as "KPR-DEMO: ...",
# which e2e.sh prints without the prefix. Run by check.sh for the phase
# "demo"; exits non-zero when a step did not show what it says.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C.UTF-8

say() { printf '%s\n' "$@" | sed 's/^/KPR-DEMO: /'; }
# run CMD...: show "# CMD" and its output, indented. The command line goes
# to standard error, the same console, so that a pipe after run filters
# the output only.
run() {
	say "    # $*" >&2
	"$@" 2>&1 | sed 's/^/KPR-DEMO:     /'
	return "${PIPESTATUS[0]}"
}
# as_alice CMD...: CMD as the ordinary user alice (uid 1000), with her
# login uid set as a login would set it.
as_alice() {
	local line=$*
	say "    alice\$ ${line//$'\n'/; }" >&2
	sh -c 'echo 1000 >/proc/self/loginuid &&
		exec setpriv --reuid=1000 --regid=1000 --init-groups "$@"' sh "$@" 2>&1 |
		sed 's/^/KPR-DEMO:     /'
	return "${PIPESTATUS[0]}"
}
fail() { say "" "The demo stopped: $1"; exit 1; }

say "" "== kportreserve demo on Debian $(cat /etc/debian_version) =="
say "systemd is PID 1; the kernel is $(uname -r), with these LSMs:" \
	"    $(cat /sys/kernel/security/lsm)"
say "" "1. The kportreserve package's unit loaded the policy files at boot," \
	"   before the network came up:"
run systemctl --no-pager --lines=0 status kportreserve.service | head -n 4
run cat /etc/kportreserve/policy.d/50-e2e.policy
run kportreserve status | head -n 12

say "" "2. nginx, started by its own unit, owns port 80:"
run ss -Hltnp 'sport = :80' || fail "nginx does not listen on 80"
ss -Hltnp 'sport = :80' | grep -q '"nginx"' || fail "port 80 is not nginx's"

say "" "3. Any other program gets EADDRINUSE on nginx's ports, even one" \
	"   nginx does not listen on (8080):"
as_alice timeout 10 python3 -m http.server --bind 0.0.0.0 8080 | tail -n 1
[ "${PIPESTATUS[0]}" = 1 ] || fail "python3 was not refused 8080"

say "" "4. The refusal is in the journal (the kernel's line) and in the" \
	"   audit log (its own record type, 1427, with the SYSCALL record):"
sleep 1
run journalctl -k --no-pager -o cat -g 'kportreserve: denied' | tail -n 1
run ausearch -m 1427 -i | grep -m 1 -A 2 'lport=8080' ||
	fail "ausearch did not find the denial"

say "" "5. kportreserve(8) says who may bind a port, and what it refused:"
run kportreserve who 8080/tcp
run grep 8080/tcp /sys/kernel/security/kportreserve/denials

say "" "6. A port without a rule is free for anyone:"
as_alice python3 -c 'import socket
s = socket.socket(); s.bind(("0.0.0.0", 8081)); s.listen()
print("listening on", s.getsockname()[1])' || fail "8081 was refused"

say "" "7. A drop-in in /etc/kportreserve/policy.d and \"kportreserve load\"" \
	"   reserve 8081 for nginx at once; a bad line is left out with its" \
	"   FILE:LINE, every other rule stays in force, and the exit status (7)" \
	"   says something was left out:"
echo '8081/tcp /usr/sbin/nginx uid=0' >/etc/kportreserve/policy.d/80-demo.policy
run kportreserve load || fail "kportreserve load failed"
as_alice python3 -c 'import socket
socket.socket().bind(("0.0.0.0", 8081))' | tail -n 1
echo '8082/tcp usr/sbin/nginx' >/etc/kportreserve/policy.d/90-bad.policy
run kportreserve load; [ $? = 7 ] || fail "a bad line was not left out (exit 7)"
rm -f /etc/kportreserve/policy.d/90-bad.policy
run kportreserve who 8081/tcp

say "" "8. On Debian 13 /usr/bin/python3 is a link to $(readlink -f /usr/bin/python3):" \
	"   the kernel sees the real path. A rule may name the link all the" \
	"   same: check says where it leads, and every load resolves it again," \
	"   so the rule follows the next python upgrade:"
echo '8090/tcp /usr/bin/python3 uid=1000' >/etc/kportreserve/policy.d/80-demo.policy
run kportreserve check || fail "the link was refused"
run kportreserve load || fail "kportreserve load failed"
run grep 8090 /sys/kernel/security/kportreserve/policy
as_alice python3 -c 'import socket
s = socket.socket(); s.bind(("0.0.0.0", 8090)); s.listen()
print("listening on", s.getsockname()[1])' || fail "8090 was refused to alice"
say "" "The demo is over; the guest reboots, which ends QEMU."
