#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The MTR host harness (kunit/host/, after tools/testing/vma): the MTR
# (c/abi/vroce_mtr.c) and the HCA's table walker (c/hca/vroce_hca_mtt.c)
# built as user-space programs by kunit/host/Makefile, with clang, ASan
# and UBSan. KTAP (scripts/ktap.sh), four tests:
#   1. the build
#   2. the shim's min() and max() refuse mixed signedness (make minmax)
#   3. vroce_mtr_host: the table of cases, each allocation failed in turn
#      (its own KTAP, nested)
#   4. vroce_mtr_fuzz: libFuzzer for VROCE_FUZZ_SECONDS (default 60) from
#      the checked-in corpus kunit/host/corpus/ (new inputs go to a
#      scratch copy; a crash input is kept in kunit/host/crashes/, to be
#      added to the corpus)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
host=$repo/kunit/host
secs=${VROCE_FUZZ_SECONDS:-60}
work=$(mktemp -d /tmp/vroce-host.XXXXXX)
trap 'rm -rf "$work"' EXIT
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"

ktap_print_header
ktap_set_plan 4
ktap_print_msg "host: building the harness and the fuzzer (clang, ASan, UBSan)"
if make -s -C "$host" OUT="$work" -j"$(nproc)" >"$work/build.log" 2>&1; then
	ktap_test_pass "build (kunit/host/Makefile)"
else
	sed 's/^/# /' "$work/build.log"
	ktap_test_fail "build (kunit/host/Makefile)"
	ktap_test_skip "min() and max() refuse mixed signedness" "no build"
	ktap_test_skip "vroce_mtr_host" "no build"
	ktap_test_skip "vroce_mtr_fuzz" "no build"
	ktap_finished
fi

if make -s -C "$host" OUT="$work" minmax >"$work/minmax.log" 2>&1; then
	ktap_test_pass "min() and max() refuse mixed signedness"
else
	sed 's/^/# /' "$work/minmax.log"
	ktap_test_fail "min() and max() refuse mixed signedness"
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
start=$(date +%s)
ktap_subtest "vroce_mtr_host" "$work/vroce_mtr_host"
ktap_print_msg "host: harness took $(( $(date +%s) - start )) s"

mkdir "$work/corpus"
cp "$host"/corpus/* "$work/corpus/" 2>/dev/null || true
ktap_print_msg "host: fuzzing for $secs s from $(ls "$work/corpus" | wc -l) corpus inputs"
if (cd "$work" && ./vroce_mtr_fuzz -max_total_time="$secs" -max_len=128 \
	-print_final_stats=1 -artifact_prefix="$work/" corpus \
	>"$work/fuzz.log" 2>&1); then
	fuzz_ok=1
else
	fuzz_ok=0
	grep -E 'vroce_host:|ERROR|SUMMARY' "$work/fuzz.log" | sed 's/^/# /' || true
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$f" ] || continue
		mkdir -p "$repo/kunit/host/crashes"
		cp "$f" "$repo/kunit/host/crashes/"
		ktap_print_msg "host: fuzzer input kept in kunit/host/crashes/$(basename "$f");" \
			       "add it to kunit/host/corpus/ with the fix"
	done
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")
ktap_print_msg "host: fuzzer: ${runs:-0} runs, ${rate:-0} executions per second," \
	       "corpus now $(ls "$work/corpus" | wc -l) inputs"
if [ $fuzz_ok -eq 1 ]; then
	ktap_test_pass "vroce_mtr_fuzz for $secs s"
else
	ktap_test_fail "vroce_mtr_fuzz for $secs s"
fi
ktap_finished
