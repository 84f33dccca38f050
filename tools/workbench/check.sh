#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every check of the project, one stage after the other; a failed stage
# does not stop the others. Each stage ends with its "NAME: N passed,
# N failed" line; the run fails if any stage failed.
. "$(dirname "$0")/lib.sh"

stages=(lint docs fuzz admin "kunit vm" selftest upstream "selftest debug")
failed=()
start=$SECONDS
for stage in "${stages[@]}"; do
	script=${stage%% *} arg=${stage#"$script"}
	say "==> $stage"
	t=$SECONDS
	# shellcheck disable=SC2086
	"$WB_DIR/$script.sh" $arg || failed+=("$stage")
	say "    ($((SECONDS - t)) s)"
done
say "check: $((SECONDS - start)) s"
if [ ${#failed[@]} -ne 0 ]; then
	say "check: failed stages: ${failed[*]}"
	exit 1
fi
