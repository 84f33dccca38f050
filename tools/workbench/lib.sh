# SPDX-License-Identifier: GPL-2.0
# Shared settings of the workbench scripts; sourced, never run.
#
# KVER picks the kernel series (7.2 or 6.12); everything built lands
# under build/, which git ignores.

set -euo pipefail

WB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$WB_DIR/../.." && pwd)
KVER=${KVER:-7.2}
BUILD=${BUILD:-$TOP/build}
SRC=$BUILD/linux-$KVER
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# ccache pays only when it hits: compiling fs/ext4 through an empty cache
# took 1.4-1.5x as long as gcc alone, and one cold make check compiles
# almost nothing twice. So the compilers go through ccache only where a
# cache already holds something (a developer's machine) or KPR_CCACHE=1
# asks for it; a fresh machine, as CI's, compiles with gcc alone. The
# choice is made once per make check and inherited by every script.
if [ -z "${KPR_CCACHE:-}" ]; then
	KPR_CCACHE=0
	[ -n "$(ls -A "$CCACHE_DIR" 2>/dev/null)" ] && KPR_CCACHE=1
fi
export KPR_CCACHE
CCACHE=
[ "$KPR_CCACHE" = 1 ] && CCACHE="ccache "

say() { printf '%s\n' "$*" >&2; }

# need_packages WHO PACKAGE...: install with apt-get the Debian packages
# that are missing, for the target WHO; a fresh machine has none of them.
need_packages() {
	local who=$1 p missing=()

	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	say "$who: installing ${missing[*]}"
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

# The name of a stage in its summary line: "selftest", or "selftest-6.12"
# for another series than the default.
stage_name() { echo "$1${KVER_TAG:+-$KVER_TAG}"; }
[ "$KVER" = 7.2 ] || KVER_TAG=$KVER
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The x86_64 kernel of a flavour (plain or debug) and its build folder.
kernel_out() { echo "$BUILD/kernel-$KVER${1:+-$1}"; }
kernel_image() { echo "$(kernel_out "${1:-}")/arch/x86/boot/bzImage"; }

# make in the kernel source, through ccache if in use (above), quiet
# unless V=1; for the ARCH
# and CROSS_COMPILE of the environment, which the kernel's Makefile reads.
kmake() {
	make -C "$SRC" -j"$JOBS" CC="${CCACHE}${CROSS_COMPILE:-}gcc" \
		HOSTCC="${CCACHE}gcc" ${V:+V=$V} "$@"
}

# mmss SECONDS: "M:SS".
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# progress LABEL OUT: read kbuild's output on standard input and show,
# on standard error, how far the build of OUT is: the objects compiled of
# the total a build from scratch compiles (OUT/.kpr-objects, written at
# the end of each build, else config/objects), and the time elapsed. On a
# terminal that is one line updated in place; elsewhere (CI logs) a line
# every KPR_PROGRESS_EVERY seconds (60). The last line says what the
# build did.
progress() {
	local label=$1 out=$2 n=0 start=$SECONDS every=${KPR_PROGRESS_EVERY:-60}
	local next=$((SECONDS + ${KPR_PROGRESS_EVERY:-60}))
	local shown=-1 tty= total line rc

	[ -t 2 ] && tty=1
	total=$(cat "$out/.kpr-objects" 2>/dev/null) ||
		total=$(awk -v k="${out##*/}" '$1 == k { print $2 }' \
			"$WB_DIR/config/objects")
	while :; do
		if IFS= read -r -t 1 line; then
			case $line in
			"  CC "* | "  AS "*) n=$((n + 1)) ;;
			esac
		else
			rc=$?
			[ "$rc" -gt 128 ] || break
		fi
		if [ -n "$tty" ] && [ "$SECONDS" != "$shown" ]; then
			shown=$SECONDS
			printf '\r\033[K%s: %d of ~%s objects, %s' "$label" "$n" \
				"${total:-?}" "$(mmss $((SECONDS - start)))" >&2
		elif [ -z "$tty" ] && [ "$SECONDS" -ge "$next" ]; then
			next=$((SECONDS + every))
			say "$label: $n of ~${total:-?} objects, $(mmss $((SECONDS - start))) elapsed"
		fi
	done
	[ -z "$tty" ] || printf '\r\033[K' >&2
	say "$label: $n objects compiled in $(mmss $((SECONDS - start)))"
}

# ticker LABEL LIMIT: until killed, say how long a step that may take
# up to LIMIT seconds has run: on a terminal one line updated every
# second, elsewhere a line every KPR_PROGRESS_EVERY seconds (60). Run it
# in the background.
ticker() {
	local label=$1 limit=$2 start=$SECONDS

	if [ -t 2 ]; then
		trap 'printf "\r\033[K" >&2; exit 0' TERM
		while sleep 1; do
			printf '\r\033[K%s: %s of at most %s' "$label" \
				"$(mmss $((SECONDS - start)))" "$(mmss "$limit")" >&2
		done
	else
		while sleep "${KPR_PROGRESS_EVERY:-60}"; do
			say "$label: $(mmss $((SECONDS - start))) of at most $(mmss "$limit")"
		done
	fi
}

# kbuild LABEL OUT TARGET...: make TARGET in OUT with progress(); the
# compiler's warnings and errors still reach standard error.
kbuild() {
	local label=$1 out=$2 rc

	shift 2
	# make's status, whether or not the caller set pipefail.
	kmake O="$out" "$@" | progress "$label" "$out"
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || return "$rc"
	find "$out" -name '.*.o.cmd' -print0 |
		xargs -0 grep -l -m1 -E '^savedcmd_.*:= (ccache )?[^ ]*gcc' |
		wc -l >"$out/.kpr-objects.new"
	mv "$out/.kpr-objects.new" "$out/.kpr-objects"
}

# kconfig OUT FRAGMENT...: tinyconfig plus the fragments in OUT, configured
# again only when a fragment changed. merge_config.sh only warns, so an
# option whose last value in the fragments did not stick (a dependency
# missing) fails here, with set -e or without.
kconfig() {
	local out=$1 stamp=$1/.fragments line
	shift
	mkdir -p "$out"
	[ -f "$out/.config" ] && cat "$@" | cmp -s - "$stamp" && return 0
	say "kconfig: configuring $out"
	rm -f "$stamp"
	kmake O="$out" -s tinyconfig >/dev/null &&
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "$@" >/dev/null) &&
	kmake O="$out" -s olddefconfig >/dev/null || return 1
	while IFS= read -r line; do
		case $line in
		*=n) ! grep -q "^${line%=n}=" "$out/.config" || {
			say "error: ${line%=n} still set in $out/.config"
			return 1; } ;;
		*)   grep -qxF "$line" "$out/.config" || {
			say "error: $line did not stick in $out/.config"
			return 1; } ;;
		esac
	done < <(grep -h '^CONFIG_' "$@" | tac | sort -s -u -t= -k1,1)
	cat "$@" >"$stamp"
}

# The LSMs that the distribution-shaped kernel brings up with no lsm=, but
# kportreserve: CONFIG_LSM of distro.config without SELinux, which gives
# way to AppArmor before it (both want the exclusive blobs).
distro_lsms() {
	sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$WB_DIR/config/distro.config" |
		tr , '\n' | grep -vx 'selinux\|kportreserve' | paste -sd,
}

# tapcheck ARGS...: the "PASSED FAILED SKIPPED" of tapcheck.py ARGS, or one
# failure when tapcheck.py could not judge (a list missing, a bad line).
tapcheck() {
	local counts

	if counts=$("$WB_DIR/tapcheck.py" "$@"); then
		tail -n 1 <<<"$counts"
	else
		say "tapcheck.py could not judge: $*"
		echo "0 1 0"
	fi
}
