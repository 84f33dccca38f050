#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the console logs of make bench into its table, plot and verdicts.

    report.py OUT ITERS

Reads the console logs of the four boots, OUT/floor.log and OUT/kpr.log
(the distribution's LSMs without and with kportreserve), OUT/bare-floor.log
and OUT/bare-kpr.log (lsm=yama without and with it); writes OUT/bench.txt,
OUT/bench.rst, OUT/bench.dat and OUT/bench.gp (gnuplot draws OUT/bench.png
from it, the bind() ratios alone). The Landlock rows of the bind() table
come from the floor boot, TCP and UDP each under a ruleset that handles
the bind right of that protocol alone; a Landlock without the UDP one
(ABI < 10) leaves their UDP cells empty, and the text says why.

The lines of kpr-bench autobind, where a boot has them, make a table of
their own: the ns of guest time per connect() (with its accept() and
close()) and per bind() to port 0, at each occupancy of
ip_local_port_range, one column per label in the order the boots printed
them, and the ratio to the floor column (else the first).
"""

import os
import re
import sys

COLUMNS = [("4", "tcp"), ("4", "udp"), ("6", "tcp"), ("6", "udp")]
SIZES = ["1", "1000", "65536"]
LANDLOCK_SIZES = ["1", "1000", "65534"]

BIND = re.compile(r"KPR-BENCH bind (\S+) v(\d) (\w+) result=(\S+) bind_ns=([\d.]+)")
LOAD = re.compile(r"KPR-BENCH load (\S+) load_ns=(\d+) kernel_kib=(-?\d+) bytes=(\d+)")
MICRO = re.compile(r"KPR-MICRO entries=(\d+) design=(\S+) verdict=(\S+) ns=([\d.]+)")
CALL = re.compile(r"KPR-BENCH (open|syscall|fork|prctl) (\S+) call_ns=(-?[\d.]+)")
LSM = re.compile(r"KPR-BENCH lsm ([a-z,]*)")
UNSUPPORTED = re.compile(r"KPR-BENCH landlock-unsupported \d+ v\d (\w+) abi=(\d+)")
AUTOBIND = re.compile(r"KPR-BENCH autobind (\S+) (connect|bind0) (\d+) result=\S+ "
                      r"bind_ns=(-?[\d.]+)")
AUTOBIND_MODES = {"connect": "connect()", "bind0": "bind() to port 0"}

BOOTS = ["floor", "kpr", "bare-floor", "bare-kpr"]
# The boots of automatic assignment under pressure, where they ran.
AB_BOOTS = ["ab-floor", "ab-off", "ab-kpr", "ab-hook-off", "ab-hook-kpr"]
# The targets: (label, base label, the ratio's allowed distance from 1).
AB_TARGETS = [
    ("off", "floor", 0.0, "the series without kportreserve in lsm="),
    ("kpr-empty", "floor", 0.005, "kportreserve, empty policy"),
    ("kpr-out1000", "floor", 0.005,
     "kportreserve, 1,000 ports reserved outside the range"),
    ("kpr-in1000", "floor-sysctl-in", 0.005,
     "kportreserve, 1,000 ports reserved inside the range, against the "
     "same ports in ip_local_reserved_ports without the series"),
]

# The targets: at most these ratios to the floor.
NORULE_TARGET = {"tcp": 1.01, "udp": 1.05}
ALLOWED_TARGET = 1.5
OPEN_TARGET = 1.005


def rules(n):
    return "1 rule" if n == "1" else f"{int(n):,} rules"


def parse(path):
    binds, loads, micro, calls, lsms, unsupported = {}, {}, {}, {}, [], {}
    autobinds = {}
    if not os.path.exists(path):
        print(f"bench: no {path}", file=sys.stderr)
        return binds, loads, micro, calls, lsms, unsupported, autobinds
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
            m = CALL.search(line)
            if m:
                kind, label, ns = m.groups()
                calls[(kind, label)] = float(ns)
            m = LSM.search(line)
            if m and not lsms:
                lsms.append(m.group(1))
            m = UNSUPPORTED.search(line)
            if m:
                proto, abi = m.groups()
                unsupported[proto] = abi
            m = AUTOBIND.search(line)
            if m:
                label, mode, occ, ns = m.groups()
                autobinds[(label, mode, int(occ))] = float(ns)
    return binds, loads, micro, calls, lsms, unsupported, autobinds


def main():
    out, iters = sys.argv[1], sys.argv[2]
    logs = {boot: parse(f"{out}/{boot}.log") for boot in BOOTS}
    binds = {**logs["floor"][0], **logs["kpr"][0]}
    loads, micro = logs["kpr"][1], logs["kpr"][2]
    calls, active = {}, {}
    for boot in BOOTS:
        calls.update(logs[boot][3])
        active[boot] = logs[boot][4][0] if logs[boot][4] else "not known"

    # (row title, label, floor label it is compared with, expected result)
    rows = [("floor: kportreserve not in lsm=", "floor", "floor", "0"),
            ("empty policy", "empty", "floor", "0")]
    # (title, label prefix, sizes, floor label, expected result). The
    # Landlock rows fill the TCP and the UDP columns alike, each protocol
    # under a ruleset of its own bind right, against the same unrestricted
    # bind to port 20000 as the reserved rows.
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

    def limit_text(limit):
        return f"{limit:g}x"

    def row_target(label):
        """The issue's target of a row of the bind() table, by protocol."""
        if label == "empty" or label.startswith("norule-"):
            return NORULE_TARGET
        if label.startswith("allowed-"):
            return {"tcp": ALLOWED_TARGET, "udp": ALLOWED_TARGET}
        return None

    def row_verdict(label, base, limits):
        """Met or missed, for each protocol on both families."""
        words = []
        for proto in ("tcp", "udp"):
            got = [ratio(label, base, f, p) for f, p in COLUMNS if p == proto]
            got = [r for r in got if r is not None]
            word = ("not measured" if not got else
                    "met" if max(got) <= limits[proto] else "missed")
            words.append(f"{proto.upper()} {word}")
        return ", ".join(words)

    table, dat = [], []
    head = (["bind() per call"] + [f"IPv{f} {p.upper()}" for f, p in COLUMNS]
            + ["target (at most)", "verdict"])
    for title, label, base, expect in rows:
        cells, ratios = [title], []
        for fam, proto in COLUMNS:
            c = cost(label, fam, proto, expect)
            r = ratio(label, base, fam, proto)
            if c is None:
                cells.append("-")
            elif r is None:
                cells.append(f"{c:7.0f} ns")
            else:
                cells.append(f"{c:7.0f} ns {r:5.3f}x")
            ratios.append(r)
        limits = row_target(label)
        if limits is None:
            cells += ["", ""]
        elif limits["tcp"] == limits["udp"]:
            cells += [limit_text(limits["tcp"]),
                      row_verdict(label, base, limits)]
        else:
            cells += [f"TCP {limit_text(limits['tcp'])}, "
                      f"UDP {limit_text(limits['udp'])}",
                      row_verdict(label, base, limits)]
        table.append(cells)
        if label != "floor":
            dat.append((title, ratios))

    # open()+close(), getppid(), fork() and prctl(): ns per call in each
    # boot, and the ratios of the pairs, kportreserve against its
    # floor.
    call_kinds = [("open", "open()+close()"), ("syscall", "getppid()"),
                  ("fork", "fork()+exit+wait"), ("prctl", "prctl()")]
    call_boots = [("floor", "floor: the distribution's LSMs"),
                  ("kpr-empty", "kpr: and kportreserve, empty policy"),
                  ("kpr-1000", "kpr: and kportreserve, 1,000 rules"),
                  ("bare-floor", "bare-floor: lsm=yama"),
                  ("bare-kpr", "bare-kpr: lsm=yama,kportreserve")]
    call_rows = [["ns per call"] + [title for _, title in call_kinds]]
    for label, title in call_boots:
        cells = [title]
        for kind, _ in call_kinds:
            ns = calls.get((kind, label))
            cells.append("-" if ns is None else f"{ns:.1f} ns")
        call_rows.append(cells)

    def call_ratio(kind, label, base):
        c, b = calls.get((kind, label)), calls.get((kind, base))
        return None if c is None or not b else c / b

    def percent(r):
        return "-" if r is None else f"{r:.4f}x ({(r - 1) * 100:+.2f}%)"

    # (title, label, base, whether a change either way counts)
    call_pairs = [("kpr / floor, empty policy", "kpr-empty", "floor", False),
                  ("kpr / floor, 1,000 rules", "kpr-1000", "floor", False),
                  ("kpr: 1,000 rules / empty policy", "kpr-1000",
                   "kpr-empty", True),
                  ("bare-kpr / bare-floor", "bare-kpr", "bare-floor", False)]
    ratio_rows = [["ratio", "open()+close()", "target", "verdict",
                   "getppid(), no target", "fork()+exit+wait, no target",
                   "prctl(), no target"]]
    for title, label, base, both in call_pairs:
        r = call_ratio("open", label, base)
        if both:
            aim = f"{2 - OPEN_TARGET:g}-{limit_text(OPEN_TARGET)}"
            off = None if r is None else abs(r - 1) + 1
        else:
            aim = f"<= {limit_text(OPEN_TARGET)}"
            off = r
        word = ("not measured" if off is None else
                "met" if off <= OPEN_TARGET else "missed")
        ratio_rows.append([title, percent(r), aim, word,
                           percent(call_ratio("syscall", label, base)),
                           percent(call_ratio("fork", label, base)),
                           percent(call_ratio("prctl", label, base))])
    # Automatic port assignment under an occupied ip_local_port_range:
    # (mode, occupancy) rows, a column per label, ratios to the base one.
    autobinds = {}
    for boot in BOOTS:
        autobinds.update(logs[boot][6])
    for boot in AB_BOOTS:
        if os.path.exists(f"{out}/{boot}.log"):
            ab_log = parse(f"{out}/{boot}.log")
            autobinds.update(ab_log[6])
            active[boot] = ab_log[4][0] if ab_log[4] else "not known"
    ab_labels = list(dict.fromkeys(label for label, _, _ in autobinds))
    ab_base = "floor" if "floor" in ab_labels else (ab_labels or [None])[0]
    ab_rows = [["per call, occupancy"] + ab_labels]
    for mode, occ in sorted({(m, o) for _, m, o in autobinds},
                            key=lambda k: (list(AUTOBIND_MODES).index(k[0]),
                                           k[1])):
        cells = [f"{AUTOBIND_MODES[mode]}, {occ}% taken"]
        b = autobinds.get((ab_base, mode, occ))
        for label in ab_labels:
            ns = autobinds.get((label, mode, occ))
            if ns is None:
                cells.append("-")
            elif label == ab_base or not b:
                cells.append(f"{ns:.0f} ns")
            else:
                cells.append(f"{ns:.0f} ns {ns / b:5.3f}x")
        ab_rows.append(cells)

    # The targets of automatic assignment, mode by mode. The noise of a
    # mode is how far apart two kernels whose allocators are the same
    # instructions (disassembled: floor and off) come out: the kernel
    # starts its search at a random port, so the number of candidates a
    # call walks past differs from boot to boot. A target is met when the
    # worst ratio is within the target plus that noise.
    ab_verdicts = []
    def ab_worst(label, base, mode):
        ratios = [autobinds[(label, m, o)] / autobinds[(base, m, o)]
                  for lb, m, o in autobinds
                  if lb == label and m == mode and autobinds.get((base, m, o))]
        return max(ratios, key=lambda r: abs(r - 1)) if ratios else None
    for mode in AUTOBIND_MODES:
        noise = ab_worst("off", "floor", mode)
        if noise is None:
            continue
        noise = abs(noise - 1)
        ab_verdicts.append(f"autobind {mode}: noise (off against floor, the "
                           f"same allocator code): {noise:.2%}")
        for label, base, allowed, what in AB_TARGETS:
            if label == "off":
                continue
            worst = ab_worst(label, base, mode)
            if worst is None:
                continue
            ok = abs(worst - 1) <= allowed + noise
            ab_verdicts.append(
                f"{'met   ' if ok else 'MISSED'}  autobind {mode}: {what}: "
                f"worst {worst:.4f}x of {base} (target within "
                f"{allowed:.1%}, plus the noise)")
        for label in ("hook-off", "hook-kpr-empty", "hook-kpr-in1000"):
            base = "floor-sysctl-in" if label.endswith("in1000") else "floor"
            worst = ab_worst(label, base, mode)
            if worst is not None:
                ab_verdicts.append(f"        autobind {mode}: {label}: worst "
                                   f"{worst:.4f}x of {base}")

    lsm_rows = [["boot", "active LSMs (/sys/kernel/security/lsm)"]]
    for boot in BOOTS + [b for b in AB_BOOTS if b in active]:
        lsm_rows.append([boot, active[boot]])

    # The targets, each checked on every column it applies to.
    verdicts = []

    def target(what, values, limit, digits=3):
        values = [v for v in values if v is not None]
        if not values:
            verdicts.append(f"NOT MEASURED  {what}")
            return
        worst = max(values)
        verdicts.append(f"{'met   ' if worst <= limit else 'MISSED'}  {what}: "
                        f"worst {worst:.{digits}f} (target <= {limit})")

    cols = COLUMNS
    for proto in ("tcp", "udp"):
        pc = [(f, p) for f, p in cols if p == proto]
        target(f"no rule, {proto.upper()}, ratio to the floor",
               [ratio(f"norule-{n}", "floor", f, p) for n in SIZES for f, p in pc]
               + [ratio("empty", "floor", f, p) for f, p in pc],
               NORULE_TARGET[proto])
        target(f"reserved and allowed, {proto.upper()}, ratio to the floor",
               [ratio(f"allowed-{n}", "floor-reserved", f, p)
                for n in SIZES for f, p in pc], ALLOWED_TARGET)
    for kind in ("norule", "allowed", "denied"):
        target(f"{kind}: 65,536 rules against 1 rule",
               [abs(ratio(f"{kind}-65536", f"{kind}-1", f, p) - 1) + 1
                for f, p in cols
                if ratio(f"{kind}-65536", f"{kind}-1", f, p) is not None],
               1.02)
    target("open()+close(), the distribution's LSMs, ratio to the floor",
           [call_ratio("open", label, "floor")
            for label in ("kpr-empty", "kpr-1000")], OPEN_TARGET, 4)
    target("open()+close(), lsm=yama, ratio to the floor",
           [call_ratio("open", "bare-kpr", "bare-floor")], OPEN_TARGET, 4)

    r = call_ratio("open", "kpr-1000", "kpr-empty")
    target("open()+close(), 1,000 rules against an empty policy, either way",
           [None if r is None else abs(r - 1) + 1], OPEN_TARGET, 4)
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
             f"booted with the distribution's LSMs in lsm= but not "
             f"kportreserve, next to the issue's target.")
    calls_intro = (f"open()+close() of a file, getppid(), which no LSM hook "
                   f"sees, fork()+exit+wait and prctl(PR_GET_DUMPABLE): ns "
                   f"of guest time per call ({iters} rounds minus the loop "
                   f"alone, a twentieth of that for fork()), with the "
                   f"distribution's LSMs (AppArmor and TOMOYO have a task "
                   f"blob) and with lsm=yama (no LSM has one), each without "
                   f"and with kportreserve, whose 32 bytes in the blob of "
                   f"every task and task_prctl hook are all it adds there.")
    calls_note = ("getppid() goes past no LSM hook: the issue sets it no "
                  "target; its ratio shows how far two boots differ besides "
                  "the hooks. fork() has no target either: its cost moves "
                  "by several percent from one boot to the next (page "
                  "tables, the slab), far more than the allocation of a "
                  "task blob (about a hundred instructions), so only its "
                  "order of magnitude is read from it.")
    landlock_note = ("The Landlock rows: the floor boot, kpr-bench "
                     "restricted by Landlock to binding N ports of the "
                     "column's protocol (LANDLOCK_ACCESS_NET_BIND_TCP, "
                     "LANDLOCK_ACCESS_NET_BIND_UDP from Landlock ABI 10), "
                     "port 20000 among them and 20001 not.")
    for proto, abi in sorted(logs["floor"][5].items()):
        landlock_note += (f" Landlock ABI {abi} has no {proto.upper()} bind "
                          f"right: its {proto.upper()} cells are not "
                          f"measured.")
    autobind_intro = (f"Automatic port assignment with a share of "
                      f"ip_local_port_range bound (all but one port in every "
                      f"few, by TCP sockets on 127.0.0.1): ns of guest time per connect() "
                      f"to 127.0.0.1:5000 with its accept() and the close() "
                      f"of both ends, and per bind() to 127.0.0.1 port 0, "
                      f"minus socket()+close(), and the ratio to the "
                      f"{ab_base} column. Every candidate port the "
                      f"allocator walks past is tested against the reserved "
                      f"ports, kportreserve's among them.")
    with open(f"{out}/bench.txt", "w") as f:
        f.write(intro + "\n\n" + text_table([head] + table) + "\n")
        f.write(landlock_note + "\n\n")
        f.write(calls_intro + "\n\n" + text_table(call_rows) + "\n\n")
        f.write(text_table(ratio_rows) + "\n" + calls_note + "\n\n")
        if len(ab_rows) > 1:
            f.write(autobind_intro + "\n\n" + text_table(ab_rows) + "\n")
            f.write("\n".join(ab_verdicts) + "\n\n")
        f.write(text_table(lsm_rows) + "\n\n")
        f.write(text_table(load_rows) + "\n\n")
        if len(micro_rows) > 1:
            f.write(text_table(micro_rows) + "\n\n")
        f.write("\n".join(verdicts + problems) + "\n")
    with open(f"{out}/bench.rst", "w") as f:
        f.write(rst_table([head] + table) + "\n\n" + rst_table(call_rows) +
                "\n\n" + rst_table(ratio_rows) + "\n\n" +
                rst_table(load_rows) + "\n\n")
        if len(ab_rows) > 1:
            f.write(rst_table(ab_rows) + "\n\n")
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
