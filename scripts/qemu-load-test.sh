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
# Last line: 'qemu: N passed, N failed'.
set -euo pipefail

ko=$1
rel=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-qemu.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
kernel=/boot/vmlinuz-$rel
[ -r "$kernel" ] || { echo "qemu: no $kernel (linux-image-$rel)"; exit 1; }

mkdir -p "$root"/{bin,sbin,lib,lib64,etc,proc,sys,dev,tmp,modules,provider}
cp /bin/busybox "$root/bin/busybox"
for a in sh mount umount insmod rmmod lsmod cat grep dmesg sleep echo \
	 ip poweroff ls wc kill sed; do
	ln -s busybox "$root/bin/$a"
done
# What a kernel splat looks like (for dmesg at the end).
cp "$repo/scripts/splat.sh" "$root/splat.sh"
# Debian's RDMA core modules of that kernel, and ours, uncompressed.
mods=/lib/modules/$rel/kernel/drivers/infiniband/core
for m in ib_core ib_uverbs; do
	xz -dc "$mods/$m.ko.xz" >"$root/modules/$m.ko"
done
case $ko in
*.xz) xz -dc "$ko" >"$root/modules/vroce.ko" ;;
*) cp "$ko" "$root/modules/vroce.ko" ;;
esac
# User space: the programs and every library they load.
make -s -C "$repo" provider PROVIDER_OUT="$root/provider" >&2
for p in /usr/bin/rdma /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong \
	 "$root/provider/libvroce-rdmav34.so"; do
	[ "$p" = "${p#"$root"}" ] && cp "$p" "$root/bin/"
	ldd "$p" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

cat >"$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
export PATH=/bin RDMAV_DRIVERS=/provider/libvroce LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "qemu: ok $*"; }
bad() { fail=$((fail + 1)); echo "qemu: FAIL $*"; }
ip link set lo up
for m in ib_core ib_uverbs vroce; do
	insmod /modules/$m.ko || bad "insmod $m"
done
sleep 1
t=$(cat /proc/sys/kernel/tainted)
# 4096: out-of-tree (O); 8192: unsigned or unverified module (E), which a
# module not signed by a key the kernel trusts always sets.
if [ $((t & ~(4096 | 8192))) -eq 0 ] && [ $((t & 4096)) -ne 0 ]; then
	ok "loaded; taint $t (out-of-tree$( [ $((t & 8192)) -ne 0 ] && echo ', unverified signature'))"
else
	bad "taint $t"
fi
rdma dev >/tmp/rdma 2>&1
grep -q "vroce0" /tmp/rdma && ok "rdma dev: $(grep vroce0 /tmp/rdma)" || bad "rdma dev: $(cat /tmp/rdma)"
ibv_devinfo -d vroce0 >/tmp/devinfo 2>&1
grep -q "hca_id:.*vroce0" /tmp/devinfo && grep -q PORT_ACTIVE /tmp/devinfo &&
	ok "ibv_devinfo: vroce0, port active" || bad "ibv_devinfo: $(cat /tmp/devinfo)"
# Two pairs at once, on two CPUs: four QPs' engines side by side.
ibv_rc_pingpong -d vroce0 -g 0 -n 50 >/tmp/srv 2>&1 &
srv=$!
ibv_rc_pingpong -d vroce0 -g 0 -n 500 -p 18517 >/tmp/srv2 2>&1 &
srv2=$!
sleep 2
ibv_rc_pingpong -d vroce0 -g 0 -n 500 -p 18517 127.0.0.1 >/tmp/cli2 2>&1 &
cli2=$!
if ibv_rc_pingpong -d vroce0 -g 0 -n 50 127.0.0.1 >/tmp/cli 2>&1 && wait $srv; then
	ok "ibv_rc_pingpong: $(grep -m1 'bytes in' /tmp/cli)"
else
	bad "ibv_rc_pingpong: $(cat /tmp/cli /tmp/srv)"
fi
if wait $cli2 && wait $srv2; then
	ok "ibv_rc_pingpong, second pair beside it: $(grep -m1 'bytes in' /tmp/cli2)"
else
	bad "ibv_rc_pingpong, second pair: $(cat /tmp/cli2 /tmp/srv2)"
fi
for m in vroce ib_uverbs ib_core; do
	rmmod $m || bad "rmmod $m"
done
lsmod | grep -q vroce && bad "vroce still loaded" || ok "unloaded"
. /splat.sh
dmesg >/tmp/dmesg
if splats /tmp/dmesg >/tmp/splat; then
	bad "dmesg: $(cat /tmp/splat)"
else
	ok "dmesg: no warning"
fi
dmesg | grep -i vroce | tail -n 5 | sed 's/^/qemu: dmesg: /'
echo "qemu: $pass passed, $fail failed"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd"

t0=$(date +%s)
timeout "${VROCE_QEMU_TIMEOUT:-600}" qemu-system-x86_64 -m 1024 -smp 2 \
	-nographic -no-reboot -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
	</dev/null >"$work/console" 2>&1 || true
echo "qemu: Debian's $rel booted under QEMU (TCG) in $(( $(date +%s) - t0 )) s"
grep '^qemu: ' "$work/console" | tr -d '\r' || true
if ! grep -q '^qemu: [0-9]* passed, 0 failed' "$work/console"; then
	echo "qemu: console:"
	tail -n 40 "$work/console"
	grep -q '^qemu: [0-9]* passed' "$work/console" || echo "qemu: 0 passed, 1 failed"
	exit 1
fi
