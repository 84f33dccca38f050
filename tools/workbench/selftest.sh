#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kportreserve selftests statically, boot them in the test
# kernel and report: selftest.sh [debug]
# Ends with "NAME: N passed, N failed, N skipped", NAME being selftest or
# selftest-debug; fails when a test fails or the guest reports a problem.
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
name=selftest${flavour:+-$flavour}
# KASAN and lockdep under TCG run the whole suite in about ten minutes;
# the debug flavour runs what exercises allocation, freeing and the RCU
# swap: the loading, identity, stats and concurrency tests and two of the
# bind variants. SELFTEST_ARGS="" runs everything.
filter=
[ "$flavour" = debug ] &&
	filter="-f load -f identity -t stats_count_exactly_what_happened -t reload_while_binding -v ipv4_tcp -v mapped_udp"
filter=${SELFTEST_ARGS-$filter}
kernel=$("$WB_DIR/kernel.sh" $flavour)
out=$BUILD/$name-$KVER
mkdir -p "$out"

make -s -C "$SRC/tools/testing/selftests/kportreserve" \
	OUTPUT="$out" CC="ccache gcc" >&2

{ echo "/opt/kpr/kportreserve_test $filter"; cat <<'RUN'; } >"$out/run.sh"
rc=$?
if [ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug &&
   [ -e /sys/kernel/debug/kmemleak ]; then
	echo clear >/sys/kernel/debug/kmemleak
	/opt/kpr/kportreserve_test -f load >/dev/null 2>&1
	sleep 1; echo scan >/sys/kernel/debug/kmemleak
	sleep 6; echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
fi
exit $rc
RUN
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh" \
	"$out/kportreserve_test:opt/kpr/kportreserve_test"

say "$name: booting $kernel"
vm_rc=0
"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/console.log" \
	"${VM_TIMEOUT:-600}" || vm_rc=$?

grep -E '^(not )?ok |^# (FAIL|SKIP)|^#  RUN' "$out/console.log" | grep -v '^#  RUN' >&2 || true
totals=$(grep -a '^# Totals:' "$out/console.log" | tail -n 1)
read -r pass fail skip error < <(sed -n \
	's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) .* skip:\([0-9]*\) error:\([0-9]*\).*/\1 \2 \3 \4/p' \
	<<<"$totals") || true
[ -n "$pass" ] || { pass=0; fail=1; skip=0; error=0; say "$name: no TAP totals in $out/console.log"; }
fail=$((fail + error + (vm_rc != 0)))
echo "$name: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
