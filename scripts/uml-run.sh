#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the cached UML test kernel (the one 'make check' builds, vroce built
# in) with the host's root file system as its root (hostfs), run a shell
# snippet as init, and print what it printed. KUnit does not run in this
# boot. The snippet runs as root inside the UML kernel with /proc, /sys,
# /dev (devtmpfs) and debugfs mounted and the checkout as working dir.
# A kernel splat on the console (scripts/splat.sh) fails the run.
#
# Usage: [VROCE_UML_ARGS="kernel args"] scripts/uml-run.sh [--ktap NAME] 'SHELL COMMANDS'
# Exit status: the snippet's; 1 when the kernel did not run it to its end
# or splatted.
# With --ktap NAME the snippet prints KTAP (scripts/ktap.sh), and so does
# this script: two tests, the snippet's document nested as NAME, and the
# console free of kernel splats.
set -euo pipefail

name=
if [ "${1:-}" = --ktap ] && [ $# -eq 3 ]; then
	name=$2
	shift 2
fi
[ $# -eq 1 ] || { echo "usage: $0 [--ktap NAME] 'shell commands'" >&2; exit 2; }
. "$(dirname "$0")/kunit-env.sh"
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"

kpy=(python3 "$tree/tools/testing/kunit/kunit.py")
if ! "${kpy[@]}" config "${kunit_opts[@]}" >"$build/uml-build.log" 2>&1 ||
   ! "${kpy[@]}" build --jobs="$(nproc)" "${kunit_opts[@]}" >>"$build/uml-build.log" 2>&1; then
	cat "$build/uml-build.log" >&2
	if [ -n "$name" ]; then
		ktap_print_header
		ktap_set_plan 2
		ktap_print_msg "uml-run: the test kernel did not build (its log is above)"
		ktap_test_fail "$name"
		ktap_test_skip "no kernel splat on the console" "the test kernel did not build"
	fi
	exit 1
fi

work=$(mktemp -d /tmp/vroce-uml.XXXXXX)
trap 'rm -rf "$work"' EXIT

# init ends by powering the UML kernel off, which ends the process.
cat >"$work/poweroff.c" <<'C'
#include <sys/reboot.h>
#include <unistd.h>
int main(void) { sync(); return reboot(RB_POWER_OFF); }
C
gcc -O2 -o "$work/poweroff" "$work/poweroff.c"
cat >"$work/init" <<INIT
#!/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# With the XSTATE patch UML may keep only the FXSR part of a process's FP
# state (AMX hosts): keep glibc on its SSE2 paths, which that covers. And
# off its RTM (TSX) paths: on a host that offers RTM, processes under UML
# computed wrong results with them (gzip -t failed every CRC, python3
# died at start-up), seen 2026-12-03; with -RTM both work.
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX2,-AVX,-FMA,-RTM
export PATH HOME=/root GLIBC_TUNABLES
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t debugfs debugfs /sys/kernel/debug
cd "$repo"
# Output goes to a tmpfs first and is copied out in one write at the end:
# hostfs loses parts of a file written piecemeal (it comes back with holes).
mount -t tmpfs tmpfs "$work/guest"
( $1 ) >"$work/guest/out" 2>&1
echo \$? >"$work/guest/rc"
cat "$work/guest/out" >"$work/out"
cat "$work/guest/rc" >"$work/rc"
exec "$work/poweroff"
INIT
chmod +x "$work/init"
mkdir "$work/guest"

timeout "${VROCE_UML_TIMEOUT:-300}" "$build/linux" mem=1G rootfstype=hostfs rootflags=/ rw \
	init="$work/init" kunit.enable=0 quiet ${VROCE_UML_ARGS:-} </dev/null >"$work/console" 2>&1 || true

ran=1
[ -s "$work/rc" ] || ran=0
if [ -z "$name" ]; then
	if [ $ran -eq 0 ]; then
		echo "uml-run: the test kernel did not run the snippet to its end; console:" >&2
		tail -n 40 "$work/console" >&2
		[ -f "$work/out" ] && cat "$work/out"
		exit 1
	fi
	cat "$work/out"
	if splats "$work/console" >"$work/splats"; then
		echo "uml-run: kernel splats on the console:" >&2
		cat "$work/splats" >&2
		exit 1
	fi
	exit "$(cat "$work/rc")"
fi

ktap_print_header
ktap_set_plan 2
rc=1
if [ $ran -eq 0 ]; then
	ktap_print_msg "uml-run: the test kernel did not run the snippet to its end; console:"
	tail -n 40 "$work/console" | sed 's/^/# /'
	[ -f "$work/out" ] && ktap_nest "$name" <"$work/out"
	ktap_test_fail "$name"
else
	rc=$(cat "$work/rc")
	ktap_nest "$name" <"$work/out"
	if [ "$rc" -eq 0 ]; then
		ktap_test_pass "$name"
	else
		ktap_test_fail "$name"
	fi
fi
if splats "$work/console"; then
	ktap_test_fail "no kernel splat on the console"
	rc=1
else
	ktap_test_pass "no kernel splat on the console"
fi
exit "$rc"
