#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own checkers on our code: checkpatch.pl --strict on every
# source file, and a W=1 build under sparse (C=2) of security/kportreserve.
# Ends with "lint: N passed, N failed", one check per file and per build.
. "$(dirname "$0")/lib.sh"

"$WB_DIR/graft.sh"
passed=0 failed=0
log=$BUILD/lint-$KVER.log
: >"$log"

files=$(cd "$TOP" && ls security/kportreserve/*.[ch] lib/kunit-tests/*.c \
	tools/testing/selftests/kportreserve/*.[ch] tools/kportreserve/*.[ch] \
	tools/workbench/bench/*.c tools/workbench/selfcheck/*.c \
	2>/dev/null)
for f in $files; do
	# User-space tools define __printf() themselves, as
	# tools/include/linux/compiler.h does.
	ignore=
	case $f in
	tools/kportreserve/*) ignore=PREFER_DEFINED_ATTRIBUTE_MACRO ;;
	# The one place that compares kernel versions, so that the same
	# sources build on Linux 6.1.
	security/kportreserve/compat.h)
		ignore=LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_ARG_UNUSED ;;
	esac
	if (cd "$SRC" && scripts/checkpatch.pl --strict --no-tree --terse \
		--quiet --show-types ${ignore:+--ignore $ignore} \
		-f "$TOP/$f") >>"$log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		say "lint: checkpatch: $f"
	fi
done

# sparse and W=1 need a configured tree: the test kernel's.
"$WB_DIR/kernel.sh" >/dev/null
out=$(kernel_out)
touch "$SRC"/security/kportreserve/*.c "$SRC"/lib/kunit-tests/*.c
if kmake O="$out" W=1 C=2 security/kportreserve/ lib/kunit-tests/ \
	>"$log.build" 2>&1 &&
   ! grep -E 'warning|error' "$log.build" >&2; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	say "lint: W=1 or sparse found problems in security/kportreserve or lib/kunit-tests"
fi
cat "$log.build" >>"$log"
[ "$failed" = 0 ] || grep -v '^total:' "$log" | head -n 40 >&2
echo "lint: $passed passed, $failed failed"
[ "$failed" = 0 ]
