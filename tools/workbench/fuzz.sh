#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz the policy parser: fuzz.sh [SECONDS] (default 30, the smoke run of
# make check). Starts from the committed seed corpus; a crash, a leak or a
# canonical text that does not parse back fails. Reports inputs tried.
. "$(dirname "$0")/lib.sh"

seconds=${1:-30}
out=$BUILD/fuzz
mkdir -p "$out/corpus"
make -s -C "$TOP/tools/kportreserve/fuzz" OUT="$out" "$out/parser_fuzz"
rc=0
(cd "$TOP/tools/kportreserve/fuzz" &&
 "$out/parser_fuzz" -max_total_time="$seconds" -max_len=4096 \
	-artifact_prefix="$out/" "$out/corpus" corpus) >"$out/fuzz.log" 2>&1 || rc=$?
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$out/fuzz.log" | tail -n 1)
if [ "$rc" != 0 ]; then
	tail -n 30 "$out/fuzz.log" >&2
	say "fuzz: failed after ${runs:-?} inputs (log: $out/fuzz.log)"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi
say "fuzz: ${runs:-0} inputs in ${seconds}s, no crash, leak or round-trip mismatch"
echo "fuzz: 1 passed, 0 failed"
