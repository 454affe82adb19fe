#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's throughput table (issue 31): perftest's message rate at 64
# bytes with post lists and its bandwidth at 64 KiB on vroce0, by the
# provider's default path and by the command-mediated one
# (VROCE_NO_MAP=1), beside rxe0 in the same test kernel, and the memcpy
# bandwidth of that kernel (scripts/rate-guest.sh). The bench kernel
# (VROCE_KERNEL=nodebug) unless VROCE_KERNEL says otherwise. Prints
# figures; fails only when the kernel did not run the script. With
# VROCE_RATE_KEEP=DIR the programs' output is left in DIR; with
# VROCE_RATE_LEND=0 (or 1) the module parameter lend is set first (the
# doorbell runs in the poster's context or not); VROCE_RATE_ROWS=lat (or
# rate) prints only the latency (or the rate) table; VROCE_RATE_PARAMS=
# "NAME=VALUE ..." sets module parameters first (handoff_us=0, lend=0).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-rate.XXXXXX)
trap 'rm -rf "$work"' EXIT

make -s -C "$repo" provider PROVIDER_OUT="$work" >&2
gcc -O2 -Wall -Wextra -Werror -o "$work/vroce_memcpy_bw" \
	"$repo/kunit/userspace/vroce_memcpy_bw.c"
gcc -O2 -Wall -Wextra -Werror -o "$work/vroce_syscall_lat" \
	"$repo/kunit/userspace/vroce_syscall_lat.c"
mkdir -p "$work/log"
mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
VROCE_KERNEL=${VROCE_KERNEL:-nodebug} VROCE_UML_TIMEOUT=${VROCE_UML_TIMEOUT:-900} \
	"$repo/scripts/uml-run.sh" \
	"VROCE_RATE_LEND=${VROCE_RATE_LEND:-} VROCE_RATE_ROWS=${VROCE_RATE_ROWS:-} VROCE_RATE_PARAMS='${VROCE_RATE_PARAMS:-}' $repo/scripts/rate-guest.sh $work/libvroce ${mhz:-1000} $work/vroce_memcpy_bw ${VROCE_RATE_SECS:-2} $work/log $work/vroce_syscall_lat" |
	grep '^rate:' | sed 's/^rate: //'
if [ -n "${VROCE_RATE_KEEP:-}" ]; then
	mkdir -p "$VROCE_RATE_KEEP"
	cp -r "$work/log/." "$VROCE_RATE_KEEP/"
fi
