#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make bench': run the vroce_bench KUnit suites (MTR, MR registration and
# its floor, registrations per second with 1 and 16 threads beside rxe,
# a registration step by step beside rxe, the command ring's rate and
# doorbells per command, the data path with 1 and 16 QP pairs beside rxe)
# in the bench flavour of the UML test kernel
# (and the data path again in an x86_64 one on two CPUs): the same sources
# and Kconfig as 'make check' without KASAN, lockdep, kmemleak and debugfs
# (VROCE_KERNEL=nodebug: kunit/configs/nodebug.config and
# nodebugfs.config), once with the C MTR and MR objects and once with the
# Rust ones, cached like the debug kernels. The kernels boot alternately
# VROCE_BENCH_BOOTS times (default 2); each figure is the best over the
# boots, which keeps boot-to-boot noise out of the Rust/C ratios. It
# asserts nothing about time. 'limit' does the same work in both kernels
# (a memcpy of the entries): its ratio shows how far apart the two sides
# are by noise alone.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
"$repo/scripts/install-deps.sh" check
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

boots=${VROCE_BENCH_BOOTS:-2}

# The 'vroce-bench:' lines of the suites matching $3 in the kernel that
# VROCE_KERNEL=$1 VROCE_ABI_IMPL=$2 pick; fails when the suite did not run
# or the kernel splatted (scripts/splat.sh).
# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"
suites() {
	(
		export VROCE_KERNEL=$1 VROCE_ABI_IMPL=$2
		. "$repo/scripts/kunit-env.sh"
		rm -f "$build/test.log"
		rc=0
		"${kunit[@]}" --kernel_args vroce_kunit.bench=1 "$3" \
			>"$build/bench.out" 2>&1 || rc=$?
		if [ $rc -ne 0 ] || ! grep -q 'vroce-bench:' "$build/test.log" 2>/dev/null; then
			cat "$build/bench.out" >&2
			echo "bench: $3 did not run in the $1 $2 kernel (exit $rc)" >&2
			exit 1
		fi
		if splats "$build/test.log" >&2; then
			echo "bench: kernel splats in $build/test.log" >&2
			exit 1
		fi
		grep -o 'vroce-bench:.*' "$build/test.log" | sed 's/^vroce-bench: //'
	)
}

run() {
	local impl=$1 boot=$2
	suites nodebug "$impl" 'vroce_bench*' >"$out/$impl.$boot"
	echo "== MTR in ${impl^}, bench kernel (no KASAN, lockdep, kmemleak, debugfs), boot $boot of $boots"
	cat "$out/$impl.$boot"
}

for boot in $(seq "$boots"); do
	run c "$boot"
	run rust "$boot"
done
cat "$out"/c.* >"$out/c"
cat "$out"/rust.* >"$out/rust"

# The rows of each case ("N pages of S KiB") in both outputs, side by side.
echo "== Rust/C, best of $boots boots each (ns per page or per registration, Rust side / C side; <= 1.05 is the goal)"
awk '
	function keep(side, key, v) {
		if (side == 1) {
			if (!(key in c)) order[++n] = key
			if (!(key in c) || v + 0 < c[key] + 0) c[key] = v
		} else if (!(key in r) || v + 0 < r[key] + 0) {
			r[key] = v
		}
	}
	FNR == 1 { file++ }
	/ pages of / { sub(/,.*/, ""); sub(/ \(.*\)/, ""); case_ = $0; next }
	/^(limit|vroce)/ && !/table bytes/ {
		name = $0; sub(/ +[0-9.]+ +.*/, "", name)
		split(substr($0, length(name) + 1), f, " ")
		keep(file, case_ ": " name, f[1])
	}
	/^mr / && !/ operation / {
		name = $0; sub(/^mr +/, "", name); sub(/ +[0-9]+ +[0-9]+$/, "", name)
		n2 = split($0, f, " ")
		keep(file, "MR registration: " name, f[n2 - 1])
		next
	}
	/table bytes per mapped page/ {
		v = $0; sub(/.*page: /, "", v); sub(/ .*/, "", v)
		keep(file, case_ ": table bytes/page", v)
	}
	END {
		printf "%-52s %8s %8s %8s\n", "figure (ns/page; MR: ns/op)", "C", "Rust", "Rust/C"
		for (i = 1; i <= n; i++) {
			k = order[i]
			ratio = (c[k] > 0 && r[k] > 0) ? sprintf("%.2fx", r[k] / c[k]) : "-"
			printf "%-52s %8s %8s %8s\n", k, c[k], r[k], ratio
		}
	}' "$out/c" "$out/rust"

# vroce beside rxe in the same kernel, every boot of the C kernel (the MR
# objects do not change these much; the Rust kernel's are above).
echo "== vroce beside rxe, C bench kernel, each boot (per second; ratios 16/1 and vroce/rxe)"
for f in "$out"/c.*; do
	grep -E '^(registrations|reg |ring |data path|dp |qps |floor |stages? |odp )' "$f"
done

# The per-QP engines on more than one CPU: UML has one, so the 16-pair
# rows above show what sharing it costs, not what the engines gain. The
# same suite in an x86_64 bench kernel under QEMU with two CPUs (TCG, a
# host thread each: slower than UML, so compare its ratios, not its rates).
echo "== data path on two CPUs: x86_64 bench kernel under QEMU -smp 2 (TCG), each boot"
for boot in $(seq "$boots"); do
	suites smp c 'vroce_bench_dp*' >"$out/smp.$boot"
	grep -E '^(data path|dp |qps |stages? )' "$out/smp.$boot"
done

# User space through the provider: perftest on vroce0 beside rxe, both
# command-mediated (vroce has no mapped rings yet), in the C test kernel.
echo "== perftest through libvroce (vroce0) and rxe (rxe0), C test kernel with debug options"
"$repo/scripts/userspace.sh" bench | grep -v '^\[' | sed -n '/^perftest,/,$p'

# issue 31's throughput table: message rate at 64 B with post lists and
# bandwidth at 64 KiB, vroce0 (default path and command-mediated) beside
# rxe0, against the memcpy bandwidth of the same kernel.
echo "== perftest rate and bandwidth, vroce0 beside rxe0, bench kernel (scripts/rate.sh)"
"$repo/scripts/rate.sh"
# The same table on two CPUs: Debian's kernel under QEMU (TCG) with
# vroce.ko built against its headers, rxe its own module.
echo "== the same on two CPUs: Debian's kernel under QEMU -smp 2 (scripts/qemu-bench.sh)"
rel=$("$repo/scripts/kernel-release.sh")
make -s -C "$repo" KDIR="$("$repo/scripts/kernel-release.sh" --headers)" modules >&2
"$repo/scripts/qemu-bench.sh" "$repo/vroce.ko" "$rel"
# Issue 34: RoCE v2 packets over a link between two kernels: rxe to rxe,
# vroce to vroce and vroce to rxe, each over its own socket link between
# two QEMU guests of that kernel, UD and RC (not over a veth pair in one
# kernel: rxe's socket and routes are the initial namespace's, so two rxe
# ends would share one stack, which loops their packets locally).
echo "== RoCE v2 over a link between two QEMU guests (scripts/qemu-link-bench.sh)"
"$repo/scripts/qemu-link-bench.sh" "$repo/vroce.ko" "$rel"
# issue 31, lend: one round trip's latency on UML's one CPU, polling as a
# user runs the programs (and with -e, events), vroce0 with lent doorbells
# and without them (module parameter lend=0) beside rxe0, in the bench
# kernel (no KASAN or lockdep: PREEMPT_NONE, HZ=100, as a user's UML).
# The x86_64 two-CPU kernel above runs KUnit only (no user space), so
# these figures are UML's.
echo "== latency through libvroce (vroce0, lend=1 and lend=0) and rxe (rxe0), bench kernel"
VROCE_KERNEL=nodebug "$repo/scripts/userspace.sh" lat | grep -v '^\[' |
	sed -n '/^latency,/,$p'

# NVMe over RDMA, the kernel's own host and target, on vroce0 and on rxe in
# the bench kernel: 4 KiB I/O at queue depth 1.
echo "== NVMe over RDMA (nvmet-rdma + nvme-rdma) on vroce0 and rxe0, bench kernel"
VROCE_KERNEL=nodebug "$repo/scripts/nvmeof.sh" bench | grep -E '^(nvmeof-bench:|(not )?ok [0-9])'
