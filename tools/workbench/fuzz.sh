#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz the policy parser: fuzz.sh [SECONDS] (default 30, the smoke run of
# make check). The target parses each input whole and split in two at
# every byte (tools/kportreserve/fuzz/parser_fuzz.c), one libFuzzer job
# per core (FUZZ_JOBS to change). A twentieth of the time fuzzes from the
# seeds at the parser's limits (fuzz/limits/), the rest from the committed
# seeds (fuzz/corpus/). A crash, a leak, a split that parses otherwise
# than the whole input, or a canonical text that does not parse back
# fails; so does a run whose number of inputs cannot be read. Reports the
# inputs run, and for 600 s or more whether that makes the 10 million in
# 600 s asked of make fuzz SECONDS=600.
. "$(dirname "$0")/lib.sh"

seconds=${1:-30}
jobs=${FUZZ_JOBS:-$(nproc)}
fuzz=$TOP/tools/kportreserve/fuzz
out=$BUILD/fuzz
target=10000000
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt 2 ]; then
	die "fuzz.sh: SECONDS must be a whole number, at least 2"
fi
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "fuzz.sh: FUZZ_JOBS must be at least 1"

fail() {
	[ -z "${1:-}" ] || tail -n 30 "$1" >&2
	say "fuzz: $2 (logs: $out/)"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
}

# fuzz_phase NAME SECONDS SEEDS [FLAG...]: run the jobs from SEEDS into a
# fresh corpus (what an earlier run grew would slow this one), in
# $out/NAME/, where each job logs to fuzz-N.log; add up their inputs in
# $phase_runs. A job ends with "Done N runs in S second(s)", or failed.
fuzz_phase() {
	local name=$1 secs=$2 seeds=$3 dir=$out/$1 rc=0 j n log
	shift 3

	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	(cd "$dir" &&
	 "$out/parser_fuzz" -jobs="$jobs" -workers="$jobs" \
		-max_total_time="$secs" -max_len="$max_len" "$@" \
		-artifact_prefix="$out/" "$dir/corpus" "$seeds") \
		>"$dir/jobs.log" 2>&1 || rc=$?
	phase_runs=0
	for ((j = 0; j < jobs; j++)); do
		log=$dir/fuzz-$j.log
		n=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" \
			2>/dev/null | tail -n 1) || n=
		if [ -z "$n" ] && [ -s "$log" ]; then
			fail "$log" "$name: job $j failed"
		fi
		[ -n "$n" ] || fail "$dir/jobs.log" \
			"$name: job $j did not say how many inputs it ran"
		phase_runs=$((phase_runs + n))
	done
	[ "$rc" = 0 ] || fail "$dir/jobs.log" "$name: libFuzzer exited with $rc"
	[ "$phase_runs" -gt 0 ] || fail "$dir/jobs.log" "$name: no input ran"
}

mkdir -p "$out"
# The parser builds against the kernel's tools/include: the grafted tree's.
[ -d "$SRC/tools/include" ] || "$WB_DIR/graft.sh"
make -s -C "$fuzz" OUT="$out" KERNEL_TOOLS_INCLUDE="$SRC/tools/include" \
	"$out/parser_fuzz"
# Above the longest line and path the parser accepts: MAX_LEN in
# tools/kportreserve/fuzz/Makefile says how it follows from parser.h.
max_len=$(make -s --no-print-directory -C "$fuzz" max-len)

# The seeds at the limits are lines of 16 KiB, which take a second or two
# each, whole and at every split: a twentieth of the time, and at least
# what each job takes to run them once (about 5 s).
limits_s=$((seconds / 20 > 0 ? seconds / 20 : 1))
fuzz_phase limits "$limits_s" "$fuzz/limits"
limits_runs=$phase_runs

# libFuzzer lengthens its inputs by log2(length) bytes whenever
# -len_control * log2(length) runs found nothing new; at its default of
# 100 and 10,000 runs a second that is 1 KiB within two minutes, and an
# input of N bytes split at every byte costs N times N. At 20,000 they
# stayed at the 176 bytes of the largest seed through ten minutes here.
fuzz_phase main "$((seconds - limits_s))" "$fuzz/corpus" -len_control=20000
runs=$((limits_runs + phase_runs))

say "fuzz: $runs inputs in $seconds s ($((runs / seconds))/s, $jobs jobs;" \
	"$limits_runs from the seeds at the limits), each parsed whole and" \
	"split at every byte: no crash, leak, split or round-trip mismatch"
if [ "$seconds" -ge 600 ]; then
	if [ "$((runs * 600 / seconds))" -ge "$target" ]; then
		say "fuzz: $target inputs in 600 s: met"
	else
		say "fuzz: $target inputs in 600 s: missed"
	fi
fi
echo "fuzz: 1 passed, 0 failed"
