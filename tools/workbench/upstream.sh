#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Code nobody here wrote, against our kernel: the kernel's own bind tests
# (tools/testing/selftests/net), Landlock's net_test and
# lsm_list_modules_test, run in the VM twice, with kportreserve enabled
# and a policy that reserves other ports loaded (two in the ephemeral
# range: automatic assignment must steer around them), and with
# kportreserve left out of lsm=. Every test must give the same result in
# both boots, judged test by test (tapcheck.py --compare) against the
# list in expect/upstream.
# Ends with "upstream: N passed, N failed, N skipped", one per test.
. "$(dirname "$0")/lib.sh"

kernel=$("$WB_DIR/kernel.sh")
kout=$(kernel_out)
out=$BUILD/upstream-$KVER
st=$SRC/tools/testing/selftests
mkdir -p "$out/bin"

kmake O="$kout" -s headers >&2
cc=($CCACHE gcc -static -O2 -w -D_GNU_SOURCE -isystem "$kout/usr/include")
tests=()
build() {	# NAME SOURCES... [-- LIBS...]
	local name=$1 srcs=() libs=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srcs+=("$1"); shift; done
	[ $# -gt 0 ] && shift && libs=("$@")
	"${cc[@]}" -I"$st" -o "$out/bin/$name" "${srcs[@]}" "${libs[@]}" ||
		die "upstream: $name does not build"
	tests+=("$name")
}
build bind_timewait "$st/net/bind_timewait.c"
build bind_wildcard "$st/net/bind_wildcard.c"
build reuseport_addr_any "$st/net/reuseport_addr_any.c"
build reuseport_dualstack "$st/net/reuseport_dualstack.c"
build sk_bind_sendto_listen "$st/net/sk_bind_sendto_listen.c"
build landlock_net_test "$st/landlock/net_test.c" -- -lcap -lpthread
build lsm_list_modules_test "$st/lsm/lsm_list_modules_test.c" "$st/lsm/common.c"

# Each program's output follows "KPR-RUN NAME", as in selftest.sh; a
# program without TAP output of its own is one test, judged by its exit
# status.
{
	echo 'dmesg -n 1'
	echo 'P=/sys/kernel/security/kportreserve/policy'
	# Single ports, not a block, in the ephemeral range: the allocators
	# go from a random port to the next free one, so every start inside
	# a block of 1,000 lands on the port after it. bind_timewait leaves
	# its port in TIME_WAIT, and a bind_wildcard test that lands on the
	# same port then fails to bind 0.0.0.0 there: the lane failed so
	# about once in a few runs.
	echo '[ -e $P ] && printf "1-1000 /usr/sbin/nobody\n40000 /usr/sbin/nobody\n50000/udp /usr/sbin/nobody\n61000-61100/tcp <kernel>\n" >$P'
	echo 'echo "UPSTREAM-LSM $(cat /sys/kernel/security/lsm)"'
	echo '[ -e $P ] && echo "UPSTREAM-RULES $(grep "^rules " ${P%/*}/stats)"'
	for t in "${tests[@]}"; do
		echo "echo KPR-RUN $t"
		echo "/opt/up/$t >/tmp/$t.out 2>&1; rc=\$?"
		echo "cat /tmp/$t.out"
		echo "grep -aq '^# Totals' /tmp/$t.out ||"
		echo "	{ [ \$rc = 0 ] && echo 'ok 1 $t' || echo 'not ok 1 $t'; }"
		echo "echo KPR-END $t rc=\$rc"
	done
} >"$out/run.sh"
files=()
for t in "${tests[@]}"; do files+=("$out/bin/$t:opt/up/$t"); done
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh" "${files[@]}"

# The same tests with and without kportreserve, one boot each, beside the
# LSMs of the distribution-shaped kernel (distro_lsms); a name the kernel
# was built without is ignored.
for boot in with without; do
	lsm=$(distro_lsms)
	[ $boot = with ] && lsm+=,kportreserve
	"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/$boot.log" \
		"${VM_TIMEOUT:-600}" "lsm=$lsm" ||
		die "upstream: the boot $boot kportreserve failed"
done
grep -aq 'UPSTREAM-LSM .*kportreserve' "$out/with.log" ||
	die "upstream: kportreserve was not enabled in the boot with it"
! grep -aq 'UPSTREAM-LSM .*kportreserve' "$out/without.log" ||
	die "upstream: kportreserve was enabled in the boot without it"
# The four rules above, or the with boot tested nothing of ours.
grep -aqxE $'UPSTREAM-RULES rules 4\r?' "$out/with.log" ||
	die "upstream: the policy of the boot with kportreserve was not loaded: $(grep -a UPSTREAM-RULES "$out/with.log")"

# A test that fails with kportreserve and passes without fails; one that
# fails without kportreserve is upstream's own, counted as skipped, never
# as a pass, and named in the summary line (tapcheck.py --compare). No
# test is run twice.
verdict=$("$WB_DIR/tapcheck.py" --compare "$WB_DIR/expect/upstream" \
	"$WB_DIR/expect/skips" "$KVER" "$out/with.log" "$out/without.log") ||
	verdict="0 1 0"
read -r passed failed skipped < <(tail -n 1 <<<"$verdict")
flaky=$(sed -n 's/^flaky: //p' <<<"$verdict")
echo "upstream: $passed passed, $failed failed, $skipped skipped${flaky:+ (failed without kportreserve too: $flaky)}"
[ "$failed" = 0 ]
