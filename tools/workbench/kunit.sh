#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites and report: kunit.sh [vm [debug|plain]]
#   kunit.sh      with the kernel's own kunit.py on UML, using the
#                 repository's .kunitconfig (make kunit)
#   kunit.sh vm   built into the debug x86_64 kernel (KASAN, lockdep),
#                 booted with kunit.enable=1 in QEMU and read back with
#                 kunit.py parse (make check: it needs no kernel of its own);
#                 the slow cases (a million rules) are left to UML, as
#                 KASAN under TCG takes minutes over them.
#   kunit.sh vm plain   the same in the plain test kernel
# The parser and policy suites run; the lookup microbenchmark is make
# bench's. Ends with "kunit: N passed, N failed" ("kunit-6.12: ..." for
# KVER=6.12).
. "$(dirname "$0")/lib.sh"

mode=${1:-uml}
flavour=${2-debug}
flavour_name=$flavour
out=$BUILD/kunit-$KVER${1:+-$1}${2:+-$2}
log=$out.log
mkdir -p "$out"
rm -f "$out/results.json"

rc=0
if [ "$mode" = vm ]; then
	[ "$flavour" = plain ] && flavour=
	kernel=$("$WB_DIR/kernel.sh" $flavour)
	# The suites run before init, with kportreserve.lock=1: they must
	# leave the policy in force alone. The plain kernel's boot policy is
	# locked in force (generation 1); the debug kernel has none, so the
	# lock waits for a first load, which none may have made (generation
	# 0).
	want_gen=1 want_policy="1023/tcp /sbin/kpr-boot-owner"
	[ -n "$flavour" ] && want_gen=0 want_policy=
	cat >"$out/run.sh" <<-EOF
	fs=/sys/kernel/security/kportreserve
	gen=\$(awk '\$1 == "generation" { print \$2 }' \$fs/stats)
	if [ "\$gen" = $want_gen ] && [ "\$(cat \$fs/policy)" = "$want_policy" ]
	then echo KPR-LIVE-POLICY-KEPT
	else echo "KPR-LIVE-POLICY-CHANGED generation=\$gen"
	fi
	EOF
	"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh"
	"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/console.log" \
		"${VM_TIMEOUT:-900}" kunit.enable=1 kunit.filter=speed\>slow \
		"kunit.filter_glob=kportreserve-p*" kportreserve.lock=1 \
		loglevel=7 || rc=$?
	tr -d '\r' <"$out/console.log" >"$out/ktap.log"
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py parse \
		--json="$out/results.json" "$out/ktap.log") >"$log" 2>&1 || rc=$?
else
	"$WB_DIR/graft.sh"
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py run \
		--kunitconfig "$TOP/.kunitconfig" --build_dir "$out" \
		--jobs "$JOBS" --timeout 600 \
		--make_options "CC=${CCACHE}gcc" --make_options "HOSTCC=${CCACHE}gcc" \
		--json="$out/results.json" ${KUNIT_ARGS:-}) >"$log" 2>&1 || rc=$?
fi

grep -E '\[(FAILED|CRASHED)\]|^\[..:..:..\] (Testing complete|=+ \[)|Elapsed' "$log" >&2 || true
# The cases that ran, judged against the list of this lane in expect/
# (tapcheck.py); kunit.py's own summary must agree with it.
summary=$(grep -a 'Testing complete' "$log" | tail -n 1) || true
if [ -z "$summary" ] || [ ! -s "$out/results.json" ]; then
	tail -n 30 "$log" >&2
	say "kunit: no summary; the build or the run failed (log: $log)"
	echo "$(stage_name kunit): 0 passed, 1 failed"
	exit 1
fi
expect=$WB_DIR/expect/kunit-$mode${2:+-$flavour_name}${KVER_TAG:+-$KVER_TAG}
[ -n "${KUNIT_ARGS:-}" ] && expect=-	# a subset picked by hand
read -r passed failed skipped < <(tapcheck --kunit "$expect" \
	"$WB_DIR/expect/skips" "$KVER" "$out/results.json")
ran=$(sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p' <<<"$summary")
if [ "$ran" != $((passed + failed + skipped)) ]; then
	say "kunit: kunit.py counted ${ran:-no} tests, its JSON $((passed + failed + skipped))"
	failed=$((failed + 1))
fi
if [ "$mode" = vm ]; then
	if grep -aq '^KPR-LIVE-POLICY-KEPT' "$out/console.log"; then
		passed=$((passed + 1))
	else
		say "kunit: the suites changed the policy in force (or the guest stopped early)"
		failed=$((failed + 1))
	fi
fi
[ "$rc" = 0 ] || [ "$failed" != 0 ] || failed=1
echo "$(stage_name kunit): $passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" = 0 ]
