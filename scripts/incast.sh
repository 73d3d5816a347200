#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# N-to-1 incast through a switch: N sender guests and a receiver, each
# cabled to a port of a switch guest (scripts/vm.sh --switch N), whose port
# toward the receiver is the bottleneck.  Each phase runs every sender's
# ib_write_bw (64 KiB WRITEs, --run_infinitely; iperf3 in the tcp-
# phases) at once for S seconds (scripts/guest/incast.sh) and reports,
# per phase: each sender's mean goodput, the bottleneck's utilisation
# (sum of goodputs over the configured rate), the link's use (what the
# switch's bottleneck class sent, headers and resends included, over the
# rate, while traffic flowed: see link_use; the senders' goodput reports
# start late and come every 2-3 s under TCG, so the goodput figure is a
# lower bound), Jain's fairness index over
# the senders, the packets the switch dropped and marked CE, and the
# typical and 99th percentile latency of a probe (ib_write_lat, 64 B)
# that the first sender runs across the same bottleneck during the phase.
#
#   scripts/incast.sh [--senders N] [--seconds S] [--rate MBIT]
#                     [--phases "NAME ..."] [--out DIR]
#
# Phases (NAME|cc of the senders' QPs|switch qdisc toward the receiver):
#   idle          none   HTB at the rate, a 32-packet FIFO, and no incast:
#                        the latency probe alone
#   deep          none   HTB at the rate, a 1000-packet FIFO: nothing is
#                        dropped (the senders' windows hold 128 packets
#                        each; what PFC gives a lossless fabric)
#   shallow       none   HTB at the rate, a 32-packet FIFO
#   shallow-dcqcn dcqcn  HTB at the rate, fq_codel marking CE past 10 ms
#                        of queue (ecn ce_threshold 10ms), 32 packets at
#                        most; IRN_INCAST_MARK replaces it
#   shallow-delay delay  the 32-packet FIFO again
#   rxe-deep      rxe    deep, on stock rdma_rxe (go-back-N, no congestion
#                        control): the senders and the receiver switch
#                        drivers for the phase
#   rxe-shallow   rxe    shallow, on stock rdma_rxe
#   tcp-shallow   cubic  shallow, with TCP (iperf3 -C cubic) in place of
#                        RDMA: what the same bottleneck gives TCP
#   tcp-dctcp     dctcp  shallow-dcqcn's marking queue, with DCTCP
# Defaults: 3 senders, 20 s a phase, 5 Mbit/s (five guests share the host's
# CPUs under QEMU TCG: a sender moves some 3 Mbit/s through the switch
# guest, so the bottleneck must be narrower than their sum), every phase.  Results:
# DIR/incast.md (the table), DIR/goodput.csv (phase, sender, second,
# Mbit/s), DIR/goodput.png (the same over time, a panel per phase) and the
# guests' raw output in DIR/raw.
#
# Environment (unset or empty: the default; the defaults' reasons are
# further down):
#   IRN_INCAST_DCQCN  DCQCN's parameters, "NAME=VALUE ..." written to
#                     dcqcn/NAME in each irn device's debugfs directory
#   IRN_INCAST_DELAY  the delay controller's, likewise under delay/
#   IRN_INCAST_KNOBS  the device's other tunables, "NAME=VALUE ..." written
#                     to NAME in the same directory after those two, on
#                     the receiver and every sender (e.g. "cap=64
#                     rto_low_us=5000"; dcqcn/NAME and delay/NAME too); a
#                     NAME the device does not have fails the run, and cc
#                     is each phase's own.  Default:
#                     "cnp_interval_us=10000"
#   IRN_INCAST_MARK   the switch's marking queue of shallow-dcqcn and
#                     tcp-dctcp, tc's arguments for its qdisc (e.g.
#                     "fq_codel limit 32 ecn ce_threshold 1ms"); no ";",
#                     "," or "|".  Default: "fq_codel limit 32 ecn
#                     ce_threshold 10ms target 30ms"
#   IRN_INCAST_TRACE  1: record the irn tracepoints of each phase
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

SENDERS=3 SECS=20 RATE=5 OUT='' PHASE_NAMES=''
# DCQCN scaled to this bed (dcqcn/ in debugfs, IRN_INCAST_DCQCN): mlx5's
# steps suit links of 25 to 100 Gbit/s and round trips of microseconds;
# here a sender moves a few Mbit/s, a round trip takes milliseconds and a
# QP gets a CNP every few milliseconds, so the line rate (the
# bottleneck's) and the increase steps are scaled down, the periods up
# (the monitor period to the increase timer's, as the paper's CNP
# interval matches its timer), g up to 1/16, and the floor down to 100
# kbit/s: at mlx5's 1 Mbit/s three senders' floors fill most of the link.
# The line rate is the bottleneck's (--rate), set once the options are
# read (parse_args).
DCQCN_REST="min_kbps=100 ai_kbps=20 hai_kbps=200 timer_ns=10000000 alpha_ns=20000000 g=64 cut_ns=10000000"
# The delay controller likewise (delay/ in debugfs, IRN_INCAST_DELAY):
# its 1 ms target is less than one packet's time at 5 Mbit/s (1.7 ms)
# and far below the jitter of five guests on two CPUs; 15 ms lets each
# sender keep a few packets queued at its fair share.
DELAY=${IRN_INCAST_DELAY:-target_ns=15000000}
# The device's other knobs (debugfs, IRN_INCAST_KNOBS): the receiver's
# CNPs at most every 10 ms per QP, the increase timer's period (the
# paper's 50 us against its 55 us timer).
KNOBS=${IRN_INCAST_KNOBS:-cnp_interval_us=10000}
# The marking queue (IRN_INCAST_MARK): fq_codel marks CE once a packet
# has spent 10 ms in the queue (six packets' time at 5 Mbit/s: a
# threshold under one packet's time, 1.7 ms, marks every packet that
# waits behind another, whatever the load), CoDel's own target is 30 ms,
# and it holds 32 packets as the shallow FIFO does.
MARK=${IRN_INCAST_MARK:-fq_codel limit 32 ecn ce_threshold 10ms target 30ms}

usage() {
	sed -n '4,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

# phase_spec NAME: "NAME|CC|QDISC" for the guests
phase_spec() {
	local htb="htb default 1" fifo cc
	case $1 in
	deep | rxe-deep) fifo="pfifo limit 1000" ;;
	idle | shallow | shallow-delay | rxe-shallow | tcp-shallow)
		fifo="pfifo limit 32" ;;
	shallow-dcqcn | tcp-dctcp) fifo=$MARK ;;
	*) irn_die "unknown phase $1 (see --help)" ;;
	esac
	case $1 in
	shallow-dcqcn) cc=dcqcn ;;
	shallow-delay) cc=delay ;;
	rxe-*) cc=rxe ;;
	tcp-shallow) cc=tcp-cubic ;;
	tcp-dctcp) cc=tcp-dctcp ;;
	*) cc=none ;;
	esac
	# the rate limit, then the queue as its child (guest/incast.sh adds
	# the class and the child after "root")
	printf '%s|%s|%s;rate %smbit;%s\n' "$1" "$cc" "$htb" "$RATE" "$fifo"
}

# check_env: IRN_INCAST_KNOBS and IRN_INCAST_MARK in a form the guests
# can take, before any guest boots (the guests find unknown knob names)
check_env() {
	local kv

	for kv in $KNOBS; do
		[[ $kv =~ ^[a-z0-9_]+(/[a-z0-9_]+)?=[^=]+$ ]] ||
			irn_die "IRN_INCAST_KNOBS: '$kv' is not NAME=VALUE"
		[[ ${kv%%=*} != cc ]] ||
			irn_die "IRN_INCAST_KNOBS: cc is set by each phase"
	done
	[[ -n ${MARK// /} ]] || irn_die "IRN_INCAST_MARK is empty"
	[[ $MARK != *[\;,\|]* ]] ||
		irn_die "IRN_INCAST_MARK: no ';', ',' or '|' (they separate the phases' fields)"
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--senders) SENDERS=$2; shift ;;
		--seconds) SECS=$2; shift ;;
		--rate) RATE=$2; shift ;;
		--phases) PHASE_NAMES=$2; shift ;;
		--out) OUT=$2; shift ;;
		-h | --help) usage 0 ;;
		*) irn_warn "unknown option $1"; usage 1 ;;
		esac
		shift
	done
	[[ $SENDERS =~ ^[1-6]$ ]] || irn_die "--senders takes 1 to 6"
	[[ $SECS =~ ^[0-9]+$ && $RATE =~ ^[0-9]+$ ]] ||
		irn_die "--seconds and --rate take whole numbers"
	DCQCN=${IRN_INCAST_DCQCN:-max_kbps=$((RATE * 1000)) $DCQCN_REST}
	check_env
	PHASE_NAMES=${PHASE_NAMES:-idle deep shallow shallow-dcqcn shallow-delay rxe-deep rxe-shallow tcp-shallow tcp-dctcp}
}

# probe RAWDIR PHASE: "p50/p99" of the latency probe (ib_write_lat's
# typical and 99th percentile, us), or "n/a" if it did not finish
probe() {
	awk '$1 == 64 && NF >= 9 && $5 ~ /^[0-9.]+$/ {
		printf "%.0f / %.0f", $5, $8; found = 1 }
		END { if (!found) printf "n/a" }' \
		"$1/guest-b/out/$2-probe.log" 2>/dev/null || printf 'n/a'
}

# goodput RAWDIR PHASE: "sender second mbit" lines from each sender's
# perftest output (its per-second lines: bytes iterations peak average
# msgrate, average in MB/s of 2^20 bytes) or iperf3's (its interval
# lines, in Mbits/sec; not the closing sender and receiver lines)
goodput() {
	local raw=$1 phase=$2 r

	for r in $(sender_roles); do
		awk -v r="$r" '
		$1 == 65536 && NF >= 5 && $4 ~ /^[0-9.]+$/ {
			printf "%s %d %.2f\n", r, ++n, $4 * 1048576 * 8 / 1e6 }
		/ sec / && !/sender|receiver/ {
			for (i = 2; i <= NF; i++)
				if ($i == "Mbits/sec") printf "%s %d %.2f\n", r, ++n, $(i - 1) }' \
			"$raw/guest-$r/out/$phase.log" 2>/dev/null || true
	done
}

sender_roles() {
	local all=bcdefg i

	for ((i = 0; i < SENDERS; i++)); do
		printf '%s\n' "${all:i:1}"
	done
}

# plot CSV PNG: each sender's goodput over time, one panel per phase with
# data, the fair share (rate over senders) and the bottleneck's rate as
# dashed lines; nothing is written if no phase has data
plot() {
	local csv=$1 png=$2 script

	script=$(awk -F, -v out="$png" -v rate="$RATE" -v n="$SENDERS" '
	NR == 1 || $2 == "" { next }
	{
		if (!($1 in pseen)) { pseen[$1] = 1; phases[np++] = $1 }
		if (!($2 in sseen)) { sseen[$2] = 1; senders[ns++] = $2 }
		v[$1, $2, $3] = $4
		if ($3 > last[$1]) last[$1] = $3
	}
	END {
		if (!np) exit 1
		print "set terminal pngcairo size 700," (220 * np + 60) " font \",10\""
		print "set output \"" out "\""
		print "set termoption noenhanced"
		print "set multiplot layout " np ",1 title \"incast: goodput per sender, 1 s bins\""
		print "set grid; set key outside right top"
		print "set ylabel \"Mbit/s\"; set yrange [0:" rate * 1.1 "]"
		for (i = 0; i < np; i++) {
			p = phases[i]
			print "set title \"" p "\""
			print (i == np - 1 ? "set xlabel \"second of the phase\"" : "unset xlabel")
			cmd = "plot"
			for (j = 0; j < ns; j++)
				cmd = cmd sprintf(" \"-\" using 1:2 with linespoints pt 7 ps 0.4 title \"sender %s\",", senders[j])
			cmd = cmd sprintf(" %s with lines dt 2 lc rgb \"gray\" title \"fair share\", %s with lines dt 3 lc rgb \"black\" title \"bottleneck\"", rate / n, rate)
			print cmd
			for (j = 0; j < ns; j++) {
				for (t = 1; t <= last[p]; t++)
					if ((p, senders[j], t) in v) print t, v[p, senders[j], t]
				print "e"
			}
		}
		print "unset multiplot"
	}' "$csv") || return 0
	gnuplot <<<"$script" 2>"$png.log" ||
		{ irn_warn "gnuplot failed for $png (see $png.log)"; return 0; }
	rm -f "$png.log"
}

# link_use RAWDIR PHASE: the share of the bottleneck's rate its class
# sent (headers and resends included) while traffic flowed, from the
# switch's own byte counter (sampled every second or so: the busy switch
# guest stretches that): over the intervals in which it sent at least a
# tenth of the rate, the first of them (the flows' start) left out;
# "n/a" without samples
link_use() {
	awk -v rate="$RATE" '
		BEGIN { n = 0 }
		NF == 2 && $2 ~ /^[0-9]+$/ { t[n] = $1; b[n] = $2; n++ }
		END {
			busy = 0; bits = 0; secs = 0
			for (i = 1; i < n; i++) {
				dt = t[i] - t[i - 1]
				db = (b[i] - b[i - 1]) * 8
				if (dt <= 0 || db < 0.1 * rate * 1e6 * dt)
					continue
				if (busy++ == 0 && n > 3)
					continue
				bits += db; secs += dt
			}
			if (secs <= 0) { printf "n/a"; exit }
			printf "%.0f%%", 100 * bits / (rate * 1e6 * secs)
		}' "$1/guest-s/out/$2-bytes.txt" 2>/dev/null || printf 'n/a'
}

# report RAWDIR: the table
report() {
	local raw=$1 p rows tc drops marks

	printf '| phase | cc | goodput per sender (Mbit/s) | utilisation | link use | Jain | dropped | CE-marked | probe p50 / p99 (us) |\n'
	printf '|---|---|---|---|---|---|---|---|---|\n'
	for p in $PHASE_NAMES; do
		rows=$(goodput "$raw" "$p")
		[[ -z $rows ]] || printf '%s\n' "$rows" | sed "s/^/$p /" >>"$OUT/goodput.csv.tmp"
		tc=$raw/guest-s/out/$p-tc.txt
		drops=$(grep -o 'dropped [0-9]*' "$tc" 2>/dev/null | tail -n1 | cut -d' ' -f2 || true)
		marks=$(grep -o 'ce_mark [0-9]*' "$tc" 2>/dev/null | tail -n1 | cut -d' ' -f2 || true)
		# the first two seconds are the flows' start: left out
		awk -v p="$p" -v cc="$(phase_spec "$p" | cut -d'|' -f2)" \
		    -v rate="$RATE" -v d="${drops:-?}" -v m="${marks:-0}" \
		    -v lat="$(probe "$raw" "$p")" -v use="$(link_use "$raw" "$p")" '
			$2 > 2 { s[$1] += $3; n[$1]++ }
			END {
				line = ""; sum = 0; sq = 0; k = 0
				for (r in s) {
					g = s[r] / n[r]; sum += g; sq += g * g; k++
					line = line sprintf("%s %.1f ", r, g)
				}
				if (!k) { printf "| %s | %s | %s | | %s | | %s | %s | %s |\n", p, cc,
					  p == "idle" ? "no incast" : "no data", use, d, m, lat; exit }
				printf "| %s | %s | %s| %.0f%% | %s | %.3f | %s | %s | %s |\n", p, cc,
				       line, 100 * sum / rate, use, sum * sum / (k * sq), d, m, lat
			}' <<<"$rows"
	done
}

main() {
	local ko specs='' p limit rc=0

	parse_args "$@"
	irn_need_root incast
	irn_guest_lock "scripts/incast.sh"
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	OUT=${OUT:-$IRN_RESULTS/incast-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$OUT/raw"
	OUT=$(cd "$OUT" && pwd)
	ko=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
		irn_die "building rdma_irn.ko failed (output above)"
	for p in $PHASE_NAMES; do
		specs+="${specs:+;}$(phase_spec "$p" | tr ';' ',')"
	done
	limit=$(($(wc -w <<<"$PHASE_NAMES") * (SECS + 60) + 300))
	irn_log "incast: $SENDERS senders, $RATE Mbit/s bottleneck, phases: $PHASE_NAMES; results in $OUT"
	"$IRN_ROOT/scripts/vm.sh" --switch "$SENDERS" --kernel debian \
		--run-dir "$OUT/raw" --name bed --timeout "$limit" \
		--modules "$ko/rdma_irn.ko" --mem 1024 \
		--env "IRN_INCAST_PHASES=$specs" --env "IRN_INCAST_SECONDS=$SECS" \
		--env "IRN_INCAST_DCQCN=$DCQCN" --env "IRN_INCAST_DELAY=$DELAY" \
		--env "IRN_INCAST_KNOBS=$KNOBS" \
		--env "IRN_INCAST_TRACE=${IRN_INCAST_TRACE:-0}" \
		"$IRN_ROOT/scripts/guest/incast.sh" || rc=$?
	: >"$OUT/goodput.csv.tmp"
	report "$OUT/raw/bed" | tee "$OUT/incast.md"
	{
		echo "phase,sender,second,mbit_s"
		tr ' ' ',' <"$OUT/goodput.csv.tmp"
	} >"$OUT/goodput.csv"
	rm -f "$OUT/goodput.csv.tmp"
	plot "$OUT/goodput.csv" "$OUT/goodput.png"
	printf '\n%s, commit %s, %s senders, %s Mbit/s, %s s a phase%s%s\n' \
		"$(date -u +%Y-%m-%dT%H:%MZ)" "$(git -C "$IRN_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" \
		"$SENDERS" "$RATE" "$SECS" "${KNOBS:+, knobs \"$KNOBS\"}" \
		"${IRN_INCAST_MARK:+, marking queue \"$MARK\"}" >>"$OUT/incast.md"
	[[ $rc -eq 0 ]] || irn_die "the test bed failed (exit $rc): $OUT/raw/bed"
}

main "$@"; exit
