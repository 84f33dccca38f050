#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of kportreserve(8) against a fake securityfs directory: a temporary
# directory of plain files (policy, load, stats, mode, lock, denials). The
# kernel's load file is faked by tests/fake_load.c, preloaded into every
# run of the command: a load is checked as the kernel checks it (one
# write(), a final newline, the generation line, ESTALE, the lock) and
# replaces the policy file, and the load file keeps what was written, so
# that both can be checked. Builds the command with ASan and UBSan first.
#
#   make -C tools/kportreserve check
#
# Prints "ok N - what" or "not ok N - what" per check, and ends with the
# line "admin: N passed, N failed"; exits non-zero if a check failed.
# Every check runs: a parser without sctp or uid=/gid=, or a missing tool
# (groff, systemd-analyze: tools/workbench/deps.sh installs them), fails.
# CC, KPR_SRC and KERNEL_TOOLS_INCLUDE (the kernel's tools/include, which
# a build outside a kernel tree must name) are passed on to make.

set -u
export LC_ALL=C
unset KPORTRESERVE_SECURITYFS KPORTRESERVE_TEST_BEFORE_WRITE

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
tmp=$(mktemp -d)
# Pieces of long messages, to keep the expected outputs under 100 columns.
nospc="No space left on device"
kept="the policy in force is unchanged"
bootkept="the policy files hold no rule: the policy in force, which they did not"
bootkept="$bootkept load (the kernel's boot policy), stays"
leftrest="(named above); every other rule is in force"
notactive="kportreserve is not active in this kernel"
back="if another policy file has it, the next load brings it back"
resolves="which the kernel matches; every load resolves it again"
nobodyyet="does not exist (yet): its rule allows nobody until it does"
weak="can be replaced by a user other than root"
notroots="is not root's alone), who would then get its ports"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
# The policy files and the record of load live under this root, never in
# the system's /etc, /usr/lib and /run.
root=$tmp/root
export KPORTRESERVE_ROOT="$root"
# The programs the policies below name exist under $root, as check, load
# and add want them on the machine (programs.c); their own checks make
# links and leave paths out.
make_programs() {
	for p in /usr/sbin/nginx /opt/app/bin/server /x /y /z /a /b /c \
		/usr/sbin/exim /usr/sbin/exim4 /usr/sbin/avahi-daemon \
		/usr/sbin/cupsd /usr/bin/other /usr/sbin/named "/usr/sbin/my sshd" \
		"/opt/my app" /bin/x /bin/y /sbin/rpcbind /usr/sbin/postfix \
		/ok /also/ok /usr/bin/python3.13; do
		mkdir -p "$root$(dirname "$p")" && : >"$root$p"
	done
}
make_programs
pass=0
fail=0

# Sanitizer reports end the run with codes no check expects.
export ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=98

ok() {
	pass=$((pass + 1))
	echo "ok $((pass + fail)) - $1"
}

not_ok() {
	fail=$((fail + 1))
	echo "not ok $((pass + fail)) - $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/#   /'
	return 0
}

# want / want_err: the exact stdout / stderr the next check expects (read
# from standard input). Without them, the next check expects none.
want() { cat >"$tmp/want.out"; }
want_err() { cat >"$tmp/want.err"; }
# any_out / any_err: the next check does not look at stdout / stderr.
any_out() { echo any >"$tmp/any.out"; }
any_err() { echo any >"$tmp/any.err"; }

# compare WHAT WANT GOT: append a difference to $why.
compare() {
	if ! cmp -s "$2" "$3"; then
		why="$why$1 differs:
$(diff -u "$2" "$3" | tail -n +3)
"
	fi
}

# t NAME RC CMD...: run CMD, check its exit code, stdout and stderr.
t() {
	name=$1 rc=$2
	shift 2
	"$@" >"$tmp/got.out" 2>"$tmp/got.err"
	got=$?
	why=
	[ "$got" = "$rc" ] || why="exit code $got, expected $rc
"
	[ -f "$tmp/want.out" ] || : >"$tmp/want.out"
	[ -f "$tmp/want.err" ] || : >"$tmp/want.err"
	[ -f "$tmp/any.out" ] || compare stdout "$tmp/want.out" "$tmp/got.out"
	[ -f "$tmp/any.err" ] || compare stderr "$tmp/want.err" "$tmp/got.err"
	rm -f "$tmp/want.out" "$tmp/want.err" "$tmp/any.out" "$tmp/any.err"
	if [ -z "$why" ]; then
		ok "$name"
	else
		not_ok "$name" "$why$(sed 's/^/stderr: /' "$tmp/got.err" | head -20)"
	fi
}

# t_file NAME FILE: FILE holds exactly what want gave.
t_file() {
	why=
	compare "$2" "$tmp/want.out" "$2"
	rm -f "$tmp/want.out"
	if [ -z "$why" ]; then ok "$1"; else not_ok "$1" "$why"; fi
}

# t_true NAME CMD...: CMD succeeds.
t_true() {
	name=$1
	shift
	if "$@" >"$tmp/true.log" 2>&1; then
		ok "$name"
	else
		not_ok "$name" "$(tail -20 "$tmp/true.log")"
	fi
}

# fake_fs DIR: a fake securityfs directory with a small policy.
fake_fs() {
	rm -rf "$1"
	mkdir -p "$1"
	printf '80/tcp /usr/sbin/nginx\n8000-8099 /opt/app/bin/server\n' \
		>"$1/policy"
	printf 'generation 3\nrules 2\nports 101\nchecked 10\nallowed 8\ndenied 2\nwould_deny 1\n' \
		>"$1/stats"
	echo enforce >"$1/mode"
	echo 0 >"$1/lock"
	: >"$1/load"
	{
		printf '%s\n' \
			'443/tcp denied=3 would_deny=0 pid=1234 exe=/usr/bin/python3' \
			'80/udp denied=1 would_deny=1 pid=77 exe=/opt/my\040app'
	} >"$1/denials"
}

make_q() {
	make -s -C "$src" ${CC:+CC="$CC"} ${KPR_SRC:+KPR_SRC="$KPR_SRC"} \
		${KERNEL_TOOLS_INCLUDE:+KERNEL_TOOLS_INCLUDE="$KERNEL_TOOLS_INCLUDE"} "$@"
}

# --- build ---------------------------------------------------------------

t_true "builds with -O2 -Wall -Wextra -Werror" \
	make_q OUTPUT="$tmp/plain/" EXTRA_CFLAGS=-Werror
t_true "builds with ASan and UBSan" \
	make_q OUTPUT="$tmp/asan/" EXTRA_CFLAGS=-Werror \
	CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
-fno-omit-frame-pointer"
if [ ! -x "$tmp/asan/kportreserve" ]; then
	not_ok "no binary to test"
	echo "admin: $pass passed, $fail failed"
	exit 1
fi
# The fake load file (tests/fake_load.c) of the fake securityfs $fs. $K
# runs the command with it preloaded, after any library that the caller
# preloads; ASan must then accept a library loaded before its own.
fs=$tmp/fs
fake=$tmp/fake_load.so
t_true "the fake conditional load builds" \
	${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -U_FORTIFY_SOURCE \
	-o "$fake" "$here/fake_load.c" -ldl
K=$tmp/kportreserve
cat >"$K" <<EOF
#!/bin/sh
exec env LD_PRELOAD="\${LD_PRELOAD:+\$LD_PRELOAD }$fake" \\
	KPR_FAKE_LOAD="$fs/load" \\
	ASAN_OPTIONS="\$ASAN_OPTIONS:verify_asan_link_order=0" \\
	"$tmp/asan/kportreserve" "\$@"
EOF
chmod +x "$K"
t_true "make static builds a static binary" \
	sh -c 'make -s -C "$1" OUTPUT="$2/static/" static &&
	       "$2/static/kportreserve-static" --help >/dev/null &&
	       ! LC_ALL=C ldd "$2/static/kportreserve-static" >/dev/null 2>&1' \
	sh "$src" "$tmp"
t_true "make O=DIR leaves the source directory clean" \
	sh -c 'mkdir "$2/o" && make -s -C "$1" O="$2/o" &&
	       [ -x "$2/o/kportreserve" ] &&
	       [ -z "$(cd "$1" && ls *.o *.d kportreserve 2>/dev/null)" ]' \
	sh "$src" "$tmp"

# --- command line --------------------------------------------------------

any_out
t "--help exits 0" 0 "$K" --help
t_true "--help documents every exit code" sh -c '
	"$1" --help >"$2/help" &&
	for c in "0  success" "1  a policy" "2  usage" "3  the kernel refused" \
		 "4  the policy kept changing" "5  I/O error" "7  loaded"; do
		grep -q "^  $c" "$2/help" || exit 1
	done' sh "$K" "$tmp"
want_err <<'EOF'
kportreserve: no command given
Try 'kportreserve --help'.
EOF
t "no command: usage error" 2 "$K"
want_err <<'EOF'
kportreserve: unknown command 'frob'
Try 'kportreserve --help'.
EOF
t "unknown command: usage error" 2 "$K" frob
want_err <<'EOF'
kportreserve: unknown option '--bogus'
Try 'kportreserve --help'.
EOF
t "unknown option: usage error" 2 "$K" --bogus status
want_err <<'EOF'
kportreserve: option '--securityfs' needs an argument
Try 'kportreserve --help'.
EOF
t "--securityfs without a directory: usage error" 2 "$K" --securityfs
want_err <<'EOF'
kportreserve: load: expected at most one policy file
Try 'kportreserve --help'.
EOF
t "load of two files: usage error" 2 "$K" load a b
want_err <<'EOF'
kportreserve: who: expected one PORT[/PROTO]
Try 'kportreserve --help'.
EOF
t "who with two ports: usage error" 2 "$K" who 1 2

# --- check ---------------------------------------------------------------

cat >"$tmp/good.pol" <<'EOF'
# ports for the web server
80/tcp       /usr/sbin/nginx
443/tcp      /usr/sbin/nginx
5353/udp     /usr/sbin/avahi-daemon
8000-8099    /opt/app/bin/server
2049         <kernel>
EOF
cat >"$tmp/bad.pol" <<'EOF'
80/tcp /usr/sbin/nginx
99999/tcp /usr/sbin/nginx
# a comment, then a relative program
443 nginx

90-80 /usr/sbin/nginx
8080/tcp
EOF
printf '1 /ok\n2 /also/ok\n3' >"$tmp/bad2.pol"

t "check of a valid policy: silent, exit 0" 0 "$K" check "$tmp/good.pol"
printf '1/sctp /x\n2-3/sctp /y\n' >"$tmp/sctp.pol"
t "check accepts the sctp protocol" 0 "$K" check "$tmp/sctp.pol"
printf '1 /x uid=0\n2/tcp /y gid=8\n3/udp /z gid=8 uid=4294967294\n' \
	>"$tmp/quals.pol"
t "check accepts uid= and gid= qualifiers" 0 "$K" check "$tmp/quals.pol"
want_err <<EOF
$tmp/bad.pol:2: port must be a number from 1 to 65535
$tmp/bad.pol:4: program must be an absolute path or <kernel>
$tmp/bad.pol:6: reversed port range: FIRST must not exceed LAST
$tmp/bad.pol:7: missing program after the ports
EOF
t "check reports every bad line as FILE:LINE, exit 1" 1 \
	"$K" check "$tmp/bad.pol"
want_err <<EOF
$tmp/bad.pol:2: port must be a number from 1 to 65535
$tmp/bad.pol:4: program must be an absolute path or <kernel>
$tmp/bad.pol:6: reversed port range: FIRST must not exceed LAST
$tmp/bad.pol:7: missing program after the ports
$tmp/bad2.pol:3: missing program after the ports
EOF
t "check of several files reports each, exit 1" 1 \
	"$K" check "$tmp/good.pol" "$tmp/bad.pol" "$tmp/bad2.pol"
want_err <<EOF
kportreserve: $tmp/none.pol: No such file or directory
$tmp/bad2.pol:3: missing program after the ports
EOF
t "check of a missing file: exit 5, other files still checked" 5 \
	"$K" check "$tmp/none.pol" "$tmp/bad2.pol"
want_err <<'EOF'
<stdin>:2: port must be a number from 1 to 65535
EOF
t "check - reads standard input" 1 \
	sh -c 'printf "1 /a\n0 /b\n" | "$1" check -' sh "$K"

# --- load ----------------------------------------------------------------

# First the fake itself: the tests below rely on it to refuse what the
# kernel's load file refuses, with the same errno. feed BS TEXT: printf
# TEXT into the fake load file in write()s of BS bytes, and print the
# error of the one that failed, if one did.
feed() {
	printf "$2" | env LD_PRELOAD="$fake" KPR_FAKE_LOAD="$fs/load" \
		dd of="$fs/load" bs="$1" iflag=fullblock conv=notrunc \
		status=none 2>&1 | sed 's/^dd: .*: //'
}
fake_fs "$fs"
{
	feed 64 '1 /a'
	feed 64 'generation x\n1 /a\n'
	feed 64 'generation 2\n1 /a\n'
	echo 1 >"$fs/lock"
	feed 64 '1 /a\n'
	echo 0 >"$fs/lock"
	cat "$fs/policy"
	feed 64 'generation 3\n1 /a\n'
	cat "$fs/policy"
	feed 5 '2 /b\n3 /c\n'
	cat "$fs/policy"
} >"$tmp/fake.out"
want <<'EOF'
Invalid argument
Invalid argument
Stale file handle
Operation not permitted
80/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
1 /a
Invalid argument
2 /b
EOF
t_file "the fake load file refuses what the kernel's refuses" "$tmp/fake.out"

fake_fs "$fs"
want <<EOF
loaded $tmp/good.pol: generation 3, rules 2, ports 101
EOF
t "load: exit 0 and the kernel's figures" 0 "$K" -s "$fs" load "$tmp/good.pol"
want <"$tmp/good.pol"
t_file "load wrote the file as it is" "$fs/load"

: >"$tmp/empty.pol"
want <<EOF
loaded $tmp/empty.pol: generation 3, rules 2, ports 101
EOF
t "load of an empty file" 0 "$K" -s "$fs" load "$tmp/empty.pol"
echo | want
t_file "load of an empty file writes a newline, the empty policy" "$fs/load"

printf '7/udp /bin/x\n8/udp /bin/y' >"$tmp/no-newline.pol"
want <<EOF
loaded $tmp/no-newline.pol: generation 3, rules 2, ports 101
EOF
t "load of a file whose last line has no newline" 0 \
	"$K" -s "$fs" load "$tmp/no-newline.pol"
printf '7/udp /bin/x\n8/udp /bin/y\n' | want
t_file "load added the newline that the kernel requires" "$fs/load"

fake_fs "$fs"
n=$(wc -c <"$tmp/good.pol")
want_err <<EOF
kportreserve: $fs/load: short write: $((n / 2)) of $n bytes of $tmp/good.pol $(
	)taken; check the policy in force with 'kportreserve status'
EOF
t "a short write to the load file: exit 5" 5 \
	env KPR_FAKE_SHORT=1 "$K" -s "$fs" load "$tmp/good.pol"
rm "$fs/load"
want_err <<EOF
kportreserve: $fs/load: No such file or directory (is the kernel older than this program?)
EOF
t "load without a load file: exit 5" 5 "$K" -s "$fs" load "$tmp/good.pol"

fake_fs "$fs"
rm "$fs/load"
ln -s /dev/full "$fs/load"
want_err <<EOF
$tmp/bad.pol:2: port must be a number from 1 to 65535
kportreserve: the kernel refused $tmp/bad.pol: $nospc; $kept
EOF
t "a refused load: exit 3, the bad line named" 3 \
	"$K" -s "$fs" load "$tmp/bad.pol"
want_err <<EOF
kportreserve: the kernel refused $tmp/good.pol: $nospc; $kept
EOF
t "a refused load of a valid policy: exit 3" 3 \
	"$K" -s "$fs" load "$tmp/good.pol"
want_err <<EOF
kportreserve: $tmp/nofs: No such file or directory (is kportreserve in lsm= and securityfs mounted?)
EOF
t "load without kportreserve: exit 5" 5 \
	"$K" -s "$tmp/nofs" load "$tmp/good.pol"
fake_fs "$fs"
want_err <<EOF
kportreserve: $tmp/none.pol: No such file or directory
EOF
t "load of a missing file: exit 5" 5 "$K" -s "$fs" load "$tmp/none.pol"
want <<'EOF'
loaded <stdin>: generation 3, rules 2, ports 101
EOF
t "load - reads standard input" 0 \
	sh -c 'echo "7/udp /bin/x" | "$1" -s "$2" load -' sh "$K" "$fs"
echo "7/udp /bin/x" | want
t_file "load - wrote standard input" "$fs/load"

# --- status --------------------------------------------------------------

fake_fs "$fs"
want <<EOF
mode:        enforce
lock:        unlocked
generation:  3
rules:       2
ports:       101
checked:     10
allowed:     8
denied:      2
would_deny:  1

policy files: unknown ($root/run/kportreserve/sources: no kportreserve load recorded)

PORTS      PROTO  PROGRAM
80         tcp    /usr/sbin/nginx
8000-8099  all    /opt/app/bin/server

PORT     DENIED  WOULD_DENY  LAST_PID  LAST_EXE
443/tcp  3       0           1234      /usr/bin/python3
80/udp   1       1           77        /opt/my\040app
EOF
t "status: settings, counters, rules and denials" 0 "$K" -s "$fs" status

rm "$fs/mode" "$fs/lock" "$fs/denials"
printf 'generation 9\nrules 2\nports 101\nchecked 1\nallowed 1\ndenied 0\nnew_counter 5\n' \
	>"$fs/stats"
want <<EOF
mode:         unknown
lock:         unknown
generation:   9
rules:        2
ports:        101
checked:      1
allowed:      1
denied:       0
new_counter:  5

policy files: unknown ($root/run/kportreserve/sources: no kportreserve load recorded)

PORTS      PROTO  PROGRAM
80         tcp    /usr/sbin/nginx
8000-8099  all    /opt/app/bin/server

denials: unknown
EOF
t "status on an older kernel: unknown, unknown counters shown" 0 \
	"$K" -s "$fs" status

fake_fs "$fs"
: >"$fs/policy"
: >"$fs/denials"
echo permissive >"$fs/mode"
echo 1 >"$fs/lock"
want <<EOF
mode:        permissive
lock:        locked
generation:  3
rules:       2
ports:       101
checked:     10
allowed:     8
denied:      2
would_deny:  1

policy files: unknown ($root/run/kportreserve/sources: no kportreserve load recorded)

no reserved ports

no denials
EOF
t "status: empty policy, locked, permissive, no denials" 0 \
	"$K" -s "$fs" status
want_err <<EOF
kportreserve: $tmp/nofs: No such file or directory (is kportreserve in lsm= and securityfs mounted?)
EOF
t "status without kportreserve: exit 5" 5 "$K" -s "$tmp/nofs" status
fake_fs "$fs"
any_out
t "status with KPORTRESERVE_SECURITYFS" 0 \
	env KPORTRESERVE_SECURITYFS="$fs" "$K" status
any_out
t "--securityfs overrides KPORTRESERVE_SECURITYFS" 0 \
	env KPORTRESERVE_SECURITYFS="$tmp/nofs" "$K" --securityfs "$fs" status
want_err <<'EOF'
kportreserve: cannot write the output: No space left on device
EOF
t "status to a full disk: exit 5" 5 sh -c '"$1" -s "$2" status >/dev/full' \
	sh "$K" "$fs"

# --- the policy files: policy.d and /etc/kportreserve/policy --------------

# Under $root: the drop-ins of packages (usr/lib) and of the administrator
# (etc), and the main policy, which "load" without a file assembles.
vendor=$root/usr/lib/kportreserve/policy.d
admin=$root/etc/kportreserve/policy.d
main=$root/etc/kportreserve/policy
sources=$root/run/kportreserve/sources
# status_files: the "policy files" part of status.
status_files() {
	"$K" -s "$fs" status | sed -n '/^policy files/,/^$/p'
}

mkdir -p "$root/run"
fake_fs "$fs"
want_err <<EOF
kportreserve: $bootkept
EOF
t "files without a rule keep a policy they did not load (a boot policy)" 0 \
	"$K" -s "$fs" load
: | want
t_file "files without a rule loaded nothing over the boot policy" "$fs/load"
# Once this boot loaded the files, they are the policy: no rule, none.
mkdir -p "$root/run/kportreserve"
echo "generation 2" >"$sources"
want <<'EOF'
loaded the empty policy (no policy files): generation 3, rules 2, ports 101
EOF
t "load without policy files loads the empty policy" 0 "$K" -s "$fs" load
echo | want
t_file "load without policy files emptied the policy" "$fs/load"
want <<'EOF'
policy files of generation 3: none, the empty policy

EOF
t "status after a load of no files: none" 0 status_files

mkdir -p "$vendor" "$admin"
printf '53 /usr/sbin/named' >"$vendor/10-bind.policy"
printf '# nginx\n80/tcp /usr/sbin/nginx\n' >"$vendor/20-nginx.policy"
printf '25/tcp /usr/sbin/exim4\n' >"$vendor/30-mail.policy"
printf '587/tcp /usr/sbin/exim4\n' >"$vendor/40-submission.policy"
printf '9000 /opt/app/bin/server\n' >"$admin/15-app.policy"
printf '25/tcp /usr/sbin/postfix\n' >"$admin/30-mail.policy"
printf '1 /not/a/drop-in\n' >"$admin/README"
printf '2 /not/a/drop-in\n' >"$admin/old.policy~"
printf '3 /not/a/drop-in\n' >"$admin/.hidden.policy"
ln -s /dev/null "$admin/40-submission.policy"
printf '443/tcp /usr/sbin/nginx\n' >"$main"
fake_fs "$fs"
want <<EOF
loaded the policy of 5 files: generation 3, rules 2, ports 101
  $vendor/10-bind.policy
  $admin/15-app.policy
  $vendor/20-nginx.policy
  $admin/30-mail.policy
  $main
EOF
want_err <<EOF
kportreserve: warning: $admin/README is not read: only *.policy files are drop-ins
kportreserve: warning: $admin/old.policy~ is not read: only *.policy files are drop-ins
EOF
t "load assembles the policy files in name order, then the policy" 0 \
	"$K" -s "$fs" load
rm "$admin/README" "$admin/old.policy~"
want <<'EOF'
53 /usr/sbin/named
9000 /opt/app/bin/server
# nginx
80/tcp /usr/sbin/nginx
25/tcp /usr/sbin/postfix
443/tcp /usr/sbin/nginx
EOF
t_file "load wrote the files in order, /etc overriding /usr/lib by name" \
	"$fs/policy"
want <<EOF
generation 3
$vendor/10-bind.policy
$admin/15-app.policy
$vendor/20-nginx.policy
$admin/30-mail.policy
$main
EOF
t_file "load recorded the files and the generation" "$sources"
want <<EOF
policy files of generation 3:
  $vendor/10-bind.policy
  $admin/15-app.policy
  $vendor/20-nginx.policy
  $admin/30-mail.policy
  $main

EOF
t "status names the files of the policy in force" 0 status_files

counter=$tmp/count_writes.so
t_true "the write counter builds" \
	${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror \
	-o "$counter" "$here/count_writes.c" -ldl
fake_fs "$fs"
rm -f "$tmp/writes"
env LD_PRELOAD="$counter" KPR_COUNT_LOG="$tmp/writes" \
	KPR_COUNT_PATH="$(cd "$fs" && pwd -P)/load" \
	"$K" -s "$fs" load >/dev/null 2>&1
want <<EOF
open
write $(wc -c <"$fs/load")
close
EOF
t_file "load wrote the assembled policy in one write()" "$tmp/writes"

# Bad lines: each is named and left out, and every other rule loads, so
# that a boot never comes up with nothing reserved; exit 7 says so.
printf '80/tcp /usr/sbin/nginx\n80/tcp nginx\n' >"$vendor/20-nginx.policy"
printf '9000 /opt/app/bin/server\n0 /x\n\n70000 /y\n' >"$admin/15-app.policy"
fake_fs "$fs"
any_out
want_err <<EOF
$admin/15-app.policy:2: port must be a number from 1 to 65535; the rule is left out
$admin/15-app.policy:4: port must be a number from 1 to 65535; the rule is left out
$vendor/20-nginx.policy:2: program must be an absolute path or <kernel>; the rule is left out
kportreserve: warning: loaded with 3 rules and 0 files left out $leftrest
EOF
t "bad lines: FILE:LINE for each, left out, the rest loaded, exit 7" 7 \
	"$K" -s "$fs" load
want <<'EOF'
53 /usr/sbin/named
9000 /opt/app/bin/server



80/tcp /usr/sbin/nginx

25/tcp /usr/sbin/postfix
443/tcp /usr/sbin/nginx
EOF
t_file "bad lines: every other rule loaded, line numbers kept" "$fs/policy"
# Under systemd, every line carries its priority for the journal.
fake_fs "$fs"
sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$@"' sh \
	"$K" -s "$fs" load >/dev/null 2>"$tmp/journal.err"
want <<EOF
<4>$admin/15-app.policy:2: port must be a number from 1 to 65535; the rule is left out
<4>$admin/15-app.policy:4: port must be a number from 1 to 65535; the rule is left out
<4>$vendor/20-nginx.policy:2: program must be an absolute path or <kernel>; the rule is left out
<4>kportreserve: warning: loaded with 3 rules and 0 files left out $leftrest
EOF
t_file "under the journal (JOURNAL_STREAM), lines carry their priority" \
	"$tmp/journal.err"
JOURNAL_STREAM=1:1 "$K" -s "$fs" load >/dev/null 2>"$tmp/journal.err"
t_true "another stream than the journal's gets no priorities" \
	sh -c '! grep -q "^<" "$1"' sh "$tmp/journal.err"
want_err <<EOF
$admin/15-app.policy:2: port must be a number from 1 to 65535
$admin/15-app.policy:4: port must be a number from 1 to 65535
$vendor/20-nginx.policy:2: program must be an absolute path or <kernel>
EOF
t "check without a file checks the policy files" 1 "$K" check
mkdir "$admin/50-dir.policy"
any_out
want_err <<EOF
$admin/15-app.policy:2: port must be a number from 1 to 65535; the rule is left out
$admin/15-app.policy:4: port must be a number from 1 to 65535; the rule is left out
$vendor/20-nginx.policy:2: program must be an absolute path or <kernel>; the rule is left out
kportreserve: warning: $admin/50-dir.policy: Is a directory; the whole file is left out
kportreserve: warning: loaded with 3 rules and 1 file left out $leftrest
EOF
t "an unreadable policy file is left out, the others load: exit 7" 7 \
	"$K" -s "$fs" load
rmdir "$admin/50-dir.policy"
printf '80/tcp /usr/sbin/nginx\n' >"$vendor/20-nginx.policy"
printf '9000 /opt/app/bin/server\n' >"$admin/15-app.policy"
t "check without a file: silent when the files are valid" 0 "$K" check
rm -rf "$tmp/nofs"
want_err <<EOF
kportreserve: $tmp/nofs: No such file or directory (is kportreserve in lsm= and securityfs mounted?)
kportreserve: nothing was loaded; the policy in force is unchanged
EOF
t "load of the files without kportreserve: exit 5, nothing loaded" 5 \
	"$K" -s "$tmp/nofs" load
mkdir -p "$root/sys/kernel/security"
lsms=lockdown,capability,landlock,yama,apparmor,bpf
echo "$lsms" >"$root/sys/kernel/security/lsm"
nolsm="(its LSMs: $lsms; boot with kportreserve in lsm=)"
want_err <<EOF
kportreserve: $tmp/nofs: No such file or directory: $notactive $nolsm
kportreserve: nothing was loaded; the policy in force is unchanged
EOF
t "load on a kernel without kportreserve names the LSMs it has" 5 \
	"$K" -s "$tmp/nofs" load
rm -r "$root/sys"

# Another load (add, del, load FILE, a write) makes the record stale.
sed 's/^generation .*/generation 4/' "$fs/stats" >"$fs/stats.new"
mv "$fs/stats.new" "$fs/stats"
want <<EOF
policy files: unknown ($sources: those of generation 3; generation 4 is in force)

EOF
t "status after another load: the files are unknown" 0 status_files
# The fake does not count generations: later loads must find no record.
rm -rf "$root"
make_programs

# --- add and del ---------------------------------------------------------

# add and del change the policy in force, then the file of their own that
# every load reads (local.c), unless --runtime.
local=$root/etc/kportreserve/policy.d/local.policy
saved="saved in $local"
fake_fs "$fs"
want <<EOF
added: 443/tcp /usr/sbin/nginx
$saved
EOF
t "add: exit 0" 0 "$K" -s "$fs" add 443/tcp /usr/sbin/nginx
want <<'EOF'
80/tcp /usr/sbin/nginx
443/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "add wrote the canonical policy with the rule" "$fs/policy"
want <<'EOF'
generation 3
80/tcp /usr/sbin/nginx
443/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "add loaded it only for the generation it read" "$fs/load"
want <<'EOF'
already in the policy: 443/tcp /usr/sbin/nginx
EOF
t "add of a rule already there: exit 0, nothing written" 0 \
	"$K" -s "$fs" add 443/tcp /usr/sbin/nginx
want <<EOF
added: 22 /usr/sbin/my\\040sshd
$saved
EOF
t "add escapes white space in the program" 0 \
	"$K" -s "$fs" add 22 "/usr/sbin/my sshd"
want <<'EOF'
# Written by "kportreserve add" and "kportreserve del"; edits by hand
# are kept. See kportreserve.policy(5).
443/tcp /usr/sbin/nginx
22 /usr/sbin/my\040sshd
EOF
t_file "add saved each rule as written, in a file of its own" "$local"
want <<EOF
deleted: 22 /usr/sbin/my\\040sshd
$saved
EOF
t "del with the program escaped by hand" 0 \
	"$K" -s "$fs" del 22 '/usr/sbin/my\040sshd'
want <<EOF
deleted: 443/tcp /usr/sbin/nginx
$saved
EOF
t "del: exit 0" 0 "$K" -s "$fs" del 443/tcp /usr/sbin/nginx
want <<'EOF'
# Written by "kportreserve add" and "kportreserve del"; edits by hand
# are kept. See kportreserve.policy(5).
EOF
t_file "del took the rules out of the file, and kept its comments" "$local"
want <<'EOF'
80/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "add then del gives the policy back" "$fs/policy"
want_err <<EOF
kportreserve: no rule '443/tcp /usr/sbin/nginx' in the policy in force or in $local
EOF
t "del of a missing rule: exit 1" 1 "$K" -s "$fs" del 443/tcp /usr/sbin/nginx
want_err <<EOF
kportreserve: no rule '80 /usr/sbin/nginx' in the policy in force or in $local
EOF
t "del matches the protocol exactly" 1 "$K" -s "$fs" del 80 /usr/sbin/nginx
want_err <<EOF
kportreserve: no rule '8000-8098 /opt/app/bin/server' in the policy in force or in $local
EOF
t "del matches the range exactly" 1 \
	"$K" -s "$fs" del 8000-8098 /opt/app/bin/server
want_err <<'EOF'
kportreserve: rule '0/tcp /usr/sbin/nginx': port must be a number from 1 to 65535
EOF
t "add of a bad rule: exit 1" 1 "$K" -s "$fs" add 0/tcp /usr/sbin/nginx
want_err <<'EOF'
kportreserve: add: expected PORTS[/PROTO] PROGRAM [QUALIFIER...]
Try 'kportreserve --help'.
EOF
t "add without a program: usage error" 2 "$K" -s "$fs" add 80
want <<'EOF'
80/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "failed edits changed nothing" "$fs/policy"

want <<EOF
added: 25/tcp /usr/sbin/exim uid=0 gid=8
$saved
EOF
t "add with qualifiers" 0 \
	"$K" -s "$fs" add 25/tcp /usr/sbin/exim gid=8 uid=0
want <<EOF
mode:        enforce
lock:        unlocked
generation:  3
rules:       2
ports:       101
checked:     10
allowed:     8
denied:      2
would_deny:  1

policy files: unknown ($root/run/kportreserve/sources: no kportreserve load recorded)

PORTS      PROTO  PROGRAM              QUALIFIERS
25         tcp    /usr/sbin/exim       uid=0 gid=8
80         tcp    /usr/sbin/nginx
8000-8099  all    /opt/app/bin/server

PORT     DENIED  WOULD_DENY  LAST_PID  LAST_EXE
443/tcp  3       0           1234      /usr/bin/python3
80/udp   1       1           77        /opt/my\040app
EOF
t "status shows qualifiers" 0 "$K" -s "$fs" status
want_err <<EOF
kportreserve: no rule '25/tcp /usr/sbin/exim uid=0' in the policy in force or in $local
EOF
t "del matches qualifiers exactly" 1 \
	"$K" -s "$fs" del 25/tcp /usr/sbin/exim uid=0
want <<EOF
deleted: 25/tcp /usr/sbin/exim uid=0 gid=8
$saved
EOF
t "del with qualifiers" 0 \
	"$K" -s "$fs" del 25/tcp /usr/sbin/exim uid=0 gid=8

# The conditional load: the fake load file refuses a text whose generation
# line is not the generation in $fs/stats with ESTALE, and any text with
# EPERM while $fs/lock holds 1. A concurrent load: the hook loads another
# policy (and bumps the generation, as the kernel would) between the
# edit's read and its write.
cat >"$tmp/other-admin.sh" <<'EOF'
#!/bin/sh
# other-admin.sh FS ONCE: load a policy with one more rule, as a second
# administrator would; with ONCE=1 only the first time.
fs=$1
[ "$2" = 1 ] && [ -e "$fs/.done" ] && exit 0
: >"$fs/.done"
gen=$(sed -n 's/^generation //p' "$fs/stats")
n=$(($(wc -l <"$fs/policy") + 1))
echo "$((9000 + n))/udp /usr/bin/other" >>"$fs/policy"
sed "s/^generation .*/generation $((gen + 1))/" "$fs/stats" >"$fs/stats.new"
mv "$fs/stats.new" "$fs/stats"
EOF
again="kportreserve: another policy was loaded during the edit"
fake_fs "$fs"
want <<EOF
added: 443/tcp /usr/sbin/nginx
$saved
EOF
want_err <<EOF
$again; trying again
EOF
t "an edit overtaken by another load (ESTALE) is retried" 0 \
	env KPORTRESERVE_TEST_BEFORE_WRITE="sh $tmp/other-admin.sh $fs 1" \
	"$K" -s "$fs" add 443/tcp /usr/sbin/nginx
want <<'EOF'
80/tcp /usr/sbin/nginx
443/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
9003/udp /usr/bin/other
EOF
t_file "the retried edit kept the concurrent rule" "$fs/policy"

fake_fs "$fs"
for n in 1 2 3 4 5 6 7 8 9; do echo "$again; trying again"; done >"$tmp/racing"
{
	cat "$tmp/racing"
	echo "$again"
	echo "kportreserve: gave up after 10 attempts; nothing was loaded"
} | want_err
t "an edit that keeps racing gives up: exit 4" 4 \
	env KPORTRESERVE_TEST_BEFORE_WRITE="sh $tmp/other-admin.sh $fs 0" \
	"$K" -s "$fs" del 80/tcp /usr/sbin/nginx
{
	printf '80/tcp /usr/sbin/nginx\n8000-8099 /opt/app/bin/server\n'
	for n in 03 04 05 06 07 08 09 10 11 12; do
		echo "90$n/udp /usr/bin/other"
	done
} | want
t_file "the racing edit loaded nothing" "$fs/policy"

# A load while the edit reads the policy: the policy file is a FIFO, whose
# writer, once the edit has opened it, bumps the generation and puts a
# plain file with the same policy in its place for the next attempt, and
# only then gives the text. The edit sees the generation move across its
# read and starts over.
fake_fs "$fs"
cp "$fs/policy" "$tmp/policy"
rm "$fs/policy"
mkfifo "$fs/policy"
{
	sed 's/^generation .*/generation 4/' "$fs/stats" >"$fs/stats.new"
	mv "$fs/stats.new" "$fs/stats"
	cp "$tmp/policy" "$fs/policy.new"
	mv "$fs/policy.new" "$fs/policy"
	cat "$tmp/policy"
} >"$fs/policy" &
writer=$!
want <<EOF
added: 1 /x
$saved
EOF
want_err <<EOF
$again; trying again
EOF
t "an edit whose policy was replaced while it read it starts over" 0 \
	"$K" -s "$fs" add 1 /x
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
want <<'EOF'
generation 4
1 /x
80/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "the edit started over loaded the policy of the new generation" \
	"$fs/load"

fake_fs "$fs"
want <<'EOF'
deleted: 80/tcp /usr/sbin/nginx
EOF
want_err <<EOF
kportreserve: note: '80/tcp /usr/sbin/nginx' was not in $local; $back
EOF
t "del through the fake conditional load" 0 \
	"$K" -s "$fs" del 80/tcp /usr/sbin/nginx
want <<'EOF'
8000-8099 /opt/app/bin/server
EOF
t_file "del's conditional load wrote the policy" "$fs/policy"
want <<'EOF'
deleted: 8000-8099 /opt/app/bin/server
EOF
any_err
t "del of the last rule" 0 \
	"$K" -s "$fs" del 8000-8099 /opt/app/bin/server
printf 'generation 3\n\n' | want
t_file "del of the last rule loads the empty policy" "$fs/load"

fake_fs "$fs"
rm "$fs/policy"
want_err <<EOF
kportreserve: $fs/policy: No such file or directory
EOF
t "add without a policy file: exit 5" 5 "$K" -s "$fs" add 1 /x
fake_fs "$fs"
rm "$fs/stats"
want_err <<EOF
kportreserve: $fs/stats: No such file or directory
EOF
t "add without a stats file: exit 5, as it has no generation" 5 \
	"$K" -s "$fs" add 1 /x
printf 'rules 2\nports 101\n' >"$fs/stats"
want_err <<EOF
kportreserve: $fs/stats: no generation, which add and del need
EOF
t "add when the stats file has no generation: exit 5" 5 \
	"$K" -s "$fs" add 1 /x
# The lock, set before the edit or during it, as the kernel refuses it.
locked="the kernel refused the new policy: the policy is locked until reboot"
fake_fs "$fs"
echo 1 >"$fs/lock"
want_err <<EOF
kportreserve: $locked
EOF
t "add while locked: exit 3" 3 "$K" -s "$fs" add 1 /x
want <<EOF
already in the policy: 80/tcp /usr/sbin/nginx
$saved
EOF
t "add of a rule already there while locked: exit 0, saved" 0 \
	"$K" -s "$fs" add 80/tcp /usr/sbin/nginx
want_err <<EOF
kportreserve: no rule '2 /y' in the policy in force or in $local
EOF
t "del of a missing rule while locked: exit 1" 1 \
	"$K" -s "$fs" del 2 /y
fake_fs "$fs"
want_err <<EOF
kportreserve: $locked
EOF
t "an edit that the lock overtook: exit 3" 3 \
	env KPORTRESERVE_TEST_BEFORE_WRITE="echo 1 >$fs/lock" \
	"$K" -s "$fs" add 1 /x
want <<'EOF'
80/tcp /usr/sbin/nginx
8000-8099 /opt/app/bin/server
EOF
t_file "refused edits loaded nothing" "$fs/policy"

# --- programs as this machine has them, comments, uid lists ---------------

# /usr/bin/python3 -> python3.13 as on Debian 13, /bin3 -> usr/bin as /bin
# on a merged-/usr system, and an alternative that links to an absolute
# path (resolved under $root, as under the real root).
ln -s python3.13 "$root/usr/bin/python3"
ln -s usr/bin "$root/bin3"
mkdir -p "$root/etc/alternatives"
ln -s /usr/bin/python3.13 "$root/etc/alternatives/py"
ln -s /etc/alternatives/py "$root/usr/bin/py"
cat >"$tmp/links.pol" <<'EOF'
# the README's example, as first written
8080/tcp /usr/bin/python3 uid=1000 # my app
8081/tcp /bin3/python3.13
8082/tcp /usr/bin/py
8083/tcp /usr/bin/python3.13
EOF
cp "$tmp/links.pol" "$tmp/links.orig"
# The policy with its programs resolved, and what --resolve says of it.
sed 's|/usr/bin/python3 |/usr/bin/python3.13 |; s|/bin3/python3.13$|/usr/bin/python3.13|
	s|/usr/bin/py$|/usr/bin/python3.13|' "$tmp/links.pol" >"$tmp/links.resolved"
for l in 2:/usr/bin/python3 3:/bin3/python3.13 4:/usr/bin/py; do
	echo "$tmp/links.pol:${l%%:*}: ${l#*:} is a symbolic link: writing /usr/bin/python3.13"
done >"$tmp/links.notes"
for l in 2:/usr/bin/python3 3:/bin3/python3.13 4:/usr/bin/py; do
	echo "$tmp/links.pol:${l%%:*}: ${l#*:} resolves to /usr/bin/python3.13"
done >"$tmp/links.loaded"
# A rule may name a link, as administrators know programs: check says
# where it leads, every load resolves it, the file keeps the name.
m="is a symbolic link to /usr/bin/python3.13, $resolves"
want_err <<EOF
$tmp/links.pol:2: note: /usr/bin/python3 $m
$tmp/links.pol:3: note: /bin3/python3.13 $m
$tmp/links.pol:4: note: /usr/bin/py $m
EOF
t "check accepts a link, and says where it leads: FILE:LINE, the real path" 0 \
	"$K" check "$tmp/links.pol"
fake_fs "$fs"
want_err <"$tmp/links.loaded"
want <<EOF
loaded $tmp/links.pol: generation 3, rules 2, ports 101
EOF
t "load of a file that names a link loads the path it resolves to" 0 \
	"$K" -s "$fs" load "$tmp/links.pol"
want <"$tmp/links.resolved"
t_file "load resolved the links, comments and all" "$fs/load"
t_true "load left the file alone" cmp "$tmp/links.pol" "$tmp/links.orig"
# The link moves, as an upgrade moves it: the next load follows.
: >"$root/usr/bin/python3.14"
ln -sfn python3.14 "$root/usr/bin/python3"
"$K" -s "$fs" load "$tmp/links.pol" >/dev/null 2>&1
t_true "after an upgrade moved the link, a load follows it" \
	grep -qx "8080/tcp /usr/bin/python3.14 uid=1000 # my app" "$fs/load"
ln -sfn python3.13 "$root/usr/bin/python3"
rm "$root/usr/bin/python3.14"
want_err <"$tmp/links.loaded"
want <<EOF
loaded $tmp/links.pol: generation 3, rules 2, ports 101
EOF
t "load --resolve loads the resolved paths" 0 \
	"$K" -s "$fs" load --resolve "$tmp/links.pol"
want_err <"$tmp/links.notes"
t "check -r rewrites the file with the resolved paths" 0 \
	"$K" check -r "$tmp/links.pol"
want <"$tmp/links.resolved"
t_file "check -r kept every line but the programs" "$tmp/links.pol"
t "check of the rewritten file: silent, exit 0" 0 "$K" check "$tmp/links.pol"
printf '1 /usr/bin/python3\n' >"$tmp/target.pol"
chmod 640 "$tmp/target.pol"
ln -s target.pol "$tmp/linked.pol"
"$K" check -r "$tmp/linked.pol" 2>/dev/null
t_true "check -r of a link to a policy rewrites the file it names, mode kept" \
	sh -c '[ -L "$1/linked.pol" ] && [ "$(stat -c %a "$1/target.pol")" = 640 ] &&
		grep -qx "1 /usr/bin/python3.13" "$1/target.pol" &&
		[ -z "$(ls -A "$1" | grep "target.pol.")" ]' sh "$tmp"

printf '9000 /opt/later/bin/server\n9001 /bin3/later\n9002 /usr/sbin\n' \
	>"$tmp/later.pol"
w="does not exist (yet): the rule allows nobody until it does"
want_err <<EOF
$tmp/later.pol:1: warning: /opt/later/bin/server $w
$tmp/later.pol:2: note: /bin3/later is a symbolic link to /usr/bin/later, $resolves
$tmp/later.pol:2: warning: /bin3/later $w
$tmp/later.pol:3: /usr/sbin is not a regular file, so no program runs from it
EOF
t "check: a missing program warns, behind a link too; a directory is an error" 1 \
	"$K" check "$tmp/later.pol"
ln -s loop1 "$root/usr/bin/loop2"
ln -s loop2 "$root/usr/bin/loop1"
ln -s /usr/sbin "$root/usr/bin/sbin-link"
printf '9003 /usr/bin/loop1\n9004 /usr/bin/sbin-link\n' >"$tmp/odd.pol"
want_err <<EOF
$tmp/odd.pol:1: /usr/bin/loop1: too many symbolic links (a loop): no program runs from it
$tmp/odd.pol:2: /usr/bin/sbin-link is not a regular file, so no program runs from it
EOF
t "check -r: a link loop, or a link to a directory, is an error it does not write" 1 \
	"$K" check -r "$tmp/odd.pol"
want <<'EOF'
# the README's example, as first written
8080/tcp /usr/bin/python3.13 uid=1000 # my app
EOF
want_err <<'EOF'
<stdin>:2: /usr/bin/python3 is a symbolic link: writing /usr/bin/python3.13
EOF
t "check -r - prints the policy, its notes on standard error" 0 sh -c \
	'head -n 2 "$1" | "$2" check -r -' sh "$tmp/links.orig" "$K"
printf '# nothing to resolve\n80/tcp /usr/sbin/nginx\n' | want
t "check -r - is a filter: a policy without links comes out as it went in" 0 \
	sh -c 'printf "# nothing to resolve\n80/tcp /usr/sbin/nginx\n" | "$1" check -r -' \
	sh "$K"
# A UTF-8 byte-order mark, which editors of other systems write, means
# nothing: check and load take the file as if it had none.
printf '\357\273\27780/tcp /usr/sbin/nginx\n' >"$tmp/bom.pol"
t "check accepts a file that starts with a byte-order mark" 0 \
	"$K" check "$tmp/bom.pol"
fake_fs "$fs"
want <<EOF
loaded $tmp/bom.pol: generation 3, rules 2, ports 101
EOF
t "load of a file that starts with a byte-order mark" 0 \
	"$K" -s "$fs" load "$tmp/bom.pol"
printf '80/tcp /usr/sbin/nginx\n' | want
t_file "load dropped the byte-order mark" "$fs/load"
printf '9000 /opt/later/bin/server\n' >"$tmp/later.pol"
want <<EOF
loaded $tmp/later.pol: generation 3, rules 2, ports 101
EOF
want_err <<EOF
kportreserve: warning: $tmp/later.pol:1: /opt/later/bin/server $nobodyyet
EOF
t "load of a program not installed yet: a warning, exit 0" 0 \
	"$K" -s "$fs" load "$tmp/later.pol"
# At boot, programs not installed are one line, not one a rule.
printf '9000 /opt/later/a\n9001 /opt/later/b\n9002 /opt/later/c\n' >"$tmp/later.pol"
want <<EOF
loaded $tmp/later.pol: generation 3, rules 2, ports 101
EOF
want_err <<EOF
kportreserve: warning: 3 rules name a program that does not exist (yet), the first \
$tmp/later.pol:1: /opt/later/a: they allow nobody until it does; 'kportreserve check' lists them
EOF
t "load: programs not installed yet are one summary line" 0 \
	"$K" -s "$fs" load "$tmp/later.pol"
# A program that a user other than root may replace is no identity.
mkdir -p "$root/opt/shared"
chmod 1777 "$root/opt/shared"
: >"$root/opt/shared/app"
chown 1000 "$root/opt/shared/app"
mkdir -p "$root/opt/open"
chmod 777 "$root/opt/open"
: >"$root/opt/open/app"
printf '9000 /opt/shared/app\n9001 /opt/open/app\n9002 /usr/sbin/nginx\n' \
	>"$tmp/weak.pol"
want_err <<EOF
$tmp/weak.pol:1: warning: /opt/shared/app $weak (/opt/shared/app $notroots
$tmp/weak.pol:2: warning: /opt/open/app $weak (/opt/open $notroots
EOF
t "check warns of a program that a user other than root may replace" 0 \
	"$K" check "$tmp/weak.pol"
# ... and so does whoever may replace a link on the way: the link
# decides which program the next load names.
mkdir -p "$root/opt/theirs"
chown 1000 "$root/opt/theirs"
ln -s /usr/sbin/nginx "$root/opt/theirs/server"
printf '9003 /opt/theirs/server\n' >"$tmp/weak.pol"
want_err <<EOF
$tmp/weak.pol:1: note: /opt/theirs/server is a symbolic link to /usr/sbin/nginx, $resolves
$tmp/weak.pol:1: warning: /opt/theirs/server $weak (/opt/theirs $notroots
EOF
t "check warns of a link on the way that a user other than root may replace" 0 \
	"$K" check "$tmp/weak.pol"
rm -rf "$root/opt/shared" "$root/opt/open" "$root/opt/theirs"

mkdir -p "$admin" "$vendor" "$root/run"
rm -f "$local"
printf '8080/tcp /usr/bin/python3\n' >"$admin/30-py.policy"
printf '8081/tcp /usr/bin/python3\n' >"$vendor/40-pkg.policy"
want <<EOF
loaded the policy of 2 files: generation 3, rules 2, ports 101
  $admin/30-py.policy
  $vendor/40-pkg.policy
EOF
want_err <<EOF
$admin/30-py.policy:1: /usr/bin/python3 resolves to /usr/bin/python3.13
$vendor/40-pkg.policy:1: /usr/bin/python3 resolves to /usr/bin/python3.13
EOF
t "load of the policy files resolves a drop-in's link" 0 "$K" -s "$fs" load
want <<'EOF'
8080/tcp /usr/bin/python3.13
8081/tcp /usr/bin/python3.13
EOF
t_file "load of the policy files loaded the resolved paths" "$fs/load"
want_err <<EOF
$admin/30-py.policy:1: /usr/bin/python3 is a symbolic link: writing /usr/bin/python3.13
$vendor/40-pkg.policy:1: /usr/bin/python3 is a symbolic link: writing /usr/bin/python3.13
$vendor/40-pkg.policy: a package's file, not rewritten: dpkg would put it back \
(a file of the same name in /etc/kportreserve/policy.d overrides it)
EOF
t "check -r without a file rewrites the administrator's files only" 0 \
	"$K" check -r
printf '8080/tcp /usr/bin/python3.13\n' | want
t_file "check -r rewrote the drop-in" "$admin/30-py.policy"
printf '8081/tcp /usr/bin/python3\n' | want
t_file "check -r left the package's drop-in alone" "$vendor/40-pkg.policy"
rm "$admin/30-py.policy" "$vendor/40-pkg.policy"

fake_fs "$fs"
rm -f "$local"
want_err <<EOF
kportreserve: /usr/bin/python3 resolves to /usr/bin/python3.13
EOF
want <<EOF
added: 8080/tcp /usr/bin/python3.13
$saved
EOF
t "add of a link adds the path it resolves to" 0 \
	"$K" -s "$fs" add 8080/tcp /usr/bin/python3
t_true "add saved the link as written" grep -qx "8080/tcp /usr/bin/python3" "$local"
want_err <<'EOF'
kportreserve: /usr/bin/python3 resolves to /usr/bin/python3.13
EOF
want <<EOF
added: 8080/tcp /usr/bin/python3.13 uid=1000
$saved
EOF
t "add --resolve adds the resolved path" 0 \
	"$K" -s "$fs" add --resolve 8080/tcp /usr/bin/python3 uid=1000
t_true "add --resolve saved the resolved path" \
	grep -qx "8080/tcp /usr/bin/python3.13 uid=1000" "$local"
want_err <<'EOF'
kportreserve: /usr/bin/python3 resolves to /usr/bin/python3.13
EOF
want <<EOF
deleted: 8080/tcp /usr/bin/python3.13
$saved
EOF
t "del of a link deletes what add added, in force and in the file" 0 \
	"$K" -s "$fs" del 8080/tcp /usr/bin/python3
t_true "del took the link's rule out of the file" \
	sh -c '! grep -q "^8080/tcp /usr/bin/python3\$" "$1"' sh "$local"
# A rule saved as the link goes when deleted by the real path, and one
# saved --resolve'd when deleted as the link.
"$K" -s "$fs" add 8081/tcp /usr/bin/python3 >/dev/null 2>&1
"$K" -s "$fs" del 8081/tcp /usr/bin/python3.13 >/dev/null 2>&1
"$K" -s "$fs" del 8080/tcp /usr/bin/python3 uid=1000 >/dev/null 2>&1
t_true "del takes a rule out of the file however its program is spelled" \
	sh -c '! grep -q "^808[01]/tcp" "$1"' sh "$local"
"$K" -s "$fs" add --resolve 8080/tcp /usr/bin/python3 uid=1000 >/dev/null 2>&1
t_true "the lock of edits is root's alone" \
	sh -c '[ "$(stat -c %a:%u "$1")" = 600:0 ]' sh "$root/run/kportreserve/edit.lock"
# --runtime changes the policy in force only.
want <<'EOF'
added: 9999/udp /x
not saved (--runtime): the next load of the policy files drops it
EOF
t "add --runtime changes the policy in force only" 0 \
	"$K" -s "$fs" add --runtime 9999/udp /x
t_true "add --runtime left the file alone" \
	sh -c '! grep -q 9999 "$1" && grep -q "^9999/udp /x" "$2"' sh "$local" "$fs/policy"
want_err <<'EOF'
kportreserve: no rule '9998/udp /x' in the policy in force
EOF
t "del --runtime of a rule not in force: exit 1" 1 \
	"$K" -s "$fs" del --runtime 9998/udp /x
# The saved rule survives a load of the policy files (a reboot's).
fake_fs "$fs"
"$K" -s "$fs" load >/dev/null 2>&1
t_true "a load of the policy files keeps what add saved" \
	grep -qx "8080/tcp /usr/bin/python3.13 uid=1000" "$fs/load"
rm -f "$local"

printf '80/tcp /usr/sbin/nginx # the web server\n80/tcp /x uid=0,33 gid=0 #\n' \
	>"$tmp/comments.pol"
t "check accepts a comment after a rule, and uid= lists" 0 \
	"$K" check "$tmp/comments.pol"

fake_fs "$fs"
want <<EOF
added: 80/tcp /usr/sbin/nginx uid=0
added: 80/tcp /usr/sbin/nginx uid=33
$saved
EOF
t "add with a uid= list adds a rule per uid" 0 \
	"$K" -s "$fs" add 80/tcp /usr/sbin/nginx uid=33,0
want <<'EOF'
80/tcp /usr/sbin/nginx
80/tcp /usr/sbin/nginx uid=0
80/tcp /usr/sbin/nginx uid=33
8000-8099 /opt/app/bin/server
EOF
t_file "add with a uid= list wrote both rules" "$fs/policy"
want <<'EOF'
already in the policy: 80/tcp /usr/sbin/nginx uid=0
already in the policy: 80/tcp /usr/sbin/nginx uid=33
EOF
t "add of a uid= list already there: exit 0" 0 \
	"$K" -s "$fs" add 80/tcp /usr/sbin/nginx uid=0,33
want_err <<'EOF'
kportreserve: no rule '80/tcp /usr/sbin/nginx uid=0
80/tcp /usr/sbin/nginx uid=7' in the policy in force
EOF
t "del of a uid= list with a rule not there: exit 1" 1 \
	"$K" -s "$fs" del 80/tcp /usr/sbin/nginx uid=0,7
want <<EOF
deleted: 80/tcp /usr/sbin/nginx uid=0
deleted: 80/tcp /usr/sbin/nginx uid=33
$saved
EOF
t "del with a uid= list deletes each rule" 0 \
	"$K" -s "$fs" del 80/tcp /usr/sbin/nginx uid=0,33

# --- the sockets that hold reserved ports ---------------------------------

# A fake /proc under $root: the socket tables of pid 1's namespace, and
# processes whose descriptors name the sockets. nginx's root master (pid
# 100) and its worker (pid 101, uid 33) share the listening socket of
# port 80; a python (pid 200) took port 8080 and, over IPv6, UDP 5353;
# port 2049's socket is held by no process (the kernel's); port 8081 is
# in TIME_WAIT (inode 0); port 9999 has no rule.
# row SL LOCAL REMOTE STATE UID INODE: a line of /proc/net/tcp or udp.
row() {
	printf '%4s: %s %s %s %s:%s 00:%s %s %5s %8s %s 1 0 100 0 0 10 0\n' \
		"$1" "$2" "$3" "$4" $z4 $z4 $z4 $z4 "$5" 0 "$6"
}
fake_proc() {
	p=$root/proc
	rm -rf "$p"
	mkdir -p "$p/1/net/sctp"
	hdr="  sl  local_address rem_address   st tx_queue rx_queue tr tm->when"
	z4=00000000 z6=00000000000000000000000000000000
	{
		echo "$hdr retrnsmt   uid  timeout inode"
		row 0 $z4:0050 $z4:0000 0A 0 5001
		row 1 $z4:1F90 $z4:0000 0A 1000 5002
		row 2 $z4:0801 $z4:0000 0A 0 5003
		row 3 0100007F:1F91 0100007F:D431 06 0 0
		row 4 $z4:270F $z4:0000 0A 1000 5004
		row 5 $z4:0050 0A000002:C350 01 33 5006
	} >"$p/1/net/tcp"
	{
		echo "$hdr retrnsmt   uid  timeout inode"
		row 0 $z6:14E9 $z6:0000 07 1000 5005
	} >"$p/1/net/udp6"
	echo " ENDPT     SOCK   STY SST HBKT LPORT   UID INODE LADDRS" >"$p/1/net/sctp/eps"
	for pid in 100 101 200; do mkdir -p "$p/$pid/fd"; done
	ln -s "socket:[5001]" "$p/100/fd/6"
	ln -s "socket:[5001]" "$p/101/fd/6"
	ln -s /dev/null "$p/101/fd/0"
	ln -s "socket:[5002]" "$p/200/fd/3"
	ln -s "socket:[5004]" "$p/200/fd/4"
	ln -s "socket:[5004]" "$p/101/fd/7"
	ln -s "socket:[5006]" "$p/101/fd/8"
	ln -s "socket:[5005]" "$p/200/fd/5"
	ln -s /usr/sbin/nginx "$p/100/exe"
	ln -s "/usr/sbin/nginx (deleted)" "$p/101/exe"
	ln -s /usr/bin/python3.13 "$p/200/exe"
	printf 'Name:\tnginx\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n' >"$p/100/status"
	printf 'Name:\tnginx\nUid:\t33\t33\t33\t33\nGid:\t33\t33\t33\t33\n' >"$p/101/status"
	printf 'Name:\tpython3\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n' \
		>"$p/200/status"
	echo 0::/system.slice/nginx.service >"$p/100/cgroup"
	echo 0::/system.slice/nginx.service >"$p/101/cgroup"
	echo 0::/user.slice/user-1000.slice/session-2.scope >"$p/200/cgroup"
}
fake_proc
# status_holders: status's last section, and its exit code.
status_holders() {
	"$K" -s "$fs" status >"$tmp/status.out"
	rc=$?
	sed -n '/^sockets on/,$p' "$tmp/status.out"
	return $rc
}
fake_fs "$fs"
printf '%s\n' '80/tcp /usr/sbin/nginx uid=0' '8080-8081/tcp /opt/app/bin/server' \
	'5353/udp /usr/sbin/avahi-daemon' '2049 <kernel>' \
	>"$fs/policy"
# The headers over each kind of holder: processes, the kernel, unknown.
held="sockets on ports reserved for other programs, held by processes the rules do not name
(bound before the policy or in permissive mode, or passed on since by the program that bound
them; stop them and start the program the port is for):"
kheld="sockets on ports reserved for other programs, held by no process: kernel sockets
(the kernel binds them itself for the service that configured them, \"ip l2tp\" or an NFS
mount, before or after the policy; remove them there, or reserve the port for <kernel>):"
s2=/user.slice/user-1000.slice/session-2.scope
want <<EOF
$held
  5353/udp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /usr/sbin/avahi-daemon
  8080/tcp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /opt/app/bin/server
EOF
t "status names the sockets that hold reserved ports against the policy: exit 6" 6 \
	status_holders
printf '80/tcp /usr/sbin/nginx uid=7\n2049 /usr/sbin/rpcbind\n' >"$fs/policy"
want <<EOF
$held
  80/tcp: pid 100 /usr/sbin/nginx uid=0 gid=0 cgroup=/system.slice/nginx.service
  80/tcp: pid 101 /usr/sbin/nginx uid=33 gid=33 cgroup=/system.slice/nginx.service
    reserved for: /usr/sbin/nginx uid=7

$kheld
  2049/tcp: socket 5003, held by no process (a kernel socket)
    reserved for: /usr/sbin/rpcbind
EOF
t "status: nginx under another uid, or a kernel socket, is out of order" 6 \
	status_holders
# A kernel socket alone: only its header, which blames no process.
printf '2049 /sbin/rpcbind\n' >"$fs/policy"
want <<EOF
$kheld
  2049/tcp: socket 5003, held by no process (a kernel socket)
    reserved for: /sbin/rpcbind
EOF
t "status: a socket of no process, every process read, is the kernel's alone: exit 6" 6 \
	status_holders
# uid= is the socket's owner's, who bound it (root, for nginx's master);
# a worker's accepted connection on port 80 (state 01) holds no port of
# its own; 9999's socket, of uid 1000, is held by a python and by the
# worker, whose executable was replaced on disk ("(deleted)").
printf '80/tcp /usr/sbin/nginx uid=0\n2049 <kernel>\n9999/tcp /usr/sbin/nginx uid=1000\n' \
	>"$fs/policy"
t "status: a socket one holder is in order for, the kernel's: exit 0" 0 \
	status_holders
printf '8080/tcp /opt/app/bin/server\n' >"$tmp/held.pol"
want <<EOF
loaded $tmp/held.pol: generation 3, rules 2, ports 101

$held
  8080/tcp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /opt/app/bin/server
EOF
t "load names the sockets that hold its ports, and exits 6: the policy is in force" 6 \
	"$K" -s "$fs" load "$tmp/held.pol"
printf '8080/tcp /usr/bin/python3.13\n' >"$tmp/held.pol"
want <<EOF
loaded $tmp/held.pol: generation 3, rules 2, ports 101
EOF
t "load: a socket held by the program the port is for is in order" 0 \
	"$K" -s "$fs" load "$tmp/held.pol"
# cgroup=, and unit= that spells it: the service's python, not a user's.
printf '80/tcp /usr/sbin/nginx unit=nginx\n8080/tcp /usr/bin/python3.13 unit=app.service\n' \
	>"$fs/policy.src"
"$K" -s "$fs" load "$fs/policy.src" >/dev/null 2>&1
printf '%s\n' '80/tcp /usr/sbin/nginx cgroup=/system.slice/nginx.service' \
	'8080/tcp /usr/bin/python3.13 cgroup=/system.slice/app.service' \
	>"$fs/policy"
want <<EOF
$held
  8080/tcp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /usr/bin/python3.13 cgroup=/system.slice/app.service
EOF
t "status: the program in another cgroup than the rule's is out of order" 6 \
	status_holders
# A process whose descriptors cannot be read: its fd is a file, which
# opendir() refuses (ENOTDIR) even to root, as an LSM's EACCES would be.
# Port 2049's socket may then be its, not the kernel's: holder unknown,
# and running as root is advice only to others. A <kernel> rule still
# finds it in order, as before.
mkdir -p "$root/proc/300"
: >"$root/proc/300/fd"
if [ "$(id -u)" = 0 ]; then
	why1=", even as root: it was exiting,
or a security module or a missing capability denied it):"
	why2=", even as root"
else
	why1="; run as root to read them):"
	why2="; run as root"
fi
printf '2049 /sbin/rpcbind\n8080/tcp /opt/app/bin/server\n' >"$fs/policy"
want <<EOF
$held
  8080/tcp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /opt/app/bin/server

sockets on ports reserved for other programs, holder unknown
(the descriptors of 1 process could not be read$why1
  2049/tcp: socket 5003, holder unknown
    reserved for: /sbin/rpcbind
EOF
t "status: a socket of no process found, some descriptors unread, has its holder unknown" 6 \
	status_holders
printf '2049 <kernel>\n' >"$fs/policy"
t "status: a <kernel> rule covers a socket whose holder is unknown: exit 0" 0 \
	status_holders
mkdir -p "$root/proc/301"
: >"$root/proc/301/fd"
printf '2049 <kernel>\n8080/tcp /opt/app/bin/server\n' >"$fs/policy"
want <<EOF
$held
  8080/tcp: pid 200 /usr/bin/python3.13 uid=1000 gid=1000 cgroup=$s2
    reserved for: /opt/app/bin/server
  (other holders may be among the 2 processes whose descriptors could not be read$why2)
EOF
t "status: the holders of a socket, some descriptors unread, may not be all" 6 \
	status_holders
rm -rf "$root/proc"

# unit=NAME is the cgroup of that systemd unit: system.slice, or the
# slice's own path.
cat >"$tmp/units.pol" <<'EOF'
8080/tcp /usr/bin/python3.13 unit=myapp.service # the app
8081/tcp /x unit=web
8082/tcp /x uid=0,33 unit=kpr-e2e.slice
8083/tcp /x unit=a-b-c.slice
8084/tcp /x unit=getty@tty1.service
8085/tcp /x cgroup=/system.slice/x.service
8086/tcp /x unit=foo-bar@a-b.service
8087/tcp /x unit=init.scope
8088/tcp /x unit=foo\x2dbar.service
EOF
t "check accepts cgroup= and unit=" 0 "$K" check "$tmp/units.pol"
fake_fs "$fs"
want <<EOF
loaded $tmp/units.pol: generation 3, rules 2, ports 101
EOF
t "load of unit= rules" 0 "$K" -s "$fs" load "$tmp/units.pol"
want <<'EOF'
8080/tcp /usr/bin/python3.13 cgroup=/system.slice/myapp.service # the app
8081/tcp /x cgroup=/system.slice/web.service
8082/tcp /x uid=0,33 cgroup=/kpr.slice/kpr-e2e.slice
8083/tcp /x cgroup=/a.slice/a-b.slice/a-b-c.slice
8084/tcp /x cgroup=/system.slice/system-getty.slice/getty@tty1.service
8085/tcp /x cgroup=/system.slice/x.service
8086/tcp /x cgroup=/system.slice/system-foo\\x2dbar.slice/foo-bar@a-b.service
8087/tcp /x cgroup=/init.scope
8088/tcp /x cgroup=/system.slice/foo\\x2dbar.service
EOF
t_file "load wrote each unit= as the cgroup= of the unit" "$fs/load"
printf '1 /x unit=../etc\n2 /x unit=-.slice\n3 /x # unit=y\n' >"$tmp/badunit.pol"
want_err <<EOF
$tmp/badunit.pol:1: unknown field after the program: expected uid=, gid=, cgroup= or #
$tmp/badunit.pol:2: unknown field after the program: expected uid=, gid=, cgroup= or #
EOF
t "check: a unit= that names no unit is refused" 1 "$K" check "$tmp/badunit.pol"
fake_fs "$fs"
want <<EOF
added: 8080/tcp /usr/bin/python3.13 cgroup=/system.slice/myapp.service
$saved
EOF
t "add with unit=" 0 "$K" -s "$fs" add 8080/tcp /usr/bin/python3.13 unit=myapp.service
printf '8080/tcp /usr/bin/python3 unit=myapp.service\n' >"$tmp/unitlink.pol"
want_err <<EOF
$tmp/unitlink.pol:1: /usr/bin/python3 is a symbolic link: writing /usr/bin/python3.13
EOF
t "check -r of a rule with unit= resolves its program" 0 "$K" check -r "$tmp/unitlink.pol"
printf '8080/tcp /usr/bin/python3.13 unit=myapp.service\n' | want
t_file "check -r kept unit= as written" "$tmp/unitlink.pol"

# --- who -----------------------------------------------------------------

fake_fs "$fs"
want <<'EOF'
80/tcp: /usr/sbin/nginx
80/udp: not reserved (any program may bind it)
80/sctp: not reserved (any program may bind it)
EOF
t "who PORT lists each protocol" 0 "$K" -s "$fs" who 80
want <<'EOF'
8050/udp: /opt/app/bin/server (rule 8000-8099)
EOF
t "who PORT/PROTO names a wider rule" 0 "$K" -s "$fs" who 8050/udp
want <<'EOF'
9999/tcp: not reserved (any program may bind it)
EOF
t "who of a free port" 0 "$K" -s "$fs" who 9999/tcp
want <<'EOF'
70-8000/tcp: /usr/sbin/nginx (rule 80/tcp)
70-8000/tcp: /opt/app/bin/server (rule 8000-8099)
EOF
t "who of a range lists overlapping rules" 0 "$K" -s "$fs" who 70-8000/tcp
want_err <<'EOF'
kportreserve: '65536/tcp': port must be a number from 1 to 65535
Try 'kportreserve --help'.
EOF
t "who of a bad port: usage error" 2 "$K" -s "$fs" who 65536/tcp
want_err <<EOF
kportreserve: $tmp/nofs: No such file or directory (is kportreserve in lsm= and securityfs mounted?)
EOF
t "who without kportreserve: exit 5" 5 "$K" -s "$tmp/nofs" who 80

# --- import-portreserve --------------------------------------------------

pr=$tmp/portreserve
mkdir -p "$pr/dir/subdir"
cat >"$tmp/services" <<'EOF'
# a services(5) file
sunrpc		111/tcp		portmapper	# RPC 4.0 portmapper
sunrpc		111/udp		portmapper
ipp		631/tcp				# Internet Printing Protocol
mdns		5353/udp
EOF
echo ipp >"$pr/dir/cups"
printf 'portmapper/tcp\nsunrpc/udp\n' >"$pr/dir/rpcbind"
printf '# mDNS\n\n  mdns  \n8080\n' >"$pr/dir/zeroconf"
echo 1 >"$pr/dir/cups.rpmsave"
echo 2 >"$pr/dir/cups~"
echo 3 >"$pr/dir/.hidden"
want <<EOF
# $pr/dir/cups
631/tcp /usr/sbin/cupsd
# $pr/dir/rpcbind
111/tcp /sbin/rpcbind
111/udp /sbin/rpcbind
# $pr/dir/zeroconf
5353/udp /usr/sbin/avahi-daemon
8080/tcp /usr/sbin/avahi-daemon
8080/udp /usr/sbin/avahi-daemon
EOF
t "import-portreserve with --map and --program" 0 \
	"$K" import-portreserve -S "$tmp/services" --map cups=/usr/sbin/cupsd \
	-m rpcbind=/sbin/rpcbind --program /usr/sbin/avahi-daemon "$pr/dir"
printf 'ipp/tcp\nnosuch\n0\nipp/icmp\n' >"$pr/dir/zeroconf"
want <<EOF
# $pr/dir/cups
631/tcp /usr/sbin/cupsd
# $pr/dir/zeroconf
631/tcp /usr/sbin/cupsd
EOF
want_err <<EOF
kportreserve: $pr/dir/rpcbind: no program for 'rpcbind': $(
	)give --map rpcbind=PROGRAM or --program PROGRAM
$pr/dir/zeroconf:2: unknown service 'nosuch' (not in $tmp/services)
$pr/dir/zeroconf:3: port must be a number from 1 to 65535
$pr/dir/zeroconf:4: unknown protocol 'icmp'
kportreserve: --map nothere: no service file $pr/dir/nothere
EOF
t "import-portreserve errors: FILE:LINE on stderr, exit 1" 1 \
	"$K" import-portreserve -S "$tmp/services" -m cups=/usr/sbin/cupsd \
	-m zeroconf=/usr/sbin/cupsd -m nothere=/x "$pr/dir"
want_err <<EOF
kportreserve: import-portreserve: give --program PROGRAM or --map NAME=PROGRAM: $(
	)portreserve names no programs
Try 'kportreserve --help'.
EOF
t "import-portreserve needs a program" 2 \
	"$K" import-portreserve -S "$tmp/services" "$pr/dir"
want_err <<'EOF'
kportreserve: import-portreserve: --map cups=cupsd: program must be an absolute path or <kernel>
Try 'kportreserve --help'.
EOF
t "import-portreserve checks the programs" 2 \
	"$K" import-portreserve -m cups=cupsd "$pr/dir"
want_err <<'EOF'
kportreserve: import-portreserve: --map 'cups=/b': cups mapped twice
Try 'kportreserve --help'.
EOF
t "import-portreserve refuses a file mapped twice" 2 \
	"$K" import-portreserve -m cups=/a -m cups=/b "$pr/dir"
want_err <<EOF
kportreserve: $tmp/none: No such file or directory
EOF
t "import-portreserve of a missing directory: exit 5" 5 \
	"$K" import-portreserve -S "$tmp/services" -p /x "$tmp/none"
want_err <<EOF
kportreserve: $tmp/none: No such file or directory
EOF
t "import-portreserve without a services file: exit 5" 5 \
	"$K" import-portreserve -S "$tmp/none" -p /x "$pr/dir"
rm "$pr/dir/rpcbind" "$pr/dir/zeroconf"
"$K" import-portreserve -S "$tmp/services" -m cups=/usr/sbin/cupsd \
	"$pr/dir" >"$tmp/imported.pol" 2>&1
t "import-portreserve output is a valid policy" 0 \
	"$K" check "$tmp/imported.pol"

# --- install and the manual ----------------------------------------------

t_true "make install honours DESTDIR and PREFIX" sh -c '
	make -s -C "$1" OUTPUT="$2/inst/" DESTDIR="$2/dest" PREFIX=/usr install &&
	[ -x "$2/dest/usr/sbin/kportreserve" ] &&
	[ "$(stat -c %a "$2/dest/usr/share/man/man8/kportreserve.8")" = 644 ] &&
	[ "$(stat -c %a "$2/dest/usr/share/man/man5/kportreserve.policy.5")" = 644 ] &&
	cmp -s "$1/kportreserve.policy.5" \
		"$2/dest/usr/share/man/man5/kportreserve.policy.5" &&
	"$2/dest/usr/sbin/kportreserve" --help >/dev/null' sh "$src" "$tmp"
t_true "make install defaults to /usr/local" sh -c '
	make -s -C "$1" OUTPUT="$2/inst/" DESTDIR="$2/dest2" install &&
	[ -x "$2/dest2/usr/local/sbin/kportreserve" ] &&
	[ -f "$2/dest2/usr/local/share/man/man8/kportreserve.8" ] &&
	[ -f "$2/dest2/usr/local/share/man/man5/kportreserve.policy.5" ]' sh "$src" "$tmp"
t_true "make install puts the systemd unit beside the command" sh -c '
	u=$2/dest/usr/lib/systemd/system/kportreserve.service &&
	grep -qx "ExecStart=/usr/sbin/kportreserve load" "$u" &&
	grep -qx "Before=network-pre.target sysinit.target shutdown.target" "$u"' \
	sh "$src" "$tmp"
t_true "make install makes the policy.d directories" sh -c '
	[ -d "$2/dest/etc/kportreserve/policy.d" ] &&
	[ -d "$2/dest/usr/lib/kportreserve/policy.d" ]' sh "$src" "$tmp"
t_true "the unit loads the files after systemd-sysctl, before network-pre, every boot" \
	sh -c 'u=$2/dest/usr/lib/systemd/system/kportreserve.service &&
	grep -qx "After=local-fs.target sys-kernel-security.mount systemd-sysctl.service" "$u" &&
	grep -qx "Wants=network-pre.target" "$u" &&
	grep -qx "Conflicts=shutdown.target" "$u" &&
	grep -qx "DefaultDependencies=no" "$u" &&
	grep -qx "Type=oneshot" "$u" && grep -qx "RemainAfterExit=yes" "$u" &&
	grep -qx "ExecReload=/usr/sbin/kportreserve load" "$u" &&
	grep -qx "SuccessExitStatus=6 7" "$u" && ! grep -q "^Condition" "$u"' \
	sh "$src" "$tmp"
if command -v systemd-analyze >/dev/null 2>&1; then
	t_true "systemd-analyze verify accepts the unit" sh -c '
		make -s -C "$1" OUTPUT="$2/unit/" sbindir="$2/inst" \
			"$2/unit/kportreserve.service" &&
		systemd-analyze verify --man=no "$2/unit/kportreserve.service"' \
		sh "$src" "$tmp"
else
	not_ok "systemd-analyze verify accepts the unit: no systemd-analyze"
fi
if command -v groff >/dev/null 2>&1; then
	t "the manual formats without warnings" 0 \
		groff -man -Tutf8 -ww -z "$src/kportreserve.8"
	t "the policy manual formats without warnings" 0 \
		groff -man -Tutf8 -ww -z "$src/kportreserve.policy.5"
else
	not_ok "the manual formats without warnings: no groff"
	not_ok "the policy manual formats without warnings: no groff"
fi

# --- diff, sources of rules, ports in two files ---------------------------

# diff compares the policy files, assembled as load assembles them, with
# the policy in force, and loads nothing; status and who name the
# FILE:LINE of each rule while the record of the last load of the files is
# that of the policy in force.
rm -rf "$vendor" "$admin" "$main" "$root/run/kportreserve"
mkdir -p "$vendor" "$admin" "$root/run"
ln -sfn python3.13 "$root/usr/bin/python3"
printf '53 /usr/sbin/named\n8080/tcp /usr/bin/python3\n' >"$admin/10-dns.policy"
printf '# web\n80/tcp /usr/sbin/nginx\n443/tcp /usr/sbin/nginx\n' \
	>"$vendor/20-web.policy"
printf '9000 /opt/app/bin/server\n0 /x\n' >"$main"
fake_fs "$fs"
cp "$fs/policy" "$tmp/in-force"
# What a load of these files says, on standard error, and diff with it.
cat >"$tmp/diff.err" <<EOF
$admin/10-dns.policy:2: /usr/bin/python3 resolves to /usr/bin/python3.13
$main:2: port must be a number from 1 to 65535; the rule is left out
EOF
want_err <"$tmp/diff.err"
want <<EOF
+53 /usr/sbin/named  ($admin/10-dns.policy:1)
+443/tcp /usr/sbin/nginx  ($vendor/20-web.policy:3)
-8000-8099 /opt/app/bin/server
+8080/tcp /usr/bin/python3.13  ($admin/10-dns.policy:2)
+9000 /opt/app/bin/server  ($main:1)
4 to add, 1 to drop, 1 unchanged
EOF
t "diff: +RULE (FILE:LINE) to add, -RULE to drop, the counts; exit 1" 1 \
	"$K" -s "$fs" diff
t_true "diff loads nothing and records nothing" sh -c '
	[ ! -s "$1/load" ] && cmp -s "$1/policy" "$2" && [ ! -e "$3" ]' \
	sh "$fs" "$tmp/in-force" "$sources"
"$K" -s "$fs" load >/dev/null 2>&1
want_err <"$tmp/diff.err"
want <<'EOF'
0 to add, 0 to drop, 5 unchanged
EOF
t "diff after the load: no change, exit 0" 0 "$K" -s "$fs" diff
# status_rules: the table of the reserved ports, and status's exit code.
status_rules() {
	"$K" -s "$fs" status >"$tmp/status.out"
	rc=$?
	sed -n '/^PORTS/,/^$/p' "$tmp/status.out"
	return $rc
}
want <<EOF
PORTS  PROTO  PROGRAM              SOURCE
53     all    /usr/sbin/named      $admin/10-dns.policy:1
80     tcp    /usr/sbin/nginx      $vendor/20-web.policy:2
443    tcp    /usr/sbin/nginx      $vendor/20-web.policy:3
8080   tcp    /usr/bin/python3.13  $admin/10-dns.policy:2
9000   all    /opt/app/bin/server  $main:1

EOF
t "status names the FILE:LINE of each rule after a load of the files" 0 \
	status_rules
# A rule no file has (a write to the kernel's file): no source.
echo "7/udp /x uid=0" >>"$fs/policy"
want <<EOF
PORTS  PROTO  PROGRAM              QUALIFIERS  SOURCE
7      udp    /x                   uid=0
53     all    /usr/sbin/named                  $admin/10-dns.policy:1
80     tcp    /usr/sbin/nginx                  $vendor/20-web.policy:2
443    tcp    /usr/sbin/nginx                  $vendor/20-web.policy:3
8080   tcp    /usr/bin/python3.13              $admin/10-dns.policy:2
9000   all    /opt/app/bin/server              $main:1

EOF
t "status: a rule in no file has no source" 0 status_rules
want <<EOF
80/tcp: /usr/sbin/nginx ($vendor/20-web.policy:2)
53/udp: /usr/sbin/named (rule 53) ($admin/10-dns.policy:1)
7/udp: /x uid=0
EOF
t "who names the FILE:LINE of each rule" 0 sh -c \
	'"$1" -s "$2" who 80/tcp && "$1" -s "$2" who 53/udp &&
	 "$1" -s "$2" who 7/udp' sh "$K" "$fs"
# Another load made the record stale: no source, as status says.
sed 's/^generation .*/generation 4/' "$fs/stats" >"$fs/stats.new"
mv "$fs/stats.new" "$fs/stats"
want <<'EOF'
PORTS  PROTO  PROGRAM              QUALIFIERS
7      udp    /x                   uid=0
53     all    /usr/sbin/named
80     tcp    /usr/sbin/nginx
443    tcp    /usr/sbin/nginx
8080   tcp    /usr/bin/python3.13
9000   all    /opt/app/bin/server

EOF
t "status with a stale record: no source" 0 status_rules
want <<'EOF'
80/tcp: /usr/sbin/nginx
EOF
t "who with a stale record: no source" 0 "$K" -s "$fs" who 80/tcp
rm "$sources"
want <<'EOF'
80/tcp: /usr/sbin/nginx
EOF
t "who without a record: no source" 0 "$K" -s "$fs" who 80/tcp

# A port in two files is allowed, and noted; not twice in one file.
printf '9000 /opt/app/bin/server\n' >"$main"
printf '80/tcp /usr/sbin/exim\n8000-8099 /x\n8090/tcp /y\n' \
	>"$admin/30-more.policy"
cat >"$tmp/notes.err" <<EOF
kportreserve: note: 80/tcp is reserved in $vendor/20-web.policy:2 and in $admin/30-more.policy:1
kportreserve: note: 8080/tcp is reserved in $admin/10-dns.policy:2 and in $admin/30-more.policy:2
EOF
{
	echo "$admin/10-dns.policy:2: note: /usr/bin/python3 is a symbolic link to $(
		)/usr/bin/python3.13, which the kernel matches; every load resolves it again"
	cat "$tmp/notes.err"
} | want_err
t "check: a port that two files reserve is noted, exit 0" 0 "$K" check
fake_fs "$fs"
{
	echo "$admin/10-dns.policy:2: /usr/bin/python3 resolves to /usr/bin/python3.13"
	cat "$tmp/notes.err"
} | want_err
want <<EOF
+53 /usr/sbin/named  ($admin/10-dns.policy:1)
+80/tcp /usr/sbin/exim  ($admin/30-more.policy:1)
+443/tcp /usr/sbin/nginx  ($vendor/20-web.policy:3)
-8000-8099 /opt/app/bin/server
+8000-8099 /x  ($admin/30-more.policy:2)
+8080/tcp /usr/bin/python3.13  ($admin/10-dns.policy:2)
+8090/tcp /y  ($admin/30-more.policy:3)
+9000 /opt/app/bin/server  ($main:1)
7 to add, 1 to drop, 1 unchanged
EOF
t "diff notes a port that two files reserve too" 1 "$K" -s "$fs" diff

# Files without a rule keep a boot policy: diff says so, and no change.
rm -rf "$vendor" "$admin" "$main"
want_err <<EOF
kportreserve: $bootkept
EOF
want <<'EOF'
0 to add, 0 to drop, 2 unchanged
EOF
t "diff: files without a rule keep a boot policy, exit 0" 0 "$K" -s "$fs" diff
any_err
t "diff without kportreserve: exit 5" 5 "$K" -s "$tmp/nofs" diff
want_err <<'EOF'
kportreserve: diff: takes no arguments
Try 'kportreserve --help'.
EOF
t "diff takes no file: usage error" 2 "$K" -s "$fs" diff "$main"
t_true "--help says how diff exits" sh -c '"$1" --help |
	grep -q "^diff exits as diff(1) does: 0 when load would change nothing, 1 when it$"' sh "$K"

# --- names, units and --version ------------------------------------------

# uid= and gid= take the names of the users and groups under $root.
mkdir -p "$root/etc"
printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
	'www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin' \
	'kpr_svc$:x:990:990::/:/usr/sbin/nologin' >"$root/etc/passwd"
printf '%s\n' 'root:x:0:' 'adm:x:4:syslog' 'www-data:x:33:' >"$root/etc/group"
cat >"$tmp/names.pol" <<'EOF'
80/tcp /usr/sbin/nginx uid=www-data
443/tcp /usr/sbin/nginx gid=www-data,adm # gid=nobody
8080/tcp /x uid=0,www-data gid=4
8081/tcp /x uid=007,kpr_svc$
EOF
t "names: check is silent" 0 "$K" check "$tmp/names.pol"
fake_fs "$fs"
any_out
t "names: load" 0 "$K" -s "$fs" load "$tmp/names.pol"
want <<'EOF'
80/tcp /usr/sbin/nginx uid=33
443/tcp /usr/sbin/nginx gid=33,4 # gid=nobody
8080/tcp /x uid=0,33 gid=4
8081/tcp /x uid=007,990
EOF
t_file "names: load wrote numbers, numbers as written" "$fs/load"
printf '1 /x uid=nobody\n2 /x gid=0,nogroup uid=nobody\n' >"$tmp/noname.pol"
ids="uid= and gid= take numbers 0 to 4294967294, separated by commas"
want_err <<EOF
kportreserve: uid=nobody: no user nobody
kportreserve: gid=0,nogroup: no group nogroup
$tmp/noname.pol:1: $ids
$tmp/noname.pol:2: $ids
EOF
t "names: a name not found is a bad line" 1 "$K" check "$tmp/noname.pol"
fake_fs "$fs"
any_out
t "names: add" 0 "$K" -s "$fs" add 80/tcp /usr/sbin/nginx uid=root gid=www-data
t_true "names: add printed the numbers" \
	grep -qx 'added: 80/tcp /usr/sbin/nginx uid=0 gid=33' "$tmp/got.out"
want_err <<EOF
kportreserve: uid=nobody: no user nobody
kportreserve: rule '80/tcp /usr/sbin/nginx uid=nobody': $ids
EOF
t "names: add of a name not found" 1 "$K" -s "$fs" add 80/tcp /usr/sbin/nginx uid=nobody

# A user's service manager is in the user's slice; a name without a
# unit type's suffix is a service.
cat >"$tmp/users.pol" <<'EOF'
1 /x unit=user@1000.service
2 /x unit=user@1000
3 /x unit=user-1000.slice
4 /x unit=my.app
5 /x unit=user-runtime-dir@1000.service
EOF
t "units: check of user units" 0 "$K" check "$tmp/users.pol"
fake_fs "$fs"
any_out
t "units: load of user units" 0 "$K" -s "$fs" load "$tmp/users.pol"
want <<'EOF'
1 /x cgroup=/user.slice/user-1000.slice/user@1000.service
2 /x cgroup=/user.slice/user-1000.slice/user@1000.service
3 /x cgroup=/user.slice/user-1000.slice
4 /x cgroup=/system.slice/my.app.service
5 /x cgroup=/system.slice/system-user\\x2druntime\\x2ddir.slice/user-runtime-dir@1000.service
EOF
t_file "units: user@N.service is in user-N.slice" "$fs/load"
printf '1 /x unit=foo.socket\n2 /x unit=session-3.scope\n3 /x unit=a.automount\n' \
	>"$tmp/nocg.pol"
field="unknown field after the program: expected uid=, gid=, cgroup= or #"
only="only services, scopes and slices run programs in a cgroup of their own"
sess="a session's scope is in its user's slice, which its name does not tell"
want_err <<EOF
kportreserve: unit=foo.socket: a socket unit runs no program; name its service
kportreserve: unit=session-3.scope: $sess; write cgroup=/user.slice/user-UID.slice/session-3.scope
kportreserve: unit=a.automount: an automount unit runs no program; $only
$tmp/nocg.pol:1: $field
$tmp/nocg.pol:2: $field
$tmp/nocg.pol:3: $field
EOF
t "units: a socket, a session, an automount are refused" 1 "$K" check "$tmp/nocg.pol"
fake_fs "$fs"
t_true "units: load says why once" sh -c '
	"$1" -s "$2" load "$3" >/dev/null 2>"$4/once.err"
	[ "$(grep -c "unit=foo.socket: a socket unit" "$4/once.err")" = 1 ]' \
	sh "$K" "$fs" "$tmp/nocg.pol" "$tmp"

version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$src/debian/changelog")
printf 'kportreserve %s\n' "$version" | want
t "--version prints the changelog's version" 0 "$K" --version
t_true "--help lists --version" sh -c '"$1" --help | grep -q "^      --version  "' \
	sh "$K"

echo "admin: $pass passed, $fail failed"
[ "$fail" = 0 ]
