#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=900
#
# Soak: 64 RC QPs moving data in both directions over a lossy link, round
# after round, and the kernel's memory use must not creep up.
#
# netem drops 1% of the packets leaving eth0 on both guests (so requests,
# responses and ACKs are all lost).  Each round runs, all at once and in
# both directions (a server of each tool on each guest, its client on the
# other), ib_write_bw, ib_read_bw, ib_send_bw and ib_atomic_bw with 8 QPs
# each and IRN_SOAK_ITERS (default 100) 4 KiB messages per QP: 64 RC QPs
# per guest, half of them requesters.  One warm-up round, then
# IRN_SOAK_ROUNDS (default 3) measured ones.  The QPs' local ACK timeout
# is 1 s (-u 18; perftest's default, 67 ms, gives up after 0.5 s without
# progress): eight busy-polling processes share each guest's one vCPU,
# which then stalls for over a second at times ("Long readout interval"
# in the kernel log), and a retry count of 7 is seven retries.  On a
# slower kernel (IRN_TIMEOUT_SCALE > 1: the debug build) the timeout is
# 4.3 s (-u 20) and a round may take IRN_TIMEOUT_SCALE times longer, and
# the tools that can (all but ib_write_bw, whose server has no queue to
# wait on) wait for completion events (-e) instead of polling: eight
# polling processes left that kernel so little of the vCPU that the
# emulated NIC's transmit queue stood still for 5 to 6 s at a time
# (NETDEV WATCHDOG) and RTTs grew past 20 s.
#
# Pass: every perftest process on both guests exits 0 in every round
# (perftest stops with an error at the first completion that is not a
# success: no error completions); after each round no QP other than QP1
# is left; and the unreclaimable slab and vmalloc use of each guest, read
# after each measured round once everything is released, grow by less
# than IRN_SOAK_SLACK_KB (default 512) in all from the first measured
# round to the last.  On a kernel with kmemleak (the debug kernel) the
# figure is reported, not judged, unless IRN_SOAK_SLACK_KB is set:
# KASAN's quarantine holds freed objects in the slab (up to 1/32 of
# RAM), and the sum moved by up to 3 MB between rounds, either way, with
# kmemleak finding nothing; kmemleak is the leak check there (the
# harness scans after each test and fails the test it reports in).
# The figures go to $IRN_OUT/soak.txt.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ss timeout

ITERS=${IRN_SOAK_ITERS:-100}
SCALE=${IRN_TIMEOUT_SCALE:-1}
LIMIT=$((300 * SCALE))
ACK_TIMEOUT=18 EVENTS='' SLACK_KB=512
((SCALE <= 1)) || ACK_TIMEOUT=20 EVENTS=-e
# kmemleak judges leaks where it runs; the slab figure only elsewhere.
[[ ! -e /sys/kernel/debug/kmemleak ]] || SLACK_KB=''
SLACK_KB=${IRN_SOAK_SLACK_KB:-$SLACK_KB}
ROUNDS=${IRN_SOAK_ROUNDS:-3}
LOSS=${IRN_SOAK_LOSS:-loss 1%}
TOOLS=(ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw)
# 4 KiB messages; atomics have their own size; events where they can
# (word-split on purpose)
TOOL_ARGS=("-s 4096" "-s 4096 $EVENTS" "-s 4096 $EVENTS" "$EVENTS")
SUMMARY=$IRN_OUT/soak.txt
: >"$SUMMARY"

modprobe sch_netem || irn_fail "modprobe sch_netem failed"
irn_defer /usr/sbin/tc qdisc del dev "$IRN_NETDEV" root
# shellcheck disable=SC2086
/usr/sbin/tc qdisc add dev "$IRN_NETDEV" root netem $LOSS ||
	irn_fail "tc qdisc add dev $IRN_NETDEV root netem $LOSS failed"
irn_dev_up
# a failed round keeps the tail of irn's recovery decisions
irn_trace_irn
irn_barrier devs-up

# Unreclaimable slab plus vmalloc, in kB.
kernel_mem_kb()
{
	awk '/^SUnreclaim:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
	     END { print s + v }' /proc/meminfo
}

only_qp1_left()
{
	[[ -z $(rdma resource show qp 2>/dev/null | grep -v ' lqpn 1 ' || true) ]]
}

# stuck_diag SECS N: if round N's tools still run SECS from now, record
# the state of every QP, the counters and where the tools are.
stuck_diag()
{
	sleep "$1"
	pgrep -x 'ib_(write|read|send|atomic)_bw' >/dev/null || return 0
	{
		echo "### round $2: tools still running after $1 s"
		# shellcheck disable=SC2046 # one PID per word
		irn_stuck_report "$IRN_DEV" \
			$(pgrep -x 'ib_(write|read|send|atomic)_bw')
	} >"$IRN_OUT/soak-$2-stuck.txt" 2>&1
	irn_log "round $2: still running after $1 s, see soak-$2-stuck.txt"
}

# round N: the four tools in both directions at once (a server of each on
# each guest, its client on the other); fails on any exit status but 0
round()
{
	local n=$1 i d port pids=() names=() rc bad=() diag peer_ip
	local common=(-d "$IRN_DEV" -x "$IRN_GIDX" -F -q 8 -n "$ITERS" -u "$ACK_TIMEOUT")

	[[ $IRN_ROLE == a ]] && peer_ip=10.77.0.2 || peer_ip=10.77.0.1
	irn_barrier "round-$n-start" 120
	# servers: port 19300 + 10n + 2i + (0 on b, 1 on a)
	d=0
	[[ $IRN_ROLE == a ]] && d=1
	for i in "${!TOOLS[@]}"; do
		port=$((19300 + n * 10 + 2 * i + d))
		# shellcheck disable=SC2086
		timeout -k 5 $((LIMIT + 30)) "${TOOLS[i]}" "${common[@]}" \
			${TOOL_ARGS[i]} -p "$port" >"$IRN_OUT/soak-$n-${TOOLS[i]}-server.log" 2>&1 &
		pids+=($!)
		names+=("${TOOLS[i]} server")
	done
	for i in "${!TOOLS[@]}"; do
		irn_wait_for 60 "${TOOLS[i]} server" irn_tcp_listening \
			$((19300 + n * 10 + 2 * i + d))
	done
	irn_put "round-$n-ready-$IRN_ROLE" 1
	irn_get "round-$n-ready-$(irn_peer_role)" 120 >/dev/null
	for i in "${!TOOLS[@]}"; do
		port=$((19300 + n * 10 + 2 * i + 1 - d))
		# shellcheck disable=SC2086
		timeout -k 5 "$LIMIT" "${TOOLS[i]}" "${common[@]}" \
			${TOOL_ARGS[i]} -p "$port" "$peer_ip" >"$IRN_OUT/soak-$n-${TOOLS[i]}-client.log" 2>&1 &
		pids+=($!)
		names+=("${TOOLS[i]} client")
	done
	stuck_diag $((LIMIT / 2)) "$n" &
	diag=$!
	for i in "${!pids[@]}"; do
		rc=0
		wait "${pids[i]}" || rc=$?
		[[ $rc -eq 0 ]] || bad+=("${names[i]} (exit $rc)")
	done
	if [[ ${#bad[@]} -ne 0 ]]; then
		{
			echo "### round $n failed: ${bad[*]}"
			rdma statistic show link "$IRN_DEV/1" 2>&1
			cat "/sys/kernel/debug/irn/$IRN_DEV/qps" 2>&1
			dmesg | tail -20
		} >"$IRN_OUT/soak-$n-fail.txt" 2>&1
	fi
	kill "$diag" 2>/dev/null || true
	wait "$diag" 2>/dev/null || true
	irn_wait_for 20 "round $n: every QP but QP1 destroyed" only_qp1_left
	irn_barrier "round-$n-end" $((LIMIT + 60))
	[[ ${#bad[@]} -eq 0 ]] ||
		irn_fail "round $n: ${bad[*]} failed: $(grep -Eih 'error|failed' "$IRN_OUT"/soak-"$n"-*.log | head -5)"
	irn_log "round $n: all eight tools passed"
}

round 0
first=''
for ((r = 1; r <= ROUNDS; r++)); do
	round "$r"
	sync
	mem=$(kernel_mem_kb)
	[[ -n $first ]] || first=$mem
	echo "round $r: SUnreclaim+VmallocUsed $mem kB" >>"$SUMMARY"
	irn_log "round $r: SUnreclaim+VmallocUsed $mem kB"
done
limit="none: kmemleak judges leaks on this kernel"
[[ -z ${SLACK_KB:-} ]] || limit="$SLACK_KB kB"
{
	echo "growth from round 1 to round $ROUNDS: $((mem - first)) kB (limit $limit)"
	echo "counters: $(rdma statistic show link "$IRN_DEV/1" 2>&1 | tr -s ' \n' ' ')"
} >>"$SUMMARY"
cat "$SUMMARY"
[[ -z $SLACK_KB ]] || ((mem - first < SLACK_KB)) ||
	irn_fail "kernel memory grew by $((mem - first)) kB over $ROUNDS rounds (limit $SLACK_KB kB)"
irn_dmesg_check soak
irn_log "PASS"
