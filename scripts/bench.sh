#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make bench': run the vroce_bench KUnit suite in both UML test kernels
# (the cached ones 'make check' builds): the C MTR and the Rust MTR. Print
# each kernel's figures, then the Rust/C ratio per figure. It asserts
# nothing about time. The test kernels have KASAN and lockdep on: compare
# the ratios, not the absolute nanoseconds. 'limit' does the same work in
# both kernels (a memcpy of the entries): its ratio shows how far apart the
# two boots are by noise alone.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
"$repo/scripts/install-deps.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {
	local impl=$1
	(
		export VROCE_MTR_IMPL=$impl
		. "$repo/scripts/kunit-env.sh"
		rm -f "$build/test.log"
		rc=0
		"${kunit[@]}" --kernel_args vroce_kunit.bench=1 'vroce_bench*' \
			>"$build/bench.out" 2>&1 || rc=$?
		if [ $rc -ne 0 ] || ! grep -q 'vroce-bench:' "$build/test.log" 2>/dev/null; then
			cat "$build/bench.out" >&2
			echo "bench: the vroce_bench suite did not run in the $impl kernel (exit $rc)" >&2
			exit 1
		fi
		grep -o 'vroce-bench:.*' "$build/test.log" | sed 's/^vroce-bench: //'
	) >"$out/$impl"
	echo "== MTR in ${impl^}"
	cat "$out/$impl"
}

run c
run rust

# The rows of each case ("N pages of S KiB") in both outputs, side by side.
echo "== Rust/C (ns per page or per registration, Rust side / C side; <= 1.05 is the goal)"
awk '
	FNR == 1 { file++ }
	/ pages of / { sub(/,.*/, ""); sub(/ \(.*\)/, ""); case_ = $0; next }
	/^(limit|vroce)/ && !/table bytes/ {
		name = $0; sub(/ +[0-9.]+ +.*/, "", name)
		ns = $0; sub(/^[^0-9]*/, "", ns); split(ns, f, " ")
		key = case_ ": " name
		if (file == 1) { c[key] = f[1]; order[++n] = key } else { r[key] = f[1] }
	}
	/^mr / && !/ operation / {
		name = $0; sub(/^mr +/, "", name); sub(/ +[0-9]+ +[0-9]+$/, "", name)
		n2 = split($0, f, " ")
		key = "MR registration: " name
		if (file == 1) { c[key] = f[n2 - 1]; order[++n] = key } else { r[key] = f[n2 - 1] }
		next
	}
	/table bytes per mapped page/ {
		key = case_ ": table bytes/page"
		v = $0; sub(/.*page: /, "", v); sub(/ .*/, "", v)
		if (file == 1) { c[key] = v; order[++n] = key } else { r[key] = v }
	}
	END {
		printf "%-52s %8s %8s %8s\n", "figure (ns/page; MR: ns/op)", "C", "Rust", "Rust/C"
		for (i = 1; i <= n; i++) {
			k = order[i]
			ratio = (c[k] > 0 && k in r) ? sprintf("%.2fx", r[k] / c[k]) : "-"
			printf "%-52s %8s %8s %8s\n", k, c[k], r[k], ratio
		}
	}' "$out/c" "$out/rust"

# User space through the provider: perftest on vroce0 beside rxe, both
# command-mediated (vroce has no mapped rings yet), in the C test kernel.
echo "== perftest through libvroce (vroce0) and rxe (rxe0), C test kernel with debug options"
"$repo/scripts/userspace.sh" bench | grep -v '^\[' | sed -n '/^perftest,/,$p'
