#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The MTR host harness (kunit/host/, after tools/testing/vma): c/driver/vroce_mtr.c
# and the HCA's table walker (c/hca/vroce_hca_mtt.c) built as user-space
# programs by kunit/host/Makefile, with clang, ASan and UBSan.
#   0. the shim's min() and max() refuse mixed signedness (make minmax)
#   1. vroce_mtr_host: the table of cases, each allocation failed in turn
#   2. vroce_mtr_fuzz: libFuzzer for VROCE_FUZZ_SECONDS (default 60) from
#      the checked-in corpus kunit/host/corpus/ (new inputs go to a
#      scratch copy; a crash input is printed, to be added to the corpus)
# Last line: 'host: N passed, N failed, 0 skipped'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
host=$repo/kunit/host
secs=${VROCE_FUZZ_SECONDS:-60}
work=$(mktemp -d /tmp/vroce-host.XXXXXX)
trap 'rm -rf "$work"' EXIT

pass=0 fail=0
echo "host: building the harness and the fuzzer (clang, ASan, UBSan)"
make -s -C "$host" OUT="$work" -j"$(nproc)"
if make -s -C "$host" OUT="$work" minmax; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
start=$(date +%s)
if "$work/vroce_mtr_host" | tee "$work/host.log" | grep -v ': ok: '; then :; fi
if tail -n 1 "$work/host.log" | grep -q ' 0 failed$'; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
fi
echo "host: harness took $(( $(date +%s) - start )) s"

mkdir "$work/corpus"
cp "$host"/corpus/* "$work/corpus/" 2>/dev/null || true
echo "host: fuzzing for $secs s from $(ls "$work/corpus" | wc -l) corpus inputs"
if (cd "$work" && ./vroce_mtr_fuzz -max_total_time="$secs" -max_len=128 \
	-print_final_stats=1 -artifact_prefix="$work/" corpus \
	>"$work/fuzz.log" 2>&1); then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	grep -E 'vroce_host:|ERROR|SUMMARY' "$work/fuzz.log" || true
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-*; do
		[ -e "$f" ] || continue
		mkdir -p "$repo/kunit/host/crashes"
		cp "$f" "$repo/kunit/host/crashes/"
		echo "host: fuzzer input kept in kunit/host/crashes/$(basename "$f");" \
		     "add it to kunit/host/corpus/ with the fix"
	done
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log")
echo "host: fuzzer: ${runs:-0} runs, ${rate:-0} executions per second," \
     "corpus now $(ls "$work/corpus" | wc -l) inputs"
echo "host: $pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
