#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lossless against lossy: RDMA transports side by side on two QEMU guests
# joined by one virtual cable (--one-guest: two network namespaces of one
# guest), under network conditions set with tc on both guests' eth0, with
# raw TCP (iperf3) as the ceiling.  Shows each run with the time left,
# then writes one results folder: runs.csv (one row per run),
# summary.csv and summary.md (medians, % of the lossless figure,
# counters, the guests' vCPU use), ratios.csv (each transport over stock
# rxe, when rxe ran; also printed at the end), PNG plots (gnuplot).
#
#   scripts/compare.sh [--preset bench|demo] [--quick] [--reps N]
#                      [--rounds N] [--seconds S] [--lat-iters N]
#                      [--transports "rxe irn-gbn irn siw tcp"]
#                      [--conditions "NAME ..."] [--workloads "NAME ..."]
#                      [--siw-kernel kunit|debian] [--one-guest]
#                      [--out DIR] [--list] [--plan]
#   scripts/compare.sh --report DIR   tables and plots again from DIR/runs.csv
#   scripts/compare.sh --publish DIR  the same, then Documentation/results.rst,
#                                     its plots and README's headline from DIR
#
# Transports: rxe (stock rdma_rxe), irn-gbn (irn, mode=gbn: standard
# go-back-N), irn (irn, mode=irn: IRN forced on both ends), irn-auto (irn,
# mode=auto: negotiated), irn-sack1 (irn, mode=irn with sack_single=1:
# each SACK names one PSN, as the IRN paper's NACK), siw (soft-iWARP,
# RDMA over TCP; runs on the harness's own kernel, scripts/kernel.sh,
# since Debian's has no siw: the row says "n/a" when the kernel lacks
# it), tcp (iperf3, the ceiling).
# Workloads: write_bw read_bw send_bw write_bw_4qp (64 KiB messages,
# for S seconds; 4qp: 4 QPs), atomic_bw (ib_atomic_bw for S seconds, in
# MB/s of 8-byte operations: 1 MB/s is 131072 operations/s; not in the
# default set), write_lat send_lat (64 B, N iterations; p50 and p99),
# nvme_randread nvme_randwrite (NVMe over Fabrics: nvmet-rdma on guest b,
# nvme-rdma and fio on guest a, 4 KiB random I/O at iodepth 16 for S
# seconds; goodput in MB/s, 256 IOPS each, and completion latency p50
# and p99), iperf3 (tcp only).  --list prints the conditions; --plan
# what the other options make of a run (boots, runs), and runs nothing.
# Default (full): all transports, all conditions, all workloads but
# atomic_bw, 3 runs of 4 s each (990 runs, some 3.5 hours under QEMU TCG
# on 2 cores; without the NVMe-oF workloads, --reps 1 --seconds 3
# --lat-iters 100 took 45 minutes).  Each transport boots its own guests.
# Presets set some of the options; options given explicitly win:
#   --preset demo (also --quick; make demo): rxe irn-gbn irn tcp;
#     lossless, 1% and 5% loss, the shallow bottleneck; write_bw write_lat
#     iperf3; 1 run of 2 s, 500 latency iterations (some 6 minutes).
#   --preset bench (make bench): rxe irn-gbn irn on the lossless link;
#     write_bw read_bw send_bw write_lat send_lat; --rounds 3, 4 s, 2000
#     latency iterations: the ratios to rxe, from one boot.
# --rounds N: one boot of the guest pair for all the transports instead
# of one each, in which they take turns N times, each loaded for its
# turn and unloaded after it; the tables show the medians of the turns
# (--reps: runs per turn, 1 unless given).  A boot alone can move a
# latency by more than the transports differ.  Not with the NVMe-oF
# workloads, whose target holds the device across turns: they are left
# out of the default workloads, and naming them is an error.  siw, on
# its own kernel, boots its own guests for its N rounds.
# Environment: IRN_CMP_TRACE=1 saves irn's tracepoints of each run
# (raw/NAME/guest-a/out/rNNNN.trace); IRN_CMP_IRN_PARAMS="cap=256"
# passes more rdma_irn module parameters to the transports with IRN on
# (irn, irn-auto, irn-sack1; irn-gbn stays standard); IRN_CABLE=tcp
# joins the guests over QEMU's TCP socket netdev (scripts/vm.sh).
# --one-guest: both ends in one guest (2 vCPUs; IRN_CMP_ONE_GUEST_CPUS
# sets how many) instead of two, in network namespaces n1 (clients) and
# n2 (servers) joined by a veth pair, with the conditions on both veth
# ends; no QEMU cable.  One boot per transport
# instead of two (with --rounds, one for all), but both ends share the
# guest's CPUs: its figures do not compare with a two-guest run's.  Runs
# irn-gbn, irn, irn-auto, irn-sack1 and tcp; rxe (stock rdma_rxe binds
# its port in the initial namespace only) and siw (not in Debian's
# kernel) are "n/a" rows, and so are the NVMe-oF workloads (nvme-rdma
# connects in the initial namespace only).  meta.env (IRN_CMP_MODE) and
# summary.md say the mode.
# Results default to results/compare-DATE (PRESET-DATE with a preset,
# and -one-guest after the name in that mode).  The results folder's
# meta.env records the run (date, commit, command, host, kernels) for
# --publish, which writes the page of measured results
# (Documentation/results.rst), copies its plots to Documentation/images/
# and rewrites README.rst between ".. results-headline-start" and
# ".. results-headline-end"; IRN_PUBLISH_ROOT names another tree to write
# into than this checkout.
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"
# shellcheck source=scripts/lib/compare.sh
source "$IRN_ROOT/scripts/lib/compare.sh"

# name|delay_ms|loss_pct|kind|tc qdisc arguments, on both guests' eth0
# (so requests, responses and ACKs all suffer).  kind: lossless, random,
# reorder, congestion.  "ingress Q": qdisc Q on what each guest receives
# (eth0 redirected to an ifb device), so that senders get no local
# backpressure.  The bottleneck is a token bucket at 50 Mbit/s with a 16
# KB queue (about 10 full frames) in front of each receiver: what a
# shallow-buffer switch port without PFC does to a faster sender.
CONDITIONS="
lossless|0|0|lossless|none
loss-0.1%|0|0.1|random|netem loss 0.1%
loss-1%|0|1|random|netem loss 1%
loss-5%|0|5|random|netem loss 5%
2ms|2|0|lossless|netem delay 2ms
2ms-loss-0.1%|2|0.1|random|netem delay 2ms loss 0.1%
2ms-loss-1%|2|1|random|netem delay 2ms loss 1%
2ms-loss-5%|2|5|random|netem delay 2ms loss 5%
2ms-reorder|2|0|reorder|netem delay 2ms reorder 25% 50%
bottleneck|0|0|congestion|ingress tbf rate 50mbit burst 16kb limit 16kb
"
ALL_CONDS="lossless loss-0.1% loss-1% loss-5% 2ms 2ms-loss-0.1% 2ms-loss-1% 2ms-loss-5% 2ms-reorder bottleneck"
QUICK_CONDS="lossless loss-1% loss-5% bottleneck"

TRANSPORTS="rxe irn-gbn irn siw tcp"
WORKLOADS="write_bw read_bw send_bw write_bw_4qp write_lat send_lat nvme_randread nvme_randwrite iperf3"
CONDS=$ALL_CONDS
REPS=3 SECS=4 LAT_ITERS=1000 OUT='' SIW_KERNEL=kunit PRESET='' REPORT='' PUBLISH='' PLAN=0
# --rounds: empty for one boot per transport
ROUNDS=''
# two-guest: the ends in two guests joined by a QEMU cable; one-guest:
# both in one guest (--one-guest)
MODE=two-guest
# The one guest's vCPUs: as many as the two guests have together, so
# that the ends get as much CPU time as apart, though not a CPU each: the
# guest's kernel schedules both ends, and the veth's receive work, on
# either.  IRN_CMP_ONE_GUEST_CPUS=1 gives it one (ops-guide.rst says
# what each shows).
ONE_GUEST_CPUS=${IRN_CMP_ONE_GUEST_CPUS:-2}
SET_T=0 SET_C=0 SET_W=0 SET_R=0 SET_S=0 SET_L=0 SET_N=0

usage() {
	awk 'NR >= 4 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 4 { exit }' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

list_conditions() {
	printf '%-16s %-6s %-6s %-11s %s\n' name "delay" "loss" kind "tc qdisc (on each guest's eth0; ingress: on what it receives)"
	sed '/^$/d' <<<"$CONDITIONS" | awk -F'|' '{ printf "%-16s %-6s %-6s %-11s %s\n", $1, $2 "ms", $3 "%", $4, $5 }'
	exit 0
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--quick) set_preset demo ;;
		--preset) set_preset "$2"; shift ;;
		--reps) REPS=$2 SET_R=1; shift ;;
		--rounds) ROUNDS=$2 SET_N=1; shift ;;
		--seconds) SECS=$2 SET_S=1; shift ;;
		--lat-iters) LAT_ITERS=$2 SET_L=1; shift ;;
		--transports) TRANSPORTS=$2 SET_T=1; shift ;;
		--conditions) CONDS=$2 SET_C=1; shift ;;
		--workloads) WORKLOADS=$2 SET_W=1; shift ;;
		--siw-kernel) SIW_KERNEL=$2; shift ;;
		--one-guest) MODE=one-guest ;;
		--out) OUT=$2; shift ;;
		--list) list_conditions ;;
		--plan) PLAN=1 ;;
		--report) REPORT=$2; shift ;;
		--publish) PUBLISH=$2; shift ;;
		-h | --help) usage 0 ;;
		*) irn_warn "unknown option $1"; usage 1 ;;
		esac
		shift
	done
	apply_preset
	[[ -z $ROUNDS ]] || rounds_check
	validate
}

# set_preset NAME: the run's preset (--quick is demo); one per run
set_preset() {
	[[ -z $PRESET || $PRESET == "$1" ]] ||
		irn_die "one preset per run: $PRESET and $1 (--quick is --preset demo)"
	PRESET=$1
}

# apply_preset: the preset's transports, conditions, workloads, reps,
# seconds, latency iterations and rounds, each where no option set it
apply_preset() {
	case $PRESET in
	'') ;;
	demo) preset_parts "rxe irn-gbn irn tcp" "$QUICK_CONDS" "write_bw write_lat iperf3" 1 2 500 '' ;;
	bench) preset_parts "rxe irn-gbn irn" lossless "write_bw read_bw send_bw write_lat send_lat" 1 4 2000 3 ;;
	*) irn_die "unknown preset '$PRESET' (bench or demo; see --help)" ;;
	esac
	# the turns, not repetitions within a turn, give the medians
	[[ -z $ROUNDS || $SET_R == 1 ]] || REPS=1
}

# preset_parts TRANSPORTS CONDS WORKLOADS REPS SECONDS LAT_ITERS ROUNDS
preset_parts() {
	[[ $SET_T == 1 ]] || TRANSPORTS=$1
	[[ $SET_C == 1 ]] || CONDS=$2
	[[ $SET_W == 1 ]] || WORKLOADS=$3
	[[ $SET_R == 1 ]] || REPS=$4
	[[ $SET_S == 1 ]] || SECS=$5
	[[ $SET_L == 1 ]] || LAT_ITERS=$6
	[[ $SET_N == 1 ]] || ROUNDS=$7
}

# rounds_check: --rounds is a count, and runs without the NVMe-oF
# workloads: nvmet-rdma holds the device from its first run on, so no
# turn could unload it
rounds_check() {
	local w keep='' who=--rounds
	[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || irn_die "--rounds must be a positive integer"
	[[ " $WORKLOADS " == *" nvme_"* ]] || return 0
	[[ $SET_N == 1 ]] || who="--preset $PRESET (--rounds $ROUNDS)"
	[[ $SET_W == 0 ]] ||
		irn_die "$who does not take the nvme_* workloads (the NVMe-oF target holds the device across turns); run them without --rounds"
	for w in $WORKLOADS; do
		[[ $w == nvme_* ]] || keep+="${keep:+ }$w"
	done
	WORKLOADS=$keep
	irn_warn "--rounds: the NVMe-oF workloads are left out (the target holds the device across turns)"
}

validate() {
	local t c w
	[[ $REPS =~ ^[1-9][0-9]*$ ]] || irn_die "--reps must be a positive integer"
	[[ $SECS =~ ^[1-9][0-9]*$ ]] || irn_die "--seconds must be a positive integer"
	[[ $LAT_ITERS =~ ^[1-9][0-9]*$ ]] || irn_die "--lat-iters must be a positive integer"
	[[ $SIW_KERNEL == kunit || $SIW_KERNEL == debian ]] || irn_die "--siw-kernel must be kunit or debian"
	for t in $TRANSPORTS; do
		case $t in
		rxe | irn-gbn | irn | irn-auto | irn-sack1 | siw | tcp) ;;
		*) irn_die "unknown transport '$t' (see --help)" ;;
		esac
	done
	for c in $CONDS; do
		cond_line "$c" >/dev/null || irn_die "unknown condition '$c' (see --list)"
	done
	for w in $WORKLOADS; do
		case $w in
		write_bw | read_bw | send_bw | write_bw_4qp | atomic_bw | write_lat | \
			send_lat | nvme_randread | nvme_randwrite | iperf3) ;;
		*) irn_die "unknown workload '$w' (see --help)" ;;
		esac
	done
	[[ -n $TRANSPORTS && -n $CONDS && -n $WORKLOADS ]] ||
		irn_die "nothing to run: transports, conditions and workloads must not be empty"
	if [[ $MODE == one-guest ]]; then
		for t in $TRANSPORTS; do
			[[ -n $(mode_na "$t") ]] || return 0
		done
		irn_die "--one-guest runs irn-gbn, irn, irn-auto, irn-sack1 and tcp; none of '$TRANSPORTS' (see --help)"
	fi
}

# boots: the guest boots of the run, one per line, each its raw/ name
# and its transports: one per transport, or with --rounds all of
# Debian's kernel in one and siw (its own kernel) in another.  The
# transports this mode cannot run boot nothing.
boots() {
	local t group=''
	for t in $TRANSPORTS; do
		[[ -z $(mode_na "$t") ]] || continue
		if [[ -z $ROUNDS ]]; then
			printf '%s %s\n' "$t" "$t"
		elif [[ $t != siw ]]; then
			group+=" $t"
		fi
	done
	[[ -z $group ]] || printf 'rounds%s\n' "$group"
	[[ -z $ROUNDS || " $TRANSPORTS " != *" siw "* || -n $(mode_na siw) ]] || echo "siw siw"
}

# plan: what the options make of the run, without running it
plan() {
	local name trs total=0 t
	printf '%-12s %s\n' preset "${PRESET:--}" mode "$MODE" transports "$TRANSPORTS" \
		conditions "$CONDS" workloads "$WORKLOADS" reps "$REPS" \
		rounds "${ROUNDS:--}" seconds "$SECS" lat-iters "$LAT_ITERS"
	while read -r name trs; do
		printf '%-12s %s: %s\n' boot "$name" "$trs"
	done < <(boots)
	for t in $TRANSPORTS; do
		if [[ -n $(mode_na "$t") ]]; then
			printf '%-12s %s: %s\n' n/a "$t" "$(mode_na "$t")"
		else
			total=$((total + $(runs_for "$t")))
		fi
	done
	printf '%-12s %s\n' runs "$total"
	exit 0
}

# cond_line NAME: its line of CONDITIONS
cond_line() {
	awk -F'|' -v n="$1" '$1 == n { print; f = 1 } END { exit !f }' <<<"$CONDITIONS"
}

# runs_for TRANSPORT: how many runs that transport's guests will make,
# over all its rounds
runs_for() {
	local w n=0 c
	for w in $WORKLOADS; do
		if [[ $1 == tcp ]]; then [[ $w == iperf3 ]] || continue; else [[ $w != iperf3 ]] || continue; fi
		n=$((n + 1))
	done
	c=$(wc -w <<<"$CONDS")
	echo $((n * c * REPS * ${ROUNDS:-1}))
}

fmt_secs() {
	local s=${1%.*}
	printf '%dm%02ds' $((s / 60)) $((s % 60))
}

# progress FILE: print each new line of the guest's runs.tsv, with the
# time left at the pace so far
progress() {
	local file=$1 n k el left tag tr cond w rep st secs turn=''
	[[ -f $file ]] || return 0
	n=$(wc -l <"$file")
	while ((SHOWN < n)); do
		SHOWN=$((SHOWN + 1))
		k=$((DONE + SHOWN))
		IFS=$'\t' read -r tag tr cond w rep st secs < <(sed -n "${SHOWN}p" "$file")
		[[ -z $ROUNDS ]] || turn=" (round $(((rep - 1) / REPS + 1)))"
		el=$((SECONDS - T0))
		left=$((el * (TOTAL - k) / k))
		irn_log "[$k/$TOTAL] $tr $cond $w run $rep$turn: $st (${secs}s); elapsed $(fmt_secs "$el"), about $(fmt_secs "$left") left"
	done
}

# to_csv DIR: the CSV rows of the runs of one boot's guests
to_csv() {
	local dir=$1 tag tr cond w rep st secs line delay loss kind vals cnt c cpu
	local kernel sh=$1/shared out=$1/guest-a/out
	kernel=$(cat "$out/kernel.txt" 2>/dev/null || echo "?")
	[[ -f $out/runs.tsv ]] || return 0
	while IFS=$'\t' read -r tag tr cond w rep st secs; do
		line=$(cond_line "$cond") || continue
		IFS='|' read -r _ delay loss kind _ <<<"$line"
		if [[ $st == n/a* || $st == "no device"* ]]; then
			vals=",,"
		elif [[ $w == iperf3 ]]; then
			vals="$(irn_cmp_parse_iperf3 "$out/$tag.client"),,"
		elif [[ $w == nvme_* ]]; then
			vals=$(irn_cmp_parse_fio "$out/$tag.client")
		else
			vals=$(irn_cmp_parse_perftest "$out/$tag.client" "$SECS")
		fi
		if [[ $st == ok && $w == *_lat && -z $(cut -d, -f2 <<<"$vals") ]] &&
			grep -q ' inf ' "$out/$tag.client"; then
			st="n/a: perftest cannot time it (TSC not calibrated in this kernel)"
		fi
		# a run that exited 0 but printed no result is a failure too
		[[ $st != ok || -n ${vals%%,*} || $w == *_lat ]] || st="no result"
		[[ $st != ok || $w != *_lat || -n $(cut -d, -f2 <<<"$vals") ]] || st="no result"
		declare -A cv=()
		cpu=",,,"
		if [[ $st != n/a* ]]; then
			while read -r c cnt; do
				cv[$c]=$cnt
			done < <(irn_cmp_counters "$sh/$tag.before.a" "$sh/$tag.after.a" \
				"$sh/$tag.before.b" "$sh/$tag.after.b" 2>/dev/null)
			cpu="$(irn_cmp_cpu "$sh/$tag.cpu.a"),$(irn_cmp_cpu "$sh/$tag.cpu.b")"
		fi
		line="$tr,$cond,$delay,$loss,$kind,$w,$rep,${st//,/;},$secs,$vals,${cv[qdisc_dropped]:-}"
		for c in $IRN_CMP_COUNTERS; do
			# tcp_retrans only where TCP carries the data
			if [[ $c == tcp_retrans && $tr != tcp && $tr != siw ]]; then
				line+=","
			else
				line+=",${cv[$c]:-}"
			fi
		done
		printf '%s,%s,%s\n' "$line" "$cpu" "$kernel"
		unset cv
	done <"$out/runs.tsv"
}

# booting_failed DIR: true when a guest's console shows a kernel panic
# before its job started
booting_failed() {
	local f
	for f in "$1"/guest-?/console.log; do
		[[ -f $f ]] || continue
		grep -q 'irn-guest: running' "$f" && continue
		grep -q 'Kernel panic' "$f" && return 0
	done
	return 1
}

# pkill_guests DIR: stop the QEMUs still running for DIR (by their pid)
pkill_guests() {
	local pid
	for pid in $(pgrep -f -- "-chardev file,id=con,path=$1/guest-" || true); do
		kill "$pid" 2>/dev/null || true
	done
}

# mode_na TRANSPORT: why TRANSPORT cannot run in this mode, or nothing
mode_na() {
	[[ $MODE == one-guest ]] || return 0
	case $1 in
	rxe) echo "stock rdma_rxe binds its UDP port in the initial network namespace only" ;;
	siw) echo "the one-guest mode boots Debian's kernel only; it has no siw" ;;
	esac
}

# run_boot NAME "TRANSPORTS": boot the guest pair (one guest:
# --one-guest) for TRANSPORTS, which take turns in it with --rounds;
# follow its progress, append its rows to runs.csv.  A transport this
# mode cannot run gets n/a rows and no boot.
run_boot() {
	local name=$1 trs='' t kernel=debian mods=$KO conds_env="" c line vmpid rc=0 limit=300
	local attempt job=$IRN_ROOT/scripts/guest/compare.sh guests=(--guests 2) why what
	for t in $2; do
		why=$(mode_na "$t")
		if [[ -n $why ]]; then
			# nothing to boot for: its rows say why
			irn_log "compare: $t: n/a ($why)"
			missing_rows "$t" "n/a: $why" >>"$OUT/runs.csv"
			continue
		fi
		trs+="${trs:+ }$t"
		# each run's limit, and a minute for each turn's load and unload
		limit=$((limit + $(runs_for "$t") * (RUN_TIMEOUT + 60) + 60 * ${ROUNDS:-1}))
	done
	[[ -n $trs ]] || return 0
	what="guests booting"
	if [[ $MODE == one-guest ]]; then
		job=$IRN_ROOT/scripts/guest/compare-one.sh
		guests=(--guests 1 --cpus "$ONE_GUEST_CPUS")
		what="guest booting"
	fi
	if [[ -n $ROUNDS && $trs == *" "* ]]; then
		irn_log "compare: $trs, taking turns $ROUNDS times in one boot ($what)"
	else
		irn_log "compare: $trs ($what)"
	fi
	if [[ $trs == siw ]]; then
		kernel=$SIW_KERNEL mods=
	fi
	for c in $CONDS; do
		line=$(cond_line "$c")
		conds_env+="${conds_env:+;}${c}|$(cut -d'|' -f5 <<<"$line")"
	done
	local args=("${guests[@]}" --kernel "$kernel" --run-dir "$OUT/raw" --name "$name"
		--timeout "$limit" --no-scan
		--env "CMP_TRANSPORTS=$trs" --env "CMP_ROUNDS=${ROUNDS:-1}"
		--env "CMP_CONDS=$conds_env"
		--env "CMP_WORKLOADS=$WORKLOADS" --env "CMP_REPS=$REPS"
		--env "CMP_SECONDS=$SECS" --env "CMP_LAT_ITERS=$LAT_ITERS"
		--env "CMP_RUN_TIMEOUT=$RUN_TIMEOUT"
		--env "CMP_TRACE=${IRN_CMP_TRACE:-0}"
		--env "CMP_IRN_PARAMS=${IRN_CMP_IRN_PARAMS:-}")
	[[ -z $mods ]] || args+=(--modules "$mods")
	for attempt in 1 2; do
		SHOWN=0 rc=0
		"$IRN_ROOT/scripts/vm.sh" "${args[@]}" "$job" >"$OUT/raw/$name.log" 2>&1 &
		vmpid=$!
		while kill -0 "$vmpid" 2>/dev/null; do
			progress "$OUT/raw/$name/guest-a/out/runs.tsv"
			# a guest that died while booting leaves its peer waiting
			if ((SHOWN == 0)) && booting_failed "$OUT/raw/$name"; then
				kill "$vmpid" 2>/dev/null || true
			fi
			sleep 2
		done
		wait "$vmpid" || rc=$?
		progress "$OUT/raw/$name/guest-a/out/runs.tsv"
		# one more boot when no run started (a guest kernel can panic
		# while booting on a loaded host, "IO-APIC + timer doesn't work")
		[[ $rc != 0 && $SHOWN == 0 && $attempt == 1 ]] || break
		irn_warn "$name: the guests did not start (status $rc); booting them once more"
		pkill_guests "$OUT/raw/$name"
		mv "$OUT/raw/$name" "$OUT/raw/$name.failed-boot"
		mv "$OUT/raw/$name.log" "$OUT/raw/$name.failed-boot.log"
	done
	DONE=$((DONE + SHOWN))
	if [[ $rc != 0 ]]; then
		irn_warn "$name: the guests reported a problem (status $rc): $OUT/raw/$name.log, $OUT/raw/$name/guest-*/console.log"
		tail -n 5 "$OUT/raw/$name/guest-a/out/job.log" >&2 2>/dev/null || true
	fi
	while IFS= read -r line; do
		irn_log "${line%%:*}: n/a (${line#*: }, kernel $(cat "$OUT/raw/$name/guest-a/out/kernel.txt" 2>/dev/null))"
	done < <(sort -u "$OUT/raw/$name/guest-a/out/unavailable" 2>/dev/null)
	to_csv "$OUT/raw/$name" >>"$OUT/runs.csv"
	# runs the guests never got to (crash, timeout) are rows too
	for t in $trs; do
		missing_rows "$t" >>"$OUT/runs.csv"
	done
}

# pad_row ROW: ROW with empty fields added up to the CSV header's count
pad_row() {
	awk -F, -v OFS=, -v n="$(awk -F, '{ print NF }' <<<"$IRN_CMP_CSV_HEADER")" \
		'{ for (i = NF + 1; i <= n; i++) $i = ""; print }' <<<"$1"
}

# missing_rows TRANSPORT [STATUS]: a row with STATUS ("not run (guest
# failed)" by default) for each run absent from runs.csv
missing_rows() {
	local tr=$1 st=${2:-not run (guest failed)} c w rep line delay loss kind
	for c in $CONDS; do
		line=$(cond_line "$c")
		IFS='|' read -r _ delay loss kind _ <<<"$line"
		for w in $WORKLOADS; do
			if [[ $tr == tcp ]]; then [[ $w == iperf3 ]] || continue; else [[ $w != iperf3 ]] || continue; fi
			for ((rep = 1; rep <= REPS * ${ROUNDS:-1}; rep++)); do
				grep -q "^$tr,$c,[^,]*,[^,]*,[^,]*,$w,$rep," "$OUT/runs.csv" && continue
				pad_row "$tr,$c,$delay,$loss,$kind,$w,$rep,${st//,/;},0"
			done
		done
	done
}

# cond_desc "TC ARGS" [QUOTE]: what that does, in Markdown (QUOTE "``":
# in reStructuredText), in the run's mode (IRN_CMP_MODE)
cond_desc() {
	local q=${2:-'`'}
	if [[ $IRN_CMP_MODE == one-guest ]]; then
		case $1 in
		none) printf 'no qdisc (the veth pair drops nothing)' ;;
		ingress\ *) printf '%stc qdisc add dev ifb0 root %s%s on what each veth end receives (its ingress redirected to an ifb0 in its namespace)' "$q" "${1#ingress }" "$q" ;;
		*) printf '%stc qdisc add dev vN root %s%s on both veth ends (v1 in n1, v2 in n2)' "$q" "$1" "$q" ;;
		esac
		return
	fi
	case $1 in
	none) printf 'no qdisc (the emulated cable drops nothing)' ;;
	ingress\ *) printf '%stc qdisc add dev ifb0 root %s%s on what each guest receives (eth0 ingress redirected to ifb0)' "$q" "${1#ingress }" "$q" ;;
	*) printf '%stc qdisc add dev eth0 root %s%s on each guest' "$q" "$1" "$q" ;;
	esac
}

# quote_args ARG...: the arguments as one types them, quoted where needed
quote_args() {
	local a out=()
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./=:,+%@-]+$ ]]; then
			out+=("$a")
		elif [[ $a != *"'"* ]]; then
			out+=("'$a'")
		else
			out+=("$(printf '%q' "$a")")
		fi
	done
	printf '%s\n' "${out[*]}"
}

# The run's record in meta.env, in this order.
META_VARS="DATE COMMIT ARGS PRESET MODE GUEST_CPUS HOST_KERNEL HOST_CORES HOST_LOAD KERNEL SIW_KERNEL CABLE REPS ROUNDS SECONDS LAT_ITERS TRANSPORTS WORKLOADS CONDITIONS IRN_PARAMS TRACE"

# write_meta: what this run is, as IRN_CMP_* variables here (about.md
# uses them) and as shell assignments in OUT/meta.env (--publish reads
# them): UTC date, the checkout's commit (git describe --always --dirty),
# the command's arguments and preset, the mode (two-guest or one-guest)
# and each guest's vCPUs, the host's kernel, cores and load, the guests'
# kernel, the cable, reps, rounds (empty: one boot per transport),
# seconds, latency iterations, the transports, the workloads, the
# conditions' lines (name|delay|loss|kind|tc), irn's extra module
# parameters (IRN_CMP_IRN_PARAMS) and whether runs were traced
# (IRN_CMP_TRACE).
# The end of the run adds IRN_CMP_ELAPSED (s) and IRN_CMP_HOST_NOTE.
write_meta() {
	local c v
	IRN_CMP_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
	IRN_CMP_COMMIT=$(git -C "$IRN_ROOT" describe --always --dirty 2>/dev/null || echo unknown)
	IRN_CMP_ARGS=$ARGS_TEXT
	IRN_CMP_PRESET=$PRESET
	IRN_CMP_MODE=$MODE
	IRN_CMP_GUEST_CPUS=1
	[[ $MODE != one-guest ]] || IRN_CMP_GUEST_CPUS=$ONE_GUEST_CPUS
	IRN_CMP_HOST_KERNEL=$(uname -r)
	IRN_CMP_HOST_CORES=$(nproc)
	IRN_CMP_HOST_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
	IRN_CMP_KERNEL=$IRN_DEBIAN_KVER
	IRN_CMP_SIW_KERNEL=$SIW_KERNEL
	IRN_CMP_CABLE=$IRN_CABLE
	IRN_CMP_REPS=$REPS IRN_CMP_ROUNDS=$ROUNDS
	IRN_CMP_SECONDS=$SECS IRN_CMP_LAT_ITERS=$LAT_ITERS
	IRN_CMP_TRANSPORTS=$TRANSPORTS IRN_CMP_WORKLOADS=$WORKLOADS
	IRN_CMP_CONDITIONS=$(for c in $CONDS; do cond_line "$c"; done)
	# the knobs from the environment, as the run had them
	IRN_CMP_IRN_PARAMS=${IRN_CMP_IRN_PARAMS:-} IRN_CMP_TRACE=${IRN_CMP_TRACE:-0}
	{
		printf '# scripts/compare.sh: what this run is (read by --publish)\n'
		for v in $META_VARS; do
			v=IRN_CMP_$v
			printf '%s=%q\n' "$v" "${!v}"
		done
	} >"$OUT/meta.env"
}

# load_meta DIR: the IRN_CMP_* variables from DIR/meta.env
load_meta() {
	local f=$1/meta.env line v
	[[ -f $f ]] || irn_die "$f missing: the run predates it, or is not a finished scripts/compare.sh run"
	while IFS= read -r line; do
		[[ -z $line || $line == \#* || $line =~ ^IRN_CMP_[A-Z0-9_]+= ]] ||
			irn_die "$f: not a variable of scripts/compare.sh: $line"
	done <"$f"
	# shellcheck source=/dev/null
	source "$f"
	# a record older than the one-guest mode is of a two-guest run; one
	# older than the presets and rounds, of a run with neither
	: "${IRN_CMP_MODE:=two-guest}" "${IRN_CMP_GUEST_CPUS:=1}"
	: "${IRN_CMP_PRESET=}" "${IRN_CMP_ROUNDS=}" "${IRN_CMP_IRN_PARAMS=}" "${IRN_CMP_TRACE:=0}"
	for v in $META_VARS; do
		v=IRN_CMP_$v
		[[ -v $v ]] || irn_die "$f: no $v"
	done
}

# mode_text: the run's mode (IRN_CMP_MODE), in words
mode_text() {
	if [[ $IRN_CMP_MODE == one-guest ]]; then
		echo "one-guest (both ends in one QEMU guest, in two network namespaces joined by a veth pair; do not compare its figures with a two-guest run's)"
	else
		echo "two-guest (each end in its own QEMU guest, the two joined by one emulated cable)"
	fi
}

write_readme() {
	local c ends='both guests'
	{
		printf '# irn comparison, %s\n\n' "$IRN_CMP_DATE"
		printf 'Command: %sscripts/compare.sh %s%s (commit %s)\n\n' '`' "$IRN_CMP_ARGS" '`' "$IRN_CMP_COMMIT"
		printf 'Mode: %s\n\n' "$(mode_text)"
		if [[ $IRN_CMP_MODE == one-guest ]]; then
			ends='both ends'
			printf 'Measured in one QEMU TCG guest (%s vCPUs, 1536 MB) on one host (%s, %s cores, load average at start %s) with both ends in it: the clients in network namespace n1, the servers in n2, joined by a veth pair (1500-byte MTU, RDMA MTU 1024), no QEMU cable. ' \
				"$IRN_CMP_GUEST_CPUS" "$IRN_CMP_HOST_KERNEL" "$IRN_CMP_HOST_CORES" "$IRN_CMP_HOST_LOAD"
			printf "Both ends share the guest's CPUs, so CPU-bound goodput is lower than between two guests and the ends slow each other down. "
			printf 'Guest kernel %s. Conditions are set with tc on both veth ends, so each direction sees them. ' \
				"$IRN_CMP_KERNEL"
		else
			printf 'Measured on two QEMU TCG guests (1 vCPU, 1536 MB each) on one host (%s, %s cores, load average at start %s), joined by one emulated Ethernet cable (QEMU %s netdev, 1500-byte MTU, RDMA MTU 1024). ' \
				"$IRN_CMP_HOST_KERNEL" "$IRN_CMP_HOST_CORES" "$IRN_CMP_HOST_LOAD" "$(cable_name)"
			printf 'Guest kernel %s (siw: %s kernel). Conditions are set with tc on both guests, so each direction sees them. ' \
				"$IRN_CMP_KERNEL" "$IRN_CMP_SIW_KERNEL"
		fi
		printf '%s, %s s per bandwidth run, %s iterations per latency run; values are medians. MB/s = 2^20 bytes/s. ' \
			"$(runs_text)" "$IRN_CMP_SECONDS" "$IRN_CMP_LAT_ITERS"
		[[ -z $IRN_CMP_IRN_PARAMS ]] ||
			printf 'irn with IRN on (irn, irn-auto, irn-sack1) had the module parameters %s. ' "$IRN_CMP_IRN_PARAMS"
		printf 'Absolute numbers under TCG are low and drift with the host load; compare transports within one run.\n\n'
		printf 'Conditions:\n\n'
		for c in $CONDS; do
			printf -- '- %s: %s\n' "$c" "$(cond_desc "$(cond_line "$c" | cut -d'|' -f5)")"
		done
		printf '\nCounters (summed over %s, medians over runs): dropped = packets the qdisc dropped; resent pkts = irn retransmitted_pkts, or TCP RetransSegs for tcp and siw; recovery events = irn retransmit_episodes + recovery_episodes, or rxe completer_retry_err (each a go-back-N rewind); timeouts = irn timeouts. vCPU a and b: how busy the vCPUs of guest a (the clients) and guest b (the servers) were during the run, in %%, and in brackets their time in the kernel%s. "-": the transport has no such counter, or the workload no such value.\n\n' \
			"$ends" "$([[ $IRN_CMP_MODE != one-guest ]] || echo ' (both the one guest'"'"'s)')"
	}
}

# runs_text: how many runs make a cell (IRN_CMP_REPS, IRN_CMP_ROUNDS), in
# words
runs_text() {
	if [[ -n $IRN_CMP_ROUNDS ]]; then
		printf '%s runs per cell: the transports took turns %s times in one boot, each loaded for its turn and unloaded after it, %s run(s) per turn' \
			$((IRN_CMP_REPS * IRN_CMP_ROUNDS)) "$IRN_CMP_ROUNDS" "$IRN_CMP_REPS"
	else
		printf '%s run(s) per cell' "$IRN_CMP_REPS"
	fi
}

# cable_name: the QEMU netdev of the cable (IRN_CMP_CABLE)
cable_name() {
	if [[ $IRN_CMP_CABLE == tcp ]]; then echo 'TCP socket'; else echo 'Unix stream'; fi
}

main() {
	local t t_start note stem name trs
	ARGS_TEXT=$(quote_args "$@")
	parse_args "$@"
	[[ $PLAN == 0 ]] || plan
	if [[ -n $REPORT || -n $PUBLISH ]]; then
		[[ -z $REPORT || -z $PUBLISH ]] || irn_die "--report and --publish: one or the other"
		OUT=$(cd "$REPORT$PUBLISH" && pwd) || irn_die "no folder $REPORT$PUBLISH"
		irn_need_cmd gnuplot
		if [[ -n $PUBLISH ]]; then
			publish
		else
			report
		fi
		return
	fi
	irn_need_root compare
	irn_guest_lock "scripts/compare.sh"
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	irn_need_cmd gnuplot qemu-system-x86_64
	RUN_TIMEOUT=$((SECS + 150))
	# a preset's or a one-guest run's folder says so in its name too
	stem=${PRESET:-compare}
	[[ $MODE == two-guest ]] || stem+=-$MODE
	OUT=${OUT:-$IRN_RESULTS/$stem-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$OUT/raw"
	OUT=$(cd "$OUT" && pwd)
	KO=
	if [[ " $TRANSPORTS " == *" irn"* ]]; then
		KO=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
			irn_die "building rdma_irn.ko failed (output above)"
		KO=$KO/rdma_irn.ko
	fi
	printf '%s\n' "$IRN_CMP_CSV_HEADER" >"$OUT/runs.csv"
	write_meta
	write_readme >"$OUT/about.md"
	TOTAL=0
	for t in $TRANSPORTS; do
		# a transport this mode cannot run takes no time
		[[ -n $(mode_na "$t") ]] || TOTAL=$((TOTAL + $(runs_for "$t")))
	done
	irn_log "compare: $TOTAL runs ($(wc -w <<<"$TRANSPORTS") transports x $(wc -w <<<"$CONDS") conditions x workloads x $REPS${ROUNDS:+ x $ROUNDS rounds}), results in $OUT"
	T0=$SECONDS DONE=0
	t_start=$(irn_now)
	irn_watch_host_start "$OUT"
	# the transports this mode cannot run get their n/a rows first
	for t in $TRANSPORTS; do
		[[ -z $(mode_na "$t") ]] || run_boot "$t" "$t"
	done
	while read -r name trs; do
		run_boot "$name" "$trs"
	done < <(boots)
	IRN_CMP_ELAPSED=$(irn_elapsed "$t_start")
	irn_log "compare: done in $IRN_CMP_ELAPSED s"
	printf 'IRN_CMP_ELAPSED=%q\n' "$IRN_CMP_ELAPSED" >>"$OUT/meta.env"
	note=$(irn_host_busy_note "$OUT")
	if [[ -n $note ]]; then
		irn_warn "$note"
		printf '**%s**\n\n' "$note" >>"$OUT/about.md"
		printf 'IRN_CMP_HOST_NOTE=%q\n' "$note" >>"$OUT/meta.env"
	fi
	report
}

# report: summary.csv, ratios.csv (with rxe in the run), summary.md
# (about.md, then the tables) and the plots from runs.csv; prints the
# ratios to rxe and where the files are
report() {
	local plots f ratios=''
	[[ -s $OUT/runs.csv ]] || irn_die "$OUT/runs.csv missing or empty: nothing to report"
	irn_cmp_aggregate "$OUT/runs.csv" >"$OUT/summary.csv"
	if irn_cmp_ratios "$OUT/summary.csv" >"$OUT/ratios.csv"; then
		ratios=$OUT/ratios.csv
	else
		rm -f "$OUT/ratios.csv"
	fi
	{
		cat "$OUT/about.md" 2>/dev/null || true
		irn_cmp_markdown "$OUT/summary.csv"
	} >"$OUT/summary.md"
	plots=$(irn_cmp_plot "$OUT/summary.csv" "$OUT")
	if [[ -n $plots ]]; then
		printf '\n## Plots\n\n' >>"$OUT/summary.md"
		while read -r f; do
			printf '![%s](%s)\n' "${f##*/}" "${f##*/}" >>"$OUT/summary.md"
		done <<<"$plots"
	fi
	if [[ -n $ratios ]]; then
		printf '\n'
		irn_cmp_ratio_table "$OUT/summary.csv" | irn_cmp_text
	fi
	printf '\nResults in %s:\n' "$OUT"
	printf '  %s\n' "$OUT/summary.md" "$OUT/summary.csv" ${ratios:+"$ratios"} "$OUT/runs.csv"
	[[ -z $plots ]] || printf '  %s\n' "${plots//$'\n'/$'\n'  }"
	printf '  %s\n' "$OUT/raw/ (perftest/iperf3 output, counter snapshots, guest logs)"
}

# The plots that the page and README show, as OUT's name:the docs' name.
PUBLISH_PLOTS="goodput_pct_vs_loss.png:compare-goodput.png p99_vs_loss.png:compare-p99.png"
HEADLINE_START='.. results-headline-start'
HEADLINE_END='.. results-headline-end'

# kernels_of RUNS.csv: the guests' kernels, with the transports that ran
# on each when there are several ("K1 (rxe, irn), K2 (siw)")
kernels_of() {
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		k = $col["kernel"]; t = $col["transport"]
		if (k == "" || k == "?" || (k, t) in seen) next
		seen[k, t] = 1
		if (!(k in trs)) ks[n++] = k
		trs[k] = trs[k] (trs[k] == "" ? "" : ", ") t
	}
	END {
		for (i = 0; i < n; i++)
			printf "%s%s%s", (i ? ", " : ""), ks[i], (n > 1 ? " (" trs[ks[i]] ")" : "")
		print ""
	}' "$1"
}

# literals "A B C": ``A``, ``B``, ``C``
literals() {
	local w list=''
	for w in $1; do
		list+="${list:+, }\`\`$w\`\`"
	done
	printf '%s\n' "$list"
}

# results_page IMAGES: Documentation/results.rst for the run in OUT (its
# meta.env loaded, summary.csv written); IMAGES: the docs' names of the
# plots that were copied
# shellcheck disable=SC2016 # reStructuredText's ``literals``, literally
results_page() {
	local images=$1 runs minutes name tc img
	runs=$(($(wc -l <"$OUT/runs.csv") - 1))
	cat <<'EOF'
.. SPDX-License-Identifier: GPL-2.0

.. Written by scripts/compare.sh --publish from one run's results folder.
   A new run replaces it; do not edit it by hand.

=========================================
Measured results: lossless against lossy
=========================================

What each RDMA transport keeps of its lossless goodput when the network
drops, delays or reorders packets, and what that does to its latency, in
one reference run of ``make compare``.  What the comparison measures and
how to read it: ``Documentation/ops-guide.rst``, "Lossless against
lossy".

This page, its plots and the headline table in ``README.rst`` are
written from the run's results folder; a new run replaces them all::

    make compare                           # prints its results folder
    make results DIR=results/compare-DATE  # scripts/compare.sh --publish DIR

Run
===

Every number on this page comes from this one run::

EOF
	printf '    scripts/compare.sh%s\n\n' "${IRN_CMP_ARGS:+ $IRN_CMP_ARGS}"
	printf ':Date: %s\n' "$IRN_CMP_DATE"
	printf ':Commit: %s (the driver and the scripts%s)\n' "$(irn_rst_text <<<"$IRN_CMP_COMMIT")" \
		"$([[ $IRN_CMP_COMMIT != *-dirty ]] || echo ', with changes not committed')"
	printf ':Host: %s cores, load average %s at the start, kernel %s\n' \
		"$IRN_CMP_HOST_CORES" "$IRN_CMP_HOST_LOAD" "$(irn_rst_text <<<"$IRN_CMP_HOST_KERNEL")"
	printf ':Mode: %s\n' "$(mode_text | irn_rst_text)"
	if [[ $IRN_CMP_MODE == one-guest ]]; then
		printf ":Guests: one QEMU TCG guest, %s vCPUs and 1536 MB, with both ends in it: the clients in network namespace n1, the servers in n2, joined by a veth pair (1500-byte MTU, RDMA MTU 1024), no QEMU cable; both ends share the guest's CPUs\n" \
			"$IRN_CMP_GUEST_CPUS"
	else
		printf ':Guests: two QEMU TCG guests, 1 vCPU and 1536 MB each, joined by one emulated Ethernet cable (QEMU %s netdev; 1500-byte MTU, RDMA MTU 1024)\n' \
			"$(cable_name)"
	fi
	printf ':Guest kernels: %s\n' "$(kernels_of "$OUT/runs.csv" | irn_rst_text)"
	minutes=
	[[ -z ${IRN_CMP_ELAPSED:-} ]] ||
		minutes=$(awk -v s="$IRN_CMP_ELAPSED" 'BEGIN { printf " in %d minutes", s / 60 + 0.5 }')
	printf ':Runs: %s%s: %s, %s s per bandwidth run, %s iterations per latency run; the tables show medians; MB/s is 2^20 bytes per second\n' \
		"$runs" "$minutes" "$(runs_text | sed 's/ run(s) per cell/ per cell/')" "$IRN_CMP_SECONDS" "$IRN_CMP_LAT_ITERS"
	printf ':Transports: %s\n' "$(literals "$IRN_CMP_TRANSPORTS")"
	[[ -z $IRN_CMP_IRN_PARAMS ]] ||
		printf ':irn parameters: %s (irn, irn-auto and irn-sack1)\n' "$(literals "$IRN_CMP_IRN_PARAMS")"
	printf ':Workloads: %s\n\n' "$(literals "$IRN_CMP_WORKLOADS")"
	if [[ -n ${IRN_CMP_HOST_NOTE:-} ]]; then
		printf '.. warning::\n\n   %s\n\n' "$(irn_rst_text <<<"$IRN_CMP_HOST_NOTE")"
	fi
	if [[ $IRN_CMP_MODE == one-guest ]]; then
		printf 'The conditions, set with ``tc`` on both veth ends:\n\n'
	else
		printf 'The conditions, set with ``tc`` on both guests:\n\n'
	fi
	while IFS='|' read -r name _ _ _ tc; do
		printf '``%s``\n  %s\n' "$name" "$(cond_desc "$tc" '``')"
	done <<<"$IRN_CMP_CONDITIONS"
	printf '\n'
	irn_cmp_rst "$OUT/summary.csv" =
	if [[ -n $images ]]; then
		printf '\nPlots\n=====\n'
		for img in $images; do
			printf '\n.. image:: images/%s\n' "$img"
			case $img in
			compare-goodput.png)
				printf "   :alt: ib_write_bw goodput (iperf3's for tcp) as %% of the same\n"
				printf "         transport's lossless figure against the random loss rate,\n"
				printf '         one line per transport, one panel per delay\n' ;;
			compare-p99.png)
				printf '   :alt: ib_write_lat p99 against the random loss rate, one line per\n'
				printf '         transport, one panel per delay\n' ;;
			esac
		done
	fi
	if [[ -s $OUT/notes.rst ]]; then
		printf '\nWhat this run shows\n===================\n\n'
		cat "$OUT/notes.rst"
	fi
}

# headline_block TABLE IMAGES: what README.rst holds between its
# headline markers
# shellcheck disable=SC2016 # reStructuredText's ``literals``, literally
headline_block() {
	printf "\n\`\`ib_write_bw\`\` goodput (64 KiB, one QP) as a share of each transport's\n"
	printf 'own lossless figure at the same delay, in the reference run of\n'
	printf '``Documentation/results.rst`` (%s, commit %s%s):\n\n' \
		"${IRN_CMP_DATE%% *}" "$(irn_rst_text <<<"$IRN_CMP_COMMIT")" \
		"$([[ $IRN_CMP_MODE != one-guest ]] || echo ', one-guest mode')"
	cat "$1"
	if [[ " $2 " == *" compare-goodput.png "* ]]; then
		printf '\n.. image:: Documentation/images/compare-goodput.png\n'
		printf "   :alt: ib_write_bw goodput as %% of each transport's lossless figure\n"
		printf '         against the random loss rate, one panel per delay\n'
	fi
	printf '\n'
}

# replace_block FILE BLOCK: FILE with the lines between its headline
# markers replaced by those of file BLOCK; fails unless FILE has each
# marker once, the start before the end
replace_block() {
	awk -v s="$HEADLINE_START" -v e="$HEADLINE_END" -v block="$2" '
	$0 == s { print; while ((getline l < block) > 0) print l; skip = 1; ns++; next }
	$0 == e { if (!skip) bad = 1; skip = 0; ne++ }
	!skip { print }
	END { exit !(ns == 1 && ne == 1 && !bad && !skip) }' "$1"
}

# publish: Documentation/results.rst, its plots and README's headline
# from the finished run in OUT, in IRN_PUBLISH_ROOT (this checkout by
# default).  All is written and checked in OUT/publish first.
publish() {
	local root=${IRN_PUBLISH_ROOT:-$IRN_ROOT} stage=$OUT/publish pair images='' f
	[[ -f $root/README.rst && -d $root/Documentation ]] ||
		irn_die "--publish: $root has no README.rst and Documentation/"
	python3 -c 'import docutils' 2>/dev/null ||
		irn_die "--publish: python3's docutils checks the page (apt-get install python3-docutils)"
	load_meta "$OUT"
	replace_block "$root/README.rst" /dev/null >/dev/null ||
		irn_die "--publish: $root/README.rst needs one line '$HEADLINE_START' and, after it, one '$HEADLINE_END'"
	rm -rf "$stage"
	mkdir -p "$stage/images"
	# the plots of this runs.csv only
	rm -f "$OUT"/*_vs_loss.png "$OUT/ratios_to_rxe.png"
	report
	irn_cmp_headline "$OUT/summary.csv" >"$stage/headline.rst" ||
		irn_die "--publish: $OUT has no ib_write_bw cell of rxe, irn-gbn, irn or irn-auto at 1% random loss or more: nothing for README's headline"
	for pair in $PUBLISH_PLOTS; do
		if [[ -f $OUT/${pair%%:*} ]]; then
			cp "$OUT/${pair%%:*}" "$stage/images/${pair#*:}"
			images+="${images:+ }${pair#*:}"
		fi
	done
	results_page "$images" >"$stage/results.rst"
	headline_block "$stage/headline.rst" "$images" >"$stage/block.rst"
	replace_block "$root/README.rst" "$stage/block.rst" >"$stage/README.rst"
	for f in results.rst README.rst; do
		irn_rst_check "$stage/$f" ||
			irn_die "--publish: $stage/$f is not valid reStructuredText (above); nothing was written"
	done
	mkdir -p "$root/Documentation/images"
	cp "$stage/results.rst" "$root/Documentation/results.rst"
	cp "$stage/README.rst" "$root/README.rst"
	for pair in $PUBLISH_PLOTS; do
		f=$root/Documentation/images/${pair#*:}
		if [[ -f $stage/images/${pair#*:} ]]; then
			cp "$stage/images/${pair#*:}" "$f"
		else
			# no stale plot of another run
			rm -f "$f"
		fi
	done
	[[ $IRN_CMP_COMMIT != *-dirty ]] ||
		irn_warn "the run was made from a tree with uncommitted changes ($IRN_CMP_COMMIT); the page says so"
	[[ $IRN_CMP_MODE != one-guest ]] ||
		irn_warn "the run is a one-guest run (no stock rxe, both ends on one guest's CPUs); the page and README's headline say so"
	[[ -z ${IRN_CMP_HOST_NOTE:-} ]] || irn_warn "$IRN_CMP_HOST_NOTE"
	printf '\nPublished the run of %s (commit %s) in %s:\n' "$IRN_CMP_DATE" "$IRN_CMP_COMMIT" "$root"
	printf '  %s\n' Documentation/results.rst "README.rst (between its headline markers)"
	for f in $images; do
		printf '  %s\n' "Documentation/images/$f"
	done
}

# main only when run: scripts/tests/compare_parse.sh sources the rest
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
