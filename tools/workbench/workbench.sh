#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The workbench's own test: its VM lanes fail on the kernel's reports.
# The selfcheck KUnit suite (selfcheck/, grafted into the test kernels
# only) provokes one on request. Each case boots a kernel through vm.sh:
#
#   - nothing provoked: vm.sh passes (the suite's cases skip);
#   - a WARN_ON_ONCE(1), and a sleep inside rcu_read_lock(), in the plain
#     and in the debug kernel, each with the console at loglevel=1, so
#     that only the kernel log read back at the end shows the report:
#     vm.sh fails, saying why;
#   - the selftest lane with a warning provoked at boot: the lane fails;
#   - tapcheck.py, which judges the selftest lanes' results, on made-up
#     console logs: a test that did not run, a new skip, a program that
#     stopped early, a kmemleak scan that did not run each fail; and
#     tapcheck.py --compare, which judges the upstream lane: a test that
#     fails only with kportreserve fails, one that fails without it too
#     is named and not counted as a pass;
#   - audit.sh on made-up lists: a site left out, an entry no kernel has,
#     a test the selftest lane does not run, an open way the guide does
#     not name each fail.
#
# Ends with "workbench: N passed, N failed".
. "$(dirname "$0")/lib.sh"

out=$BUILD/workbench-$KVER
# The made-up lists below are not to be rewritten from their logs.
unset KPR_EXPECT_UPDATE
mkdir -p "$out"
plain=$("$WB_DIR/kernel.sh")
debug=$("$WB_DIR/kernel.sh" debug)
echo 'echo payload done' >"$out/run.sh"
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh"
selfcheck="kunit.enable=1 kunit.filter_glob=kportreserve-selfcheck"
passed=0 failed=0

# said PATTERN FILE: FILE has a line matching PATTERN; "" wants it empty.
said() {
	if [ -z "$1" ]; then
		[ ! -s "$2" ]
	else
		grep -aqE "$1" "$2"
	fi
}

# verdict NAME TOOL GOT WANT PATTERN: count one check, in which TOOL said
# GOT and $out/NAME.verdict; it had to say WANT, and PATTERN (see said()).
verdict() {
	local name=$1 tool=$2 got=$3 want=$4 pattern=$5

	if [ "$got" = "$want" ] && said "$pattern" "$out/$name.verdict"; then
		passed=$((passed + 1))
		say "    ok: $name: $tool said $got"
	else
		failed=$((failed + 1))
		say "    not ok: $name: $tool said $got, expected $want matching '$pattern'"
		sed 's/^/    | /' "$out/$name.verdict" >&2
	fi
}

# expect NAME KERNEL VERDICT PATTERN [CMDLINE...]: boot KERNEL; vm.sh must
# give VERDICT (pass or fail) and say something matching PATTERN.
expect() {
	local name=$1 kernel=$2 verdict=$3 pattern=$4 rc=0 got=pass
	shift 4
	KPR_PROGRESS=0 "$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" \
		"$out/$name.log" "${VM_TIMEOUT:-600}" "$@" \
		>"$out/$name.verdict" 2>&1 || rc=$?
	[ "$rc" = 0 ] || got=fail
	# What vm.sh said must name the reason, not only the console log.
	verdict "$name" vm.sh "$got" "$verdict" "$pattern"
}

expect quiet "$plain" pass '' $selfcheck
expect plain-warn "$plain" fail 'WARNING:.*kportreserve_selfcheck' \
	$selfcheck kpr_selfcheck.trigger=warn loglevel=1
# The warning of rcu_note_context_switch(): "Voluntary context switch
# within RCU read-side critical section!"
expect plain-rcu-sleep "$plain" fail 'WARNING: .*kernel/rcu/tree_plugin.h:[0-9]+ (at )?rcu_note_context_switch' \
	$selfcheck kpr_selfcheck.trigger=rcu_sleep loglevel=1
expect debug-warn "$debug" fail 'panic_on_warn set' \
	$selfcheck kpr_selfcheck.trigger=warn loglevel=1
expect debug-rcu-sleep "$debug" fail \
	'panic_on_warn set|suspicious RCU usage|context switch within RCU|sleeping function called' \
	$selfcheck kpr_selfcheck.trigger=rcu_sleep loglevel=1

# judge NAME VERDICT PATTERN LOG [MARKER]: tapcheck.py on LOG against a
# list of three tests, of which t.skipped may skip: VERDICT is pass when
# it finds no failure, and it must say something matching PATTERN.
judge() {
	local name=$1 verdict=$2 pattern=$3 log=$4 got=pass f
	printf 'prog t.one\nprog t.two\nprog t.skipped\n' >"$out/judge.expect"
	printf '* * prog t.skipped a test that may skip\n' >"$out/judge.skips"
	read -r _ f _ < <(tapcheck ${5:+--marker "$5"} "$out/judge.expect" \
		"$out/judge.skips" "$KVER" "$log" 2>"$out/$name.verdict")
	[ "$f" = 0 ] || got=fail
	verdict "$name" tapcheck.py "$got" "$verdict" "$pattern"
}

# tap LINES...: a console log of one test program, with its totals.
tap() {
	printf 'KPR-RUN prog at 1.0 s\n'
	printf '%s\n' "$@"
	printf '# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0\n'
	printf 'KPR-END at 2.0 s\n'
}
ok3=("#  RUN  t.one ..." "ok 1 t.one" "#  RUN  t.two ..." "ok 2 t.two"
     "#  RUN  t.skipped ..." "ok 3 t.skipped # SKIP not here")
tap "${ok3[@]}" >"$out/all.log"
judge all-ran pass '' "$out/all.log"
tap "${ok3[@]:0:2}" "${ok3[@]:4:2}" >"$out/missing.log"
judge filter-matched-nothing fail 'ran 0 times.*t.two' "$out/missing.log"
tap "${ok3[@]:0:2}" "#  RUN  t.two ..." "ok 2 t.two # SKIP new" \
	"${ok3[@]:4:2}" >"$out/new-skip.log"
judge new-skip fail 'not allowed to be: prog t.two' "$out/new-skip.log"
{ echo 'KPR-RUN prog at 1.0 s'; printf '%s\n' "${ok3[@]:0:2}"; } >"$out/early.log"
judge stopped-early fail 'stopped early' "$out/early.log"
judge no-kmemleak-scan fail 'no KPR-KMEMLEAK-SCANNED line' "$out/all.log" \
	KPR-KMEMLEAK-SCANNED
# 6.1's harness leaves the name out of a skip: the RUN line gives it.
tap "${ok3[@]:0:4}" "#  RUN  t.skipped ..." "ok 3 # SKIP not here" >"$out/6.1.log"
judge skip-named-by-run-line pass '' "$out/6.1.log"

# compare NAME VERDICT PATTERN WITH_LOG WITHOUT_LOG: tapcheck.py --compare,
# as upstream.sh judges its two boots.
compare() {
	local name=$1 verdict=$2 pattern=$3 got=pass f
	read -r _ f _ < <(tapcheck --compare "$out/judge.expect" \
		"$out/judge.skips" "$KVER" "$4" "$5" 2>"$out/$name.verdict")
	[ "$f" = 0 ] || got=fail
	verdict "$name" "tapcheck.py --compare" "$got" "$verdict" "$pattern"
}
tap "${ok3[@]:0:2}" "#  RUN  t.two ..." "not ok 2 t.two" "${ok3[@]:4:2}" >"$out/two-fails.log"
compare fails-only-with-kportreserve fail 'fail with kportreserve, pass without: prog t.two' \
	"$out/two-fails.log" "$out/all.log"
compare fails-without-kportreserve-too pass 'failed without kportreserve too.*prog t.two' \
	"$out/two-fails.log" "$out/two-fails.log"

# A lane, not only vm.sh: the selftest lane with a warning at boot.
rc=0
VM_APPEND="$selfcheck kpr_selfcheck.trigger=warn" SELFTEST_ARGS="-t port_without_rule" \
	SELFTEST_OUT=$out/lane "$WB_DIR/selftest.sh" >"$out/lane.out" 2>&1 || rc=$?
if [ "$rc" != 0 ] && grep -q 'reported a problem' "$out/lane.out"; then
	passed=$((passed + 1))
	say "    ok: the selftest lane fails on a warning"
else
	failed=$((failed + 1))
	say "    not ok: the selftest lane, rc=$rc, on a warning:"
	tail -n 20 "$out/lane.out" | sed 's/^/    | /' >&2
fi
# The audit of the ways around a reservation (audit.sh), on made-up
# lists: a site left out, an entry no kernel has, a checked way whose
# test the lane does not run, an open way the guide does not name. The
# sites are those lint found (audit.sh keeps them).
# audit NAME PATTERN: audit.sh with $out/NAME.list must fail, saying PATTERN.
audit() {
	local rc=0 got=pass

	AUDIT_LIST=$out/$1.list "$WB_DIR/audit.sh" >"$out/$1.verdict" 2>&1 || rc=$?
	[ "$rc" = 0 ] || got=fail
	verdict "$1" audit.sh "$got" fail "$2"
}
entries=$(grep -vE '^(#|$)' "$WB_DIR/audit/ways-in")
site=$(head -n 1 <<<"$entries" | awk '{ print $1, $2, $3 }')
tail -n +2 <<<"$entries" >"$out/site-left-out.list"
audit site-left-out "not classified in audit/ways-in: $site"
{ echo "$entries"; echo "net/none.c none kernel_bind kernel made up"; } |
	LC_ALL=C sort >"$out/stale-entry.list"
audit stale-entry 'no supported kernel has it any more: net/none.c none kernel_bind'
sed -E '0,/ checked /s/(kportreserve_test:)[a-z_.]+/\1way_in.none.made_up/' \
	<<<"$entries" >"$out/test-not-run.list"
audit test-not-run 'the selftest lane does not run kportreserve_test way_in.none.made_up'
sed -E '0,/ open /s/the guide: .*/the guide: nowhere-in-the-guide/' \
	<<<"$entries" >"$out/open-not-named.list"
audit open-not-named "open, and not named in the guide's Other ways to a port"

# A warm tree tests what a cold one would (graft.sh), on a made-up
# source tarball of series "wbtest": a new upload of it is unpacked
# afresh, and a file that the last graft put in and our tree no longer
# has leaves the grafted tree.
# graft_check NAME OK MESSAGE: count one check, passed if OK is 0.
graft_check() {
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		say "    ok: $1"
	else
		failed=$((failed + 1))
		say "    not ok: $1: $3"
	fi
}
gt=$out/graft
rm -rf "$gt" && mkdir -p "$gt/pkg/linux-source-wbtest"
echo first >"$gt/pkg/linux-source-wbtest/Makefile"
tar -C "$gt/pkg" -cJf "$gt/linux-source-wbtest.tar.xz" linux-source-wbtest
wbgraft() {
	KVER=wbtest BUILD=$gt/build KPR_TARBALL=$gt/linux-source-wbtest.tar.xz \
		KPR_KEEP_GRAFT='' "$WB_DIR/graft.sh" 2>>"$gt/graft.log"
}
wbsrc=$gt/build/linux-wbtest
wbgraft
echo gone >"$wbsrc/security/kportreserve/removed.c"
echo ./security/kportreserve/removed.c >>"$wbsrc/.kpr-grafted"
sort -o "$wbsrc/.kpr-grafted" "$wbsrc/.kpr-grafted"
wbgraft
rc=0
[ ! -e "$wbsrc/security/kportreserve/removed.c" ] &&
	[ -f "$wbsrc/security/kportreserve/hooks.c" ] || rc=1
graft_check "graft.sh takes a file our tree no longer has out" $rc \
	"security/kportreserve/removed.c is still there"
echo second >"$gt/pkg/linux-source-wbtest/Makefile"
touch -d '2000-01-01' "$gt/pkg/linux-source-wbtest/Makefile"
tar -C "$gt/pkg" -cJf "$gt/linux-source-wbtest.tar.xz" linux-source-wbtest
touch -d '+1 minute' "$gt/linux-source-wbtest.tar.xz"
echo stale >"$wbsrc/stale"
wbgraft
rc=0
[ "$(cat "$wbsrc/Makefile")" = second ] && [ ! -e "$wbsrc/stale" ] &&
	[ "$wbsrc/Makefile" -nt "$gt/pkg/linux-source-wbtest/Makefile" ] || rc=1
graft_check "graft.sh unpacks a new upload afresh, newer than the last build" $rc \
	"$(cat "$wbsrc/Makefile"), stale $([ -e "$wbsrc/stale" ] && echo kept || echo gone)"
rm -rf "$gt"

# The progress of long steps (lib.sh), as a CI log shows it: kbuild's
# quiet lines counted against the total, a line per interval, a last
# line; and the ticker beside a boot. The times allow a second of slack.
# progress_said NAME PATTERN: what the step said ($out/NAME.verdict) has
# a line that is PATTERN.
progress_said() { verdict "$1" "${1%%-*}" pass pass "^$2\$"; }
mkdir -p "$out/progress-out"
echo 7 >"$out/progress-out/.kpr-objects"
{ echo "make[1]: Entering directory"; echo "  CC      a.o"; sleep 2.5
  echo "  AS      b.o"; echo "  LD      c.o"; echo "  CC [M]  d.o"; } |
	KPR_PROGRESS_EVERY=1 progress kernel "$out/progress-out" 2>"$out/progress.verdict"
cp "$out/progress.verdict" "$out/progress-total.verdict"
progress_said progress-total "kernel: 1 of ~7 objects, 0:0[12] elapsed"
progress_said progress "kernel: 3 objects compiled in 0:0[23]"
KPR_PROGRESS_EVERY=1 ticker "vm: boot" 90 2>"$out/ticker.verdict" &
tick=$!
sleep 2.5
kill "$tick"
wait "$tick" 2>/dev/null || :
progress_said ticker "vm: boot: 0:0[12] of at most 1:30"

echo "$(stage_name workbench): $passed passed, $failed failed"
[ "$failed" = 0 ]
