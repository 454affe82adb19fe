#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 34: vroce to vroce across two kernels. Boots Debian's own kernel
# twice under QEMU (TCG), guests A and B, each with the given vroce.ko
# (no HCA at load: vroce.num_hcas=0), the RDMA core's modules, virtio_net,
# rdma-core's rdma, ibv_devinfo, ibv_ud_pingpong, udaddy, ibv_rc_pingpong
# and ucmatose and the provider built here; their one network device each
# is joined to the other's by QEMU's socket netdev over the host's
# 127.0.0.1 (A listens, B connects; nothing else is on that link, no tap,
# no bridge). In each guest: 'rdma link add vlink0 type vroce netdev
# eth0', 192.168.78.1 (A) and .2 (B); ibv_ud_pingpong, udaddy, and (issue
# 34, RC over packets) ibv_rc_pingpong, ucmatose and rping -v with A as the
# server and B as the client, the port's packet counters, a clean dmesg.
# A second link joins a second NIC of each (192.168.79.1 and .2): vroce
# in A ('rdma link add vlink2 type vroce'), rxe in B ('rxe2'), and NVMe
# over RDMA across it both ways with the kernel's own target and host: A
# exports a memory-backed null_blk through nvmet-rdma on vlink2, B
# connects through rxe2 ('nvme connect -t rdma'), writes 1 MiB, reads it
# back and compares; then B exports on rxe2 and A connects through vlink2.
# The guests meet at each step over a TCP connection on the first link
# (busybox nc).
#
# Usage: scripts/qemu-link-test.sh <vroce.ko[.xz]> <kernel release>
# KTAP (scripts/ktap.sh): one test per guest, its own KTAP nested.
set -euo pipefail

ko=$1
rel=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-qemu-link.XXXXXX)
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
trap 'echo "# qemu-link-test: line $LINENO failed (exit $?)"' ERR
kernel=/boot/vmlinuz-$rel
# shellcheck source=ktap.sh
. "$repo/scripts/ktap.sh"
# shellcheck source=splat.sh
. "$repo/scripts/splat.sh"
# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"
if [ ! -r "$kernel" ]; then
	ktap_print_header
	ktap_set_plan 1
	ktap_test_fail "two guests of Debian's $rel: no $kernel (linux-image-$rel)"
	exit 1
fi

root=$work/root
qemu_root_init "$root" "$repo"
ln -s busybox "$root/bin/ping"
# (virtio_pci where the kernel has it as a module: 6.1.)
qemu_root_modules "$root" "$rel" ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm \
	virtio_pci virtio_net udp_tunnel ip6_udp_tunnel crc32_generic rdma_rxe \
	null_blk nvme_rdma nvmet_rdma
qemu_root_vroce "$root" "$rel" "$ko"
qemu_root_verbs "$root" "$repo" /usr/bin/ibv_ud_pingpong /usr/bin/udaddy \
	/usr/bin/ucmatose /usr/sbin/nvme
qemu_root_initscript "$root" "poweroff -f"
cat >"$root/tests.sh" <<'TESTS'
#!/bin/sh
. /ktap.sh
. /splat.sh
. /guest-verbs.sh
role=$(cat /role)
me=192.168.78.1 peer=192.168.78.2
[ "$role" = b ] && me=192.168.78.2 peer=192.168.78.1
ktap_print_header
ktap_set_plan 15
loaded=1
for m in $(cat /modules/order); do
	args=
	[ "$m" = vroce ] && args="num_hcas=0"
	# A namespace that keeps what is written to it.
	[ "$m" = null_blk ] && args="memory_backed=1 nr_devices=1"
	# Guest b probes vroce asynchronously where it may (as a
	# distribution may load modules): 'rdma link add' binds all the same.
	[ "$m" = vroce ] && [ "$role" = b ] && args="$args async_probe=1"
	# shellcheck disable=SC2086 # the parameters split
	insmod /modules/$m.ko $args || { ktap_print_msg "insmod $m failed"; loaded=0; }
done
ktap_test_result "insmod $(wc -l </modules/order) modules" [ $loaded -eq 1 ]
# nic L: the NIC of link L (MAC 52:54:00:78:0L:0R, R 1 in A and 2 in B).
nic() {
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "52:54:00:78:0$1:0$r" ] && echo "${d##*/}"
	done
}
r=1
[ "$role" = b ] && r=2
ip link set lo up
eth=$(nic 0)
ip link set "$eth" up
ip addr add $me/24 dev "$eth"
if rdma link add vlink0 type vroce netdev "$eth" >/tmp/link 2>&1; then
	ktap_test_pass "guest $role: rdma link add vlink0 type vroce netdev $eth"
else
	sed 's/^/# /' /tmp/link
	ip link | sed 's/^/# /'
	ktap_test_fail "guest $role: rdma link add vlink0 type vroce netdev $eth"
fi
# The second link: vroce in A, rxe in B.
eth2=$(nic 1)
kind2=vroce dev2=vlink2
[ "$role" = b ] && kind2=rxe dev2=rxe2
ip link set "$eth2" up
ip addr add 192.168.79.$r/24 dev "$eth2"
if rdma link add $dev2 type $kind2 netdev "$eth2" >/tmp/link 2>&1; then
	ktap_test_pass "guest $role: rdma link add $dev2 type $kind2 netdev $eth2"
else
	sed 's/^/# /' /tmp/link
	ktap_test_fail "guest $role: rdma link add $dev2 type $kind2 netdev $eth2"
fi
# The peer's address answers over the link (ARP, ICMP: the stack's).
up=0
for i in $(seq 60); do
	ping -c 1 -W 1 $peer >/dev/null 2>&1 && { up=1; break; }
done
ktap_test_result "guest $role: $peer answers over the socket link" [ $up -eq 1 ]
# The RoCE v2 GID of this guest's IPv4 address (none: no run).
g=
for f in /sys/class/infiniband/vlink0/ports/1/gids/*; do
	i=${f##*/}
	[ "$(cat /sys/class/infiniband/vlink0/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] || continue
	case $(cat "$f") in
	0000:0000:0000:0000:0000:ffff:c0a8:4e0*) g=$i; break ;;
	esac
done
[ -n "$g" ] || ktap_print_msg "guest $role: vlink0 has no RoCE v2 GID of $me"
if [ -z "$g" ]; then
	ud=1 cm=1 rc=1 rcm=1 rp=1
	: >/tmp/ud
	: >/tmp/cm
	: >/tmp/rc
	: >/tmp/rcm
	: >/tmp/rp
elif [ "$role" = a ]; then
	timeout 120 ibv_ud_pingpong -d vlink0 -g $g -s 1024 -n 50 -c >/tmp/ud 2>&1
	ud=$?
	timeout 60 udaddy -b $me -C 10 >/tmp/cm 2>&1
	cm=$?
	# Issue 34: RC over packets, 4 KiB messages of four packets each.
	timeout 120 ibv_rc_pingpong -d vlink0 -g $g -s 4096 -n 50 -c >/tmp/rc 2>&1
	rc=$?
	timeout 60 ucmatose -b $me -C 10 >/tmp/rcm 2>&1
	rcm=$?
	# SEND, RDMA READ and WRITE, the data checked.
	timeout 60 rping -s -a $me -v -C 10 >/tmp/rp 2>&1
	rp=$?
else
	sleep 3		# A's server listens
	timeout 60 ibv_ud_pingpong -d vlink0 -g $g -s 1024 -n 50 -c $peer >/tmp/ud 2>&1
	ud=$?
	sleep 3
	timeout 60 udaddy -s $peer -b $me -C 10 >/tmp/cm 2>&1
	cm=$?
	sleep 3
	timeout 60 ibv_rc_pingpong -d vlink0 -g $g -s 4096 -n 50 -c $peer >/tmp/rc 2>&1
	rc=$?
	sleep 3
	timeout 60 ucmatose -s $peer -b $me -C 10 >/tmp/rcm 2>&1
	rcm=$?
	sleep 3
	timeout 60 rping -c -a $peer -I $me -v -C 10 >/tmp/rp 2>&1
	rp=$?
fi
[ $ud -eq 0 ] || sed 's/^/# /' /tmp/ud
ktap_test_result "guest $role: ibv_ud_pingpong ($( [ "$role" = a ] && echo server || echo client)): $(tail -n 1 /tmp/ud)" [ $ud -eq 0 ]
[ $cm -eq 0 ] || sed 's/^/# /' /tmp/cm
ktap_test_result "guest $role: udaddy ($( [ "$role" = a ] && echo server || echo client)): $(tail -n 1 /tmp/cm)" [ $cm -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/# /' /tmp/rc
ktap_test_result "guest $role: ibv_rc_pingpong ($( [ "$role" = a ] && echo server || echo client)): $(tail -n 1 /tmp/rc)" [ $rc -eq 0 ]
[ $rcm -eq 0 ] || sed 's/^/# /' /tmp/rcm
ktap_test_result "guest $role: ucmatose ($( [ "$role" = a ] && echo server || echo client)): $(tail -n 1 /tmp/rcm)" [ $rcm -eq 0 ]
[ $rp -eq 0 ] || sed 's/^/# /' /tmp/rp
ktap_test_result "guest $role: rping -v ($( [ "$role" = a ] && echo server || echo client)): $(tail -n 1 /tmp/rp)" [ $rp -eq 0 ]

# barrier N: returns once the other guest reached its barrier N too: a
# TCP connection over the first link (A listens on port 6000 + N, B
# connects until it may).
barrier() {
	if [ "$role" = a ]; then
		timeout 300 nc -l -p $((6000 + $1)) </dev/null >/dev/null
		return
	fi
	for i in $(seq 300); do
		nc $peer $((6000 + $1)) </dev/null >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}
# NVMe over RDMA on the second link both ways: A's target on vlink2 and
# B's host on rxe2, then B's target on rxe2 and A's host on vlink2.
nqn=nqn.2026-12.org.vroce:link-$role
target=0
if guest_nvmet_add $nqn 192.168.79.$r 1; then
	target=1
else
	ktap_print_msg "guest $role: no nvmet configfs or no /dev/nullb0"
fi
if [ "$role" = a ]; then
	ktap_test_result "guest a: nvmet-rdma exports null_blk on 192.168.79.1 (vroce, vlink2)" \
		[ $target -eq 1 ]
	barrier 1		# B connects to it
	barrier 2		# B is done
	guest_nvme_io 192.168.79.2 nqn.2026-12.org.vroce:link-b \
		"guest a: NVMe over RDMA, host on vroce (vlink2), target on rxe (guest b)"
	barrier 3
else
	ktap_test_result "guest b: nvmet-rdma exports null_blk on 192.168.79.2 (rxe, rxe2)" \
		[ $target -eq 1 ]
	barrier 1
	guest_nvme_io 192.168.79.1 nqn.2026-12.org.vroce:link-a \
		"guest b: NVMe over RDMA, host on rxe (rxe2), target on vroce (guest a)"
	barrier 2
	barrier 3		# A is done with B's target
fi
[ $target -eq 0 ] || guest_nvmet_del $nqn 1

hw=/sys/class/infiniband/vlink0/ports/1/hw_counters
tx=$(cat $hw/link_tx_frames 2>/dev/null) rx=$(cat $hw/link_rx_frames 2>/dev/null)
ie=$(cat $hw/link_rx_icrc_err 2>/dev/null)
# 50 round trips each way at least, no packet damaged on the link.
ktap_test_result "guest $role: link_tx_frames $tx, link_rx_frames $rx, link_rx_icrc_err $ie" \
	test "${tx:-0}" -ge 50 -a "${rx:-0}" -ge 50 -a "${ie:-1}" -eq 0
guest_dmesg_clean
ktap_finished
TESTS
for r in a b; do
	echo $r >"$root/role"
	qemu_root_pack "$root" "$work/initrd.$r"
done

# Free ports on 127.0.0.1 for the two QEMU processes, and only them.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
port2=$(free_port)
link() {
	echo -netdev "socket,id=l0,$1=127.0.0.1:$port" \
	     -device "virtio-net-pci,netdev=l0,mac=52:54:00:78:00:$2" \
	     -netdev "socket,id=l1,$1=127.0.0.1:$port2" \
	     -device "virtio-net-pci,netdev=l1,mac=52:54:00:78:01:$2"
}
# shellcheck disable=SC2046 # link's words split
qemu_root_boot "$kernel" "$work/initrd.a" "$work/ktap.a" -m 1024 $(link listen 01) &
pids+=($!)
sleep 2
# shellcheck disable=SC2046
qemu_root_boot "$kernel" "$work/initrd.b" "$work/ktap.b" -m 1024 $(link connect 02)
wait "${pids[@]}" || true
pids=()

# guest R's KTAP; true when its tests exited 0 and its console is clean.
guest() {
	local k=$work/ktap.$1
	if [ ! -s "$k" ]; then
		echo "# guest $1: no KTAP; the console, last lines:"
		tr -d '\r' <"$k.console" | tail -n 20 | sed 's/^/# /'
		return 1
	fi
	cat "$k"
	grep -qx '# qemu: tests exited 0' "$k" && qemu_root_console_clean "$k"
}
ktap_print_header
ktap_set_plan 2
ktap_subtest "guest A ($rel, 192.168.78.1, server) over a socket link on 127.0.0.1" guest a
ktap_subtest "guest B ($rel, 192.168.78.2, client) over a socket link on 127.0.0.1" guest b
ktap_finished
