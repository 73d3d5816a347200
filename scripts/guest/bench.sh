#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench.sh: one driver, every network condition and
# every workload.  Guest b serves, guest a runs the clients and writes one
# CSV line per condition and workload to $IRN_GUEST_OUT/results.csv:
#   driver,netem,workload,bw_MBps,lat_typical_us,lat_p99_us,rc,
#   resent_pkts,lost_pkts
# (resent: the client's retransmitted_pkts counter, irn only; lost: packets
# netem dropped on both guests during the run).
# Environment: BENCH_DRIVER (rxe | irn | irn-gbn | irn-sack1, or several
# of them separated by spaces: with BENCH_ROUNDS=N they take turns, N
# rounds in this one boot, each driver loaded before its turn and
# unloaded after it), BENCH_NETEM (';'-separated
# tc netem arguments, "none" for a clean link), BENCH_WORKLOADS (names
# below; nvme_randread and nvme_randwrite are NVMe over Fabrics with fio,
# IOPS in bw_MBps and p99 in lat_p99_us), BENCH_SECONDS; BENCH_TRACE=1 also saves the irn tracepoints of
# each run to $IRN_GUEST_OUT/TAG-WORKLOAD.trace (irn drivers only);
# BENCH_IRN_PARAMS adds module parameters for the irn driver ("cap=256");
# BENCH_LAT_ITERS, the latency workloads' round trips (2000).
# TAG-WORKLOAD.cpu-a and .cpu-b hold how busy (%) each guest's vCPU was
# during the run, in all and in the kernel: under TCG a busy vCPU, not the
# cable, is the bottleneck.
set -uo pipefail

drivers=${BENCH_DRIVER:?}
rounds=${BENCH_ROUNDS:-1}
drv=
netem=${BENCH_NETEM:-}
secs=${BENCH_SECONDS:-4}
out=$IRN_GUEST_OUT

setup_device() {
	if [[ $drv == rxe ]]; then
		modprobe crc32_generic 2>/dev/null
		modprobe rdma_rxe && rdma link add dev0 type rxe netdev eth0
	elif [[ $drv == irn-gbn ]]; then
		modprobe rdma_irn mode=gbn &&
			rdma link add dev0 type irn netdev eth0
	elif [[ $drv == irn-sack1 ]]; then
		# shellcheck disable=SC2086
		modprobe rdma_irn mode=auto sack_single=1 ${BENCH_IRN_PARAMS:-} &&
			rdma link add dev0 type irn netdev eth0
	else
		# shellcheck disable=SC2086
		modprobe rdma_irn mode=auto ${BENCH_IRN_PARAMS:-} &&
			rdma link add dev0 type irn netdev eth0
	fi
}

# teardown_device: unload the driver, so that another can take the port
teardown_device() {
	local m=rdma_irn n

	[[ $drv == rxe ]] && m=rdma_rxe
	rdma link delete dev0
	for n in $(seq 50); do
		rmmod "$m" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "cannot unload $m" >&2
	return 1
}

# setup_netem COND: the link's conditions for the next runs
setup_netem() {
	modprobe sch_netem
	/usr/sbin/tc qdisc del dev eth0 root 2>/dev/null
	[[ $1 == none ]] && return 0
	# shellcheck disable=SC2086
	/usr/sbin/tc qdisc add dev eth0 root netem $1
}

TRACING=/sys/kernel/tracing

trace_start() {
	[[ ${BENCH_TRACE:-0} == 1 && $drv != rxe ]] || return 0
	mountpoint -q $TRACING || mount -t tracefs none $TRACING || return 0
	echo 16384 >$TRACING/buffer_size_kb
	echo >$TRACING/trace
	echo 1 >$TRACING/events/irn/enable
}

trace_save() {
	[[ ${BENCH_TRACE:-0} == 1 && $drv != rxe ]] || return 0
	echo 0 >$TRACING/events/irn/enable
	cp $TRACING/trace "$1"
}

# cpu_ticks: busy, kernel (system, irq, softirq) and total jiffies so far
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i;
		print t - $5 - $6, $4 + $7 + $8, t; exit }' /proc/stat
}

# cpu_busy BUSY0 KERNEL0 TOTAL0: percent of the time since then the vCPU
# was busy, and busy in the kernel (irn's engines, where perftest's
# polling is user time)
cpu_busy() {
	local b k t
	read -r b k t < <(cpu_ticks)
	awk -v b=$((b - $1)) -v k=$((k - $2)) -v t=$((t - $3)) \
		'BEGIN { printf "busy %.0f kernel %.0f\n", t ? 100 * b / t : 0,
			t ? 100 * k / t : 0 }'
}

netem_dropped() {
	/usr/sbin/tc -s qdisc show dev eth0 |
		sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -n1
}

resent() {
	rdma statistic show link dev0/1 2>/dev/null | tr -s ' \n' '\n' |
		grep -A1 -x retransmitted_pkts | tail -n1
}

gid_index() {
	local i
	for i in /sys/class/infiniband/dev0/ports/1/gids/*; do
		i=${i##*/}
		[[ $(cat "/sys/class/infiniband/dev0/ports/1/gid_attrs/types/$i" 2>/dev/null) == "RoCE v2" ]] || continue
		[[ $(cat "/sys/class/infiniband/dev0/ports/1/gids/$i") == 0000:0000:0000:0000:0000:ffff:* ]] && { echo "$i"; return; }
	done
	echo 1
}

# Barrier through the shared export: both guests reach NAME.
barrier() {
	local me=$IRN_GUEST_SHARED/$1.$IRN_ROLE peer n=0
	peer=$IRN_GUEST_SHARED/$1.$([[ $IRN_ROLE == a ]] && echo b || echo a)
	touch "$me"
	while [[ ! -e $peer ]]; do
		sleep 0.2
		n=$((n + 1))
		((n < 900)) || return 1
	done
}

# ---- NVMe over Fabrics workloads (nvme_randread, nvme_randwrite) ----------
# Guest b is the target, guest a the host (nvme.sh).  The CSV gets IOPS in
# the bandwidth column and the p99 completion latency (us) in the p99
# column.
# shellcheck source=scripts/guest/nvme.sh
source "$(dirname "${BASH_SOURCE[0]}")/nvme.sh"
# shellcheck source=scripts/lib/compare.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/compare.sh"
NVME_TADDR=10.77.0.2

# nvme_client NAME OUT: one fio run; prints "IOPS P99_US" (0 0 on failure).
# fio's report is read by the comparison's parser (MB/s): the blocks are
# 4 KiB, so 256 I/Os make a MB.
nvme_client() {
	local log=$2 bw p99
	irn_nvme_run "$1" "$secs" "$NVME_TADDR" "$log" "$log.json"
	IFS=, read -r bw _ p99 < <(irn_cmp_parse_fio "$log.json")
	if [[ -n $bw && -n $p99 ]]; then
		awk -v bw="$bw" -v p99="$p99" \
			'BEGIN { printf "%.0f %.0f\n", bw * 256, p99 }'
	else
		echo "0 0"
	fi
}

# workload NAME -> the perftest command line (without device options)
workload_cmd() {
	case $1 in
	write_bw) echo "ib_write_bw -s 65536 -D $secs" ;;
	read_bw) echo "ib_read_bw -s 65536 -D $secs" ;;
	send_bw) echo "ib_send_bw -s 65536 -D $secs" ;;
	write_bw_q4) echo "ib_write_bw -s 65536 -D $secs -q 4" ;;
	atomic_bw) echo "ib_atomic_bw -D $secs" ;;
	write_lat) echo "ib_write_lat -s 64 -n ${BENCH_LAT_ITERS:-2000}" ;;
	send_lat) echo "ib_send_lat -s 64 -n ${BENCH_LAT_ITERS:-2000}" ;;
	nvme_randread | nvme_randwrite) echo "$1" ;;
	*) return 1 ;;
	esac
}

parse() {
	local f=$1
	awk '/#bytes/ { getline; print; exit }' "$f"
}

run_one() {
	local name=$1 cmd gid=$2 cond=$3 tag=$4 line bw=0 typ=0 p99=0 rc=0 t
	local drop0 retx0 lost retx b0 k0 t0
	cmd=$(workload_cmd "$name") || return 0
	barrier "start-$tag-$name" || return 0
	drop0=$(netem_dropped) retx0=$(resent)
	if [[ $name == nvme_* ]]; then
		if [[ $IRN_ROLE == b ]]; then
			irn_nvme_target "$NVME_TADDR" >>"$out/$tag-$name.server" 2>&1 ||
				echo "nvmet target setup failed" >>"$out/$tag-$name.server"
			barrier "target-$tag-$name"
			barrier "end-$tag-$name"
			echo $(($(netem_dropped) - ${drop0:-0})) \
				>"$IRN_GUEST_SHARED/drops-$tag-$name"
			barrier "counted-$tag-$name"
			return 0
		fi
		barrier "target-$tag-$name"
		read -r bw p99 < <(nvme_client "$name" "$out/$tag-$name.client")
		[[ $bw != 0 ]] || rc=1
		barrier "end-$tag-$name"
		barrier "counted-$tag-$name"
		lost=$(($(netem_dropped) - ${drop0:-0} + $(cat "$IRN_GUEST_SHARED/drops-$tag-$name" 2>/dev/null || echo 0)))
		retx=$(($(resent || echo 0) - ${retx0:-0}))
		[[ $drv == rxe ]] && retx=-1
		printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$drv" "$cond" "$name" \
			"$bw" 0 "$p99" "$rc" "$retx" "$lost" >>"$out/results.csv"
		return 0
	fi
	if [[ $IRN_ROLE == b ]]; then
		read -r b0 k0 t0 < <(cpu_ticks)
		# shellcheck disable=SC2086
		timeout $((secs + 90)) $cmd -d dev0 -x "$gid" >"$out/$tag-$name.server" 2>&1
		cpu_busy "$b0" "$k0" "$t0" >"$out/$tag-$name.cpu-b"
		echo $(($(netem_dropped) - ${drop0:-0})) \
			>"$IRN_GUEST_SHARED/drops-$tag-$name"
		barrier "end-$tag-$name"
		return 0
	fi
	sleep 2
	trace_start
	read -r b0 k0 t0 < <(cpu_ticks)
	: >"$out/$tag-$name.client"
	for t in 1 2 3; do
		echo "--- attempt $t" >>"$out/$tag-$name.client"
		# shellcheck disable=SC2086
		timeout $((secs + 90)) $cmd -d dev0 -x "$gid" "$IRN_PEER_IP" \
			>>"$out/$tag-$name.client" 2>&1 && { rc=0; break; }
		rc=$?
		sleep 2
	done
	cpu_busy "$b0" "$k0" "$t0" >"$out/$tag-$name.cpu-a"
	trace_save "$out/$tag-$name.trace"
	barrier "end-$tag-$name"
	lost=$(($(netem_dropped) - ${drop0:-0} + $(cat "$IRN_GUEST_SHARED/drops-$tag-$name" 2>/dev/null || echo 0)))
	retx=$(($(resent || echo 0) - ${retx0:-0}))
	[[ $drv == rxe ]] && retx=-1
	line=$(parse "$out/$tag-$name.client")
	if [[ $name == *_lat ]]; then
		typ=$(awk '{ print $5 }' <<<"$line")
		p99=$(awk '{ print $8 }' <<<"$line")
	elif [[ $name == atomic_bw ]]; then
		# 8-byte operations: the message rate (Mpps) as operations/s
		bw=$(awk '{ printf "%.0f", $5 * 1000000 }' <<<"$line")
	else
		bw=$(awk '{ print $4 }' <<<"$line")
	fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$drv" "$cond" "$name" \
		"${bw:-0}" "${typ:-0}" "${p99:-0}" "$rc" "$retx" "$lost" \
		>>"$out/results.csv"
}

# one driver's turn: every condition and every workload; TAG names its
# files ("c1" and so on in a single-driver run)
turn() {
	local tag=$1 gid w cond i=0 conds

	setup_device || { echo "cannot create the $drv device" >&2; exit 1; }
	gid=$(gid_index)
	IFS=';' read -r -a conds <<<"${netem:-none}"
	for cond in "${conds[@]}"; do
		i=$((i + 1))
		setup_netem "$cond" || { echo "cannot set netem '$cond'" >&2; exit 1; }
		for w in ${BENCH_WORKLOADS:-write_bw read_bw send_bw write_lat send_lat}; do
			run_one "$w" "$gid" "$cond" "${tag}c$i"
		done
	done
	rdma statistic show link dev0/1 >"$out/${tag}counters.txt" 2>&1
}

main() {
	local r tag=''

	for ((r = 1; r <= rounds; r++)); do
		for drv in $drivers; do
			[[ $rounds == 1 && $drv == "$drivers" ]] || tag=r$r-$drv-
			turn "$tag"
			[[ $tag == '' ]] || teardown_device || exit 1
		done
	done
	barrier "done"
	return 0
}

main "$@"
