#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's rdma_cm programs (rping, ucmatose from rdmacm-utils) between
# two HCAs on the emulated wire: boots the C test kernel with
# vroce.num_hcas=2 and runs scripts/rdmacm-guest.sh through the provider
# built here. KTAP (scripts/ktap.sh, through scripts/uml-run.sh --ktap).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-rdmacm.XXXXXX)
trap 'rm -rf "$work"' EXIT
make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
VROCE_UML_ARGS="vroce.num_hcas=2 ${VROCE_UML_ARGS:-}" \
	"$repo/scripts/uml-run.sh" --ktap rdmacm "$repo/scripts/rdmacm-guest.sh $work/libvroce"
