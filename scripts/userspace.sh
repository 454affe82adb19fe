#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Programs no one on this project wrote, on vroce0 and, for comparison, on
# rxe over a dummy netdev in the same test kernel: ibv_devices,
# ibv_devinfo -v, ibv_rc_pingpong between two processes, and perftest's
# ib_write_bw, ib_read_bw, ib_send_bw and ib_write_lat (client and server
# on the device). libibverbs (Debian's, rdma-core 44) loads the provider
# built here from c/provider/ through RDMAV_DRIVERS. Prints one row per
# program with the result on each device and the perftest figures; fails
# when a program fails on vroce. KTAP (scripts/ktap.sh, through
# scripts/uml-run.sh --ktap). With 'bench': perftest only, 1000
# iterations, figures side by side (make bench), no KTAP. With 'pyverbs':
# the pyverbs suite only. With 'lat' (issue 31): the latency table of
# 'bench' only (scripts/userspace-guest.sh), no KTAP.
set -euo pipefail
mode=${1:-check}

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-userspace.XXXXXX)
trap 'rm -rf "$work"' EXIT

make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
# Our own client of the provider's extended verbs (ibv_wr_*, cq_ex).
gcc -O2 -Wall -Wextra -Werror -o "$work/vroce_verbs_test" \
	"$repo/kunit/userspace/vroce_verbs_test.c" -libverbs
# Issue 33: ODP MRs under the address space's changes.
gcc -O2 -Wall -Wextra -Werror -o "$work/vroce_odp_test" \
	"$repo/kunit/userspace/vroce_odp_test.c" -libverbs
# Review of issue 31: the provider under the HCA's faults.
gcc -O2 -Wall -Wextra -Werror -rdynamic -o "$work/vroce_prov_test" \
	"$repo/kunit/userspace/vroce_prov_test.c" -libverbs -ldl -lpthread
# UML's /proc/cpuinfo has no clock rate, which perftest converts TSC
# cycles with: the guest script shows it the host's.
mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
# The tools, perftest and pyverbs on two devices take 4-5 minutes under
# UML: more than uml-run.sh's default of 300 s allows.
ktap=(--ktap userspace)
[ "$mode" = bench ] && ktap=()
[ "$mode" = lat ] && ktap=()	# issue 31: the latency table only
VROCE_UML_TIMEOUT=${VROCE_UML_TIMEOUT:-900} "$repo/scripts/uml-run.sh" "${ktap[@]}" \
	"VROCE_LAT_RUNS=${VROCE_LAT_RUNS:-3} $repo/scripts/userspace-guest.sh $work/libvroce ${mhz:-1000} $mode"
