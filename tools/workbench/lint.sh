#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's own checkers on our code: checkpatch.pl --strict on every
# source file, and W=1 builds under sparse (C=2) of security/kportreserve:
# in the test kernel, and for i386 and arm64. Then
# the audit of the ways around a reservation in every supported kernel
# (audit.sh).
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
	# -ENOSYS is how a task_prctl hook says "not mine" to the LSM
	# framework, as cap_task_prctl() and yama_task_prctl() do.
	security/kportreserve/identity.c) ignore=ENOSYS ;;
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

# sparse and W=1 need a configured tree: the test kernel's. A sparse
# that kbuild finds wanting makes it warn once and check nothing, which
# fails the check (sparse.sh finds one it takes).
"$WB_DIR/kernel.sh" >/dev/null
out=$(kernel_out)
sparse=$("$WB_DIR/sparse.sh") || die "lint: no sparse that Linux $KVER takes"
unchecked='is not available or not up to date'
touch "$SRC"/security/kportreserve/*.c "$SRC"/lib/kunit-tests/*.c
if kmake O="$out" W=1 C=2 CHECK="$sparse" security/kportreserve/ \
	lib/kunit-tests/ >"$log.build" 2>&1 &&
   ! grep -E "warning|error|$unchecked" "$log.build" >&2; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	say "lint: W=1 or sparse found problems in security/kportreserve or lib/kunit-tests"
fi
cat "$log.build" >>"$log"

# The same W=1 and sparse build of security/kportreserve alone, in kernels
# of other shapes than the test kernel: 32-bit and another architecture.
# (A kernel without sysctl has no kportreserve: its reservation lives
# beside net.ipv4.ip_local_reserved_ports, and SYSCTL comes only with
# PROC_SYSCTL.) tinyconfig, make prepare and the one folder keep each to
# a minute or two cold. Our objects are removed first, so that a pass means they
# were compiled again and their warnings seen.
# lint_build NAME ARCH CROSS_COMPILE FRAGMENT...
lint_build() {
	local out=$BUILD/lint-$1-$KVER f
	local -x ARCH=$2 CROSS_COMPILE=$3
	shift 3
	kconfig "$out" "$@" || return 1
	rm -f "$out"/security/kportreserve/*.[oa]
	kmake O="$out" -s prepare &&
	kmake O="$out" W=1 C=2 CHECK="$sparse" security/kportreserve/ || return 1
	for f in "$SRC"/security/kportreserve/*.[cS]; do
		f=${f##*/}
		f=$out/security/kportreserve/${f%.?}.o
		[ -f "$f" ] || { say "error: $f was not built"; return 1; }
	done
}
lint_arch() {
	local blog=$log.$1

	# Only our code is judged: prepare may warn about the architecture's.
	if lint_build "$@" >"$blog" 2>&1 &&
	   ! grep -E 'warning|error' "$blog" | grep -q 'kportreserve' &&
	   ! grep -q "$unchecked" "$blog"
	then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		grep -E 'warning|error' "$blog" | grep kportreserve >&2 ||
			tail -n 5 "$blog" >&2
		say "lint: the $1 build of security/kportreserve failed (ARCH=$2${3:+ CROSS_COMPILE=$3}, $blog)"
	fi
	cat "$blog" >>"$log"
}
cfg=$WB_DIR/config
lint_arch i386 i386 i686-linux-gnu- "$cfg/lint.config"
lint_arch arm64 arm64 aarch64-linux-gnu- "$cfg/lint.config"

# The ways around a reservation that each supported kernel's source has,
# found by coccinelle and judged against their classification
# (audit.sh, which prints its own summary): one check here.
if "$WB_DIR/audit.sh"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	say "lint: a way around a reservation is not classified (audit.sh)"
fi

[ "$failed" = 0 ] || grep -v '^total:' "$log" | head -n 40 >&2
echo "lint: $passed passed, $failed failed"
[ "$failed" = 0 ]
