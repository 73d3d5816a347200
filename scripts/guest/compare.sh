#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/compare.sh: one transport, every network condition,
# every workload, every repetition.  Guest b serves, guest a runs the
# clients.  Nothing is parsed here: each run leaves its raw output and
# counter snapshots for the host to read.  In the one-guest mode both
# ends are one guest's network namespaces, each running this script
# (scripts/guest/compare-one.sh); "guest a" and "guest b" below are then
# those ends.
#
# Per run (tag rNNNN) on guest a, in $IRN_GUEST_OUT:
#   rNNNN.client         the client's output (perftest or iperf3; fio's
#                        JSON report for the NVMe-oF workloads, whose
#                        connect and fio messages go to rNNNN.log)
# and in $IRN_GUEST_SHARED (both guests):
#   rNNNN.server.b       the server's output
#   rNNNN.before.ROLE    counter snapshot before the run: "name value" lines
#   rNNNN.after.ROLE     ... and after (rdma statistic of the RDMA device,
#                        the qdisc's dropped packets (the netdev and ifb0)
#                        as qdisc_dropped, TCP RetransSegs as tcp_retrans)
# Guest a appends one tab-separated line per run to $IRN_GUEST_OUT/runs.tsv:
#   tag condition workload rep status seconds
# status: ok, rc=N (the client's exit status; 124 = timed out), or
# "n/a: reason" when the transport or condition does not exist here.
#
# Environment:
#   CMP_TRANSPORT   rxe | irn-gbn | irn | irn-auto | siw | tcp
#   CMP_CONDS       ';'-separated "label|tc arguments" ("none": clean link)
#   CMP_WORKLOADS   space-separated workload names (see workload_cmd)
#   CMP_REPS CMP_SECONDS CMP_LAT_ITERS CMP_RUN_TIMEOUT
#   CMP_DEV         the RDMA device's name (default dev0)
#   CMP_NAMESPACE   the network namespace this end runs in, when both ends
#                   run in one guest (scripts/guest/compare-one.sh);
#                   IRN_NETDEV is then its veth end
# and scripts/vm.sh's IRN_ROLE, IRN_SELF_IP, IRN_PEER_IP, IRN_NETDEV (the
# netdev the device, the conditions and the snapshots use: eth0),
# IRN_GUEST_OUT and IRN_GUEST_SHARED.
set -uo pipefail

TRANSPORT=${CMP_TRANSPORT:?}
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
UNAVAILABLE=

# shellcheck source=scripts/guest/nvme.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvme.sh"
# shellcheck source=scripts/lib/stacks.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/stacks.sh"

log() { printf '[compare %s %s] %s\n' "$TRANSPORT" "$IRN_ROLE" "$*"; }

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
	irn-gbn | irn | irn-auto)
		local mode=${TRANSPORT#irn-}
		[[ $TRANSPORT == irn ]] && mode=irn
		modprobe rdma_irn mode="$mode" &&
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
		[[ $TRANSPORT == tcp || -n $UNAVAILABLE ]] ||
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

server_listening() {
	ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

# run_nvme TAG COND WORKLOAD REP: guest b exports the namespace (once per
# boot) and waits; guest a connects, runs fio and disconnects.  A kernel
# without nvmet-rdma makes the run n/a.
run_nvme() {
	local tag=$1 cond=$2 w=$3 rep=$4 t0 status=ok
	if [[ $IRN_ROLE == b ]]; then
		irn_nvme_target "$IRN_SELF_IP" >"$SHARED/$tag.server.b" 2>&1 ||
			touch "$SHARED/$tag.no-target"
		touch "$SHARED/$tag.ready"
		wait_file "$SHARED/$tag.client-done" $((SECS + RUN_TIMEOUT + 400))
		snapshot "$SHARED/$tag.after.b"
		touch "$SHARED/$tag.done.b"
		barrier "end-$tag" $((RUN_TIMEOUT + 120))
		return 0
	fi
	wait_file "$SHARED/$tag.ready" 120
	t0=$SECONDS
	if [[ -e $SHARED/$tag.no-target ]]; then
		status="n/a: $(grep -m1 '^no .* module' "$SHARED/$tag.server.b" ||
			echo 'nvmet target setup failed')"
	elif ! irn_nvme_run "$w" "$SECS" "$IRN_PEER_IP" "$OUT/$tag.log" \
		"$OUT/$tag.client"; then
		status="fio or nvme connect failed"
	fi
	touch "$SHARED/$tag.client-done"
	wait_file "$SHARED/$tag.done.b" 60 || true
	snapshot "$SHARED/$tag.after.a"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$cond" "$w" "$rep" "$status" \
		"$((SECONDS - t0))" >>"$OUT/runs.tsv"
	barrier "end-$tag" $((RUN_TIMEOUT + 120))
}

# run_one TAG COND WORKLOAD REP
run_one() {
	local tag=$1 cond=$2 w=$3 rep=$4 cmd rc=0 t0 try status pid i
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
		snapshot "$SHARED/$tag.after.b"
		touch "$SHARED/$tag.done.b"
		barrier "end-$tag" $((RUN_TIMEOUT + 120))
		return 0
	fi
	wait_file "$SHARED/$tag.ready" 60
	[[ $w == iperf3 ]] && cmd+=" -t $SECS -c"
	t0=$SECONDS
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
	status=ok
	[[ $rc == 0 ]] || status="rc=$rc"
	# the server's after-snapshot: wait for it (it may take a while to exit)
	wait_file "$SHARED/$tag.done.b" 60 || true
	snapshot "$SHARED/$tag.after.a"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$cond" "$w" "$rep" "$status" \
		"$((SECONDS - t0))" >>"$OUT/runs.tsv"
	barrier "end-$tag" $((RUN_TIMEOUT + 120))
}

# record_na COND REASON [WORKLOAD]: record every run of COND (of its
# WORKLOAD only, if given) as not available
record_na() {
	local cond=$1 reason=$2 w rep
	for w in ${3:-$CMP_WORKLOADS}; do
		applies_to "$w" || continue
		for ((rep = 1; rep <= REPS; rep++)); do
			NRUN=$((NRUN + 1))
			[[ $IRN_ROLE == a ]] || continue
			printf 'r%04d\t%s\t%s\t%s\tn/a: %s\t0\n' "$NRUN" "$cond" "$w" \
				"$rep" "$reason" >>"$OUT/runs.tsv"
		done
	done
}

main() {
	local conds c label args w rep reason why
	NRUN=0
	: >"$OUT/runs.tsv"
	uname -r >"$OUT/kernel.txt"
	# a peer that does not come up within 2 minutes never will (a guest
	# can die while booting on a loaded host): fail fast, the host retries
	barrier up 120 || exit 3
	setup_device || { log "cannot create the $TRANSPORT device"; exit 1; }
	IFS=';' read -r -a conds <<<"${CMP_CONDS:-lossless|none}"
	for c in "${conds[@]}"; do
		label=${c%%|*} args=${c#*|}
		if [[ -n $UNAVAILABLE ]]; then
			record_na "$label" "$UNAVAILABLE"
			continue
		fi
		reason=
		set_condition "$args" || reason="tc qdisc '$args' failed in this kernel"
		# both guests must agree whether the condition exists
		[[ -z $reason ]] || touch "$SHARED/cond-$label.bad.$IRN_ROLE"
		barrier "cond-$label" || exit 1
		if [[ -z $reason && -e $SHARED/cond-$label.bad.$PEER_ROLE ]]; then
			reason="tc qdisc '$args' failed in this kernel"
		fi
		if [[ -n $reason ]]; then
			log "$reason"
			record_na "$label" "$reason"
			continue
		fi
		for w in $CMP_WORKLOADS; do
			applies_to "$w" || continue
			why=$(workload_na "$w")
			if [[ -n $why ]]; then
				log "$w: $why"
				record_na "$label" "$why" "$w"
				continue
			fi
			for ((rep = 1; rep <= REPS; rep++)); do
				NRUN=$((NRUN + 1))
				run_one "$(printf 'r%04d' "$NRUN")" "$label" "$w" "$rep" || exit 1
			done
		done
	done
	clear_condition
	[[ $TRANSPORT == tcp || -n $UNAVAILABLE ]] ||
		rdma statistic show link "$DEV/1" >"$OUT/counters-final.txt" 2>&1
	[[ -z $UNAVAILABLE ]] || echo "$UNAVAILABLE" >"$OUT/unavailable"
	barrier all-done 60
	return 0
}

main "$@"
