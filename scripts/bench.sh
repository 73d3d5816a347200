#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: stock rdma_rxe against irn, side by side in one run, on two
# QEMU guests joined by one virtual cable.  Prints a table and irn/rxe
# ratios.  Not a test: numbers on shared machines drift, ratios less so.
#
#   scripts/bench.sh [--netem "COND[;COND...]"] [--seconds N]
#                    [--workloads "write_bw read_bw send_bw write_lat send_lat"]
#                    (also atomic_bw: ib_atomic_bw; nvme_randread
#                    nvme_randwrite: NVMe-oF + fio)
#                    [--drivers "rxe irn-gbn irn"] [--rounds N]
#                    [--out DIR]
#
# Drivers: rxe (stock), irn-gbn (irn, standard go-back-N), irn (irn, auto:
# IRN between two irn devices), irn-sack1 (IRN whose SACKs name one PSN,
# as the IRN paper's NACK).  Conditions are tc netem arguments, "none"
# for a clean link; the first is each driver's reference ("% of own").
# Each driver boots its own pair of guests, and one boot can move a
# latency by more than the drivers differ; --rounds N instead boots one
# pair for all of them, where the drivers take turns N times (each loaded
# for its turn and unloaded after it), and the table shows the median of
# the N runs (not with the nvme_* workloads, whose target holds the
# device).
# BENCH_TRACE=1 in the environment saves irn's tracepoints per run;
# BENCH_IRN_PARAMS="cap=256" passes module parameters to the irn driver;
# BENCH_LAT_ITERS sets the latency workloads' round trips (2000).
# The guests' cable is a Unix socket; IRN_CABLE=tcp uses QEMU's TCP
# socket netdev instead (scripts/vm.sh), whose Nagle adds up to 40 ms to
# small request-reply exchanges.
#   scripts/bench.sh --netem "delay 2ms;delay 2ms loss 1%;delay 2ms loss 5%"
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

NETEM="" SECONDS_PER=4 DRIVERS="rxe irn-gbn irn" OUT="" ROUNDS=
WORKLOADS="write_bw read_bw send_bw write_lat send_lat"

usage() {
	sed -n '4,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--netem) NETEM=$2; shift ;;
		--seconds) SECONDS_PER=$2; shift ;;
		--workloads) WORKLOADS=$2; shift ;;
		--drivers) DRIVERS=$2; shift ;;
		--rounds) ROUNDS=$2; shift ;;
		--out) OUT=$2; shift ;;
		-h | --help) usage 0 ;;
		*) usage 1 ;;
		esac
		shift
	done
}

# run_driver DRIVERS KO [NAME]: one boot of the guest pair for DRIVERS
# (with ROUNDS, they take turns in it); prints the guests' CSV lines
run_driver() {
	local drv=$1 ko=$2 name=${3:-$1} limit=1200

	[[ -z $ROUNDS ]] || limit=$((1200 * ROUNDS * $(wc -w <<<"$drv")))
	"$IRN_ROOT/scripts/vm.sh" --guests 2 --run-dir "$OUT" --name "$name" \
		--timeout "$limit" --modules "$ko" \
		--env "BENCH_DRIVER=$drv" --env "BENCH_ROUNDS=${ROUNDS:-1}" \
		--env "BENCH_NETEM=$NETEM" \
		--env "BENCH_SECONDS=$SECONDS_PER" \
		--env "BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-2000}" \
		--env "BENCH_WORKLOADS=$WORKLOADS" \
		--env "BENCH_TRACE=${BENCH_TRACE:-0}" \
		--env "BENCH_IRN_PARAMS=${BENCH_IRN_PARAMS:-}" \
		"$IRN_ROOT/scripts/guest/bench.sh" >&2 ||
		irn_warn "$name run reported a problem (see $OUT/$name)"
	cat "$OUT/$name/guest-a/out/results.csv" 2>/dev/null || true
}

report() {
	local csv=$1
	awk -F, '
	{ d = $1; c = $2; k = $3
	  if (!(d in dseen)) { dseen[d] = 1; drv[nd++] = d }
	  if (!(c in cseen)) { cseen[c] = 1; cond[nc++] = c }
	  if (!(k in kseen)) { kseen[k] = 1; wl[nk++] = k }
	  n = ++runs[d, c, k]
	  vs[d, c, k, n] = (k ~ /_lat$/) ? $5 : $4; ps[d, c, k, n] = $6
	  twice[k] = (k ~ /_lat$/ || k ~ /^nvme_/)
	  retx[d, c, k] += $8; lost[d, c, k] += $9 }
	# median of the N runs of one cell (a run that failed counts as 0)
	function median(a, key, n,    i, j, t, x) {
		for (i = 1; i <= n; i++)
			x[i] = a[key, i] + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && x[j - 1] > x[j]; j--) {
				t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
			}
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	END {
		for (key in runs) {
			v[key] = median(vs, key, runs[key])
			p99[key] = median(ps, key, runs[key])
			if (runs[key] > maxruns)
				maxruns = runs[key]
		}
		if (maxruns > 1)
			printf "medians of %d runs per cell; resent/lost summed over them\n", maxruns
		for (j = 0; j < nc; j++) {
			printf "\nnetem: %s\n%-18s", cond[j], "workload"
			for (i = 0; i < nd; i++)
				printf " %10s %6s", drv[i], "%own"
			printf " %8s %s\n", "irn/rxe", " resent/lost (irn drivers)"
			for (m = 0; m < nk; m++) {
				k = wl[m]
				for (pass = 0; pass < (twice[k] ? 2 : 1); pass++) {
					printf "%-18s", k (pass ? "_p99" : "")
					for (i = 0; i < nd; i++) {
						x = pass ? p99[drv[i], cond[j], k] : v[drv[i], cond[j], k]
						r = pass ? p99[drv[i], cond[0], k] : v[drv[i], cond[0], k]
						printf " %10s %5s%%", x, (x > 0 && r > 0) ? sprintf("%.0f", 100 * x / r) : "-"
					}
					a = pass ? p99["rxe", cond[j], k] : v["rxe", cond[j], k]
					b = pass ? p99["irn", cond[j], k] : v["irn", cond[j], k]
					printf " %8s ", (a > 0 && b > 0) ? sprintf("%.2f", b / a) : "n/a"
					if (!pass)
						for (i = 0; i < nd; i++)
							if (retx[drv[i], cond[j], k] >= 0)
								printf " %s %s/%s", drv[i], retx[drv[i], cond[j], k], lost[drv[i], cond[j], k]
					printf "\n"
				}
			}
		}
		print "\n(bandwidth in MB/s, atomic_bw in operations/s, nvme_* (NVMe-oF fio 4k iodepth 16) in IOPS, latency in microseconds; %own: of the same driver on the first condition; for latency lower is better)"
	}' "$csv"
}

main() {
	local kdir ko csv d
	parse_args "$@"
	if [[ -n $ROUNDS ]]; then
		[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || irn_die "--rounds must be a positive integer"
		[[ $WORKLOADS != *nvme_* ]] ||
			irn_die "--rounds does not take the nvme_* workloads (the NVMe target holds the device between turns)"
	fi
	irn_need_root bench
	irn_guest_lock "scripts/bench.sh"
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	OUT=${OUT:-$IRN_RESULTS/bench-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$OUT"
	kdir=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
		irn_die "module build failed"
	ko=$kdir/rdma_irn.ko
	csv=$OUT/results.csv
	: >"$csv"
	irn_watch_host_start "$OUT"
	if [[ -n $ROUNDS ]]; then
		irn_log "bench: $DRIVERS taking turns $ROUNDS times in one boot, netem '${NETEM:-none}'"
		run_driver "$DRIVERS" "$ko" interleaved >>"$csv"
	else
		for d in $DRIVERS; do
			irn_log "bench: $d, netem '${NETEM:-none}'"
			run_driver "$d" "$ko" >>"$csv"
		done
	fi
	printf 'netem: %s\n' "${NETEM:-none}"
	report "$csv"
	irn_host_busy_note "$OUT"
	printf 'raw results: %s\n' "$csv"
}

main "$@"
