#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every check of the project, one stage after the other; a failed stage
# does not stop the others. Each stage ends with its "NAME: N passed,
# N failed" line; the run fails if any stage failed.
. "$(dirname "$0")/lib.sh"

# A stage is "[KVER:]SCRIPT [ARGS]". Linux 6.1 gets the plain kernel's
# KUnit and selftests; the debug kernel and the upstream suites (Landlock's
# net_test and the LSM syscalls are newer) run on 6.12.
if [ "$KVER" = 6.1 ]; then
	stages=(lint docs "kunit vm plain" selftest)
else
	stages=(lint docs fuzz admin "kunit vm" workbench selftest upstream
		"selftest debug" patches "6.1:kunit vm plain" "6.1:selftest")
fi
failed=()
start=$SECONDS
for stage in "${stages[@]}"; do
	kver=$KVER cmd=$stage
	case $stage in *:*) kver=${stage%%:*} cmd=${stage#*:} ;; esac
	script=${cmd%% *} arg=${cmd#"$script"}
	say "==> $stage"
	t=$SECONDS
	# shellcheck disable=SC2086
	KVER=$kver "$WB_DIR/$script.sh" $arg || failed+=("$stage")
	say "    ($((SECONDS - t)) s)"
done
say "check: $((SECONDS - start)) s"
if [ ${#failed[@]} -ne 0 ]; then
	say "check: failed stages: ${failed[*]}"
	exit 1
fi
