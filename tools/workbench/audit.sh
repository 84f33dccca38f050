#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge the ways around a reservation that each supported kernel has
# (ways.sh) against their classification, audit/ways-in:
#
#   FILE FUNCTION WHAT CLASS REASON...
#
# CLASS says what the site means for a reservation:
#   checked      user space reaches it, and kportreserve judges the bind;
#                REASON names the selftests that prove it, as PROGRAM:TEST
#   skipped      the kernel chooses the port, and skips reserved ports
#   privileged   only a capability of the initial namespace, or root's
#                configuration, gets there
#   kernel       the kernel's own socket, which no user reaches
#   unreachable  no inet port of the initial network namespace is bound
#   helper       a helper or a definition: its callers are listed
#   open         any user gets there, and kportreserve does not stop it;
#                REASON ends with "the guide: WORD", which the admin
#                guide's "Other ways to a port" must name
#
# A site of any kernel that the list does not classify fails, naming it:
# a new kernel's new ways show up as such failures, not as bypasses found
# later. So does an entry that no kernel has any more, a test that the
# selftest lane does not run and an open way the guide does not name.
# Ends with "ways: N passed, N failed", one check per site and entry.
. "$(dirname "$0")/lib.sh"

list=${AUDIT_LIST:-$WB_DIR/audit/ways-in}
guide=$TOP/Documentation/admin-guide/LSM/kportreserve.rst
expect=$WB_DIR/expect/selftest-main
kernels=(7.2 6.12)
out=$BUILD/ways
mkdir -p "$out"
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); say "ways: $*"; }

# The sites of a kernel depend on its source package, the glue patches
# applied to it and the audit's scripts: kept until one of them changes.
for k in "${kernels[@]}"; do
	stamp="$(stat -c '%s %Y' "/usr/src/linux-source-$k.tar.xz" 2>/dev/null) $(
		cat "$WB_DIR/ways.sh" "$WB_DIR/audit/ways-in.cocci" \
		    "$WB_DIR/patches/$k"/*.patch | sha1sum)"
	if [ "$(cat "$out/stamp-$k" 2>/dev/null)" != "$stamp" ]; then
		rm -f "$out/stamp-$k"
		KVER=$k "$WB_DIR/graft.sh"
		KVER=$k "$WB_DIR/ways.sh" "$BUILD/linux-$k" >"$out/sites-$k" ||
			die "ways.sh failed on Linux $k"
		echo "$stamp" >"$out/stamp-$k"
	fi
	say "ways: Linux $k has $(wc -l <"$out/sites-$k") sites"
done

# The sites of the supported kernels only: a series that left the
# project leaves its file behind in a warm build/ways.
sites=()
for k in "${kernels[@]}"; do sites+=("$out/sites-$k"); done
entries=$out/entries
grep -vE '^(#|$)' "$list" | awk '{ print $1, $2, $3 }' | LC_ALL=C sort >"$entries"
[ -z "$(uniq -d "$entries")" ] || die "audit/ways-in lists a site twice: $(uniq -d "$entries" | head -n 1)"

for k in "${kernels[@]}"; do
	while read -r site; do
		if grep -qxF "$site" "$entries"; then
			pass
		else
			fail "Linux $k: not classified in audit/ways-in: $site"
		fi
	done <"$out/sites-$k"
done

section=$(sed -n '/^Other ways to a port$/,/^Audit$/p' "$guide")
while read -r file func what class reason; do
	case $file in '#'* | '') continue ;; esac
	if ! grep -qxF -- "$file $func $what" "${sites[@]}"; then
		fail "no supported kernel has it any more: $file $func $what"
		continue
	fi
	case $class in
	checked)
		tests=$(grep -oE '[a-z_]+:[a-z0-9_.]+' <<<"$reason" || true)
		if [ -z "$tests" ]; then
			fail "checked, but no test named: $file $func $what"
			continue
		fi
		for t in $tests; do
			grep -qxF "${t%%:*} ${t#*:}" "$expect" ||
				{ fail "the selftest lane does not run ${t/:/ } ($file $func $what)"; continue 2; }
		done ;;
	open)
		word=${reason##*the guide: }
		if [ "$word" = "$reason" ] || ! grep -qF -- "$word" <<<"$section"; then
			fail "open, and not named in the guide's Other ways to a port: $file $func $what"
			continue
		fi ;;
	skipped | privileged | kernel | unreachable | helper) ;;
	*)
		fail "unknown class $class: $file $func $what"
		continue ;;
	esac
	pass
done <"$list"

echo "ways: $passed passed, $failed failed"
[ "$failed" = 0 ]
