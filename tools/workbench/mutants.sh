#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make mutants: build the LSM with each deliberate defect of mutants/, one
# at a time, and run the suites that must catch it, cheapest first: KUnit
# in the plain kernel, then the selftest lane (its three boots). The first
# suite that fails kills the mutant; a mutant that passes them all
# survived, which means a test is missing. A suite kills a mutant only
# through a test that the patch's "# KILLED-BY:" line names. MUTANTS="01
# 07" runs only the mutants whose names start so.
#
# One line per mutant, "mutant NAME: killed by SUITE (N s)" or "mutant
# NAME: SURVIVED (expected to be killed by ...)", and last "mutants: N
# killed, N survived". A mutant that does not build counts as survived.
. "$(dirname "$0")/lib.sh"

out=$BUILD/mutants-$KVER
mkdir -p "$out"
rm -f "$out"/*.log
killed=0 survived=0
# Whatever happens, the grafted tree gets our own sources back, and the
# mutant in place, if any, is taken back: graft.sh restores our files, not
# the upstream files that the glue patches change (net/), where a mutant
# may be too.
current=
trap '[ -z "$current" ] || patch -d "$SRC" -p1 -R -s -f --fuzz=0 \
	--no-backup-if-mismatch <"$current" >/dev/null
KPR_KEEP_GRAFT= "$WB_DIR/graft.sh"' EXIT
export KPR_KEEP_GRAFT=1
# A mutant's run must not rewrite the lists of expect/.
unset KPR_EXPECT_UPDATE

# named_test_failed PATCH LOG: a test that PATCH's KILLED-BY line names
# failed in LOG (tapcheck.py's "failed: PROGRAM TEST" lines). In a name,
# "*" stands for any variant, a KUnit case also matches its parameters,
# and a note in parentheses is dropped.
named_test_failed() {
	local re

	re=$(sed -n 's/^# KILLED-BY: //p' "$1" |
	     sed -e 's/ ([^)]*)//g' -e 's/[.]/\\./g' -e 's/\*/[^ .]*/g' \
		 -e 's/, /|/g')
	[ -n "$re" ] && grep -aqE "^failed: [^ ]+ ($re)(\.| |\$)" "$2"
}

for patch in "$WB_DIR"/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	if [ -n "${MUTANTS:-}" ]; then
		case " $MUTANTS " in *" ${name%%-*} "*) ;; *) continue ;; esac
	fi
	start=$SECONDS
	KPR_KEEP_GRAFT= "$WB_DIR/graft.sh"
	patch -d "$SRC" -p1 -s -f --fuzz=0 --no-backup-if-mismatch <"$patch" ||
		die "mutant $name does not apply"
	current=$patch
	verdict=
	if ! "$WB_DIR/kernel.sh" >"$out/$name-build.log" 2>&1; then
		verdict="SURVIVED: it does not build ($out/$name-build.log)"
	fi
	for suite in "kunit vm plain" selftest; do
		[ -z "$verdict" ] || break
		# shellcheck disable=SC2086
		log=$out/$name-${suite%% *}.log
		SELFTEST_OUT=$out/selftest "$WB_DIR/${suite%% *}.sh" ${suite#"${suite%% *}"} \
			>"$log" 2>&1 && continue
		# Killed only by a test that was meant to catch it: a suite that
		# failed for another reason (a hung guest, a flaky test) says
		# nothing of the mutant.
		if named_test_failed "$patch" "$log"; then
			verdict="killed by ${suite%% *}"
		else
			say "mutant $name: ${suite%% *} failed, but not in a test that KILLED-BY names ($log)"
		fi
	done
	if [[ $verdict == killed* ]]; then
		killed=$((killed + 1))
	else
		survived=$((survived + 1))
		[ -n "$verdict" ] || verdict="SURVIVED (expected to be killed by $(sed -n 's/^# KILLED-BY: //p' "$patch"))"
	fi
	patch -d "$SRC" -p1 -R -s -f --fuzz=0 --no-backup-if-mismatch <"$patch" ||
		die "mutant $name does not come off $SRC"
	current=
	echo "mutant $name: $verdict ($((SECONDS - start)) s)"
done
echo "mutants: $killed killed, $survived survived"
[ "$survived" = 0 ] && [ "$killed" != 0 ]
