#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the raw-uverbs user-space test (kunit/uverbs/) and run it in the
# test kernel: it registers a user buffer through /dev/infiniband/uverbs*
# and has the emulated HCA read it back through the MR. KTAP
# (scripts/ktap.sh): in the test kernel, the program's checks (nested) and
# kmemleak after it; the console free of splats (scripts/uml-run.sh).
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
. "$repo/scripts/ktap.sh"
ktap_print_header
ktap_set_plan 2
ktap_subtest "vroce_uverbs_test" "$bin"
k=/sys/kernel/debug/kmemleak
if [ -e \$k ]; then
	sleep 6
	echo scan >\$k
	echo scan >\$k
	if grep -q vroce \$k; then
		sed 's/^/# /' \$k
		ktap_test_fail "kmemleak: no leak through vroce"
	else
		ktap_test_pass "kmemleak: no leak through vroce"
	fi
else
	ktap_test_skip "kmemleak: no leak through vroce" "no kmemleak in this kernel"
fi
ktap_finished
RUN
chmod +x "$run"
"$repo/scripts/uml-run.sh" --ktap uverbs "$run"
