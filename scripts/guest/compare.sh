#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/compare.sh: one or several transports, every
# network condition, every workload, every repetition.  Guest b serves,
# guest a runs the clients.  Nothing is parsed here: each run leaves its
# raw output and counter snapshots for the host to read.  In the
# one-guest mode both ends are one guest's network namespaces, each
# running this script (scripts/guest/compare-one.sh); "guest a" and
# "guest b" below are then those ends.
#
# Several transports take turns (compare.sh --rounds): CMP_ROUNDS rounds,
# in each of which every transport has its turn, its module loaded for
# it and unloaded after it, so that they share one boot.  A lone
# transport keeps its device for all its rounds.
#
# Per run (tag rNNNN) on guest a, in $IRN_GUEST_OUT:
#   rNNNN.client         the client's output (perftest or iperf3; fio's
#                        JSON report for the NVMe-oF workloads, whose
#                        connect and fio messages go to rNNNN.log)
#   rNNNN.trace          irn's tracepoints during the run (CMP_TRACE=1,
#                        irn transports)
# and in $IRN_GUEST_SHARED (both guests):
#   rNNNN.server.b       the server's output
#   rNNNN.before.ROLE    counter snapshot before the run: "name value" lines
#   rNNNN.after.ROLE     ... and after (rdma statistic of the RDMA device,
#                        the qdisc's dropped packets (the netdev and ifb0)
#                        as qdisc_dropped, TCP RetransSegs as tcp_retrans)
#   rNNNN.cpu.ROLE       /proc/stat's "cpu" line before and after the
#                        client's (a) or the server's (b) run
# Guest a appends one tab-separated line per run to $IRN_GUEST_OUT/runs.tsv:
#   tag transport condition workload rep status seconds
# rep counts the cell's runs over the rounds; status: ok, rc=N (the
# client's exit status; 124 = timed out), "no device: ..." when the
# transport's device could not be created, or "n/a: reason" when the
# transport or condition does not exist here.  Each turn ends with the
# device's counters in counters-TRANSPORT-rROUND.txt.
#
# Environment:
#   CMP_TRANSPORTS  space-separated: rxe irn-gbn irn irn-auto irn-sack1
#                   siw tcp
#   CMP_ROUNDS      how many turns each transport takes (1)
#   CMP_CONDS       ';'-separated "label|tc arguments" ("none": clean link)
#   CMP_WORKLOADS   space-separated workload names (see workload_cmd)
#   CMP_REPS CMP_SECONDS CMP_LAT_ITERS CMP_RUN_TIMEOUT
#   CMP_TRACE       1: save irn's tracepoints per run
#   CMP_IRN_PARAMS  more rdma_irn module parameters for the transports
#                   with IRN on (irn, irn-auto, irn-sack1): "cap=256"
#   CMP_DEV         the RDMA device's name (default dev0)
#   CMP_NAMESPACE   the network namespace this end runs in, when both ends
#                   run in one guest (scripts/guest/compare-one.sh);
#                   IRN_NETDEV is then its veth end
# and scripts/vm.sh's IRN_ROLE, IRN_SELF_IP, IRN_PEER_IP, IRN_NETDEV (the
# netdev the device, the conditions and the snapshots use: eth0),
# IRN_GUEST_OUT and IRN_GUEST_SHARED.
set -uo pipefail

TRANSPORTS=${CMP_TRANSPORTS:?}
ROUNDS=${CMP_ROUNDS:-1}
# the transport whose turn it is, and the turn's name for its barriers
TRANSPORT='' TURN=''
REPS=${CMP_REPS:-3}
SECS=${CMP_SECONDS:-4}
LAT_ITERS=${CMP_LAT_ITERS:-1000}
RUN_TIMEOUT=${CMP_RUN_TIMEOUT:-120}
OUT=$IRN_GUEST_OUT
SHARED=$IRN_GUEST_SHARED
TC=/usr/sbin/tc
DEV=${CMP_DEV:-dev0}
NETDEV=${IRN_NETDEV:-eth0}
PEER_ROLE=$([[ $IRN_ROLE == a ]] && echo b || echo a)
PORT=18515
TRACING=/sys/kernel/tracing
# why this turn's transport cannot run: not in this kernel (UNAVAILABLE,
# its runs are n/a), or its device failed (NO_DEVICE, its runs failed)
UNAVAILABLE='' NO_DEVICE=''

# shellcheck source=scripts/guest/nvme.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvme.sh"
# shellcheck source=scripts/lib/stacks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/stacks.sh"

log() { printf '[compare %s %s] %s\n' "${TRANSPORT:-$TRANSPORTS}" "$IRN_ROLE" "$*"; }

# barrier NAME [SECONDS]: both ends reach NAME (files in the shared export)
barrier() {
	local name=$1 limit=${2:-600} i
	touch "$SHARED/.b.$name.$IRN_ROLE"
	for ((i = 0; i < limit * 5; i++)); do
		[[ -e $SHARED/.b.$name.$PEER_ROLE ]] && return 0
		sleep 0.2
	done
	log "barrier $name: guest $PEER_ROLE did not arrive within ${limit}s"
	return 1
}

wait_file() {
	local f=$1 limit=$2 i
	for ((i = 0; i < limit * 5; i++)); do
		[[ -e $f ]] && return 0
		sleep 0.2
	done
	return 1
}

# setup_device: the RDMA device DEV on NETDEV (nothing for tcp); sets
# UNAVAILABLE when this kernel cannot provide the transport
setup_device() {
	case $TRANSPORT in
	tcp) return 0 ;;
	rxe)
		modprobe crc32_generic 2>/dev/null
		modprobe rdma_rxe || { UNAVAILABLE="rdma_rxe not in this kernel"; return 0; }
		rdma link add "$DEV" type rxe netdev "$NETDEV" ;;
	irn-gbn)
		modprobe rdma_irn mode=gbn &&
			rdma link add "$DEV" type irn netdev "$NETDEV" ;;
	irn | irn-auto | irn-sack1)
		local args=(mode=irn)
		[[ $TRANSPORT != irn-auto ]] || args=(mode=auto)
		[[ $TRANSPORT != irn-sack1 ]] || args+=(sack_single=1)
		# shellcheck disable=SC2206 # the parameters, one word each
		args+=(${CMP_IRN_PARAMS:-})
		modprobe rdma_irn "${args[@]}" &&
			rdma link add "$DEV" type irn netdev "$NETDEV" ;;
	siw)
		if ! modprobe siw 2>/dev/null; then
			UNAVAILABLE="not enabled in this kernel"
			return 0
		fi
		rdma link add "$DEV" type siw netdev "$NETDEV" ;;
	*) log "unknown transport $TRANSPORT"; return 1 ;;
	esac || return 1
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -n $(gid_index) ]] && return 0
		sleep 0.1
	done
	log "$DEV has no IPv4 GID after 10 s"
	return 1
}

# teardown_device: delete this end's device and unload its module, so
# that the next turn's transport can take the netdev.  In one guest both
# ends' devices must be gone before the module can go, and one end
# unloads it.
teardown_device() {
	local m i
	case $TRANSPORT in
	tcp) return 0 ;;
	rxe) m=rdma_rxe ;;
	siw) m=siw ;;
	*) m=rdma_irn ;;
	esac
	[[ -n $UNAVAILABLE ]] || rdma link delete "$DEV" 2>/dev/null
	barrier "unload-$TURN" || exit 1
	if [[ -z ${CMP_NAMESPACE:-} || $IRN_ROLE == a ]]; then
		# the device goes away asynchronously: the module stays busy a while
		for ((i = 0; i < 50; i++)); do
			[[ -e /sys/module/$m/refcnt ]] || break
			rmmod "$m" 2>/dev/null || sleep 0.2
		done
		[[ ! -e /sys/module/$m/refcnt ]] || log "cannot unload $m"
	fi
	barrier "unloaded-$TURN" || exit 1
}

# gid_index: the RoCE v2 GID that holds our IPv4 address (not for siw)
gid_index() {
	local p=/sys/class/infiniband/$DEV/ports/1 t n
	[[ $TRANSPORT == siw ]] && { echo -; return 0; }
	for t in "$p"/gid_attrs/types/*; do
		n=${t##*/}
		[[ $(cat "$t" 2>/dev/null) == "RoCE v2" ]] || continue
		[[ $(cat "$p/gids/$n" 2>/dev/null) == 0000:0000:0000:0000:0000:ffff:* ]] || continue
		echo "$n"
		return 0
	done
}

# clear_condition: no qdisc on NETDEV, no ingress redirect, no ifb0
clear_condition() {
	$TC qdisc del dev "$NETDEV" root 2>/dev/null
	$TC qdisc del dev "$NETDEV" ingress 2>/dev/null
	ip link del ifb0 2>/dev/null
	return 0
}

# set_condition "TC ARGS": a root qdisc on NETDEV ("none": nothing), or
# with "ingress QDISC ARGS" that qdisc on what NETDEV receives: redirected
# to ifb0 (of this end's network namespace), so the drops happen on the
# path, as in a switch, and the sender's own qdisc never pushes back (a
# local drop is not a loss).
# Modules are loaded by hand: in the guest's chroot the kernel cannot.
set_condition() {
	local q
	clear_condition
	[[ $1 == none ]] && return 0
	if [[ $1 == ingress\ * ]]; then
		q=${1#ingress }
		modprobe ifb numifbs=0 && modprobe sch_ingress && modprobe act_mirred &&
			modprobe cls_matchall && modprobe "sch_${q%% *}" || return 1
		ip link add ifb0 type ifb && ip link set ifb0 up &&
			$TC qdisc add dev "$NETDEV" handle ffff: ingress &&
			$TC filter add dev "$NETDEV" parent ffff: matchall \
				action mirred egress redirect dev ifb0 || return 1
		# shellcheck disable=SC2086
		$TC qdisc add dev ifb0 root $q
		return
	fi
	modprobe "sch_${1%% *}" || return 1
	# shellcheck disable=SC2086
	$TC qdisc add dev "$NETDEV" root $1
}

# snapshot FILE: counters, one "name value" per line
snapshot() {
	{
		[[ $TRANSPORT == tcp || -n $UNAVAILABLE$NO_DEVICE ]] ||
			rdma statistic show link "$DEV/1" 2>/dev/null |
			awk '{ for (i = 3; i < NF; i += 2) print $i, $(i + 1) }'
		{ $TC -s qdisc show dev "$NETDEV"; $TC -s qdisc show dev ifb0 2>/dev/null; } |
			awk '/dropped/ { for (i = 1; i < NF; i++) if ($i ~ /^\(?dropped$/) s += $(i + 1) + 0 }
			END { print "qdisc_dropped", s + 0 }'
		awk '$1 == "Tcp:" { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i; h = 1 }
			else print "tcp_retrans", $c }' /proc/net/snmp
	} >"$1.tmp" 2>/dev/null
	mv "$1.tmp" "$1"
}

# cpu_line: /proc/stat's line of all vCPUs, for irn_cmp_cpu on the host
cpu_line() {
	grep -m1 '^cpu ' /proc/stat
}

# trace_start, trace_save FILE: irn's tracepoints of one run (CMP_TRACE=1,
# irn transports; the trace buffer is the kernel's, so in one guest it
# holds both ends)
trace_start() {
	[[ ${CMP_TRACE:-0} == 1 && $TRANSPORT == irn* ]] || return 0
	mountpoint -q $TRACING || mount -t tracefs none $TRACING || return 0
	echo 16384 >$TRACING/buffer_size_kb
	echo >$TRACING/trace
	echo 1 >$TRACING/events/irn/enable
}

trace_save() {
	[[ ${CMP_TRACE:-0} == 1 && $TRANSPORT == irn* && -d $TRACING/events/irn ]] || return 0
	echo 0 >$TRACING/events/irn/enable
	cp $TRACING/trace "$1"
}

# stuck_report PID: what a run whose timeout(1) PID did not end in time
# was doing, for the raw folder: where the tool waits, the device's QPs
# and counters twice 5 s apart, the queues of NETDEV, and whether the
# cable still carries anything (ICMP to the peer; a dead cable stops every
# run).
stuck_report() {
	local pid
	# the tool, under timeout(1)
	for pid in $(pgrep -P "$1"); do
		echo "--- $(date +%T) $(cat "/proc/$pid/comm" 2>&1), still running"
		irn_task_stacks "$pid"
	done
	echo "--- ping $IRN_PEER_IP"
	ping -c 5 -i 0.2 -W 1 "$IRN_PEER_IP" 2>&1 | tail -n 2
	echo "--- ip -s link show $NETDEV"; ip -s link show "$NETDEV" 2>&1
	echo "--- tc -s qdisc show dev $NETDEV"; $TC -s qdisc show dev "$NETDEV" 2>&1
	[[ $TRANSPORT == tcp ]] && return 0
	echo "--- rdma statistic"; rdma statistic show link "$DEV/1" 2>&1
	cat "/sys/kernel/debug/irn/$DEV/qps" 2>/dev/null
	sleep 5
	echo "--- 5 s later: rdma statistic"; rdma statistic show link "$DEV/1" 2>&1
	cat "/sys/kernel/debug/irn/$DEV/qps" 2>/dev/null
	echo "--- dmesg"; dmesg | tail -n 20
}

# watch_run PID FILE: stuck_report PID into FILE if PID still runs 20 s
# before its timeout; kill the watcher's PID ($!) when PID ends.
watch_run() {
	local pid=$1 file=$2 i
	for ((i = 0; i < RUN_TIMEOUT - 20; i++)); do
		sleep 1
		kill -0 "$pid" 2>/dev/null || return 0
	done
	stuck_report "$pid" >"$file" 2>&1
}

# workload_cmd NAME: the command both sides run (client adds the server)
workload_cmd() {
	local dev="-d $DEV -F -p $PORT" gid
	gid=$(gid_index)
	if [[ $TRANSPORT == siw ]]; then
		dev+=" -R"
	else
		dev+=" -x $gid"
	fi
	case $1 in
	write_bw) echo "ib_write_bw $dev -s 65536 -D $SECS" ;;
	read_bw) echo "ib_read_bw $dev -s 65536 -D $SECS" ;;
	send_bw) echo "ib_send_bw $dev -s 65536 -D $SECS" ;;
	write_bw_4qp) echo "ib_write_bw $dev -s 65536 -D $SECS -q 4" ;;
	atomic_bw) echo "ib_atomic_bw $dev -D $SECS" ;;
	write_lat) echo "ib_write_lat $dev -s 64 -n $LAT_ITERS" ;;
	send_lat) echo "ib_send_lat $dev -s 64 -n $LAT_ITERS" ;;
	iperf3) echo "iperf3 -p $PORT -f m" ;;
	nvme_randread | nvme_randwrite) echo "$1" ;;
	*) return 1 ;;
	esac
}

# applies_to WORKLOAD: iperf3 is the tcp transport's only workload
applies_to() {
	if [[ $TRANSPORT == tcp ]]; then [[ $1 == iperf3 ]]; else [[ $1 != iperf3 ]]; fi
}

# workload_na WORKLOAD: why WORKLOAD cannot run between these ends, or
# nothing.  The kernel's NVMe over Fabrics host and target (nvme-rdma,
# nvmet-rdma) create their rdma_cm IDs in the initial network namespace,
# so they cannot reach a device whose netdev is in another.
workload_na() {
	if [[ -n ${CMP_NAMESPACE:-} && $1 == nvme_* ]]; then
		echo "nvme-rdma and nvmet-rdma connect in the initial network namespace only"
	fi
}

# runs_line TAG COND WORKLOAD REP STATUS SECONDS: the run's line of
# runs.tsv, with this turn's transport
runs_line() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$TRANSPORT" "$2" "$3" "$4" "$5" "$6" \
		>>"$OUT/runs.tsv"
}

server_listening() {
	ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

# run_nvme TAG COND WORKLOAD REP: guest b exports the namespace (once per
# boot) and waits; guest a connects, runs fio and disconnects.  A kernel
# without nvmet-rdma makes the run n/a.
run_nvme() {
	local tag=$1 cond=$2 w=$3 rep=$4 t0 status=ok cpu0
	if [[ $IRN_ROLE == b ]]; then
		irn_nvme_target "$IRN_SELF_IP" >"$SHARED/$tag.server.b" 2>&1 ||
			touch "$SHARED/$tag.no-target"
		cpu0=$(cpu_line)
		touch "$SHARED/$tag.ready"
		wait_file "$SHARED/$tag.client-done" $((SECS + RUN_TIMEOUT + 400))
		printf '%s\n' "$cpu0" "$(cpu_line)" >"$SHARED/$tag.cpu.b"
		snapshot "$SHARED/$tag.after.b"
		touch "$SHARED/$tag.done.b"
		barrier "end-$tag" $((RUN_TIMEOUT + 120))
		return 0
	fi
	wait_file "$SHARED/$tag.ready" 120
	t0=$SECONDS cpu0=$(cpu_line)
	if [[ -e $SHARED/$tag.no-target ]]; then
		status="n/a: $(grep -m1 '^no .* module' "$SHARED/$tag.server.b" ||
			echo 'nvmet target setup failed')"
	elif ! irn_nvme_run "$w" "$SECS" "$IRN_PEER_IP" "$OUT/$tag.log" \
		"$OUT/$tag.client"; then
		status="fio or nvme connect failed"
	fi
	printf '%s\n' "$cpu0" "$(cpu_line)" >"$SHARED/$tag.cpu.a"
	touch "$SHARED/$tag.client-done"
	wait_file "$SHARED/$tag.done.b" 60 || true
	snapshot "$SHARED/$tag.after.a"
	runs_line "$tag" "$cond" "$w" "$rep" "$status" "$((SECONDS - t0))"
	barrier "end-$tag" $((RUN_TIMEOUT + 120))
}

# run_one TAG COND WORKLOAD REP
run_one() {
	local tag=$1 cond=$2 w=$3 rep=$4 cmd rc=0 t0 try status pid i cpu0
	PORT=$((18515 + 10#${tag#r} % 2000))
	cmd=$(workload_cmd "$w") || return 0
	barrier "start-$tag" || return 1
	snapshot "$SHARED/$tag.before.$IRN_ROLE"
	if [[ $w == nvme_* ]]; then
		run_nvme "$tag" "$cond" "$w" "$rep"
		return
	fi
	if [[ $IRN_ROLE == b ]]; then
		[[ $w == iperf3 ]] && cmd="iperf3 -s -1 -p $PORT"
		cpu0=$(cpu_line)
		# shellcheck disable=SC2086
		timeout -k 5 $((RUN_TIMEOUT + 30)) $cmd >"$SHARED/$tag.server.b" 2>&1 &
		pid=$!
		# a listening TCP port says the server is ready (rdma_cm: no port)
		for ((i = 0; i < 100; i++)); do
			[[ $TRANSPORT == siw && $w != iperf3 ]] && { sleep 1; break; }
			server_listening && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		touch "$SHARED/$tag.ready"
		watch_run "$pid" "$SHARED/$tag.stuck.b" &
		wait "$pid"
		kill $! 2>/dev/null
		printf '%s\n' "$cpu0" "$(cpu_line)" >"$SHARED/$tag.cpu.b"
		snapshot "$SHARED/$tag.after.b"
		touch "$SHARED/$tag.done.b"
		barrier "end-$tag" $((RUN_TIMEOUT + 120))
		return 0
	fi
	wait_file "$SHARED/$tag.ready" 60
	[[ $w == iperf3 ]] && cmd+=" -t $SECS -c"
	trace_start
	t0=$SECONDS cpu0=$(cpu_line)
	# a client that comes before the server listens is retried
	for ((try = 1; try <= 5; try++)); do
		rc=0
		# shellcheck disable=SC2086
		timeout -k 5 "$RUN_TIMEOUT" $cmd "$IRN_PEER_IP" >"$OUT/$tag.client" 2>&1 &
		pid=$!
		watch_run "$pid" "$OUT/$tag.stuck" &
		wait "$pid" || rc=$?
		kill $! 2>/dev/null
		[[ $rc -ne 0 ]] || break
		grep -Eq "Couldn't connect|Connection refused|unable to connect" "$OUT/$tag.client" || break
		sleep 1
	done
	printf '%s\n' "$cpu0" "$(cpu_line)" >"$SHARED/$tag.cpu.a"
	trace_save "$OUT/$tag.trace"
	status=ok
	[[ $rc == 0 ]] || status="rc=$rc"
	# the server's after-snapshot: wait for it (it may take a while to exit)
	wait_file "$SHARED/$tag.done.b" 60 || true
	snapshot "$SHARED/$tag.after.a"
	runs_line "$tag" "$cond" "$w" "$rep" "$status" "$((SECONDS - t0))"
	barrier "end-$tag" $((RUN_TIMEOUT + 120))
}

# record COND ROUND STATUS [WORKLOAD]: record every run of COND in this
# ROUND (of its WORKLOAD only, if given) with STATUS, not run
record() {
	local cond=$1 round=$2 st=$3 w rep
	for w in ${4:-$CMP_WORKLOADS}; do
		applies_to "$w" || continue
		for ((rep = 1; rep <= REPS; rep++)); do
			NRUN=$((NRUN + 1))
			[[ $IRN_ROLE == a ]] || continue
			runs_line "$(printf 'r%04d' "$NRUN")" "$cond" "$w" \
				$(((round - 1) * REPS + rep)) "$st" 0
		done
	done
}

# start_turn: this turn's device, on both ends or on neither (NO_DEVICE)
start_turn() {
	UNAVAILABLE='' NO_DEVICE=''
	setup_device || NO_DEVICE="no device: cannot create the $TRANSPORT device"
	[[ -z $NO_DEVICE ]] || { log "$NO_DEVICE"; touch "$SHARED/dev-$TURN.bad.$IRN_ROLE"; }
	barrier "dev-$TURN" || exit 1
	if [[ -z $NO_DEVICE && -e $SHARED/dev-$TURN.bad.$PEER_ROLE ]]; then
		NO_DEVICE="no device: the peer cannot create the $TRANSPORT device"
	fi
	[[ -z $UNAVAILABLE ]] || echo "$TRANSPORT: $UNAVAILABLE" >>"$OUT/unavailable"
}

# run_turn ROUND: every condition, workload and repetition of this
# transport in ROUND
run_turn() {
	local round=$1 conds c label args w rep reason why
	IFS=';' read -r -a conds <<<"${CMP_CONDS:-lossless|none}"
	for c in "${conds[@]}"; do
		label=${c%%|*} args=${c#*|}
		if [[ -n $UNAVAILABLE ]]; then
			record "$label" "$round" "n/a: $UNAVAILABLE"
			continue
		fi
		if [[ -n $NO_DEVICE ]]; then
			record "$label" "$round" "$NO_DEVICE"
			continue
		fi
		reason=
		set_condition "$args" || reason="tc qdisc '$args' failed in this kernel"
		# both guests must agree whether the condition exists
		[[ -z $reason ]] || touch "$SHARED/cond-$TURN-$label.bad.$IRN_ROLE"
		barrier "cond-$TURN-$label" || exit 1
		if [[ -z $reason && -e $SHARED/cond-$TURN-$label.bad.$PEER_ROLE ]]; then
			reason="tc qdisc '$args' failed in this kernel"
		fi
		if [[ -n $reason ]]; then
			log "$reason"
			record "$label" "$round" "n/a: $reason"
			continue
		fi
		for w in $CMP_WORKLOADS; do
			applies_to "$w" || continue
			why=$(workload_na "$w")
			if [[ -n $why ]]; then
				log "$w: $why"
				record "$label" "$round" "n/a: $why" "$w"
				continue
			fi
			for ((rep = 1; rep <= REPS; rep++)); do
				NRUN=$((NRUN + 1))
				run_one "$(printf 'r%04d' "$NRUN")" "$label" "$w" \
					$(((round - 1) * REPS + rep)) || exit 1
			done
		done
	done
	clear_condition
	[[ $TRANSPORT == tcp || -n $UNAVAILABLE$NO_DEVICE ]] ||
		rdma statistic show link "$DEV/1" >"$OUT/counters-$TRANSPORT-r$round.txt" 2>&1
}

main() {
	local round n turn=0
	NRUN=0
	: >"$OUT/runs.tsv"
	uname -r >"$OUT/kernel.txt"
	# a peer that does not come up within 2 minutes never will (a guest
	# can die while booting on a loaded host): fail fast, the host retries
	barrier up 120 || exit 3
	n=$(wc -w <<<"$TRANSPORTS")
	for ((round = 1; round <= ROUNDS; round++)); do
		for TRANSPORT in $TRANSPORTS; do
			turn=$((turn + 1)) TURN=t$turn
			# a lone transport keeps its device from its first round on
			((n == 1 && round > 1)) || start_turn
			run_turn "$round"
			((n == 1)) || teardown_device
		done
	done
	barrier all-done 60
	return 0
}

main "$@"
