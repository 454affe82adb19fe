#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vroce.ko in Debian's own kernel: boots the installed
# linux-image-<release> (the kernel whose headers the module was built
# against: 6.1 or 6.12, amd64 or rt-amd64) under QEMU (TCG, no KVM, no
# network device) with a small initramfs holding that kernel's RDMA
# modules (ib_core, ib_uverbs, and rdma_cm with iw_cm, ib_cm and rdma_ucm
# for rping), its NVMe over RDMA host and target (nvme-core,
# nvme-fabrics, nvme-rdma, nvmet, nvmet-rdma, null_blk; where it has
# them), each with the modules it depends on, the given vroce.ko,
# busybox, and rdma-core's rdma, ibv_devinfo, ibv_rc_pingpong and rping,
# nvme-cli's nvme, with the provider built here. In the guest: load the
# modules, check the taint (only out-of-tree and unsigned-module bits),
# 'rdma dev' and ibv_devinfo list vroce0, two ibv_rc_pingpong pairs at
# once (two CPUs) register MRs through uverbs and move data, rping with
# data verification (-V) over vroce0's address, NVMe over RDMA on
# vroce0's address (nvmet-rdma exporting a memory-backed null_blk, 'nvme
# connect -t rdma', 1 MiB written and read back, disconnect), the modules
# unload, and dmesg has no splat (scripts/splat.sh: on PREEMPT_RT that
# includes 'BUG: sleeping function called from invalid context' and
# 'BUG: scheduling while atomic').
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
# A command that fails on the host ends the test: say which.
trap 'echo "# qemu-load-test: line $LINENO failed (exit $?)"' ERR
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

# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"
# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"
qemu_root_init "$root" "$repo"
# That kernel's modules, uncompressed, with what they depend on; then ours.
qemu_root_modules "$root" "$rel" ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm \
	nvme_core nvme_fabrics nvme_rdma nvmet nvmet_rdma null_blk
qemu_root_vroce "$root" "$rel" "$ko"
# User space: the programs and every library they load.
qemu_root_verbs "$root" "$repo" /usr/sbin/nvme
qemu_root_initscript "$root" "poweroff -f"
cat >"$root/tests.sh" <<'TESTS'
#!/bin/sh
. /ktap.sh
. /splat.sh
. /guest-verbs.sh
nqn=nqn.2026-12.org.vroce:load
ktap_print_header
ktap_set_plan 12
ip link set lo up
loaded=1
for m in $(cat /modules/order); do
	args=
	# A namespace that keeps what is written to it.
	[ "$m" = null_blk ] && args="memory_backed=1 nr_devices=1"
	# shellcheck disable=SC2086 # the parameters split
	insmod /modules/$m.ko $args || { ktap_print_msg "insmod $m failed"; loaded=0; }
done
if [ $loaded -eq 1 ]; then
	ktap_test_pass "insmod $(wc -l </modules/order) modules: $(cat /modules/order | tr '\n' ' ')"
else
	ktap_test_fail "insmod $(cat /modules/order | tr '\n' ' ')"
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
guest_rdma_dev
guest_devinfo
# Two pairs at once, on two CPUs: four QPs' engines side by side.
guest_pingpong_pairs 50 500 4096 "ibv_rc_pingpong" \
	"ibv_rc_pingpong, second pair beside it"
guest_rping

# NVMe over RDMA on vroce0's address, where this kernel has it: nvmet-rdma
# exports the memory-backed /dev/nullb0, nvme-rdma connects to it.
if [ ! -e /modules/nvme_rdma.ko ] || [ ! -e /modules/nvmet_rdma.ko ]; then
	guest_nvme_skip "NVMe over RDMA" "this kernel has no nvme-rdma or nvmet-rdma module"
elif ! guest_nvmet_add $nqn 192.0.2.1 1; then
	ktap_print_msg "no nvmet configfs or no /dev/nullb0"
	guest_nvme_skip "NVMe over RDMA" "no target"
else
	guest_nvme_io 192.0.2.1 $nqn "NVMe over RDMA"
	guest_nvmet_del $nqn 1
	umount /sys/kernel/config
fi

# Every module, in the reverse order of loading.
unloaded=1
for m in $(sed '1!G;h;$!d' /modules/order); do
	rmmod $m || { ktap_print_msg "rmmod $m failed"; unloaded=0; }
done
lsmod | grep -q vroce && unloaded=0
if [ $unloaded -eq 1 ]; then
	ktap_test_pass "unloaded"
else
	ktap_test_fail "unloaded"
fi
guest_dmesg_clean
ktap_finished
TESTS
qemu_root_pack "$root" "$work/initrd"

# No network device: the guest talks to nothing but itself.
qemu_root_boot "$kernel" "$work/initrd" "$work/ktap" -m 1024
if [ ! -s "$work/ktap" ]; then
	ktap_print_header
	ktap_set_plan 1
	# The first oops in full (its cause is at its top), then the end.
	tr -d '\r' <"$work/ktap.console" >"$work/console.txt"
	if grep -qE "$SPLAT_PATTERN|invalid opcode" "$work/console.txt"; then
		ktap_print_msg "qemu: the console, from the first splat:"
		grep -m1 -E -A30 "$SPLAT_PATTERN|invalid opcode" "$work/console.txt" | sed 's/^/# /'
	fi
	ktap_print_msg "qemu: the console, last lines:"
	tail -n 20 "$work/console.txt" | sed 's/^/# /'
	ktap_test_fail "$booted"
	exit 1
fi
cat "$work/ktap"
# shellcheck disable=SC2154 # qemu_took: set by qemu_root_boot
ktap_print_msg "qemu: Debian's $rel booted under QEMU (TCG) and ran the tests in $qemu_took s (initramfs $(( $(stat -c %s "$work/initrd") / 1024 )) KiB)"
if ! grep -q '^# qemu: tests exited' "$work/ktap"; then
	ktap_print_msg "qemu: the tests did not end; the console, last lines:"
	tail -n 40 "$work/ktap.console" | tr -d '\r' | sed 's/^/# /'
fi
grep -qx '# qemu: tests exited 0' "$work/ktap" || exit 1
qemu_root_console_clean "$work/ktap" || exit 1
