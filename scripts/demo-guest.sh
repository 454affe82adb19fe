#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The part of 'make demo' that runs inside the test kernel (as its init,
# through scripts/uml-run.sh). $1: the built uverbs test program; $2: the
# built provider, as RDMAV_DRIVERS names it (<dir>/libvroce).
set -u
provider=$2

ib=vroce0
# debugfs: the demo module's directory (kmr, loopback) and the HCA's, named
# after the platform device the driver bound (mr_read).
D=/sys/kernel/debug/vroce_demo/$ib
H=/sys/kernel/debug/vroce_hca/$(basename "$(readlink /sys/class/infiniband/$ib/device)")
ok=0
bad=0
step() { printf '\n== %s\n' "$*"; }
pass() { echo "demo: ok: $*"; ok=$((ok + 1)); }
fail() { echo "demo: FAILED: $*"; bad=$((bad + 1)); }

# Read LEN bytes at IOVA through KEY with the HCA's translation engine.
hca_read() {
	exec 3<>"$H/mr_read" || return 1
	printf '%s %s %s\n' "$1" "$2" "$3" >&3 || { exec 3>&-; return 1; }
	head -c "$3" <&3 | tr -d '\000'
	exec 3>&-
}

step "the device, as the RDMA core shows it"
rdma dev show vroce0 && pass "rdma dev shows vroce0" || fail "rdma dev"
rdma link show vroce0/1

step "kernel MRs: a PD with its DMA MR, and a fast-reg MR over a kernel buffer"
echo create >"$D/kmr" && pass "kernel PD, DMA MR and fast-reg MR created" ||
	fail "kmr create"
cat "$D/kmr"
set -- "$1" $(cat "$D/kmr")
# $2.. = dma_lkey K buf_dma A len L frmr_key F frmr_iova I frmr_len N
dma_lkey=$3 buf_dma=$5 frmr_key=$9 frmr_iova=${11} frmr_len=${13}

step "the HCA reads the kernel buffer through the DMA MR (first 64 bytes)"
got=$(hca_read "$dma_lkey" "$buf_dma" 64)
printf '%s\n' "$got"
case "$got" in
"vroce kernel buffer, byte     0"*) pass "bytes through the DMA MR match" ;;
*) fail "bytes through the DMA MR" ;;
esac
got=$(hca_read "$dma_lkey" "$(printf %#x $((buf_dma + 8192)))" 32)
printf '%s\n' "$got"
case "$got" in
"vroce kernel buffer, byte  8192"*) pass "bytes two pages in match" ;;
*) fail "bytes two pages in" ;;
esac

step "the fast-reg MR: mapped; the HCA refuses it until a REG_MR registers it"
if hca_read "$frmr_key" "$frmr_iova" 16 2>/dev/null; then
	fail "the HCA translated an unregistered fast-reg MR"
else
	pass "the HCA refuses the fast-reg MR until it is registered"
fi
# A REG_MR work request on a QP of the PD: the HCA copies the MR's page
# list into its table and registers it, for local write and remote read.
if echo register >"$D/kmr"; then
	pass "a REG_MR work request registered the fast-reg MR"
else
	fail "REG_MR work request"
fi
got=$(hca_read "$frmr_key" "$(printf %#x $((frmr_iova + 4096)))" 64)
printf '%s\n' "$got"
case "$got" in
"vroce kernel buffer, byte  4096"*) pass "bytes through the fast-reg MR match" ;;
*) fail "bytes through the fast-reg MR" ;;
esac

step "a user MR over malloc'd memory through raw uverbs; the HCA reads it back"
VROCE_UVERBS_HOLD='echo; echo "== rdma -dd res show mr (while the user MR lives)"; rdma -dd res show mr' \
	"$1" && pass "user MR end to end" || fail "user MR end to end"

echo destroy >"$D/kmr"

step "the data path: two RC QPs, SEND, RDMA WRITE and RDMA READ through a fast-reg MR"
if echo 10000 >"$D/loopback"; then
	pass "10000 bytes moved between two QPs by SEND, WRITE and READ, intact"
else
	fail "loopback between two QPs"
fi
cat "$D/loopback"

step "libibverbs through the vroce provider: ibv_devinfo, ibv_rc_pingpong"
export RDMAV_DRIVERS="$provider"
ip link set lo up
if ibv_devinfo -d vroce0; then
	pass "ibv_devinfo lists vroce0"
else
	fail "ibv_devinfo"
fi
ibv_rc_pingpong -d vroce0 -g 0 -n 50 >/tmp/demo-pingpong.$$ 2>&1 &
sleep 2
if ibv_rc_pingpong -d vroce0 -g 0 -n 50 127.0.0.1 >/tmp/demo-pp.$$ 2>&1 &&
   wait $!; then
	cat /tmp/demo-pp.$$
	pass "ibv_rc_pingpong: 50 round trips between two processes on vroce0"
else
	cat /tmp/demo-pp.$$
	fail "ibv_rc_pingpong"
fi
# issue 31: microseconds per round trip, beside rxe0's in the same kernel
# (soft RoCE over a dummy netdev), both polling as a user runs them.
pp_usec() { awk '/usec\/iter/ { print $(NF - 1) }' "$1"; }
v=$(pp_usec /tmp/demo-pp.$$)
x=
ip link set dummy0 up 2>/dev/null
if rdma link add rxe0 type rxe netdev dummy0 2>/dev/null; then
	sleep 1
	ibv_rc_pingpong -d rxe0 -g 0 -n 50 >/tmp/demo-pingpong.$$ 2>&1 &
	sleep 2
	ibv_rc_pingpong -d rxe0 -g 0 -n 50 127.0.0.1 >/tmp/demo-pp.$$ 2>&1
	wait $!
	x=$(pp_usec /tmp/demo-pp.$$)
	rdma link delete rxe0
fi
echo "demo: ibv_rc_pingpong, usec per round trip: vroce0 ${v:-none}, rxe0 ${x:-none}"
rm -f /tmp/demo-pingpong.$$ /tmp/demo-pp.$$

step "summary"
echo "demo: $ok passed, $bad failed"
[ "$bad" -eq 0 ]
