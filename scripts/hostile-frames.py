#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile RoCE v2 frames onto a link (issue 34, scripts/link-guest.sh).

Sends, through an AF_PACKET socket on IFACE, Ethernet frames to DMAC
whose IPv4 packets go from SIP to DIP, UDP port 4791:

  icrc      a UD SEND ONLY to QPN with Q_Key QKEY, one payload byte changed
            after its ICRC was computed (the port: link_rx_icrc_err)
  qpn       the same, intact, to a QP number that is not there (ud_dropped)
  qkey      the same, to QPN with another Q_Key (ud_dropped)
  trunc     cut inside the BTH, IP and UDP lengths made to agree
            (link_rx_discards)
  opcode    an RC SEND ONLY (no RC over packets yet) to QPN (discards)
  local     to 127.0.0.1, an address of the host but not of the port's
            netdev: the IP stack's (counted nowhere)
  route     to an address of the subnet that is not the host's: routed
            through it, the IP stack's (counted nowhere)
  pkey      with P_Key 0x1234 (discards)
  mac       intact, to another MAC (not the port's: counted nowhere)
  vlan      intact, VLAN-tagged (no VLANs on the port: counted nowhere)

then, with 'fuzz', N intact frames mutated at random (seeded by SEED):
bytes changed (never the IP version and header length, the fragment
field, the protocol, the destination address or the UDP destination
port: each stays a RoCE v2 packet to the port), lengths cut (past the UDP header), half of them
with the IPv4 checksum and the ICRC made right again so that the later
checks see them; sent in bursts of 64 with a pause, so that the port's
receive queue (1024) never overflows. Each claimed packet counts once in
link_rx_frames, link_rx_icrc_err or link_rx_discards.

Prints one line per kind: 'hostile: KIND N'.

Usage: hostile-frames.py IFACE DMAC SIP DIP QPN QKEY SEED fixed|fuzz N
"""

import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from frames import icrc  # noqa: E402


def csum(b):
    s = sum(struct.unpack('>%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def packet(sip, dip, opcode, qpn, qkey, payload, sqpn=0x4242, pkey=0xffff):
    """An IPv4 RoCE v2 packet, ICRC included."""
    pad = -len(payload) % 4
    bth = struct.pack('>BBHII', opcode, pad << 4, pkey, qpn & 0xffffff, 7)
    deth = struct.pack('>II', qkey, sqpn) if opcode >> 5 == 3 else b''
    body = bth + deth + payload + bytes(pad)
    udp = struct.pack('>HHHH', 0xc123, 4791, 8 + len(body) + 4, 0)
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(udp) +
                               len(body) + 4, 0, 0x4000, 64, 17, 0,
                               socket.inet_aton(sip), socket.inet_aton(dip)))
    ip[10:12] = struct.pack('>H', csum(bytes(ip)))
    pkt = bytes(ip) + udp + body + bytes(4)
    return fix_icrc(pkt)


def fix_icrc(pkt):
    return pkt[:-4] + struct.pack('<I', icrc(pkt))


def fix_ip(pkt):
    ip = bytearray(pkt[:20])
    ip[10:12] = b'\0\0'
    ip[10:12] = struct.pack('>H', csum(bytes(ip)))
    return bytes(ip) + pkt[20:]


# Bytes fuzzing leaves alone: IP version and IHL, the fragment field,
# the protocol, the UDP destination port.
KEEP = {0, 6, 7, 9, 16, 17, 18, 19, 22, 23}


def main():
    if len(sys.argv) != 10 or sys.argv[8] not in ('fixed', 'fuzz'):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    iface, dmac, sip, dip = sys.argv[1:5]
    qpn, qkey = int(sys.argv[5], 0), int(sys.argv[6], 0)
    seed, mode, n = int(sys.argv[7]), sys.argv[8], int(sys.argv[9])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = s.getsockname()[4]
    dst = bytes.fromhex(dmac.replace(':', ''))
    eth = dst + smac + b'\x08\x00'
    payload = bytes(range(64))

    def send(pkt):
        s.send(eth + pkt)

    good = packet(sip, dip, 0x64, qpn, qkey, payload)
    if mode == 'fixed':
        bad = bytearray(good)
        bad[-10] ^= 0x20
        send(bytes(bad))
        print('hostile: icrc 1')
        send(packet(sip, dip, 0x64, qpn + 1000, qkey, payload))
        print('hostile: qpn 1')
        send(packet(sip, dip, 0x64, qpn, qkey ^ 1, payload))
        print('hostile: qkey 1')
        cut = bytearray(good[:20 + 8 + 6])
        cut[2:4] = struct.pack('>H', len(cut))
        cut[24:26] = struct.pack('>H', len(cut) - 20)
        send(fix_ip(bytes(cut)))
        print('hostile: trunc 1')
        send(packet(sip, dip, 0x04, qpn, qkey, payload))
        print('hostile: opcode 1')
        send(packet(sip, '127.0.0.1', 0x64, qpn, qkey, payload))
        print('hostile: local 1')
        other = sip.rsplit('.', 1)[0] + '.99'
        send(packet(sip, other, 0x64, qpn, qkey, payload))
        print('hostile: route 1')
        send(packet(sip, dip, 0x64, qpn, qkey, payload, pkey=0x1234))
        print('hostile: pkey 1')
        s.send(b'\x02\x00\x00\x00\x00\x99' + smac + b'\x08\x00' + good)
        print('hostile: mac 1')
        s.send(dst + smac + b'\x81\x00\x00\x05\x08\x00' + good)
        print('hostile: vlan 1')
        return 0
    rng = random.Random(seed)
    for k in range(n):
        p = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(p))
            if i not in KEEP:
                p[i] = rng.randrange(256)
        if rng.random() < 0.2:
            p = p[:rng.randrange(28, len(p))]
        p = bytes(p)
        if rng.random() < 0.5:
            p = fix_ip(p)
            if len(p) >= 48:
                p = fix_icrc(p)
        send(p)
        if k % 64 == 63:
            time.sleep(0.05)
    print('hostile: fuzz %d (seed %d)' % (n, seed))
    return 0


if __name__ == '__main__':
    sys.exit(main())
