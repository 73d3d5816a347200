#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=300 ci=300 debug
#
# Malformed RoCEv2 packets are dropped and counted, and the guest survives.
#
#   guest a: irn0 on eth0, reads the counters
#   guest b: no RDMA device; sends crafted packets to a with
#            tools/irn_pktgen.py (raw IPv4 socket, correct ICRC unless the
#            case is about the ICRC)
#
# For each case b sends N packets (IRN_MALFORMED_COUNT, default 100) and a
# checks that exactly the expected drop counter grew by N and every other
# drop counter stayed put.  Counters (rdma statistic show link irn0/1,
# /sys/class/infiniband/irn0/ports/1/hw_counters/):
#
#   case             what b sends                         expected counter
#   truncated        BTH only, no ICRC (12 B UDP payload)  rcvd_drop_truncated
#   bad-length       UDP length 20 < datagram: the stack   rcvd_drop_truncated
#                    trims it to a BTH without ICRC
#   bad-pad          SEND_ONLY, no payload, PadCnt 3       rcvd_drop_truncated
#   bad-version      BTH TVer 1                            rcvd_drop_bad_version
#   bad-opcode       opcode 0x1f (reserved)                rcvd_drop_bad_opcode
#   bad-icrc         good SEND_ONLY, one ICRC bit flipped  rcvd_drop_bad_icrc
#   unknown-qpn      good SEND_ONLY to QPN 0xabcde         rcvd_drop_unknown_qpn
#   valid            good SEND_ONLY to QPN 0x11 (no QPs    rcvd_drop_unknown_qpn
#                    exist yet)
#   bad-length-long  UDP length > datagram                 none: the UDP stack
#                                                          drops it (Udp
#                                                          InErrors += N)
#   cnp              CNP (opcode 0x81) to QPN 0x11         rcvd_drop_unknown_qpn
#   cnp-short        CNP without its 16 reserved bytes     rcvd_drop_bad_length
#   bad-dgid         good SEND_ONLY to the subnet          rcvd_drop_bad_dgid
#                    broadcast address (not a GID);
#                    run only if the device has that counter
#
# Counters the device has beyond these (rcvd_drop_bad_length,
# rcvd_drop_bad_header, rcvd_drop_bad_dgid) must stay put in every case
# that does not name them.
# The malformed cases go to QPN 0x11, which does not exist either: this
# relies on the receive path checking lengths, version, opcode and ICRC
# before it looks up the destination QP.
#
# rcvd_pkts may count every packet handed over by the UDP tunnel or only
# accepted ones; the test accepts a growth of N or 0 per case and reports
# which.
#
# With IRN_DRIVER=rxe (stock rdma_rxe has other counters) only the sender is
# validated: b sends valid-ud packets (UD SEND_ONLY to the GSI QP 1) and a
# checks that rxe's rcvd_pkts grew by N, i.e. rxe accepted their ICRC; then
# the same with a corrupted ICRC, which rxe must not count.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared

N=${IRN_MALFORMED_COUNT:-100}
OPTIONAL_COUNTERS=()
DEV=$IRN_DEV
DROP_COUNTERS=(rcvd_drop_truncated rcvd_drop_bad_version rcvd_drop_bad_opcode
	rcvd_drop_bad_icrc rcvd_drop_unknown_qpn)
if [[ $IRN_DRIVER == rxe ]]; then
	CASES=(valid-ud valid-ud-bad-icrc)
	declare -A EXPECT=([valid-ud]=rcvd_pkts [valid-ud-bad-icrc]=nothing)
	declare -A ARGS=([valid-ud]="--case valid-ud --qpn 1"
		[valid-ud-bad-icrc]="--case valid-ud --qpn 1 --icrc-xor 1")
	DROP_COUNTERS=()
else
	CASES=(truncated bad-length bad-pad bad-version bad-opcode bad-icrc
		unknown-qpn valid bad-length-long cnp cnp-short)
	declare -A EXPECT=(
		[truncated]=rcvd_drop_truncated
		[bad-length]=rcvd_drop_truncated
		[bad-pad]=rcvd_drop_truncated
		[bad-version]=rcvd_drop_bad_version
		[bad-opcode]=rcvd_drop_bad_opcode
		[bad-icrc]=rcvd_drop_bad_icrc
		[unknown-qpn]=rcvd_drop_unknown_qpn
		[valid]=rcvd_drop_unknown_qpn
		[bad-length-long]=none
		[cnp]=rcvd_drop_unknown_qpn
		[cnp-short]=rcvd_drop_bad_length
	)
	declare -A ARGS=([bad-dgid]="--case valid --qpn 0x11 --broadcast")
	OPTIONAL_COUNTERS=(rcvd_drop_bad_length rcvd_drop_bad_header
		rcvd_drop_bad_dgid)
fi

# The counters are read with bash alone: a fork costs a quarter of a
# second on the debug kernel, and a case reads a dozen of them.

# read_counter VAR NAME: counter NAME of $DEV (or udp_in_errors, Udp
# InErrors of /proc/net/snmp) into VAR.
# shellcheck disable=SC2034 # VAR is the caller's, through a nameref
read_counter()
{
	local -n into=$1
	local tag line i names=() values=()

	into=
	if [[ $2 == udp_in_errors ]]; then
		while read -r tag line; do
			[[ $tag == Udp: ]] || continue
			if [[ ${#names[@]} -eq 0 ]]; then
				read -r -a names <<<"$line"
			else
				read -r -a values <<<"$line"
			fi
		done </proc/net/snmp
		for i in "${!names[@]}"; do
			[[ ${names[$i]} != InErrors ]] || into=${values[$i]}
		done
		[[ -n $into ]] || irn_fail "no Udp InErrors in /proc/net/snmp"
	else
		irn_read_counter into "$DEV" "$2"
	fi
}

# shellcheck disable=SC2034 # a nameref: the caller's array is set
snapshot()
{
	local -n snap=$1
	local c v

	for c in rcvd_pkts "${DROP_COUNTERS[@]}" udp_in_errors; do
		read_counter v "$c"
		snap["$c"]=$v
	done
}

# Wait until counter $2 grew by $3 from $1's value (or 10 s passed).
wait_growth()
{
	local -n base=$1
	local c=$2 want=$3 i now

	if [[ $c == nothing ]]; then
		sleep 3
		return 0
	fi
	[[ $c != none ]] || c=udp_in_errors
	for ((i = 0; i < 100; i++)); do
		read_counter now "$c"
		(((now - base["$c"]) < want)) || break
		sleep 0.1
	done
	# let stragglers land before the exact comparison
	sleep 0.5
}

receiver()
{
	local case c d exp
	local -A before after

	irn_require_cmd ping
	irn_link_add "$DEV" "$IRN_NETDEV"
	irn_wait_for 10 "$DEV port ACTIVE" irn_port_state_is "$DEV" 4
	for c in "${OPTIONAL_COUNTERS[@]}"; do
		[[ -e /sys/class/infiniband/$DEV/ports/1/hw_counters/$c ]] ||
			continue
		DROP_COUNTERS+=("$c")
		if [[ $c == rcvd_drop_bad_dgid ]]; then
			CASES+=(bad-dgid)
			EXPECT[bad-dgid]=rcvd_drop_bad_dgid
		fi
	done
	irn_put cases "${CASES[*]}"
	if command -v tcpdump >/dev/null; then
		tcpdump -i "$IRN_NETDEV" -nn -U -w "$IRN_OUT/malformed-rx.pcap" \
			udp port "$IRN_RDMA_PORT" >"$IRN_OUT/tcpdump.log" 2>&1 &
		irn_defer kill $!
		sleep 1
	fi
	irn_log "counters at start: $(rdma statistic show link "$DEV/1" 2>&1)"
	for case in "${CASES[@]}"; do
		exp=${EXPECT[$case]}
		before=()
		after=()
		snapshot before
		irn_barrier "ready-$case"
		irn_barrier "sent-$case" 300
		wait_growth before "$exp" "$N"
		snapshot after
		for c in "${!after[@]}"; do
			d=$((after[$c] - before[$c]))
			case $c in
			"$exp")
				[[ $d -eq $N ]] ||
					irn_fail "case $case: $c grew by $d, expected $N (rx capture: $(npkts))"
				;;
			rcvd_pkts)
				if [[ $exp == nothing ]]; then
					[[ $d -eq 0 ]] ||
						irn_fail "case $case: rcvd_pkts grew by $d, expected 0"
					continue
				fi
				[[ $d -eq $N || $d -eq 0 ]] ||
					irn_fail "case $case: rcvd_pkts grew by $d, expected $N (counts all) or 0 (counts accepted only)"
				;;
			udp_in_errors)
				if [[ $exp == none ]]; then
					[[ $d -ge $N ]] ||
						irn_fail "case $case: Udp InErrors grew by $d, expected $N"
				fi
				;;
			*)
				[[ $d -eq 0 ]] ||
					irn_fail "case $case: $c grew by $d, expected 0 (expected counter: $exp)"
				;;
			esac
		done
		case $exp in
		nothing) exp="no counter +0" ;;
		none) exp="Udp InErrors +$N" ;;
		*) exp="$exp +$N" ;;
		esac
		irn_log "ok: case $case: $exp; rcvd_pkts +$((after[rcvd_pkts] - before[rcvd_pkts])); other drop counters unchanged"
	done
	irn_log "counters at end: $(rdma statistic show link "$DEV/1" 2>&1)"
	irn_barrier finished
	ping -c 3 -W 2 "$IRN_PEER_IP" >/dev/null ||
		irn_fail "cannot ping $IRN_PEER_IP after the malformed packets"
	[[ -d /sys/class/infiniband/$DEV ]] || irn_fail "$DEV disappeared"
	irn_wait_for 5 "$DEV port still ACTIVE" irn_port_state_is "$DEV" 4
	irn_dmesg_check "after malformed packets"
	irn_link_del "$DEV"
	irn_log "PASS"
}

npkts()
{
	if [[ -s $IRN_OUT/malformed-rx.pcap ]]; then
		echo "$(tcpdump -r "$IRN_OUT/malformed-rx.pcap" -nn 2>/dev/null | wc -l) packets to port $IRN_RDMA_PORT captured in total"
	else
		echo "no capture"
	fi
}

# The directed broadcast address of IRN_SELF_IP's subnet on IRN_NETDEV.
subnet_broadcast()
{
	local cidr a b c d len ip mask

	cidr=$(ip -4 -o addr show dev "$IRN_NETDEV" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "inet") { print $(i + 1); exit } }')
	[[ $cidr == */* ]] || return 1
	len=${cidr#*/}
	IFS=. read -r a b c d <<<"${cidr%/*}"
	ip=$(((a << 24) | (b << 16) | (c << 8) | d))
	mask=$(((0xffffffff << (32 - len)) & 0xffffffff))
	ip=$(((ip & mask) | (~mask & 0xffffffff)))
	echo "$((ip >> 24 & 255)).$((ip >> 16 & 255)).$((ip >> 8 & 255)).$((ip & 255))"
}

sender()
{
	local case py gen out args dst bcast fd

	py=$(irn_python)
	gen=$(irn_tool irn_pktgen.py)
	ping -c 3 -W 2 "$IRN_PEER_IP" >/dev/null ||
		irn_fail "cannot ping $IRN_PEER_IP before sending"
	# one Python for every case: a line of options in, a report out
	coproc GEN { "$py" "$gen" --stdin 2>&1; }
	# the receiver decides which cases run (some depend on its counters)
	read -r -a CASES <<<"$(irn_get cases)"
	for case in "${CASES[@]}"; do
		irn_barrier "ready-$case"
		args=${ARGS[$case]:-"--case $case --qpn 0x11"}
		dst=$IRN_PEER_IP
		if [[ $case == bad-dgid ]]; then
			bcast=$(subnet_broadcast) ||
				irn_fail "no IPv4 address on $IRN_NETDEV to derive a broadcast address from"
			dst=$bcast
		fi
		printf '%s --count %s --dst %s\n' "$args" "$N" "$dst" >&"${GEN[1]}"
		out=''
		read -r -t 120 out <&"${GEN[0]}" || true
		[[ $out == 'irn_pktgen: sent '* ]] ||
			irn_fail "irn_pktgen --case $case failed: $out"
		irn_log "$out"
		irn_barrier "sent-$case"
	done
	fd=${GEN[1]}
	exec {fd}>&-
	wait "$GEN_PID" || irn_fail "irn_pktgen --stdin exited with $?"
	irn_barrier finished
	ping -c 3 -W 2 "$IRN_PEER_IP" >/dev/null ||
		irn_fail "cannot ping $IRN_PEER_IP after sending"
	irn_log "PASS (sender)"
}

if [[ $IRN_ROLE == a ]]; then
	receiver
else
	sender
fi
