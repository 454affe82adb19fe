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
# The host's identity: its NQN carries its ID, as nvme-cli's own do.
hostid=6e0f1c4a-3b2d-4c8e-9a71-5d2f0b8e7c13
hostnqn=nqn.2014-08.org.nvmexpress:uuid:$hostid
cfg=/sys/kernel/config/nvmet
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
nvme_skip() {
	for t in "nvme connect -t rdma" "NVMe over RDMA: 1 MiB written and read back" \
		 "nvme disconnect"; do
		ktap_test_skip "$t" "$1"
	done
}
blk=
if [ ! -e /modules/nvme_rdma.ko ] || [ ! -e /modules/nvmet_rdma.ko ]; then
	nvme_skip "this kernel has no nvme-rdma or nvmet-rdma module"
elif ! mount -t configfs configfs /sys/kernel/config || [ ! -d $cfg ] ||
     [ ! -b /dev/nullb0 ]; then
	ktap_print_msg "no nvmet configfs or no /dev/nullb0"
	nvme_skip "no target"
else
	mkdir $cfg/subsystems/$nqn
	echo 1 >$cfg/subsystems/$nqn/attr_allow_any_host
	mkdir $cfg/subsystems/$nqn/namespaces/1
	echo -n /dev/nullb0 >$cfg/subsystems/$nqn/namespaces/1/device_path
	echo 1 >$cfg/subsystems/$nqn/namespaces/1/enable
	mkdir $cfg/ports/1
	echo rdma >$cfg/ports/1/addr_trtype
	echo ipv4 >$cfg/ports/1/addr_adrfam
	echo 192.0.2.1 >$cfg/ports/1/addr_traddr
	echo 4420 >$cfg/ports/1/addr_trsvcid
	ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
	if timeout 60 nvme connect -t rdma -a 192.0.2.1 -s 4420 -n $nqn \
		-q $hostnqn -I $hostid >/tmp/connect 2>&1; then
		for i in $(seq 10); do
			# The namespace's block device (with native multipath,
			# the head: not under the controller).
			for n in /sys/block/nvme*n1; do
				[ -e "$n" ] && [ -b "/dev/${n##*/}" ] && blk=/dev/${n##*/}
			done
			[ -n "$blk" ] && break
			sleep 1
		done
	fi
	if [ -n "$blk" ]; then
		ktap_test_pass "nvme connect -t rdma -a 192.0.2.1: $blk"
		head -c 1048576 /dev/urandom >/tmp/pattern
		if dd if=/tmp/pattern of="$blk" bs=64k oflag=direct 2>/dev/null &&
		   dd if="$blk" of=/tmp/back bs=64k count=16 iflag=direct 2>/dev/null &&
		   cmp /tmp/pattern /tmp/back; then
			ktap_test_pass "NVMe over RDMA: 1 MiB written and read back through $blk, identical"
		else
			ktap_test_fail "NVMe over RDMA: 1 MiB written and read back through $blk"
		fi
		if timeout 60 nvme disconnect -n $nqn >/tmp/disc 2>&1 &&
		   grep -q "disconnected 1 controller" /tmp/disc; then
			ktap_test_pass "nvme disconnect"
		else
			sed 's/^/# /' /tmp/disc
			ktap_test_fail "nvme disconnect"
		fi
	else
		sed 's/^/# /' /tmp/connect
		ktap_test_fail "nvme connect -t rdma -a 192.0.2.1"
		ktap_test_skip "NVMe over RDMA: 1 MiB written and read back" "no connection"
		ktap_test_skip "nvme disconnect" "no connection"
	fi
	# The target goes before its modules do.
	rm -f $cfg/ports/1/subsystems/$nqn
	rmdir $cfg/ports/1
	echo 0 >$cfg/subsystems/$nqn/namespaces/1/enable
	rmdir $cfg/subsystems/$nqn/namespaces/1
	rmdir $cfg/subsystems/$nqn
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
