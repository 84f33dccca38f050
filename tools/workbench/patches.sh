#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make patches: this tree as a "git format-patch" series against the
# pristine Linux source, the form in which it would be posted: fixes of
# rxrpc and sunrpc, sunrpc and 9p skipping ip_local_reserved_ports, the
# network stack's reservations beside that sysctl, then the LSM in six
# patches, its KUnit tests, its selftests, kportreserve(8) and the admin
# guide: fifteen patches behind a cover letter, each with the glue for
# upstream files that concerns it.
#
# The series is made from what is committed (HEAD), so that it can be
# rebuilt from a commit id; PATCHES_WORKTREE=1 takes the working tree
# instead (tracked and untracked files, but not ignored ones). Commits
# carry the identity and date of our HEAD commit, so the same HEAD gives
# the same series, byte for byte.
#
# Then it checks the series: checkpatch.pl --strict on every patch,
# "git am" onto a fresh clone of the pristine source giving the same tree,
# and a build after each patch (see build_each): PATCHES_BUILD names the
# command, patch-build.sh unless set; PATCHES_BUILD= builds nothing.
# Ends with "patches: N passed, N failed", one per check.
#
# Under build/: pristine-KVER (the unpacked source as one git commit,
# made once), series-KVER (where the series is committed), am-KVER (where
# it is applied again) and patches-KVER (the series).
. "$(dirname "$0")/lib.sh"

PATCHES_BUILD=${PATCHES_BUILD-$WB_DIR/patch-build.sh}
tarball=/usr/src/linux-source-$KVER.tar.xz
pristine=$BUILD/pristine-$KVER
series=$BUILD/series-$KVER
am=$BUILD/am-$KVER
out=$BUILD/patches-$KVER
log=$BUILD/patches-$KVER.log
base_branch=linux-$KVER
branch=kportreserve
maint_title="KPORTRESERVE SECURITY MODULE"
passed=0 failed=0

# git in the repositories under build/, blind to the user's and the
# system's configuration: a format.* or diff.* setting there would change
# the series, and a commit hook or signing would get in the way.
g() { GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git "$@"; }

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); say "patches: $*"; }

# The author of our HEAD commit signs the series, at the date of HEAD.
ident_name=$(git -C "$TOP" log -1 --format=%an)
ident_email=$(git -C "$TOP" log -1 --format=%ae)
ident="$ident_name <$ident_email>"
export GIT_AUTHOR_NAME=$ident_name GIT_COMMITTER_NAME=$ident_name
export GIT_AUTHOR_EMAIL=$ident_email GIT_COMMITTER_EMAIL=$ident_email

[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
mkdir -p "$BUILD"
: >"$log"
start=$SECONDS

# --- The pristine source, as a git repository -----------------------------
#
# Made once: "git add" of some 90,000 files takes a while. The stamp names
# the tarball and the identity it was made with, so a new linux-source
# package makes it again. The commit date is the mtime of the top Makefile
# in the tarball, so that its id, which is the parent of the series, does
# not depend on when it was made.
stamp="$(stat -c '%s %Y' "$tarball") $ident"
if [ "$(cat "$pristine/.git/kportreserve-pristine" 2>/dev/null)" != "$stamp" ]; then
	say "patches: making the pristine repository from $tarball (once)"
	# The clones borrow its objects (--shared): they go with it.
	rm -rf "$pristine" "$pristine.tmp" "$series" "$am" \
		"$BUILD/linux-source-$KVER"
	mkdir -p "$pristine.tmp"
	tar -C "$pristine.tmp" -xf "$tarball"
	[ -f "$pristine.tmp/linux-source-$KVER/Makefile" ] ||
		die "$tarball does not hold linux-source-$KVER/"
	mv "$pristine.tmp/linux-source-$KVER" "$pristine"
	rmdir "$pristine.tmp"
	date=$(stat -c %Y "$pristine/Makefile")
	g -C "$pristine" init -q -b "$base_branch"
	# No automatic gc: the clones share these objects.
	g -C "$pristine" config gc.auto 0
	# -f: Debian's .gitignore starts with ".*", which would leave out
	# .gitignore, .mailmap, .kunitconfig and the like.
	g -C "$pristine" add -A -f
	GIT_AUTHOR_DATE="@$date +0000" GIT_COMMITTER_DATE="@$date +0000" \
		g -C "$pristine" commit -q --no-verify \
		-m "Linux $KVER (Debian linux-source-$KVER)"
	echo "$stamp" >"$pristine/.git/kportreserve-pristine"
fi
base=$(g -C "$pristine" rev-parse "$base_branch")
say "patches: pristine $KVER at $(g -C "$pristine" rev-parse --short "$base") ($((SECONDS - start)) s)"

# From here on every commit has the date of our HEAD commit.
GIT_AUTHOR_DATE=$(git -C "$TOP" log -1 --format=%cI)
export GIT_AUTHOR_DATE GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

# --- Our files -------------------------------------------------------------
#
# A snapshot of this repository, so that every step below reads the same
# content: HEAD, or with PATCHES_WORKTREE=1 the files git does not ignore.
snap=$(mktemp -d "$BUILD/patches-src.XXXXXX")
trap 'rm -rf "$snap"' EXIT
mkdir "$snap/tree"
if [ -n "${PATCHES_WORKTREE:-}" ]; then
	say "patches: PATCHES_WORKTREE set: the series is the working tree, not HEAD"
	(cd "$TOP" && git ls-files -z -co --exclude-standard |
	 while IFS= read -r -d '' f; do
		# Deleted but not yet committed: not part of the tree.
		[ -e "$f" ] && printf '%s\0' "$f"
	 done | tar --null -T - -cf -) | tar -C "$snap/tree" -xf -
else
	git -C "$TOP" archive HEAD | tar -C "$snap/tree" -xf -
fi

# --- The series ------------------------------------------------------------
#
# The work clone is reset to the pristine commit on every run and the eight
# commits are made again on top of it.
if [ ! -d "$series/.git" ]; then
	g clone -q --shared "$pristine" "$series"
	g -C "$series" config gc.auto 0
fi
g -C "$series" checkout -q -f -B "$branch" "$base"
g -C "$series" clean -q -fdx

# Mail loses carriage returns: "git am" strips them, and checkpatch calls
# them DOS line endings. A file of ours that has them on purpose, such as
# a fuzzer seed, goes as a binary patch, which carries it intact.
(cd "$snap/tree" && { grep -rlI $'\r' . || true; }) | sed 's|^\.||; s|$| binary|' \
	>"$series/.git/info/attributes"

# ours PATH...: copy our files into the series and stage them; -f because
# the kernel's .gitignore would skip our own .gitignore and .kunitconfig.
ours() {
	local p
	for p; do
		[ -e "$snap/tree/$p" ] || die "$p is not in our tree"
		mkdir -p "$series/$(dirname "$p")"
		cp -a "$snap/tree/$p" "$series/$(dirname "$p")/"
	done
	g -C "$series" add -f -- "$@"
}

# glue NNNN [git apply options]: apply glue patch NNNN of
# tools/workbench/patches/KVER to the series; options such as
# --include=PATH split one between patches.
glue_dir=$snap/tree/tools/workbench/patches/$KVER
glue_used=" "
glue() {
	local n=$1 p
	shift
	p=$(ls "$glue_dir/$n"-*.patch 2>/dev/null) || die "no glue patch $n for $KVER"
	g -C "$series" apply --index "$@" "$p" ||
		die "glue patch $(basename "$p") does not apply to the pristine source"
	glue_used="$glue_used$(basename "$p") "
}

# maintainers PATTERN: add "F: PATTERN" to our MAINTAINERS section,
# making the section first, in its alphabetical place. Every patch adds
# the lines for its own files: checkpatch asks for a MAINTAINERS update
# in each patch that adds files, whatever an earlier patch said.
maintainers() {
	local tmp=$snap/MAINTAINERS
	LC_ALL=C awk -v title="$maint_title" -v m="M:	$ident" \
		-v f="F:	$1" '
	{ line[NR] = $0 }
	END {
		# A section title follows a blank line and precedes "X:<TAB>".
		# The sections are not all in order (LPC32XX DMAMUX SUPPORT sits
		# among the ARM/ ones), so ours goes before the last title
		# that sorts after it and follows one that sorts before it.
		for (i = 2; i < NR; i++) {
			if (line[i - 1] != "" || line[i] == "" ||
			    line[i + 1] !~ /^[A-Z]:\t/)
				continue
			t = toupper(line[i])
			if (t == title) { found = i; at = 0; break }
			if (t > title && prev != "" && prev < title)
				at = i
			prev = t
		}
		if (found) {
			# checkpatch wants the F: lines in byte order.
			for (j = found + 1; j <= NR && line[j] != ""; j++)
				if (!at && line[j] ~ /^F:/ && line[j] > f)
					at = j
			if (!at)
				at = j
		} else if (!at) {
			exit 1
		}
		for (i = 1; i <= NR; i++) {
			if (i == at && found) {
				print f
			} else if (i == at) {
				print title
				print m
				print "L:\tlinux-security-module@vger.kernel.org"
				print "S:\tMaintained"
				print f
				print ""
			}
			print line[i]
		}
		if (at > NR)
			print f
	}' "$series/MAINTAINERS" >"$tmp" || die "no place for $maint_title in MAINTAINERS"
	cat "$tmp" >"$series/MAINTAINERS"
	g -C "$series" add MAINTAINERS
}

# commit SUBJECT: commit what is staged; the body comes on standard input.
commit() {
	{
		printf '%s\n\n' "$1"
		cat
		printf '\nSigned-off-by: %s\n' "$ident"
	} | g -C "$series" commit -q --no-verify --cleanup=whitespace -F -
}

# glue_message NNNN: the commit message of glue patch NNNN, which is all
# of its own patch: the lines between its Subject and its "---", but its
# Signed-off-by, which commit() adds.
glue_message() {
	sed -n '/^$/,/^---$/p' "$glue_dir/$1"-*.patch | sed '1d;$d' |
		grep -v '^Signed-off-by: '
}

# A fix of rxrpc that stands on its own, first, so that it can be taken
# into the net tree and to stable without the rest: an unbound socket
# kept the address of a bind() that failed, and a later sendmsg() bound
# its port with kernel_bind(), out of the bind hook's sight.
glue 0007
glue_message 0007 |
	commit "rxrpc: keep the address of a bind() only once it is bound"

# A fix of sunrpc that stands on its own too (Fixes:, Cc: stable): the
# source-port search of xs_bind() never ended on a busy range of one port.
glue 0001
glue_message 0001 |
	commit "SUNRPC: end xs_bind()'s search of a range of one port"

# The kernel's own clients skip the sysctl's ports, as its automatic
# assignment always has: useful with the sysctl alone, for the NFS and 9p
# trees to take without the rest.
glue 0002
glue_message 0002 |
	commit "SUNRPC: skip ip_local_reserved_ports when choosing a privileged port"
glue 0008
glue_message 0008 |
	commit "9p: skip ip_local_reserved_ports when choosing a privileged port"

# The network stack's reservations for kernel users, beside the sysctl,
# with no cost to the allocators. These patches add no file of ours, so
# they leave MAINTAINERS alone.
glue 0009
glue_message 0009 |
	commit "net: let kernel users reserve ports beside ip_local_reserved_ports"

# The LSM, one concern a patch (tools/workbench/series/KVER): the core,
# then audit, the boot policy, mode and lock, denials and automatic
# assignment. The stages are taken from our final tree by applying the
# series' patches in reverse, 06 down to 02; what is left is the core.
series_src=$snap/tree/tools/workbench/series/$KVER
[ -d "$series_src" ] || die "no split of the LSM for $KVER in tools/workbench/series"
mkdir -p "$snap/stage/security"
cp -a "$snap/tree/security/kportreserve" "$snap/stage/security/"
cp -a "$snap/tree/lib" "$snap/stage/"
stage_patches=("$series_src"/[0-9][0-9]-*.patch)
declare -A stage_tree
for ((i = ${#stage_patches[@]} - 1; i >= 0; i--)); do
	p=${stage_patches[i]}
	n=$(basename "$p" .patch)
	stage_tree[$n]=$snap/stage-$n
	cp -a "$snap/stage" "${stage_tree[$n]}"
	patch -s -R -p1 -F0 --no-backup-if-mismatch -d "$snap/stage" <"$p" ||
		die "$(basename "$p") does not come off the tree: remake it (tools/workbench/series/$KVER/README)"
done
stage_tree[01-core]=$snap/stage

# lsm_stage NAME: make security/kportreserve/ of the series that of stage
# NAME, and stage the change.
lsm_stage() {
	rm -rf "$series/security/kportreserve"
	cp -a "${stage_tree[$1]}/security/kportreserve" "$series/security/"
	g -C "$series" add -A -f security/kportreserve
}

lsm_stage 01-core
glue 0003 --exclude=include/uapi/linux/audit.h
maintainers security/kportreserve/
commit "security: add the kportreserve LSM" <<'EOF'
Local ports are handed out first come, first served. A service that
starts late finds its port taken by whatever asked first: a client the
kernel happened to give it to, a misconfigured program, or a program
that squats on it on purpose. The existing answers each leave a gap:
net.ipv4.ip_local_reserved_ports only steers the automatic assignment,
and any program may still bind() the port by number; the portreserve
daemon holds the port until the service starts and so races with it;
socket activation works only for programs changed to accept their
socket from systemd.

kportreserve lets the administrator reserve ports for the programs that
own them. Once a policy such as

    443/tcp      /usr/sbin/nginx uid=0      # its root master binds
    8000-8099    /opt/app/bin/server
    8080/tcp     /usr/bin/python3.13 cgroup=/system.slice/myapp.service

is in force, the socket_bind and sctp_bind_connect hooks let a bind() to
a reserved port succeed only for the executables listed for it; every
other program gets EADDRINUSE, as if the port were taken. A port
without a rule costs one bit test. Rules cover TCP, UDP and SCTP;
uid= and gid= (one id or a list) restrict one to users or groups, and
cgroup= to the programs a cgroup v2, such as a systemd service, runs.
A program is named by the path of its executable, links resolved: on
Debian 13 that is /usr/bin/python3.13, /usr/bin/python3 being a link.

A policy comes through one of two files of
/sys/kernel/security/kportreserve/. "load" takes a whole policy in one
write() and returns the outcome from it, as SELinux's "load" and IPE's
"new_policy" do, optionally only if a given generation is still in
force; "policy" takes text of any length, for cat, parsed as it is
written and committed when the last reference to the open file goes,
as IMA's policy file is, and refuses text cut in the middle of a line.
Reading "policy" gives the policy in force in canonical form. A new
policy is built aside and swapped in under RCU, so a bad line leaves
the old one in force. "stats" gives the policy's generation and counts
the binds checked, allowed and denied.

The LSM gets the id LSM_ID_KPORTRESERVE and is counted in
MAX_LSM_COUNT. SECURITY_KPORTRESERVE_KUNIT_TEST is used by a later
patch, which adds the tests. The patches that follow add audit records,
a policy built into the kernel, a permissive mode and a lock, per-port
denial figures, and keep reserved ports out of the kernel's own choice.

kportreserve descends from Tetsuo Handa's KPortReserve RFC of 2013,
which could not be merged while only one LSM could be active; it now
stacks with the others.
EOF

lsm_stage 02-audit
glue 0003 --include=include/uapi/linux/audit.h
commit "kportreserve: audit denials and policy loads" <<'EOF'
An administrator wants to know who was refused a reserved port, and an
audit trail wants every change of policy with who made it.

A denial is logged, rate-limited, with the port, the protocol, and the
pid, command and executable of the caller, and gets an audit record of
a type of its own, AUDIT_KPORTRESERVE_ACCESS (1427), numbered after the
last type that Linux 7.2 takes. It carries what only kportreserve
knows: the port, its protocol by number (as NETFILTER_PKT writes
proto=, and as audit's tools read it), the address and whether the
mode let the bind through; who made the call is in the SYSCALL record
of the same event, as for Landlock's records.

A policy load, and a load refused at commit, is recorded as
AUDIT_MAC_POLICY_LOAD, as SELinux and IPE record theirs, with the
sha256 of the policy's canonical text (the bytes a read of "policy"
returns, so that sha256sum of the file gives it, as IPE names its
policies) and the pid, auid and session of the process that loaded it.
A "policy" file commits when its last reference goes, possibly after
its writer's last system call on it, so the open file keeps the last
writer to name.
EOF

lsm_stage 03-boot-policy
commit "kportreserve: put a policy built into the kernel in force before init" <<'EOF'
A policy that a service loads at boot leaves a window, from the first
process to that service, in which any program can take a reserved port.
SECURITY_KPORTRESERVE_BOOT_POLICY names a policy file that is built
into the kernel and put in force at late_initcall time, before init
runs, with the same parser and the same commit as a written policy. A
bad boot policy is refused with the line named in the kernel log, and
the kernel boots with no policy.
EOF

lsm_stage 04-mode-and-lock
commit "kportreserve: permissive mode and a lock" <<'EOF'
Deploying a policy on a running system is safer when its effect can be
seen before it refuses anyone. In permissive mode (kportreserve.mode=
on the command line, or "permissive" written to the "mode" file) a bind
that the policy refuses succeeds, and is counted as would_deny, logged
and audited with permissive=1. A change of mode is recorded as
AUDIT_MAC_STATUS, in the form SELinux and IPE give theirs, and the mode
is a word, as AppArmor's is: there is no third state to number.

A lock (kportreserve.lock=1, or "1" written to "lock") fixes the policy
and the mode until reboot, as IMA's policy does when it cannot be
written. On the command line it waits for the first policy in force:
the boot policy, or the first one loaded when the kernel has none, so
that it cannot lock the empty policy by accident. The lock is recorded
as AUDIT_MAC_CONFIG_CHANGE.
EOF

lsm_stage 05-denials
commit "kportreserve: per-port denial figures" <<'EOF'
When a service fails to start with EADDRINUSE, the administrator's first
question is who holds, or tried to take, its port; the counters of
"stats" do not say. "denials" lists, for each reserved port and
protocol that saw a denial, how many binds were refused (and, in
permissive mode, would have been), and the pid and executable of the
last one.

Any user can cause denials, so what they cost is bounded: an entry is a
small fixed size, charged to the memory cgroup of the task denied, a
port has at most one entry per protocol, and a policy load drops the
entries of ports it no longer reserves. The file names other users'
processes, so only root reads it.
EOF

lsm_stage 06-autobind
commit "kportreserve: keep reserved ports out of the kernel's own choice" <<'EOF'
socket_bind never sees a port that the kernel picks: bind() to port 0,
listen() or connect() on an unbound socket, sendmsg() on an unbound UDP
socket, and the privileged source ports that the RPC client and 9p
choose for themselves. A reserved port handed out that way is taken as
surely as one bound by number. Hold a reservation of the network stack
(struct inet_port_reservation) in the initial network namespace, and
make it the ports of each policy put in force, per protocol: the
allocators skip them beside those of ip_local_reserved_ports at no cost
of their own, the administrator's sysctl is neither read nor written,
and a write to it reopens nothing. The reservation lives beside the
sysctl, so kportreserve now depends on SYSCTL.
EOF

# kunit.py takes a directory for --kunitconfig and reads .kunitconfig in
# it, as for security/landlock: the tests are of security/kportreserve.
ours lib/kunit-tests
cp "$snap/tree/.kunitconfig" "$series/security/kportreserve/.kunitconfig"
g -C "$series" add -f security/kportreserve/.kunitconfig
glue 0004
maintainers lib/kunit-tests/
commit "lib/kunit-tests: add KUnit tests for kportreserve" <<'EOF'
Test the policy parser and the policy itself without booting a kernel
that enforces one. The parser suite feeds it valid and malformed
policies, whole and in pieces, and checks the rules it makes, the error
it reports and the line it names, and its limits; the policy suite
builds policies and checks which program, user and group may bind which
port, the canonical text read back, and a policy swapped while readers
hold the old one.

The suites reach the module's non-static functions through its headers.
Run them with

    ./tools/testing/kunit/kunit.py run --kunitconfig security/kportreserve
EOF

ours tools/testing/selftests/kportreserve
glue 0005
maintainers tools/testing/selftests/kportreserve/
commit "selftests: add kportreserve tests" <<'EOF'
Test kportreserve in a booted kernel, as root, replacing the policy in
force while they run: kportreserve_test checks binds by the owner and by
impostors over TCP, UDP, SCTP and MPTCP, the identity of a program
(chroot, unlinked and replaced binaries, exec, user and mount
namespaces), loading the policy write by write, and the counters;
admin_test checks the permissive mode, the lock, the boot policy, the
audit records, the denials file and the uid= and gid= qualifiers;
autobind_test checks that the kernel never assigns a reserved port.

Teach lsm_list_modules_test the new LSM id, and build the tests with
the other targets.
EOF

ours tools/kportreserve
# Its Debian packaging (make deb) is this project's, not the kernel's.
g -C "$series" rm -r -q -f -- tools/kportreserve/debian
maintainers tools/kportreserve/
commit "tools: add kportreserve(8), the admin command" <<'EOF'
Writing the policy file is enough to use kportreserve, but an
administrator also wants to check a policy before loading it, see the
one in force with its counters and denials, add or remove a rule
without retyping the rest, and ask who may bind a port. kportreserve(8)
does that with check, load, status, add, del and who, and
import-portreserve turns the configuration of the portreserve daemon
into a policy.

It builds the kernel's own parser.c unchanged, so that it accepts and
refuses exactly what the kernel does, and needs nothing but libc. Run
without a file, load assembles the drop-ins of packages and of the
administrator (policy.d) and /etc/kportreserve/policy; a systemd unit
does so after systemd-sysctl and before the network comes up.
tests/run.sh tests the command against a fake securityfs directory,
tests/vm.sh against the real one, and fuzz/ fuzzes the parser with
libFuzzer in user space.
EOF

ours Documentation/admin-guide/LSM/kportreserve.rst
glue 0006
maintainers Documentation/admin-guide/LSM/kportreserve.rst
commit "Documentation: add the kportreserve admin guide" <<'EOF'
Describe kportreserve for the administrator: why it exists, how to
enable it, the policy language and the boot policy, the files under
/sys/kernel/security/kportreserve/ and their errors, the modes and the
lock, how a bind is decided and how reserved ports are kept out of
automatic assignment, the audit records, the admin command, and what
kportreserve does not cover. List the guide in the LSM toctree, and
the boot parameters kportreserve.mode= and kportreserve.lock= in
kernel-parameters.txt.
EOF

# --- The cover letter and the patches --------------------------------------
#
# format-patch takes the cover letter's subject and body from the branch
# description; what it cannot know is stated here.
sublevel=$(sed -n 's/^SUBLEVEL = //p' "$pristine/Makefile")
g -C "$series" config "branch.$branch.description" "$(cat <<EOF
kportreserve: reserve local ports for the programs that own them

Local ports are handed out first come, first served, and a service that
starts late finds its port taken by whatever asked first. The existing
answers each leave a gap: net.ipv4.ip_local_reserved_ports only steers
the kernel's automatic assignment and any program may still bind() the
port by number, the portreserve daemon races with the service it holds
the port for, and socket activation needs programs changed to accept
their socket from systemd.

kportreserve is a small stackable LSM that closes the gap. The
administrator writes a policy such as

    80/tcp       /usr/sbin/nginx uid=0
    5353/udp     /usr/sbin/avahi-daemon
    8000-8099    /opt/app/bin/server
    8080/tcp     /usr/bin/python3.13 cgroup=/system.slice/myapp.service

to /sys/kernel/security/kportreserve/policy; from then on a bind() to a
reserved port succeeds only for the programs listed for it, and every
other program gets EADDRINUSE, as if the port were taken. Ports with no
rule cost one bit test. TCP, UDP and SCTP are covered, rules may be
restricted to uids, gids or a cgroup (a service), reserved ports are
kept out of automatic assignment and of the kernel's own RPC and 9p
clients through the network stack's new reservations beside
ip_local_reserved_ports, which cost the allocators nothing, a policy can
be built in and put in force before init, and a permissive mode, a lock, audit
records and per-port denial figures help to deploy it. It descends from
Tetsuo Handa's KPortReserve RFC of 2013, which could not be merged
while only one LSM could be active.

Patches 1 and 2 are fixes that stand on their own, for stable too: rxrpc
bound the port of a failed bind() on a later sendmsg(), out of the bind
hook's sight, and the RPC client's search for a privileged source port
never ended when its range was one busy port. Patches 3 and 4 make the
RPC client and 9p skip the ports of ip_local_reserved_ports when they
choose a privileged source port, as the kernel's automatic assignment
always has; they are useful with the sysctl alone, for the NFS and 9p
trees. Patch 5, for the network maintainers, lets kernel users reserve
ports beside the sysctl: the allocators keep testing one bitmap inline,
now the administrator's ports or'ed with the kernel users', so they pay
nothing, and the sysctl still reads back what was written to it.
TOMOYO's deny_autobind would be another user. Patches 6 to 11 add the
LSM one concern at a time: the core (hooks, policy, the policy files),
audit, a policy built into the kernel, permissive mode and the lock,
per-port denial figures, and its reservation of patch 5. Patch 12 adds
its KUnit tests, patch 13 its selftests, patch 14 kportreserve(8), an
admin command that shares the kernel's parser, and patch 15 the admin
guide. Each patch builds on its own, and each of patches 6 to 11 was
booted and passed the selftests of what it adds.

The KUnit suites live in lib/kunit-tests/, the place this project was
asked to give them, rather than beside the code as Landlock and IPE
keep theirs; they reach the functions they test through
VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT, so that a kernel built
without KUnit keeps them static.

The series is against Linux $KVER.$sublevel as shipped in Debian's
linux-source-$KVER. It was tested there with checkpatch.pl --strict,
a W=1 build under sparse, the KUnit suites under UML, the selftests in
an x86_64 QEMU guest on a plain kernel and on one with KASAN and
lockdep, the kernel's own bind, Landlock and lsm_list_modules selftests
with kportreserve enabled and left out of lsm= (same results), the
tests of kportreserve(8), and libFuzzer on the policy parser.

Performance. make bench boots the same x86_64 kernel, shaped like a
distribution's (AppArmor, TOMOYO, Landlock, Yama, lockdown, LoadPin,
SafeSetID and IPE stacked, built with -O2), under QEMU with -icount
shift=0 on one CPU, so that one nanosecond of guest time is one
instruction: once without kportreserve in lsm= (the floor) and once
with it. Measured on Linux 7.2, in ns of guest time and as a ratio to
the floor:

    bind() per call                IPv4 TCP        IPv4 UDP        IPv6 TCP        IPv6 UDP
    floor: not in lsm=             2357 1.000x     1031 1.000x     2422 1.000x       89 1.000x
    no rule, 1 rule                2375 1.007x     1049 1.017x     2440 1.007x      106 1.196x
    no rule, 65,536 rules          2372 1.006x     1049 1.017x     2440 1.007x      107 1.200x
    reserved, allowed, 1 rule      2716 1.153x     1392 1.350x     2784 1.150x      453 5.091x
    reserved, allowed, 65,536      2716 1.152x     1392 1.350x     2784 1.149x      453 5.095x
    reserved, denied, 65,536       4721 2.003x     4724 4.581x     4755 1.963x     4763 53.57x
    Landlock, allowed, 65,534      2748 1.166x     1420 1.377x     2815 1.162x      482 5.416x

    per call                       without     with kportreserve
    open()+close(), distro LSMs    4166.7      4166.7  1.0000x
    open()+close(), lsm=yama       3435.3      3435.3  1.0000x
    prctl(), distro LSMs            487.2       501.2  1.0287x

The kernel's own choice of a port, with 0%, 90% and 98% of
ip_local_port_range (32768-60999) taken by bound sockets: connect() to
one destination (with its accept() and close()) and bind() to port 0,
on the same source built without the series (the floor), on the series
without kportreserve in lsm= (off), and with it under policies that
reserve 1,000 ports outside the range and 1,000 inside it (against the
same ports in ip_local_reserved_ports without the series); beside them
the previous version of this series, which called an LSM hook about
every candidate port:

    per call, 98% taken        connect()           bind() to port 0
    floor                      100087 1.000x       25696 1.000x
    off                        100103 1.000x       25746 1.002x
    kportreserve, empty        100096 1.000x       25799 1.004x
    1,000 reserved outside     100095 1.000x       25769 1.003x
    floor, 1,000 in sysctl      99108 1.000x       26093 1.000x
    1,000 reserved inside       99121 1.000x       26126 1.001x
    hook version, off          101541 1.015x       26509 1.032x
    hook version, active       102055 1.020x       26666 1.038x

The allocators' candidate loops of the series are the instructions of
the kernel without it (disassembled); the ratios of off to the floor,
0.02% for connect() and 0.19% for bind() to port 0 at worst, are how
far two boots of the same code come apart, the kernel starting its
search at a random port. With kportreserve the rest is its bind hook,
which bind() to port 0 goes through (16 instructions).

A port without a rule costs 18 instructions, about 6 of them the LSM
framework's call of one more hook: 0.8% of a TCP bind(). An allowed
bind to a reserved port adds about 345 instructions, a refused one
about 2,400 over TCP (the path spelled, the denial recorded, the audit
record). The UDP ratios look larger because the floor is small: the
net cost of a UDP bind is 1,027 instructions over IPv4 and 85 over
IPv6, and the same 18 and 345 come on top of it. Landlock's bind rights
for TCP and UDP cost about what the allowed path does. The size of the
policy does not show: 1, 1,000 and 65,536 rules give the same cost
within 3 instructions on every path. Loading 65,536 rules takes 937 ms of guest
time and 7.5 MiB; one rule 1-65535/tcp for 64 programs (4,194,240 port
and program pairs) takes 2.3 ms and 532 KiB. Looked up alone (a KUnit
microbenchmark of the benchmark's), a reserved port costs 49 ns
whatever the policy, where the list of the 2013 RFC costs 2,709 ns at
1,000 entries; getppid(), which no hook sees, costs the same 246 ns in
every boot. open() is untouched: the id of the executable is kept in a
32-byte blob of each task, an allocation per fork() where no other LSM
has a task blob (about a hundred instructions of the 131,000 of a
fork(), below what fork() varies from boot to boot), and every prctl()
pays the task_prctl hook, 14 instructions.
EOF
)"

# --abbrev: git would pick the length of the blob ids in the "index"
# lines from the number of objects, which differs between clones.
rm -rf "$out"
mapfile -t files < <(g -C "$series" format-patch --cover-letter \
	--cover-from-description=subject --abbrev=12 -o "$out" "$base..$branch")
[ "${#files[@]}" = 16 ] || die "format-patch made ${#files[@]} files, not 16"
cover=${files[0]} patches=("${files[@]:1}")
! grep -q '\*\*\*' "$cover" || die "cover letter still has a placeholder"
say "patches: series made ($((SECONDS - start)) s)"

# --- Checks ------------------------------------------------------------------

# Nothing copied into the series was left out of it, and every glue patch
# of this kernel series found its way in.
if [ -z "$(g -C "$series" status --porcelain --ignored --untracked-files=all)" ]; then
	pass
else
	fail "files left out of the series in $series:"
	g -C "$series" status --short --ignored --untracked-files=all >&2
fi
missing=
for p in "$glue_dir"/*.patch; do
	[ -e "$p" ] || continue
	case $glue_used in *" $(basename "$p") "*) ;; *) missing="$missing $(basename "$p")" ;; esac
done
if [ -z "$missing" ]; then pass; else fail "glue patches not in the series:$missing"; fi

# checkpatch.pl of the pristine source, on each patch as it would be
# mailed (commit message, Signed-off-by and MAINTAINERS included). In a
# git tree it validates SPDX ids with scripts/spdxcheck.py, which wants
# python3-ply and python3-git: Debian's python3 has them, not
# necessarily the first python3 on PATH. Without them checkpatch accepts
# any id.
cp_path=/usr/bin:$PATH
PATH=$cp_path python3 -c 'import ply, git' 2>/dev/null ||
	say "patches: no python3-ply or python3-git: SPDX ids are not checked"
for p in "${patches[@]}"; do
	ignore=
	case $p in
	*-tools-add-kportreserve*)
		# kportreserve(8) defines __printf() for itself, as user
		# space code in tools/ does (tools/include/linux/compiler.h):
		# the kernel macro that checkpatch points to is not there.
		# libFuzzer calls LLVMFuzzerTestOneInput() by that name. The
		# user-space stand-in of linux/sort.h defines cmp_func_t and
		# swap_func_t, as include/linux/types.h does in the kernel.
		ignore=PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE,NEW_TYPEDEFS ;;
	*-rxrpc-keep-the-address-of-a-bind*|*-SUNRPC-end-xs_bind-s-search*)
		# Debian's source is a tarball without history: the commit
		# that Fixes: names cannot be looked up in it.
		ignore=UNKNOWN_COMMIT_ID ;;
	*-security-add-the-kportreserve-lsm*|*kportreserve-LSM*)
		# -ENOSYS is how a task_prctl hook says "not mine" to the
		# LSM framework, as cap_task_prctl() and yama_task_prctl() do.
		ignore=ENOSYS ;;
	*-kportreserve-audit-denials*|*-kportreserve-put-a-policy-built*|\
	*-kportreserve-per-port-denial*|*-kportreserve-keep-reserved-ports*)
		# New files in security/kportreserve/, which the LSM's
		# MAINTAINERS entry covers since patch 4.
		ignore=FILE_PATH_CHANGES ;;
	esac
	echo "== checkpatch $(basename "$p")" >>"$log"
	if (cd "$pristine" && PATH=$cp_path scripts/checkpatch.pl --strict \
		--show-types ${ignore:+--ignore $ignore} "$p") >>"$log" 2>&1; then
		pass
	else
		fail "checkpatch --strict: $(basename "$p")"
		sed -n '/^== checkpatch '"$(basename "$p")"'$/,$p' "$log" |
			grep -Ev '^(total:|$)' | head -n 40 >&2
	fi
done

# git am onto a clean pristine tree, as a maintainer would; the result
# must be the tree the series was made from. The am clone is made once
# and then reset to the pristine commit and cleaned of everything else:
# checking out 90,000 files again took over a minute here, and the reset
# leaves the same tree, which git status confirms. PATCHES_FRESH=1 clones
# it again anyway.
[ -z "${PATCHES_FRESH:-}" ] || rm -rf "$am"
if [ ! -d "$am/.git" ]; then
	rm -rf "$am"
	g clone -q --shared "$pristine" "$am"
	g -C "$am" config gc.auto 0
fi
g -C "$am" am --abort >/dev/null 2>&1 || true
g -C "$am" checkout -q -f -B "$base_branch" "$base"
g -C "$am" clean -q -fdx
[ -z "$(g -C "$am" status --porcelain --ignored --untracked-files=all)" ] ||
	die "$am is not clean after a reset: remove it"
echo "== git am" >>"$log"
if g -C "$am" am -q "${patches[@]}" >>"$log" 2>&1; then
	pass
	if [ "$(g -C "$am" rev-parse 'HEAD^{tree}')" = \
	     "$(g -C "$series" rev-parse 'HEAD^{tree}')" ]; then
		pass
	else
		fail "git am gives another tree than the series"
	fi
else
	fail "git am: the series does not apply to the pristine source"
	sed -n '/^== git am$/,$p' "$log" | head -n 20 >&2
	g -C "$am" am --abort >/dev/null 2>&1 || true
fi

# The whole series is what the test kernels boot: every file it adds or
# changes but MAINTAINERS and kportreserve(8), which no kernel build
# reads, is byte for byte the file of the grafted tree (graft.sh) that the
# selftest, upstream and bench lanes build and boot. That tree only adds
# the workbench's own KUnit suites (lib/kunit-tests/Kbuild, the selfcheck
# suite and the lookup microbenchmark).
"$WB_DIR/graft.sh"
echo "== the series against the grafted tree $SRC" >>"$log"
differ=
while IFS= read -r f; do
	case $f in MAINTAINERS|tools/kportreserve/*) continue ;; esac
	[ -e "$am/$f" ] || continue
	cmp -s "$am/$f" "$SRC/$f" || differ+=" $f"
done < <(g -C "$am" diff --name-only "$base" "$base_branch")
if [ -z "$differ" ]; then
	pass
else
	fail "the series differs from the tree the test kernels boot in (uncommitted changes? PATCHES_WORKTREE=1):$differ"
fi

# build_each: every patch of the series must build on its own. For each
# patch in order, check out the am tree at that patch and run
#   $PATCHES_BUILD AM_TREE N
# (N from 1); its exit status passes or fails patch N. PATCHES_BUILD may
# hold arguments of its own before these two. Unset, nothing is built.
# Its output goes to the log. The next run cleans the am tree with
# "git clean -fdx", so a build that should stay incremental puts its
# objects elsewhere (O=); only the files a patch changes get new mtimes.
build_each() {
	local n=0 c commits
	if [ -z "${PATCHES_BUILD:-}" ]; then
		say "patches: PATCHES_BUILD not set, the patches were not built one by one"
		return
	fi
	commits=$(g -C "$am" rev-list --reverse "$base..$base_branch")
	for c in $commits; do
		n=$((n + 1))
		g -C "$am" checkout -q -f --detach "$c"
		echo "== build $n: $PATCHES_BUILD $am $n" >>"$log"
		# shellcheck disable=SC2086 # PATCHES_BUILD may carry arguments
		if $PATCHES_BUILD "$am" "$n" >>"$log" 2>&1; then
			pass
		else
			fail "patch $n does not build: $PATCHES_BUILD $am $n"
			sed -n '/^== build '"$n"':/,$p' "$log" | tail -n 20 >&2
		fi
	done
	g -C "$am" checkout -q -f "$base_branch"
}
if [ "$(g -C "$am" rev-list --count "$base..$base_branch" 2>/dev/null)" = \
     "${#patches[@]}" ]; then
	build_each
else
	[ -z "${PATCHES_BUILD:-}" ] || fail "no per-patch builds: git am failed"
fi

say "patches: $out ($((SECONDS - start)) s, log: $log)"
echo "patches: $passed passed, $failed failed"
[ "$failed" = 0 ]
