#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=300 ci=180 debug-full
#
# A peer that mixes IRN and plain RoCEv2 requests on one QP leaves nothing
# stale in the receive window.  The window keeps a bit per PSN modulo its
# size (1024); when the expected PSN moves over a placed PSN, whatever
# moved it, the bit must go, or the PSN one window later is taken for a
# duplicate and dropped.
#
#   guest b: ib_write_bw server; its QP is an IRN responder (auto mode)
#   guest a: ib_write_bw client, held still (irn_held_start in lib.sh);
#            with b's expected PSN E (b's debugfs), a sends WRITE ONLYs of
#            16 bytes into b's buffer:
#              1. IRN (IXTH) at E+1: placed out of order
#              2. plain at E, then E+1 to E+1022: in order, the expected
#                 PSN moves over E+1 without the IRN path
#              3. IRN at E+1025 (two ahead of E+1023): E+1's slot
#            then kills the client, whose QP the crafted PSNs left out
#            of step.
#
# Pass: b's expected PSN is E+1023 after step 2, b placed exactly two
# packets out of order (ooo_placed), saw no IRN duplicate (irn_duplicates)
# and dropped nothing for the window (ooo_dropped), and the kernels stay
# silent while the QPs are destroyed with a packet still placed.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
[[ $IRN_DRIVER == irn ]] || irn_skip "IRN's receive window"

WIN=1024
COUNTERS=(ooo_placed ooo_dropped irn_duplicates rcvd_pkts)

irn_dev_up
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
irn_barrier devs-up
irn_held_start ib_write_bw 1024 18950
if [[ $IRN_ROLE == b ]]; then
	qpn=$(irn_get held-qpn)
	irn_put epsn "$(irn_held_epsn "$qpn")"
fi
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/before.$IRN_ROLE"
irn_barrier snapped

# send PSN N [ARGS]: N WRITE ONLYs to b's held QP from PSN on
send()
{
	"$PY" "$PKTGEN" --case write --dst "$IRN_PEER_IP" --qpn "$HELD_QPN" \
		--va "$HELD_VA" --rkey "$HELD_RKEY" --len 16 --psn "$(($1 & 0xffffff))" \
		--count "$2" --interval 0.0005 "${@:3}" >>"$IRN_OUT/pktgen.log" 2>&1 ||
		irn_fail "irn_pktgen.py failed: $(tail -n 2 "$IRN_OUT/pktgen.log")"
}

if [[ $IRN_ROLE == a ]]; then
	PY=$(irn_python) PKTGEN=$(irn_tool irn_pktgen.py)
	e=$(irn_get epsn)
	irn_log "b's QP $HELD_QPN expects PSN $e"
	send $((e + 1)) 1 --irn
	send "$e" $((WIN - 1))
	sleep 1
	irn_put moved yes
	irn_get epsn-moved >/dev/null
	send $((e + WIN + 1)) 1 --irn
	sleep 1
else
	irn_get moved >/dev/null
	e=$(irn_get epsn)
	now=$(irn_held_epsn "$qpn")
	irn_put epsn-moved "$now"
fi
irn_barrier sent
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/after.$IRN_ROLE"
irn_barrier counted
irn_held_end kill
irn_link_del "$IRN_DEV"
irn_dmesg_check "mixed_irn"
if [[ $IRN_ROLE == a ]]; then
	irn_growth
	now=$(irn_get epsn-moved)
	placed=${IRN_GREW[b.ooo_placed]} dups=${IRN_GREW[b.irn_duplicates]}
	outside=${IRN_GREW[b.ooo_dropped]}
	irn_log "b: expected PSN $e, then $now after the plain requests; ooo_placed +$placed, irn_duplicates +$dups, ooo_dropped +$outside, rcvd_pkts +${IRN_GREW[b.rcvd_pkts]}"
	failed=()
	((now == ((e + WIN - 1) & 0xffffff))) ||
		failed+=("b expects PSN $now after the plain requests, not $(((e + WIN - 1) & 0xffffff))")
	((placed == 2)) ||
		failed+=("b placed $placed requests out of order, expected 2")
	((dups == 0)) ||
		failed+=("b took $dups new requests for duplicates: a stale window bit")
	((outside == 0)) ||
		failed+=("b dropped $outside requests out of its window")
	[[ ${#failed[@]} -eq 0 ]] || irn_fail "$(printf '%s; ' "${failed[@]}")"
fi
irn_log "PASS"
