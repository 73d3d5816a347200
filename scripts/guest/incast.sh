#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The incast job, run in every guest of "scripts/vm.sh --switch N" by
# scripts/incast.sh.  The switch (role s) bridges its ports; the receiver
# (a) and the senders (IRN_SENDERS) each get an irn device.  Then, for each
# phase of IRN_INCAST_PHASES ("NAME|CC|ROOT,RATE,QUEUE" separated by ';'):
#
#   s        on its port toward a, the bottleneck every sender's traffic
#            leaves by: qdisc ROOT (htb), its class at RATE (htb's
#            arguments), and qdisc QUEUE under that class
#   a        one ib_write_bw server per sender, and the probe's server
#   senders  the device's cc knob set to CC, then ib_write_bw -u 18
#            --run_infinitely (64 KiB WRITEs) for IRN_INCAST_SECONDS,
#            which prints the goodput of each second; the phase "idle"
#            runs none
#   b        also the latency probe, two seconds in: ib_write_lat -s 64
#            -n IRN_INCAST_PROBE_N (default 100) -u 18 to a, across the same
#            bottleneck, on a QP of its own (same cc)
#
# -u 18 (T = 1.07 s): the bed's round trips reach a tenth of a second
# under load (perftest's 14, 67 ms, is below the path's RTT), and the
# deep queue holds the senders' whole windows.
#
# Output in each guest's out/: NAME.log (a sender's perftest output),
# NAME-probe.log (b's ib_write_lat output),
# NAME-qps.txt (its QP table every second), NAME-server-ROLE.log (a's servers'),
# NAME-counters.txt (the device's counters after the phase, cumulative),
# and on s NAME-tc.txt (the bottleneck's counters after the phase).  The guests keep in step through files in the shared export.
set -euo pipefail
export IRN_OUT=$IRN_GUEST_OUT IRN_TEST=incast
# shellcheck source=scripts/tests/lib.sh
. "$IRN_SRC/scripts/tests/lib.sh"

SECONDS_EACH=${IRN_INCAST_SECONDS:-20}
# DCQCN's parameters for this bed, "FILE=VALUE ..." under dcqcn/ in debugfs
DCQCN=${IRN_INCAST_DCQCN:-}
ALL="s a $IRN_SENDERS"
PORT=19200
PROBE_PORT=19300
PROBE_N=${IRN_INCAST_PROBE_N:-100}
TC=/usr/sbin/tc
DBG=/sys/kernel/debug/irn/$IRN_DEV

# all_reach NAME: wait (up to 10 minutes) until every guest reached NAME.
all_reach()
{
	local r i missing

	: >"$IRN_GUEST_SHARED/sync.$1.$IRN_ROLE"
	for ((i = 0; i < 6000; i++)); do
		missing=
		for r in $ALL; do
			[[ -e $IRN_GUEST_SHARED/sync.$1.$r ]] || missing+=" $r"
		done
		[[ -n $missing ]] || return 0
		sleep 0.1
	done
	irn_fail "sync $1: still waiting for$missing"
}

# The sender's index among IRN_SENDERS (0 for b).
sender_index()
{
	local r i=0

	for r in $IRN_SENDERS; do
		[[ $r != "$IRN_ROLE" ]] || { echo "$i"; return 0; }
		i=$((i + 1))
	done
	irn_fail "$IRN_ROLE is not a sender"
}

switch_up()
{
	local p

	ip link add br0 type bridge
	for p in /sys/class/net/eth*; do
		ip link set "${p##*/}" master br0
	done
	ip link set br0 up
	irn_log "switch: $(cd /sys/class/net/br0/brif && echo *) bridged"
}

host_up()
{
	local kv

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	irn_dev_up
	GIDX=$IRN_GIDX
	for kv in $DCQCN; do
		echo "${kv#*=}" >"$DBG/dcqcn/${kv%%=*}" ||
			irn_fail "cannot set dcqcn/${kv%%=*} to ${kv#*=}"
	done
}

# trace on | trace NAME: IRN_INCAST_TRACE=1 records the irn tracepoints of
# each phase in NAME-trace.txt
trace()
{
	local t=/sys/kernel/tracing

	[[ ${IRN_INCAST_TRACE:-0} == 1 ]] || return 0
	mountpoint -q $t || mount -t tracefs none $t
	if [[ $1 == on ]]; then
		echo 8192 >$t/buffer_size_kb
		echo >$t/trace
		echo 1 >$t/events/irn/enable
	else
		echo 0 >$t/events/irn/enable
		cp $t/trace "$IRN_OUT/$1-trace.txt"
	fi
}

# phase NAME CC QDISC
phase()
{
	local name=$1 cc=$2 qdisc=$3 k pids=() i root rate queue

	case $IRN_ROLE in
	s)
		IFS=, read -r root rate queue <<<"$qdisc"
		"$TC" qdisc del dev eth0 root 2>/dev/null || true
		# shellcheck disable=SC2086 # lists of tc arguments
		{
			"$TC" qdisc add dev eth0 root handle 1: $root &&
			"$TC" class add dev eth0 parent 1: classid 1:1 htb $rate &&
			"$TC" qdisc add dev eth0 parent 1:1 handle 10: $queue
		} || irn_fail "the bottleneck $qdisc: tc failed"
		all_reach "$name-set"
		all_reach "$name-listening"
		all_reach "$name-done"
		"$TC" -s qdisc show dev eth0 >"$IRN_OUT/$name-tc.txt"
		;;
	a)
		echo none >"$DBG/cc"
		all_reach "$name-set"
		i=0
		for k in $IRN_SENDERS; do
			timeout -k 5 $((SECONDS_EACH + 60)) ib_write_bw -d "$IRN_DEV" \
				-x "$GIDX" -p $((PORT + i)) -F -s 65536 \
				--run_infinitely -D 1 >"$IRN_OUT/$name-server-$k.log" 2>&1 &
			pids+=($!)
			i=$((i + 1))
		done
		timeout -k 5 $((SECONDS_EACH + 60)) ib_write_lat -d "$IRN_DEV" \
			-x "$GIDX" -p "$PROBE_PORT" -F -s 64 -n "$PROBE_N" -u 18 \
			>"$IRN_OUT/$name-probe-server.log" 2>&1 &
		pids+=($!)
		all_reach "$name-listening"
		all_reach "$name-done"
		kill "${pids[@]}" 2>/dev/null || true
		wait "${pids[@]}" 2>/dev/null || true
		;;
	*)
		echo "$cc" >"$DBG/cc"
		all_reach "$name-set"
		all_reach "$name-listening"
		sleep 1
		# the QP's rate and window, every second
		while sleep 1; do
			grep -v qpn "$DBG/qps" || true
		done >"$IRN_OUT/$name-qps.txt" 2>&1 &
		k=$!
		trace on
		if [[ $(sender_index) == 0 ]]; then
			{
				sleep 2
				timeout -k 5 $((SECONDS_EACH - 2)) ib_write_lat \
					-d "$IRN_DEV" -x "$GIDX" -p "$PROBE_PORT" -F \
					-s 64 -n "$PROBE_N" -u 18 "$IRN_PEER_IP" || true
			} >"$IRN_OUT/$name-probe.log" 2>&1 &
			pids+=($!)
		fi
		if [[ $name == idle ]]; then
			sleep "$SECONDS_EACH"
		else
			timeout -s INT -k 5 "$SECONDS_EACH" ib_write_bw \
				-d "$IRN_DEV" -x "$GIDX" -p $((PORT + $(sender_index))) \
				-F -s 65536 -u 18 --run_infinitely -D 1 "$IRN_PEER_IP" \
				>"$IRN_OUT/$name.log" 2>&1 || true
		fi
		# the probe's; a bare wait would wait for the sampler too
		[[ ${#pids[@]} -eq 0 ]] || wait "${pids[@]}" 2>/dev/null || true
		kill "$k"
		trace "$name"
		all_reach "$name-done"
		;;
	esac
	[[ $IRN_ROLE == s ]] ||
		rdma statistic show link "$IRN_DEV/1" >"$IRN_OUT/$name-counters.txt" 2>&1 || true
	irn_log "$name done"
}

if [[ $IRN_ROLE == s ]]; then
	switch_up
else
	host_up
fi
all_reach up
IFS=';' read -r -a PHASES <<<"$IRN_INCAST_PHASES"
for p in "${PHASES[@]}"; do
	IFS='|' read -r name cc qdisc <<<"$p"
	phase "$name" "$cc" "$qdisc"
done
all_reach end
irn_log "PASS"
