#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multipath bed on one guest of a pair booted with scripts/vm.sh
# --guests 2 --cables 2 (eth0 on cable 1, eth1 on cable 2).  Run the same
# subcommand on both guests (scripts/tests/multipath.sh, or by hand).
#
#   mpnet.sh up                 bond0 over eth0 and eth1, with this
#                               guest's address (IRN_SELF_IP) moved to it
#   mpnet.sh down               undo up: eth0 gets the address back
#   mpnet.sh shape N QDISC...   cable N's qdisc on this guest's end, what
#                               leaves through it: "netem loss 5%", "tbf
#                               rate 20mbit burst 16kb latency 50ms",
#                               "none" (no qdisc)
#   mpnet.sh blackhole N        cable N drops every RoCEv2 packet (UDP to
#                               4791) this guest sends on it, its carrier
#                               and everything else up ("none" ends it)
#   mpnet.sh blackhole-ready N  the same qdisc and filter, dropping
#                               nothing yet: blackhole N then arms it
#                               with one tc command
#   mpnet.sh cut N              cable N pulled at this end (ethN-1 down)
#   mpnet.sh mend N             ... and plugged back (up, back in the bond)
#   mpnet.sh counts             "NIC tx_packets rx_packets tx_bytes
#                               rx_bytes", a line per cable
#   mpnet.sh show               the bond's state and each cable's qdisc
#
# The bed: bond0 in mode balance-xor with xmit_hash_policy layer3+4, so
# that each packet leaves on the cable a hash of its addresses and UDP
# ports picks, as an ECMP or LAG fabric picks a link: a QP that sprays
# its requests over several UDP source ports (the irn device's "paths"
# knob) spreads over both cables, a QP on one port stays on one.  The
# RDMA device sits on bond0 (rdma link add irn0 type irn netdev bond0),
# whose address gives its GID.  Why a bond and not a multipath route
# (two next hops and fib_multipath_hash_policy 1): irn looks its routes
# up with its netdev as the output interface, and the kernel picks no
# next hop by hash for a lookup that names one (fib_select_path()), so a
# route over eth0 and eth1 carries nothing on eth1; and irn finds the
# device of a received packet by the netdev it arrived on, so what came
# in on a second NIC would find none.  A bond is one netdev at both ends
# and hashes per packet below it.
#
# The hash (bond_xmit_hash() with layer3+4, two links) takes bits 1 and 9
# of the source port: irn's path i moves the port by i * 0x278d in its
# low 14 bits, so 2 paths go one to a cable, 8 paths four a cable, and 4
# paths three on one cable and one on the other, whatever the QP.  The
# ACKs of a QP leave from its base port, which both ends share (the RDMA
# core's port is symmetric in the QP numbers), so they return on path
# 0's cable.
#
# miimon 100: a slave whose link goes down (cut: administratively down;
# the bond takes it out of its hash at once) leaves the hash; a cable
# that drops while its carrier stays up (blackhole, or loss) stays in it:
# that is the failure only the sender's paths can route around.  The
# blackhole drops RoCEv2 alone: a TCP connection (perftest's and
# irn_verify's exchange) or ARP hashed onto that cable would die with
# it, and take the run with them, where a fabric's failure hits every
# flow alike and each moves on its own.
#
# QEMU's stream cable has no carrier of its own: a cable pulled at one
# end is still up at the other, whose bond keeps hashing onto it.  Cut
# a cable at both ends to pull it.
set -euo pipefail

TC=/usr/sbin/tc
BOND=bond0
NICS=(eth0 eth1)

die() { printf 'mpnet: %s\n' "$*" >&2; exit 1; }

# nic N: the netdev of cable N (1 or 2)
nic() {
	[[ $1 == 1 || $1 == 2 ]] || die "cable $1: there are cables 1 and 2"
	printf '%s\n' "${NICS[$1 - 1]}"
}

# wait_for SECONDS WHAT CMD...: poll CMD every 0.1 s
wait_for() {
	local secs=$1 what=$2 i

	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	die "timed out after ${secs}s waiting for $what"
}

# slave_up NIC: the bond counts NIC's link as up
slave_up() {
	awk -v n="$1" '$1 == "Slave" { s = $3 == n; next }
		s && /^MII Status:/ { ok = $3 == "up"; s = 0 }
		END { exit !ok }' "/proc/net/bonding/$BOND"
}

carrier() { [[ $(cat "/sys/class/net/$1/carrier" 2>/dev/null) == 1 ]]; }

up() {
	local n

	[[ -n ${IRN_SELF_IP:-} ]] || die "IRN_SELF_IP is not set"
	for n in "${NICS[@]}"; do
		[[ -d /sys/class/net/$n ]] ||
			die "no $n: boot the pair with scripts/vm.sh --guests 2 --cables 2"
	done
	# max_bonds=0: no bond0 of the module's own, ours has the options
	grep -q '^bonding ' /proc/modules || modprobe bonding max_bonds=0 ||
		die "modprobe bonding failed"
	[[ ! -e /sys/class/net/$BOND ]] || ip link del "$BOND"
	ip link add "$BOND" type bond mode balance-xor xmit_hash_policy layer3+4 \
		miimon 100
	for n in "${NICS[@]}"; do
		ip addr flush dev "$n"
		ip link set "$n" down
		ip link set "$n" master "$BOND"
	done
	ip addr add "$IRN_SELF_IP/24" brd + dev "$BOND"
	ip link set "$BOND" up
	for n in "${NICS[@]}"; do
		wait_for 10 "$n up in $BOND" slave_up "$n"
	done
	wait_for 10 "carrier on $BOND" carrier "$BOND"
}

down() {
	local n

	for n in "${NICS[@]}"; do
		$TC qdisc del dev "$n" root 2>/dev/null || true
	done
	if [[ -e /sys/class/net/$BOND ]]; then
		ip link del "$BOND"
	fi
	! grep -q '^bonding ' /proc/modules || rmmod bonding 2>/dev/null || true
	for n in "${NICS[@]}"; do
		ip link set "$n" up
	done
	if [[ -n ${IRN_SELF_IP:-} ]] &&
	   ! ip -4 addr show dev "${NICS[0]}" | grep -q "inet $IRN_SELF_IP/"; then
		ip addr add "$IRN_SELF_IP/24" brd + dev "${NICS[0]}"
	fi
	for n in "${NICS[@]}"; do
		wait_for 10 "carrier on $n" carrier "$n"
	done
}

shape() {
	local dev

	dev=$(nic "$1")
	shift
	[[ $# -gt 0 ]] || die "shape: no qdisc given (or none)"
	if [[ $1 == none ]]; then
		$TC qdisc del dev "$dev" root 2>/dev/null || true
		return 0
	fi
	modprobe "sch_$1" || die "modprobe sch_$1 failed"
	$TC qdisc replace dev "$dev" root "$@" ||
		die "tc qdisc replace dev $dev root $* failed"
}

# blackhole N: a prio qdisc whose third band, where a u32 filter sends
# UDP to 4791, is a netem that loses all
# blackhole_ready N: the blackhole's qdisc and filter on cable N, its
# netem losing nothing yet, so that arming it is one quick tc command
# (modprobe and three tc commands take seconds under TCG: a transfer may
# be over by then)
blackhole_ready() {
	local dev m

	dev=$(nic "$1")
	for m in sch_prio sch_netem cls_u32; do
		modprobe "$m" || die "modprobe $m failed"
	done
	$TC qdisc del dev "$dev" root 2>/dev/null || true
	if ! $TC qdisc add dev "$dev" root handle 1: prio ||
	   ! $TC qdisc add dev "$dev" parent 1:3 handle 30: netem loss 0% ||
	   ! $TC filter add dev "$dev" parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:3; then
		die "the blackhole's qdisc or filter on $dev failed"
	fi
}

# blackhole N: arm cable N's blackhole, made ready first if it is not
blackhole() {
	local dev

	dev=$(nic "$1")
	! $TC qdisc change dev "$dev" parent 1:3 handle 30: netem loss 100% \
		2>/dev/null || return 0
	blackhole_ready "$1"
	$TC qdisc change dev "$dev" parent 1:3 handle 30: netem loss 100% ||
		die "arming the blackhole on $dev failed"
}

cut() {
	ip link set "$(nic "$1")" down
}

mend() {
	local dev

	dev=$(nic "$1")
	ip link set "$dev" up
	wait_for 10 "$dev up in $BOND" slave_up "$dev"
}

counts() {
	local n s

	for n in "${NICS[@]}"; do
		s=/sys/class/net/$n/statistics
		printf '%s %s %s %s %s\n' "$n" "$(cat "$s/tx_packets")" \
			"$(cat "$s/rx_packets")" "$(cat "$s/tx_bytes")" \
			"$(cat "$s/rx_bytes")"
	done
}

show() {
	local n

	cat "/proc/net/bonding/$BOND" 2>/dev/null || echo "no $BOND"
	for n in "${NICS[@]}"; do
		echo "--- $n"
		ip -s link show "$n"
		$TC -s qdisc show dev "$n"
	done
}

[[ $# -gt 0 ]] || die "usage: mpnet.sh up|down|shape N QDISC...|blackhole-ready N|blackhole N|cut N|mend N|counts|show"
cmd=$1
shift
case $cmd in
up) up ;;
down) down ;;
shape) [[ $# -ge 2 ]] || die "usage: mpnet.sh shape N QDISC..."; shape "$@" ;;
blackhole-ready) [[ $# -eq 1 ]] || die "usage: mpnet.sh blackhole-ready N"; blackhole_ready "$1" ;;
blackhole) [[ $# -eq 1 ]] || die "usage: mpnet.sh blackhole N"; blackhole "$1" ;;
cut) [[ $# -eq 1 ]] || die "usage: mpnet.sh cut N"; cut "$1" ;;
mend) [[ $# -eq 1 ]] || die "usage: mpnet.sh mend N"; mend "$1" ;;
counts) counts ;;
show) show ;;
*) die "unknown subcommand $cmd" ;;
esac
