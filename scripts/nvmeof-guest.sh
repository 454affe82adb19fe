#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the UML test kernel (scripts/nvmeof.sh): NVMe over RDMA with
# the kernel's own target (nvmet, configured through configfs, a
# memory-backed null_blk namespace) and host (nvme-rdma, 'nvme connect'
# from Debian's nvme-cli), first over vroce0 and then, for comparison,
# over rxe0 on a dummy netdev. Per device: connect, write a 1 MiB pattern
# with dd (O_DIRECT), read it back, compare, disconnect. With 'bench':
# 4 KiB reads and writes one at a time instead (dd, O_DIRECT), IOPS and
# time per I/O side by side.
#
# With 'srq' (booted with nvmet_rdma.use_srq=1): 'check', the target's
# queues taking their receives from shared receive queues of the device.
#
# Usage: nvmeof-guest.sh check|bench|srq
# KTAP (scripts/ktap.sh): four tests per device (connect, its QPs, the
# I/O, disconnect), and with 'srq' a fifth (the target's SRQs).
mode=${1:-check}
srq=0
if [ "$mode" = srq ]; then
	srq=1
	mode=check
fi
nqn=nqn.2026-12.org.vroce:test
hostnqn=nqn.2026-12.org.vroce:host
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ktap.sh
. "$here/ktap.sh"
work=$(mktemp -d /tmp/vroce-nvmeof.XXXXXX)
mount -t tmpfs tmpfs "$work"
cfg=/sys/kernel/config/nvmet

ok() { ktap_test_pass "$*"; }
fail() { ktap_test_fail "$*"; }

ktap_print_header
ktap_set_plan $((8 + 2 * srq))
mount -t configfs configfs /sys/kernel/config 2>/dev/null
[ -d "$cfg" ] || ktap_exit_fail_msg "nvmeof: no nvmet in this kernel"
[ -b /dev/nullb0 ] || ktap_exit_fail_msg "nvmeof: no /dev/nullb0"

# The ports: vroce0's netdev, and rxe0 over dummy0.
ip link set lo up
ip addr add 192.0.2.1/24 dev vroce0
ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy
ip link set dummy0 up
ip addr add 198.51.100.1/24 dev dummy0
rdma link add rxe0 type rxe netdev dummy0 || ktap_print_msg "nvmeof: no rxe"

# The target: one subsystem, namespace 1 on null_blk, any host allowed.
mkdir "$cfg/subsystems/$nqn"
echo 1 >"$cfg/subsystems/$nqn/attr_allow_any_host"
mkdir "$cfg/subsystems/$nqn/namespaces/1"
echo -n /dev/nullb0 >"$cfg/subsystems/$nqn/namespaces/1/device_path"
echo 1 >"$cfg/subsystems/$nqn/namespaces/1/enable"

# A port of the target on @1's address; echo its configfs directory.
target_port() {
	p=$cfg/ports/$2
	mkdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$1" >"$p/addr_traddr"
	echo 4420 >"$p/addr_trsvcid"
	ln -s "$cfg/subsystems/$nqn" "$p/subsystems/$nqn"
}

# The block device the connection to @1 made.
nvme_dev() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		for c in /sys/class/nvme/nvme*; do
			[ -e "$c/address" ] || continue
			if grep -q "traddr=$1," "$c/address" 2>/dev/null; then
				for n in "$c"/nvme*n1; do
					[ -e "$n" ] && [ -b "/dev/${n##*/}" ] &&
						{ echo "/dev/${n##*/}"; return 0; }
				done
			fi
		done
		sleep 1
	done
	return 1
}

# skip_rest DEV WHY: the tests of DEV after the connect, not run.
skip_rest() {
	for t in "RC QPs of the connection" "I/O" "nvme disconnect"; do
		ktap_test_skip "$1: $t" "$2"
	done
	[ $srq -eq 1 ] && ktap_test_skip "$1: the target's SRQs" "$2"
}

run() {
	dev=$1 addr=$2 port=$3
	if ! rdma link show "$dev/1" >/dev/null 2>&1; then
		ktap_test_skip "$dev: nvme connect -t rdma" "no such RDMA device"
		skip_rest "$dev" "no such RDMA device"
		return
	fi
	t0=$(date +%s%N)
	if ! nvme connect -t rdma -a "$addr" -s 4420 -n "$nqn" -q "$hostnqn" \
		>"$work/connect.$dev" 2>&1; then
		sed 's/^/# /' "$work/connect.$dev"
		fail "$dev: nvme connect -t rdma -a $addr"
		skip_rest "$dev" "no connection"
		return
	fi
	t1=$(date +%s%N)
	if ! blk=$(nvme_dev "$addr"); then
		fail "$dev: nvme connect -t rdma -a $addr: no namespace block device"
		skip_rest "$dev" "no namespace block device"
		return
	fi
	ok "$dev: nvme connect -t rdma -a $addr: $blk in $(( (t1 - t0) / 1000000 )) ms"
	# The queues run on RC QPs of this device (host's and target's).
	nqp=$(rdma res show qp link "$dev/1" 2>/dev/null | grep -c "type RC")
	if [ "$nqp" -ge 2 ]; then
		ok "$dev: $nqp RC QPs of the connection on $dev/1"
	else
		fail "$dev: rdma res shows $nqp RC QPs on $dev/1"
	fi
	# SRQ mode: the target made its shared receive queues on the device.
	if [ $srq -eq 1 ]; then
		nsrq=$(rdma res show srq dev "$dev" 2>/dev/null | grep -c "srqn")
		if [ "$(cat /sys/module/nvmet_rdma/parameters/use_srq)" = Y ] &&
		   [ "$nsrq" -ge 1 ]; then
			ok "$dev: the target's SRQs: $nsrq on $dev"
		else
			rdma res show srq dev "$dev" 2>&1 | sed 's/^/# /'
			fail "$dev: the target's SRQs: $nsrq on $dev"
		fi
	fi

	if [ "$mode" = bench ]; then
		# 4 KiB O_DIRECT I/O one at a time (queue depth 1) with dd: fio
		# needs SysV shared memory, which the test kernel has not.
		n=2000
		io=0
		for rw in write read; do
			if [ $rw = write ]; then
				set -- if=/dev/zero of="$blk" oflag=direct
			else
				set -- if="$blk" of=/dev/null iflag=direct
			fi
			t0=$(date +%s%N)
			dd "$@" bs=4k count=$n status=none || io=1
			t1=$(date +%s%N)
			ns=$((t1 - t0))
			echo "$dev $rw $n $ns" | awk '{ printf "nvmeof-bench: %-6s 4 KiB %-5s QD1 %8.0f IOPS %9.1f us per I/O\n", $1, $2, $3 * 1e9 / $4, $4 / $3 / 1000 }'
		done
		if [ $io -eq 0 ]; then
			ok "$dev: I/O: $n 4 KiB writes and reads, one at a time"
		else
			fail "$dev: I/O: dd of 4 KiB blocks"
		fi
	else
		head -c 1048576 /dev/urandom >"$work/pattern"
		t0=$(date +%s%N)
		if dd if="$work/pattern" of="$blk" bs=64k oflag=direct status=none &&
		   dd if="$blk" of="$work/back.$dev" bs=64k count=16 iflag=direct status=none &&
		   cmp "$work/pattern" "$work/back.$dev"; then
			t1=$(date +%s%N)
			ok "$dev: 1 MiB written and read back through $blk, identical ($(( (t1 - t0) / 1000000 )) ms)"
		else
			fail "$dev: pattern written through $blk did not read back"
		fi
	fi

	if nvme disconnect -n "$nqn" >"$work/disc.$dev" 2>&1 &&
	   grep -q "disconnected 1 controller" "$work/disc.$dev"; then
		ok "$dev: nvme disconnect"
	else
		sed 's/^/# /' "$work/disc.$dev"
		fail "$dev: nvme disconnect"
	fi
}

# Both target ports first, and they stay until power-off: removing an
# nvmet-rdma port (rdma_destroy_id() under nvmet_config_sem) after a
# connect (nvmet_config_sem taken under rdma_cm's handler_mutex) makes
# lockdep report the long-standing nvmet lock cycle (it fails blktests'
# nvme runs upstream too), whatever the RDMA device.
target_port 192.0.2.1 1
rdma link show rxe0/1 >/dev/null 2>&1 && target_port 198.51.100.1 2
run vroce0 192.0.2.1 1
run rxe0 198.51.100.1 2

dmesg | grep -E 'nvme|nvmet' | tail -n 20 | sed 's/^/# nvmeof: dmesg: /'
umount "$work"
ktap_finished
