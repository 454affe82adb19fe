# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced by the tests that QEMU guests run from an initramfs
# (scripts/qemu-load-test.sh in Debian's kernels, scripts/rust-module.sh in
# the CONFIG_RUST one; scripts/qemu-root.sh copies it in beside ktap.sh):
# the checks of vroce0 through rdma-core's tools that both make, each
# printing KTAP tests (ktap.sh). POSIX sh, for busybox.

# guest_rdma_dev: 'rdma dev' lists vroce0 (one test).
guest_rdma_dev() {
	rdma dev >/tmp/rdma 2>&1
	if grep -q "vroce0" /tmp/rdma; then
		ktap_test_pass "rdma dev: $(grep vroce0 /tmp/rdma)"
	else
		sed 's/^/# /' /tmp/rdma
		ktap_test_fail "rdma dev lists vroce0"
	fi
}

# guest_devinfo: ibv_devinfo, through the provider, sees vroce0's port
# active (one test).
guest_devinfo() {
	ibv_devinfo -d vroce0 >/tmp/devinfo 2>&1
	if grep -q "hca_id:.*vroce0" /tmp/devinfo && grep -q PORT_ACTIVE /tmp/devinfo; then
		ktap_test_pass "ibv_devinfo: vroce0, port active"
	else
		sed 's/^/# /' /tmp/devinfo
		ktap_test_fail "ibv_devinfo: vroce0, port active"
	fi
}

# guest_pingpong_pairs N1 N2 SIZE2 NAME1 NAME2: two ibv_rc_pingpong pairs
# on vroce0 at once (two CPUs), N1 iterations of 4 KiB and N2 of SIZE2
# bytes; each registers its MRs through the provider and checks nothing
# failed (two tests).
guest_pingpong_pairs() {
	ibv_rc_pingpong -d vroce0 -g 0 -n "$1" >/tmp/srv 2>&1 &
	gp_srv=$!
	ibv_rc_pingpong -d vroce0 -g 0 -n "$2" -s "$3" -p 18517 >/tmp/srv2 2>&1 &
	gp_srv2=$!
	sleep 2
	ibv_rc_pingpong -d vroce0 -g 0 -n "$2" -s "$3" -p 18517 127.0.0.1 >/tmp/cli2 2>&1 &
	gp_cli2=$!
	if ibv_rc_pingpong -d vroce0 -g 0 -n "$1" 127.0.0.1 >/tmp/cli 2>&1 && wait $gp_srv; then
		ktap_test_pass "$4: $(grep -m1 'bytes in' /tmp/cli)"
	else
		cat /tmp/cli /tmp/srv | sed 's/^/# /'
		ktap_test_fail "$4"
	fi
	if wait $gp_cli2 && wait $gp_srv2; then
		ktap_test_pass "$5: $(grep -m1 'bytes in' /tmp/cli2)"
	else
		cat /tmp/cli2 /tmp/srv2 | sed 's/^/# /'
		ktap_test_fail "$5"
	fi
}

# guest_rping: rdma_cm on vroce0's address 192.0.2.1 (set here), server and
# client on the one port: 10 rounds of RDMA READ and WRITE into MRs the
# provider registered, each round's data checked (-V) (one test).
guest_rping() {
	ip link set vroce0 up
	ip addr add 192.0.2.1/24 dev vroce0
	sleep 1		# the RoCE v2 GID of the new address
	timeout 60 rping -s -a 192.0.2.1 -C 10 -V >/tmp/rping.srv 2>&1 &
	gp_srv=$!
	sleep 1
	timeout 60 rping -c -a 192.0.2.1 -C 10 -v -V >/tmp/rping.cli 2>&1
	gp_crc=$?
	wait $gp_srv
	gp_src=$?
	gp_n=$(grep -c "ping data" /tmp/rping.cli)
	if [ $gp_crc -eq 0 ] && [ $gp_src -eq 0 ] && [ "$gp_n" -eq 10 ]; then
		ktap_test_pass "rping -V on 192.0.2.1 (vroce0): 10 rounds, data verified: $(tail -n 1 /tmp/rping.cli)"
	else
		tail -n 8 /tmp/rping.cli /tmp/rping.srv | sed 's/^/# /'
		ktap_test_fail "rping -V on 192.0.2.1 (vroce0): client exit $gp_crc, server exit $gp_src, $gp_n rounds of data"
	fi
}

# NVMe over RDMA with the kernel's own target (nvmet-rdma, configfs) and
# host (nvme-rdma, Debian's nvme-cli): the target exports the
# memory-backed /dev/nullb0 (null_blk memory_backed=1), any host allowed.
gn_hostid=6e0f1c4a-3b2d-4c8e-9a71-5d2f0b8e7c13
gn_hostnqn=nqn.2014-08.org.nvmexpress:uuid:$gn_hostid
gn_cfg=/sys/kernel/config/nvmet

# guest_nvmet_add NQN ADDR PORT: subsystem NQN, namespace 1 on
# /dev/nullb0, exported on ADDR:4420 (IPv4) as configfs port PORT; fails
# when this kernel cannot (no nvmet configfs, no /dev/nullb0).
guest_nvmet_add() {
	[ -d $gn_cfg ] || mount -t configfs configfs /sys/kernel/config
	[ -d $gn_cfg ] && [ -b /dev/nullb0 ] || return 1
	mkdir $gn_cfg/subsystems/"$1" &&
	echo 1 >$gn_cfg/subsystems/"$1"/attr_allow_any_host &&
	mkdir $gn_cfg/subsystems/"$1"/namespaces/1 &&
	printf %s /dev/nullb0 >$gn_cfg/subsystems/"$1"/namespaces/1/device_path &&
	echo 1 >$gn_cfg/subsystems/"$1"/namespaces/1/enable &&
	mkdir $gn_cfg/ports/"$3" &&
	echo rdma >$gn_cfg/ports/"$3"/addr_trtype &&
	echo ipv4 >$gn_cfg/ports/"$3"/addr_adrfam &&
	echo "$2" >$gn_cfg/ports/"$3"/addr_traddr &&
	echo 4420 >$gn_cfg/ports/"$3"/addr_trsvcid &&
	ln -s $gn_cfg/subsystems/"$1" $gn_cfg/ports/"$3"/subsystems/"$1"
}

# guest_nvmet_del NQN PORT: undoes guest_nvmet_add (the target goes
# before its modules do).
guest_nvmet_del() {
	rm -f $gn_cfg/ports/"$2"/subsystems/"$1"
	rmdir $gn_cfg/ports/"$2"
	echo 0 >$gn_cfg/subsystems/"$1"/namespaces/1/enable
	rmdir $gn_cfg/subsystems/"$1"/namespaces/1
	rmdir $gn_cfg/subsystems/"$1"
}

# guest_nvme_skip WHAT WHY: guest_nvme_io's three tests, skipped.
guest_nvme_skip() {
	for t in "nvme connect -t rdma" "1 MiB written and read back" \
		 "nvme disconnect"; do
		ktap_test_skip "$1: $t" "$2"
	done
}

# guest_nvme_io ADDR NQN WHAT: 'nvme connect -t rdma' to NQN at ADDR:4420,
# 1 MiB of random bytes written through the namespace's block device
# (O_DIRECT), read back and compared, 'nvme disconnect' (three tests,
# named after WHAT).
guest_nvme_io() {
	gn_blk=
	if timeout 60 nvme connect -t rdma -a "$1" -s 4420 -n "$2" \
		-q $gn_hostnqn -I $gn_hostid >/tmp/connect 2>&1; then
		for _ in $(seq 10); do
			# The namespace's block device (with native multipath,
			# the head: not under the controller).
			for n in /sys/block/nvme*n1; do
				[ -e "$n" ] && [ -b "/dev/${n##*/}" ] && gn_blk=/dev/${n##*/}
			done
			[ -n "$gn_blk" ] && break
			sleep 1
		done
	fi
	if [ -z "$gn_blk" ]; then
		sed 's/^/# /' /tmp/connect
		ktap_test_fail "$3: nvme connect -t rdma -a $1"
		ktap_test_skip "$3: 1 MiB written and read back" "no connection"
		ktap_test_skip "$3: nvme disconnect" "no connection"
		return
	fi
	ktap_test_pass "$3: nvme connect -t rdma -a $1: $gn_blk"
	head -c 1048576 /dev/urandom >/tmp/pattern
	rm -f /tmp/back
	if dd if=/tmp/pattern of="$gn_blk" bs=64k oflag=direct 2>/dev/null &&
	   dd if="$gn_blk" of=/tmp/back bs=64k count=16 iflag=direct 2>/dev/null &&
	   cmp /tmp/pattern /tmp/back; then
		ktap_test_pass "$3: 1 MiB written and read back through $gn_blk, identical"
	else
		ktap_test_fail "$3: 1 MiB written and read back through $gn_blk"
	fi
	if timeout 60 nvme disconnect -n "$2" >/tmp/disc 2>&1 &&
	   grep -q "disconnected 1 controller" /tmp/disc; then
		ktap_test_pass "$3: nvme disconnect"
	else
		sed 's/^/# /' /tmp/disc
		ktap_test_fail "$3: nvme disconnect"
	fi
}

# guest_dmesg_clean: the kernel log has no splat (splat.sh), then its last
# lines about vroce as comments (one test).
guest_dmesg_clean() {
	dmesg >/tmp/dmesg
	if splats /tmp/dmesg; then
		ktap_test_fail "dmesg: no kernel splat"
	else
		ktap_test_pass "dmesg: no kernel splat"
	fi
	dmesg | grep -i vroce | tail -n 5 | sed 's/^/# qemu: dmesg: /'
}
