#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the UML test kernel booted with two HCAs on the wire
# (scripts/rdmacm.sh: vroce.num_hcas=2): rdma-core's rdma_cm programs
# between vroce0 and vroce1 through the provider. vroce1's netdev goes
# into a network namespace of its own, as a second host would have it
# (in one namespace both addresses would be local and rdma_cm would use
# one HCA for both ends); the ports' netdevs carry no ARP, so each side
# gets the other's MAC as a static neighbour. rping (RDMA READ/WRITE ping
# pong, 10 rounds) and ucmatose (connect, SENDs, disconnect), server in
# vroce1's namespace, client on vroce0.
#
# Usage: rdmacm-guest.sh <dir>/libvroce
# KTAP (scripts/ktap.sh): three tests.
export RDMAV_DRIVERS="$1" IBV_SHOW_WARNINGS=1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ktap.sh
. "$here/ktap.sh"
log=$(mktemp -d /tmp/vroce-rdmacm.XXXXXX)
mount -t tmpfs tmpfs "$log"

ok() { ktap_test_pass "$*"; }
fail() { ktap_test_fail "$*"; }

ktap_print_header
ktap_set_plan 3
for d in vroce0 vroce1; do
	[ -e /sys/class/infiniband/$d ] || ktap_exit_fail_msg "rdmacm: no $d"
done
mac() { cat /sys/class/net/"$1"/address; }
mac_a=$(mac vroce0)
mac_b=$(mac vroce1)

ip link set lo up
ip addr add 192.0.2.1/24 dev vroce0
unshare --net sleep 3600 &
ns=$!
sleep 1
ip link set vroce1 netns $ns
inb() { nsenter --net=/proc/$ns/ns/net "$@"; }
inb ip link set lo up
inb ip link set vroce1 up
inb ip addr add 192.0.2.2/24 dev vroce1
inb ip neigh replace 192.0.2.1 lladdr "$mac_a" dev vroce1 nud permanent
ip neigh replace 192.0.2.2 lladdr "$mac_b" dev vroce0 nud permanent
sleep 1		# the RoCE v2 GIDs of the new addresses

# pair NAME 'server command' 'client command'
pair() {
	inb timeout 60 sh -c "$2" >"$log/$1.srv" 2>&1 &
	srv=$!
	sleep 2
	timeout 60 sh -c "$3" >"$log/$1.cli" 2>&1
	crc=$?
	wait $srv
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		ok "$1: vroce0 (client) -> vroce1 (server): $(tail -n 1 "$log/$1.cli")"
	else
		tail -n 8 "$log/$1.cli" "$log/$1.srv" | sed 's/^/# /'
		fail "$1: client exit $crc, server exit $src"
	fi
}

pair rping "rping -s -a 192.0.2.2 -C 10 -v" \
	"rping -c -a 192.0.2.2 -I 192.0.2.1 -C 10 -v"
n=$(grep -c "ping data" "$log/rping.cli")
if [ "$n" -eq 10 ]; then
	ok "rping: 10 rounds of data seen by the client"
else
	fail "rping: $n rounds of data seen by the client"
fi
pair ucmatose "ucmatose -b 192.0.2.2" "ucmatose -s 192.0.2.2 -b 192.0.2.1"

kill $ns 2>/dev/null
umount "$log"
ktap_finished
