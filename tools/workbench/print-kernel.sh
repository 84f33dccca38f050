#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the absolute path of the bootable test kernel, building it first
# if needed. The build's chatter goes to a log shown only on failure.
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD"
log=$BUILD/print-kernel.log
if ! image=$("$WB_DIR/kernel.sh" 2>"$log"); then
	cat "$log" >&2
	exit 1
fi
echo "$image"
