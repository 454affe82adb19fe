#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the raw-uverbs user-space test (kunit/uverbs/) and run it in the
# test kernel: it registers a user buffer through /dev/infiniband/uverbs*
# and has the emulated HCA read it back through the MR. Its last line is
# 'uverbs: N passed, N failed'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp /tmp/vroce_uverbs_test.XXXXXX)
trap 'rm -f "$bin"' EXIT
gcc -O2 -pthread -Wall -Wextra -Werror -o "$bin" "$repo/kunit/uverbs/vroce_uverbs_test.c"
"$repo/scripts/uml-run.sh" "$bin"
