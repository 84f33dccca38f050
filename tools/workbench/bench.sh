#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what bind() costs with kportreserve, measured in the guest
# with the guest clock driven by instruction count (-icount shift=0, one
# nanosecond a guest instruction, one CPU), so the figures repeat.
#
# Four boots of the same kernel, the distribution-shaped test kernel:
# "floor" with the distribution's LSMs in lsm= but not kportreserve
# (Landlock's TCP bind restriction is measured there too, and its UDP one
# where Landlock has it: ABI 10, Linux 7.2), "kpr" with the
# same list and kportreserve last, under an empty policy and policies of
# 1, 1,000 and 65,536 rules; that boot also loads policies to time them
# and runs the KUnit microbenchmark of the lookup against the 2013 RFC's
# list. kportreserve puts 32 bytes in the LSM blob of every task and has a
# task_prctl hook, so both boots time fork()+exit+wait, prctl(),
# open()+close() and getppid(), a system call no hook sees (kpr under an
# empty policy and under 1,000 rules), and so do "bare-floor" (lsm=yama:
# no LSM with a task blob) and "bare-kpr" (lsm=yama,kportreserve), where
# those 32 bytes are an allocation a fork().
#
# Then the kernel's own choice of a port under pressure (Cloudflare's
# "connect() - why are you so slow?"): connect() to one destination and
# bind() to port 0 with 0%, 90% and 98% of ip_local_port_range taken, in
# three boots of kernels that also have the BPF LSM (kernel.sh bench),
# with the distribution's LSMs and bpf in lsm=: "ab-floor", the same
# Debian source built without the series (same configuration less
# kportreserve), also with 1,000 ports of the range in
# ip_local_reserved_ports; "ab-off", the series without kportreserve in
# lsm=; "ab-kpr", with it, under an empty policy and policies of 1,000
# ports outside the range and 1,000 inside. With
# BENCH_HOOK_KERNEL=BZIMAGE, the same two boots of another build of the
# series too ("ab-hook-off", "ab-hook-kpr"), e.g. of an older design,
# with the distribution's LSMs as that kernel has them.
#
# Writes build/bench-$KVER/bench.txt (the tables and the issue's targets,
# met or missed), bench.rst (the tables for the documentation), bench.png
# (the plot of the bind() ratios) and the raw results: one console log a
# boot, floor.log, kpr.log, bare-floor.log and bare-kpr.log.
# BENCH_ITERS sets the rounds of each loop (20000).
. "$(dirname "$0")/lib.sh"

iters=${BENCH_ITERS:-20000}
out=$BUILD/bench-$KVER
pol=$out/policies
mkdir -p "$out" "$pol"

dpkg-query -W -f='${Status}' gnuplot-nox 2>/dev/null | grep -q 'ok installed' || {
	say "bench: installing gnuplot-nox"
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends gnuplot-nox >/dev/null
}

# The plain test kernel, unless BENCH_BOOTS names allocator boots alone
# (ab-*), which boot the bench kernels.
need_plain=yes
if [ -n "${BENCH_BOOTS:-}" ]; then
	need_plain=
	for b in $BENCH_BOOTS; do
		case $b in ab-*) ;; *) need_plain=yes ;; esac
	done
fi
if [ -n "$need_plain" ]; then
	kernel=$("$WB_DIR/kernel.sh")
else
	"$WB_DIR/graft.sh"
	kernel=
fi
kout=$(kernel_out)
kmake O="$kout" -s headers >&2
${CCACHE}gcc -static -O2 -Wall -Wextra -isystem "$kout/usr/include" \
	-o "$out/kpr-bench" "$WB_DIR/bench/kpr-bench.c" ||
	die "bench: kpr-bench does not build"

# Policies of N rules: port 20000 for kpr-bench (allow-N) or for another
# program (deny-N), and N-1 more rules on ports from 20001 on, TCP and UDP
# in turn, for 64 programs. Port 10000 has no rule. range64: every TCP
# port for 64 programs.
for n in 1 1000 65536; do
	for kind in allow deny; do
		awk -v n="$n" -v kind="$kind" 'BEGIN {
			print "20000 " (kind == "allow" ? "/bin/kpr-bench" : "/usr/sbin/kpr-other")
			for (k = 0; k < n - 1; k++)
				printf "%d/%s /usr/lib/kpr-bench/prog-%d\n",
					20001 + int(k / 2), k % 2 ? "udp" : "tcp", k % 64
		}' >"$pol/$kind-$n.policy"
	done
done
awk 'BEGIN { for (k = 0; k < 64; k++)
	printf "1-65535/tcp /usr/lib/kpr-bench/prog-%d\n", k }' >"$pol/range64.policy"
# 1,000 TCP ports outside ip_local_port_range (32768-60999) and inside it.
echo "10000-10999/tcp /usr/sbin/kpr-other" >"$pol/out-1000.policy"
echo "40000-40999/tcp /usr/sbin/kpr-other" >"$pol/in-1000.policy"

cat >"$out/run.sh" <<EOF
B=/bin/kpr-bench
N=$iters
P=/sys/kernel/security/kportreserve/policy
EOF
cat >>"$out/run.sh" <<'EOF'
# Every family and protocol: bind_all LABEL PORT
bind_all() {
	for f in 4 6; do
		for p in tcp udp; do
			$B bind "$1" $f $p "$2" $N || echo "KPR-BENCH-FAILED $1 v$f $p"
		done
	done
}
# What no kportreserve bind hook sees: calls LABEL. A fork() costs about
# 100 times an open(): a twentieth of the rounds.
calls() {
	$B open "$1" /bin/busybox $N || echo "KPR-BENCH-FAILED open $1"
	$B syscall "$1" $N || echo "KPR-BENCH-FAILED syscall $1"
	$B fork "$1" $((N / 20)) || echo "KPR-BENCH-FAILED fork $1"
	$B prctl "$1" $N || echo "KPR-BENCH-FAILED prctl $1"
}
# The kernel's choice under pressure: autobind LABEL [FIRST LAST], the
# ports the kernel must never pick. A quarter of the rounds for connect(),
# a handshake whose candidate ports come in turn from one offset a
# destination, so its average settles fast; bind() to port 0 starts each
# call at a random port, and needs all the rounds.
autobind() {
	for occ in 0 90 98; do
		$B autobind "$1" connect $occ $((N / 4)) $2 $3 ||
			echo "KPR-BENCH-FAILED autobind $1 connect $occ"
		$B autobind "$1" bind0 $occ $N $2 $3 ||
			echo "KPR-BENCH-FAILED autobind $1 bind0 $occ"
	done
}
RESERVED_PORTS=/proc/sys/net/ipv4/ip_local_reserved_ports
# The same with 1,000 ports of the range in ip_local_reserved_ports.
autobind_sysctl() {
	echo 40000-40999 >$RESERVED_PORTS
	autobind "$1" 40000 40999
	echo >$RESERVED_PORTS
}
# Which boot this is: kprbench=floor, kpr, bare-floor, bare-kpr or ab-*.
boot=
for w in $(cat /proc/cmdline); do
	case $w in kprbench=*) boot=${w#kprbench=} ;; esac
done
# The LSMs that came up, for bench.sh to check and the report to name.
echo "KPR-BENCH lsm $(cat /sys/kernel/security/lsm)"
case $boot in
floor)
	calls floor
	bind_all floor 10000
	bind_all floor-reserved 20000
	# Landlock lets kpr-bench bind N ports of one protocol: 20000 and the
	# lowest others but 20001. UDP ports are apart from TCP's: UDP takes
	# the same numbers, those of floor-reserved and of the kpr boot's
	# reserved port, and the same rules. Where Landlock lacks the UDP bind
	# right (ABI < 10), kpr-bench says so and measures nothing.
	for n in 1 1000 65534; do
		for f in 4 6; do
			for p in tcp udp; do
				$B landlock $n $f 20000 20001 $N $p ||
					echo "KPR-BENCH-FAILED landlock $n v$f $p"
			done
		done
	done
	;;
kpr)
	# open() and getppid() first, as in the other boots, under an empty
	# policy and under 1,000 rules: loading a policy must not change them.
	: >$P
	calls kpr-empty
	cat /bench/allow-1000.policy >$P || echo "KPR-BENCH-FAILED load 1000"
	calls kpr-1000
	: >$P
	bind_all empty 10000
	for n in 1 1000 65536; do
		cat /bench/allow-$n.policy >$P || echo "KPR-BENCH-FAILED load $n"
		bind_all norule-$n 10000
		bind_all allowed-$n 20000
		cat /bench/deny-$n.policy >$P || echo "KPR-BENCH-FAILED load $n"
		bind_all denied-$n 20000
	done
	for n in 1 1000 65536; do
		$B load rules-$n /bench/allow-$n.policy
	done
	$B load range64 /bench/range64.policy
	dmesg | grep -o 'KPR-MICRO.*'
	grep -q 'not ok' /sys/kernel/debug/kunit/*/results 2>/dev/null &&
		echo "KPR-BENCH-FAILED microbenchmark"
	;;
bare-floor)
	calls bare-floor
	;;
bare-kpr)
	: >$P
	calls bare-kpr
	;;
ab-floor)
	autobind floor
	autobind_sysctl floor-sysctl-in
	;;
ab-off | ab-hook-off)
	l=${boot#ab-}
	autobind $l
	autobind_sysctl $l-sysctl-in
	;;
ab-kpr | ab-hook-kpr)
	l=${boot#ab-}
	: >$P
	autobind $l-empty
	cat /bench/out-1000.policy >$P || echo "KPR-BENCH-FAILED load out-1000"
	autobind $l-out1000
	cat /bench/in-1000.policy >$P || echo "KPR-BENCH-FAILED load in-1000"
	autobind $l-in1000 40000 40999
	: >$P
	;;
*)
	echo "KPR-BENCH-FAILED no kprbench= boot named '$boot'"
	;;
esac
echo KPR-BENCH-END
EOF
files=("$out/kpr-bench:bin/kpr-bench")
for f in "$pol"/*.policy; do files+=("$f:bench/${f##*/}"); done
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh" "${files[@]}"

# The LSMs that the distribution kernel's CONFIG_LSM brings up with no
# lsm= (SELinux stays off behind AppArmor: both are exclusive). Of them,
# AppArmor and TOMOYO have a task blob. Lockdown is an early LSM here
# (SECURITY_LOCKDOWN_LSM_EARLY): lsm= does not leave it out, in the bare
# boots either, and it has no blob.
distro=$(distro_lsms)

# lsm_check BOOT LOG: whether BOOT came up with the LSMs its comparison
# needs, by the list of /sys/kernel/security/lsm that run.sh printed: those
# of its lsm= (kportreserve in the kpr boots alone), and no other of those
# with a task or a file blob.
lsm_check() {
	local boot=$1 active name want

	active=$(grep -ao 'KPR-BENCH lsm [a-z,]*' "$2" | head -n 1) || true
	active=,${active#KPR-BENCH lsm },
	case $boot in
	bare-*) want=yama ;;
	ab-hook-*) want=$distro ;;
	ab-*) want=$distro,bpf ;;
	*) want=$distro ;;
	esac
	case $boot in
	*kpr) want+=,kportreserve ;;
	esac
	for name in ${want//,/ }; do
		[[ $active == *,$name,* ]] ||
			{ say "bench: $boot: $name is not active"; return 1; }
	done
	for name in kportreserve landlock apparmor selinux smack tomoyo bpf; do
		[[ ,$want, == *,$name,* || $active != *,$name,* ]] ||
			{ say "bench: $boot: $name is active"; return 1; }
	done
}

# noseries_kernel: the image of the same Debian source built without the
# series, with the bench kernel's configuration less kportreserve. The
# source is patches.sh's pristine tree where it exists, else an unpacked
# copy of its own; nothing of ours is grafted onto either.
noseries_kernel() {
	local src=$BUILD/pristine-$KVER nout=$BUILD/kernel-$KVER-noseries

	if [ ! -f "$src/Makefile" ]; then
		src=$BUILD/linux-$KVER-noseries
		if [ ! -f "$src/Makefile" ]; then
			say "bench: unpacking the source without the series"
			rm -rf "$src" "$BUILD/linux-source-$KVER"
			tar -C "$BUILD" -xf "/usr/src/linux-source-$KVER.tar.xz"
			mv "$BUILD/linux-source-$KVER" "$src"
		fi
	fi
	[ ! -e "$src/security/kportreserve" ] ||
		die "bench: $src carries kportreserve"
	mkdir -p "$nout"
	sed -e '/KPORTRESERVE/d' \
		-e "s/^CONFIG_LSM=.*/CONFIG_LSM=\"${distro_all//,kportreserve/}\"/" \
		"$bout/.config" >"$nout/.config.want"
	if ! cmp -s "$nout/.config.want" "$nout/.config.from"; then
		cp "$nout/.config.want" "$nout/.config"
		make -C "$src" O="$nout" -s olddefconfig >&2
		cp "$nout/.config.want" "$nout/.config.from"
	fi
	say "bench: building the kernel without the series ($nout)"
	make -C "$src" O="$nout" -j"$JOBS" CC="${CCACHE}gcc" \
		HOSTCC="${CCACHE}gcc" -s bzImage >&2
	echo "$nout/arch/x86/boot/bzImage"
}
bench_kernel=$("$WB_DIR/kernel.sh" bench)
bout=$(kernel_out bench)
distro_all=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$bout/.config")
noseries=$(noseries_kernel)
[ -f "$noseries" ] || die "bench: no kernel without the series"
grep -qx 'CONFIG_BPF_LSM=y' "$bout/.config" ||
	die "bench: the bench kernel has no BPF LSM ($bout/.config)"

boots=(floor kpr bare-floor bare-kpr ab-floor ab-off ab-kpr)
[ -z "${BENCH_HOOK_KERNEL:-}" ] || boots+=(ab-hook-off ab-hook-kpr)
# BENCH_BOOTS="ab-floor ab-off ..." boots those alone; the report then
# reads the logs the others left.
[ -z "${BENCH_BOOTS:-}" ] || read -r -a boots <<<"$BENCH_BOOTS"
export VM_SMP=1 QEMU_EXTRA="-icount shift=0,align=off,sleep=off"
for boot in "${boots[@]}"; do
	image=$kernel
	case $boot in
	floor) lsm=$distro ;;
	kpr) lsm=$distro,kportreserve ;;
	ab-off) lsm=$distro,bpf image=$bench_kernel ;;
	ab-kpr) lsm=$distro,bpf,kportreserve image=$bench_kernel ;;
	bare-floor) lsm=yama ;;
	bare-kpr) lsm=yama,kportreserve ;;
	ab-floor) lsm=$distro,bpf image=$noseries ;;
	ab-hook-off) lsm=$distro image=$BENCH_HOOK_KERNEL ;;
	ab-hook-kpr) lsm=$distro,kportreserve image=$BENCH_HOOK_KERNEL ;;
	esac
	args=("lsm=$lsm" "kprbench=$boot" rcutree.use_softirq=0)
	if [ $boot = kpr ]; then
		args+=(kunit.enable=1 kunit.filter_glob=kportreserve-bench)
	fi
	say "bench: booting $boot, lsm=$lsm ($iters rounds a loop)"
	start=$SECONDS
	"$WB_DIR/vm.sh" "$image" "$out/initramfs.cpio.gz" "$out/$boot.log" \
		"${VM_TIMEOUT:-1800}" "${args[@]}" ||
		die "bench: the $boot boot failed"
	say "bench: $boot took $((SECONDS - start)) s"
	grep -aq KPR-BENCH-END "$out/$boot.log" ||
		die "bench: the $boot boot did not finish (see $out/$boot.log)"
	! grep -a KPR-BENCH-FAILED "$out/$boot.log" >&2 ||
		die "bench: a measurement failed (see $out/$boot.log)"
	lsm_check $boot "$out/$boot.log" ||
		die "bench: the $boot boot has the wrong LSMs (see $out/$boot.log)"
done

python3 "$WB_DIR/bench/report.py" "$out" "$iters"
gnuplot "$out/bench.gp" || die "bench: gnuplot failed"
cat "$out/bench.txt"
say "bench: table $out/bench.txt, plot $out/bench.png"
