#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The part of scripts/unplug.sh that runs inside the test kernel.
# $1: the provider, as RDMAV_DRIVERS names it; $2: the directory of
# vroce_unplug_test. KTAP (scripts/ktap.sh).
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ktap.sh
. "$here/ktap.sh"

export RDMAV_DRIVERS="$1" IBV_SHOW_WARNINGS=1
bin=$2/vroce_unplug_test
log=/tmp/vroce-unplug.$$
mkdir -p "$log"
drv=/sys/bus/platform/drivers/vroce
hca=/sys/kernel/debug/vroce_hca

ok() { ktap_test_pass "$*"; }
bad() { ktap_test_fail "$*"; }
ms() { date +%s%3N; }

ktap_print_header
ktap_set_plan 10
ip link set lo up
ip link set dummy0 up
rdma link add rxe0 type rxe netdev dummy0 || ktap_print_msg "unplug: no rxe"

# wait_dev DEV [gone]: up to 10 s for the RDMA device to appear (or go).
wait_dev() {
	i=0
	while [ $i -lt 100 ]; do
		if [ -e /sys/class/infiniband/$1 ]; then
			[ "${2:-}" = gone ] || return 0
		else
			[ "${2:-}" = gone ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# pingpong DEV: ibv_rc_pingpong between two new processes.
pingpong() {
	sleep 1		# the GIDs of a new device
	timeout 60 ibv_rc_pingpong -d "$1" -g 0 -n 50 >"$log/pp.srv" 2>&1 &
	s=$!
	sleep 2
	timeout 60 ibv_rc_pingpong -d "$1" -g 0 -n 50 127.0.0.1 >"$log/pp.cli" 2>&1
	c=$?
	wait $s
	[ $c -eq 0 ] && [ $? -eq 0 ]
}

# rebind WHAT: bind the driver to vroce.0 again; a new process must then
# move data on vroce0.
rebind() {
	echo vroce.0 >$drv/bind
	if wait_dev vroce0 && pingpong vroce0; then
		ok "$1, a new process moves data (ibv_rc_pingpong)"
	else
		bad "$1, ibv_rc_pingpong: $(tail -n 3 "$log/pp.cli")"
	fi
}

# held DEV MODE ACTION: vroce_unplug_test holds DEV with traffic running;
# once it is ready, ACTION runs (timed: $took ms). Sets $prc (the
# program's status), $arc (the action's), $verdict (its last line).
held() {
	dev=$1 mode=$2 action=$3
	rm -f "$log/ready"
	timeout 90 "$bin" "$dev" "$mode" "$log/ready" >"$log/$dev.$mode.out" \
		2>"$log/$dev.$mode.err" &
	p=$!
	i=0
	while [ ! -e "$log/ready" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
	t0=$(ms)
	timeout 60 sh -c "$action"
	arc=$?
	took=$(( $(ms) - t0 ))
	wait $p
	prc=$?
	verdict=$(tail -n 1 "$log/$dev.$mode.out")
	[ -n "$verdict" ] || verdict=$(tail -n 2 "$log/$dev.$mode.err" | tr '\n' ' ')
}

# 1. Hot unplug: the driver is unbound while the process runs traffic.
held vroce0 unplug "echo vroce.0 >$drv/unbind"
if [ $arc -eq 0 ] && [ $took -lt 10000 ] && [ $prc -eq 0 ] &&
   wait_dev vroce0 gone; then
	ok "vroce0: unbind with a live process returned in $took ms; $verdict"
else
	sed 's/^/# /' "$log/vroce0.unplug.err"
	bad "vroce0: unbind (status $arc, $took ms), process (status $prc): $verdict"
fi
rebind "vroce0: rebound"

# The peer: rxe has no disassociate_ucontext, so removing it waits for
# the process, which gives up after its own deadline (UNPLUG_WAIT_S).
# Shown, not judged: a skip either way.
if [ -e /sys/class/infiniband/rxe0 ]; then
	export UNPLUG_WAIT_S=5
	held rxe0 unplug "rdma link delete rxe0"
	unset UNPLUG_WAIT_S
	ktap_test_skip "peer: rxe0: 'rdma link delete' with a live process returned after $took ms (status $arc); the process: $verdict" \
		"the peer, for comparison"
else
	ktap_test_skip "peer: rxe0 unplugged with a live process" "no rxe0"
fi

# 2. Death: the HCA hangs mid-traffic; the health poll finds it.
held vroce0 dead "echo 1 >$hca/vroce.0/hang"
if [ $arc -eq 0 ] && [ $prc -eq 0 ]; then
	ok "vroce0: HCA hung mid-traffic; $verdict"
else
	sed 's/^/# /' "$log/vroce0.dead.err"
	bad "vroce0: HCA hung, process (status $prc): $verdict"
fi
t0=$(ms)
timeout 30 sh -c "echo vroce.0 >$drv/unbind"
arc=$?
took=$(( $(ms) - t0 ))
if [ $arc -eq 0 ] && [ $took -lt 10000 ] && wait_dev vroce0 gone; then
	ok "vroce0: the dead device unbound in $took ms"
else
	bad "vroce0: the dead device's unbind: status $arc after $took ms"
fi
rebind "vroce0: rebound after its death"

# 3. Plugging HCAs in and out at run time (netdevsim's model).
before=$(ls /sys/class/infiniband)
if echo 5 >$hca/new_device; then
	i=0
	new=
	while [ -z "$new" ] && [ $i -lt 100 ]; do
		new=$(ls /sys/class/infiniband | grep -vxF "$before" | head -n 1)
		sleep 0.1
		i=$((i + 1))
	done
	if [ -n "$new" ] && timeout 60 "$bin" "$new" traffic "$log/r" >"$log/plug.out" 2>&1; then
		ok "new_device 5: $new, traffic: $(tail -n 1 "$log/plug.out")"
	else
		bad "new_device 5: device '$new': $(tail -n 2 "$log/plug.out")"
	fi
	e1=0 e2=0 e3=0
	echo 5 >$hca/new_device 2>/dev/null && e1=1
	echo 8 >$hca/new_device 2>/dev/null && e2=1
	echo 6 >$hca/del_device 2>/dev/null && e3=1
	if [ $e1$e2$e3 = 000 ]; then
		ok "new_device of a present id or past 7, del_device of an absent id: refused"
	else
		bad "refusals: present id $e1, id 8 $e2, absent id $e3 (1: accepted)"
	fi
	if echo 5 >$hca/del_device && wait_dev "$new" gone; then
		ok "del_device 5: $new gone"
	else
		bad "del_device 5: $new still there"
	fi
else
	bad "new_device 5 refused"
	ktap_test_skip "new_device of a present id or past 7, del_device of an absent id: refused" "no new device"
	ktap_test_skip "del_device 5" "no new device"
fi

k=/sys/kernel/debug/kmemleak
if [ -e $k ]; then
	sleep 6
	echo scan >$k
	echo scan >$k
	if grep -q vroce $k; then
		sed 's/^/# /' $k
		bad "kmemleak: leaks through vroce"
	else
		ok "kmemleak: no leak through vroce"
	fi
else
	ktap_test_skip "kmemleak: no leak through vroce" "no kmemleak in this kernel"
fi
ktap_finished
