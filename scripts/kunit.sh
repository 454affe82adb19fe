#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a clang (LLVM=1) UML kernel from the cached linux-source-6.12 tree
# with this checkout wired in, run the vroce_* KUnit suites in it through
# tools/testing/kunit/kunit.py, and count their results from the KTAP log.
#
# The build dir is cached under $VROCE_CACHE/build, keyed by kernel version,
# arch, toolchain and a hash of kunit/.kunitconfig: a second run only
# rebuilds what changed.
#
# A filter, kunit.py's suite[.case] glob, in VROCE_KUNIT_FILTER (make
# kunit FILTER='vroce_qp.reused_*'): only the suites it names must report.
# Extra arguments go to kunit.py run (for example --kernel_args).
set -euo pipefail

. "$(dirname "$0")/kunit-env.sh"

# Every suite the sources declare must report.
filter=${VROCE_KUNIT_FILTER:-vroce_*}
mapfile -t suites < <(grep -ho '\.name = "vroce_[a-z0-9_]*"' "$repo"/kunit/*.c |
		      sed 's/.*"\(.*\)"/\1/' | sort -u |
		      while read -r s; do
			      # shellcheck disable=SC2053 # a glob on purpose
			      [[ $s == ${filter%%.*} ]] && echo "$s"
		      done)
[ ${#suites[@]} -gt 0 ] || { echo "kunit: no vroce_* suite matches '$filter'" >&2; exit 1; }

rm -f "$build/test.log"
start=$(date +%s)
rc=0
"${kunit[@]}" "$@" "$filter" || rc=$?
echo "kunit: kunit.py finished in $(( $(date +%s) - start )) s (exit $rc)"

# The debug options asked for must have survived olddefconfig; kunit.py
# already refuses a config that lost any, this says which are on.
on=$(grep -oE '^CONFIG_(KASAN|PROVE_LOCKING|DEBUG_KMEMLEAK|DEBUG_LIST|FORTIFY_SOURCE|PREEMPT)=y' \
	"$build/.config" | sed 's/^CONFIG_//; s/=y$//' | xargs || true)
echo "kunit: debug options enabled: ${on:-none}"

if [ ! -s "$build/test.log" ]; then
	echo "kunit: no test log (build or boot failed)" >&2
	echo "vroce: 0 passed, ${#suites[@]} failed"
	exit 1
fi
# A splat fails the run even where no assertion noticed it: KASAN, lockdep,
# WARN_ON, soft lockups, kmemleak reports.
# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"
splat_rc=0
if splats "$build/test.log"; then
	echo "kunit: kernel splats in $build/test.log" >&2
	splat_rc=1
fi

sum_rc=0
python3 "$repo/scripts/ktap-summary.py" "$build/test.log" "${suites[@]}" || sum_rc=$?
[ $rc -eq 0 ] && [ $splat_rc -eq 0 ] && [ $sum_rc -eq 0 ]
