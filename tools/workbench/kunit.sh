#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites with the kernel's own kunit.py on UML, using the
# repository's .kunitconfig. Ends with "kunit: N passed, N failed".
. "$(dirname "$0")/lib.sh"

"$WB_DIR/graft.sh"
out=$BUILD/kunit-$KVER
log=$out.log
mkdir -p "$out"

rc=0
(cd "$SRC" && python3 tools/testing/kunit/kunit.py run \
	--kunitconfig "$TOP/.kunitconfig" --build_dir "$out" \
	--jobs "$JOBS" --timeout 600 \
	--make_options "CC=ccache gcc" --make_options "HOSTCC=ccache gcc" \
	${KUNIT_ARGS:-}) >"$log" 2>&1 || rc=$?

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
echo "kunit: ${passed:-0} passed, $failed failed"
[ "$failed" = 0 ]
