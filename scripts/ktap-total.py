#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read the KTAP of each part of 'make check' with the kernel's own parser
(tools/testing/kunit/kunit_parser.py, what kunit.py parses with) and add
them up.

  ktap-total.py --tree TREE total [--name NAME] PART=LOG...
      For each part, a line per top-level test that has subtests
      ('PART: TEST: N passed, N failed, N skipped'), any parse error, and
      'PART: N passed, N failed, N skipped'; last, the sum as
      'NAME: N passed, N failed, N skipped' (NAME: total). Exits non-zero
      when any part failed.

  ktap-total.py --tree TREE kunit LOG FIRST SUITE...
      The KUnit suites of a test kernel's log (kunit.py's test.log), as
      KTAP result lines numbered from FIRST, each suite nested with its
      cases; every SUITE named that did not report follows as 'not ok'.
      For scripts/kunit.sh, which prints them inside its own document.
      Exits non-zero when a suite failed or is missing.

Counting: a leaf test (one with no subtests: a case, each parameter of a
parameterised case) counts once, as passed, failed (crashed too) or
skipped, as kunit.py counts. On top of that, one failure is counted for:
a part with no KTAP at all (missing output), a test whose own result line
says 'not ok' while none of its subtests failed (a splat found after the
fact, a program that died after its last result), results beyond the
plan, and a part that the parser reported errors in but nothing failed
(a malformed document).
"""

import argparse
import io
import os
import re
import sys


class Stalled(Exception):
    """The parser stopped consuming lines (it loops on a misplaced plan)."""


def load_parser(tree):
    """Import kunit_parser from the kernel tree, its printing silenced."""
    tools = os.path.join(tree, 'tools', 'testing', 'kunit')
    if not os.path.isfile(os.path.join(tools, 'kunit_parser.py')):
        sys.exit(f'ktap-total: no tools/testing/kunit/kunit_parser.py in {tree}')
    sys.path.insert(0, tools)
    import kunit_parser  # pylint: disable=import-outside-toplevel
    import kunit_printer  # pylint: disable=import-outside-toplevel
    sink = io.StringIO()
    kunit_parser.stdout = kunit_printer.Printer(sink)

    # A plan line where a result is due, in a test with no plan of its
    # own, makes parse_test() add a crashed subtest without consuming the
    # line, for ever: stop it (parse_test calls itself through the module).
    parse_test = kunit_parser.parse_test
    stalls = [0]

    def guarded(lines, expected_num, log, is_subtest):
        at = lines.line_number()
        test = parse_test(lines, expected_num, log, is_subtest)
        if is_subtest and lines and lines.line_number() == at:
            stalls[0] += 1
            if stalls[0] > 1000:
                raise Stalled(f'a line the parser cannot place, line {at}: '
                              f'{lines.peek().strip()!r}')
        else:
            stalls[0] = 0
        return test

    kunit_parser.parse_test = guarded
    return kunit_parser, sink


class Part:
    """What one part's log adds up to."""

    def __init__(self, name):
        self.name = name
        self.passed = self.failed = self.skipped = 0
        self.notes = []
        self.groups = []

    def line(self):
        return (f'{self.name}: {self.passed} passed, {self.failed} failed, '
                f'{self.skipped} skipped')


def own_failures(kp, test, path, notes):
    """Tests with subtests whose own result failed with no failing leaf."""
    n = 0
    for sub in test.subtests:
        if not sub.subtests:
            continue
        name = f'{path}.{sub.name}' if path else sub.name
        bad = sub.counts.failed + sub.counts.crashed
        if sub.status not in (kp.TestStatus.SUCCESS, kp.TestStatus.SKIPPED) and not bad:
            notes.append(f'{name}: its own result is not ok, though no subtest failed')
            n += 1
        n += own_failures(kp, sub, name, notes)
    return n


def read_part(kp, sink, name, path):
    part = Part(name)
    try:
        with open(path, errors='replace') as f:
            text = f.read().splitlines()
    except OSError as e:
        part.failed = 1
        part.notes.append(f'no output ({e.strerror})')
        return part
    sink.seek(0)
    sink.truncate()
    lines = kp.extract_tap_lines(text)
    if not lines:
        part.failed = 1
        part.notes.append('no KTAP output (the part did not run, or died first)')
        return part
    try:
        test = kp.parse_test(lines, 0, [], False)
    except Stalled as e:
        part.failed = 1
        part.notes.append(f'malformed KTAP: {e}')
        return part
    beyond = sum(1 for line in lines if kp.TEST_RESULT.match(line))
    c = test.counts
    part.passed, part.failed, part.skipped = c.passed, c.failed + c.crashed, c.skipped
    errors = {}
    for msg in sink.getvalue().splitlines():
        if '[ERROR]' in msg:
            msg = msg.split('[ERROR]', 1)[1].strip()
            errors[msg] = errors.get(msg, 0) + 1
    for msg, n in errors.items():
        part.notes.append(f'parser: {msg}' + (f' ({n} times)' if n > 1 else ''))
    if test.expected_count is None:
        part.notes.append('no plan (1..N) after the version line')
        c.errors += 1
    part.failed += own_failures(kp, test, '', part.notes)
    if beyond:
        part.notes.append(f'{beyond} results beyond the plan')
        part.failed += 1
    if c.errors and not part.failed:
        part.failed = 1
    for sub in test.subtests:
        if sub.subtests:
            s = sub.counts
            part.groups.append(f'{name}: {sub.name}: {s.passed} passed, '
                               f'{s.failed + s.crashed} failed, {s.skipped} skipped')
    return part


def total(kp, sink, args):
    parts = []
    for spec in args.parts:
        name, sep, path = spec.partition('=')
        if not sep:
            sys.exit(f'ktap-total: {spec}: want PART=LOG')
        parts.append(read_part(kp, sink, name, path))
    p = f = s = 0
    for part in parts:
        for g in part.groups:
            print(g)
        for note in part.notes:
            print(f'{part.name}: {note}')
        print(part.line())
        p, f, s = p + part.passed, f + part.failed, s + part.skipped
    print(f'{args.name}: {p} passed, {f} failed, {s} skipped')
    return 1 if f else 0


def emit(kp, test, num, indent, out):
    """Print @test as KTAP: its subtests nested, then its result line."""
    if test.subtests:
        inner = indent + '    '
        out.append(f'{inner}KTAP version 1')
        out.append(f'{inner}# Subtest: {test.name}')
        out.append(f'{inner}1..{len(test.subtests)}')
        for i, sub in enumerate(test.subtests, 1):
            emit(kp, sub, i, inner, out)
    name = test.name or '(missing: not reported)'
    status = test.status
    if status == kp.TestStatus.SUCCESS:
        out.append(f'{indent}ok {num} {name}')
        return
    if status == kp.TestStatus.SKIPPED:
        out.append(f'{indent}ok {num} {name} # SKIP')
        return
    if not test.subtests:
        for line in test.log:
            line = line.strip()
            if line:
                out.append(f'{indent}{line if line.startswith("#") else "# " + line}')
    why = {kp.TestStatus.TEST_CRASHED: ' # crashed',
           kp.TestStatus.NO_TESTS: ' # no tests run'}.get(status, '')
    out.append(f'{indent}not ok {num} {name}{why}')


def kunit(kp, args):
    try:
        with open(args.log, errors='replace') as f:
            text = f.read().splitlines()
    except OSError:
        text = []
    lines = kp.extract_tap_lines(text)
    try:
        suites = kp.parse_test(lines, 0, [], False).subtests if lines else []
    except Stalled as e:
        print(f'# ktap-total: malformed KTAP in {args.log}: {e}')
        suites = []
    named = [t for t in suites if t.name]
    unnamed = len(suites) - len(named)
    seen = {t.name for t in named}
    missing = [s for s in args.suites if s not in seen]
    out = []
    num = args.first
    bad = False
    for t in named:
        emit(kp, t, num, '', out)
        bad = bad or not t.ok_status()
        num += 1
    for s in missing:
        out.append(f'not ok {num} {s} # missing: not run, crashed or hung')
        num += 1
    for _ in range(unnamed - len(missing)):
        out.append(f'not ok {num} (a suite the kernel planned did not report)')
        num += 1
    print('\n'.join(out))
    return 1 if bad or missing or unnamed > len(missing) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('--tree', required=True,
                    help='the kernel source tree (its tools/testing/kunit)')
    sub = ap.add_subparsers(dest='cmd', required=True)
    t = sub.add_parser('total')
    t.add_argument('--name', default='total')
    t.add_argument('parts', nargs='+', metavar='PART=LOG')
    k = sub.add_parser('kunit')
    k.add_argument('log')
    k.add_argument('first', type=int)
    k.add_argument('suites', nargs='*')
    args = ap.parse_args()
    kp, sink = load_parser(args.tree)
    if args.cmd == 'total':
        return total(kp, sink, args)
    return kunit(kp, args)


if __name__ == '__main__':
    sys.exit(main())
