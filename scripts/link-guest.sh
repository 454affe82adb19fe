#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Issue 34: runs inside the UML test kernel (scripts/link.sh): a vroce
# port on a netdev meets rxe over a real link. A veth pair: va in the
# initial namespace with rxe on it (rxe's socket lives there), vb in a
# namespace of its own with a vroce port on it ('rdma link add vlink0
# type vroce netdev vb', run in that namespace), so that neither address
# is local to the other's stack and ARP runs over the pair. rdma-core's
# programs run both ways through the provider, a capture of va is judged
# by tshark (scripts/frames.py --capture), and the link goes with its
# netdev. The kernel probes vroce asynchronously where it may
# (driver_async_probe=vroce, scripts/link.sh): 'rdma link add' still binds.
#
# Usage: link-guest.sh <dir>/libvroce MHZ (the host's CPU clock, for
# perftest, which reads it from /proc/cpuinfo: UML's has none)
# KTAP (scripts/ktap.sh).
export RDMAV_DRIVERS="$1" IBV_SHOW_WARNINGS=1
mhz=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ktap.sh
. "$here/ktap.sh"
log=$(mktemp -d /tmp/vroce-link.XXXXXX)
mount -t tmpfs tmpfs "$log"

ok() { ktap_test_pass "$*"; }
fail() { ktap_test_fail "$*"; }
# check NAME COMMAND...: a test passing when COMMAND does.
check() {
	name=$1
	shift
	if "$@" >"$log/check" 2>&1; then
		ok "$name"
	else
		sed 's/^/# /' "$log/check" | tail -n 8
		fail "$name"
	fi
}

ktap_print_header
ktap_set_plan 47
{ cat /proc/cpuinfo; printf 'cpu MHz\t\t: %s\n' "$mhz"; } >"$log/cpuinfo"
mount --bind "$log/cpuinfo" /proc/cpuinfo

# netns: a sleeper in a network namespace of its own, its PID printed
# once it is there (its output elsewhere: \$(netns) waits for the pipe).
netns() {
	unshare --net sleep 3600 >/dev/null 2>&1 </dev/null &
	for i in $(seq 50); do
		[ "$(readlink /proc/$!/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
		sleep 0.1
	done
	nsenter --net=/proc/$!/ns/net ip link set lo up
	echo $!
}
ip link set lo up
ip link add va type veth peer name vb
mac_b=$(cat /sys/class/net/vb/address)
ns=$(netns)
ip link set vb netns "$ns"
in0() { "$@"; }
inb() { nsenter --net="/proc/$ns/ns/net" "$@"; }
inb ip addr add 192.168.77.2/24 dev vb
inb ip link set vb up
ip addr add 192.168.77.1/24 dev va
ip link set va up
rdma link add rxe0 type rxe netdev va || ktap_exit_fail_msg "link: no rxe on va"

# 'rdma link add' names the netdev in the caller's namespace.
check "rdma link add vlink0 type vroce netdev vb (in vb's namespace)" \
	inb rdma link add vlink0 type vroce netdev vb
if inb rdma link add vlink1 type vroce netdev vb >"$log/again" 2>&1 ||
   [ -e /sys/class/infiniband/vlink1 ]; then
	fail "a second vroce port on vb is refused"
else
	ok "a second vroce port on vb is refused: $(head -n 1 "$log/again")"
fi
sleep 2		# the RoCE v2 GIDs of the addresses, the links up

# gid DEV ADDR GID: the index of DEV's RoCE v2 GID GID, the IPv4 address
# ADDR's ('0000:...:ffff:' and its last 32 bits, as sysfs shows them), or
# with ADDR 'fe80' the link-local one IPv6 gave the netdev.
gid() {
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		t=$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)
		[ "$t" = "RoCE v2" ] || continue
		case "$2:$(cat "$f")" in
		"$2:0000:0000:0000:0000:0000:ffff:$3" | fe80:fe80:*)
			echo "$i"
			return 0
			;;
		esac
	done
	return 1
}
# The IPv4-mapped GID's last 32 bits as sysfs shows them; without them
# the programs would fall back to another GID: no run.
gr=$(gid rxe0 192.168.77.1 c0a8:4d01) ||
	ktap_exit_fail_msg "link: rxe0 has no RoCE v2 GID of 192.168.77.1"
gv=$(gid vlink0 192.168.77.2 c0a8:4d02) ||
	ktap_exit_fail_msg "link: vlink0 has no RoCE v2 GID of 192.168.77.2"
# In vb's namespace, where the netdev is seen.
state=$(inb rdma link show vlink0/1 2>&1)
mtu=$(ibv_devinfo -d vlink0 2>&1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
case "$state" in
*"state ACTIVE"*"netdev vb"*)
	if [ "$mtu" = 1024 ]; then
		ok "vlink0: ACTIVE on vb, active MTU 1024 (veth's 1500), RoCE v2 GID $gv"
	else
		fail "vlink0: active MTU '$mtu', expected 1024"
	fi
	;;
*) echo "# $state"; fail "vlink0: not ACTIVE on vb" ;;
esac

dumpcap -q -i va -f "udp port 4791" -P -w "$log/va.pcap" \
	>"$log/dumpcap" 2>&1 &
cap=$!
# The file's header is written once the capture runs.
for i in $(seq 100); do
	[ "$(stat -c %s "$log/va.pcap" 2>/dev/null || echo 0)" -ge 24 ] && break
	sleep 0.1
done

# pair NAME SERVER_NS 'server command' 'client command' [CLIENT_NS]: the
# server in the initial namespace (SERVER_NS empty) or vb's (SERVER_NS
# 'inb'), the client in the other, or in CLIENT_NS (a function that runs
# its arguments in a namespace).
pair() {
	sns=${2:-in0}
	cns=${5:-}
	[ -n "$cns" ] || { [ "$sns" = in0 ] && cns=inb || cns=in0; }
	$sns timeout 60 sh -c "$3" >"$log/$1.srv" 2>&1 &
	srv=$!
	sleep 2
	$cns timeout 60 sh -c "$4" >"$log/$1.cli" 2>&1
	crc=$?
	wait $srv
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		# perftest's figures line, else the program's last line.
		r=$(grep -E '^ *[0-9]+ +[0-9]+ ' "$log/$1.cli" | tail -n 1)
		ok "$1: ${r:-$(tail -n 1 "$log/$1.cli")}"
	else
		tail -n 30 "$log/$1.cli" "$log/$1.srv" | sed 's/^/# /'
		fail "$1: client exit $crc, server exit $src"
	fi
}

cnt() { cat /sys/class/infiniband/vlink0/ports/1/hw_counters/"$1"; }
t0=$(cnt link_tx_frames) r0=$(cnt link_rx_frames)
# The received bytes checked (-c) at both ends.
pair "ibv_ud_pingpong vroce (client) -> rxe" "" \
	"ibv_ud_pingpong -d rxe0 -g $gr -s 1024 -n 100 -c" \
	"ibv_ud_pingpong -d vlink0 -g $gv -s 1024 -n 100 -c 192.168.77.1"
t1=$(cnt link_tx_frames) r1=$(cnt link_rx_frames)
pair "ibv_ud_pingpong rxe (client) -> vroce" inb \
	"ibv_ud_pingpong -d vlink0 -g $gv -s 1024 -n 100 -c" \
	"ibv_ud_pingpong -d rxe0 -g $gr -s 1024 -n 100 -c 192.168.77.2"
# rdma_cm over UD: address and route resolution, SIDR over the GSI QPs.
pair "udaddy vroce (client) -> rxe" "" \
	"udaddy -b 192.168.77.1 -C 20" \
	"udaddy -s 192.168.77.1 -b 192.168.77.2 -C 20"
pair "udaddy rxe (client) -> vroce" inb \
	"udaddy -b 192.168.77.2 -C 20" \
	"udaddy -s 192.168.77.2 -b 192.168.77.1 -C 20"

# perftest over UD: 1024-byte SENDs (one MTU), 200 of them.
pair "ib_send_bw -c UD vroce (client) -> rxe" "" \
	"ib_send_bw -c UD -d rxe0 -x $gr -s 1024 -n 200 -F" \
	"ib_send_bw -c UD -d vlink0 -x $gv -s 1024 -n 200 -F 192.168.77.1"
pair "ib_send_bw -c UD rxe (client) -> vroce" inb \
	"ib_send_bw -c UD -d vlink0 -x $gv -s 1024 -n 200 -F" \
	"ib_send_bw -c UD -d rxe0 -x $gr -s 1024 -n 200 -F 192.168.77.2"

# One pingpong of 100 round trips: 100 datagrams each way, exactly.
if [ $((t1 - t0)) -eq 100 ] && [ $((r1 - r0)) -eq 100 ]; then
	ok "vlink0's packet counters over 100 round trips: link_tx_frames +100, link_rx_frames +100"
else
	fail "vlink0's packet counters over 100 round trips: link_tx_frames +$((t1 - t0)), link_rx_frames +$((r1 - r0))"
fi

sleep 1
kill $cap 2>/dev/null
wait $cap
# Every packet on va either way: ud_pingpong's 2 x 2 x 100 datagrams and
# more, the MADs of rdma_cm.
# Every packet on va either way, UD SENDs only: what vlink0 sent is what
# came from 192.168.77.2 (nothing was dropped on the way in: no fault).
tx=$(cnt link_tx_frames) rx=$(cnt link_rx_frames)
if [ ! -s "$log/va.pcap" ]; then
	sed 's/^/# /' "$log/dumpcap" | tail -n 8
	fail "tshark decodes the capture of va clean: nothing captured"
elif python3 "$here/frames.py" --capture "$log/va.pcap" $((tx + rx)) 0x64,0x65 \
	>"$log/frames" 2>&1 &&
     grep -qx "frames: from 192.168.77.2: $tx" "$log/frames" &&
     grep -qx "frames: from 192.168.77.1: $rx" "$log/frames"; then
	ok "tshark decodes the capture of va clean: $(tail -n 1 "$log/frames")"
else
	sed 's/^/# /' "$log/frames" | tail -n 12
	fail "tshark decodes the capture of va clean, $tx packets from vlink0, $rx to it"
fi

# Issue 34, RC over packets (SEND, RDMA WRITE and READ; atomics not
# yet): the programs both ways with rxe. 4 KiB messages are four packets
# of the path MTU, 1024; rc_pingpong checks the bytes (-c).
pair "ibv_rc_pingpong vroce (client) -> rxe" "" \
	"ibv_rc_pingpong -d rxe0 -g $gr -s 4096 -n 100 -c" \
	"ibv_rc_pingpong -d vlink0 -g $gv -s 4096 -n 100 -c 192.168.77.1"
pair "ibv_rc_pingpong rxe (client) -> vroce" inb \
	"ibv_rc_pingpong -d vlink0 -g $gv -s 4096 -n 100 -c" \
	"ibv_rc_pingpong -d rxe0 -g $gr -s 4096 -n 100 -c 192.168.77.2"
pair "ib_write_bw vroce (client) -> rxe" "" \
	"ib_write_bw -d rxe0 -x $gr -s 16384 -n 300 -F" \
	"ib_write_bw -d vlink0 -x $gv -s 16384 -n 300 -F 192.168.77.1"
pair "ib_write_bw rxe (client) -> vroce" inb \
	"ib_write_bw -d vlink0 -x $gv -s 16384 -n 300 -F" \
	"ib_write_bw -d rxe0 -x $gr -s 16384 -n 300 -F 192.168.77.2"
pair "ib_send_bw vroce (client) -> rxe" "" \
	"ib_send_bw -d rxe0 -x $gr -s 16384 -n 300 -F" \
	"ib_send_bw -d vlink0 -x $gv -s 16384 -n 300 -F 192.168.77.1"
pair "ib_send_bw rxe (client) -> vroce" inb \
	"ib_send_bw -d vlink0 -x $gv -s 16384 -n 300 -F" \
	"ib_send_bw -d rxe0 -x $gr -s 16384 -n 300 -F 192.168.77.2"
# rdma_cm over RC: connection MADs over the GSI QPs, then SENDs.
pair "ucmatose vroce (client) -> rxe" "" \
	"ucmatose -b 192.168.77.1 -C 20" \
	"ucmatose -s 192.168.77.1 -b 192.168.77.2 -C 20"
pair "ucmatose rxe (client) -> vroce" inb \
	"ucmatose -b 192.168.77.2 -C 20" \
	"ucmatose -s 192.168.77.2 -b 192.168.77.1 -C 20"

# RDMA READ: perftest's, and rping's SEND, READ and WRITE with the data
# checked (-v).
pair "ib_read_bw vroce (client) -> rxe" "" \
	"ib_read_bw -d rxe0 -x $gr -s 16384 -n 300 -F" \
	"ib_read_bw -d vlink0 -x $gv -s 16384 -n 300 -F 192.168.77.1"
pair "ib_read_bw rxe (client) -> vroce" inb \
	"ib_read_bw -d vlink0 -x $gv -s 16384 -n 300 -F" \
	"ib_read_bw -d rxe0 -x $gr -s 16384 -n 300 -F 192.168.77.2"
# Atomics (FETCH_ADD, perftest's default) over packets: ATOMIC
# ACKNOWLEDGEs both ways.
pair "ib_atomic_bw vroce (client) -> rxe" "" \
	"ib_atomic_bw -d rxe0 -x $gr -n 300 -F" \
	"ib_atomic_bw -d vlink0 -x $gv -n 300 -F 192.168.77.1"
pair "ib_atomic_bw rxe (client) -> vroce" inb \
	"ib_atomic_bw -d vlink0 -x $gv -n 300 -F" \
	"ib_atomic_bw -d rxe0 -x $gr -n 300 -F 192.168.77.2"
# SRQs: 16 QPs on one SRQ each side, 4 KiB SENDs (four packets, each
# message keeps the receive its first packet took), the bytes checked.
pair "ibv_srq_pingpong vroce (client) -> rxe" "" \
	"ibv_srq_pingpong -d rxe0 -g $gr -n 20 -c" \
	"ibv_srq_pingpong -d vlink0 -g $gv -n 20 -c 192.168.77.1"
pair "ibv_srq_pingpong rxe (client) -> vroce" inb \
	"ibv_srq_pingpong -d vlink0 -g $gv -n 20 -c" \
	"ibv_srq_pingpong -d rxe0 -g $gr -n 20 -c 192.168.77.2"
# RDMA WRITE latency, each end polling for the other's WRITE.
pair "ib_write_lat vroce (client) -> rxe" "" \
	"ib_write_lat -d rxe0 -x $gr -s 64 -n 200 -F" \
	"ib_write_lat -d vlink0 -x $gv -s 64 -n 200 -F 192.168.77.1"
pair "ib_write_lat rxe (client) -> vroce" inb \
	"ib_write_lat -d vlink0 -x $gv -s 64 -n 200 -F" \
	"ib_write_lat -d rxe0 -x $gr -s 64 -n 200 -F 192.168.77.2"
pair "rping -v vroce (client) -> rxe" "" \
	"rping -s -a 192.168.77.1 -v -C 20" \
	"rping -c -a 192.168.77.1 -I 192.168.77.2 -v -C 20"
pair "rping -v rxe (client) -> vroce" inb \
	"rping -s -a 192.168.77.2 -v -C 20" \
	"rping -c -a 192.168.77.2 -I 192.168.77.1 -v -C 20"

# Faults on the link: netem (loss, duplication, corruption, reordering)
# on both ends of the pair. perftest's programs, which end with a
# handshake over TCP once every work request completed: a program that
# ends on an RC message (rc_pingpong, rping) would leave its peer retrying
# into a QP already gone when the last ACK is lost, whichever the
# provider. The bytes under loss are checked by vroce_frame.link_rc_vroce
# (a request, an ACK and a READ response lost on the KUnit cable).
hwc() { cat /sys/class/infiniband/"$1"/ports/1/hw_counters/"$2"; }
netem="loss 3% duplicate 3% corrupt 1% delay 1ms reorder 90% 50%"
v0=$(hwc vlink0 transport_retries) e0=$(hwc vlink0 link_rx_icrc_err)
x0=$(hwc rxe0 duplicate_request 2>/dev/null || echo 0)
# shellcheck disable=SC2086 # the options split
tc qdisc add dev va root netem $netem
# shellcheck disable=SC2086
inb tc qdisc add dev vb root netem $netem
pair "ib_write_bw vroce (client) -> rxe under netem" "" \
	"ib_write_bw -d rxe0 -x $gr -s 16384 -n 300 -F" \
	"ib_write_bw -d vlink0 -x $gv -s 16384 -n 300 -F 192.168.77.1"
pair "ib_read_bw vroce (client) -> rxe under netem" "" \
	"ib_read_bw -d rxe0 -x $gr -s 16384 -n 300 -F" \
	"ib_read_bw -d vlink0 -x $gv -s 16384 -n 300 -F 192.168.77.1"
pair "ib_send_bw rxe (client) -> vroce under netem" inb \
	"ib_send_bw -d vlink0 -x $gv -s 16384 -n 300 -F" \
	"ib_send_bw -d rxe0 -x $gr -s 16384 -n 300 -F 192.168.77.2"
pair "ib_read_bw rxe (client) -> vroce under netem" inb \
	"ib_read_bw -d vlink0 -x $gv -s 16384 -n 300 -F" \
	"ib_read_bw -d rxe0 -x $gr -s 16384 -n 300 -F 192.168.77.2"
tc qdisc del dev va root
inb tc qdisc del dev vb root
echo "# netem ($netem), 4 x 300 messages of 16 KiB: vlink0 transport_retries +$(($(hwc vlink0 transport_retries) - v0)), link_rx_icrc_err +$(($(hwc vlink0 link_rx_icrc_err) - e0)); rxe0 duplicate_request +$(($(hwc rxe0 duplicate_request 2>/dev/null || echo 0) - x0))"

# IPv6: the link-local RoCE v2 GIDs (IPv6 packets; the programs' own
# exchange goes over IPv4).
gr6=$(gid rxe0 fe80) && gv6=$(gid vlink0 fe80) ||
	echo "# link: no link-local RoCE v2 GID (rxe0 '$gr6', vlink0 '$gv6')"
pair "ibv_ud_pingpong over IPv6 link-local GIDs, vroce (client) -> rxe" "" \
	"ibv_ud_pingpong -d rxe0 -g ${gr6:-99} -s 1024 -n 50 -c" \
	"ibv_ud_pingpong -d vlink0 -g ${gv6:-99} -s 1024 -n 50 -c 192.168.77.1"
pair "ibv_ud_pingpong over IPv6 link-local GIDs, rxe (client) -> vroce" inb \
	"ibv_ud_pingpong -d vlink0 -g ${gv6:-99} -s 1024 -n 50 -c" \
	"ibv_ud_pingpong -d rxe0 -g ${gr6:-99} -s 1024 -n 50 -c 192.168.77.2"

# vroce to vroce: two ports on a second veth pair, each end in a namespace
# of its own.
ip link add vc type veth peer name vd
nc=$(netns)
nd=$(netns)
ip link set vc netns "$nc"
ip link set vd netns "$nd"
inc() { nsenter --net="/proc/$nc/ns/net" "$@"; }
ind() { nsenter --net="/proc/$nd/ns/net" "$@"; }
inc ip addr add 192.168.79.1/24 dev vc
inc ip link set vc up
ind ip addr add 192.168.79.2/24 dev vd
ind ip link set vd up
inc rdma link add vlinkc type vroce netdev vc
ind rdma link add vlinkd type vroce netdev vd
sleep 2
gc=$(gid vlinkc 192.168.79.1 c0a8:4f01) && gd=$(gid vlinkd 192.168.79.2 c0a8:4f02) ||
	echo "# link: no IPv4 RoCE v2 GID on vlinkc ('$gc') or vlinkd ('$gd')"
pair "ibv_ud_pingpong vroce (client, vlinkd) -> vroce (vlinkc) over a veth pair" inc \
	"ibv_ud_pingpong -d vlinkc -g ${gc:-99} -s 1024 -n 100 -c" \
	"ibv_ud_pingpong -d vlinkd -g ${gd:-99} -s 1024 -n 100 -c 192.168.79.1" ind
pair "ibv_rc_pingpong vroce (client, vlinkd) -> vroce (vlinkc) over a veth pair" inc \
	"ibv_rc_pingpong -d vlinkc -g ${gc:-99} -s 4096 -n 100 -c" \
	"ibv_rc_pingpong -d vlinkd -g ${gd:-99} -s 4096 -n 100 -c 192.168.79.1" ind
# RDMA READ and WRITE between two vroce ports under netem as above.
# shellcheck disable=SC2086
inc tc qdisc add dev vc root netem $netem
# shellcheck disable=SC2086
ind tc qdisc add dev vd root netem $netem
pair "ib_read_bw vroce (client, vlinkd) -> vroce (vlinkc) under netem" inc \
	"ib_read_bw -d vlinkc -x ${gc:-99} -s 16384 -n 300 -F" \
	"ib_read_bw -d vlinkd -x ${gd:-99} -s 16384 -n 300 -F 192.168.79.1" ind
pair "ib_write_bw vroce (client, vlinkd) -> vroce (vlinkc) under netem" inc \
	"ib_write_bw -d vlinkc -x ${gc:-99} -s 16384 -n 300 -F" \
	"ib_write_bw -d vlinkd -x ${gd:-99} -s 16384 -n 300 -F 192.168.79.1" ind
echo "# netem between vlinkc and vlinkd: transport_retries vlinkc $(hwc vlinkc transport_retries), vlinkd $(hwc vlinkd transport_retries); link_rx_icrc_err vlinkc $(hwc vlinkc link_rx_icrc_err), vlinkd $(hwc vlinkd link_rx_icrc_err)"
inc tc qdisc del dev vc root
ind tc qdisc del dev vd root
pair "udaddy vroce (client, vlinkd) -> vroce (vlinkc)" inc \
	"udaddy -b 192.168.79.1 -C 20" \
	"udaddy -s 192.168.79.1 -b 192.168.79.2 -C 20" ind
inc ip link del vc

# Hostile frames from va's side to vb's MAC (scripts/hostile-frames.py):
# first one of each kind, each counted exactly where it belongs; then
# fuzzing, every packet counted once; the kernel (KASAN, lockdep) quiet.
settle() {	# wait until the port's receive counters stop moving
	prev=
	for i in $(seq 50); do
		cur="$(cnt link_rx_frames) $(cnt link_rx_icrc_err) $(cnt link_rx_discards) $(cnt ud_dropped)"
		[ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.2
	done
}
hostile() {
	python3 "$here/hostile-frames.py" va "$mac_b" 192.168.77.1 192.168.77.2 \
		1 0x80010000 "$seed" "$@" >>"$log/hostile" 2>&1
}
seed=${VROCE_HOSTILE_SEED:-$(date +%s)}
settle
f0=$(cnt link_rx_frames) i0=$(cnt link_rx_icrc_err) d0=$(cnt link_rx_discards) u0=$(cnt ud_dropped)
if hostile fixed 0; then
	settle
	f1=$(cnt link_rx_frames) i1=$(cnt link_rx_icrc_err) d1=$(cnt link_rx_discards) u1=$(cnt ud_dropped)
	# Taken by the transport: qpn and qkey (then dropped by the QP
	# lookup, ud_dropped); icrc; discards: trunc, opcode, pkey; local
	# (lo's address), route (another host's), mac and vlan never reach
	# the port.
	got="rx_frames +$((f1 - f0)) icrc_err +$((i1 - i0)) discards +$((d1 - d0)) ud_dropped +$((u1 - u0))"
	if [ "$got" = "rx_frames +2 icrc_err +1 discards +3 ud_dropped +2" ]; then
		ok "10 hostile frames, one of each kind, counted where each belongs: $got"
	else
		fail "10 hostile frames: $got, expected rx_frames +2 icrc_err +1 discards +3 ud_dropped +2"
	fi
	if hostile fuzz 3000; then
		settle
		f2=$(cnt link_rx_frames) i2=$(cnt link_rx_icrc_err) d2=$(cnt link_rx_discards)
		n=$(((f2 - f1) + (i2 - i1) + (d2 - d1)))
		if [ $n -eq 3000 ] && [ $((i2 - i1)) -ge 1 ] && [ $((d2 - d1)) -ge 1 ]; then
			ok "3000 fuzzed frames (seed $seed) each counted once: rx_frames +$((f2 - f1)), icrc_err +$((i2 - i1)), discards +$((d2 - d1))"
		else
			fail "3000 fuzzed frames (seed $seed): rx_frames +$((f2 - f1)), icrc_err +$((i2 - i1)), discards +$((d2 - d1)): $n counted"
		fi
	else
		sed 's/^/# /' "$log/hostile" | tail -n 8
		fail "fuzzed frames: the sender failed"
	fi
else
	sed 's/^/# /' "$log/hostile" | tail -n 8
	fail "hostile frames: the sender failed"
	ktap_test_skip "fuzzed frames" "the sender failed"
fi

# Forged RC frames (scripts/hostile-frames.py rc): five RC QPs of vlink0
# made in RTR towards a QP of 192.168.77.1 that is not there; from va,
# a WRITE at the expected PSN, others ahead of and behind it, through
# another PD's R_Key, past the MR, a READ past the MR, a RETH longer than
# the payload, a FETCH_ADD twice at one PSN, a misaligned COMPARE_SWAP:
# each answered as IBTA says (ACK, one sequence NAK, the duplicate ACKed
# again, remote access and invalid request NAKs, no READ RESPONSE, the
# atomic's original value twice), only the first WRITE and one add in
# memory, every QP in error after its NAK.
if /usr/bin/python3 "$here/hostile-frames.py" rc va "$mac_b" 192.168.77.1 \
	192.168.77.2 vlink0 "$gv" >"$log/hostile-rc" 2>&1; then
	sed 's/^/# /' "$log/hostile-rc"
	ok "forged RC frames: ACK, one sequence NAK, duplicate ACKed, remote access and invalid request NAKs, no READ response, a duplicate atomic answered from the replay cache, only the first WRITE and one add in memory, every QP in error"
else
	sed 's/^/# /' "$log/hostile-rc" | tail -n 20
	fail "forged RC frames to RC QPs of vlink0"
fi

# Port events (review of issue 34): vb down and up (vroce's netdev; va's
# carrier goes with it), then va (rxe's; vb's carrier): each port's
# consumers see PORT_ERR and PORT_ACTIVE, vlink0's as rxe0's
# (ibv_asyncwatch), and query_port says DOWN meanwhile.
ibv_asyncwatch -d vlink0 >"$log/ev-vlink0" 2>&1 &
wv=$!
ibv_asyncwatch -d rxe0 >"$log/ev-rxe0" 2>&1 &
wr=$!
sleep 1
inb ip link set vb down
sleep 2
down_v=$(inb rdma link show vlink0/1 2>&1)
inb ip link set vb up
sleep 2
ip link set va down
sleep 2
down_r=$(inb rdma link show vlink0/1 2>&1)
ip link set va up
sleep 3
kill "$wv" "$wr" 2>/dev/null
wait "$wv" "$wr" 2>/dev/null
# evs DEV [uniq]: DEV's port events in order (with 'uniq', repeats of
# the same event in a row as one: rxe tells PORT_ACTIVE for NETDEV_UP and
# again for the carrier; vroce tells each change once).
evs() {
	grep -o 'IBV_EVENT_PORT_[A-Z]*' "$log/ev-$1" | sed 's/IBV_EVENT_//' |
		if [ "${2:-}" = uniq ]; then uniq; else cat; fi | tr '\n' ' '
}
want="PORT_ERR PORT_ACTIVE PORT_ERR PORT_ACTIVE "
echo "# port events: vlink0: $(evs vlink0)| rxe0: $(evs rxe0)"
case "$down_v:$down_r" in
*"state DOWN"*:*"state DOWN"*)
	if [ "$(evs vlink0)" = "$want" ] && [ "$(evs rxe0 uniq)" = "$want" ]; then
		ok "port events over vb and va down and up: vlink0 $want(rxe0 the same, repeats aside)"
	else
		fail "port events: vlink0 '$(evs vlink0)', rxe0 '$(evs rxe0)', expected '$want' each (rxe0's repeats aside)"
	fi
	;;
*) echo "# $down_v / $down_r"; fail "port events: vlink0 not DOWN with vb down, or with va's carrier off" ;;
esac

# Unbound through sysfs, the linked HCA goes and lets vb go: a new port
# on vb takes its place (review of issue 34: it stayed on vb's packets).
pdev=$(basename "$(readlink /sys/class/infiniband/vlink0/device)")
echo "$pdev" >/sys/bus/platform/drivers/vroce/unbind
for i in $(seq 50); do
	[ -e /sys/bus/platform/devices/"$pdev" ] || break
	sleep 0.2
done
# The cable is pulled just after the device goes: -EEXIST until then.
readd() {
	for i in $(seq 25); do
		inb rdma link add vlink0 type vroce netdev vb >"$log/again" 2>&1 &&
			return 0
		sleep 0.2
	done
	return 1
}
if [ -e /sys/bus/platform/devices/"$pdev" ]; then
	fail "vlink0 ($pdev) unbound: the HCA is still plugged in"
elif readd; then
	ok "vlink0 ($pdev) unbound through sysfs: its HCA unplugged, vb takes a new vroce port"
else
	sed 's/^/# /' "$log/again"
	fail "vlink0 ($pdev) unbound: vb refuses a new vroce port"
fi

# The netdev goes: its port goes with it, and rxe's with va.
inb ip link del vb
for i in $(seq 50); do
	[ -e /sys/class/infiniband/vlink0 ] || [ -e /sys/class/infiniband/rxe0 ] ||
		break
	sleep 0.2
done
if [ -e /sys/class/infiniband/vlink0 ] || [ -e /sys/class/infiniband/rxe0 ]; then
	fail "vlink0 goes with vb, rxe0 with va (its peer)"
else
	ok "vlink0 goes with vb, rxe0 with va (its peer)"
fi
# What the console's loglevel hides (warnings, lockdep) is in dmesg.
# shellcheck source=splat.sh
. "$here/splat.sh"
dmesg >"$log/dmesg"
if splats "$log/dmesg"; then
	grep -m1 -E -A20 "$SPLAT_PATTERN" "$log/dmesg" | sed 's/^/# /'
	fail "dmesg: no kernel splat"
else
	ok "dmesg: no kernel splat"
fi

kill "$ns" "$nc" "$nd" 2>/dev/null
umount /proc/cpuinfo
umount "$log"
ktap_finished
