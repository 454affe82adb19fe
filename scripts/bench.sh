#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make bench': run the vroce_bench KUnit suite in the UML test kernel (the
# same cached kernel as 'make check') and print its figures. It asserts
# nothing about time. The test kernel has KASAN and lockdep on: compare the
# ratios, not the absolute nanoseconds.
set -euo pipefail

"$(dirname "$0")/install-deps.sh"
. "$(dirname "$0")/kunit-env.sh"

rm -f "$build/test.log"
rc=0
"${kunit[@]}" --kernel_args vroce_kunit.bench=1 'vroce_bench' >"$build/bench.out" 2>&1 || rc=$?
if [ $rc -ne 0 ] || ! grep -q 'vroce-bench:' "$build/test.log" 2>/dev/null; then
	cat "$build/bench.out"
	echo "bench: the vroce_bench suite did not run (exit $rc)" >&2
	exit 1
fi
grep -o 'vroce-bench:.*' "$build/test.log" | sed 's/^vroce-bench: //'
