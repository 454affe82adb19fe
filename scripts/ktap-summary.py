#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of the vroce_* KUnit suites in a kernel log (KTAP).

Usage: ktap-summary.py LOG SUITE...

Every leaf case (a result line with no subtests of its own: plain cases and
each parameter of a parameterised case) is counted once under its suite.
Prints one line per suite, then 'vroce: N passed, N failed, N skipped', and
exits non-zero when a case failed, or a named suite is missing or has no
result line of its own (the kernel crashed or hung inside it).
"""

import re
import sys

PREFIX = re.compile(r'^\[[^\]]*\]\s?')
RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)\s*(?:- )?([^#]*?)\s*(?:#\s*(\S+).*)?$')


def parse(lines):
    """Return {suite: [pass, fail, skip]} and cases seen after the last suite."""
    suites = {}
    pending = []           # statuses of leaves waiting for their suite line
    prev_indent = -1       # a group's own result line follows its deeper subtests
    for raw in lines:
        line = PREFIX.sub('', raw.rstrip('\n'))
        m = RESULT.match(line)
        if not m:
            continue
        indent = len(m.group(1).expandtabs(8))
        ok = m.group(2) == 'ok'
        name = m.group(4).strip()
        skip = (m.group(5) or '').upper() == 'SKIP'
        leaf = prev_indent <= indent
        prev_indent = indent
        if indent == 0:
            counts = suites.setdefault(name, [0, 0, 0])
            for status in pending:
                counts[status] += 1
            if not pending:           # a suite with no cases counts as itself
                counts[2 if skip else (0 if ok else 1)] += 1
            pending = []
        elif leaf:
            pending.append(2 if skip else (0 if ok else 1))
    return suites, pending


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], errors='replace') as f:
        suites, orphans = parse(f)
    passed = failed = skipped = 0
    bad = False
    for suite in sys.argv[2:]:
        if suite not in suites:
            print(f'vroce: suite {suite}: MISSING (not run, crashed or hung)')
            bad = True
            failed += 1
            continue
        p, f, s = suites[suite]
        print(f'vroce: suite {suite}: {p} passed, {f} failed, {s} skipped')
        passed, failed, skipped = passed + p, failed + f, skipped + s
    if orphans:
        print(f'vroce: {len(orphans)} case results after the last suite line (crash?)')
        bad = True
    print(f'vroce: {passed} passed, {failed} failed, {skipped} skipped')
    sys.exit(1 if bad or failed else 0)


if __name__ == '__main__':
    main()
