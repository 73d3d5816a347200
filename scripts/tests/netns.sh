#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=600 ci=300 debug 6.12
#
# Network namespaces, as containers use them: two namespaces in one
# guest, n1 and n2, joined by a veth pair (v1 10.99.0.1 in n1, v2
# 10.99.0.2 in n2), each end with an irn device created from inside its
# namespace (ip netns exec nX rdma link add dX type irn netdev vX).
#
#   port            each namespace has UDP 4791 bound exactly while it
#                   has a device (before the first and after the last: not)
#   traffic         server in n2, client in n1: ibv_rc_pingpong -g,
#                   ib_write_bw, ib_read_bw, ib_send_bw, rping -v, ucmatose;
#                   v1's counters must show the packets crossed the pair
#   loss            ib_write_bw with netem loss 1% on v1
#   deletion        n1's processes killed under a running ib_write_bw and
#                   n1 deleted: both devices go (the veth pair dies with
#                   n1), the module unloads, the kernel log stays clean
#
# Stock rdma_rxe of Debian's 6.1 opens its port in the initial namespace
# only: with IRN_DRIVER=rxe the test skips.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_cmd ip tc ibv_rc_pingpong ib_write_bw ib_read_bw ib_send_bw \
	rping ucmatose timeout
[[ $IRN_DRIVER == irn ]] ||
	irn_skip "stock rxe binds its port in the initial namespace only"

A=10.99.0.1 B=10.99.0.2
PORT=19900
SCALE=${IRN_TIMEOUT_SCALE:-1}
# perftest's flags (see irn_perftest in lib.sh): -F, and on a slower
# kernel (the debug build) a local ACK timeout of 18 instead of 14
PT=(-F)
((SCALE <= 1)) || PT+=(-u 18)

in1() { ip netns exec n1 "$@"; }
in2() { ip netns exec n2 "$@"; }

# port_bound NS: UDP 4791 (IPv4) is bound in namespace NS (/proc/net is
# the reading process's namespace's)
port_bound()
{
	local port

	port=$(printf ':%04X' "$IRN_RDMA_PORT")
	ip netns exec "$1" awk -v p="$port" \
		'NR > 1 && substr($2, length($2) - 4) == p { f = 1 }
		 END { exit !f }' /proc/net/udp
}

# v1_packets: packets v1 sent and received
v1_packets()
{
	local tx rx

	tx=$(in1 cat /sys/class/net/v1/statistics/tx_packets)
	rx=$(in1 cat /sys/class/net/v1/statistics/rx_packets)
	echo $((tx + rx))
}

ip netns add n1
irn_defer "ip netns del n1"
ip netns add n2
irn_defer "ip netns del n2"
ip link add v1 netns n1 type veth peer name v2 netns n2
in1 ip addr add "$A/24" dev v1
in2 ip addr add "$B/24" dev v2
for ns in n1 n2; do
	ip -n "$ns" link set lo up
done
in1 ip link set v1 up
in2 ip link set v2 up
modprobe "$IRN_MODULE"

# ---- port ------------------------------------------------------------------
! port_bound n1 || irn_fail "UDP $IRN_RDMA_PORT is bound in n1 before it has a device"
out=$(in1 rdma link add d1 type "$IRN_LINK_TYPE" netdev v1 2>&1) ||
	irn_fail "ip netns exec n1 rdma link add d1 netdev v1: $out"
out=$(in2 rdma link add d2 type "$IRN_LINK_TYPE" netdev v2 2>&1) ||
	irn_fail "ip netns exec n2 rdma link add d2 netdev v2: $out"
port_bound n1 || irn_fail "UDP $IRN_RDMA_PORT is not bound in n1, which has d1"
port_bound n2 || irn_fail "UDP $IRN_RDMA_PORT is not bound in n2, which has d2"
for d in d1 d2; do
	irn_wait_for 10 "$d port 1 ACTIVE" irn_port_state_is "$d" 4
done
irn_wait_for 10 "GID of $A on d1" irn_gid_index d1 "$A" >/dev/null
irn_wait_for 10 "GID of $B on d2" irn_gid_index d2 "$B" >/dev/null
G1=$(irn_gid_index d1 "$A")
G2=$(irn_gid_index d2 "$B")
irn_log "d1 (n1) GID index $G1, d2 (n2) GID index $G2"

# ---- traffic -----------------------------------------------------------------
# pair NAME SECS SERVER... -- CLIENT...: the server in n2, the client in
# n1; both must exit 0.  Output in $IRN_OUT/NAME.{server,client}.
pair()
{
	local name=$1 secs=$2 srv=() cli=() s rc=0 rs=0

	shift 2
	while [[ $1 != -- ]]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	PORT=$((PORT + 1))
	secs=$((secs * SCALE))
	in2 timeout "$secs" "${srv[@]//@PORT@/$PORT}" \
		>"$IRN_OUT/$name.server" 2>&1 &
	s=$!
	sleep 1
	in1 timeout "$secs" "${cli[@]//@PORT@/$PORT}" \
		>"$IRN_OUT/$name.client" 2>&1 || rc=$?
	wait "$s" || rs=$?
	if ((rc || rs)); then
		irn_log "--- $name client"; tail -n 20 "$IRN_OUT/$name.client" >&2
		irn_log "--- $name server"; tail -n 20 "$IRN_OUT/$name.server" >&2
		irn_fail "$name between n1 and n2: client exit $rc, server exit $rs"
	fi
	irn_log "$name between n1 and n2: ok"
}

pk0=$(v1_packets)
c0=$(irn_counter d1 sent_pkts)
pair ibv_rc_pingpong 60 ibv_rc_pingpong -d d2 -g "$G2" -n 50 -p @PORT@ -- \
	ibv_rc_pingpong -d d1 -g "$G1" -n 50 -p @PORT@ "$B"
for t in ib_write_bw ib_read_bw ib_send_bw; do
	pair "$t" 90 "$t" -d d2 -x "$G2" -n 200 "${PT[@]}" -p @PORT@ -- \
		"$t" -d d1 -x "$G1" -n 200 "${PT[@]}" -p @PORT@ "$B"
done
pair rping 60 rping -s -a "$B" -p @PORT@ -v -C 10 -- \
	rping -c -a "$B" -p @PORT@ -v -C 10
pair ucmatose 60 ucmatose -b "$B" -p @PORT@ -- ucmatose -s "$B" -p @PORT@
sent=$(($(irn_counter d1 sent_pkts) - c0))
crossed=$(($(v1_packets) - pk0))
irn_log "d1 sent $sent packets; v1 carried $crossed"
((sent > 1000)) || irn_fail "d1 sent only $sent packets for six programs"
((crossed >= sent)) ||
	irn_fail "v1 carried $crossed packets, fewer than the $sent d1 sent: they did not cross the veth pair"

# ---- loss --------------------------------------------------------------------
in1 tc qdisc add dev v1 root netem loss 1%
r0=$(irn_counter d1 retransmitted_pkts)
pair ib_write_bw-loss 120 ib_write_bw -d d2 -x "$G2" -n 500 "${PT[@]}" -p @PORT@ -- \
	ib_write_bw -d d1 -x "$G1" -n 500 "${PT[@]}" -p @PORT@ "$B"
r=$(($(irn_counter d1 retransmitted_pkts) - r0))
irn_log "at 1% loss on v1, d1 resent $r packets"
((r > 0)) || irn_fail "no resend at 1% loss on v1: did the packets cross it?"
in1 tc qdisc del dev v1 root

# ---- deletion under live QPs -------------------------------------------------
PORT=$((PORT + 1))
in2 ib_write_bw -d d2 -x "$G2" -D 30 "${PT[@]}" -p "$PORT" \
	>"$IRN_OUT/live.server" 2>&1 &
sleep 1
in1 ib_write_bw -d d1 -x "$G1" -D 30 "${PT[@]}" -p "$PORT" "$B" \
	>"$IRN_OUT/live.client" 2>&1 &
irn_wait_for $((20 * SCALE)) "traffic on d1" bash -c "(( \$(cat /sys/class/infiniband/d1/ports/1/hw_counters/sent_pkts) > $(irn_counter d1 sent_pkts) + 200 ))"
ip netns pids n1 | xargs -r kill -9
ip netns pids n2 | xargs -r kill -9
ip netns del n1
irn_log "n1 deleted under a running ib_write_bw"
irn_wait_for 20 "d1 and d2 to go with the veth pair" \
	bash -c '! test -e /sys/class/infiniband/d1 && ! test -e /sys/class/infiniband/d2'
! port_bound n2 || irn_fail "UDP $IRN_RDMA_PORT still bound in n2 after its device went"
ip netns del n2
irn_rmmod || irn_fail "cannot unload $IRN_MODULE after the namespaces went"
irn_dmesg_check "netns"
irn_log "PASS"
