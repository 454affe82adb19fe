#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Issue 34, make bench: RoCE v2 over a link between two kernels. Debian's
# own kernel booted twice under QEMU (TCG; compare the ratios, not the
# rates), guests A and B, with the RDMA core, rdma_rxe, virtio_net, the
# given vroce.ko (no HCA at load), perftest and both providers; three
# links between them, each QEMU's socket netdev on a free port of the
# host's 127.0.0.1 (A listens, B connects; nothing else on them): on the
# first rxe at both ends, on the second vroce at both ends ('rdma link
# add ... type vroce'), on the third vroce in A and rxe in B. Over each,
# with A as the server: perftest's ib_send_bw over UD with 64-byte
# messages for 3 s (the message rate: a datagram the receiver had no
# receive for is lost, so a run of a count of them may never end) and
# ib_send_lat over UD, 500 round trips (typical latency); over RC,
# ib_write_bw with 64-byte messages (the message rate) and with 64 KiB
# ones (the bandwidth), 3 s each, and ib_write_lat, 200 round trips (B
# writes, A writes back). Two kernels rather than a veth pair in one:
# rxe's UDP socket and routes are the initial namespace's (6.12's
# rxe_net.c), so rxe to rxe over a veth pair would loop inside one stack.
#
# Usage: scripts/qemu-link-bench.sh <vroce.ko> <kernel release>
# Prints the table (one 'linkbench:' row per link and program, then the
# ratios); fails when a guest did not print its rows.
set -euo pipefail

ko=$1
rel=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/vroce-qemu-link-bench.XXXXXX)
pids=()
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; rm -rf "$work"' EXIT
kernel=/boot/vmlinuz-$rel
[ -r "$kernel" ] || { echo "qemu-link-bench: no $kernel (linux-image-$rel)" >&2; exit 1; }
# shellcheck source=qemu-root.sh
. "$repo/scripts/qemu-root.sh"

root=$work/root
qemu_root_init "$root" "$repo"
qemu_root_modules "$root" "$rel" ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm \
	udp_tunnel ip6_udp_tunnel crc32_generic rdma_rxe virtio_pci virtio_net
qemu_root_vroce "$root" "$rel" "$ko"
qemu_root_verbs "$root" "$repo" /usr/bin/ib_send_bw /usr/bin/ib_send_lat \
	/usr/bin/ib_write_bw /usr/bin/ib_write_lat
# rxe's provider, where libibverbs looks for it.
prov=/usr/lib/x86_64-linux-gnu/libibverbs
mkdir -p "$root/etc/libibverbs.d" "$root$prov"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
cp "$prov/librxe-rdmav34.so" "$root$prov/"
qemu_root_initscript "$root" "poweroff -f"
cat >"$root/tests.sh" <<'TESTS'
#!/bin/sh
role=$(cat /role)
# The console carries the rows alone: the kernel's messages stay in dmesg.
echo 1 >/proc/sys/kernel/printk
for m in $(cat /modules/order); do
	args=
	[ "$m" = vroce ] && args="num_hcas=0"
	# shellcheck disable=SC2086 # the parameters split
	insmod /modules/$m.ko $args || echo "linkbench: insmod $m failed"
done
# The providers: vroce's here, rxe's where libibverbs looks.
export RDMAV_DRIVERS=/provider/libvroce:rxe
ip link set lo up
# The NIC of link L (1-3) has MAC 52:54:00:79:0L:0R (R: 1 in A, 2 in B).
r=1
[ "$role" = b ] && r=2
for l in 1 2 3; do
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "52:54:00:79:0$l:0$r" ] || continue
		n=${d##*/}
		ip link set "$n" up
		ip addr add "192.168.8$l.$r/24" dev "$n"
		kind=vroce
		{ [ $l = 1 ] || { [ $l = 3 ] && [ "$role" = b ]; }; } && kind=rxe
		rdma link add "l$l$kind" type $kind netdev "$n" ||
			echo "linkbench: rdma link add l$l$kind failed"
	done
done
sleep 3
# gid DEV L: the index of DEV's RoCE v2 GID of its IPv4 address on link L.
gid() {
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${f##*/}
		[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		case $(cat "$f") in
		0000:0000:0000:0000:0000:ffff:c0a8:5"$2"0*) echo "$i"; return ;;
		esac
	done
	echo 99
}
peer=2
[ "$role" = b ] && peer=1
for l in 1 2 3; do
	dev=$(ls /sys/class/infiniband | grep "^l$l")
	g=$(gid "$dev" "$l")
	k=0
	# A row's name, the program and how it runs.
	for run in "ud_send_bw:ib_send_bw -c UD -s 64 -D 3" \
		   "ud_send_lat:ib_send_lat -c UD -s 64 -n 500" \
		   "rc_write_bw_64:ib_write_bw -s 64 -D 3" \
		   "rc_write_bw_64k:ib_write_bw -s 65536 -D 3" \
		   "rc_write_lat:ib_write_lat -s 64 -n 200"; do
		p=${run%%:*}
		k=$((k + 1))
		port=$((18500 + l * 10 + k))
		# shellcheck disable=SC2086 # the command splits
		if [ "$role" = a ]; then
			timeout 120 ${run#*:} -d "$dev" -x "$g" -F -p $port \
				>/tmp/out 2>&1
		else
			sleep 3
			timeout 120 ${run#*:} -d "$dev" -x "$g" -F -p $port \
				"192.168.8$l.$peer" >/tmp/out 2>&1
		fi
		rc=$?
		# The figures: the last line of them, its numbers only (a
		# message may follow them on the line).
		fig=$(awk '/^ *[0-9]+ +[0-9]+ +/ { line = $0 } END { print line }' /tmp/out |
		      awk '{ for (i = 1; i <= NF && $i ~ /^[-0-9.na]+$/; i++) printf "%s ", $i }')
		echo "linkbench: $role link$l $dev $p rc=$rc $fig" >>/tmp/rows
		[ $rc -eq 0 ] || tail -n 5 /tmp/out | sed 's/^/linkbench: '"$role"': /' >>/tmp/rows
	done
done
cat /tmp/rows
TESTS
for role in a b; do
	echo $role >"$root/role"
	qemu_root_pack "$root" "$work/initrd.$role"
done

port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ports=("$(port)" "$(port)" "$(port)")
# links ROLE: the three NICs of guest ROLE (a listens, b connects).
links() {
	local l how=listen r=1
	[ "$1" = b ] && how=connect r=2
	for l in 1 2 3; do
		echo -netdev "socket,id=l$l,$how=127.0.0.1:${ports[$((l - 1))]}" \
		     -device "virtio-net-pci,netdev=l$l,mac=52:54:00:79:0$l:0$r"
	done
}
# shellcheck disable=SC2046 # links' words split
VROCE_QEMU_TIMEOUT=900 qemu_root_boot "$kernel" "$work/initrd.a" "$work/out.a" -m 1024 $(links a) &
pids+=($!)
sleep 2
# shellcheck disable=SC2046
VROCE_QEMU_TIMEOUT=900 qemu_root_boot "$kernel" "$work/initrd.b" "$work/out.b" -m 1024 $(links b)
wait "${pids[@]}" || true
pids=()
for role in a b; do
	tr -d '\r' <"$work/out.$role.console" | grep -o 'linkbench:.*' >"$work/rows.$role" || true
done
if ! grep -q 'link3 .* rc_write_lat rc=' "$work/rows.b"; then
	echo "qemu-link-bench: guest B did not print its rows; its console, last lines:" >&2
	tr -d '\r' <"$work/out.b.console" | tail -n 30 >&2
	cat "$work/rows.a" >&2
	exit 1
fi
cat "$work/rows.a" "$work/rows.b"
# Message rate (MsgRate, Mpps, the fifth of ib_send_bw's columns) as the
# client (B) sent and as the server (A) received (a datagram without a
# receive posted is lost), and typical latency (t_typical, usec,
# ib_send_lat's fifth) at the client; a row's first six words name it.
# RC: the client's message rate and bandwidth (BW average, MB/s, the
# fourth), and its typical latency.
awk '
	/ud_send_bw rc=0/ { if ($2 == "b") sent[$3] = $11; else got[$3] = $11 }
	/ud_send_lat rc=0/ && $2 == "b" { lat[$3] = $11 }
	/rc_write_bw_64 rc=0/ && $2 == "b" { rrate[$3] = $11 }
	/rc_write_bw_64k rc=0/ && $2 == "b" { rbw[$3] = $10 }
	/rc_write_lat rc=0/ && $2 == "b" { rlat[$3] = $11 }
	END {
		name["link1"] = "rxe to rxe"
		name["link2"] = "vroce to vroce"
		name["link3"] = "vroce to rxe"
		for (l = 1; l <= 3; l++) {
			k = "link" l
			printf "linkbench: UD 64 B %-15s sent %8.0f msg/s received %8.0f msg/s latency %8s us\n",
			       name[k], sent[k] * 1e6, got[k] * 1e6, lat[k]
		}
		if (got["link1"] > 0 && lat["link2"] > 0 && lat["link3"] > 0)
			printf "linkbench: received rate vroce-vroce/rxe-rxe %.2fx, vroce-rxe/rxe-rxe %.2fx; latency rxe-rxe/vroce-vroce %.2fx, rxe-rxe/vroce-rxe %.2fx\n",
			       got["link2"] / got["link1"], got["link3"] / got["link1"],
			       lat["link1"] / lat["link2"], lat["link1"] / lat["link3"]
		for (l = 1; l <= 3; l++) {
			k = "link" l
			printf "linkbench: RC WRITE %-15s 64 B %8.0f msg/s 64 KiB %8.2f MB/s latency %8s us\n",
			       name[k], rrate[k] * 1e6, rbw[k], rlat[k]
		}
		if (rrate["link1"] > 0 && rbw["link1"] > 0 && rlat["link2"] > 0 && rlat["link3"] > 0)
			printf "linkbench: RC vroce-vroce/rxe-rxe: rate %.2fx, bandwidth %.2fx, latency %.2fx; vroce-rxe/rxe-rxe: rate %.2fx, bandwidth %.2fx, latency %.2fx\n",
			       rrate["link2"] / rrate["link1"], rbw["link2"] / rbw["link1"],
			       rlat["link1"] / rlat["link2"],
			       rrate["link3"] / rrate["link1"], rbw["link3"] / rbw["link1"],
			       rlat["link1"] / rlat["link3"]
	}' "$work/rows.a" "$work/rows.b"
