#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything CI runs ('make check'), from a fresh Debian 12 machine:
#   1. install what is missing (apt, idempotent), print the kernel
#      release picked (scripts/kernel-pick.sh), and test that pick on
#      recorded apt-cache outputs (scripts/kernel-pick-test.sh)
#   2. build vroce.ko against Debian's headers of every kernel line with the
#      RDMA core (6.12 and 6.1, amd64 and rt-amd64) with gcc, W=1 and
#      sparse (C=2), checkpatch --strict, kernel-doc, docutils: all clean;
#      'make install' into a staging directory, unsigned and signed;
#      'make dkms' and 'make dkms-remove' for every one of them (nothing
#      left behind), the DKMS-built module loaded into Debian's own 6.12,
#      6.12-rt and 6.1 kernels under QEMU (rping, NVMe over RDMA); the
#      Debian packages (vroce-dkms, libvroce, source) built, lintian
#      clean, installed (built for every kernel) and purged
#   3. KUnit in a clang-built UML kernel with the kernel's own ib_core,
#      with the C MTR
#   4. the raw-uverbs user-space test, run inside that kernel
#   5. 3 and 4 again in a CONFIG_RUST UML kernel with the Rust MTR and MR
#      objects (CONFIG_VROCE_ABI_RUST); the MTR, MR, QP and fault suites
#      must count the same
#   6. rustfmt, clippy and the checked-in bindings (scripts/rust-lint.sh);
#      vroce.ko with the Rust objects built out of tree as a loadable
#      module against an x86_64 CONFIG_RUST 6.12 kernel (built once,
#      cached) and loaded under QEMU (scripts/rust-module.sh)
#   7. the KUnit suites again in a kernel without the debug options and
#      without debugfs (VROCE_KERNEL=nodebug), with the MR cache off; and
#      in a 6.1 UML kernel (VROCE_KLINE=6.1), against 6.1's ib_core
#   8. the MTR host harness and a bounded libFuzzer run (ASan, UBSan)
#   9. rdma-core's tools and perftest through the provider (c/provider/)
#      on vroce0 and on rxe, side by side, in the C test kernel; a process
#      holding vroce0 while it is unbound or its HCA hangs, and HCAs
#      plugged in and out at run time (scripts/unplug.sh); the verbs
#      sequence fuzzer, bounded (scripts/fuzz.sh)
#  10. rping and ucmatose between two HCAs on the wire (vroce0, vroce1);
#      issue 34: a vroce port on a veth end ('rdma link add ... type vroce')
#      and rxe on the other, in two namespaces: ibv_ud_pingpong and udaddy
#      both ways, tshark on a capture, hostile frames (scripts/link.sh)
#  11. NVMe over RDMA: nvmet-rdma on vroce0's address, 'nvme connect' from
#      Debian's nvme-cli, a pattern written and read back, disconnect;
#      the same over rxe
# Each part prints KTAP (scripts/ktap.sh; KUnit's own, nested, in
# kunit.sh); scripts/ktap-total.py reads them all with the kernel's KTAP
# parser and adds them up. A part without its KTAP counts as a failure.
# The last line counts the tests: 'check: N passed, N failed, N skipped'.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
t0=$(date +%s)
stamp() { echo "== check: $* ($(( $(date +%s) - t0 )) s)"; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

stamp "dependencies"
scripts/install-deps.sh check

rc=0
stamp "the kernel-release chooser on recorded apt-cache outputs"
scripts/kernel-pick-test.sh 2>&1 | tee "$logs/kernel-pick" || rc=1

# A finding here ends make check at once, as it always has.
stamp "module build (W=1), sparse (every kernel line), checkpatch, kernel-doc, docs"
scripts/lint.sh 2>&1 | tee "$logs/lint"

stamp "make install into a staging directory (Debian's headers), modinfo"
scripts/install-test.sh 2>&1 | tee "$logs/install" || rc=1

stamp "make dkms and make dkms-remove for every kernel line; the module in Debian's 6.12, 6.12-rt and 6.1 kernels (QEMU)"
scripts/dkms-test.sh 2>&1 | tee "$logs/dkms" || rc=1

stamp "Debian packages: build, lintian, install, purge"
scripts/deb.sh install-test 2>&1 | tee "$logs/deb" || rc=1

for impl in c rust; do
	stamp "KUnit in UML (LLVM=1), MTR in $impl, MR cache on"
	VROCE_ABI_IMPL=$impl scripts/kunit.sh --kernel_args vroce.mr_cache=1 2>&1 |
		tee "$logs/kunit-$impl" || rc=1
	stamp "user space: raw uverbs test in the $impl test kernel"
	VROCE_ABI_IMPL=$impl scripts/uverbs.sh 2>&1 | tee "$logs/uverbs-$impl" || rc=1
done

# The kernel tree's tools/testing/kunit reads the parts' KTAP.
tree=$(scripts/kernel-tree.sh --no-wire) || rc=1
ktap_total() { python3 scripts/ktap-total.py --tree "$tree" total "$@"; }

# The same suites, unchanged, on both sides: the MTR's, and the MR and QP
# suites, which run the MR objects (fault injection is in vroce_fault),
# those of issue 30's verbs (rereg_mr re-registers through them), its
# memory windows (the window object, and windows through the HCA) and
# issue 31's (mapped rings, the HCA's checks of a process's WQEs, lent
# doorbells).
ktap_total kunit-c="$logs/kunit-c" kunit-rust="$logs/kunit-rust" >"$logs/suites" || true
for suite in vroce_mtr vroce_mr vroce_mr_cache vroce_qp vroce_dead vroce_ud vroce_cm vroce_fault \
	     vroce_srq vroce_atomic vroce_uc vroce_mcast vroce_resize vroce_counters \
	     vroce_inline vroce_rereg vroce_bigmsg vroce_mw_obj vroce_mw \
	     vroce_hca_user vroce_map vroce_lend; do
	in_c=$(sed -n "s/^kunit-c: \($suite: .*\)/\1/p" "$logs/suites")
	in_rust=$(sed -n "s/^kunit-rust: \($suite: .*\)/\1/p" "$logs/suites")
	in_c=${in_c:-none} in_rust=${in_rust:-none}
	echo "check: $suite, C ABI:    $in_c"
	echo "check: $suite, Rust ABI: $in_rust"
	if [ "$in_c" != "$in_rust" ] || [ "$in_c" = none ]; then
		echo "check: the $suite suite differs between the two kernels" >&2
		rc=1
	fi
done

stamp "Rust: rustfmt, clippy, bindings"
scripts/rust-lint.sh 2>&1 | tee "$logs/rust-lint" || rc=1

stamp "Rust: vroce.ko with the Rust objects as a module, in a CONFIG_RUST x86_64 kernel (QEMU)"
scripts/rust-module.sh 2>&1 | tee "$logs/rust-module" || rc=1

# The debug kernels run with the MR cache on (vroce.mr_cache=1), this one
# with it off (the default since issue 33): the MR and fault suites pass
# both ways.
stamp "KUnit in UML without debug options or debugfs, MTR in c, MR cache off"
VROCE_KERNEL=nodebug scripts/kunit.sh 2>&1 | tee "$logs/kunit-nodebug" || rc=1

# Issue 32: the same suites against 6.1's KUnit and ib_core, in a UML
# kernel from Debian's linux-source-6.1 (Documentation/compat.rst).
stamp "KUnit in a 6.1 UML kernel (linux-source-6.1, LLVM=1, debug options), MTR in c, MR cache on"
VROCE_KLINE=6.1 scripts/kunit.sh --kernel_args vroce.mr_cache=1 2>&1 |
	tee "$logs/kunit-6.1" || rc=1

stamp "host harness and fuzzer: c/abi/vroce_mtr.c with ASan, UBSan, libFuzzer"
scripts/host-test.sh 2>&1 | tee "$logs/host" || rc=1

stamp "user space: ibv_* tools and perftest through libvroce, beside rxe"
scripts/userspace.sh 2>&1 | tee "$logs/userspace" || rc=1

stamp "devices that go under a live process: unbind, a hung HCA, plugging at run time"
scripts/unplug.sh 2>&1 | tee "$logs/unplug" || rc=1

stamp "the verbs sequence fuzzer: libibverbs and raw uverbs, several processes, KASAN"
scripts/fuzz.sh 2>&1 | tee "$logs/fuzz" || rc=1

stamp "rdma_cm programs (rping, ucmatose) between vroce0 and vroce1"
scripts/rdmacm.sh 2>&1 | tee "$logs/rdmacm" || rc=1

stamp "issue 34: a vroce port on a veth end ('rdma link add') and rxe on the other, across namespaces"
scripts/link.sh 2>&1 | tee "$logs/link" || rc=1

stamp "NVMe over RDMA (nvmet-rdma, nvme-rdma) on vroce0, beside rxe"
scripts/nvmeof.sh 2>&1 | tee "$logs/nvmeof" || rc=1

stamp "NVMe over RDMA with the target on shared receive queues (use_srq=1)"
scripts/nvmeof.sh srq 2>&1 | tee "$logs/nvmeof-srq" || rc=1

# Every part's KTAP, added up; a part without any counts as a failure. The
# last line is the sum: 'check: N passed, N failed, N skipped'.
stamp "done"
parts=()
for p in kernel-pick lint install dkms deb kunit-c uverbs-c kunit-rust uverbs-rust \
	 rust-lint rust-module kunit-nodebug kunit-6.1 host userspace unplug fuzz rdmacm link \
	 nvmeof; do
	parts+=("$p=$logs/$p")
done
# Shared receive queues: the NVMe-oF target in SRQ mode.
parts+=("nvmeof-srq=$logs/nvmeof-srq")
total=$(ktap_total --name check "${parts[@]}") || rc=1
printf '%s\n' "$total"
if ! tail -n 1 <<<"$total" | grep -qE '^check: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'; then
	echo "check: 0 passed, 1 failed, 0 skipped"	# the parts could not be read
	rc=1
fi
exit $rc
