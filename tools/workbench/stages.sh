#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make stages: boot each stage of the split LSM (tools/workbench/series)
# and run the selftests of what it has. Stage 06, the final tree, is what
# every other lane tests; this boots 01 (the core) to 05, each built from
# the plain test kernel of kernel.sh, with the selftests of the final
# tree minus those that the series' "stages" file says test a later
# concern. Ends with "stages: N passed, N failed, N skipped".
#
# A stage is built without building a kernel again: the grafted source
# and the plain kernel's objects are copied once to build/linux-KVER-stages
# and build/kernel-KVER-stages, and each stage is built in a mount
# namespace of its own where those copies are mounted on the paths of the
# originals. The commands that kbuild recorded for every object then
# still hold, and only what a stage changes is built again: its files of
# security/kportreserve/ and lib/kunit-tests/, what includes them, and
# the link. The glue outside them (uapi audit.h's record type, the LSM
# id, the hook) is that of the whole series at every stage: a change
# there would build most of the kernel again, and none of it is used
# before the patch that uses it. patch-build.sh compiles every patch of
# the series, glue included, as it is.
. "$(dirname "$0")/lib.sh"

[ "$KVER" = 7.2 ] || die "stages: the series is split for Linux 7.2 only"
split=$WB_DIR/series/$KVER
out=$BUILD/stages-$KVER
src_copy=$BUILD/linux-$KVER-stages
obj=$(kernel_out)
obj_copy=$obj-stages
timeout=600
start=$SECONDS

# The plain kernel, built from the final tree: the objects every stage
# starts from.
"$WB_DIR/kernel.sh" >/dev/null
rm -rf "$out"
mkdir -p "$out"

# --- The stage trees ----------------------------------------------------------
#
# The series' patches, applied in reverse to our final tree, 06 down to
# 02; what is left is 01-core.
mkdir -p "$out/tree/security"
cp -a "$TOP/security/kportreserve" "$out/tree/security/"
cp -a "$TOP/lib" "$out/tree/"
patches=("$split"/[0-9][0-9]-*.patch)
[ -e "${patches[0]}" ] || die "stages: no patches in $split"
stages=()
for ((i = ${#patches[@]} - 1; i >= 0; i--)); do
	patch -s -R -p1 -F0 --no-backup-if-mismatch -d "$out/tree" \
		<"${patches[i]}" ||
		die "$(basename "${patches[i]}") does not come off the tree: remake it ($split/README)"
	s=01-core
	[ "$i" = 0 ] || s=$(basename "${patches[i - 1]}" .patch)
	cp -a "$out/tree" "$out/tree-$s"
	stages=("$s" "${stages[@]}")
done
final=$(basename "${patches[-1]}" .patch)
say "stages: ${stages[*]} (and $final, the final tree, in the other lanes)"

# --- Building them ---------------------------------------------------------------
say "stages: copying $SRC and $obj (the first time: some 2 GB)"
rsync -a --delete "$SRC/" "$src_copy/"
rsync -a --delete "$obj/" "$obj_copy/"

fragments=("$WB_DIR/config/kernel.config" "$WB_DIR/config/distro.config"
	   "$obj/boot-policy.config")
[ -f "$WB_DIR/config/kernel-$KVER.config" ] &&
	fragments+=("$WB_DIR/config/kernel-$KVER.config")

# build_stage NAME: in the namespace, the copies mounted: the stage's
# files in, the configuration of kernel.sh again (a stage's Kconfig may
# lack a symbol, which kbuild drops), and the kernel.
build_stage() {
	local t=$out/tree-$1 f
	rsync -rc --delete "$t/security/kportreserve/" "$SRC/security/kportreserve/"
	# lib/kunit-tests also holds the workbench's own suites (graft.sh).
	for f in "$t"/lib/kunit-tests/*; do
		cmp -s "$f" "$SRC/lib/kunit-tests/${f##*/}" || cp "$f" "$SRC/lib/kunit-tests/"
	done
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$obj" \
		"$obj/.config" "${fragments[@]}" >/dev/null)
	kmake O="$obj" -s olddefconfig >/dev/null
	kbuild "stages: $1" "$obj" bzImage >&2
	# The kernel holds the stage's objects, those of no other stage.
	diff <(for f in "$t"/security/kportreserve/*.[cS]; do
			f=${f##*/}; echo "${f%.*}"
		done | LC_ALL=C sort) \
		<(ar t "$obj/security/kportreserve/built-in.a" |
		  sed 's|.*/||; s|\.o$||' | LC_ALL=C sort) >&2 ||
		die "stages: $1: the kernel's objects are not the stage's files"
	cp "$obj/arch/x86/boot/bzImage" "$out/$1.bzImage"
}
export -f build_stage kmake kbuild progress mmss say die
export SRC obj out JOBS CCACHE WB_DIR
fragments_list=${fragments[*]}
for s in "${stages[@]}"; do
	t0=$SECONDS
	say "stages: building $s"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m --propagation private bash -c '
		set -eo pipefail
		mount --bind "$1" "$SRC"
		mount --bind "$2" "$obj"
		read -r -a fragments <<<"$3"
		build_stage "$4"' _ "$src_copy" "$obj_copy" "$fragments_list" "$s" ||
		die "stages: $s does not build"
	say "stages: $s built ($((SECONDS - t0)) s)"
done

# --- Booting them ----------------------------------------------------------------
make -s -C "$SRC/tools/testing/selftests/kportreserve" \
	OUTPUT="$out" CC="${CCACHE}gcc" USERLDFLAGS=-static >&2
tests=(kportreserve_test admin_test autobind_test)

# args STAGE PROGRAM: the harness options that leave out what STAGE
# excludes of PROGRAM: -F for a whole fixture, -T for a test, which the
# harness leaves out in every fixture and variant.
args() {
	awk -v s="$1" -v p="$2" '$1 == s && $2 == "exclude" && $3 == p {
		n = split($4, part, ".")
		if (part[n] == "*") printf " -F %s", part[1]
		else printf " -T %s", part[n]
	}' "$split/stages"
}

# expected STAGE: expect/selftest-main without what the options of args()
# leave out, as the harness applies them.
expected() {
	local s=$1
	python3 - "$s" "$split/stages" "$WB_DIR/expect/selftest-main" <<-'EOF'
	import sys
	stage, stages, main = sys.argv[1:]
	fixtures, tests = set(), set()
	for line in open(stages):
	    f = line.split()
	    if len(f) == 4 and f[0] == stage and f[1] == 'exclude' and f[2] != 'kunit':
	        part = f[3].split('.')
	        if part[-1] == '*':
	            fixtures.add((f[2], part[0]))
	        else:
	            tests.add((f[2], part[-1]))
	for line in open(main):
	    if line.startswith('#') or not line.strip():
	        continue
	    prog, name = line.split()
	    part = name.split('.')
	    if (prog, part[0]) in fixtures or (prog, part[-1]) in tests:
	        continue
	    print(line.strip())
	EOF
}

pass=0 fail=0 skip=0
for s in "${stages[@]}"; do
	run="dmesg -n 1
timeout 2 nc -l -p 1023 </dev/null >/dev/null 2>&1
dmesg >/tmp/boot.log
export KPR_BOOT_POLICY_PORT=1023 KPR_BOOT_LOG=/tmp/boot.log
rc=0"
	files=()
	for t in "${tests[@]}"; do
		run+="
echo KPR-RUN $t; /opt/kpr/$t$(args "$s" "$t") || rc=1"
		files+=("$out/$t:opt/kpr/$t")
	done
	run+="
echo KPR-END
exit \$rc"
	printf '%s\n' "$run" >"$out/run-$s.sh"
	# Named as the list it is cut from, for the skips it allows.
	mkdir -p "$out/$s"
	expected "$s" >"$out/$s/selftest-main"
	"$WB_DIR/initramfs.sh" "$out/initramfs-$s.cpio.gz" "$out/run-$s.sh" \
		"${files[@]}"
	say "stages: booting $s ($(grep -c . "$out/$s/selftest-main") tests)"
	vm_rc=0
	"$WB_DIR/vm.sh" "$out/$s.bzImage" "$out/initramfs-$s.cpio.gz" \
		"$out/console-$s.log" "${VM_TIMEOUT:-$timeout}" || vm_rc=$?
	grep -aE '^not ok |^# FAIL' "$out/console-$s.log" >&2 || true
	read -r p f k < <(tapcheck "$out/$s/selftest-main" "$WB_DIR/expect/skips" \
		"$KVER" "$out/console-$s.log")
	[ "$vm_rc" = 0 ] || f=$((f + 1))
	say "stages: $s: $p passed, $f failed, $k skipped"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + k))
done

say "stages: $out ($((SECONDS - start)) s)"
echo "stages: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
