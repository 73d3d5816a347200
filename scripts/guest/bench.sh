#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/bench.sh: one driver, one set of network conditions,
# every workload.  Guest b serves, guest a runs the clients and writes one
# CSV line per workload to $IRN_GUEST_OUT/results.csv:
#   driver,netem,workload,bw_MBps,lat_typical_us,lat_p99_us,rc
# Environment: BENCH_DRIVER (rxe|irn), BENCH_NETEM (tc netem arguments or
# empty), BENCH_WORKLOADS (names below), BENCH_SECONDS.
set -uo pipefail

drv=${BENCH_DRIVER:?}
netem=${BENCH_NETEM:-}
secs=${BENCH_SECONDS:-4}
out=$IRN_GUEST_OUT

setup_device() {
	if [[ $drv == rxe ]]; then
		modprobe crc32_generic 2>/dev/null
		modprobe rdma_rxe && rdma link add dev0 type rxe netdev eth0
	else
		modprobe rdma_irn && rdma link add dev0 type irn netdev eth0
	fi
}

setup_netem() {
	[[ -n $netem ]] || return 0
	modprobe sch_netem
	# shellcheck disable=SC2086
	/usr/sbin/tc qdisc add dev eth0 root netem $netem
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

# workload NAME -> the perftest command line (without device options)
workload_cmd() {
	case $1 in
	write_bw) echo "ib_write_bw -s 65536 -D $secs" ;;
	read_bw) echo "ib_read_bw -s 65536 -D $secs" ;;
	send_bw) echo "ib_send_bw -s 65536 -D $secs" ;;
	write_bw_q4) echo "ib_write_bw -s 65536 -D $secs -q 4" ;;
	write_lat) echo "ib_write_lat -s 64 -n 300" ;;
	send_lat) echo "ib_send_lat -s 64 -n 300" ;;
	*) return 1 ;;
	esac
}

parse() {
	local f=$1
	awk '/#bytes/ { getline; print; exit }' "$f"
}

run_one() {
	local name=$1 cmd gid=$2 line bw=0 typ=0 p99=0 rc=0 t
	cmd=$(workload_cmd "$name") || return 0
	barrier "start-$name" || return 0
	if [[ $IRN_ROLE == b ]]; then
		# shellcheck disable=SC2086
		timeout $((secs + 90)) $cmd -d dev0 -x "$gid" >"$out/$name.server" 2>&1
		return 0
	fi
	sleep 2
	for t in 1 2 3; do
		# shellcheck disable=SC2086
		timeout $((secs + 90)) $cmd -d dev0 -x "$gid" "$IRN_PEER_IP" \
			>"$out/$name.client" 2>&1 && { rc=0; break; }
		rc=$?
		sleep 2
	done
	line=$(parse "$out/$name.client")
	if [[ $name == *_lat ]]; then
		typ=$(awk '{ print $5 }' <<<"$line")
		p99=$(awk '{ print $8 }' <<<"$line")
	else
		bw=$(awk '{ print $4 }' <<<"$line")
	fi
	printf '%s,%s,%s,%s,%s,%s,%s\n' "$drv" "${netem:-none}" "$name" \
		"${bw:-0}" "${typ:-0}" "${p99:-0}" "$rc" >>"$out/results.csv"
}

main() {
	local gid w
	setup_device || { echo "cannot create the $drv device" >&2; exit 1; }
	setup_netem || { echo "cannot set netem '$netem'" >&2; exit 1; }
	gid=$(gid_index)
	for w in ${BENCH_WORKLOADS:-write_bw read_bw send_bw write_lat send_lat}; do
		run_one "$w" "$gid"
	done
	rdma statistic show link dev0/1 >"$out/counters.txt" 2>&1
	barrier done
	return 0
}

main "$@"
