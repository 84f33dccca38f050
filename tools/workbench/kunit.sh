#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites and report: kunit.sh [vm [debug|plain]]
#   kunit.sh      with the kernel's own kunit.py on UML, using the
#                 repository's .kunitconfig (make kunit)
#   kunit.sh vm   built into the debug x86_64 kernel (KASAN, lockdep),
#                 booted with kunit.enable=1 in QEMU and read back with
#                 kunit.py parse (make check: it needs no kernel of its own);
#                 the slow cases (a million rules) are left to UML, as
#                 KASAN under TCG takes minutes over them. Linux 6.1 knows
#                 no test attributes and runs them too.
#   kunit.sh vm plain   the same in the plain test kernel
# The parser and policy suites run; the lookup microbenchmark is make
# bench's. Ends with "kunit: N passed, N failed" ("kunit-6.1: ..." for
# KVER=6.1).
. "$(dirname "$0")/lib.sh"

mode=${1:-uml}
flavour=${2-debug}
out=$BUILD/kunit-$KVER${1:+-$1}${2:+-$2}
log=$out.log
mkdir -p "$out"

rc=0
if [ "$mode" = vm ]; then
	[ "$flavour" = plain ] && flavour=
	kernel=$("$WB_DIR/kernel.sh" $flavour)
	echo 'exit 0' >"$out/run.sh"
	"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh"
	"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/console.log" \
		"${VM_TIMEOUT:-900}" kunit.enable=1 kunit.filter=speed\>slow \
		"kunit.filter_glob=kportreserve-p*" \
		loglevel=7 || rc=$?
	tr -d '\r' <"$out/console.log" >"$out/ktap.log"
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py parse \
		"$out/ktap.log") >"$log" 2>&1 || rc=$?
else
	"$WB_DIR/graft.sh"
	(cd "$SRC" && python3 tools/testing/kunit/kunit.py run \
		--kunitconfig "$TOP/.kunitconfig" --build_dir "$out" \
		--jobs "$JOBS" --timeout 600 \
		--make_options "CC=ccache gcc" --make_options "HOSTCC=ccache gcc" \
		${KUNIT_ARGS:-}) >"$log" 2>&1 || rc=$?
fi

grep -E '\[(FAILED|CRASHED)\]|^\[..:..:..\] (Testing complete|=+ \[)|Elapsed' "$log" >&2 || true
summary=$(grep -a 'Testing complete' "$log" | tail -n 1)
passed=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<<"$summary")
failed=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<<"$summary")
crashed=$(sed -n 's/.*crashed: \([0-9]*\).*/\1/p' <<<"$summary")
if [ -z "$summary" ]; then
	tail -n 30 "$log" >&2
	say "kunit: no summary; the build or the run failed (log: $log)"
	passed=0 failed=1
fi
failed=$((${failed:-0} + ${crashed:-0}))
[ "$rc" = 0 ] || [ "$failed" != 0 ] || failed=1
echo "$(stage_name kunit): ${passed:-0} passed, $failed failed"
[ "$failed" = 0 ]
