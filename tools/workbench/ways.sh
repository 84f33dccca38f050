#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ways around a reservation that a kernel source has, found by
# coccinelle rather than by reading: ways.sh [SOURCE]
#
# audit/ways-in.cocci finds every call site that binds or creates a
# socket for someone (kernel_bind(), kernel_listen(), sock_create_kern(),
# the UDP tunnel socket helpers), gives a socket the kernel made a file
# (sock_alloc_file(), writes of sock->file and of a file's private_data,
# sk_kern_sock), or runs with borrowed credentials (override_creds() and
# its guards), in the grafted source of KVER or in SOURCE. Prints one
# "FILE FUNCTION WHAT" line per site, sorted; audit.sh judges them
# against the list audit/ways-in.
#
# A file that names one of the calls but where spatch found no site (it
# could not parse the function, or a macro hid the call) is printed as
# "FILE - unparsed", which no list entry matches: a call the audit cannot
# see fails it rather than pass unseen.
. "$(dirname "$0")/lib.sh"

src=${1:-$SRC}
need_packages ways coccinelle
cd "$src"
calls='kernel_bind|kernel_listen|sock_create_kern|udp_sock_create[46]?|sock_alloc_file|override_creds'
skip='^(tools|Documentation|scripts|samples|security/kportreserve)/'
sites=$(mktemp)
each=$(mktemp -d)
trap 'rm -rf "$sites" "$each"' EXIT

# Only the files that name what the script looks for; spatch parses each
# with the headers it includes, for the types of sock->file.
{
	grep -rlE --include='*.[ch]' "($calls)\(|sk_kern_sock|[(,] *override_creds *," \
		-- */ || true
	grep -rlE --include='*.[ch]' -e '->file = ' -e '->private_data = ' \
		-- */ | xargs -r grep -lE 'struct socket\b' || true
} | grep -vE "$skip" | sort -u |
	# One output file a source file: spatch's Python prints in pieces,
	# and the pieces of parallel runs on one pipe could interleave.
	xargs -r -P "$JOBS" -n 1 sh -c 'exec spatch --very-quiet -D report \
		--sp-file "$0" --all-includes \
		-I include -I arch/x86/include -I include/uapi \
		-I arch/x86/include/uapi "$2" \
		>"$1/$(printf %s "$2" | tr / _)" 2>/dev/null' \
		"$WB_DIR/audit/ways-in.cocci" "$each"
{ cat "$each"/* 2>/dev/null || :; } | sed -n 's/^SITE //p' >"$sites"

# The files of .c calls, not definitions, declarations or comments, that
# spatch reported nothing in.
grep -rnE --include='*.c' "[^a-z0-9_]($calls)\(" -- */ |
	grep -vE "$skip" |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/[*/]|(static |extern )?(const )?(int|void|struct [a-z_]+ \*)[a-z0-9_ *]*\()' |
	cut -d: -f1 | sort -u | while read -r f; do
		grep -q "^$f " "$sites" || echo "$f - unparsed"
	done >>"$sites"
LC_ALL=C sort -u "$sites"
