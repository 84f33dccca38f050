#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of kportreserve(8) against the real kernel, as root in the test VM
# (busybox sh and applets only):
#
#   sh vm.sh /path/to/kportreserve-static
#
# Build the binary with "make -C tools/kportreserve static". The script
# replaces the policy in force and leaves the empty policy loaded; it never
# touches the mode or the lock. Prints "ok N - what" or "not ok N - what"
# per check and ends with "admin-vm: N passed, N failed"; exits non-zero
# if a check failed. Every check runs: the kernel must be in enforce mode
# (the default) and have the lock and denials files, or checks fail.

K=${1:?usage: vm.sh KPORTRESERVE}
FS=/sys/kernel/security/kportreserve
T=$(mktemp -d /tmp/kpr-vm.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
unset KPORTRESERVE_SECURITYFS KPORTRESERVE_TEST_BEFORE_WRITE
export LC_ALL=C
pass=0
fail=0
again="kportreserve: another policy was loaded during the edit"
# add and del save their edits here (kportreserve.policy(5)); the VM's
# root is its initramfs, so nothing outlives the test.
LOCAL=/etc/kportreserve/policy.d/local.policy
saved="saved in $LOCAL"
rm -f "$LOCAL"

ok() {
	pass=$((pass + 1))
	echo "ok $((pass + fail)) - $1"
}

not_ok() {
	fail=$((fail + 1))
	echo "not ok $((pass + fail)) - $1"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/#   /'
	done
}

finish() {
	echo "admin-vm: $pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}

# run CMD...: run CMD; $rc, $out and $err hold what it did.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}

# expect NAME RC STDOUT [STDERR]: the last run gave exactly that.
expect() {
	if [ "$rc" = "$2" ] && [ "$out" = "$3" ] && [ "$err" = "${4-}" ]; then
		ok "$1"
	else
		not_ok "$1" "exit code $rc, expected $2" "stdout: $out" \
			"wanted: $3" "stderr: $err" "wanted: ${4-}"
	fi
}

# expect_err NAME RC PATTERN: exit code RC, and stderr has a line PATTERN.
expect_err() {
	if [ "$rc" = "$2" ] && grep -Fqx -- "$3" "$T/err"; then
		ok "$1"
	else
		not_ok "$1" "exit code $rc, expected $2" "stderr: $err" \
			"wanted a line: $3"
	fi
}

# expect_policy NAME TEXT: the policy in force is exactly TEXT.
expect_policy() {
	got=$(cat "$FS/policy")
	if [ "$got" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1" "policy: $got" "wanted: $2"
	fi
}

gen() {
	sed -n 's/^generation //p' "$FS/stats"
}

if [ "$(id -u)" != 0 ] || [ ! -d "$FS" ] || [ ! -x "$K" ]; then
	not_ok "needs root, $FS and an executable $K"
	finish
fi
if [ "$(cat "$FS/lock" 2>/dev/null)" = 1 ]; then
	not_ok "the policy is locked until reboot"
	finish
fi
ok "kportreserve is there"

# The programs the policies name exist, as check, load and add want them
# (tools/kportreserve/programs.c); /nonexistent/server does not.
for p in /bin/a /bin/b /bin/c /opt/app/bin/server /usr/bin/a /usr/bin/b \
	/usr/bin/kpr-echo /usr/bin/other /usr/sbin/avahi-daemon /usr/sbin/nginx; do
	[ -e "$p" ] || { mkdir -p "${p%/*}" && : >"$p"; }
done

P1='80/tcp /usr/sbin/nginx
443/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server'
printf '# the web server\n443/tcp  /usr/sbin/nginx\n\n%s\n%s\n' \
	'8000-8099 /opt/app/bin/server' '80/tcp /usr/sbin/nginx' >"$T/p1"

# --- load ----------------------------------------------------------------

g0=$(gen)
run "$K" load "$T/p1"
expect "load" 0 "loaded $T/p1: generation $((g0 + 1)), rules 3, ports 102"
expect_policy "the loaded policy is in force, canonical" "$P1"
run "$K" check "$T/p1"
expect "check agrees with the kernel" 0 ""

# --- status --------------------------------------------------------------

run "$K" status
table=$(sed -n '/^PORTS/,/^$/p' "$T/out")
want='PORTS      PROTO  PROGRAM
80         tcp    /usr/sbin/nginx
443        tcp    /usr/sbin/nginx
8000-8099  all    /opt/app/bin/server'
if [ "$rc" = 0 ] && [ "$table" = "$want" ]; then
	ok "status shows the rules as a table"
else
	not_ok "status shows the rules as a table" "exit code $rc" "$out"
fi
mode=$(cat "$FS/mode" 2>/dev/null || echo unknown)
if grep -qx "mode: *$mode" "$T/out" &&
   grep -qx "generation: *$((g0 + 1))" "$T/out" &&
   grep -qx "rules: *3" "$T/out" && grep -q "^lock: *unlocked$" "$T/out"; then
	ok "status shows mode, lock and counters"
else
	not_ok "status shows mode, lock and counters" "$out"
fi

# --- who -----------------------------------------------------------------

run "$K" who 443/tcp
expect "who of a reserved port" 0 "443/tcp: /usr/sbin/nginx"
run "$K" who 8080/udp
expect "who names a wider rule" 0 \
	"8080/udp: /opt/app/bin/server (rule 8000-8099)"
run "$K" who 9999/tcp
expect "who of a free port" 0 \
	"9999/tcp: not reserved (any program may bind it)"

# --- add and del ---------------------------------------------------------

g=$(gen)
run "$K" add 5353/udp /usr/sbin/avahi-daemon
expect "add" 0 "added: 5353/udp /usr/sbin/avahi-daemon
$saved"
expect_policy "add put the rule in force" "80/tcp /usr/sbin/nginx
443/tcp /usr/sbin/nginx
5353/udp /usr/sbin/avahi-daemon
8000-8099 /opt/app/bin/server"
[ "$(gen)" = $((g + 1)) ] && ok "add loaded one policy" ||
	not_ok "add loaded one policy" "generation $(gen), was $g"
run "$K" add 5353/udp /usr/sbin/avahi-daemon
expect "add of a rule already there" 0 \
	"already in the policy: 5353/udp /usr/sbin/avahi-daemon"
run "$K" who 5353
case $out in
"5353/tcp: not reserved (any program may bind it)
5353/udp: /usr/sbin/avahi-daemon"*)
	ok "who sees the added rule" ;;
*)
	not_ok "who sees the added rule" "$out" ;;
esac
run "$K" del 5353/udp /usr/sbin/avahi-daemon
expect "del" 0 "deleted: 5353/udp /usr/sbin/avahi-daemon
$saved"
expect_policy "del took the rule out" "$P1"
run "$K" del 5353/udp /usr/sbin/avahi-daemon
expect "del of a missing rule" 1 "" \
	"kportreserve: no rule '5353/udp /usr/sbin/avahi-daemon' in the policy in force or in $LOCAL"

# --- refused loads -------------------------------------------------------

g=$(gen)
printf '1/tcp /bin/a\n99999/tcp /bin/b\n3/tcp /bin/c\n' >"$T/bad"
run "$K" load "$T/bad"
expect_err "a bad line is refused: exit 3, the line named" 3 \
	"$T/bad:2: port must be a number from 1 to 65535"
expect_err "a refused load says the policy is unchanged" 3 \
	"kportreserve: the kernel refused $T/bad: Invalid argument; the policy in force is unchanged"
expect_policy "the old policy stays in force" "$P1"
[ "$(gen)" = "$g" ] && ok "a refused load loads nothing" ||
	not_ok "a refused load loads nothing" "generation $(gen), was $g"
printf '1/tcp /bin/a\n2/tcp /bin/b\n3/tcp relative' >"$T/bad-last"
run "$K" load "$T/bad-last"
expect_err "a bad last line without a newline is refused" 3 \
	"$T/bad-last:3: program must be an absolute path or <kernel>"
expect_policy "the old policy stays in force after a bad last line" "$P1"

# --- concurrent edits ----------------------------------------------------

# add and del are conditional loads: what they write to the load file
# starts with the generation of the policy they edited, and the write()
# fails with ESTALE when another load came in between; then they start
# over. other-admin ONCE: load the policy plus one rule, as a second
# administrator would; with ONCE=1 only the first time.
cat >"$T/other-admin" <<EOF
[ "\$1" = 1 ] && [ -e "$T/done" ] && exit 0
: >"$T/done"
n=\$(cat "$T/n" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n >"$T/n"
{ cat "$FS/policy"; echo "\$((9000 + n))/udp /usr/bin/other"; } >"$T/next"
"$K" load "$T/next" >/dev/null
EOF
g=$(gen)
run env KPORTRESERVE_TEST_BEFORE_WRITE="sh $T/other-admin 1" \
	"$K" add 7/udp /usr/bin/kpr-echo
expect "an edit overtaken by another load (ESTALE) is retried" 0 \
	"added: 7/udp /usr/bin/kpr-echo
$saved" "$again; trying again"
expect_policy "both the concurrent rule and the edit are in force" \
	"7/udp /usr/bin/kpr-echo
$P1
9001/udp /usr/bin/other"
[ "$(gen)" = $((g + 2)) ] && ok "the overtaken attempt loaded nothing" ||
	not_ok "the overtaken attempt loaded nothing" \
		"generation $(gen), was $g: one other load and one edit expected"
rm -f "$T/done" "$T/n"
"$K" load "$T/p1" >/dev/null
g=$(gen)
run env KPORTRESERVE_TEST_BEFORE_WRITE="sh $T/other-admin 0" \
	"$K" del 80/tcp /usr/sbin/nginx
want_err=
i=1
while [ $i -lt 10 ]; do
	want_err="$want_err$again; trying again
"
	i=$((i + 1))
done
want_err="$want_err$again
kportreserve: gave up after 10 attempts; nothing was loaded"
expect "an edit that keeps racing gives up: exit 4" 4 "" "$want_err"
want_policy=$P1
i=1
while [ $i -le 10 ]; do
	want_policy="$want_policy
$((9000 + i))/udp /usr/bin/other"
	i=$((i + 1))
done
expect_policy "the racing edit loaded nothing" "$want_policy"
[ "$(gen)" = $((g + 10)) ] && ok "only the other loads counted" ||
	not_ok "only the other loads counted" "generation $(gen), was $g"

# adder FIRST PROTO PROGRAM: add FIRST+1/PROTO ... FIRST+100/PROTO one by
# one; $T/fails.PROTO receives how many adds failed, $T/err.PROTO what
# they said.
adder() {
	i=1 fails=0
	: >"$T/err.$2"
	while [ $i -le 100 ]; do
		"$K" add "$(($1 + i))/$2" "$3" >/dev/null 2>>"$T/err.$2" ||
			fails=$((fails + 1))
		i=$((i + 1))
	done
	echo $fails >"$T/fails.$2"
}
"$K" load "$T/p1" >/dev/null
g=$(gen)
adder 10000 tcp /usr/bin/a &
a=$!
adder 20000 udp /usr/bin/b &
b=$!
wait $a $b
fails="$(cat "$T/fails.tcp" 2>/dev/null) $(cat "$T/fails.udp" 2>/dev/null)"
retries=$(cat "$T/err.tcp" "$T/err.udp" | grep -c "^$again; trying again$")
if [ "$fails" = "0 0" ]; then
	ok "two processes adding 100 rules each at once: every add succeeds"
	echo "# the adds were overtaken $retries times"
else
	not_ok "two processes adding 100 rules each at once: every add succeeds" \
		"failed adds (tcp udp): $fails" "$(cat "$T/err.tcp" "$T/err.udp")"
fi
# rules FIRST PROTO PROGRAM: the rules that adder adds, in canonical order.
rules() {
	i=1
	while [ $i -le 100 ]; do
		echo "$(($1 + i))/$2 $3"
		i=$((i + 1))
	done
}
expect_policy "all 200 rules of the concurrent adds are in force" "$P1
$(rules 10000 tcp /usr/bin/a)
$(rules 20000 udp /usr/bin/b)"
[ "$(gen)" = $((g + 200)) ] && ok "each concurrent add loaded once" ||
	not_ok "each concurrent add loaded once" "generation $(gen), was $g"
# Each add saved its rule: the lock of edits (flock(), which the test
# kernels have, as every distribution's) kept them from undoing each other.
n=$(grep -Ec '^[12]0[0-9]{3}/(tcp|udp) /usr/bin/[ab]$' "$LOCAL")
[ "$n" = 200 ] && ok "all 200 rules of the concurrent adds are saved" ||
	not_ok "all 200 rules of the concurrent adds are saved" \
		"$n in $LOCAL; /proc/locks $([ -e /proc/locks ] || echo "missing: no file locking")"

# --- denials -------------------------------------------------------------

"$K" add 7777/tcp /nonexistent/server >/dev/null
# nc says why it could not listen; one that could is stopped after 5 s.
timeout 5 nc -l -p 7777 </dev/null >/dev/null 2>"$T/nc.err"
if grep -q 'Address already in use' "$T/nc.err"; then
	ok "a denied bind fails"
else
	not_ok "a denied bind fails" \
		"nc: $(cat "$T/nc.err"); mode: $(cat "$FS/mode" 2>/dev/null || echo unknown)"
fi
run "$K" status
if grep -Eq '^7777/tcp +[1-9][0-9]* +0 +[0-9]+ +/bin/busybox$' "$T/out"; then
	ok "status shows the denial"
else
	not_ok "status shows the denial" "$out"
fi

# --- the sockets that hold reserved ports --------------------------------

# A listener takes port 7778 before a policy reserves it for another
# program: the load stands, names the listener, and exits 6; so does
# status until the listener is gone.
: >"$T/empty"
"$K" load "$T/empty" >/dev/null
nc -l -p 7778 </dev/null >/dev/null 2>&1 &
ncpid=$!
i=0
while ! grep -q ':1E62 ' /proc/net/tcp /proc/net/tcp6 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
printf '7778/tcp /usr/sbin/nginx\n' >"$T/held"
run "$K" load "$T/held"
holder="  7778/tcp: pid $ncpid /bin/busybox uid=0 gid=0( cgroup=/.*)?"
if [ "$rc" = 6 ] && grep -Eqx "$holder" "$T/out"; then
	ok "load names the process that holds a port it reserves: exit 6"
else
	not_ok "load names the process that holds a port it reserves: exit 6" \
		"exit code $rc" "stdout: $out" "stderr: $err"
fi
expect_policy "the policy is in force all the same" "7778/tcp /usr/sbin/nginx"
run "$K" status
if [ "$rc" = 6 ] && grep -qx "    reserved for: /usr/sbin/nginx" "$T/out"; then
	ok "status names it too: exit 6"
else
	not_ok "status names it too: exit 6" "exit code $rc" "stdout: $out"
fi
kill "$ncpid"
wait "$ncpid" 2>/dev/null
run "$K" status
if [ "$rc" = 0 ] && ! grep -q "^sockets on ports" "$T/out"; then
	ok "once the listener is gone, status exits 0"
else
	not_ok "once the listener is gone, status exits 0" "exit code $rc" "stdout: $out"
fi

# --- a last line without a newline ---------------------------------------

# The kernel's load file takes only text that ends with a newline; the
# command adds the one a file's last line lacks.
printf '1/tcp /bin/a\n2/udp /bin/b' >"$T/no-newline"
g=$(gen)
run "$K" load "$T/no-newline"
expect "load of a file whose last line has no newline" 0 \
	"loaded $T/no-newline: generation $((g + 1)), rules 2, ports 2"
expect_policy "the last line without a newline is in force" "1/tcp /bin/a
2/udp /bin/b"

# --- back to the empty policy --------------------------------------------

rm -f "$LOCAL"
: >"$T/empty"
run "$K" load "$T/empty"
[ "$rc" = 0 ] && ok "load of an empty file" ||
	not_ok "load of an empty file" "$err"
expect_policy "the empty policy is in force" ""
run "$K" status
grep -qx "no reserved ports" "$T/out" && ok "status of the empty policy" ||
	not_ok "status of the empty policy" "$out"

finish
