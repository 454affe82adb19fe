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
  opcode    an RC SEND ONLY to QPN, a UD QP (discards)
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

With 'rc' (RC over packets): RC QPs of DEV (the port behind DMAC, its
RoCE v2 GID of DIP at GID_INDEX) made here through pyverbs, each in RTR
and connected to a QP at SIP that does not exist: the frames are the
peer's, forged. Their MRs (4 KiB each, remote read and write, the second
in another PD) start filled with a known byte; each step sends one frame
and reads the port's answers off IFACE:

  write     an RDMA WRITE ONLY at the expected PSN (the control: ACK,
            the bytes land)
  ahead     one at a PSN past the expected one, then another: one
            sequence NAK in all (of the expected PSN), nothing written
  behind    one at an older PSN (a duplicate): ACKed again, not carried
            out (nothing written)
  pd        the next PSN through another PD's R_Key: remote access NAK,
            the QP in error, nothing written; a WRITE after it: silence
  past      (a second QP) a WRITE whose last bytes fall past the MR:
            remote access NAK, nothing written
  read      (a third) an RDMA READ past the MR: a remote access NAK and
            not one READ RESPONSE
  length    (a fourth) a WRITE ONLY whose RETH says more than it carries:
            invalid request NAK, nothing written
  atomic    (a fifth) a FETCH_ADD: an ATOMIC ACKNOWLEDGE with the
            original value
  again     the same FETCH_ADD again (its answer lost, say): the same
            original value, not added twice
  align     a COMPARE_SWAP at an address not 8-byte aligned: invalid
            request NAK

then every byte of both MRs is compared and the QPs' states queried.
Prints 'hostile-rc: STEP ok|FAIL: ...' per step and exits 1 when one
failed.

Usage: hostile-frames.py IFACE DMAC SIP DIP QPN QKEY SEED fixed|fuzz N
       hostile-frames.py rc IFACE DMAC SIP DIP DEV GID_INDEX
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


def packet(sip, dip, opcode, qpn, qkey, payload, sqpn=0x4242, pkey=0xffff,
           psn=7, ext=b''):
    """An IPv4 RoCE v2 packet, ICRC included; RC's PSN word (AckReq in its
    top bit) and extended headers (RETH) as given."""
    pad = -len(payload) % 4
    bth = struct.pack('>BBHII', opcode, pad << 4, pkey, qpn & 0xffffff, psn)
    deth = struct.pack('>II', qkey, sqpn) if opcode >> 5 == 3 else b''
    body = bth + deth + ext + payload + bytes(pad)
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


RC_WRITE_ONLY, RC_READ_REQUEST, RC_ACK = 0x0a, 0x0c, 0x11
RC_ATOMIC_ACK, RC_CMP_SWAP, RC_FETCH_ADD = 0x12, 0x13, 0x14
RC_PSN, RC_PEER = 100, 0x4242
ACKREQ = 1 << 31
FILL = 0x5a


def answers(r, timeout=0.5):
    """The RoCE v2 packets IFACE received within TIMEOUT: (opcode, PSN,
    AETH syndrome or None[, an ATOMIC ACKNOWLEDGE's original value])."""
    got = []
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return got
        r.settimeout(left)
        try:
            data, addr = r.recvfrom(4096)
        except socket.timeout:
            return got
        # Not what IFACE sent (PACKET_OUTGOING); IPv4, UDP to 4791.
        if addr[2] == 4 or len(data) < 14 + 20 + 8 + 12:
            continue
        ip = data[14:]
        if ip[9] != 17 or struct.unpack('>H', ip[22:24])[0] != 4791:
            continue
        bth = ip[28:40]
        psn = struct.unpack('>I', bth[8:12])[0] & 0xffffff
        syn = ip[40] if bth[0] in (0x0d, 0x0f, 0x10, RC_ACK, 0x12) else None
        if bth[0] == RC_ATOMIC_ACK:
            got.append((bth[0], psn, syn,
                        struct.unpack('>Q', ip[44:52])[0]))
        else:
            got.append((bth[0], psn, syn))


def rc(iface, dmac, sip, dip, dev, gidx):
    """The RC steps of the docstring; 0 when each went as it should."""
    import pyverbs.enums as e
    from pyverbs.addr import AHAttr, GID, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr

    acc = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
           e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
    ctx = Context(name=dev)
    pd, pd2 = PD(ctx), PD(ctx)
    mrs = [MR(pd, 4096, acc), MR(pd2, 4096, acc)]
    for mr in mrs:
        mr.write(bytes([FILL]) * 4096, 4096)
    cq = CQ(ctx, 16)
    peer = GID('0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' %
               tuple(socket.inet_aton(sip)))
    qps = []
    for k in range(5):
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                          cap=QPCap(max_send_wr=4, max_recv_wr=4))
        qp = QP(pd, init)
        attr = QPAttr()
        attr.qp_access_flags = acc
        qp.to_init(attr)
        attr.ah_attr = AHAttr(is_global=1, port_num=1,
                              gr=GlobalRoute(dgid=peer, sgid_index=gidx))
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = RC_PEER + k
        attr.rq_psn = RC_PSN
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 1
        qp.to_rtr(attr)
        qps.append(qp)

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(0x0800))
    r.bind((iface, 0x0800))
    eth = bytes.fromhex(dmac.replace(':', '')) + s.getsockname()[4] + \
        b'\x08\x00'
    failed = []

    def send(qp, opcode, psn, va, rkey, length, payload, ext=None):
        answers(r, 0)   # what came before
        if ext is None:
            ext = struct.pack('>QII', va, rkey, length)
        s.send(eth + packet(sip, dip, opcode, qp.qp_num, 0, payload,
                            psn=ACKREQ | psn, ext=ext))
        return answers(r)

    def atomic(qp, opcode, psn, va, swap_add, compare=0):
        return send(qp, opcode, psn, 0, 0, 0, b'',
                    struct.pack('>QIQQ', va, mr.rkey, swap_add, compare))

    def step(name, got, want, note=''):
        ok = got == want
        print('hostile-rc: %s %s: answers %s%s%s' %
              (name, 'ok' if ok else 'FAIL', got,
               '' if ok else ', expected %s' % (want,), note))
        if not ok:
            failed.append(name)

    a, b, c, d, x = qps
    mr, mr2 = mrs
    data = bytes(range(64))
    nak = {'seq': 0x60, 'inv': 0x61, 'acc': 0x62}
    step('write', send(a, RC_WRITE_ONLY, RC_PSN, mr.buf, mr.rkey, 64, data),
         [(RC_ACK, RC_PSN, 0x1f)])
    got = send(a, RC_WRITE_ONLY, RC_PSN + 5, mr.buf + 64, mr.rkey, 64, data)
    got += send(a, RC_WRITE_ONLY, RC_PSN + 3000, mr.buf + 128, mr.rkey, 64,
                data)
    step('ahead', got, [(RC_ACK, RC_PSN + 1, nak['seq'])])
    step('behind', send(a, RC_WRITE_ONLY, RC_PSN - 3, mr.buf + 192, mr.rkey,
                        64, data), [(RC_ACK, RC_PSN, 0x1f)])
    got = send(a, RC_WRITE_ONLY, RC_PSN + 1, mr2.buf, mr2.rkey, 64, data)
    got += send(a, RC_WRITE_ONLY, RC_PSN + 2, mr.buf + 256, mr.rkey, 64, data)
    step('pd', got, [(RC_ACK, RC_PSN + 1, nak['acc'])])
    step('past', send(b, RC_WRITE_ONLY, RC_PSN, mr.buf + 4096 - 32, mr.rkey,
                      64, data), [(RC_ACK, RC_PSN, nak['acc'])])
    step('read', send(c, RC_READ_REQUEST, RC_PSN, mr.buf + 4000, mr.rkey,
                      200, b''), [(RC_ACK, RC_PSN, nak['acc'])])
    step('length', send(d, RC_WRITE_ONLY, RC_PSN, mr.buf + 512, mr.rkey,
                        4096, data), [(RC_ACK, RC_PSN, nak['inv'])])
    fill = int.from_bytes(bytes([FILL]) * 8, 'little')
    ack = [(RC_ATOMIC_ACK, RC_PSN, 0x1f, fill)]
    step('atomic', atomic(x, RC_FETCH_ADD, RC_PSN, mr.buf + 1024, 5), ack)
    step('again', atomic(x, RC_FETCH_ADD, RC_PSN, mr.buf + 1024, 5), ack)
    step('align', atomic(x, RC_CMP_SWAP, RC_PSN + 1, mr.buf + 1028, 1,
                         fill), [(RC_ACK, RC_PSN + 1, nak['inv'])])

    want = bytearray(data + bytes([FILL]) * (4096 - 64))
    want[1024:1032] = (fill + 5).to_bytes(8, 'little')
    got = mr.read(4096, 0)
    bad = [i for i in range(4096) if got[i] != want[i]]
    step('memory', bad, [], ' (bytes of the first MR not as written)')
    got = mr2.read(4096, 0)
    step('memory2', [i for i in range(4096) if got[i] != FILL], [],
         ' (bytes of the other PD\'s MR changed)')
    states = []
    for qp in qps:
        attr, _ = qp.query(e.IBV_QP_STATE)
        states.append(attr.qp_state)
    step('states', states, [e.IBV_QPS_ERR] * 5, ' (each QP in error)')
    for obj in qps + [cq] + mrs + [pd, pd2, ctx]:
        obj.close()
    return 1 if failed else 0


def main():
    if len(sys.argv) == 8 and sys.argv[1] == 'rc':
        return rc(*sys.argv[2:7], int(sys.argv[7]))
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
