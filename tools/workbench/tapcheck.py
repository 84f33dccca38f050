#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the kselftest results of a boot against the list kept in the tree.

    tapcheck.py [--marker LINE]... EXPECT SKIPS KVER LOG [LOG...]
    tapcheck.py --compare EXPECT SKIPS KVER WITH_LOG WITHOUT_LOG
    tapcheck.py --kunit EXPECT SKIPS KVER JSON

LOG is a guest's console log, in which each test program's output follows
a line "KPR-RUN PROGRAM" (selftest.sh). EXPECT lists, one "PROGRAM TEST" a
line, every test that the boot must run, in order; SKIPS lists the tests
that may be skipped, each as "KVERS PROGRAM TEST REASON", KVERS being "*"
or a comma-separated list of kernel series. The verdict, one line each:

- a test that did not run, or ran more than once, fails (a filter that
  matches nothing, a program that stopped early);
- a test that ran and is not in EXPECT fails (add it there);
- a skip that SKIPS does not allow for this KVER fails;
- "not ok" fails;
- a program that started and did not end with its totals fails, and so
  does a --marker (the line of a step that must have run) missing from LOG.

Prints every problem and, last, "passed failed skipped" as three numbers.
With KPR_EXPECT_UPDATE=1 it writes what ran to EXPECT instead of judging
the list (skips are still judged); EXPECT "-" (a subset picked by hand)
only asks that some test ran.

--kunit judges the cases of kunit.py's JSON output, as "kunit SUITE.CASE"
(a parameterised case's runs as SUITE.CASE.PARAM). --compare judges two boots of the same tests against each other (see
compare()), as upstream.sh runs them.

The test's name comes from the harness's "#  RUN  NAME ..." line, since
the harness of Linux 6.1 leaves it out of the "ok N # SKIP" line.
"""

import os
import re
import sys

MARKER = re.compile(r'KPR-(RUN|ADMIN|END)\b\s*(\S*)')
RUN = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.')
RESULT = re.compile(r'^(not )?ok \d+(?: (.*?))??(?:\s*# (SKIP|XFAIL|XPASS|error)\b ?(.*))?$')


def results(log):
    """Yield (program, test, status, reason) for each result in LOG."""
    program = running = None
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            marker = MARKER.search(line)
            if marker:
                program = marker.group(2) if marker.group(1) == 'RUN' else None
                running = None
                continue
            if program is None:
                continue
            run = RUN.match(line)
            if run:
                running = run.group(1)
                continue
            result = RESULT.match(line)
            if not result:
                continue
            # "ok N NAME #  MESSAGE": a pass with a diagnostic.
            name = (result.group(2) or '').split(' #')[0].strip() or running
            if result.group(1):
                status = 'fail'
            elif result.group(3) == 'SKIP':
                status = 'skip'
            elif result.group(3) in (None, 'XFAIL'):
                status = 'pass'
            else:
                status = 'fail'
            yield program, name or '?', status, (result.group(4) or '').strip()
            running = None


def log_problems(log, markers):
    """What LOG says went wrong beside the results themselves.

    Every program that started ("KPR-RUN") must have ended with the
    harness's totals, and every marker must be in it.
    """
    started = ended = 0
    seen = set()
    with open(log, encoding='utf-8', errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            # The console may put the firmware's escapes before a line.
            started += 'KPR-RUN ' in line
            ended += '# Totals:' in line
            seen.update(m for m in markers if m in line)
    problems = []
    if not started:
        problems.append(f'no test program started in {log}')
    elif started != ended:
        problems.append(f'{started} test programs started, {ended} ended with '
                        f'their totals: one stopped early ({log})')
    problems.extend(f'no {m} line: that step did not run ({log})'
                    for m in markers if m not in seen)
    return problems


def allowed_skips(path, kver):
    allowed = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            kvers, program, test, reason = line.split(None, 3)
            if kvers == '*' or kver in kvers.split(','):
                allowed[(program, test)] = reason
    return allowed


def compare(expect_path, skips_path, kver, with_log, without_log):
    """Judge one boot with kportreserve against one without, test by test.

    Both boots must run the tests of EXPECT once each. A test passes when
    it passes in both; one that fails only with kportreserve fails. One
    that fails without kportreserve is the upstream test's own failure: it
    is counted as skipped and named on the line before the summary, never
    as passed. A skip must be allowed in both boots, and the same.
    """
    expected = read_expected(expect_path)
    allowed = allowed_skips(skips_path, kver)
    boots = {}
    problems, flaky = [], []
    for boot, log in (('with', with_log), ('without', without_log)):
        boots[boot] = {}
        names = []
        for program, test, status, reason in results(log):
            boots[boot][f'{program} {test}'] = status
            names.append(f'{program} {test}')
        for name in expected:
            if names.count(name) != 1:
                problems.append(f'ran {names.count(name)} times {boot} kportreserve, expected once: {name}')
        for name in sorted(set(names) - set(expected)):
            problems.append(f'ran {boot} kportreserve, but is not in {os.path.basename(expect_path)}: {name}')
    passed = skipped = 0
    failed = len(problems)
    for name in expected:
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
            failed += 1
            problems.append(f'{w} with kportreserve, {wo} without: {name}')
    for p in problems:
        print(p, file=sys.stderr)
    if flaky:
        print('failed without kportreserve too, counted as skipped: ' +
              '; '.join(flaky), file=sys.stderr)
    print(passed, failed, skipped)


def kunit_results(path):
    """Yield ("kunit", SUITE.CASE[.PARAM], status, "") from kunit.py's JSON."""
    import json
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
    # A suite without cases of its own, or a crash outside any suite.
    for case in top['test_cases']:
        yield 'kunit', case['name'], status_of.get(case['status'], 'fail'), ''


def read_expected(path):
    """The tests of a list in expect/, in order."""
    if not os.path.exists(path):
        sys.exit(f'tapcheck.py: no list {path}: write it with KPR_EXPECT_UPDATE=1')
    with open(path, encoding='utf-8') as f:
        return [l.strip() for l in f if l.strip() and not l.startswith('#')]


def main():
    if sys.argv[1] == '--compare':
        compare(*sys.argv[2:7])
        return
    if sys.argv[1] == '--kunit':
        expect_path, skips_path, kver = sys.argv[2:5]
        ran = list(kunit_results(sys.argv[5]))
        problems = []
    else:
        args = sys.argv[1:]
        markers = []
        while args[0] == '--marker':
            markers.append(args[1])
            args = args[2:]
        expect_path, skips_path, kver = args[:3]
        ran = [r for log in args[3:] for r in results(log)]
        problems = [p for log in args[3:] for p in log_problems(log, markers)]
    allowed = allowed_skips(skips_path, kver)
    passed = skipped = 0
    failed = len(problems)

    for program, test, status, reason in ran:
        if status == 'pass':
            passed += 1
        elif status == 'fail':
            failed += 1
            problems.append(f'failed: {program} {test}')
        elif (program, test) in allowed:
            skipped += 1
        else:
            failed += 1
            problems.append(f'skipped, and not allowed to be: {program} {test}: {reason}')

    names = [f'{program} {test}' for program, test, _, _ in ran]
    if expect_path == '-':
        if not names:
            failed += 1
            problems.append('no test ran')
    elif os.environ.get('KPR_EXPECT_UPDATE') == '1':
        with open(expect_path, 'w', encoding='utf-8') as f:
            f.write('# The tests of this boot, in order (tools/workbench/tapcheck.py).\n')
            f.write('# KPR_EXPECT_UPDATE=1 writes it anew from a run.\n')
            f.write(''.join(n + '\n' for n in names))
    else:
        expected = read_expected(expect_path)
        for name in expected:
            count = names.count(name)
            if count != 1:
                failed += 1
                problems.append(f'ran {count} times, expected once: {name}')
        for name in sorted(set(names) - set(expected)):
            failed += 1
            problems.append(f'ran, but is not in {os.path.basename(expect_path)}: {name}')

    for p in problems:
        print(p, file=sys.stderr)
    print(passed, failed, skipped)


if __name__ == '__main__':
    main()
