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
# The Linux 6.1 kernel is built in the background, at the lowest priority,
# from the workbench stage on, when the 6.12 kernels are built: the VM
# stages under TCG leave much of the two cores idle. The 6.1 stages wait
# for it.
prebuild=
prebuild_log=$BUILD/prebuild-6.1.log
for stage in "${stages[@]}"; do
	kver=$KVER cmd=$stage
	case $stage in *:*) kver=${stage%%:*} cmd=${stage#*:} ;; esac
	if [ "$stage" = workbench ] && [ -z "$prebuild" ]; then
		mkdir -p "$BUILD"
		KVER=6.1 nice -n 19 "$WB_DIR/kernel.sh" >"$prebuild_log" 2>&1 &
		prebuild=$!
	fi
	if [ "$kver" = 6.1 ] && [ -n "$prebuild" ]; then
		wait "$prebuild" ||
			say "check: the 6.1 kernel did not build in the background ($prebuild_log)"
		prebuild=
	fi
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
