#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA on vroce, the kernel's own storage stack as the client:
# boots the C test kernel (scripts/uml-run.sh) with a memory-backed
# null_blk, exports it through nvmet-rdma on vroce0's address, connects
# with Debian's nvme-cli ('nvme connect -t rdma'), writes a pattern with
# dd, reads it back, compares and disconnects; then the same over rxe.
# 'bench' times 4 KiB I/O at queue depth 1 instead and prints IOPS and
# latency of both. KTAP (scripts/ktap.sh); with 'check', through
# scripts/uml-run.sh --ktap.
#
# 'srq' is 'check' with the target's queues on shared receive queues
# (nvmet_rdma.use_srq=1, a parameter fixed at boot).
#
# Usage: scripts/nvmeof.sh [check|bench|srq]
set -euo pipefail
mode=${1:-check}
repo=$(cd "$(dirname "$0")/.." && pwd)
ktap=(--ktap nvmeof)
[ "$mode" = bench ] && ktap=()
srq=
[ "$mode" = srq ] && srq="nvmet_rdma.use_srq=1"
VROCE_UML_ARGS="null_blk.memory_backed=1 null_blk.gb=1 $srq ${VROCE_UML_ARGS:-}" \
	"$repo/scripts/uml-run.sh" "${ktap[@]}" "$repo/scripts/nvmeof-guest.sh $mode"
