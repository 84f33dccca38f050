#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a lane's test results against the list kept in the tree.

    tapcheck.py [--marker LINE]... EXPECT SKIPS KVER LOG
    tapcheck.py --kunit EXPECT SKIPS KVER JSON
    tapcheck.py --compare EXPECT SKIPS KVER WITH_LOG WITHOUT_LOG
    tapcheck.py --plain PROGRAM EXPECT SKIPS KVER LOG [BEGIN]

LOG is a guest's console log, in which each test program's output follows
a line "KPR-RUN PROGRAM" and ends at the next KPR- marker (selftest.sh,
upstream.sh); the kernel log that vm/init reads back after
"KPR-DMESG-BEGIN" is no program's output. EXPECT (a file in expect/)
lists, one "PROGRAM TEST" a line, every test that the lane must run.
SKIPS lists the skips allowed, one "KVERS LISTS PROGRAM TEST REASON" a
line: KVERS is "*" or a comma-separated list of kernel series, LISTS "*"
or a comma-separated list of the EXPECT files (by name) where the skip is
allowed. The verdict:

- a test of EXPECT that did not run, or ran more than once, fails (a
  filter that matches nothing, a program that stopped early);
- a test that ran and is not in EXPECT fails (add it there);
- a skip that SKIPS does not allow for this KVER and list fails;
- "not ok" fails;
- a program whose output does not end with the harness's totals stopped
  early and fails, and so does a --marker (the line of a step that must
  have run) missing from LOG.

Each problem is printed on standard error; the last line of standard
output is "PASSED FAILED SKIPPED". With KPR_EXPECT_UPDATE=1 the tests that
ran are written to EXPECT instead of being judged against it (skips still
are); EXPECT "-" (a subset picked by hand) only asks that some test ran.

--kunit judges the cases of kunit.py's JSON output, as "kunit SUITE.CASE"
(a parameterised case's runs as SUITE.CASE.PARAM). --compare judges two
boots of the same tests against each other (see compare()). --plain
judges the "ok N - WHAT" lines of kportreserve(8)'s tests, as "PROGRAM
WHAT" (see plain_results()).

The test's name comes from the harness's "#  RUN  NAME ..." line, since
the harness of Linux 6.1 leaves it out of the "ok N # SKIP" line.
"""

import json
import os
import re
import sys

MARKER = re.compile(r'KPR-(RUN|ADMIN|END|DMESG-BEGIN)\b\s*(\S*)')
RUN = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.')
RESULT = re.compile(r'^(not )?ok \d+(?: (.*?))??'
                    r'(?:\s*# (SKIP|XFAIL|XPASS|error)\b ?(.*))?$')


def sections(log):
    """Yield (program, lines) for each "KPR-RUN PROGRAM" section of LOG."""
    program, lines = None, []
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            # The console may put the firmware's escapes before a marker.
            marker = MARKER.search(line)
            if marker:
                if program is not None:
                    yield program, lines
                program, lines = None, []
                if marker.group(1) == 'DMESG-BEGIN':
                    return
                if marker.group(1) == 'RUN':
                    program = marker.group(2)
            elif program is not None:
                lines.append(line)
    if program is not None:
        yield program, lines


def section_results(program, lines):
    """Yield (program, test, status, reason) for each result in LINES."""
    running = None
    for line in lines:
        run = RUN.match(line)
        if run:
            running = run.group(1)
            continue
        result = RESULT.match(line)
        if not result:
            continue
        # "ok N NAME #  MESSAGE" is a pass with a diagnostic.
        name = (result.group(2) or '').split(' #')[0].strip() or running
        if result.group(1) or result.group(3) in ('XPASS', 'error'):
            status = 'fail'
        elif result.group(3) == 'SKIP':
            status = 'skip'
        else:
            status = 'pass'
        yield program, name or '?', status, (result.group(4) or '').strip()
        running = None


def log_results(log, markers=()):
    """The results of LOG, and the problems it shows beside them."""
    ran, problems, started = [], [], 0
    for program, lines in sections(log):
        started += 1
        ran.extend(section_results(program, lines))
        if sum(l.startswith('# Totals:') for l in lines) != 1:
            problems.append(f'{program} did not end with its totals: '
                            f'it stopped early ({log})')
    if not started:
        problems.append(f'no test program started ({log})')
    with open(log, encoding='utf-8', errors='replace') as f:
        text = f.read()
    problems.extend(f'no {m} line: that step did not run ({log})'
                    for m in markers if m not in text)
    return ran, problems


def plain_results(program, log, begin=None):
    """Yield the "ok N - WHAT" results of kportreserve(8)'s test scripts.

    They print no totals of their own; with BEGIN, only the lines after
    the marker BEGIN up to the next marker are theirs.
    """
    inside = begin is None
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if begin is not None and MARKER.search(line):
                inside = begin in line
                continue
            result = RESULT.match(line) if inside else None
            if not result or not (result.group(2) or '').startswith('- '):
                continue
            name = result.group(2)[2:].split(' #')[0].strip()
            status = ('fail' if result.group(1) else
                      'skip' if result.group(3) == 'SKIP' else 'pass')
            yield program, name, status, (result.group(4) or '').strip()


def kunit_results(path):
    """Yield ("kunit", SUITE.CASE[.PARAM], status, "") from kunit.py's JSON."""
    status_of = {'PASS': 'pass', 'SKIP': 'skip'}

    def walk(group, prefix):
        for case in group['test_cases']:
            yield ('kunit', prefix + case['name'],
                   status_of.get(case['status'], 'fail'), '')
        for sub in group['sub_groups']:
            yield from walk(sub, prefix + sub['name'] + '.')

    with open(path, encoding='utf-8') as f:
        top = json.load(f)
    for suite in top['sub_groups']:
        yield from walk(suite, suite['name'] + '.')
    # A crash outside any suite.
    for case in top['test_cases']:
        yield 'kunit', case['name'], status_of.get(case['status'], 'fail'), ''


def allowed_skips(path, kver, expect_path):
    """The (program, test) pairs that may skip in this lane."""
    name = os.path.basename(expect_path)
    allowed = set()
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split(None, 4)
            if len(fields) != 5:
                sys.exit(f'tapcheck.py: {path}:{number}: expected '
                         'KVERS LISTS PROGRAM TEST REASON')
            kvers, lists, program, test, _ = fields
            if ((kvers == '*' or kver in kvers.split(',')) and
                    (lists == '*' or name in lists.split(','))):
                allowed.add((program, test))
    return allowed


def read_expected(path):
    """The tests of a list in expect/."""
    if not os.path.exists(path):
        sys.exit(f'tapcheck.py: no list {path}: write it with KPR_EXPECT_UPDATE=1')
    with open(path, encoding='utf-8') as f:
        return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def list_problems(names, expect_path, what=''):
    """What differs between the tests that ran, NAMES, and EXPECT."""
    expected = read_expected(expect_path)
    problems = [f'ran {names.count(n)} times{what}, expected once: {n}'
                for n in expected if names.count(n) != 1]
    problems += [f'ran{what}, but is not in {os.path.basename(expect_path)}: {n}'
                 for n in sorted(set(names) - set(expected))]
    return problems


def write_expected(expect_path, names):
    with open(expect_path, 'w', encoding='utf-8') as f:
        f.write('# The tests of this lane (tools/workbench/tapcheck.py).\n')
        f.write('# KPR_EXPECT_UPDATE=1 writes it anew from a run.\n')
        f.write(''.join(n + '\n' for n in names))


def judge(ran, problems, expect_path, skips_path, kver):
    """Print the problems and the counts of RAN, judged as the docstring says."""
    allowed = allowed_skips(skips_path, kver, expect_path)
    passed = skipped = 0
    for program, test, status, reason in ran:
        if status == 'pass':
            passed += 1
        elif status == 'fail':
            problems.append(f'failed: {program} {test}')
        elif (program, test) in allowed:
            skipped += 1
        else:
            problems.append(f'skipped, and not allowed to be: {program} {test}: {reason}')

    names = [f'{program} {test}' for program, test, _, _ in ran]
    if expect_path == '-':
        if not names:
            problems.append('no test ran')
    elif os.environ.get('KPR_EXPECT_UPDATE') == '1':
        write_expected(expect_path, names)
    else:
        problems += list_problems(names, expect_path)
    for p in problems:
        print(p, file=sys.stderr)
    # Every problem is a failure, whether or not a test result says so.
    print(passed, len(problems), skipped)


def compare(expect_path, skips_path, kver, with_log, without_log):
    """Judge one boot with kportreserve against one without, test by test.

    Both boots must run the tests of EXPECT once each. A test passes when
    it passes in both; one that fails only with kportreserve fails. One
    that fails without kportreserve is the upstream test's own failure: it
    is counted as skipped and named on the line before the summary, never
    as passed. A skip must be allowed, and the same in both boots. A pair
    of boots in which nothing passed fails.
    """
    allowed = allowed_skips(skips_path, kver, expect_path)
    boots, problems, flaky = {}, [], []
    for boot, log in (('with', with_log), ('without', without_log)):
        ran, _ = log_results(log)
        names = [f'{program} {test}' for program, test, _, _ in ran]
        problems += list_problems(names, expect_path, f' {boot} kportreserve')
        boots[boot] = {f'{p} {t}': status for p, t, status, _ in ran}
    passed = skipped = 0
    for name in read_expected(expect_path):
        w, wo = boots['with'].get(name), boots['without'].get(name)
        if w is None or wo is None:
            continue
        if wo == 'fail':
            skipped += 1
            flaky.append(f'{name} ({"fails" if w == "fail" else "passes"} with kportreserve)')
        elif w == wo == 'pass':
            passed += 1
        elif w == wo == 'skip' and tuple(name.split(' ', 1)) in allowed:
            skipped += 1
        else:
            problems.append(f'{w} with kportreserve, {wo} without: {name}')
    if not passed:
        problems.append('no test passed in both boots')
    for p in problems:
        print(p, file=sys.stderr)
    if flaky:
        print('failed without kportreserve too, counted as skipped: ' +
              '; '.join(flaky), file=sys.stderr)
        # For the lane's summary line, before the counts.
        print('flaky: ' + ', '.join(n.split(' ', 1)[1] for n in flaky))
    print(passed, len(problems), skipped)


def main():
    args = sys.argv[1:]
    if args[0] == '--compare':
        compare(*args[1:6])
    elif args[0] == '--kunit':
        judge(list(kunit_results(args[4])), [], *args[1:4])
    elif args[0] == '--plain':
        ran = list(plain_results(args[1], *args[5:7]))
        judge(ran, [], *args[2:5])
    else:
        markers = []
        while args[0] == '--marker':
            markers.append(args[1])
            args = args[2:]
        ran, problems = log_results(args[3], markers)
        judge(ran, problems, *args[:3])


if __name__ == '__main__':
    main()
