#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Capture stock rdma_rxe RoCEv2 traffic between two guests: how the test
# vectors of irn were obtained, and a check of the two-guest setup.
#
#   scripts/capture-rxe.sh [OUT_PREFIX]      (on the host; default /tmp/irn-rxe-capture)
#
# Boots two Debian guests on one cable (scripts/vm.sh --guests 2). Both
# load rdma_rxe and add rxe0 on eth0; guest b captures UDP port 4791 with
# tcpdump and runs the ibv_rc_pingpong server, guest a runs the client
# (-g <IPv4-mapped RoCE v2 GID index> -n 5 -s 64). Writes OUT_PREFIX.pcap
# and OUT_PREFIX.txt (hex dumps of a SEND_ONLY and an ACK from the IPv4
# header to the ICRC, the ICRC marked and checked against a CRC32 of the
# masked packet).
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"

# ---- guest side --------------------------------------------------------------

# Index of the RoCE v2 GID that holds the IPv4-mapped address $2 on $1.
roce_v2_gid_index() {
	local dev=$1 ip=$2 want gid f i
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ip//./ })
	for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
		i=${f##*/}
		gid=$(cat "$f" 2>/dev/null) || continue
		[[ $gid == "$want" ]] || continue
		[[ $(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null) == "RoCE v2" ]] || continue
		echo "$i"
		return 0
	done
	return 1
}

wait_file() {
	local f=$1 i
	for i in $(seq 300); do [[ -e $f ]] && return 0; sleep 0.1; done
	echo "timed out waiting for $f" >&2
	return 1
}

guest_main() {
	local sh=$IRN_GUEST_SHARED gid i tdpid
	modprobe crc32_generic
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev "$IRN_NETDEV"
	rdma link show
	for i in $(seq 50); do gid=$(roce_v2_gid_index rxe0 "$IRN_SELF_IP") && break; sleep 0.1; done
	[[ -n ${gid:-} ]] || { echo "no RoCE v2 GID for $IRN_SELF_IP" >&2; return 1; }
	echo "$gid" >"$sh/gid-index.$IRN_ROLE"
	echo "GID index $gid"
	if [[ $IRN_ROLE == b ]]; then
		tcpdump -i "$IRN_NETDEV" -s 0 -U -Z root -w /tmp/rxe.pcap udp port 4791 2>/tmp/tcpdump.err &
		tdpid=$!
		for i in $(seq 100); do grep -q listening /tmp/tcpdump.err && break; sleep 0.1; done
		timeout 60 ibv_rc_pingpong -d rxe0 -g "$gid" -n 5 -s 64 &
		sleep 0.5
		touch "$sh/server-ready"
		wait $!
		sleep 1
		kill -INT "$tdpid"
		wait "$tdpid" || true
		cat /tmp/tcpdump.err
		cp /tmp/rxe.pcap "$sh/rxe.pcap"
	else
		wait_file "$sh/server-ready"
		for i in $(seq 10); do
			timeout 60 ibv_rc_pingpong -d rxe0 -g "$gid" -n 5 -s 64 "$IRN_PEER_IP" && break
			sleep 1
		done
	fi
	rdma link delete rxe0
}

# ---- host side ---------------------------------------------------------------

describe_pcap() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
pcap, gid = sys.argv[1], sys.argv[2]
data = open(pcap, 'rb').read()
magic = struct.unpack('<I', data[:4])[0]
assert magic in (0xa1b2c3d4, 0xa1b23c4d), 'not a little-endian pcap'
off, pkts = 24, []
while off + 16 <= len(data):
    _, _, incl, _ = struct.unpack('<IIII', data[off:off + 16])
    pkts.append(data[off + 16:off + 16 + incl])
    off += 16 + incl
OPS = {0x04: 'RC SEND_ONLY', 0x11: 'RC ACKNOWLEDGE'}
def icrc(ip):
    # RoCEv2 ICRC: CRC32 over 8 bytes of 1s, the IP header with TOS, TTL
    # and checksum set to 1s, UDP with checksum set to 1s, BTH with its
    # reserved byte (byte 4) set to 1s, then the rest without the ICRC.
    ihl = (ip[0] & 0xf) * 4
    m = bytearray(ip[:-4])
    m[1] = 0xff; m[8] = 0xff; m[10:12] = b'\xff\xff'
    m[ihl + 6:ihl + 8] = b'\xff\xff'
    m[ihl + 8 + 4] = 0xff
    return zlib.crc32(b'\xff' * 8 + bytes(m)) & 0xffffffff
def dump(ip):
    ihl = (ip[0] & 0xf) * 4
    marks = [(0, 'IPv4 header (%d bytes)' % ihl), (ihl, 'UDP header'), (ihl + 8, 'BTH'),
             (ihl + 20, 'after BTH (AETH / payload)'), (len(ip) - 4, 'ICRC (wire)')]
    out = []
    for start, label in marks:
        nxt = [s for s, _ in marks if s > start]
        end = nxt[0] if nxt else len(ip)
        seg = ip[start:end]
        out.append('  %-28s %s' % (label + ':', ' '.join('%02x' % b for b in seg[:16])))
        for i in range(16, len(seg), 16):
            out.append('  %-28s %s' % ('', ' '.join('%02x' % b for b in seg[i:i + 16])))
    return '\n'.join(out)
print('Stock rdma_rxe RoCEv2 capture (Debian 6.1 guests, ibv_rc_pingpong -n 5 -s 64)')
print('pcap: %s, %d packets on UDP 4791' % (pcap, len(pkts)))
print('GID index used (IPv4-mapped RoCE v2 GID): %s' % gid)
print('Dumps start at the IPv4 header (Ethernet header omitted).\n')
seen = set()
for n, p in enumerate(pkts, 1):
    if p[12:14] != b'\x08\x00':
        continue
    ip = p[14:]
    ihl = (ip[0] & 0xf) * 4
    tot = struct.unpack('>H', ip[2:4])[0]
    ip = ip[:tot]
    bth = ip[ihl + 8:ihl + 20]
    op = bth[0]
    if op not in OPS or op in seen:
        continue
    if op == 0x04 and len(ip) - ihl - 8 - 12 - 4 <= 0:
        continue
    seen.add(op)
    wire = ip[-4:]
    calc = icrc(ip)
    le, be = struct.pack('<I', calc ^ 0), struct.pack('>I', calc)
    how = 'little-endian' if wire == le else ('big-endian' if wire == be else 'NO MATCH')
    print('packet %d: %s, %d bytes from IPv4 header to ICRC' % (n, OPS[op], len(ip)))
    print('  BTH: opcode 0x%02x, flags 0x%02x, P_Key 0x%04x, dest QP 0x%06x, A=%d, PSN 0x%06x'
          % (op, bth[1], struct.unpack('>H', bth[2:4])[0], int.from_bytes(bth[5:8], 'big'),
             bth[8] >> 7, int.from_bytes(bth[9:12], 'big')))
    if op == 0x11:
        aeth = ip[ihl + 20:ihl + 24]
        print('  AETH: syndrome 0x%02x, MSN 0x%06x' % (aeth[0], int.from_bytes(aeth[1:4], 'big')))
    else:
        print('  payload: %d bytes' % (len(ip) - ihl - 8 - 12 - 4))
    print('  ICRC on the wire: %s; CRC32 of the masked packet: 0x%08x, stored %s'
          % (wire.hex(' '), calc, how))
    print(dump(ip))
    print()
    if len(seen) == len(OPS):
        break
PY
}

host_main() {
	local prefix=${1:-/tmp/irn-rxe-capture} run rc=0
	irn_guest_lock "scripts/capture-rxe.sh"
	run=$(irn_run_dir)
	"$IRN_ROOT/scripts/vm.sh" --guests 2 --name capture-rxe --run-dir "$run" \
		--timeout 300 "${BASH_SOURCE[0]}" || rc=$?
	if [[ $rc != 0 || ! -s $run/capture-rxe/shared/rxe.pcap ]]; then
		for r in a b; do tail -n 20 "$run/capture-rxe/guest-$r/out/job.log" >&2 || true; done
		irn_die "capture failed (status $rc); logs in $run/capture-rxe"
	fi
	cp "$run/capture-rxe/shared/rxe.pcap" "$prefix.pcap"
	describe_pcap "$prefix.pcap" "$(cat "$run/capture-rxe/shared/gid-index.b")" >"$prefix.txt"
	irn_log "wrote $prefix.pcap and $prefix.txt"
}

if [[ -n ${IRN_ROLE:-} ]]; then
	guest_main "$@"
else
	host_main "$@"
fi
