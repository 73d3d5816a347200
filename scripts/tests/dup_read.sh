#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=300 ci=180 debug-full
#
# A replayed READ request buys nothing.  A duplicate RDMA READ request is
# answered only from the responder's resources, the last reads it
# executed (IBTA 9.7.5.1.4); anything else is dropped and counted
# (duplicate_reads_dropped).  Otherwise one 60-byte packet from the peer
# buys a whole read's worth of responses, as often as it is sent.
#
#   guest b: ib_read_bw server (the responder), 64 KiB reads
#   guest a: ib_read_bw client, held still once reads flow
#            (irn_held_start in lib.sh); a then sends IRN_DUP_READ_COUNT
#            (default 50) READ requests to b's QP from its own address,
#            with the PSN of the client's first read and a RETH of 64 KiB
#            at b's buffer (the key and address perftest printed):
#            duplicates that no kept resource holds.  Then the client goes
#            on and must finish.
#
# Pass: b's duplicate_reads_dropped grows by the count, b sends fewer
# packets than it got replays (a replay answered is 64 response packets),
# both perftest sides exit 0 and the kernels stay silent.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
[[ $IRN_DRIVER == irn ]] || irn_skip "duplicate reads: irn's responder resources"

N=${IRN_DUP_READ_COUNT:-50}
SIZE=65536
COUNTERS=(sent_pkts rcvd_pkts duplicate_requests duplicate_reads_dropped)

irn_dev_up
irn_barrier devs-up
irn_held_start ib_read_bw "$SIZE" 18900
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/before.$IRN_ROLE"
irn_barrier snapped
if [[ $IRN_ROLE == a ]]; then
	"$(irn_python)" "$(irn_tool irn_pktgen.py)" --case read \
		--dst "$IRN_PEER_IP" --qpn "$HELD_QPN" --psn "$HELD_PSN" \
		--psn-step 0 --va "$HELD_VA" --rkey "$HELD_RKEY" --len "$SIZE" \
		--count "$N" --interval 0.01 >"$IRN_OUT/pktgen.log" 2>&1 ||
		irn_fail "irn_pktgen.py failed: $(tail -n 2 "$IRN_OUT/pktgen.log")"
	sleep 2		# what the replays bought, if anything, goes out
fi
irn_barrier replayed
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/after.$IRN_ROLE"
irn_barrier counted
failed=()
irn_held_end resume || failed+=("ib_read_bw failed on $IRN_ROLE after the replays")
irn_dmesg_check "dup_read"
if [[ $IRN_ROLE == a ]]; then
	irn_growth
	dropped=${IRN_GREW[b.duplicate_reads_dropped]}
	sent=${IRN_GREW[b.sent_pkts]}
	irn_log "b, while the client was held: rcvd_pkts +${IRN_GREW[b.rcvd_pkts]}, duplicate_requests +${IRN_GREW[b.duplicate_requests]}, duplicate_reads_dropped +$dropped, sent_pkts +$sent"
	((dropped == N)) ||
		failed+=("duplicate_reads_dropped grew by $dropped, expected $N")
	((sent < N)) ||
		failed+=("b sent $sent packets for $N replayed reads: the replays were answered")
fi
[[ ${#failed[@]} -eq 0 ]] || irn_fail "$(printf '%s; ' "${failed[@]}")"
irn_log "PASS"
