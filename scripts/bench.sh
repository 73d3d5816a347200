#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: stock rdma_rxe against irn, side by side in one run, on two
# QEMU guests joined by one virtual cable.  Prints a table and irn/rxe
# ratios.  Not a test: numbers on shared machines drift, ratios less so.
#
#   scripts/bench.sh [--netem "delay 2ms loss 1%"] [--seconds N]
#                    [--workloads "write_bw read_bw send_bw write_lat send_lat"]
#                    [--drivers "rxe irn"] [--out DIR]
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

NETEM="" SECONDS_PER=4 DRIVERS="rxe irn" OUT=""
WORKLOADS="write_bw read_bw send_bw write_lat send_lat"

usage() {
	sed -n '4,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--netem) NETEM=$2; shift ;;
		--seconds) SECONDS_PER=$2; shift ;;
		--workloads) WORKLOADS=$2; shift ;;
		--drivers) DRIVERS=$2; shift ;;
		--out) OUT=$2; shift ;;
		-h | --help) usage 0 ;;
		*) usage 1 ;;
		esac
		shift
	done
}

run_driver() {
	local drv=$1 ko=$2
	"$IRN_ROOT/scripts/vm.sh" --guests 2 --run-dir "$OUT" --name "$drv" \
		--timeout 1200 --modules "$ko" \
		--env "BENCH_DRIVER=$drv" --env "BENCH_NETEM=$NETEM" \
		--env "BENCH_SECONDS=$SECONDS_PER" \
		--env "BENCH_WORKLOADS=$WORKLOADS" \
		"$IRN_ROOT/scripts/guest/bench.sh" >&2 ||
		irn_warn "$drv run reported a problem (see $OUT/$drv)"
	cat "$OUT/$drv/guest-a/out/results.csv" 2>/dev/null || true
}

report() {
	local csv=$1
	awk -F, '
	{ key = $3; drv[$1] = 1; bw[$1, key] = $4; typ[$1, key] = $5;
	  p99[$1, key] = $6; rc[$1, key] = $7; if (!(key in seen)) {
	  seen[key] = 1; order[n++] = key } }
	END {
		printf "%-12s %14s %14s %8s\n", "workload", "rxe", "irn", "irn/rxe"
		for (i = 0; i < n; i++) {
			k = order[i]
			if (k ~ /_lat$/) {
				a = typ["rxe", k]; b = typ["irn", k]; unit = "us typ"
			} else {
				a = bw["rxe", k]; b = bw["irn", k]; unit = "MB/s"
			}
			r = (a > 0 && b > 0) ? sprintf("%.2f", b / a) : "n/a"
			printf "%-12s %9s %-4s %9s %-4s %8s\n", k, a, "", b, "", r
			if (k ~ /_lat$/) {
				a = p99["rxe", k]; b = p99["irn", k]
				r = (a > 0 && b > 0) ? sprintf("%.2f", b / a) : "n/a"
				printf "%-12s %9s %-4s %9s %-4s %8s\n", k "_p99", a, "", b, "", r
			}
		}
		print "(bandwidth in MB/s, latency in microseconds; for latency a ratio below 1 is better)"
	}' "$csv"
}

main() {
	local kdir ko csv d
	parse_args "$@"
	irn_need_root bench
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	OUT=${OUT:-$IRN_RESULTS/bench-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$OUT"
	kdir=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
		irn_die "module build failed"
	ko=$kdir/rdma_irn.ko
	csv=$OUT/results.csv
	: >"$csv"
	for d in $DRIVERS; do
		irn_log "bench: $d, netem '${NETEM:-none}'"
		run_driver "$d" "$ko" >>"$csv"
	done
	printf 'netem: %s\n' "${NETEM:-none}"
	report "$csv"
	printf 'raw results: %s\n' "$csv"
}

main "$@"
