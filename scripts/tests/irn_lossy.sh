#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=2400 ci=900 debug
#
# IRN against go-back-N on a bad network.  For each mode (irn, then gbn,
# set on both guests through debugfs before any QP exists) and each netem
# condition below (applied on eth0 of both guests, so requests, responses
# and ACKs all suffer), irn_verify's RC data checks run: every opcode,
# 0 B to 1 MiB, every byte and every completion checked.
#
# Pass, per mode and condition: irn_verify passes on both guests.  In irn
# mode also: the QPs negotiated nothing (forced), the receiver placed
# packets out of order under loss, and the packets the client resent are
# at most 2x the packets netem dropped on both guests, plus 16, under
# random loss (go-back-N resends up to a window per loss; the figures for
# both modes are in the log and in $IRN_OUT/lossy.txt).  Under reordering,
# where nothing is lost, at most 500 resends (the run sends some 14000
# packets; go-back-N resends over 70000, irn before per-ACK RTT samples
# some 6600, irn now under 100).  In gbn mode: no IRN packet was placed.
# Then, in irn mode, the send tests alone with every receive taken from a
# shared receive queue (irn_verify --srq, 16 messages per test) under the
# IRN_LOSSY_SRQ conditions, which must pass the irn checks too: such QPs
# place sends out of order as well.
#
#   IRN_LOSSY_MODES   modes to run (default "irn gbn")
#   IRN_LOSSY_NETEM   ';'-separated netem conditions (default below; in
#                     make check's CI tier "delay 2ms loss 1%" only)
#   IRN_LOSSY_SRQ     ';'-separated conditions for the SRQ runs (default
#                     "delay 2ms loss 1%"; "" for none)
#   IRN_LOSSY_TRACE   1: record the irn tracepoints of each run in
#                     $IRN_OUT/trace-N.txt (for diagnosis)
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd timeout
[[ $IRN_DRIVER == irn ]] || irn_skip "modes exist in irn only"

VERIFY=$(irn_tool irn_verify)
MODES=${IRN_LOSSY_MODES:-irn gbn}
IFS=';' read -r -a CONDS <<<"${IRN_LOSSY_NETEM:-$(irn_by_tier \
	'delay 2ms loss 0.1%;delay 2ms loss 1%;delay 2ms loss 5%;delay 2ms reorder 25% 50%;delay 2ms duplicate 2%' \
	'delay 2ms loss 1%')}"
IFS=';' read -r -a SRQ_CONDS <<<"${IRN_LOSSY_SRQ-delay 2ms loss 1%}"
PORT=18600
DBG=/sys/kernel/debug/irn/$IRN_DEV
TC=/usr/sbin/tc
SUMMARY=$IRN_OUT/lossy.txt

modprobe sch_netem || irn_fail "modprobe sch_netem failed"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
irn_defer "$TC" qdisc del dev "$IRN_NETDEV" root
irn_link_add
irn_wait_for 10 "$IRN_DEV port 1 ACTIVE" irn_port_state_is "$IRN_DEV" 4
irn_wait_for 10 "a RoCE v2 GID for $IRN_SELF_IP on $IRN_DEV" \
	irn_gid_index "$IRN_DEV" >/dev/null
GIDX=$(irn_gid_index "$IRN_DEV")
[[ -w $DBG/mode ]] || irn_fail "$DBG/mode missing: no debugfs knobs"

# netem_dropped: packets netem dropped on this guest's eth0 so far
netem_dropped()
{
	"$TC" -s qdisc show dev "$IRN_NETDEV" |
		sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n1
}

NAMES=(retransmitted_pkts selective_retransmits ooo_placed irn_qps
       retransmit_episodes timeouts sack_sent irn_duplicates
       spurious_retransmits spurious_timeouts reordering_seen)
TRACING=/sys/kernel/tracing
if [[ ${IRN_LOSSY_TRACE:-0} == 1 ]]; then
	mountpoint -q $TRACING || mount -t tracefs none $TRACING ||
		irn_fail "cannot mount tracefs"
	echo 1 >$TRACING/events/irn/enable
	echo 8192 >$TRACING/buffer_size_kb
	irn_defer sh -c "echo 0 >$TRACING/events/irn/enable"
fi

# snapshot FILE: counters and netem drops, one "name value" per line
snapshot()
{
	{
		irn_snapshot "${NAMES[@]}"
		echo "netem_dropped $(netem_dropped)"
	} >"$1"
}

# RUNS: "mode|netem condition|extra irn_verify client options"
RUNS=()
for mode in $MODES; do
	for cond in "${CONDS[@]}"; do
		RUNS+=("$mode|$cond|")
	done
	[[ $mode == irn ]] || continue
	for cond in "${SRQ_CONDS[@]}"; do
		RUNS+=("$mode|$cond|--srq --only rc.send* -n 16")
	done
done

failed=()
run=0
for spec in "${RUNS[@]}"; do
	IFS='|' read -r mode cond extra <<<"$spec"
	read -r -a vargs <<<"$extra"
	echo "$mode" >"$DBG/mode"
	[[ $(cat "$DBG/mode") == "$mode" ]] || irn_fail "cannot set mode $mode"
	run=$((run + 1))
	tag="$mode/$cond${extra:+ $extra}"
	log=$IRN_OUT/verify-$run.log
	"$TC" qdisc replace dev "$IRN_NETDEV" root netem $cond ||
		irn_fail "tc qdisc replace ... netem $cond failed"
	irn_barrier "start-$run"
	[[ ${IRN_LOSSY_TRACE:-0} != 1 ]] || echo >$TRACING/trace
	snapshot "$IRN_SHARED/before.$IRN_ROLE"
	irn_barrier "snap-$run"
	rc=0
	t0=$SECONDS
	if [[ $IRN_ROLE == b ]]; then
		timeout -k 5 610 "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" >"$log" 2>&1 || rc=$?
	else
		timeout -k 5 600 "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
			-p "$((PORT + run))" -t rc --data-only -n 2 \
			--timeout 120 "${vargs[@]}" "$IRN_PEER_IP" >"$log" 2>&1 ||
			rc=$?
	fi
	secs=$((SECONDS - t0))
	snapshot "$IRN_SHARED/after.$IRN_ROLE"
	[[ ${IRN_LOSSY_TRACE:-0} != 1 ]] ||
		cp $TRACING/trace "$IRN_OUT/trace-$run.txt"
	irn_barrier "done-$run"
	if [[ $rc -ne 0 ]]; then
		irn_log "FAIL [$tag]: irn_verify exited with $rc"
		grep -E '^(FAIL|# )' "$log" | head -20 || true
		failed+=("$tag")
		irn_barrier "end-$run"
		continue
	fi
	if [[ $IRN_ROLE == a ]]; then
		irn_growth
		lost=$((${IRN_GREW[a.netem_dropped]} + ${IRN_GREW[b.netem_dropped]}))
		retx=${IRN_GREW[a.retransmitted_pkts]}
		sel=${IRN_GREW[a.selective_retransmits]}
		ooo=${IRN_GREW[b.ooo_placed]}
		line=$(printf '%-4s %-34s %4ss lost %5d resent %5d selective %5d spurious %5d dup_rcvd %5d ooo_placed %5d gbn_episodes %4d timeouts %4d early %4d reordering_seen %d' \
			"$mode" "$cond${extra:+ $extra}" "$secs" "$lost" "$retx" "$sel" \
			"${IRN_GREW[a.spurious_retransmits]}" \
			"${IRN_GREW[b.irn_duplicates]}" "$ooo" \
			"${IRN_GREW[a.retransmit_episodes]}" "${IRN_GREW[a.timeouts]}" \
			"${IRN_GREW[a.spurious_timeouts]}" "${IRN_GREW[a.reordering_seen]}")
		echo "$line" >>"$SUMMARY"
		irn_log "$line"
		bad=
		if [[ $mode == irn ]]; then
			[[ ${IRN_GREW[a.irn_qps]} -eq 0 ]] ||
				bad+=" forced mode negotiated;"
			if [[ $cond == *reorder* ]]; then
				((retx <= 500)) ||
					bad+=" $retx spurious resends under reordering;"
			elif ((retx > 2 * lost + 16)); then
				bad+=" resent $retx packets for $lost lost;"
			fi
			if [[ $cond == *loss\ [15]%* ]]; then
				((ooo > 0)) || bad+=" nothing placed out of order;"
				((sel > 0)) || bad+=" no selective retransmission;"
			fi
		else
			((ooo == 0 && sel == 0)) ||
				bad+=" IRN used in gbn mode (ooo $ooo, selective $sel);"
		fi
		if [[ -n $bad ]]; then
			irn_log "FAIL [$tag]:$bad"
			failed+=("$tag")
		else
			irn_log "ok [$tag]"
		fi
	fi
	irn_barrier "end-$run"
done
"$TC" qdisc del dev "$IRN_NETDEV" root 2>/dev/null || true
[[ $IRN_ROLE != a ]] || cat "$SUMMARY"
irn_dmesg_check "irn_lossy"
[[ ${#failed[@]} -eq 0 ]] || irn_fail "failed: ${failed[*]}"
irn_log "PASS"
