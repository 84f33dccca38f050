#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every check of the project, one stage after the other; a failed stage
# does not stop the others. Each stage ends with its "NAME: N passed,
# N failed" line; the run fails if any stage failed.
. "$(dirname "$0")/lib.sh"

# A stage is "[KVER:]SCRIPT [ARGS]". Linux 7.2, the series' base, gets
# every lane: the distribution-shaped plain kernel (lint builds it), the
# stages of the split LSM built from it (stages.sh), and
# the debug kernel; then make e2e, the packages installed on a Debian 13
# system booted on the packaged kernel. Linux 6.12, its backport, gets
# the plain kernel's KUnit and selftests.
stages=(lint docs fuzz admin selftest upstream stages workbench "kunit vm"
	"selftest debug" patches e2e "6.12:kunit vm plain" "6.12:selftest")

# The kernels that later stages need are built in the background, at the
# lowest priority, while the VM stages run the kernels built before them:
# under TCG a guest keeps about one of the two cores busy. "STAGE=KERNEL"
# starts the build of KERNEL ("[KVER:]FLAVOUR") as STAGE starts; the first
# stage to use it waits for it. The package kernel (make e2e's) starts
# from a copy of the plain kernel's objects once no stage builds that
# kernel any more (workbench is the last), and builds its modules beside
# the debug lanes; the 6.12 kernel builds while make e2e's guests boot.
prebuilds=("docs=:debug" "kunit vm=:package" "patches=6.12:")
declare -A pending=()
failed=()
start=$SECONDS

# wait_prebuild KVER FLAVOUR: wait for the background build of that
# kernel, and say how long the stages waited for it.
wait_prebuild() {
	local key=$1:$2 pid t=$SECONDS

	pid=${pending[$key]:-}
	[ -n "$pid" ] || return 0
	unset "pending[$key]"
	wait "$pid" ||
		say "check: the $1 ${2:-plain} kernel did not build in the background ($BUILD/prebuild-$1${2:+-$2}.log)"
	say "    (waited $((SECONDS - t)) s for the $1 ${2:-plain} kernel)"
}

for stage in "${stages[@]}"; do
	kver=$KVER cmd=$stage
	case $stage in *:*) kver=${stage%%:*} cmd=${stage#*:} ;; esac
	script=${cmd%% *} arg=${cmd#"$script"}
	# The stages that boot a kernel built in the background wait for it.
	case $script in
	selftest | kunit | upstream | workbench)
		wait_prebuild "$kver" ""
		case "$arg $script" in
		*debug* | *workbench | " vm kunit") wait_prebuild "$kver" debug ;;
		esac ;;
	e2e) wait_prebuild "$kver" package ;;
	esac
	# After the waits: a build started before them would take half the
	# two cores from the one waited for.
	for p in "${prebuilds[@]}"; do
		[ "${p%%=*}" = "$stage" ] || continue
		k=${p#*=} pk=${k%%:*} pf=${k#*:}
		pk=${pk:-$KVER}
		mkdir -p "$BUILD"
		# shellcheck disable=SC2086
		KVER=$pk nice -n 19 "$WB_DIR/kernel.sh" $pf \
			>"$BUILD/prebuild-$pk${pf:+-$pf}.log" 2>&1 &
		pending[$pk:$pf]=$!
	done
	say "==> $stage"
	t=$SECONDS
	# shellcheck disable=SC2086
	KVER=$kver "$WB_DIR/$script.sh" $arg || failed+=("$stage")
	say "    ($((SECONDS - t)) s)"
done
for key in "${!pending[@]}"; do wait "${pending[$key]}" || :; done
say "check: $((SECONDS - start)) s"
if [ ${#failed[@]} -ne 0 ]; then
	say "check: failed stages: ${failed[*]}"
	exit 1
fi
