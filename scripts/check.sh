#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything CI runs ('make check'), from a fresh Debian 12 machine:
#   1. install what is missing (apt, idempotent)
#   2. build vroce.ko against Debian's 6.12 headers with gcc, W=1 and
#      sparse (C=2), checkpatch --strict and kernel-doc: all clean
#   3. KUnit in a clang-built UML kernel with the kernel's own ib_core
# The last line is the KUnit count: 'vroce: N passed, N failed, N skipped'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
t0=$(date +%s)
stamp() { echo "== check: $* ($(( $(date +%s) - t0 )) s)"; }

stamp "dependencies"
scripts/install-deps.sh

stamp "module build (W=1), sparse, checkpatch, kernel-doc"
scripts/lint.sh

stamp "KUnit in UML (LLVM=1)"
scripts/kunit.sh
