#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tests of kportreserve(8) against a fake securityfs directory; its
# tests against the real one run in the selftest VM (selftest.sh). Their
# checks are judged against the list expect/admin (tapcheck.py --plain).
# Ends with "admin: N passed, N failed".
. "$(dirname "$0")/lib.sh"

log=$BUILD/admin.log
mkdir -p "$BUILD"
# The command builds parser.c against the kernel's tools/include, which
# this repository does not have: the grafted tree's.
[ -d "$SRC/tools/include" ] || "$WB_DIR/graft.sh"
export KERNEL_TOOLS_INCLUDE=$SRC/tools/include
rc=0
sh "$TOP/tools/kportreserve/tests/run.sh" >"$log" 2>&1 || rc=$?
grep -v '^admin: ' "$log" >&2 || true
read -r passed failed skipped < <(tapcheck --plain admin \
	"$WB_DIR/expect/admin" "$WB_DIR/expect/skips" "$KVER" "$log")
# run.sh's own verdict counts too: it fails on what is not a check.
[ "$rc" = 0 ] || [ "$failed" != 0 ] || failed=1
echo "admin: $passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" = 0 ]
