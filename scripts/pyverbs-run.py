#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs test suite (as run_tests.py does) on one device
and print one line per test module: 'pyverbs: <module> P passed, S skipped,
F failed', then every test that passed, every failure and the reason of
every skip.

Usage: pyverbs-run.py TESTS_DIR DEVICE [MODULE=REASON ...]
TESTS_DIR holds the suite as Debian ships it, gunzipped
(/usr/share/doc/rdma-core/tests). Each MODULE=REASON skips the tests of
that module (e.g. test_rdmacm) with REASON: a feature the device does not
have yet, named in Documentation/userspace.rst.
"""

import collections
import importlib.machinery
import os
import sys
import unittest


def main():
    tests_dir, dev = sys.argv[1], sys.argv[2]
    unsupported = dict(a.split('=', 1) for a in sys.argv[3:])
    sys.path.insert(0, tests_dir)
    sys.argv = [sys.argv[0], '--dev', dev]
    from args_parser import parser  # noqa: E402 (after the path)
    parser.parse_args()
    init = os.path.join(tests_dir, '__init__.py')
    tests = importlib.machinery.SourceFileLoader('tests', init).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)

    def mark(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                mark(t)
                continue
            mod = t.id().split('.')[1]
            if mod in unsupported:
                setattr(t, t._testMethodName,
                        unittest.skip(unsupported[mod])(
                            getattr(t, t._testMethodName)))
    mark(suite)

    counts = collections.defaultdict(lambda: [0, 0, 0])
    notes = []

    class Result(unittest.TextTestResult):
        def _mod(self, test):
            parts = test.id().split('.')
            return parts[1] if len(parts) > 2 else parts[0]

        def addSuccess(self, test):
            super().addSuccess(test)
            counts[self._mod(test)][0] += 1
            notes.append('pass %s' % test.id())

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            counts[self._mod(test)][1] += 1
            notes.append('skip %s: %s' % (test.id(), reason))

        def addFailure(self, test, err):
            super().addFailure(test, err)
            counts[self._mod(test)][2] += 1
            notes.append('FAIL %s' % test.id())

        def addError(self, test, err):
            super().addError(test, err)
            counts[self._mod(test)][2] += 1
            notes.append('FAIL %s (error)' % test.id())

    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=1,
                                     resultclass=Result).run(suite)
    for mod in sorted(counts):
        p, s, f = counts[mod]
        print('pyverbs: %s %d passed, %d skipped, %d failed' % (mod, p, s, f))
    for n in notes:
        print('pyverbs: %s' % n)
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
