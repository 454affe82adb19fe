#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Devices that go while a process holds them, in the C test kernel: hot
# unplug (the driver unbound through sysfs), an HCA that stops answering
# (debugfs knob 'hang'), and HCAs plugged in and out at run time
# (vroce_hca/new_device, del_device); rxe beside it for the unplug. The
# process is kunit/userspace/vroce_unplug_test.c; scripts/unplug-guest.sh
# drives it. KTAP (scripts/ktap.sh, through scripts/uml-run.sh --ktap).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-unplug.XXXXXX)
trap 'rm -rf "$work"' EXIT

make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
gcc -O2 -pthread -Wall -Wextra -Werror -o "$work/vroce_unplug_test" \
	"$repo/kunit/userspace/vroce_unplug_test.c" -libverbs
"$repo/scripts/uml-run.sh" --ktap unplug "$repo/scripts/unplug-guest.sh $work/libvroce $work"
