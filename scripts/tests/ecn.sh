#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=600 ci=300 debug-full
#
# ECN and CNPs as DCQCN hardware does them.  Guest a's egress is a
# bottleneck that marks rather than drops: HTB at IRN_ECN_RATE (default
# 20mbit, well under what a QP sends under QEMU TCG) feeding fq_codel with
# ecn and ce_threshold 2ms, so RoCE packets that queue behind it leave
# marked CE if they said they were ECN-capable.  irn_verify's RC data
# checks run from a to b once per congestion control of a's QPs:
#
#   dcqcn  a's requests are ECT(0); fq_codel marks them; b answers with
#          CNPs (rcvd_ecn_marked and cnp_sent grow on b); a's rate goes
#          down (cnp_rcvd and rate_cuts grow on a)
#   none   a's requests are not ECN-capable: fq_codel drops instead of
#          marking, b sends no CNP, a cuts nothing, and IRN recovers what
#          was dropped
#
# b's QPs have no congestion control in either run.  Then DCQCN's pacing
# alone: a's QPs run dcqcn with max_kbps 4000 (the bottleneck, five times
# wider, never marks), and ib_write_bw -D 4 from a to b must move at most
# 6000 kbit/s of payload, by a's sent_pkts over the client's run (the
# none run above moves some 20000 through the same bottleneck).  Last,
# reads: b runs ib_read_bw -D 4 against a, whose QPs run dcqcn, so a's
# read responses cross the bottleneck: they must be ECN-capable and
# marked, b must answer them with CNPs and a must cut its rate.
#
# Pass: irn_verify passes both runs on both guests, the counters move as
# above, and the paced transfer stays under its ceiling.
#
#   IRN_ECN_RATE  the bottleneck's rate (tc's units, default 20mbit)
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd timeout
[[ $IRN_DRIVER == irn ]] || irn_skip "ECN and CNPs: irn's congestion control"

VERIFY=$(irn_tool irn_verify)
RATE=${IRN_ECN_RATE:-20mbit}
PORT=18700
DBG=/sys/kernel/debug/irn/$IRN_DEV
TC=/usr/sbin/tc
COUNTERS=(rcvd_ecn_marked cnp_sent cnp_rcvd rate_cuts)

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
irn_dev_up
GIDX=$IRN_GIDX
[[ -w $DBG/cc ]] || irn_fail "$DBG/cc missing: no congestion control knob"

if [[ $IRN_ROLE == a ]]; then
	modprobe -a sch_htb sch_fq_codel ||
		irn_fail "modprobe sch_htb sch_fq_codel failed"
	irn_defer "$TC" qdisc del dev "$IRN_NETDEV" root
	"$TC" qdisc replace dev "$IRN_NETDEV" root handle 1: htb default 1 ||
		irn_fail "tc: no htb on $IRN_NETDEV"
	"$TC" class add dev "$IRN_NETDEV" parent 1: classid 1:1 htb \
		rate "$RATE" || irn_fail "tc: no htb class at $RATE"
	"$TC" qdisc add dev "$IRN_NETDEV" parent 1:1 handle 10: \
		fq_codel ecn ce_threshold 2ms || irn_fail "tc: no fq_codel"
	irn_log "bottleneck: $("$TC" qdisc show dev "$IRN_NETDEV" | tr '\n' ';')"
fi

failed=()
run=0
for cc in dcqcn none; do
	run=$((run + 1))
	log=$IRN_OUT/verify-$cc.log
	mine=none
	[[ $IRN_ROLE != a ]] || mine=$cc
	echo "$mine" >"$DBG/cc" || irn_fail "cannot set $DBG/cc to $mine"
	irn_barrier "start-$run"
	irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/before.$IRN_ROLE"
	irn_barrier "snap-$run"
	rc=0
	if [[ $IRN_ROLE == b ]]; then
		timeout -k 5 310 "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" >"$log" 2>&1 || rc=$?
	else
		# where the QPs' rates stand, every second
		while sleep 1; do
			cat "$DBG/qps"
		done >"$IRN_OUT/qps-$cc.txt" 2>&1 &
		sampler=$!
		timeout -k 5 300 "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" -t rc --data-only -n 2 \
			--timeout 120 "$IRN_PEER_IP" >"$log" 2>&1 || rc=$?
		kill "$sampler"
		"$TC" -s qdisc show dev "$IRN_NETDEV" >"$IRN_OUT/tc-$cc.txt"
	fi
	irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/after.$IRN_ROLE"
	irn_barrier "done-$run"
	if [[ $rc -ne 0 ]]; then
		grep -E '^(FAIL|# )' "$log" | head -20 || true
		failed+=("$cc: irn_verify exited with $rc")
	fi
	if [[ $IRN_ROLE == a ]]; then
		irn_growth
		marked=${IRN_GREW[b.rcvd_ecn_marked]}
		sent=${IRN_GREW[b.cnp_sent]}
		rcvd=${IRN_GREW[a.cnp_rcvd]} cuts=${IRN_GREW[a.rate_cuts]}
		irn_log "$cc: b rcvd_ecn_marked +$marked cnp_sent +$sent; a cnp_rcvd +$rcvd rate_cuts +$cuts; fq_codel so far: $(grep -Eo 'Sent [0-9]+ bytes [0-9]+ pkt|dropped [0-9]+|ce_mark [0-9]+' "$IRN_OUT/tc-$cc.txt" | tail -n 3 | tr '\n' ' ')"
		if [[ $cc == dcqcn ]]; then
			((marked > 0 && sent > 0 && rcvd > 0 && cuts > 0)) ||
				failed+=("dcqcn: marks, CNPs or rate cuts missing")
			((rcvd <= sent)) ||
				failed+=("dcqcn: a received $rcvd CNPs, b sent $sent")
		else
			((marked == 0 && sent == 0 && rcvd == 0 && cuts == 0)) ||
				failed+=("none: packets marked or CNPs sent without ECN-capable requests")
		fi
	fi
	irn_barrier "end-$run"
done
# DCQCN's pacing, at a rate the bottleneck never reaches.
run=$((run + 1))
paced_port=$((PORT + run))
if [[ $IRN_ROLE == a ]]; then
	echo dcqcn >"$DBG/cc"
	echo 4000 >"$DBG/dcqcn/max_kbps"
fi
irn_barrier "start-$run"
if [[ $IRN_ROLE == b ]]; then
	timeout -k 5 60 ib_write_bw -d "$IRN_DEV" -x "$GIDX" -p "$paced_port" -F \
		-D 4 -s 65536 >"$IRN_OUT/paced-server.log" 2>&1 ||
		failed+=("paced: the ib_write_bw server failed")
else
	sleep 2
	pkts0=0 pkts1=0
	irn_read_counter pkts0 "$IRN_DEV" sent_pkts
	t0=$EPOCHREALTIME
	timeout -k 5 60 ib_write_bw -d "$IRN_DEV" -x "$GIDX" -p "$paced_port" -F \
		-D 4 -s 65536 "$IRN_PEER_IP" >"$IRN_OUT/paced.log" 2>&1 ||
		failed+=("paced: ib_write_bw failed: $(tail -n 3 "$IRN_OUT/paced.log" | tr '\n' ' ')")
	t1=$EPOCHREALTIME
	irn_read_counter pkts1 "$IRN_DEV" sent_pkts
	# perftest's own figure is 0.00 now and then with as many
	# iterations as a run that reports 0.44: the rate is the
	# device's packets (1 KiB of payload each, the MTU) over the
	# client's whole run, connection set-up included
	kbit=$(awk -v n=$((pkts1 - pkts0)) -v a="$t0" -v b="$t1" \
		'BEGIN { printf "%d", n * 8.192 / (b - a) }')
	mibs=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$IRN_OUT/paced.log")
	irn_log "paced at 4000 kbit/s: $((pkts1 - pkts0)) packets, $kbit kbit/s of payload (ib_write_bw says ${mibs:-nothing} MiB/s)"
	((kbit > 0 && kbit <= 6000)) ||
		failed+=("paced: $kbit kbit/s at a 4000 kbit/s DCQCN rate (ceiling 6000)")
	echo 1000000 >"$DBG/dcqcn/max_kbps"	# the default again
fi
irn_barrier "end-$run"
# Reads: a's responses cross the bottleneck, under a's DCQCN.
run=$((run + 1))
[[ $IRN_ROLE != a ]] || echo dcqcn >"$DBG/cc"
[[ $IRN_ROLE != b ]] || echo none >"$DBG/cc"
irn_barrier "start-$run"
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/before.$IRN_ROLE"
irn_barrier "snap-$run"
rc=0
if [[ $IRN_ROLE == a ]]; then
	timeout -k 5 60 ib_read_bw -d "$IRN_DEV" -x "$GIDX" -p "$((PORT + run))" \
		-F -D 4 -s 65536 >"$IRN_OUT/read-server.log" 2>&1 || rc=$?
else
	sleep 2
	timeout -k 5 60 ib_read_bw -d "$IRN_DEV" -x "$GIDX" -p "$((PORT + run))" \
		-F -D 4 -s 65536 "$IRN_PEER_IP" >"$IRN_OUT/read.log" 2>&1 || rc=$?
fi
irn_snapshot "${COUNTERS[@]}" >"$IRN_SHARED/after.$IRN_ROLE"
irn_barrier "done-$run"
[[ $rc -eq 0 ]] || failed+=("reads: ib_read_bw exited with $rc on $IRN_ROLE")
if [[ $IRN_ROLE == a ]]; then
	irn_growth
	marked=${IRN_GREW[b.rcvd_ecn_marked]} sent=${IRN_GREW[b.cnp_sent]}
	rcvd=${IRN_GREW[a.cnp_rcvd]} cuts=${IRN_GREW[a.rate_cuts]}
	irn_log "reads: b rcvd_ecn_marked +$marked cnp_sent +$sent; a cnp_rcvd +$rcvd rate_cuts +$cuts"
	((marked > 0 && sent > 0 && rcvd > 0 && cuts > 0)) ||
		failed+=("reads: a's read responses were not marked, answered with CNPs and cut")
fi
irn_barrier "end-$run"
echo none >"$DBG/cc"
irn_dmesg_check "ecn"
[[ ${#failed[@]} -eq 0 ]] || irn_fail "$(printf '%s; ' "${failed[@]}")"
irn_log "PASS"
