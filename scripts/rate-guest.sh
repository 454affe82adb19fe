#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The part of scripts/rate.sh that runs inside the test kernel: message
# rate and bandwidth of perftest on vroce0 (the provider as it runs by
# default, and with VROCE_NO_MAP=1: the command-mediated path) beside
# rxe0, and the memcpy bandwidth of the same kernel, as a table with the
# ratios of issue 31's goals. Figures only: it asserts nothing about time.
# $1: the provider (RDMAV_DRIVERS form, <dir>/libvroce); $2: the host's
# CPU clock in MHz, or - to keep the kernel's /proc/cpuinfo; $3: the
# memcpy probe (kunit/userspace/vroce_memcpy_bw.c, built); $4: seconds per
# run; $5: a directory for the programs' output; $6 (optional): the
# system call probe (kunit/userspace/vroce_syscall_lat.c, built).
set -u

export RDMAV_DRIVERS="$1" IBV_SHOW_WARNINGS=1
mhz=$2 memcpy=$3 secs=$4 log=$5 sysprobe=${6:-}

# VROCE_RATE_PARAMS (scripts/rate.sh, qemu-bench.sh): NAME=VALUE ... of
# the module's writable parameters, set first; VROCE_RATE_LEND=V stands
# for lend=V (the ringing context against the work item).
for kv in ${VROCE_RATE_LEND:+lend=$VROCE_RATE_LEND} ${VROCE_RATE_PARAMS:-}; do
	echo "${kv#*=}" >"/sys/module/vroce/parameters/${kv%%=*}" &&
		echo "rate: module parameter ${kv%%=*}=$(cat "/sys/module/vroce/parameters/${kv%%=*}")"
done
ip link set lo up
# dummy0: built in with one device in UML; the module may have made none.
ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy
ip link set dummy0 up
ip addr add 10.77.0.1/24 dev dummy0
ip addr add 10.77.1.1/24 dev vroce0
rdma link add rxe0 type rxe netdev dummy0 2>"$log/rxe.err" ||
	echo "rate: no rxe: $(cat "$log/rxe.err")"
# UML's /proc/cpuinfo has no clock rate, which perftest wants: the host's
# ("-": the kernel's own is there, as under QEMU).
if [ "$mhz" != - ]; then
	{ cat /proc/cpuinfo; printf 'cpu MHz\t\t: %s\n' "$mhz"; } >"$log/cpuinfo"
	mount --bind "$log/cpuinfo" /proc/cpuinfo
fi
sleep 1

# one COLUMN DEV TEST SIZE [perftest options]: the average MB/s and the
# Mpps of a run of TEST at SIZE bytes for $secs seconds, as "MB/s Mpps",
# or "- -" when it did not run.
one() {
	col=$1 dev=$2 t=$3 size=$4
	shift 4
	env=
	[ "$col" = cmd ] && env=VROCE_NO_MAP=1
	f=$log/$col.$t.$size
	env $env timeout 60 "$t" -d "$dev" -x 0 -F -s "$size" -D "$secs" "$@" \
		>"$f.srv" 2>&1 &
	srv=$!
	sleep 1
	env $env timeout 60 "$t" -d "$dev" -x 0 -F -s "$size" -D "$secs" "$@" \
		127.0.0.1 >"$f" 2>&1
	wait $srv
	# perftest's own figures need its clock-rate sampling, which often
	# gives up under UML (0.00 MB/s): the rate is computed from the
	# iterations it counted in its sample period: -D minus the default
	# margin (-D / 4 whole seconds) at either end. ib_send_bw counts on
	# the receiving side (the server) too: the larger of the two.
	awk -v s="$size" -v d="$secs" '$1 == s && NF >= 5 && $2 + 0 > n { n = $2 + 0 }
		END { p = d - 2 * int(d / 4)
		      if (n) printf "%.0f %.3f\n", n * s / p / 1e6, n / p / 1e6; else print "- -" }' \
		"$f" "$f.srv"
}

# ratio A B: A/B to two decimals, or "-".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }'
}

mc64k=$("$memcpy" 65536 | awk '{ print $3 }')
echo "rate: memcpy of 64 KiB in this kernel: ${mc64k:-?} MB/s"
printf 'rate: %-24s %-18s %-18s %-18s %9s %10s\n' "test (${secs} s each)" \
	"vroce0 (default)" "vroce0 (cmd path)" rxe0 vroce/rxe vroce/memcpy
for row in "ib_write_bw 64 -l 32" "ib_send_bw 64 -l 32" \
	   "ib_write_bw 65536" "ib_send_bw 65536" "ib_read_bw 65536"; do
	# VROCE_RATE_ROWS (scripts/rate.sh): lat or rate, one table only.
	[ "${VROCE_RATE_ROWS:-}" = lat ] && continue
	# shellcheck disable=SC2086
	set -- $row
	t=$1 size=$2
	shift 2
	rnr0=$(cat /sys/class/infiniband/vroce0/ports/1/hw_counters/rx_rnr_nak 2>/dev/null || echo 0)
	v=$(one map vroce0 "$t" "$size" "$@")
	rnr1=$(cat /sys/class/infiniband/vroce0/ports/1/hw_counters/rx_rnr_nak 2>/dev/null || echo 0)
	[ "$rnr1" != "$rnr0" ] &&
		echo "rate: $t $size, vroce0 default path: $((rnr1 - rnr0)) RNR NAKs received"
	c=$(one cmd vroce0 "$t" "$size" "$@")
	x=$(one rxe rxe0 "$t" "$size" "$@")
	name="$t $size B"
	[ $# -gt 0 ] && name="$name $*"
	if [ "$size" -le 64 ]; then
		# The message rate, in Mpps.
		vv=${v#* } cc=${c#* } xx=${x#* }
		printf 'rate: %-24s %-18s %-18s %-18s %9s %10s\n' "$name" \
			"$vv Mpps" "$cc Mpps" "$xx Mpps" "$(ratio "$vv" "$xx")" -
	else
		vv=${v% *} cc=${c% *} xx=${x% *}
		printf 'rate: %-24s %-18s %-18s %-18s %9s %10s\n' "$name" \
			"$vv MB/s" "$cc MB/s" "$xx MB/s" "$(ratio "$vv" "$xx")" \
			"$(ratio "$vv" "$mc64k")"
	fi
done

# Latency (issue 31): perftest's ib_send_lat, ib_write_lat and ib_read_lat
# (polling, 1000 iterations, TSC cycles with -C made usec at this CPU's
# clock), typical and 99th percentile, on the same three columns. Under
# QEMU with two CPUs each process has its own; under UML they share one
# and a polling round trip waits for the scheduler's tick on every device
# (Documentation/performance.rst).
[ "$mhz" = - ] &&
	mhz=$(awk -F: '/^cpu MHz/ { gsub(/ /, "", $2); print $2; exit }' /proc/cpuinfo)
# lat COLUMN DEV TEST: "typical 99%" in usec, or "- -".
lat() {
	col=$1 dev=$2 t=$3
	env=
	[ "$col" = cmd ] && env=VROCE_NO_MAP=1
	f=$log/$col.$t
	env $env timeout 60 "$t" -d "$dev" -x 0 -F -n 1000 -C >"$f.srv" 2>&1 &
	srv=$!
	sleep 1
	env $env timeout 60 "$t" -d "$dev" -x 0 -F -n 1000 -C 127.0.0.1 >"$f" 2>&1
	wait $srv
	awk -v mhz="${mhz:-0}" '/^ *[0-9]+ +[0-9]+ +/ && NF >= 8 { l = $0; t = $5; p = $8 }
		END { if (l != "" && mhz > 0) printf "%.1f %.1f\n", t / mhz, p / mhz; else print "- -" }' "$f"
}
# The latency floor of this kernel: one hand-over of the CPU between two
# processes (a pipe), which a round trip on a shared CPU needs, and one
# system call (Documentation/performance.rst says what each bounds).
if [ -n "$sysprobe" ] && [ "${VROCE_RATE_ROWS:-}" != rate ]; then
	set -- $("$sysprobe")
	[ $# -eq 4 ] &&
		echo "rate: latency floor in this kernel: a system call $2 ns, a hand-over between two processes (pipe) $4 us one way"
fi
printf 'rate: %-24s %-18s %-18s %-18s %9s\n' "latency (usec, typ/99%)" \
	"vroce0 (default)" "vroce0 (cmd path)" rxe0 vroce/rxe
for t in ib_send_lat ib_write_lat ib_read_lat; do
	command -v "$t" >/dev/null 2>&1 || continue
	[ "${VROCE_RATE_ROWS:-}" = rate ] && continue
	v=$(lat map vroce0 "$t")
	c=$(lat cmd vroce0 "$t")
	x=$(lat rxe rxe0 "$t")
	printf 'rate: %-24s %-18s %-18s %-18s %9s\n' "$t" "${v% *}/${v#* }" \
		"${c% *}/${c#* }" "${x% *}/${x#* }" "$(ratio "${v% *}" "${x% *}")"
done
