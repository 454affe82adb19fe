#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's throughput table on two CPUs: Debian's own kernel (the
# release of the headers vroce.ko was built against) under QEMU with
# -smp 2 (TCG: slower than UML, so compare its ratios, not its rates;
# VROCE_QEMU_KVM=1 for KVM), its own ib_core, ib_uverbs, rdma_rxe and
# dummy, the given vroce.ko, perftest and the provider built here; in the
# guest scripts/rate-guest.sh prints the same table as in UML
# (scripts/rate.sh): vroce0 by the provider's default path and the
# command-mediated one beside rxe0, and the memcpy bandwidth of the guest.
#
# Usage: scripts/qemu-bench.sh <vroce.ko> <kernel release>
# Prints the table; fails when the guest did not print it.
set -euo pipefail

ko=$1
rel=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-qemu-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
kernel=/boot/vmlinuz-$rel
[ -r "$kernel" ] || { echo "qemu-bench: no $kernel (linux-image-$rel)" >&2; exit 1; }

# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"
qemu_root_init "$root" "$repo"
# rxe computes its ICRC with the crypto API's crc32 (a module here, and
# no modprobe in the guest to load it on demand).
for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel crc32_generic rdma_rxe dummy; do
	qemu_root_module "$root" "$rel" $m
done
cp "$ko" "$root/modules/vroce.ko"
make -s -C "$repo" provider PROVIDER_OUT="$root/provider" >&2
gcc -O2 -Wall -Wextra -Werror -o "$root/bin/vroce_memcpy_bw" \
	"$repo/kunit/userspace/vroce_memcpy_bw.c"
gcc -O2 -Wall -Wextra -Werror -o "$root/bin/vroce_syscall_lat" \
	"$repo/kunit/userspace/vroce_syscall_lat.c"
qemu_root_program "$root" /usr/bin/rdma /usr/bin/ib_write_bw \
	/usr/bin/ib_send_bw /usr/bin/ib_read_bw /usr/bin/ib_send_lat \
	/usr/bin/ib_write_lat /usr/bin/ib_read_lat "$root/bin/vroce_memcpy_bw" \
	"$root/bin/vroce_syscall_lat" "$root/provider/libvroce-rdmav34.so"
# rxe's provider, where libibverbs looks for it.
prov=/usr/lib/x86_64-linux-gnu/libibverbs
mkdir -p "$root/etc/libibverbs.d" "$root$prov"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
cp "$prov/librxe-rdmav34.so" "$root$prov/"
cp "$repo/scripts/rate-guest.sh" "$root/"
mkdir -p "$root/log"

cat >"$root/init" <<INIT
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
export PATH=/bin LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
for m in ib_core ib_uverbs udp_tunnel ip6_udp_tunnel crc32_generic rdma_rxe dummy vroce; do
	insmod /modules/\$m.ko || echo "rate: insmod \$m failed"
done
sleep 1
[ -n "${VROCE_QEMU_DEBUG:-}" ] && { lsmod; ip link; dmesg | tail -n 20; } | sed 's/^/rate: debug: /'
VROCE_RATE_ROWS=${VROCE_RATE_ROWS:-} VROCE_RATE_PARAMS="${VROCE_RATE_PARAMS:-}" sh /rate-guest.sh /provider/libvroce - /bin/vroce_memcpy_bw ${VROCE_RATE_SECS:-2} /log /bin/vroce_syscall_lat
[ -n "${VROCE_QEMU_DEBUG:-}" ] && { rdma link; tail -n 5 /log/rxe.*; } 2>&1 | sed 's/^/rate: debug: /'
echo "rate: done"
poweroff -f
INIT
chmod +x "$root/init"
qemu_root_pack "$root" "$work/initrd"

# TCG unless VROCE_QEMU_KVM=1: KVM where nested (as on the build
# machines) may stop the guest at boot with "KVM internal error ...
# emulation failure".
accel=(-accel tcg)
how="TCG"
if [ "${VROCE_QEMU_KVM:-0}" = 1 ]; then
	accel=(-enable-kvm)
	how="KVM"
fi
timeout "${VROCE_QEMU_TIMEOUT:-900}" qemu-system-x86_64 "${accel[@]}" -m 2048 \
	-smp 2 -nographic -no-reboot -nic none -kernel "$kernel" -initrd "$work/initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
	</dev/null >"$work/console" 2>&1 || true
tr -d '\r' <"$work/console" | grep '^rate:' | sed "s/^rate: //; s/^memcpy/[$how, 2 CPUs] memcpy/" >"$work/table" || true
if ! grep -q '^done$' "$work/table"; then
	echo "qemu-bench: the guest did not finish; the console, last lines:" >&2
	tail -n 40 "$work/console" | tr -d '\r' >&2
	exit 1
fi
grep -v '^done$' "$work/table"
