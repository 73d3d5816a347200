#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""irn_pktgen - send crafted RoCEv2 packets over IPv4 with a raw socket.

The whole IPv4 header is built here (IP_HDRINCL), so every field the ICRC
covers, the identification included, is under our control and the ICRC of
a "good" packet is correct.  Only the IPv4 header checksum is rewritten by
the kernel, and the ICRC masks that field anyway.

Wire format (RoCEv2, see the IBTA annex and rxe-uabi.md section 5.6):

  IPv4 (20) | UDP (8, dport 4791, csum 0) | BTH (12) | ext hdrs | payload |
  pad (0-3, BTH PadCnt) | ICRC (4, little endian)

BTH: opcode(8) | SE(1) M(1) PadCnt(2) TVer(4) | P_Key(16) |
     FECN(1) BECN(1) resv6(6) | DestQP(24) | AckReq(1) resv7(7) | PSN(24)

ICRC: CRC-32 (reflected, polynomial 0xEDB88320) started from the state
0xDEBB20E3 (= the state after 8 bytes of 0xff from the usual all-ones
start, standing for a masked LRH) over the IPv4 header with TOS, TTL and
header checksum set to all ones, the UDP header with its checksum set to
0xffff, the BTH with its FECN/BECN/resv6 byte set to 0xff, then the rest
of the packet up to the ICRC.  The result is inverted and stored in
little-endian byte order.  zlib.crc32() inverts on entry and on exit, so
zlib.crc32(data, ~0xDEBB20E3) is exactly the value that goes on the wire.

Run "irn_pktgen.py --list" for the cases and "--selftest" to check the
ICRC code against packets captured from stock rdma_rxe.
"""

import argparse
import os
import random
import shlex
import socket
import struct
import sys
import time
import zlib

ROCE_V2_PORT = 4791
ICRC_SEED = 0xDEBB20E3
DEFAULT_PKEY = 0xffff
BTH_LEN = 12
ICRC_LEN = 4
IPV4_HDR_LEN = 20
UDP_HDR_LEN = 8

OP_RC_SEND_ONLY = 0x04
OP_RC_WRITE_ONLY = 0x0a
OP_RC_READ_REQUEST = 0x0c
OP_UD_SEND_ONLY = 0x64
GSI_QKEY = 0x80010000
OP_CNP = 0x81             # RoCEv2 Congestion Notification Packet
CNP_RSVD_LEN = 16
OP_RC_BAD = 0x1f          # reserved in the RC range 0x18-0x1f
UNKNOWN_QPN = 0xabcde

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_VECTORS = os.path.join(HERE, 'testdata', 'rxe-icrc-vectors.txt')


def die(msg):
    sys.stderr.write('irn_pktgen: %s\n' % msg)
    sys.exit(1)


def ip_checksum(hdr):
    if len(hdr) % 2:
        hdr += b'\0'
    s = sum(struct.unpack('!%dH' % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def bth(opcode, qpn, psn, se=False, mig=False, padcnt=0, tver=0,
        pkey=DEFAULT_PKEY, fecn_becn=0, ackreq=False):
    b1 = (0x80 if se else 0) | (0x40 if mig else 0) | \
        ((padcnt & 3) << 4) | (tver & 0xf)
    return struct.pack('!BBHI I', opcode, b1, pkey,
                       ((fecn_becn & 0xff) << 24) | (qpn & 0xffffff),
                       (0x80000000 if ackreq else 0) | (psn & 0xffffff))


def ipv4_header(src, dst, total_len, ident, tos=0, ttl=64, flags_frag=0x4000,
                csum=None):
    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, tos, total_len, ident,
                      flags_frag, ttl, socket.IPPROTO_UDP, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    if csum is None:
        csum = ip_checksum(hdr)
    return hdr[:10] + struct.pack('!H', csum) + hdr[12:]


def icrc(ip_udp_bth, rest):
    """ICRC over IPv4 + UDP + BTH (unmasked, as on the wire) and the rest.

    ip_udp_bth must be exactly the 40 bytes IPv4(20) + UDP(8) + BTH(12);
    rest is everything after the BTH up to (not including) the ICRC.
    """
    if len(ip_udp_bth) != IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN:
        raise ValueError('need 40 bytes of IPv4+UDP+BTH')
    m = bytearray(ip_udp_bth)
    m[1] = 0xff                  # TOS (DSCP + ECN)
    m[8] = 0xff                  # TTL
    m[10:12] = b'\xff\xff'       # IPv4 header checksum
    m[26:28] = b'\xff\xff'       # UDP checksum
    m[32] = 0xff                 # BTH FECN/BECN/resv6
    return zlib.crc32(bytes(m) + rest, ~ICRC_SEED & 0xffffffff)


def build(src, dst, bth_bytes, body, ident, sport=0xc000, udp_len=None,
          icrc_xor=0, with_icrc=True, tos=0, ttl=64, flags_frag=0x4000):
    """Return one IPv4 datagram carrying a RoCEv2 packet.

    body is everything after the BTH (extension headers, payload, pad).
    udp_len overrides the UDP length field (default: the real length).
    """
    udp_payload_len = len(bth_bytes) + len(body) + \
        (ICRC_LEN if with_icrc else 0)
    real_udp_len = UDP_HDR_LEN + udp_payload_len
    if udp_len is None:
        udp_len = real_udp_len
    total = IPV4_HDR_LEN + real_udp_len
    iph = ipv4_header(src, dst, total, ident, tos=tos, ttl=ttl,
                      flags_frag=flags_frag)
    udph = struct.pack('!HHHH', sport, ROCE_V2_PORT, udp_len, 0)
    pkt = iph + udph + bth_bytes + body
    if with_icrc:
        if len(bth_bytes) == BTH_LEN:
            c = icrc(iph + udph + bth_bytes, body)
        else:
            c = 0
        pkt += struct.pack('<I', c ^ icrc_xor)
    return pkt


def send_only(qpn, psn, payload_len=16, **kw):
    pad = (-payload_len) % 4
    hdr = bth(OP_RC_SEND_ONLY, qpn, psn, padcnt=pad, ackreq=True, **kw)
    payload = bytes((i * 7 + 1) & 0xff for i in range(payload_len))
    return hdr, payload + b'\0' * pad


# Each case returns (bth_bytes, body, build() keyword overrides).
def case_valid(a, psn):
    h, b = send_only(a.qpn, psn)
    return h, b, {}


def case_valid_ud(a, psn):
    # UD SEND_ONLY with a DETH (Q_Key 0x80010000, source QP 1) and a
    # 256-byte zero payload, i.e. an empty MAD for the GSI QP (QPN 1).
    # Stock rxe accepts and counts it (rcvd_pkts) and the MAD layer then
    # discards the MAD, which makes it a live check of this generator.
    h = bth(OP_UD_SEND_ONLY, a.qpn, psn)
    deth = struct.pack('!II', GSI_QKEY, 1)
    return h, deth + bytes(256), {}


def case_truncated(a, psn):
    # A BTH and nothing else: 12 bytes of UDP payload, shorter than
    # BTH + ICRC (16).  The UDP length is consistent with the datagram.
    h, _ = send_only(a.qpn, psn)
    return h, b'', {'with_icrc': False}


def case_bad_version(a, psn):
    h = bth(OP_RC_SEND_ONLY, a.qpn, psn, tver=1, ackreq=True)
    return h, bytes(16), {}


def case_bad_opcode(a, psn):
    h = bth(OP_RC_BAD, a.qpn, psn, ackreq=True)
    return h, bytes(16), {}


def case_bad_icrc(a, psn):
    h, b = send_only(a.qpn, psn)
    return h, b, {'icrc_xor': 0x00000001}


def case_unknown_qpn(a, psn):
    h, b = send_only(UNKNOWN_QPN, psn)
    return h, b, {}


def case_bad_length(a, psn):
    # The UDP length field claims 8 + 12 bytes although a complete packet
    # follows.  The IPv4/UDP stack trims the datagram to the UDP length,
    # so the receiver sees a BTH without an ICRC: a truncated packet.
    h, b = send_only(a.qpn, psn)
    return h, b, {'udp_len': UDP_HDR_LEN + BTH_LEN}


def case_bad_length_long(a, psn):
    # The UDP length field claims more bytes than the datagram carries.
    # The UDP stack drops this ("short packet", Udp InErrors) before any
    # encapsulation handler: the RDMA device must never see it.
    h, b = send_only(a.qpn, psn)
    return h, b, {'udp_len': UDP_HDR_LEN + BTH_LEN + len(b) + ICRC_LEN + 64}


def case_bad_pad(a, psn):
    # SEND_ONLY with no payload but PadCnt = 3: the pad does not fit in
    # the packet, so the payload length would be negative.
    h = bth(OP_RC_SEND_ONLY, a.qpn, psn, padcnt=3, ackreq=True)
    return h, b'', {}


def case_cnp(a, psn):
    # A well-formed CNP (BECN set, PSN 0, 16 reserved bytes) to --qpn.
    return bth(OP_CNP, a.qpn, 0, fecn_becn=0x40), bytes(CNP_RSVD_LEN), {}


def case_cnp_short(a, psn):
    # A CNP without its reserved bytes: BTH and ICRC only.
    return bth(OP_CNP, a.qpn, 0, fecn_becn=0x40), b'', {}


def case_read(a, psn):
    # An RC RDMA READ request: BTH and RETH (virtual address, R_Key, DMA
    # length), no payload.  Sent from the QP's peer with a PSN the
    # responder has passed, it is a duplicate (or a replay).
    reth = struct.pack('!QII', a.va, a.rkey, a.len)
    return bth(OP_RC_READ_REQUEST, a.qpn, psn), reth, {}


def case_write(a, psn):
    # An RC RDMA WRITE ONLY of --len bytes (at most 1024, the smallest
    # path MTU irn uses) at --va with --rkey: BTH, RETH, payload.  With
    # --irn it is an IRN request: CAP and EXT in BTH byte 4 and an IXTH
    # (va, rkey, offset 0, rsn --rsn) after the RETH, as
    # Documentation/wire-format.rst describes; otherwise plain RoCEv2.
    pad = (-a.len) % 4
    reth = struct.pack('!QII', a.va, a.rkey, a.len)
    ixth = b''
    byte4 = 0
    if a.irn:
        ixth = struct.pack('!QIII', a.va, a.rkey, 0, a.rsn)
        byte4 = IRN_CAP | IRN_EXT
    payload = bytes((psn + i) & 0xff for i in range(a.len))
    h = bth(OP_RC_WRITE_ONLY, a.qpn, psn, padcnt=pad, fecn_becn=byte4,
            ackreq=a.ackreq)
    return h, reth + ixth + payload + b'\0' * pad, {}


CASES = {
    'valid': (case_valid,
              'well-formed RC SEND_ONLY (16 B payload) to --qpn'),
    'valid-ud': (case_valid_ud,
                 'UD SEND_ONLY + DETH (GSI Q_Key), empty 256 B MAD, to --qpn'),
    'truncated': (case_truncated,
                  'UDP payload of 12 bytes: shorter than BTH + ICRC'),
    'bad-version': (case_bad_version, 'BTH TVer = 1 (must be 0)'),
    'bad-opcode': (case_bad_opcode,
                   'opcode 0x1f, reserved in RoCEv2 (RC 0x18-0x1f)'),
    'bad-icrc': (case_bad_icrc, 'valid SEND_ONLY with one ICRC bit flipped'),
    'unknown-qpn': (case_unknown_qpn,
                    'valid SEND_ONLY to QPN 0x%x' % UNKNOWN_QPN),
    'bad-length': (case_bad_length,
                   'UDP length 20 < datagram; stack trims it: truncated'),
    'bad-length-long': (case_bad_length_long,
                        'UDP length > datagram; dropped by the UDP stack'),
    'bad-pad': (case_bad_pad, 'SEND_ONLY, no payload, PadCnt 3'),
    'cnp': (case_cnp, 'well-formed CNP (opcode 0x81) to --qpn'),
    'cnp-short': (case_cnp_short, 'CNP without its 16 reserved bytes'),
    'write': (case_write, 'RC RDMA WRITE ONLY of --len bytes at --va with '
              '--rkey, to --qpn; an IRN request with --irn'),
    'read': (case_read, 'RC RDMA READ request of --len bytes at --va '
             'with --rkey, to --qpn'),
}


def local_addr_for(dst, broadcast=False):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if broadcast:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        s.connect((dst, ROCE_V2_PORT))
        return s.getsockname()[0]
    finally:
        s.close()


def do_send(a):
    fn = CASES[a.case][0]
    src = a.src or local_addr_for(a.dst, a.broadcast)
    ident = random.randint(1, 0xfff0)
    psn = a.psn
    sock = None
    if not a.dry_run:
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
            if a.broadcast:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        except PermissionError:
            die('raw socket: permission denied (need root / CAP_NET_RAW)')
    for i in range(a.count):
        h, body, kw = fn(a, psn)
        # IPv4 identification 0 would be filled in by the kernel and break
        # the ICRC: keep it non-zero and under our control.
        if a.icrc_xor:
            kw['icrc_xor'] = kw.get('icrc_xor', 0) ^ a.icrc_xor
        pkt = build(src, a.dst, h, body, ((ident + i) % 0xffff) + 1,
                    sport=a.sport, **kw)
        if a.hex or a.dry_run:
            print(pkt.hex())
        if sock is not None:
            try:
                sock.sendto(pkt, (a.dst, 0))
            except OSError as e:
                die('sendto %s (packet %d of %d): %s' %
                    (a.dst, i + 1, a.count, e))
            if a.interval:
                time.sleep(a.interval)
        psn = (psn + a.psn_step) & 0xffffff
    if sock is not None:
        sock.close()
        print('irn_pktgen: sent %d %s packet(s) %s -> %s:%d qpn 0x%x' %
              (a.count, a.case, src, a.dst, ROCE_V2_PORT, a.qpn))


# ---- fuzzing ---------------------------------------------------------------

# RC/UC/UD opcodes and the extension headers after their BTH (RETH 16,
# AETH 4, AtomicETH 28, AtomicAckETH 8, ImmDt 4, IETH 4, DETH 8), and the
# CNP with its 16 reserved bytes.
FUZZ_OPS = [
    (0x00, 0), (0x01, 0), (0x02, 0), (0x03, 4), (0x04, 0), (0x05, 4),
    (0x06, 16), (0x07, 0), (0x08, 0), (0x09, 4), (0x0a, 16), (0x0b, 20),
    (0x0c, 16), (0x0d, 4), (0x0e, 0), (0x0f, 4), (0x10, 4), (0x11, 4),
    (0x12, 12), (0x13, 28), (0x14, 28), (0x16, 4), (0x17, 4), (0x1d, 16),
    (0x20, 0), (0x24, 0), (0x26, 16), (0x2a, 16), (0x64, 8), (0x65, 12),
    (OP_CNP, CNP_RSVD_LEN),
]
READ_REQUEST = 0x0c
RESPONSE_OPS = (0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12)
IRN_CAP, IRN_EXT, IRN_DSACK = 0x20, 0x10, 0x08   # BTH byte 4
IXTH_LEN, SACK_LEN = 20, 132


def load_targets(path):
    """QPNs and PSNs of live QPs: the qps table of the irn debugfs."""
    targets = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 10 or not w[0].isdigit():
                continue
            try:
                # qpn mode irn state una nxt cap sack recov epsn ...
                qpn, una, nxt = int(w[0]), int(w[4]), int(w[5])
                epsn = int(w[9])
            except ValueError:
                continue
            targets.append((qpn, una, nxt, epsn))
    return targets


def fuzz_packet(rng, targets):
    """One mutated packet: (bth bytes, body, build() keyword arguments).

    Live QPs (from the targets) only get packets that no correct transport
    may act on: requests and responses far ahead of their PSNs, and no
    read requests (a duplicate read would legitimately be executed).
    """
    op, ext = rng.choice(FUZZ_OPS)
    if rng.random() < 0.05:
        op = rng.randrange(256)
    live = targets and rng.random() < 0.6
    if live:
        qpn, una, nxt, epsn = rng.choice(targets)
        qpn += rng.choice((0, 0, 0, 1, -1, 2))
        if op == READ_REQUEST:
            op = 0x0a
        base = nxt if op in RESPONSE_OPS else epsn
        psn = (base + rng.randrange(1 << 21, 1 << 22)) & 0xffffff
    else:
        qpn = rng.choice((rng.randrange(1 << 24), rng.randrange(2, 64), 1))
        psn = rng.randrange(1 << 24)
    # 1100 and 1200: beyond the path MTU (1024), within the Ethernet one
    plen = rng.choice((0, 0, 4, 16, 64, 256, 1024, 1028, 1100, 1200))
    padcnt = rng.randrange(4) if rng.random() < 0.2 else (-plen) % 4
    hdr = bytearray(bth(op, qpn & 0xffffff, psn, se=rng.random() < 0.1,
                        padcnt=padcnt, ackreq=rng.random() < 0.5,
                        tver=1 if rng.random() < 0.02 else 0,
                        pkey=DEFAULT_PKEY if rng.random() < 0.9 else
                        rng.randrange(1 << 16)))
    body = bytearray(rng.getrandbits(8) for _ in range(ext))
    if rng.random() < 0.5:                    # IRN bits and header
        hdr[4] |= rng.choice((IRN_CAP, IRN_EXT, IRN_EXT | IRN_CAP,
                              IRN_EXT | IRN_DSACK, 0x38))
        if hdr[4] & IRN_EXT:
            body += bytes(rng.getrandbits(8) for _ in
                          range(SACK_LEN if op in (0x11, 0x12) else
                                IXTH_LEN))
    body += bytes(plen) + bytes((-plen) % 4)
    r = rng.random()
    if r < 0.1:                               # cut inside the headers
        body = body[:rng.randrange(len(body) + 1)]
    elif r < 0.15:                            # trailing garbage
        body += bytes(rng.getrandbits(8) for _ in range(rng.randrange(64)))
    kw = {}
    if rng.random() < 0.03:
        kw['icrc_xor'] = 1 << rng.randrange(32)
    return bytes(hdr), bytes(body), kw


def do_fuzz(a):
    """Send a.fuzz packets: a pool of mutated packets, renewed in part on
    every pass, so that a million sends cost a few thousand builds."""
    rng = random.Random(a.seed)
    targets = load_targets(a.targets) if a.targets else []
    src = a.src or local_addr_for(a.dst)
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                             socket.IPPROTO_RAW)
    except PermissionError:
        die('raw socket: permission denied (need root / CAP_NET_RAW)')
    pool = []
    ident = 1
    sent = errors = 0
    t0 = reload_at = time.time()
    ever = len(targets)
    while sent < a.fuzz:
        if a.targets and time.time() > reload_at + 1:
            # the target's QPs come and go: aim at the current ones
            targets = load_targets(a.targets) or targets
            ever = max(ever, len(targets))
            reload_at = time.time()
        if len(pool) < a.pool or rng.random() < 0.02:
            h, body, kw = fuzz_packet(rng, targets)
            pkt = build(src, a.dst, h, body, ident, **kw)
            ident = ident % 0xfffe + 1
            # the stack refuses what the link cannot carry (EMSGSIZE)
            if len(pkt) > a.max_len:
                continue
            if len(pool) < a.pool:
                pool.append(pkt)
            else:
                pool[rng.randrange(a.pool)] = pkt
        else:
            pkt = pool[rng.randrange(len(pool))]
        try:
            sock.sendto(pkt, (a.dst, 0))
        except OSError:
            # ENOBUFS: the device queue is full.  Only packets the stack
            # took count as sent; pause, then send the next one.
            errors += 1
            time.sleep(0.0002)
            continue
        sent += 1
        if a.pace and sent % a.pace == 0:
            time.sleep(0.001)
    sock.close()
    print('irn_pktgen: fuzz sent %d packets (%d sends refused) to %s in '
          '%.1f s, up to %d live QP targets, seed %d' %
          (sent, errors, a.dst, time.time() - t0, ever, a.seed))


def pcap_ipv4_packets(path):
    """Yield the IPv4 datagrams of Ethernet frames in a classic pcap file."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 24:
        die('%s: not a pcap file' % path)
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        end = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        end = '>'
    else:
        die('%s: unknown pcap magic %s (pcapng is not supported)' %
            (path, magic.hex()))
    linktype = struct.unpack(end + 'I', data[20:24])[0]
    off = 24
    while off + 16 <= len(data):
        caplen, origlen = struct.unpack(end + 'II', data[off + 8:off + 16])
        frame = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if caplen != origlen:
            continue
        if linktype == 1:               # Ethernet
            etype = struct.unpack('!H', frame[12:14])[0]
            l3 = frame[14:]
            if etype == 0x8100:
                etype = struct.unpack('!H', frame[16:18])[0]
                l3 = frame[18:]
            if etype != 0x0800:
                continue
        elif linktype == 101:           # raw IP
            l3 = frame
        elif linktype == 113:           # Linux cooked
            if struct.unpack('!H', frame[14:16])[0] != 0x0800:
                continue
            l3 = frame[16:]
        else:
            die('%s: unsupported link type %d' % (path, linktype))
        yield l3


def roce_from_ipv4(l3):
    """Return (ip_udp_bth, rest, stored_icrc) for a RoCEv2 IPv4 datagram."""
    if len(l3) < IPV4_HDR_LEN or l3[0] != 0x45 or l3[9] != 17:
        return None
    tot = struct.unpack('!H', l3[2:4])[0]
    l3 = l3[:tot]
    if len(l3) < IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN + ICRC_LEN:
        return None
    if struct.unpack('!H', l3[22:24])[0] != ROCE_V2_PORT:
        return None
    hdrs = l3[:IPV4_HDR_LEN + UDP_HDR_LEN + BTH_LEN]
    rest = l3[len(hdrs):-ICRC_LEN]
    stored = struct.unpack('<I', l3[-ICRC_LEN:])[0]
    return hdrs, rest, stored


def load_vectors(path):
    vecs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            try:
                vecs.append(('%s:%d' % (os.path.basename(path), n),
                             bytes.fromhex(line)))
            except ValueError:
                die('%s:%d: bad hex' % (path, n))
    return vecs


def check_one(name, l3, verbose):
    r = roce_from_ipv4(l3)
    if r is None:
        print('FAIL %s: not an IPv4 RoCEv2 packet' % name)
        return False
    hdrs, rest, stored = r
    calc = icrc(hdrs, rest)
    ok = calc == stored
    # Rebuild the datagram from its fields with our own builder: this
    # checks the header layout, not only the CRC.
    ip_id, ff = struct.unpack('!HH', hdrs[4:8])
    src = socket.inet_ntoa(hdrs[12:16])
    dst = socket.inet_ntoa(hdrs[16:20])
    sport = struct.unpack('!H', hdrs[20:22])[0]
    rebuilt = build(src, dst, hdrs[28:40], rest, ip_id, sport=sport,
                    tos=hdrs[1], ttl=hdrs[8], flags_frag=ff)
    same = rebuilt == bytes(l3[:len(rebuilt)])
    status = 'ok' if ok and same else 'FAIL'
    print('%s %s: opcode 0x%02x qpn 0x%06x len %d icrc stored %08x '
          'computed %08x%s' % (status, name, hdrs[28],
                               struct.unpack('!I', hdrs[32:36])[0] & 0xffffff,
                               len(l3), stored, calc,
                               '' if same else ' (rebuilt packet differs)'))
    if verbose and not same:
        print('  captured %s\n  rebuilt  %s' % (bytes(l3).hex(),
                                               rebuilt.hex()))
    return ok and same


def selftest(a):
    fails = 0
    total = 0
    # Known answer independent of captures: the seed is the CRC-32 state
    # after eight 0xff bytes.
    if zlib.crc32(b'\xff' * 8) != (~ICRC_SEED & 0xffffffff):
        print('FAIL seed: crc32(8 x 0xff) != ~0xDEBB20E3')
        fails += 1
    else:
        print('ok seed: crc32(8 x 0xff) == ~0xDEBB20E3')
    total += 1
    sources = []
    if a.vectors and a.vectors != 'none':
        if not os.path.exists(a.vectors):
            die('test vectors %s missing' % a.vectors)
        sources += load_vectors(a.vectors)
    for p in a.pcap or []:
        for i, l3 in enumerate(pcap_ipv4_packets(p), 1):
            if roce_from_ipv4(l3) is not None:
                sources.append(('%s#%d' % (os.path.basename(p), i), l3))
    if len(sources) == 0:
        die('selftest: no packets to check (vectors %s, pcap %s)' %
            (a.vectors, a.pcap))
    for name, l3 in sources:
        total += 1
        if not check_one(name, l3, a.verbose):
            fails += 1
    # Our own builder must produce packets that pass our own check, and a
    # bad-icrc packet must not.
    args = argparse.Namespace(qpn=0x11)
    for cname, want in (('valid', True), ('bad-icrc', False),
                        ('valid-ud', True),
                        ('unknown-qpn', True), ('bad-version', True)):
        h, body, kw = CASES[cname][0](args, 0x123456)
        pkt = build('10.77.0.2', '10.77.0.1', h, body, 0x1234, **kw)
        hdrs, rest, stored = roce_from_ipv4(pkt)
        total += 1
        if (icrc(hdrs, rest) == stored) != want:
            print('FAIL builder %s: ICRC check gave %s' % (cname, not want))
            fails += 1
        else:
            print('ok builder %s' % cname)
    print('selftest: %d checks, %d failed' % (total, fails))
    return 1 if fails else 0


def parse_int(s):
    return int(s, 0)


def main():
    p = argparse.ArgumentParser(
        description='Send crafted RoCEv2 (IPv4) packets with a raw socket.')
    p.add_argument('--case', choices=sorted(CASES))
    p.add_argument('--count', type=int, default=1)
    p.add_argument('--dst', help='destination IPv4 address')
    p.add_argument('--src', help='source IPv4 address (default: route)')
    p.add_argument('--qpn', type=parse_int, default=0x11,
                   help='destination QPN (default 0x11)')
    p.add_argument('--psn', type=parse_int, default=0,
                   help='first PSN (incremented per packet)')
    p.add_argument('--psn-step', type=parse_int, default=1,
                   help='added to the PSN after each packet (default 1; '
                   '0 sends the same PSN again)')
    p.add_argument('--va', type=parse_int, default=0,
                   help='read, write: the RETH virtual address')
    p.add_argument('--rkey', type=parse_int, default=0,
                   help='read, write: the RETH R_Key')
    p.add_argument('--len', type=parse_int, default=0,
                   help='read, write: the RETH DMA length')
    p.add_argument('--irn', action='store_true',
                   help='write: an IRN request (CAP, EXT and an IXTH)')
    p.add_argument('--rsn', type=parse_int, default=0,
                   help='write --irn: the IXTH receive sequence number')
    p.add_argument('--ackreq', action='store_true',
                   help='write: set AckReq')
    p.add_argument('--sport', type=parse_int, default=0xc000,
                   help='UDP source port (default 0xc000)')
    p.add_argument('--icrc-xor', type=parse_int, default=0,
                   help='XOR this into the ICRC of any case (corrupt it)')
    p.add_argument('--interval', type=float, default=0.001,
                   help='seconds between packets (default 0.001)')
    p.add_argument('--broadcast', action='store_true',
                   help='allow a broadcast --dst (SO_BROADCAST)')
    p.add_argument('--hex', action='store_true',
                   help='also print each packet as hex')
    p.add_argument('--dry-run', action='store_true',
                   help='print packets as hex, do not send')
    p.add_argument('--list', action='store_true', help='list the cases')
    p.add_argument('--selftest', action='store_true',
                   help='check the ICRC code against captured packets')
    p.add_argument('--vectors', default=DEFAULT_VECTORS,
                   help='test vector file for --selftest ("none": none)')
    p.add_argument('--pcap', action='append',
                   help='also check every RoCEv2 packet in this pcap')
    p.add_argument('--fuzz', type=int, default=0, metavar='N',
                   help='send N mutated packets to --dst (see do_fuzz)')
    p.add_argument('--targets', help='for --fuzz: the irn debugfs qps '
                   'table of the target, to aim at live QPs safely')
    p.add_argument('--seed', type=int, default=1, help='for --fuzz')
    p.add_argument('--pool', type=int, default=4096,
                   help='for --fuzz: distinct packets kept (default 4096)')
    p.add_argument('--max-len', type=int, default=1500, metavar='BYTES',
                   help='for --fuzz: longest IP packet, the MTU of the '
                   'link (default 1500)')
    p.add_argument('--pace', type=int, default=0, metavar='K',
                   help='for --fuzz: sleep 1 ms every K packets')
    p.add_argument('--stdin', action='store_true',
                   help='read the options of one send a line from standard '
                   'input and answer each line with its report (one Python '
                   'start for many sends)')
    p.add_argument('-v', '--verbose', action='store_true')
    a = p.parse_args()

    if a.list:
        for name in sorted(CASES):
            print('%-16s %s' % (name, CASES[name][1]))
        return 0
    if a.selftest:
        return selftest(a)
    if a.fuzz:
        if not a.dst:
            p.error('--fuzz needs --dst')
        do_fuzz(a)
        return 0
    if a.stdin:
        for line in sys.stdin:
            send_checked(p, p.parse_args(shlex.split(line)))
            sys.stdout.flush()
        return 0
    send_checked(p, a)
    return 0


def send_checked(p, a):
    if not a.case or not a.dst:
        p.error('--case and --dst are required (or --list / --selftest)')
    if a.count < 1:
        p.error('--count must be at least 1')
    try:
        socket.inet_aton(a.dst)
    except OSError:
        p.error('--dst %s is not an IPv4 address' % a.dst)
    do_send(a)


if __name__ == '__main__':
    sys.exit(main())
