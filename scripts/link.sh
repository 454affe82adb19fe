#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 34: a vroce port on a netdev ('rdma link add ... type vroce') and
# rxe on the two ends of a veth pair, in two network namespaces of the C
# test kernel: scripts/link-guest.sh through the provider built here, no
# HCA plugged in at load (vroce.num_hcas=0). KTAP (scripts/ktap.sh,
# through scripts/uml-run.sh --ktap).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-link.XXXXXX)
trap 'rm -rf "$work"' EXIT
make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
# driver_async_probe: 'rdma link add' binds its HCA all the same (review
# of issue 34: an asynchronous probe failed every one).
VROCE_UML_ARGS="vroce.num_hcas=0 driver_async_probe=vroce ${VROCE_UML_ARGS:-}" \
	"$repo/scripts/uml-run.sh" --ktap link \
	"$repo/scripts/link-guest.sh $work/libvroce ${mhz:-1000}"
