#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The documentation, checked with the kernel's own tooling: kernel-doc
# -Wall on every source file (each function's comment must match it), and
# the admin guide and README through docutils, warnings being errors.
# Ends with "docs: N passed, N failed", one check per file.
. "$(dirname "$0")/lib.sh"

"$WB_DIR/graft.sh"
passed=0 failed=0
check() {	# WHAT COMMAND...: passes when COMMAND succeeds and says nothing
	local what=$1 out
	shift
	if out=$("$@" 2>&1) && [ -z "$out" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "docs: $what:"
		printf '%s\n' "$out" | head -n 20 >&2
	fi
}

# A kernel-doc without -Wall (before 6.3) has the warnings on anyway.
wall=-Wall
"$SRC/scripts/kernel-doc" -h 2>&1 | grep -q -- -Wall || wall=
for f in $(cd "$TOP" && ls security/kportreserve/*.[ch] lib/kunit-tests/*.c \
		tools/workbench/selfcheck/*.c); do
	check "kernel-doc $f" "$SRC/scripts/kernel-doc" $wall -none "$TOP/$f"
done
rst='import docutils.core, sys
docutils.core.publish_string(open(sys.argv[1]).read(), writer_name="null",
	settings_overrides={"report_level": 2, "halt_level": 5})'
for f in Documentation/admin-guide/LSM/kportreserve.rst README.rst; do
	check "docutils $f" python3 -c "$rst" "$TOP/$f"
done
echo "docs: $passed passed, $failed failed"
[ "$failed" = 0 ]
