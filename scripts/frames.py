#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An outside judge of vroce's RoCE v2 packets (issue 34).

Suite vroce_frame prints every packet it builds, one per opcode over IPv4
and IPv6, and the packets rxe sent that it caught on dummy0, as lines

    vroce-frame: SOURCE OPCODE HEX

(the packet from its IP header). This reads them from a KUnit log, writes
them to a pcap file (link type raw IP) and has tshark, Wireshark's
dissectors, decode it: each packet must be InfiniBand over UDP with the
opcode the line names, and nothing malformed or flagged as an error or a
warning. vroce's packets carry known values (ft_frame() of the suite):
every field tshark reads must have its value, and exactly the extension
headers IBTA gives the opcode must be there. Wireshark 4.0 shows the ICRC but does not check it, so the ICRC
is computed here a third way (Python's zlib, IBTA Annex A17.3.3) and
compared with the packet's.

The suite also prints "vroce-frame-count: SOURCE N" after each case that
printed packets: every count must match the packets read, vroce's packets
must be exactly one of each opcode it builds over IPv4 and IPv6, and a
line that names a packet but does not parse is a finding.

frames.py --capture PCAP MIN [OPCODES] judges a capture of a link
instead (issue 34, scripts/link-guest.sh): a classic pcap of Ethernet
frames (dumpcap -P, filtered to UDP port 4791), at least MIN of them,
whole, each InfiniBand over UDP with an opcode IBTA defines and this
judge knows (one of OPCODES, comma-separated, when given), not
malformed, no expert finding, the ICRC right; the opcodes seen are
printed with their counts, and the packets from each source address
('frames: from ADDR: N').

Usage: frames.py LOG [PCAP] | frames.py --capture PCAP MIN [OPCODES]
Exit 0 when every packet passes, 1 when one fails or the log holds none,
3 when tshark is missing; diagnostics on stdout.
"""

import re
import shutil
import struct
import subprocess
import sys
import os
import tempfile
import zlib

LINE = re.compile(r'vroce-frame: (vroce|rxe) 0x([0-9a-f]{2}) ((?:[0-9a-f]{2})+)\s*$')
COUNT = re.compile(r'vroce-frame-count: (vroce|rxe) ([0-9]+)\s*$')

# The extension headers of each opcode (IBTA 9.2, table 38), as the judge
# knows them: D DETH, R RETH, T AtomicETH, A AETH, K AtomicAckETH,
# I ImmDt, V IETH.
RC = {0x00: '', 0x01: '', 0x02: '', 0x03: 'I', 0x04: '', 0x05: 'I',
      0x06: 'R', 0x07: '', 0x08: '', 0x09: 'I', 0x0a: 'R', 0x0b: 'RI',
      0x0c: 'R', 0x0d: 'A', 0x0e: '', 0x0f: 'A', 0x10: 'A', 0x11: 'A',
      0x12: 'AK', 0x13: 'T', 0x14: 'T', 0x16: 'V', 0x17: 'V'}
EXTS = dict(RC)
EXTS.update({0x20 + op: h for op, h in RC.items() if op <= 0x0b})
EXTS.update({0x64: 'D', 0x65: 'DI'})
NO_PAYLOAD = {0x0c, 0x11, 0x12, 0x13, 0x14}
EXT_BYTES = {'D': 8, 'R': 16, 'T': 28, 'A': 4, 'K': 8, 'I': 4, 'V': 4}
# ft_frame()'s payload where the opcode has one: vroce_test_fill(, , 7).
PAYLOAD = bytes.fromhex('07993bdd7f10b254f68829cb6d')

# The field tshark shows for each header, and the values the vroce_frame
# suite gives every packet it prints (ft_frame() in
# kunit/vroce_frame_test.c: a 13-byte payload where the opcode has one).
# (AtomicETH's VA and R_Key show as RETH's fields: RETH is its DMA length.)
PRESENT = {'D': 'infiniband.deth.q_key', 'R': 'infiniband.reth.dmalen',
           'T': 'infiniband.atomiceth.swapdt', 'A': 'infiniband.aeth.msn',
           'K': 'infiniband.atomicacketh.origremdt',
           'I': 'infiniband.immdt', 'V': 'infiniband.ieth'}
VROCE = {
    'infiniband.bth.se': 1, 'infiniband.bth.m': 0,
    'infiniband.bth.tver': 0, 'infiniband.bth.p_key': 0xffff,
    'infiniband.bth.destqp': 0xabcdef, 'infiniband.bth.a': 1,
    'infiniband.bth.psn': 0x00fedc,
    'infiniband.deth.q_key': 0x11223344, 'infiniband.deth.srcqp': 0x000123,
    'infiniband.reth.va': 0x0102030405060708,
    'infiniband.reth.r_key': 0x99aabbcc,
    'infiniband.atomiceth.swapdt': 0x1111222233334444,
    'infiniband.atomiceth.cmpdt': 0x5555666677778888,
    'infiniband.aeth.syndrome': 0x1f, 'infiniband.aeth.msn': 0x00beef,
    'infiniband.atomicacketh.origremdt': 0xa5a5a5a55a5a5a5a,
    'infiniband.immdt': 0xdeadbeef, 'infiniband.ieth': 0x0badf00d,
    'udp.srcport': 0xc0de, 'udp.dstport': 4791,
    'ip.src': '10.91.0.2', 'ip.dst': '10.91.0.1', 'ip.dsfield': 0x68,
    'ip.ttl': 64, 'ipv6.src': 'fd00::2', 'ipv6.dst': 'fd00::1',
    'ipv6.tclass': 0x68, 'ipv6.flow': 0x12345, 'ipv6.hlim': 64,
    'ip.flags.df': 1, 'ip.id': 0, 'udp.checksum': 0,
    'infiniband.bth.reserved7': 0,
}
# Each opcode's own: the pad count and RETH's DMA length (13 or none).
PER_OPCODE = ['infiniband.bth.padcnt', 'infiniband.reth.dmalen']
FIELDS = sorted(set(VROCE) | set(PRESENT.values()) | set(PER_OPCODE))
LINKTYPE_RAW = 101
EXPERT_WARN = 6291456          # Wireshark's PI_WARN; PI_ERROR is above


def read_frames(path):
    """The packets of the log, the counts the suite printed, bad lines."""
    frames, counts, bad = [], {}, []
    with open(path, errors='replace') as f:
        for line in f:
            if 'vroce-frame-count:' in line:
                m = COUNT.search(line)
                if m:
                    counts[m.group(1)] = counts.get(m.group(1), 0) + int(m.group(2))
                else:
                    bad.append(line.strip())
            elif 'vroce-frame:' in line:
                m = LINE.search(line)
                if m:
                    frames.append((m.group(1), int(m.group(2), 16),
                                   bytes.fromhex(m.group(3))))
                else:
                    bad.append(line.strip()[:120])
    return frames, counts, bad


def write_pcap(path, frames):
    with open(path, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535,
                            LINKTYPE_RAW))
        for i, (_, _, pkt) in enumerate(frames):
            f.write(struct.pack('<IIII', i, 0, len(pkt), len(pkt)))
            f.write(pkt)


def icrc(pkt):
    """The ICRC of @pkt (its last four bytes not counted), or None."""
    if not pkt:
        return None
    l3 = 40 if pkt[0] >> 4 == 6 else 20
    n = l3 + 8 + 12
    if len(pkt) < n + 4:
        return None
    m = bytearray(pkt[:n])
    if l3 == 20:
        m[1] = m[8] = m[10] = m[11] = 0xff      # TOS, TTL, checksum
    else:
        m[0] |= 0x0f                            # traffic class,
        m[1:4] = b'\xff\xff\xff'                # flow label
        m[7] = 0xff                             # hop limit
    m[l3 + 6] = m[l3 + 7] = 0xff                # UDP checksum
    m[l3 + 8 + 4] = 0xff                        # FECN, BECN, resv6
    return zlib.crc32(b'\xff' * 8 + bytes(m) + pkt[n:-4])


def icrc_findings(pkt):
    """What is wrong with the ICRC of @pkt: nothing, or one finding."""
    want = icrc(pkt)
    if want is not None and struct.unpack('<I', pkt[-4:])[0] == want:
        return []
    return ['ICRC %s on the wire, %s computed'
            % (pkt[-4:].hex(),
               'none' if want is None else struct.pack('<I', want).hex())]


def tshark_fields(pcap):
    head = ['frame.number', 'frame.protocols', 'infiniband.bth.opcode',
            '_ws.malformed', '_ws.expert.severity', '_ws.expert.message']
    # Each field's first occurrence, but every expert item ('^' between).
    cmd = ['tshark', '-n', '-o', 'ip.check_checksum:TRUE', '-r', pcap,
           '-T', 'fields', '-E', 'separator=|',
           '-E', 'occurrence=a', '-E', 'aggregator=^']
    for f in head + FIELDS:
        cmd += ['-e', f]
    # Wireshark's defaults, not a profile of whoever runs this.
    with tempfile.TemporaryDirectory() as conf:
        env = dict(os.environ, WIRESHARK_CONFIG_DIR=conf)
        out = subprocess.run(cmd, check=True, capture_output=True,
                             text=True, env=env).stdout
    rows = {}
    for line in out.splitlines():
        v = (line.split('|') + [''] * len(head + FIELDS))[:len(head + FIELDS)]
        first = [x.split('^')[0] for x in v]
        experts = list(zip(v[4].split('^'), v[5].split('^'))) if v[4] else []
        rows[int(v[0])] = (first[1], first[2], first[3], experts,
                           dict(zip(FIELDS, first[len(head):])))
    return rows


def same(got, want):
    if isinstance(want, str):
        return got == want
    try:
        return int(got, 0) == want
    except ValueError:
        pass
    try:                        # byte fields (ImmDt, IETH): bare hex
        return int(got, 16) == want
    except ValueError:
        return False


def expert_findings(pkt, experts):
    """The expert items of warning or error severity that count.

    RoCE v2 sends UDP checksum 0 over IPv6 too (IBTA A17.4, as UDP
    tunnels may, RFC 6935/6936; rxe does the same): Wireshark's generic
    rule against it is not a finding."""
    out = []
    for sev, msg in experts:
        if not sev or int(sev, 0) < EXPERT_WARN:
            continue
        if pkt[0] >> 4 == 6 and msg == 'Illegal checksum value (0)':
            continue
        out.append('%s (severity %#x)' % (msg, int(sev, 0)))
    return out


def vroce_fields(opcode, fields):
    """What tshark read of a packet of ft_frame() that is not what it is."""
    why = []
    exts = EXTS.get(opcode)
    if exts is None:
        return ['opcode %#04x is not one vroce builds' % opcode]
    want = dict(VROCE)
    pay = opcode & 0x1f not in NO_PAYLOAD or opcode & 0xe0 != 0
    want['infiniband.bth.padcnt'] = 3 if pay else 0
    if 'R' in exts:
        want['infiniband.reth.dmalen'] = 13 if pay else 0
    for h, f in PRESENT.items():
        if (h in exts) != (fields[f] != ''):
            why.append('%s %s' % ('no' if h in exts else 'a stray', f))
    for f, w in want.items():
        if fields.get(f, '') != '' and not same(fields[f], w):
            why.append('%s %s, expected %s'
                       % (f, fields[f], w if isinstance(w, str) else hex(w)))
    for f in ('infiniband.bth.padcnt', 'infiniband.bth.se',
              'infiniband.bth.psn', 'udp.checksum'):
        if fields.get(f, '') == '':
            why.append('no ' + f)
    return why


def vroce_bytes(opcode, pkt):
    """What the bytes of a packet of ft_frame() say that tshark does not."""
    why = []
    exts = EXTS[opcode]
    pay = opcode & 0x1f not in NO_PAYLOAD or opcode & 0xe0 != 0
    l3 = 40 if pkt[0] >> 4 == 6 else 20
    bth = l3 + 8
    hdr = bth + 12 + sum(EXT_BYTES[h] for h in exts)
    want = hdr + (16 if pay else 0) + 4
    if len(pkt) != want:
        return ['%d bytes, IBTA gives opcode %#04x %d' % (len(pkt), opcode, want)]
    if pkt[bth + 4] != 0x80:
        why.append('BTH byte 4 %#04x, expected FECN alone (0x80)' % pkt[bth + 4])
    if 'D' in exts and pkt[bth + 12 + 4] != 0:
        why.append('DETH reserved byte %#04x' % pkt[bth + 12 + 4])
    if pay and (pkt[hdr:hdr + 13] != PAYLOAD or pkt[hdr + 13:hdr + 16] != bytes(3)):
        why.append('payload and pad %s' % pkt[hdr:hdr + 16].hex())
    return why


LINKTYPE_ETHERNET = 1


def read_capture(path):
    """The IP packets of a classic pcap of Ethernet frames, or None."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        return None
    magic, = struct.unpack('<I', data[:4])
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    if struct.unpack(end + 'I', data[:4])[0] not in (0xa1b2c3d4, 0xa1b23c4d):
        return None
    if struct.unpack(end + 'I', data[20:24])[0] != LINKTYPE_ETHERNET:
        return None
    pkts, off = [], 24
    while off < len(data):
        if off + 16 > len(data):
            return None                 # a record cut short
        incl, = struct.unpack(end + 'I', data[off + 8:off + 12])
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(frame) < incl:
            return None
        # Ethernet, no VLAN tag: the IP packet, its IP length only.
        pkt = frame[14:]
        if pkt and pkt[0] >> 4 == 4:
            pkt = pkt[:struct.unpack('>H', pkt[2:4])[0]]
        elif pkt and pkt[0] >> 4 == 6:
            pkt = pkt[:40 + struct.unpack('>H', pkt[4:6])[0]]
        pkts.append(pkt)
    return pkts


def capture(path, least, allowed=None):
    """Judge a capture of a link: see the module's docstring."""
    if not shutil.which('tshark'):
        print('frames: tshark is not installed (scripts/install-deps.sh check)')
        return 3
    pkts = read_capture(path)
    if pkts is None:
        print('frames: %s is not a whole classic pcap of Ethernet frames'
              % path)
        return 1
    rows = tshark_fields(path)
    bad, seen, sources = 0, {}, {}
    for i, pkt in enumerate(pkts, 1):
        protos, got, malformed, experts, _ = rows.get(
            i, ('', '', '', [], {}))
        why = []
        if 'udp:infiniband' not in protos:
            why.append('not decoded as InfiniBand over UDP (%s)' % protos)
        opcode = int(got, 0) if got else None
        if opcode is None or opcode not in EXTS:
            why.append('opcode %s, not one of IBTA\'s this judge knows'
                       % (got or 'none'))
        elif allowed is not None and opcode not in allowed:
            why.append('opcode %#04x, not one of %s' % (
                opcode, ', '.join('%#04x' % o for o in sorted(allowed))))
        else:
            seen[opcode] = seen.get(opcode, 0) + 1
        if len(pkt) >= 20 and pkt[0] >> 4 == 4:
            src = '.'.join(str(b) for b in pkt[12:16])
            sources[src] = sources.get(src, 0) + 1
        if malformed:
            why.append('malformed')
        why += ['expert: ' + e for e in expert_findings(pkt, experts)]
        why += icrc_findings(pkt)
        if why:
            bad += 1
            print('frames: packet %d: %s' % (i, '; '.join(why)))
    if len(pkts) < least:
        bad += 1
        print('frames: %d packets captured, %d at least expected'
              % (len(pkts), least))
    for src, n in sorted(sources.items()):
        print('frames: from %s: %d' % (src, n))
    print('frames: capture %s: %d packets (%s), ICRC recomputed: %d with findings'
          % (os.path.basename(path), len(pkts),
             ', '.join('opcode %#04x: %d' % kv for kv in sorted(seen.items())),
             bad))
    return 1 if bad else 0


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == '--capture':
        allowed = None
        if len(sys.argv) == 5:
            allowed = {int(o, 0) for o in sys.argv[4].split(',')}
        return capture(sys.argv[2], int(sys.argv[3]), allowed)
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        return 2
    frames, counts, lines = read_frames(sys.argv[1])
    if not frames:
        print('frames: no vroce-frame lines in', sys.argv[1])
        return 1
    if not shutil.which('tshark'):
        print('frames: tshark is not installed (scripts/install-deps.sh check)')
        return 3
    with tempfile.TemporaryDirectory() as tmp:
        pcap = sys.argv[2] if len(sys.argv) == 3 else tmp + '/frames.pcap'
        write_pcap(pcap, frames)
        rows = tshark_fields(pcap)

    bad = len(lines)
    for line in lines:
        print('frames: a line that does not parse:', line)
    sources = {}
    for src in ('vroce', 'rxe'):
        n = sum(1 for f in frames if f[0] == src)
        if n != counts.get(src, 0):
            bad += 1
            print('frames: %d packets of %s, the suite counted %d'
                  % (n, src, counts.get(src, 0)))
    got = sorted((op, p[0] >> 4) for s, op, p in frames if s == 'vroce')
    if got and got != sorted((op, v) for op in EXTS for v in (4, 6)):
        bad += 1
        print('frames: vroce printed not one packet of each opcode over IPv4 and IPv6')
    for i, (src, opcode, pkt) in enumerate(frames, 1):
        sources[src] = sources.get(src, 0) + 1
        protos, got, malformed, experts, fields = rows.get(
            i, ('', '', '', [], dict.fromkeys(FIELDS, '')))
        why = []
        if 'udp:infiniband' not in protos:
            why.append('not decoded as InfiniBand over UDP (%s)' % protos)
        if got == '' or int(got, 0) != opcode:
            why.append('opcode %s, expected %#04x' % (got or 'none', opcode))
        if malformed:
            why.append('malformed')
        why += ['expert: ' + e for e in expert_findings(pkt, experts)]
        if src == 'vroce':
            why += vroce_fields(opcode, fields)
            if opcode in EXTS:
                why += vroce_bytes(opcode, pkt)
        why += icrc_findings(pkt)
        if why:
            bad += 1
            print('frames: packet %d (%s, opcode %#04x): %s'
                  % (i, src, opcode, '; '.join(why)))
    print('frames: %d packets (%s) decoded by %s, ICRC recomputed: %d with findings'
          % (len(frames), ', '.join('%s %d' % kv for kv in sorted(sources.items())),
             subprocess.run(['tshark', '--version'], capture_output=True,
                            text=True).stdout.splitlines()[0], bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
