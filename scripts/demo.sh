#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make demo': build what is needed, boot the test kernel with vroce built
# in (UML, the host's root as hostfs), and on its emulated HCA vroce0
# register a DMA MR, a fast-register MR and a user MR, move bytes through
# them with the HCA, and print what 'rdma' shows.
#
# It installs only what it uses (scripts/install-deps.sh demo) and boots
# the lightest test kernel (VROCE_KERNEL=demo: no debug options, gcc).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
"$repo/scripts/install-deps.sh" demo
export VROCE_KERNEL=${VROCE_KERNEL:-demo}
bin=$(mktemp /tmp/vroce_uverbs_test.XXXXXX)
trap 'rm -f "$bin"' EXIT
gcc -O2 -pthread -Wall -Wextra -Werror -o "$bin" "$repo/kunit/uverbs/vroce_uverbs_test.c"
prov=$(mktemp -d /tmp/vroce_provider.XXXXXX)
trap 'rm -f "$bin"; rm -rf "$prov"' EXIT
make -s -C "$repo" provider PROVIDER_OUT="$prov"
echo "demo: building (or reusing) the test kernel, then booting it" >&2
"$repo/scripts/uml-run.sh" "$repo/scripts/demo-guest.sh $bin $prov/libvroce"
# The kernel's own storage stack over vroce0: NVMe over RDMA (a second boot).
echo "demo: NVMe over RDMA, nvmet-rdma and 'nvme connect' on vroce0 (and rxe0)" >&2
"$repo/scripts/nvmeof.sh" check | grep -v 'dmesg'
