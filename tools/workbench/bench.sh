#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what bind() costs with kportreserve, measured in the guest
# with the guest clock driven by instruction count (-icount shift=0, one
# nanosecond a guest instruction, one CPU), so the figures repeat.
#
# Two boots of the same kernel: "floor" with kportreserve left out of lsm=
# (and Landlock's TCP bind restriction measured there), "kpr" with it in,
# under an empty policy and policies of 1, 1,000 and 65,536 rules; that
# boot also loads policies to time them and runs the KUnit
# microbenchmark of the lookup against the 2013 RFC's list.
#
# Writes build/bench-$KVER/bench.txt (the table), bench.rst (the same for
# the documentation), bench.png (the plot) and the raw results.
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

kernel=$("$WB_DIR/kernel.sh")
kout=$(kernel_out)
kmake O="$kout" -s headers >&2
ccache gcc -static -O2 -Wall -Wextra -isystem "$kout/usr/include" \
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
if grep -q kprbench=floor /proc/cmdline; then
	bind_all floor 10000
	bind_all floor-reserved 20000
	for n in 1 1000 65534; do
		for f in 4 6; do
			$B landlock $n $f 20000 20001 $N ||
				echo "KPR-BENCH-FAILED landlock $n v$f"
		done
	done
else
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
fi
echo KPR-BENCH-END
EOF
files=("$out/kpr-bench:bin/kpr-bench")
for f in "$pol"/*.policy; do files+=("$f:bench/${f##*/}"); done
"$WB_DIR/initramfs.sh" "$out/initramfs.cpio.gz" "$out/run.sh" "${files[@]}"

export VM_SMP=1 QEMU_EXTRA="-icount shift=0,align=off,sleep=off"
for boot in floor kpr; do
	args=(lsm=landlock,yama,kportreserve kunit.enable=1
	      kunit.filter_glob=kportreserve-bench rcutree.use_softirq=0)
	[ $boot = floor ] &&
		args=(lsm=landlock,yama kprbench=floor rcutree.use_softirq=0)
	say "bench: booting $boot ($iters rounds a loop)"
	start=$SECONDS
	"$WB_DIR/vm.sh" "$kernel" "$out/initramfs.cpio.gz" "$out/$boot.log" \
		"${VM_TIMEOUT:-1800}" "${args[@]}" ||
		die "bench: the $boot boot failed"
	say "bench: $boot took $((SECONDS - start)) s"
	grep -aq KPR-BENCH-END "$out/$boot.log" ||
		die "bench: the $boot boot did not finish (see $out/$boot.log)"
	! grep -a KPR-BENCH-FAILED "$out/$boot.log" >&2 ||
		die "bench: a measurement failed (see $out/$boot.log)"
done

python3 "$WB_DIR/bench/report.py" "$out" "$iters"
gnuplot "$out/bench.gp" || die "bench: gnuplot failed"
cat "$out/bench.txt"
say "bench: table $out/bench.txt, plot $out/bench.png"
