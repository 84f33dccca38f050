#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the console logs of make bench into its table, plot and verdicts.

    report.py OUT ITERS

Reads OUT/floor.log and OUT/kpr.log, writes OUT/bench.txt, OUT/bench.rst,
OUT/bench.dat and OUT/bench.gp (gnuplot draws OUT/bench.png from it).
"""

import re
import sys

COLUMNS = [("4", "tcp"), ("4", "udp"), ("6", "tcp"), ("6", "udp")]
SIZES = ["1", "1000", "65536"]
LANDLOCK_SIZES = ["1", "1000", "65534"]

BIND = re.compile(r"KPR-BENCH bind (\S+) v(\d) (\w+) result=(\S+) bind_ns=([\d.]+)")
LOAD = re.compile(r"KPR-BENCH load (\S+) load_ns=(\d+) kernel_kib=(-?\d+) bytes=(\d+)")
MICRO = re.compile(r"KPR-MICRO entries=(\d+) design=(\S+) verdict=(\S+) ns=([\d.]+)")


def rules(n):
    return "1 rule" if n == "1" else f"{int(n):,} rules"


def parse(path):
    binds, loads, micro = {}, {}, {}
    with open(path, errors="replace") as log:
        for line in log:
            m = BIND.search(line)
            if m:
                label, fam, proto, result, ns = m.groups()
                binds[(label, fam, proto)] = (float(ns), result)
            m = LOAD.search(line)
            if m:
                label, ns, kib, size = m.groups()
                loads[label] = (int(ns), int(kib), int(size))
            m = MICRO.search(line)
            if m:
                n, design, verdict, ns = m.groups()
                micro[(n, design, verdict)] = float(ns)
    return binds, loads, micro


def main():
    out, iters = sys.argv[1], sys.argv[2]
    floor, _, _ = parse(f"{out}/floor.log")
    kpr, loads, micro = parse(f"{out}/kpr.log")
    binds = {**floor, **kpr}

    # (row title, label, floor label it is compared with, expected result)
    rows = [("floor: kportreserve not in lsm=", "floor", "floor", "0"),
            ("empty policy", "empty", "floor", "0")]
    # (title, label prefix, sizes, floor label, expected result)
    groups = [("no rule", "norule", SIZES, "floor", "0"),
              ("reserved, allowed", "allowed", SIZES, "floor-reserved", "0"),
              ("reserved, denied", "denied", SIZES, "floor-reserved",
               "EADDRINUSE"),
              ("Landlock, allowed", "landlock-allowed", LANDLOCK_SIZES,
               "floor-reserved", "0"),
              ("Landlock, denied", "landlock-denied", LANDLOCK_SIZES,
               "floor-reserved", "EACCES")]
    for title, prefix, sizes, base, expect in groups:
        for n in sizes:
            rows.append((f"{title}, {rules(n)}", f"{prefix}-{n}", base, expect))

    problems = []

    def cost(label, fam, proto, expect=None):
        got = binds.get((label, fam, proto))
        if got is None:
            return None
        if expect and got[1] != expect:
            problems.append(f"{label} v{fam} {proto}: bind() gave {got[1]}, "
                            f"expected {expect}")
        return got[0]

    def ratio(label, base, fam, proto, expect=None):
        c, b = cost(label, fam, proto, expect), cost(base, fam, proto)
        return None if c is None or not b else c / b

    table, dat = [], []
    head = ["bind() per call"] + [f"IPv{f} {p.upper()}" for f, p in COLUMNS]
    for title, label, base, expect in rows:
        cells, ratios = [title], []
        for fam, proto in COLUMNS:
            c = cost(label, fam, proto, expect)
            r = ratio(label, base, fam, proto)
            if c is None:
                cells.append("-")
            else:
                cells.append(f"{c:7.0f} ns {r:5.3f}x")
            ratios.append(r)
        table.append(cells)
        if label != "floor":
            dat.append((title, ratios))

    # The targets, each checked on every column it applies to.
    verdicts = []

    def target(what, values, limit):
        values = [v for v in values if v is not None]
        if not values:
            verdicts.append(f"NOT MEASURED  {what}")
            return
        worst = max(values)
        verdicts.append(f"{'met   ' if worst <= limit else 'MISSED'}  {what}: "
                        f"worst {worst:.3f} (target <= {limit})")

    cols = COLUMNS
    for proto in ("tcp", "udp"):
        pc = [(f, p) for f, p in cols if p == proto]
        target(f"no rule, {proto.upper()}, ratio to the floor",
               [ratio(f"norule-{n}", "floor", f, p) for n in SIZES for f, p in pc]
               + [ratio("empty", "floor", f, p) for f, p in pc], 1.02)
        target(f"reserved and allowed, {proto.upper()}, ratio to the floor",
               [ratio(f"allowed-{n}", "floor-reserved", f, p)
                for n in SIZES for f, p in pc], 1.5)
    for kind in ("norule", "allowed", "denied"):
        target(f"{kind}: 65,536 rules against 1 rule",
               [abs(ratio(f"{kind}-65536", f"{kind}-1", f, p) - 1) + 1
                for f, p in cols
                if ratio(f"{kind}-65536", f"{kind}-1", f, p) is not None],
               1.02)
    if "rules-65536" in loads:
        ns = loads["rules-65536"][0]
        verdicts.append(f"{'met   ' if ns < 1e9 else 'MISSED'}  65,536 rules "
                        f"load in {ns / 1e6:.1f} ms of guest time (target < 1000)")
    if "range64" in loads:
        pairs = 65535 * 64
        per = loads["range64"][1] * 1024 / pairs
        verdicts.append(f"{'met   ' if per < 64 else 'MISSED'}  1-65535/tcp for "
                        f"64 programs: {per:.3f} bytes per (port, program) "
                        f"pair (target < 64)")

    load_rows = [["policy", "bytes of text", "load time", "kernel memory"]]
    for label, title in (("rules-1", "1 rule"), ("rules-1000", "1,000 rules"),
                         ("rules-65536", "65,536 rules"),
                         ("range64", "1-65535/tcp, 64 programs")):
        if label in loads:
            ns, kib, size = loads[label]
            load_rows.append([title, str(size), f"{ns / 1e6:.2f} ms",
                              f"{kib} KiB"])

    micro_rows = [["lookup alone", "kportreserve", "2013 RFC list"]]
    for n in SIZES:
        for verdict in ("allowed", "denied"):
            ours = micro.get((n, "kportreserve", verdict))
            old = micro.get((n, "rfc2013", verdict))
            if ours is None or old is None:
                continue
            micro_rows.append([f"{int(n):,} entries, {verdict}", f"{ours:.1f} ns",
                               f"{old:.1f} ns"])

    def text_table(rows):
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                 for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def rst_table(rows):
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        rule = "  ".join("=" * w for w in widths)
        body = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                for r in rows]
        return "\n".join([rule, body[0], rule] + body[1:] + [rule])

    intro = (f"make bench: ns of guest time per bind() (socket+bind+close "
             f"minus socket+close, {iters} rounds), QEMU -icount shift=0 "
             f"(1 ns = 1 instruction), and the ratio to the same kernel "
             f"without kportreserve in lsm=.")
    with open(f"{out}/bench.txt", "w") as f:
        f.write(intro + "\n\n" + text_table([head] + table) + "\n\n")
        f.write(text_table(load_rows) + "\n\n")
        if len(micro_rows) > 1:
            f.write(text_table(micro_rows) + "\n\n")
        f.write("\n".join(verdicts + problems) + "\n")
    with open(f"{out}/bench.rst", "w") as f:
        f.write(rst_table([head] + table) + "\n\n" + rst_table(load_rows) +
                "\n\n")
        if len(micro_rows) > 1:
            f.write(rst_table(micro_rows) + "\n")
    with open(f"{out}/bench.dat", "w") as f:
        for title, ratios in dat:
            f.write('"%s" %s\n' % (title, " ".join(
                "NaN" if r is None else f"{r:.4f}" for r in ratios)))
    with open(f"{out}/bench.gp", "w") as f:
        f.write(f"""set terminal pngcairo size 1400,700 font ",10"
set output "{out}/bench.png"
set title "bind() cost relative to the same kernel without kportreserve (QEMU -icount)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "ratio to the floor (log scale)"
set logscale y 2
set yrange [0.25:32]
set grid ytics
set bmargin 9
set rmargin 12
set xtics rotate by -35 scale 0
set key top left
set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb "red"
set arrow from graph 0, first 1.02 to graph 1, first 1.02 nohead dt 3 lc rgb "gray"
plot "{out}/bench.dat" using 2:xtic(1) title "IPv4 TCP", \\
     "" using 3 title "IPv4 UDP", "" using 4 title "IPv6 TCP", \\
     "" using 5 title "IPv6 UDP"
""")
    for p in problems:
        print("bench: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
