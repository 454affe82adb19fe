#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything CI runs ('make check'), from a fresh Debian 12 machine:
#   1. install what is missing (apt, idempotent)
#   2. build vroce.ko against Debian's 6.12 headers with gcc, W=1 and
#      sparse (C=2), checkpatch --strict, kernel-doc, docutils: all clean
#   3. KUnit in a clang-built UML kernel with the kernel's own ib_core
#   4. the raw-uverbs user-space test, run inside that kernel
# The last line counts both: 'check: N passed, N failed, N skipped'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
t0=$(date +%s)
stamp() { echo "== check: $* ($(( $(date +%s) - t0 )) s)"; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

stamp "dependencies"
scripts/install-deps.sh

stamp "module build (W=1), sparse, checkpatch, kernel-doc, docs"
scripts/lint.sh

rc=0
stamp "KUnit in UML (LLVM=1)"
scripts/kunit.sh 2>&1 | tee "$logs/kunit" || rc=1
stamp "user space: raw uverbs test in the test kernel"
scripts/uverbs.sh 2>&1 | tee "$logs/uverbs" || rc=1

# Add up the two closing lines; a missing one counts as a failure.
total() {
	awk -v want="$2" '
		$1 == want":" && $3 == "passed," { p = $2; f = $4; s = $6 + 0; seen = 1 }
		END { if (!seen) { p = 0; f = 1; s = 0 } print p, f, s }' "$1"
}
read -r kp kf ks < <(total "$logs/kunit" vroce)
read -r up uf us < <(total "$logs/uverbs" uverbs)
[ "$kf" -eq 0 ] && [ "$uf" -eq 0 ] || rc=1
stamp "done"
echo "check: $((kp + up)) passed, $((kf + uf)) failed, $((ks + us)) skipped"
exit $rc
