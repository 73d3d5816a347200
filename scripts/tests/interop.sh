#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=900 ci=600 6.12
#
# Interoperability with stock rdma_rxe: guest a runs stock rdma_rxe
# (rxe0), guest b runs irn (irn0).  Every case runs in both directions:
# server on b (irn is the server: the responder for perftest, the
# requester of rping's RDMA READ/WRITE) and server on a (irn is the
# client: the requester for perftest).
#
#   ibv_rc_pingpong -c -s 4096   (-c: the server checks the first byte of
#                                 each page it received)
#   ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw
#   rping -v -V -C 10            (rdma_cm; -V: the client checks the echo)
#
# A case passes only if both sides exit 0 and both outputs pass their
# check: ibv_rc_pingpong's "iters in" line and no "invalid data";
# irn_perftest's (lib.sh); every ping of rping on the client, and on the
# server each buffer it read exactly as rping's client fills it.
#
# interop_loss.sh sources this file with IRN_INTEROP_LOSS=1%: netem drops
# that share of the packets leaving each guest's eth0, and go-back-N must
# recover (bigger runs, longer timeouts).
# With IRN_DRIVER=rxe both guests run stock rdma_rxe.
set -euo pipefail
if [[ ${IRN_DRIVER:-irn} == irn ]]; then
	[[ ${IRN_ROLE:-a} == a ]] && IRN_DRIVER=rxe || IRN_DRIVER=irn
fi
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ibv_rc_pingpong ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw rping ss

LOSS=${IRN_INTEROP_LOSS:-}
if [[ -n $LOSS ]]; then
	TC=/usr/sbin/tc
	modprobe sch_netem || irn_fail "modprobe sch_netem failed"
	# pingpong, perftest and rping sizes and limits under loss
	PP="-s 4096 -n 200" BW="-s 65536 -n 200" AT="-n 200" RP=20 T=300
	# the one server failure a lossy run may show that is no fault: the
	# ACK of its last send lost after the client exited (lib.sh,
	# _irn_case_tail).  That server never checks its data, so the case
	# runs once more and fails if it happens again.  wr_id 2 is
	# ibv_rc_pingpong's send, and N in "parse WC failed N" the
	# completions of one poll
	PP_TAIL='^Failed status transport retry counter exceeded \(12\) for wr_id 2$|^parse WC failed [12]$'
else
	PP="-s 4096 -n 50" BW="-n 100" AT="-n 100" RP=10 T=90 PP_TAIL=
fi

irn_dev_up
irn_barrier devs-up
if [[ -n $LOSS ]]; then
	$TC qdisc add dev "$IRN_NETDEV" root netem loss "$LOSS" ||
		irn_fail "tc qdisc add dev $IRN_NETDEV root netem loss $LOSS failed"
	irn_defer $TC qdisc del dev "$IRN_NETDEV" root
	irn_log "netem: $($TC qdisc show dev "$IRN_NETDEV")"
	irn_barrier netem-up
fi

# The driver of the guest that runs the server, for the case names.
irn_put "drv.$IRN_ROLE" "$IRN_DRIVER"
irn_get_drv() { irn_get "drv.$1" 30; }
DA=$(irn_get_drv a) DB=$(irn_get_drv b)

# rping -s -v prints each buffer the server read from the client: ping K
# is "rdma-ping-K: " and then rping's pattern (rping.c, rping_test_client:
# characters from 65 + K % 58 up, 122 wrapping to 65) up to the default
# 64-byte size less the NUL.  All IRN_RPING_COUNT pings, in order, intact.
interop_check_rping_server()
{
	awk -v want="${IRN_RPING_COUNT:-10}" -v n=0 '
	/^server ping data: / {
		line = substr($0, 19)
		good = "rdma-ping-" n ": "
		for (c = 65 + n % 58; length(good) < 63; c = (c == 122 ? 65 : c + 1))
			good = good sprintf("%c", c)
		if (line != good) {
			printf "ping %d read as \"%s\", sent as \"%s\"\n", n, line, good
			bad = 1
			exit
		}
		n++
	}
	END {
		if (bad)
			exit 1
		if (n != want) {
			printf "the server read %d pings, expected %d\n", n, want
			exit 1
		}
	}' "$1"
}

for srole in b a; do
	if [[ $srole == b ]]; then
		srv=10.77.0.2 dir="server $DB, client $DA"
	else
		srv=10.77.0.1 dir="server $DA, client $DB"
	fi
	IRN_CASE_TAIL=$PP_TAIL irn_case "ibv_rc_pingpong -c $PP ($dir)" $srole $T tcp \
		"ibv_rc_pingpong -p \$PORT -d $IRN_DEV -g $IRN_GIDX -c $PP" \
		"ibv_rc_pingpong -p \$PORT -d $IRN_DEV -g $IRN_GIDX -c $PP $srv" \
		irn_check_pingpong irn_check_pingpong
	export IRN_PERFTEST_SROLE=$srole
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		# shellcheck disable=SC2086
		irn_perftest "($dir)" $T $tool $BW
	done
	# shellcheck disable=SC2086
	irn_perftest "($dir)" $T ib_atomic_bw $AT
	IRN_RPING_COUNT=$RP irn_case "rping -v -V -C $RP ($dir)" $srole $T cm \
		"rping -s -a $srv -p \$PORT -v -C $RP" \
		"rping -c -a $srv -p \$PORT -v -V -C $RP" irn_check_rping \
		interop_check_rping_server
done

irn_log "counters of $IRN_DEV at the end:"
rdma statistic show link "$IRN_DEV/1" | tee "$IRN_OUT/counters-end.txt" || true
[[ -z $LOSS ]] || $TC -s qdisc show dev "$IRN_NETDEV" || true
# irn in auto mode must have stayed standard RoCEv2 with the stock peer.
if [[ $IRN_DRIVER == irn && $IRN_DEV != rxe* ]] &&
	grep -q irn_qps "$IRN_OUT/counters-end.txt"; then
	n=$(tr -s ' \n' '\n' <"$IRN_OUT/counters-end.txt" |
		grep -A1 -x irn_qps | tail -n1)
	IRN_CASE_N=$((IRN_CASE_N + 1))
	if [[ $n != 0 ]]; then
		irn_log "FAIL: $n QPs turned IRN on against stock rxe"
		IRN_CASE_NFAIL=$((IRN_CASE_NFAIL + 1))
	else
		irn_log "ok: no QP turned IRN on against stock rxe (auto fell back)"
	fi
fi
irn_cases_finish
