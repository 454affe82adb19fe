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
run=$(mktemp /tmp/vroce_uverbs_run.XXXXXX)
trap 'rm -f "$bin" "$run"' EXIT
gcc -O2 -pthread -Wall -Wextra -Werror -o "$bin" "$repo/kunit/uverbs/vroce_uverbs_test.c"

# The program, then kmemleak (where the kernel has it): objects younger
# than 5 s are not reported, so wait, scan twice, and fail on any leak
# allocated through vroce.
cat >"$run" <<RUN
#!/bin/sh
"$bin"
rc=\$?
k=/sys/kernel/debug/kmemleak
if [ -e \$k ]; then
	sleep 6
	echo scan >\$k
	echo scan >\$k
	if grep -q vroce \$k; then
		cat \$k
		echo "uverbs: kmemleak: leaks through vroce"
		rc=1
	else
		echo "uverbs: kmemleak: no leak through vroce"
	fi
fi
exit \$rc
RUN
chmod +x "$run"
"$repo/scripts/uml-run.sh" "$run"
