#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build the x86_64 test kernel: kernel.sh [debug]
# Prints the path of the bootable image on standard output.
. "$(dirname "$0")/lib.sh"

flavour=${1:-}
out=$(kernel_out "$flavour")
fragments=("$WB_DIR/config/kernel.config")
[ -n "$flavour" ] && fragments+=("$WB_DIR/config/$flavour.config")
mkdir -p "$out"
# The boot policy lives in this tree: its path is known only here.
echo "CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY=\"$WB_DIR/vm/boot.policy\"" \
	>"$out/boot-policy.config"
fragments+=("$out/boot-policy.config")

"$WB_DIR/graft.sh"
mkdir -p "$out"

# Configure again only when a fragment changed.
stamp=$out/.fragments
if [ ! -f "$out/.config" ] || ! cat "${fragments[@]}" | cmp -s - "$stamp"; then
	say "kernel: configuring $out"
	kmake O="$out" -s tinyconfig >/dev/null
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$out" \
		"$out/.config" "${fragments[@]}" >/dev/null)
	kmake O="$out" -s olddefconfig >/dev/null
	# merge_config.sh only warns; a lost option must stop the build.
	for f in "${fragments[@]}"; do
		grep -h '^CONFIG_' "$f" | while IFS= read -r line; do
			case $line in
			*=n) opt=${line%=n}
			     ! grep -q "^$opt=" "$out/.config" ||
				die "$opt still set in $out/.config" ;;
			*)   grep -qxF "$line" "$out/.config" ||
				die "$line did not stick in $out/.config" ;;
			esac
		done
	done
	cat "${fragments[@]}" >"$stamp"
fi

say "kernel: building $out"
kmake O="$out" -s bzImage >&2
kernel_image "$flavour"
