#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vroce.ko in Debian's own kernel: boots the installed
# linux-image-<release> (the kernel whose headers the module was built
# against) under QEMU (TCG, no KVM) with a small initramfs holding Debian's
# ib_core and ib_uverbs, the given vroce.ko, busybox, and rdma-core's
# rdma, ibv_devinfo and ibv_rc_pingpong with the provider built here. In
# the guest: load the three modules, check the taint (only out-of-tree and
# unsigned-module bits), 'rdma dev' and ibv_devinfo list vroce0, two
# ibv_rc_pingpong pairs at once (two CPUs) register MRs through uverbs and
# move data, the modules unload, and dmesg has no splat (scripts/splat.sh).
#
# Usage: scripts/qemu-load-test.sh <vroce.ko[.xz]> <kernel release>
# Prints the guest's KTAP (scripts/ktap.sh), a test per step, from the
# serial console; when the kernel never ran the tests, a KTAP document of
# one failed test.
set -euo pipefail

ko=$1
rel=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-qemu.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
kernel=/boot/vmlinuz-$rel
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
booted="Debian's kernel $rel boots and runs the tests under QEMU"
if [ ! -r "$kernel" ]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "$booted: no $kernel (linux-image-$rel)"
	exit 1
fi

# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"
qemu_root_init "$root" "$repo"
# Debian's RDMA core modules of that kernel, and ours, uncompressed.
for m in ib_core ib_uverbs; do
	qemu_root_module "$root" "$rel" $m
done
case $ko in
*.xz) xz -dc "$ko" >"$root/modules/vroce.ko" ;;
*) cp "$ko" "$root/modules/vroce.ko" ;;
esac
# User space: the programs and every library they load.
make -s -C "$repo" provider PROVIDER_OUT="$root/provider" >&2
qemu_root_program "$root" /usr/bin/rdma /usr/bin/ibv_devinfo \
	/usr/bin/ibv_rc_pingpong "$root/provider/libvroce-rdmav34.so"

cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
export PATH=/bin RDMAV_DRIVERS=/provider/libvroce LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
sh /tests.sh
echo "# qemu: tests exited $?"
poweroff -f
INIT
cat >"$root/tests.sh" <<'TESTS'
#!/bin/sh
. /ktap.sh
. /splat.sh
ktap_print_header
ktap_set_plan 8
ip link set lo up
loaded=1
for m in ib_core ib_uverbs vroce; do
	insmod /modules/$m.ko || { ktap_print_msg "insmod $m failed"; loaded=0; }
done
if [ $loaded -eq 1 ]; then
	ktap_test_pass "insmod ib_core ib_uverbs vroce"
else
	ktap_test_fail "insmod ib_core ib_uverbs vroce"
fi
sleep 1
t=$(cat /proc/sys/kernel/tainted)
# 4096: out-of-tree (O); 8192: unsigned or unverified module (E), which a
# module not signed by a key the kernel trusts always sets.
if [ $((t & ~(4096 | 8192))) -eq 0 ] && [ $((t & 4096)) -ne 0 ]; then
	ktap_test_pass "taint $t (out-of-tree$( [ $((t & 8192)) -ne 0 ] && echo ', unverified signature'))"
else
	ktap_test_fail "taint $t: only out-of-tree and unverified signature"
fi
rdma dev >/tmp/rdma 2>&1
if grep -q "vroce0" /tmp/rdma; then
	ktap_test_pass "rdma dev: $(grep vroce0 /tmp/rdma)"
else
	sed 's/^/# /' /tmp/rdma
	ktap_test_fail "rdma dev lists vroce0"
fi
ibv_devinfo -d vroce0 >/tmp/devinfo 2>&1
if grep -q "hca_id:.*vroce0" /tmp/devinfo && grep -q PORT_ACTIVE /tmp/devinfo; then
	ktap_test_pass "ibv_devinfo: vroce0, port active"
else
	sed 's/^/# /' /tmp/devinfo
	ktap_test_fail "ibv_devinfo: vroce0, port active"
fi
# Two pairs at once, on two CPUs: four QPs' engines side by side.
ibv_rc_pingpong -d vroce0 -g 0 -n 50 >/tmp/srv 2>&1 &
srv=$!
ibv_rc_pingpong -d vroce0 -g 0 -n 500 -p 18517 >/tmp/srv2 2>&1 &
srv2=$!
sleep 2
ibv_rc_pingpong -d vroce0 -g 0 -n 500 -p 18517 127.0.0.1 >/tmp/cli2 2>&1 &
cli2=$!
if ibv_rc_pingpong -d vroce0 -g 0 -n 50 127.0.0.1 >/tmp/cli 2>&1 && wait $srv; then
	ktap_test_pass "ibv_rc_pingpong: $(grep -m1 'bytes in' /tmp/cli)"
else
	cat /tmp/cli /tmp/srv | sed 's/^/# /'
	ktap_test_fail "ibv_rc_pingpong"
fi
if wait $cli2 && wait $srv2; then
	ktap_test_pass "ibv_rc_pingpong, second pair beside it: $(grep -m1 'bytes in' /tmp/cli2)"
else
	cat /tmp/cli2 /tmp/srv2 | sed 's/^/# /'
	ktap_test_fail "ibv_rc_pingpong, second pair beside it"
fi
unloaded=1
for m in vroce ib_uverbs ib_core; do
	rmmod $m || { ktap_print_msg "rmmod $m failed"; unloaded=0; }
done
lsmod | grep -q vroce && unloaded=0
if [ $unloaded -eq 1 ]; then
	ktap_test_pass "unloaded"
else
	ktap_test_fail "unloaded"
fi
dmesg >/tmp/dmesg
if splats /tmp/dmesg; then
	ktap_test_fail "dmesg: no kernel splat"
else
	ktap_test_pass "dmesg: no kernel splat"
fi
dmesg | grep -i vroce | tail -n 5 | sed 's/^/# qemu: dmesg: /'
ktap_finished
TESTS
chmod +x "$root/init"
qemu_root_pack "$root" "$work/initrd"

t0=$(date +%s)
timeout "${VROCE_QEMU_TIMEOUT:-600}" qemu-system-x86_64 -m 1024 -smp 2 \
	-nographic -no-reboot -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
	</dev/null >"$work/console" 2>&1 || true
took=$(( $(date +%s) - t0 ))
# The guest's KTAP, from its version line to its exit status. The
# firmware's terminal escapes (SeaBIOS clears the screen) may come first
# on the version's line.
tr -d '\r' <"$work/console" |
	sed -n 's/^.*\(KTAP version 1\)$/\1/; /^KTAP version 1$/,/^# qemu: tests exited/p' \
	>"$work/ktap"
if [ ! -s "$work/ktap" ]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_print_msg "qemu: the console, last lines:"
	tail -n 40 "$work/console" | tr -d '\r' | sed 's/^/# /'
	ktap_test_fail "$booted"
	exit 1
fi
cat "$work/ktap"
ktap_print_msg "qemu: Debian's $rel booted under QEMU (TCG) and ran the tests in $took s"
if ! grep -q '^# qemu: tests exited' "$work/ktap"; then
	ktap_print_msg "qemu: the tests did not end; the console, last lines:"
	tail -n 40 "$work/console" | tr -d '\r' | sed 's/^/# /'
fi
grep -qx '# qemu: tests exited 0' "$work/ktap"
