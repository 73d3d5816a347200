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
# CC "rxe" runs the same on stock rdma_rxe (go-back-N, no congestion
# control): a and the senders delete irn0, unload rdma_irn (its UDP
# socket is the module's) and create rxe0, and go back to irn for a
# later phase of another CC.  CC "tcp-cubic" or "tcp-dctcp" runs iperf3
# (-i 1, that TCP congestion control) in place of ib_write_bw, with one
# iperf3 server per sender on a; the probe stays on irn without
# congestion control.
#
# -u 18 (T = 1.07 s): the bed's round trips reach a tenth of a second
# under load (perftest's 14, 67 ms, is below the path's RTT), and the
# deep queue holds the senders' whole windows.
#
# Output in each guest's out/: NAME.log (a sender's perftest output),
# NAME-probe.log (b's ib_write_lat output),
# NAME-qps.txt (its QP table every second), NAME-server-ROLE.log (a's servers'),
# NAME-counters.txt (the device's counters after the phase, cumulative),
# and on s NAME-tc.txt (the bottleneck's counters after the phase) and
# NAME-bytes.txt (the bytes its class had sent, every second: "TIME
# BYTES", TIME in seconds).  The guests keep in step through files in the
# shared export.
set -euo pipefail
export IRN_OUT=$IRN_GUEST_OUT IRN_TEST=incast
# shellcheck source=scripts/tests/lib.sh
. "$IRN_SRC/scripts/tests/lib.sh"

SECONDS_EACH=${IRN_INCAST_SECONDS:-20}
# DCQCN's and the delay controller's parameters for this bed, "FILE=VALUE
# ..." under dcqcn/ and delay/ in debugfs
DCQCN=${IRN_INCAST_DCQCN:-}
DELAY=${IRN_INCAST_DELAY:-}
# The device's own knobs, "NAME=VALUE ..." in its debugfs directory
# (cap, rto_low_us, cnp_interval_us, ...; dcqcn/NAME and delay/NAME too),
# set after those two
KNOBS=${IRN_INCAST_KNOBS:-}
ALL="s a $IRN_SENDERS"
DRIVER=irn
PORT=19200
PROBE_PORT=19300
PROBE_N=${IRN_INCAST_PROBE_N:-100}
TC=/usr/sbin/tc
DBG=/sys/kernel/debug/irn/$IRN_DEV

# sample_bytes FILE: on s, every second until killed, "TIME BYTES": the
# bytes the bottleneck's class has sent, for the link's use over the
# time traffic flowed (scripts/incast.sh)
sample_bytes()
{
	while :; do
		printf '%s %s\n' "$(date +%s.%N)" "$("$TC" -s class show dev eth0 classid 1:1 |
			awk '/Sent/ { print $2; exit }')" >>"$1"
		sleep 1
	done
}

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

# knob DIR/FILE=VALUE: a congestion controller's parameter in debugfs
knob()
{
	echo "${1#*=}" >"$DBG/${1%%=*}" || irn_fail "cannot set ${1%%=*} to ${1#*=}"
}

# device_knob NAME=VALUE: one of IRN_INCAST_KNOBS; a NAME that is not a
# knob of the device fails the run.  cc is each phase's own, qps is no
# knob.
device_knob()
{
	local name=${1%%=*}

	[[ $1 == *=* && $name =~ ^[a-z0-9_]+(/[a-z0-9_]+)?$ ]] ||
		irn_fail "IRN_INCAST_KNOBS: '$1' is not NAME=VALUE"
	case $name in
	cc) irn_fail "IRN_INCAST_KNOBS: cc is set by each phase (see scripts/incast.sh)" ;;
	qps) irn_fail "IRN_INCAST_KNOBS: qps is not a knob" ;;
	esac
	[[ -f $DBG/$name ]] ||
		irn_fail "IRN_INCAST_KNOBS: $name is not a knob of $DBG (it has: $(cd "$DBG" && echo *))"
	knob "$1"
}

host_up()
{
	local kv

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	irn_dev_up
	GIDX=$IRN_GIDX
	for kv in $DCQCN; do
		knob "dcqcn/$kv"
	done
	for kv in $DELAY; do
		knob "delay/$kv"
	done
	for kv in $KNOBS; do
		device_knob "$kv"
	done
}

# use_driver irn|rxe: make IRN_DEV a device of that driver, GIDX its
# RoCE v2 GID index
use_driver()
{
	[[ $1 != "$DRIVER" ]] || return 0
	rdma link delete "$IRN_DEV" || irn_fail "rdma link delete $IRN_DEV failed"
	rmmod "$IRN_MODULE" || irn_fail "cannot unload $IRN_MODULE"
	case $1 in
	rxe) IRN_MODULE=rdma_rxe IRN_LINK_TYPE=rxe IRN_DEV=rxe0 ;;
	irn) IRN_MODULE=rdma_irn IRN_LINK_TYPE=irn IRN_DEV=irn0 ;;
	esac
	DRIVER=$1
	if [[ $1 == irn ]]; then
		host_up
	else
		modprobe rdma_rxe || irn_fail "modprobe rdma_rxe failed"
		irn_dev_up
		GIDX=$IRN_GIDX
	fi
}

# set_cc CC: the irn device's congestion control for this phase (TCP
# phases: none, for the probe); rxe has none to set
set_cc()
{
	case $1 in
	rxe) use_driver rxe ;;
	tcp-*) use_driver irn; echo none >"$DBG/cc" ;;
	*) use_driver irn; echo "$1" >"$DBG/cc" ;;
	esac
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
		sample_bytes "$IRN_OUT/$name-bytes.txt" &
		k=$!
		all_reach "$name-listening"
		all_reach "$name-done"
		kill "$k" 2>/dev/null || true
		wait "$k" 2>/dev/null || true
		"$TC" -s qdisc show dev eth0 >"$IRN_OUT/$name-tc.txt"
		;;
	a)
		# the receiver's QPs have no congestion control
		if [[ $cc == rxe ]]; then set_cc rxe; else set_cc none; fi
		all_reach "$name-set"
		i=0
		for k in $IRN_SENDERS; do
			if [[ $cc == tcp-* ]]; then
				timeout -k 5 $((SECONDS_EACH + 60)) iperf3 -s -1 \
					-p $((PORT + i)) >"$IRN_OUT/$name-server-$k.log" 2>&1 &
			else
				timeout -k 5 $((SECONDS_EACH + 60)) ib_write_bw \
					-d "$IRN_DEV" -x "$GIDX" -p $((PORT + i)) -F \
					-s 65536 --run_infinitely -D 1 \
					>"$IRN_OUT/$name-server-$k.log" 2>&1 &
			fi
			pids+=($!)
			i=$((i + 1))
		done
		timeout -k 5 $((SECONDS_EACH + 60)) ib_write_lat -d "$IRN_DEV" \
			-x "$GIDX" -p "$PROBE_PORT" -F -s 64 -n "$PROBE_N" -u 18 \
			>"$IRN_OUT/$name-probe-server.log" 2>&1 &
		pids+=($!)
		# the senders connect once, a second after this
		for ((i = 0; i < $(wc -w <<<"$IRN_SENDERS"); i++)); do
			irn_wait_for 60 "$name server on port $((PORT + i))" \
				irn_tcp_listening $((PORT + i))
		done
		irn_wait_for 60 "$name probe server" irn_tcp_listening "$PROBE_PORT"
		all_reach "$name-listening"
		all_reach "$name-done"
		kill "${pids[@]}" 2>/dev/null || true
		wait "${pids[@]}" 2>/dev/null || true
		;;
	*)
		set_cc "$cc"
		all_reach "$name-set"
		all_reach "$name-listening"
		sleep 1
		# the QP's rate and window, every second
		while sleep 1; do
			grep -v qpn "$DBG/qps" 2>/dev/null || true
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
		elif [[ $cc == tcp-* ]]; then
			timeout -k 5 $((SECONDS_EACH + 10)) iperf3 -c "$IRN_PEER_IP" \
				-p $((PORT + $(sender_index))) -t "$SECONDS_EACH" -i 1 \
				-f m -C "${cc#tcp-}" --forceflush \
				>"$IRN_OUT/$name.log" 2>&1 || true
		else
			# stdbuf: a line a second, not what stdio had flushed
			# to the file when the phase's SIGINT came
			timeout -s INT -k 5 "$SECONDS_EACH" stdbuf -oL ib_write_bw \
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
	modprobe -q tcp_dctcp || irn_log "no tcp_dctcp module: tcp-dctcp phases will fail"
	sysctl -qw net.ipv4.tcp_ecn=1
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
