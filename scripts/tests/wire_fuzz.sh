#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=1800
#
# Wire fuzzing during a verified transfer.  Guest b runs irn_verify's
# server on irn0 and publishes its QP table (debugfs qps); guest a runs
# irn_verify's client against it, over and over, while tools/irn_wirefuzz
# (the C twin of irn_pktgen.py --fuzz: same packet classes, same flags,
# same closing line) sends IRN_WIREFUZZ_COUNT mutated RoCEv2 packets with
# correct ICRCs (mostly) from a's address to b (default 1000000, at most
# IRN_WIREFUZZ_RATE a second, default 5000): every opcode, random and
# live QPNs (live ones only far outside their PSN windows, and never a
# read request, which a correct responder would execute as a
# duplicate), truncated and oversized headers, bad pad counts,
# P_Keys and versions, random IRN bits, IXTHs and SACKs, IRN headers to
# gbn QPs (verify runs alternate between modes auto, i.e. IRN, and gbn).
# The count is a target within a time limit, IRN_WIREFUZZ_SECONDS
# (default 1200 s, times IRN_TIMEOUT_SCALE): a guest too slow to send
# them all in time stops there, and the test logs how many it sent and
# fails only below IRN_WIREFUZZ_MIN (default a fifth of the count).
# Every verify run must pass with every byte checked, b's
# kernel must stay silent, and b's counters must show the packets arrived
# and were dropped or answered.  IRN_WIREFUZZ_SEED repeats a run.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd timeout

VERIFY=$(irn_tool irn_verify)
WIREFUZZ=$(irn_tool irn_wirefuzz)
SEED=${IRN_WIREFUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
PORT=18700
# slower kernels (the debug build) get longer per-run limits
SCALE=${IRN_TIMEOUT_SCALE:-1}
# Budget (timeout=1800 s; the harness and every limit here scale by
# SCALE, 3 on the debug kernel): up to 90 s of setup (link, GID, b's
# first QP table), the fuzzer's time limit FUZZ_SECONDS = 1200 s (its
# timeout wrapper adds 60 s if it hangs), the verify run under way when
# it ends (3 to 10 s) and 60 s for counters, barriers and the dmesg
# check: 90 + 1200 + 60 + 10 + 60 = 1420 s, 380 s to spare.
# A million packets at the RATE cap take 200 s.  The limit still fits
# them if the guests manage only 834 packets/s (278/s on the debug
# kernel: 3600 s there); if sendto() is slower than that, the run ends
# at the limit with what it reached, and fails below MIN, the 200000
# that irn_pktgen.py sent (at some 200/s).  The cap leaves the 1-vCPU
# guests time for the verified transfers; beyond it, the raw socket's
# send buffer holds the fuzzer back when b cannot keep up.
COUNT=${IRN_WIREFUZZ_COUNT:-1000000}
RATE=${IRN_WIREFUZZ_RATE:-5000}
FUZZ_SECONDS=${IRN_WIREFUZZ_SECONDS:-$((1200 * SCALE))}
MIN=${IRN_WIREFUZZ_MIN:-$((COUNT / 5))}
# The flood can stall a guest for longer than 7 retries of the default
# ACK timeout (14: 8 x 67 ms), which fails a transfer with "retry
# exceeded" (seen on the debug kernel): the test is about surviving the
# flood, so the QPs wait 8 x 1.07 s for progress instead.
ACK_TIMEOUT=18
DBG=/sys/kernel/debug/irn/$IRN_DEV

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
irn_link_add
irn_wait_for 10 "$IRN_DEV port 1 ACTIVE" irn_port_state_is "$IRN_DEV" 4
irn_wait_for 10 "a RoCE v2 GID for $IRN_SELF_IP on $IRN_DEV" \
	irn_gid_index "$IRN_DEV" >/dev/null
GIDX=$(irn_gid_index "$IRN_DEV")

counters()
{
	rdma statistic show link "$IRN_DEV/1" | tr -s ' \n' '\n' |
		awk 'NR > 2 && NR % 2 == 1 { n = $0; next } NR > 2 { print n, $0 }'
}

[[ $IRN_ROLE == b ]] && counters >"$IRN_SHARED/before"
# For diagnosis: QP states, counters and the netdev queue's drops every
# second; irn's tracepoints (recovery, retransmissions, rewinds,
# placement), whose tail is kept if the test fails.
(while sleep 1; do
	echo "--- $SECONDS s"
	cat "$DBG/qps"
	counters | tr '\n' ' '
	echo
	/usr/sbin/tc -s qdisc show dev "$IRN_NETDEV" | grep -m1 dropped
done) >"$IRN_OUT/qps-history.txt" 2>&1 &
irn_defer kill $!
irn_trace_irn
irn_barrier start
run=0
stop=0
fuzz_pid=
# a bound for a fuzzer that never ends: it stops within FUZZ_SECONDS,
# and runs take 3 to 10 s
MAX_RUNS=$((8 + FUZZ_SECONDS / 3))
while ((stop == 0 && run < MAX_RUNS)); do
	run=$((run + 1))
	log=$IRN_OUT/verify-$run.log
	rc=0
	if ((run % 2)); then echo auto >"$DBG/mode"; else echo gbn >"$DBG/mode"; fi
	if [[ $IRN_ROLE == b ]]; then
		# the QP table the fuzzer aims with, refreshed while verify runs
		(while sleep 0.5; do
			cp "$DBG/qps" "$IRN_SHARED/qps.tmp" &&
				mv "$IRN_SHARED/qps.tmp" "$IRN_SHARED/qps"
		done) &
		dumper=$!
		timeout -k 5 $((300 * SCALE)) "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" --ack-timeout "$ACK_TIMEOUT" >"$log" 2>&1 || rc=$?
		kill "$dumper" 2>/dev/null
		wait "$dumper" 2>/dev/null || true
		[[ $rc -eq 0 ]] || echo fail >"$IRN_SHARED/stop.$run"
	else
		if [[ -z $fuzz_pid ]]; then
			(sleep 3
			 irn_wait_for 30 "QPs in b's QP table" \
				grep -q '^ *[0-9]' "$IRN_SHARED/qps"
			 timeout -k 5 $((FUZZ_SECONDS + 60)) "$WIREFUZZ" \
				--fuzz "$COUNT" --dst "$IRN_PEER_IP" \
				--targets "$IRN_SHARED/qps" --seed "$SEED" \
				--pace 64 --rate "$RATE" \
				--time-limit "$FUZZ_SECONDS" -v) >"$IRN_OUT/fuzz.log" 2>&1 &
			fuzz_pid=$!
		fi
		timeout -k 5 $((300 * SCALE)) "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" -t rc --data-only -n 2 --ack-timeout "$ACK_TIMEOUT" \
			--timeout $((120 * SCALE)) "$IRN_PEER_IP" >"$log" 2>&1 || rc=$?
		[[ $rc -eq 0 ]] || {
			grep -E '^(FAIL|# )' "$log" | head -20 || true
			echo fail >"$IRN_SHARED/stop.$run"
		}
		kill -0 "$fuzz_pid" 2>/dev/null || echo "done" >>"$IRN_SHARED/stop.$run"
	fi
	irn_barrier "run-$run"
	[[ ! -e $IRN_SHARED/stop.$run ]] || stop=1
	if [[ $IRN_ROLE == a && $rc -ne 0 ]]; then
		irn_fail "irn_verify run $run failed (exit $rc) during fuzzing, seed $SEED; see $log"
	fi
	! grep -q fail "$IRN_SHARED/stop.$run" 2>/dev/null ||
		irn_fail "irn_verify run $run failed (seed $SEED); see both guests' verify-$run.log"
done
if [[ $IRN_ROLE == a ]]; then
	[[ $stop == 1 ]] || irn_fail "the fuzzer outlasted $MAX_RUNS verify runs"
	wait "$fuzz_pid" || irn_fail "the fuzzer failed: $(tail -n 3 "$IRN_OUT/fuzz.log")"
	cat "$IRN_OUT/fuzz.log"
	sent=$(sed -n 's/.*fuzz sent \([0-9]*\) packets.*/\1/p' "$IRN_OUT/fuzz.log")
	[[ -n $sent ]] || irn_fail "the fuzzer printed no summary"
	irn_put fuzz_sent "$sent"
	if ((sent < COUNT)); then
		grep -q "time limit of .* reached" "$IRN_OUT/fuzz.log" ||
			irn_fail "the fuzzer did not send $COUNT packets"
		((sent >= MIN)) ||
			irn_fail "the fuzzer sent only $sent packets in ${FUZZ_SECONDS}s, fewer than $MIN"
		irn_log "info: the fuzzer reached $sent of $COUNT packets in its ${FUZZ_SECONDS}s"
	else
		grep -q "fuzz sent $COUNT packets" "$IRN_OUT/fuzz.log" ||
			irn_fail "the fuzzer did not send $COUNT packets"
	fi
	grep -q "up to [1-9][0-9]* live QP targets" "$IRN_OUT/fuzz.log" ||
		irn_fail "the fuzzer never saw a live QP of b to aim at"
	irn_log "$run verify runs passed while $sent packets were fuzzed ($(grep -o '[0-9]* packets/s' "$IRN_OUT/fuzz.log"), seed $SEED)"
fi
# b reads its counters once the fuzzer has ended and a has told the count
irn_barrier fuzzed
if [[ $IRN_ROLE == b ]]; then
	sent=$(irn_get fuzz_sent)
	counters >"$IRN_SHARED/after"
	join "$IRN_SHARED/before" "$IRN_SHARED/after" |
		awk '$3 != $2 { printf "%s +%d\n", $1, $3 - $2 }' | tee "$IRN_OUT/counters.txt"
	rcvd=$(awk '$1 == "rcvd_pkts" { sub(/\+/, "", $2); print $2 }' "$IRN_OUT/counters.txt")
	((${rcvd:-0} >= sent / 2)) ||
		irn_fail "only ${rcvd:-0} packets reached irn for $sent fuzzed"
fi
irn_barrier end
irn_dmesg_check "wire fuzzing"
irn_log "PASS"
