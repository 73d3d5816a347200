#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: host timeout=60 ci=60
#
# The parsing and aggregation behind scripts/compare.sh (scripts/lib/
# compare.sh), on the host, without guests:
#  - perftest, iperf3 and fio (JSON) output recorded from real guest runs
#    (data/compare/*.client) parse to the numbers read off those files by
#    hand; ib_atomic_bw's 8-byte operations to MB/s from the message rate;
#    /proc/stat lines before and after a run to a guest's vCPU use;
#  - counter snapshots recorded before and after real runs on both guests
#    (data/compare/*.{a,b}-{before,after}) give the deltas worked out by
#    hand;
#  - a synthetic runs CSV (data/compare/synthetic-runs.csv) aggregates to
#    the medians, % of lossless, counters and statuses worked out by hand
#    (odd and even run counts, a failed run, an n/a transport, a delay
#    whose lossless reference is not the first condition), a runs.csv
#    older than the vCPU columns with "-" there;
#  - the Markdown has those cells and no empty one; the gnuplot data is
#    right and gnuplot draws PNGs from it, but no plot against the loss
#    rate from a single rate;
#  - the reStructuredText tables pass docutils without a warning and
#    render to the Markdown's cells, markup-like cells included;
#    README's headline has the percentages worked out by hand;
#  - compare.sh --publish, on a synthetic finished run (runs.csv and
#    meta.env) into a copy of README.rst and Documentation/, writes a
#    results.rst that docutils passes, with summary.md's tables and the
#    run's date, commit and command, the two plots, and README's headline
#    between its markers (the rest of README unchanged, the same after a
#    second publish); without meta.env or the markers it fails and
#    writes nothing;
#  - the page names the run's mode: two-guest for a meta.env without
#    IRN_CMP_MODE (older than the one-guest mode), and for a one-guest
#    run (IRN_CMP_MODE=one-guest) its guest, its conditions on both veth
#    ends and README's headline say so;
#  - make bench's view (compare.sh --preset bench): a guest's runs.tsv of
#    transports taking turns, with vCPU snapshots, a failed device and
#    runs never made, becomes the runs.csv rows worked out by hand
#    (compare.sh's to_csv and missing_rows); a three-round runs.csv of
#    rxe, irn-gbn and irn aggregates to medians with vCPU use, and to the
#    ratios to rxe worked out by hand (ratios.csv, the Markdown table,
#    the text compare.sh prints, the bar plot); no ratios without rxe;
#    --report on it prints the ratios;
#  - --plan: --quick is the demo preset and runs what make demo always
#    ran; the bench preset; explicit options over a preset's; --rounds
#    without the NVMe-oF workloads (named ones, a bad preset, two presets
#    and a bad count are errors).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA=$ROOT/scripts/tests/data/compare

# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/compare.sh
source "$ROOT/scripts/lib/compare.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/tests/lib/expect.sh
source "$ROOT/scripts/tests/lib/expect.sh"

# --- perftest and iperf3 (values read from the files by hand) -----------
expect "rxe ib_write_bw 64 KiB" "15.17,," "$(irn_cmp_parse_perftest "$DATA/rxe-write_bw.client")"
expect "irn ib_write_bw 64 KiB" "9.38,," "$(irn_cmp_parse_perftest "$DATA/irn-write_bw.client")"
expect "rxe ib_write_lat: t_typical, 99%" ",22794.86,491595.55" "$(irn_cmp_parse_perftest "$DATA/rxe-write_lat.client")"
expect "irn ib_write_lat: t_typical, 99%" ",22595.90,45895.73" "$(irn_cmp_parse_perftest "$DATA/irn-write_lat.client")"
# ib_read_bw, ib_send_bw, ib_write_bw -q 4 and ib_send_lat of irn (the
# "# expect:" line of each FILE.expect was read off FILE by hand)
for f in irn-read_bw irn-send_bw irn-write_bw_4qp irn-send_lat; do
	want=$(sed -n '1s/^# expect: //p' "$DATA/$f.client.expect" 2>/dev/null)
	expect "$f" "${want:-<no $f.client.expect>}" "$(irn_cmp_parse_perftest "$DATA/$f.client")"
done
# siw on the harness's kernel, whose TSC perftest cannot calibrate: BW
# 0.00 with 668 iterations of 65536 B in a 2 s run = 20.875 MB/s (2^20);
# latencies "inf" are no value
expect "siw ib_write_bw, uncalibrated clock, 2 s" "20.88,," "$(irn_cmp_parse_perftest "$DATA/siw-write_bw-nocal.client" 2)"
expect "siw ib_write_bw, uncalibrated clock, no duration" "0.00,," "$(irn_cmp_parse_perftest "$DATA/siw-write_bw-nocal.client")"
expect "siw ib_write_lat, uncalibrated clock" ",," "$(irn_cmp_parse_perftest "$DATA/siw-write_lat-nocal.client")"
# 223 Mbit/s received = 223e6 / 8 / 2^20 MB/s = 26.58; 5.83 Mbit/s = 0.69
expect "iperf3 lossless (receiver 223 Mbits/sec)" "26.58" "$(irn_cmp_parse_iperf3 "$DATA/tcp-iperf3.client")"
expect "iperf3 1% loss (receiver 5.83 Mbits/sec)" "0.69" "$(irn_cmp_parse_iperf3 "$DATA/tcp-iperf3-loss1.client")"
# fio's JSON from make check's nvmeof test (4 KiB, iodepth 16): randread
# "bw_bytes" 2640535 = 2.52 MB/s (2^20), clat "50.000000" 19529728 ns and
# "99.000000" 57933824 ns; randwrite 2373004 B/s = 2.26 MB/s, 22151168
# and 93847552 ns, in the "write" section (the "read" one is all zeros)
expect "fio randread" "2.52,19530,57934" "$(irn_cmp_parse_fio "$DATA/irn-nvme_randread.client")"
expect "fio randwrite" "2.26,22151,93848" "$(irn_cmp_parse_fio "$DATA/irn-nvme_randwrite.client")"
# a failed run: no result row, empty values
printf 'Couldn'"'"'t connect to 10.77.0.2:18515\n' >"$TMP/failed.client"
expect "failed perftest run" ",," "$(irn_cmp_parse_perftest "$TMP/failed.client")"
expect "failed iperf3 run" "" "$(irn_cmp_parse_iperf3 "$TMP/failed.client")"
expect "failed fio run (no JSON)" ",," "$(irn_cmp_parse_fio "$TMP/failed.client")"
expect "failed fio run (no file)" ",," "$(irn_cmp_parse_fio "$TMP/missing.client")"
# ib_atomic_bw: 0.051372 Mpps of 8 bytes = 410976 B/s = 0.3919 MB/s
# (perftest's own two decimals say 0.39); with an uncalibrated clock,
# 1000 iterations of 8 B in 2 s = 0.0038 MB/s
printf ' #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 8          1000             0.00               0.39   \t\t   0.051372\n' >"$TMP/atomic.client"
expect "ib_atomic_bw: from the message rate" "0.3919,," "$(irn_cmp_parse_perftest "$TMP/atomic.client" 2)"
printf ' #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n 8          1000             0.00               0.00   \t\t   0.000000\n' >"$TMP/atomic-nocal.client"
expect "ib_atomic_bw, uncalibrated clock, 2 s" "0.0038,," "$(irn_cmp_parse_perftest "$TMP/atomic-nocal.client" 2)"

# --- a guest's vCPU use (/proc/stat before and after) -----------------------
# user nice system idle iowait irq softirq steal guest guest_nice: total
# 1000 -> 2000 jiffies, idle + iowait 850 -> 1250 (busy 600 of 1000),
# system + irq + softirq 50 -> 350 (kernel 300 of 1000)
printf 'cpu  100 0 50 800 50 0 0 0 0 0\ncpu  400 0 250 1200 50 50 50 0 0 0\n' >"$TMP/cpu.a"
expect "vCPU: busy, kernel" "60,30" "$(irn_cmp_cpu "$TMP/cpu.a")"
# 2000 -> 3000, idle + iowait 1700 -> 2400, kernel 100 -> 300
printf 'cpu  200 0 100 1600 100 0 0 0 0 0\ncpu  300 0 200 2300 100 0 100 0 0 0\n' >"$TMP/cpu.b"
expect "vCPU: busy, kernel (b)" "30,20" "$(irn_cmp_cpu "$TMP/cpu.b")"
head -n1 "$TMP/cpu.a" >"$TMP/cpu.half"
expect "vCPU: one snapshot only" "," "$(irn_cmp_cpu "$TMP/cpu.half")"
expect "vCPU: no file" "," "$(irn_cmp_cpu "$TMP/cpu.missing")"

# --- counter deltas over both guests -------------------------------------
s=$DATA/irn-loss1-write_bw
irn_cmp_counters "$s.a-before" "$s.a-after" "$s.b-before" "$s.b-after" >"$TMP/irn.cnt"
# retransmitted_pkts: a 104 -> 262, b 28 -> 28; recovery_episodes a 119
# -> 185, b 30 -> 30; timeouts a 119 -> 179; sent_pkts a 27852 -> 40377,
# b 1192 -> 8742
expect_line "irn retransmitted_pkts" "$TMP/irn.cnt" "retransmitted_pkts 158"
expect_line "irn recovery_episodes" "$TMP/irn.cnt" "recovery_episodes 66"
expect_line "irn timeouts" "$TMP/irn.cnt" "timeouts 60"
expect_line "irn sent_pkts" "$TMP/irn.cnt" "sent_pkts 20075"
s=$DATA/rxe-loss1-write_bw
irn_cmp_counters "$s.a-before" "$s.a-after" "$s.b-before" "$s.b-after" >"$TMP/rxe.cnt"
# completer_retry_err a 56 -> 131; out_of_seq_request b 0 -> 73;
# qdisc_dropped a 0 -> 159, b 0 -> 3
expect_line "rxe completer_retry_err" "$TMP/rxe.cnt" "completer_retry_err 75"
expect_line "rxe out_of_seq_request" "$TMP/rxe.cnt" "out_of_seq_request 73"
expect_line "rxe qdisc_dropped" "$TMP/rxe.cnt" "qdisc_dropped 162"
expect "rxe has no retransmitted_pkts" "" "$(grep '^retransmitted_pkts ' "$TMP/rxe.cnt" || true)"

# --- aggregation of a synthetic CSV (worked out by hand) -----------------
irn_cmp_aggregate "$DATA/synthetic-runs.csv" >"$TMP/summary.csv"
expect "summary header" "$IRN_CMP_SUMMARY_HEADER" "$(head -n1 "$TMP/summary.csv")"
expect "summary rows" 13 "$(wc -l <"$TMP/summary.csv")"
while IFS= read -r want; do
	expect_line "summary" "$TMP/summary.csv" "$want"
done <<'ROWS'
irn,lossless,0,0,lossless,write_bw,3,3,20.00,100,-,-,0,0,0,0,-,-,-,-,ok
irn,loss-1%,0,1,random,write_bw,3,3,9.00,45,-,-,60,200,22,6,-,-,-,-,ok
irn,2ms,2,0,lossless,write_bw,2,2,10.00,100,-,-,0,0,0,0,-,-,-,-,ok
irn,2ms-loss-1%,2,1,random,write_bw,3,2,5.00,50,-,-,15,14,4,2,-,-,-,-,1 of 3 failed: rc=124
irn,lossless,0,0,lossless,write_lat,3,3,-,-,200,3000,0,0,0,0,-,-,-,-,ok
rxe,lossless,0,0,lossless,write_bw,3,3,40.00,100,-,-,0,-,0,-,-,-,-,-,ok
rxe,loss-1%,0,1,random,write_bw,3,3,4.00,10,-,-,40,-,8,-,-,-,-,-,ok
siw,lossless,0,0,lossless,write_bw,3,0,-,-,-,-,-,-,-,-,-,-,-,-,n/a: not enabled in this kernel
tcp,lossless,0,0,lossless,iperf3,2,2,105.00,100,-,-,0,1,-,-,-,-,-,-,ok
tcp,loss-1%,0,1,random,iperf3,1,1,21.00,20,-,-,40,3,-,-,-,-,-,-,ok
irn,lossless,0,0,lossless,nvme_randread,2,2,3.00,100,400,1200,0,0,0,0,-,-,-,-,ok
irn,loss-1%,0,1,random,nvme_randread,1,1,1.00,33,1000,40000,10,12,4,2,-,-,-,-,ok
ROWS

# --- Markdown --------------------------------------------------------------
irn_cmp_markdown "$TMP/summary.csv" >"$TMP/summary.md"
while IFS= read -r want; do
	expect_line "markdown" "$TMP/summary.md" "$want"
done <<'ROWS'
| transport | workload | lossless | loss-1% | 2ms | 2ms-loss-1% |
| irn | write_bw | 20.00 (100%) | 9.00 (45%) | 10.00 (100%) | 5.00 (50%) |
| rxe | write_bw | 40.00 (100%) | 4.00 (10%) | - | - |
| siw | write_bw | n/a | - | - | - |
| tcp | iperf3 | 105.00 (100%) | 21.00 (20%) | - | - |
| irn | write_lat | 0.20 / 3.00 | - | - | - |
| irn | nvme_randread | 3.00 (100%) | 1.00 (33%) | - | - |
| irn | nvme_randread | 0.40 / 1.20 | 1.00 / 40.00 | - | - |
| irn | write_bw | MB/s, higher is better | 0.50 | 2.25 |
| siw | write_bw | MB/s, higher is better | - | - |
| irn | 2ms-loss-1% | write_bw | 2/3 | 5.00 | 50% | - | - | 15 | 14 | 4 | 2 | - | - | 1 of 3 failed: rc=124 |
| siw | lossless | write_bw | 0/3 | - | - | - | - | - | - | - | - | - | - | n/a (not enabled in this kernel) |
ROWS
expect "markdown: empty cells" "" "$(grep -E '^\|' "$TMP/summary.md" | grep -E '\|\s*\|' || true)"

# --- plots -------------------------------------------------------------------
irn_cmp_plot_script "$TMP/summary.csv" "$TMP/g.png" bw_MBps "write_bw iperf3" y t >"$TMP/g.gp"
# loss 0 and 1 at x 0 and 1; columns irn, rxe, tcp; "?" = no value
# shellcheck disable=SC2016 # gnuplot datablock names, literally
for want in '$d0 << EOD' '0 20.00 40.00 105.00' '1 9.00 4.00 21.00' \
	'$d1 << EOD' '0 10.00 ? ?' '1 5.00 ? ?'; do
	expect_line "gnuplot data" "$TMP/g.gp" "$want"
done
expect "a plot with no data fails" 1 "$(irn_cmp_plot_script "$TMP/summary.csv" "$TMP/x.png" lat_p99_us "send_lat" y t >/dev/null && echo 0 || echo 1)"
# write_lat ran on the lossless link only: one loss rate, no line to draw
expect "a plot of one loss rate fails" 1 "$(irn_cmp_plot_script "$TMP/summary.csv" "$TMP/x.png" lat_p99_us "write_lat" y t >/dev/null && echo 0 || echo 1)"
mkdir "$TMP/plots"
irn_cmp_plot "$TMP/summary.csv" "$TMP/plots" >"$TMP/plots.txt"
for f in goodput_vs_loss.png goodput_pct_vs_loss.png ratios_to_rxe.png; do
	expect "$f is a PNG" 89504e470d0a1a0a \
		"$(head -c 8 "$TMP/plots/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
done
expect "no p99 plot of one loss rate" "" "$(ls "$TMP/plots/p99_vs_loss.png" 2>/dev/null || true)"

# --- reStructuredText: the same tables, and README's headline -------------
# rst_rows FILE: FILE checked with docutils (an error or a warning fails),
# then each row of its tables as "| cell | cell |", cells as rendered
rst_rows() {
	python3 - "$1" <<'PY'
import sys
import docutils.core
import docutils.utils
from docutils import nodes
path = sys.argv[1]
try:
    tree = docutils.core.publish_doctree(
        open(path, encoding="utf-8").read(), source_path=path,
        settings_overrides={"halt_level": 2, "report_level": 2})
except docutils.utils.SystemMessage as e:
    sys.exit("docutils: %s" % e)
for m in list(tree.findall(nodes.system_message)):
    m.parent.remove(m)
for row in tree.findall(nodes.row):
    print("| " + " | ".join(" ".join(e.astext().split()) for e in row.children) + " |")
PY
}
# md_rows FILE: the rows of FILE's Markdown tables
md_rows() { grep '^| ' "$1" | grep -v '^| --- ' || true; }

irn_cmp_rst "$TMP/summary.csv" = >"$TMP/summary.rst"
expect "rst: tables as the Markdown's (docutils clean)" "$(md_rows "$TMP/summary.md")" \
	"$(rst_rows "$TMP/summary.rst" 2>&1)"
# cells that reStructuredText would read as markup show as they are
printf 'T\tcells\nH\tcell\tcopy\n' >"$TMP/odd.tsv"
printf '| cell | copy |\n' >"$TMP/odd.want"
# shellcheck disable=SC2016 # backquotes, literally
odd=('-' '--' '*x*' '`a`' 'a_' '_a' '|x|' '1. one' 'a) b' '(1) c' ':f: v' '.. x'
	'x::' '===' '#' '> q' 'a\b' '[1]_' 'n/a: x' '__init__' '#. z' '-a b' 'ok')
for c in "${odd[@]}"; do
	printf 'R\t%s\t%s\n' "$c" "$c" >>"$TMP/odd.tsv"
	printf '| %s | %s |\n' "$c" "$c" >>"$TMP/odd.want"
done
irn_cmp_rst_format <"$TMP/odd.tsv" >"$TMP/odd.rst"
expect "rst: cells that look like markup" "$(cat "$TMP/odd.want")" "$(rst_rows "$TMP/odd.rst" 2>&1)"
# ib_write_bw of rxe and irn (siw and tcp have no row), at 1% loss and
# 2 ms + 1% loss (the lossless cells are no column); rxe has no 2 ms cell
irn_cmp_headline "$TMP/summary.csv" >"$TMP/headline.rst"
expect "headline" "| transport | 1% loss | 2 ms, 1% loss |
| stock rxe | 10% | - |
| irn | 45% | 50% |" "$(rst_rows "$TMP/headline.rst" 2>&1)"

# --- --publish: results.rst, its plots and README's headline ---------------
# A finished run of three transports, lossless and 1% loss, write_bw and
# write_lat, two runs per cell; its summary worked out by hand: rxe
# write_bw 13.00 and 3.25 MB/s (25%), irn-gbn 10.00 and 6.00 (60%), irn
# 12.00 and 10.80 (90%); write_lat p50 / p99 rxe 0.50 / 3.00 and 0.50 /
# 32.00, irn 0.50 / 3.00 and 0.50 / 3.60.
RUN=$TMP/run PUB=$TMP/tree
mkdir -p "$RUN" "$PUB"
cp -r "$ROOT/README.rst" "$ROOT/Documentation" "$PUB/"
{
	printf '%s\n' "$IRN_CMP_CSV_HEADER"
	# run: transport condition loss workload rep bw p50 p99 dropped resent episodes retry_err
	# (guest a's vCPU 60% busy, 30% in the kernel; guest b's 55%, 25%)
	run() {
		local kind=random
		[[ $2 != lossless ]] || kind=lossless
		printf '%s,%s,0,%s,%s,%s,%s,ok,3,%s,%s,%s,%s,%s,,%s,,,,,%s,,,,60,30,55,25,6.1.0-57-amd64\n' \
			"$1" "$2" "$3" "$kind" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}" "${12}"
	}
	for r in 1 2; do
		run rxe lossless 0 write_bw $r $((10 + 2 * r)) "" "" 0 "" "" 0
		run irn-gbn lossless 0 write_bw $r 10 "" "" 0 0 0 ""
		run irn lossless 0 write_bw $r 12 "" "" 0 0 0 ""
		run rxe lossless 0 write_lat $r "" 500 3000 0 "" "" 0
		run irn lossless 0 write_lat $r "" 500 3000 0 0 0 ""
	done
	run rxe loss-1% 1 write_bw 1 3 "" "" 40 "" "" 20
	run rxe loss-1% 1 write_bw 2 3.5 "" "" 44 "" "" 22
	run irn-gbn loss-1% 1 write_bw 1 6 "" "" 40 900 30 ""
	run irn-gbn loss-1% 1 write_bw 2 6 "" "" 40 1000 32 ""
	run irn loss-1% 1 write_bw 1 11.4 "" "" 40 40 20 ""
	run irn loss-1% 1 write_bw 2 10.2 "" "" 40 42 22 ""
	run rxe loss-1% 1 write_lat 1 "" 450 30000 2 "" "" 1
	run rxe loss-1% 1 write_lat 2 "" 550 34000 2 "" "" 1
	run irn loss-1% 1 write_lat 1 "" 500 3500 2 2 1 ""
	run irn loss-1% 1 write_lat 2 "" 500 3700 2 2 1 ""
} >"$RUN/runs.csv"
cat >"$RUN/meta.env" <<'META'
# scripts/compare.sh: what this run is (read by --publish)
IRN_CMP_DATE='2026-01-02 03:04 UTC'
IRN_CMP_COMMIT=abc1234
IRN_CMP_ARGS='--reps 2 --conditions '\''lossless loss-1%'\'' --transports '\''rxe irn-gbn irn'\'' --workloads '\''write_bw write_lat'\'''
IRN_CMP_HOST_KERNEL=6.1.0-57-amd64
IRN_CMP_HOST_CORES=2
IRN_CMP_HOST_LOAD='0.70 0.52 0.41'
IRN_CMP_KERNEL=6.1.0-57-amd64
IRN_CMP_SIW_KERNEL=kunit
IRN_CMP_CABLE=unix
IRN_CMP_REPS=2
IRN_CMP_SECONDS=3
IRN_CMP_LAT_ITERS=500
IRN_CMP_TRANSPORTS='rxe irn-gbn irn'
IRN_CMP_WORKLOADS='write_bw write_lat'
IRN_CMP_CONDITIONS=$'lossless|0|0|lossless|none\nloss-1%|0|1|random|netem loss 1%'
IRN_CMP_ELAPSED=125.3
META
# block README: README without the lines between its headline markers
block() { sed '/^\.\. results-headline-start$/,/^\.\. results-headline-end$/d' "$1"; }
"$ROOT/scripts/compare.sh" --report "$RUN" >"$TMP/report.log" 2>&1 ||
	expect "compare.sh --report" 0 "failed: $(cat "$TMP/report.log")"
IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/compare.sh" --publish "$RUN" >"$TMP/publish.log" 2>&1 ||
	expect "compare.sh --publish" 0 "failed: $(cat "$TMP/publish.log")"
page=$PUB/Documentation/results.rst
expect "results.rst: tables as summary.md's (docutils clean)" "$(md_rows "$RUN/summary.md")" \
	"$(rst_rows "$page" 2>&1)"
expect_line "results.rst: irn goodput" "$page" "irn        write_bw  12.00 (100%)  10.80 (90%)"
expect_line "results.rst: rxe latency" "$page" "rxe        write_lat  0.50 / 3.00  0.50 / 32.00"
expect_line "results.rst: the command" "$page" "    scripts/compare.sh --reps 2 --conditions 'lossless loss-1%' --transports 'rxe irn-gbn irn' --workloads 'write_bw write_lat'"
expect_line "results.rst: date" "$page" ":Date: 2026-01-02 03:04 UTC"
expect_line "results.rst: commit" "$page" ":Commit: abc1234 (the driver and the scripts)"
expect_line "results.rst: runs" "$page" ":Runs: 20 in 2 minutes: 2 per cell, 3 s per bandwidth run, 500 iterations per latency run; the tables show medians; MB/s is 2^20 bytes per second"
expect_line "results.rst: condition" "$page" "  \`\`tc qdisc add dev eth0 root netem loss 1%\`\` on each guest"
for f in compare-goodput.png compare-p99.png; do
	expect_line "results.rst: $f" "$page" ".. image:: images/$f"
	expect "$f is a PNG" 89504e470d0a1a0a \
		"$(head -c 8 "$PUB/Documentation/images/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
done
expect "README: its headline (docutils clean)" "| transport | 1% loss |
| stock rxe | 25% |
| irn, gbn mode | 60% |
| irn | 90% |" "$(rst_rows "$PUB/README.rst" 2>&1)"
# shellcheck disable=SC2016 # reStructuredText's ``literal``
expect "README: the run named" 1 \
	"$(grep -cxF '``Documentation/results.rst`` (2026-01-02, commit abc1234):' "$PUB/README.rst")"
expect "README: the rest unchanged" "$(block "$ROOT/README.rst")" "$(block "$PUB/README.rst")"
cp "$PUB/README.rst" "$TMP/README.once"
IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/compare.sh" --publish "$RUN" >"$TMP/publish.log" 2>&1 ||
	expect "compare.sh --publish again" 0 "failed: $(cat "$TMP/publish.log")"
expect "README: the same after publishing twice" "$(cat "$TMP/README.once")" "$(cat "$PUB/README.rst")"
# no run record, or no markers: an error, and nothing written
mv "$RUN/meta.env" "$TMP/meta.env"
cp "$PUB/README.rst" "$TMP/README.before"
expect "publish without meta.env fails" 1 \
	"$(IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/compare.sh" --publish "$RUN" >/dev/null 2>&1 && echo 0 || echo 1)"
mv "$TMP/meta.env" "$RUN/meta.env"
sed -i '/^\.\. results-headline-end$/d' "$PUB/README.rst"
cp "$PUB/README.rst" "$TMP/README.before"
rm "$page"
expect "publish without README markers fails" 1 \
	"$(IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/compare.sh" --publish "$RUN" >/dev/null 2>&1 && echo 0 || echo 1)"
expect "a failed publish writes nothing" "$(cat "$TMP/README.before"):no page" \
	"$(cat "$PUB/README.rst"):$([[ -f $page ]] && echo page || echo no page)"

# --- the mode: two-guest by default, one-guest when the record says so ------
PUB2=$TMP/tree2
mkdir -p "$PUB2"
cp -r "$ROOT/README.rst" "$ROOT/Documentation" "$PUB2/"
IRN_PUBLISH_ROOT=$PUB2 "$ROOT/scripts/compare.sh" --publish "$RUN" >"$TMP/publish.log" 2>&1 ||
	expect "compare.sh --publish (no IRN_CMP_MODE)" 0 "failed: $(cat "$TMP/publish.log")"
page=$PUB2/Documentation/results.rst
expect_line "results.rst: two-guest without IRN_CMP_MODE" "$page" \
	":Mode: two-guest (each end in its own QEMU guest, the two joined by one emulated cable)"
printf 'IRN_CMP_MODE=one-guest\nIRN_CMP_GUEST_CPUS=2\n' >>"$RUN/meta.env"
IRN_PUBLISH_ROOT=$PUB2 "$ROOT/scripts/compare.sh" --publish "$RUN" >"$TMP/publish.log" 2>&1 ||
	expect "compare.sh --publish (one-guest)" 0 "failed: $(cat "$TMP/publish.log")"
expect "results.rst: one-guest (docutils clean)" "$(md_rows "$RUN/summary.md")" \
	"$(rst_rows "$page" 2>&1)"
expect_line "results.rst: one-guest mode" "$page" \
	":Mode: one-guest (both ends in one QEMU guest, in two network namespaces joined by a veth pair; do not compare its figures with a two-guest run's)"
expect "results.rst: one guest, 2 vCPUs" 1 \
	"$(grep -c '^:Guests: one QEMU TCG guest, 2 vCPUs and 1536 MB, with both ends in it' "$page")"
expect_line "results.rst: one-guest condition" "$page" \
	"  \`\`tc qdisc add dev vN root netem loss 1%\`\` on both veth ends (v1 in n1, v2 in n2)"
# shellcheck disable=SC2016 # reStructuredText's ``literal``
expect "README: the one-guest run named" 1 \
	"$(grep -cxF '``Documentation/results.rst`` (2026-01-02, commit abc1234, one-guest mode):' "$PUB2/README.rst")"

# --- make bench's view: transports taking turns, vCPU use, ratios to rxe -----
# csv_cols FILE COLUMN...: those columns of FILE's rows, comma-separated,
# by the names in its header
csv_cols() {
	local f=$1
	shift
	awk -F, -v want="$*" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; n = split(want, w, " "); next }
	{ s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") $col[w[i]]; print s }' "$f"
}

# A guest's runs of rxe and irn taking turns, 3 rounds of 1 run, one
# condition (scripts/guest/compare.sh's runs.tsv and shared snapshots),
# as compare.sh's to_csv and missing_rows turn them into runs.csv rows.
# Round 1 ran; in round 2 rxe's write_lat timed out and irn's device
# failed; round 3 never came (the guests died).
BENCH=$TMP/bench
RAW=$BENCH/raw/rounds
mkdir -p "$RAW/guest-a/out" "$RAW/shared"
echo 6.1.0-test >"$RAW/guest-a/out/kernel.txt"
printf 'r%04d\t%s\tlossless\t%s\t%s\t%s\t%s\n' \
	1 rxe write_bw 1 ok 5 2 rxe write_lat 1 ok 7 \
	3 irn write_bw 1 ok 5 4 irn write_lat 1 ok 7 \
	5 rxe write_bw 2 ok 5 6 rxe write_lat 2 rc=124 130 \
	7 irn write_bw 2 "no device: cannot create the irn device" 0 \
	>"$RAW/guest-a/out/runs.tsv"
cp "$DATA/rxe-write_bw.client" "$RAW/guest-a/out/r0001.client"
cp "$DATA/rxe-write_lat.client" "$RAW/guest-a/out/r0002.client"
cp "$DATA/irn-write_bw.client" "$RAW/guest-a/out/r0003.client"
cp "$DATA/irn-write_lat.client" "$RAW/guest-a/out/r0004.client"
cp "$DATA/rxe-write_bw.client" "$RAW/guest-a/out/r0005.client"
cp "$TMP/failed.client" "$RAW/guest-a/out/r0006.client"
cp "$TMP/cpu.a" "$RAW/shared/r0001.cpu.a"
cp "$TMP/cpu.b" "$RAW/shared/r0001.cpu.b"
cp "$TMP/cpu.b" "$RAW/shared/r0003.cpu.a"
s=$DATA/irn-loss1-write_bw
for f in a-before a-after b-before b-after; do
	cp "$s.$f" "$RAW/shared/r0003.${f#*-}.${f%%-*}"
done
# (compare.sh runs its main only when run, not when sourced)
ROOT=$ROOT BENCH=$BENCH RAW=$RAW bash <<'SH'
set -euo pipefail
source "$ROOT/scripts/compare.sh"
OUT=$BENCH CONDS=lossless WORKLOADS="write_bw write_lat" REPS=1 ROUNDS=3 SECS=5
printf '%s\n' "$IRN_CMP_CSV_HEADER" >"$OUT/runs.csv"
to_csv "$RAW" >>"$OUT/runs.csv"
for t in rxe irn; do
	missing_rows "$t" >>"$OUT/runs.csv"
done
SH
csv_cols "$BENCH/runs.csv" transport workload rep status bw_MBps lat_p50_us \
	lat_p99_us retransmitted_pkts cpu_a_pct cpu_a_kernel_pct cpu_b_pct \
	cpu_b_kernel_pct kernel >"$TMP/bench-rows"
expect "turns: rows" 12 "$(wc -l <"$TMP/bench-rows")"
while IFS= read -r want; do
	expect_line "turns: runs.csv" "$TMP/bench-rows" "$want"
done <<'ROWS'
rxe,write_bw,1,ok,15.17,,,,60,30,30,20,6.1.0-test
rxe,write_lat,1,ok,,22794.86,491595.55,,,,,,6.1.0-test
irn,write_bw,1,ok,9.38,,,158,30,20,,,6.1.0-test
irn,write_lat,1,ok,,22595.90,45895.73,,,,,,6.1.0-test
rxe,write_bw,2,ok,15.17,,,,,,,,6.1.0-test
rxe,write_lat,2,rc=124,,,,,,,,,6.1.0-test
irn,write_bw,2,no device: cannot create the irn device,,,,,,,,,6.1.0-test
irn,write_lat,2,not run (guest failed),,,,,,,,,
rxe,write_bw,3,not run (guest failed),,,,,,,,,
rxe,write_lat,3,not run (guest failed),,,,,,,,,
irn,write_bw,3,not run (guest failed),,,,,,,,,
irn,write_lat,3,not run (guest failed),,,,,,,,,
ROWS

# A finished make bench: rxe, irn-gbn and irn taking turns 3 times on
# the lossless link.  Medians worked out by hand: write_bw rxe 11 (10, 12,
# 11), irn-gbn 11, irn 13 (ratios 1.00, 1.18); write_lat p50 / p99 rxe
# 110 / 450, irn-gbn 100 / 300 (0.91, 0.67), irn 121 / 900 (1.10, 2.00);
# atomic_bw rxe 0.3919, irn 0.5000 (1.28), irn-gbn failed every turn;
# irn's write_bw vCPU a 85% (55% kernel), b 45% (33%).
RUN2=$TMP/bench-run
mkdir -p "$RUN2"
# brow NAME=VALUE...: a runs.csv row, the columns not named empty
brow() {
	awk -F, -v OFS=, -v header="$IRN_CMP_CSV_HEADER" -v kv="$*" 'BEGIN {
		n = split(header, h, ",")
		m = split(kv, p, " ")
		for (i = 1; i <= m; i++) { j = index(p[i], "="); v[substr(p[i], 1, j - 1)] = substr(p[i], j + 1) }
		for (i = 1; i <= n; i++) $i = v[h[i]]
		print
	}'
}
base=(condition=lossless delay_ms=0 loss_pct=0 kind=lossless seconds=4 kernel=6.1.0-57-amd64)
{
	printf '%s\n' "$IRN_CMP_CSV_HEADER"
	r=0
	for bw in 10 12 11; do r=$((r + 1)); brow transport=rxe workload=write_bw rep=$r status=ok bw_MBps=$bw "${base[@]}"; done
	r=0
	for bw in 11 11 13; do r=$((r + 1)); brow transport=irn-gbn workload=write_bw rep=$r status=ok bw_MBps=$bw "${base[@]}"; done
	r=0
	for c in 13:90:60:40:30 14:80:50:50:35 12:85:55:45:33; do
		IFS=: read -r bw a ak b bk <<<"$c"
		r=$((r + 1))
		brow transport=irn workload=write_bw rep=$r status=ok bw_MBps="$bw" cpu_a_pct="$a" \
			cpu_a_kernel_pct="$ak" cpu_b_pct="$b" cpu_b_kernel_pct="$bk" "${base[@]}"
	done
	r=0
	for l in 100:400 120:500 110:450; do r=$((r + 1)); brow transport=rxe workload=write_lat rep=$r status=ok lat_p50_us="${l%:*}" lat_p99_us="${l#*:}" "${base[@]}"; done
	for r in 1 2 3; do
		brow transport=irn-gbn workload=write_lat rep=$r status=ok lat_p50_us=100 lat_p99_us=300 "${base[@]}"
		brow transport=irn workload=write_lat rep=$r status=ok lat_p50_us=121 lat_p99_us=900 "${base[@]}"
		brow transport=irn-gbn workload=atomic_bw rep=$r status=rc=1 "${base[@]}"
	done
	r=0
	for bw in 0.3919 0.4000 0.3800; do r=$((r + 1)); brow transport=rxe workload=atomic_bw rep=$r status=ok bw_MBps=$bw "${base[@]}"; done
	r=0
	for bw in 0.5000 0.5000 0.4000; do r=$((r + 1)); brow transport=irn workload=atomic_bw rep=$r status=ok bw_MBps=$bw "${base[@]}"; done
} >"$RUN2/runs.csv"
irn_cmp_aggregate "$RUN2/runs.csv" >"$TMP/bench-summary.csv"
while IFS= read -r want; do
	expect_line "bench summary" "$TMP/bench-summary.csv" "$want"
done <<'ROWS'
irn,lossless,0,0,lossless,write_bw,3,3,13.00,100,-,-,-,-,-,-,85,55,45,33,ok
rxe,lossless,0,0,lossless,write_lat,3,3,-,-,110,450,-,-,-,-,-,-,-,-,ok
rxe,lossless,0,0,lossless,atomic_bw,3,3,0.3919,100,-,-,-,-,-,-,-,-,-,-,ok
irn-gbn,lossless,0,0,lossless,atomic_bw,3,0,-,-,-,-,-,-,-,-,-,-,-,-,3 of 3 failed: rc=1
ROWS
irn_cmp_ratios "$TMP/bench-summary.csv" >"$TMP/ratios.csv"
expect "ratios: header" "$IRN_CMP_RATIOS_HEADER" "$(head -n1 "$TMP/ratios.csv")"
expect "ratios: rows" 9 "$(wc -l <"$TMP/ratios.csv")"
while IFS= read -r want; do
	expect_line "ratios" "$TMP/ratios.csv" "$want"
done <<'ROWS'
irn-gbn,lossless,write_bw,bw_MBps,higher,11.00,11.00,1.00
irn,lossless,write_bw,bw_MBps,higher,13.00,11.00,1.18
irn-gbn,lossless,write_lat,lat_p50_us,lower,100,110,0.91
irn-gbn,lossless,write_lat,lat_p99_us,lower,300,450,0.67
irn,lossless,write_lat,lat_p50_us,lower,121,110,1.10
irn,lossless,write_lat,lat_p99_us,lower,900,450,2.00
irn-gbn,lossless,atomic_bw,bw_MBps,higher,-,0.3919,-
irn,lossless,atomic_bw,bw_MBps,higher,0.5000,0.3919,1.28
ROWS
irn_cmp_markdown "$TMP/bench-summary.csv" >"$TMP/bench-summary.md"
while IFS= read -r want; do
	expect_line "ratios: markdown" "$TMP/bench-summary.md" "$want"
done <<'ROWS'
### Over stock rxe: each transport's median over rxe's, same condition and workload (goodput: higher is better; latency: lower is better)
| transport | workload | figure | lossless |
| irn | write_bw | MB/s, higher is better | 1.18 |
| irn | write_lat | p99, lower is better | 2.00 |
| irn-gbn | atomic_bw | MB/s, higher is better | - |
| irn | lossless | write_bw | 3/3 | 13.00 | 100% | - | - | - | - | - | - | 85 (55) | 45 (33) | ok |
ROWS
expect "ratios: markdown, no empty cell" "" "$(grep -E '^\|' "$TMP/bench-summary.md" | grep -E '\|\s*\|' || true)"
irn_cmp_ratio_table "$TMP/bench-summary.csv" | irn_cmp_text >"$TMP/ratios.txt"
expect "ratios: text" 1 "$(grep -cE '^irn +write_lat +p50, lower is better +1\.10$' "$TMP/ratios.txt")"
irn_cmp_rst "$TMP/bench-summary.csv" >"$TMP/bench-summary.rst"
expect "ratios: rst as the Markdown (docutils clean)" "$(md_rows "$TMP/bench-summary.md")" \
	"$(rst_rows "$TMP/bench-summary.rst" 2>&1)"
# without rxe: no ratios, no table
grep -v '^rxe,' "$TMP/bench-summary.csv" >"$TMP/norxe.csv"
expect "no ratios without rxe" 1 "$(irn_cmp_ratios "$TMP/norxe.csv" >/dev/null && echo 0 || echo 1)"
expect "no ratio table without rxe" "" "$(irn_cmp_ratio_table "$TMP/norxe.csv")"
# rxe n/a (the one-guest mode): nothing to compare with either
sed 's/^\(rxe,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,3,\)3,.*/\10,-,-,-,-,-,-,-,-,-,-,-,-,n\/a: one guest/' \
	"$TMP/bench-summary.csv" >"$TMP/narxe.csv"
expect "rxe n/a: its cells" 3 "$(grep -c '^rxe,.*,n/a: one guest$' "$TMP/narxe.csv")"
expect "no ratios where rxe is n/a" 1 "$(irn_cmp_ratios "$TMP/narxe.csv" >/dev/null && echo 0 || echo 1)"
# --report: the files, the ratios on stdout, the bar plot and no plot
# against the loss rate (one rate)
"$ROOT/scripts/compare.sh" --report "$RUN2" >"$TMP/bench-report.log" 2>&1 ||
	expect "compare.sh --report (bench)" 0 "failed: $(cat "$TMP/bench-report.log")"
expect "report: ratios.csv" "$(cat "$TMP/ratios.csv")" "$(cat "$RUN2/ratios.csv" 2>&1)"
expect "report: prints the ratios" 1 "$(grep -cE '^irn +write_bw +MB/s, higher is better +1\.18$' "$TMP/bench-report.log")"
expect "report: ratios_to_rxe.png is a PNG" 89504e470d0a1a0a \
	"$(head -c 8 "$RUN2/ratios_to_rxe.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
expect "report: no plot against one loss rate" "" "$(compgen -G "$RUN2/*_vs_loss.png" || true)"
expect_line "report: summary.md shows the plot" "$RUN2/summary.md" "![ratios_to_rxe.png](ratios_to_rxe.png)"
# the publish run above had rxe: its page has the ratios too
expect_line "results.rst: ratios" "$PUB2/Documentation/results.rst" \
	"irn        write_bw   MB/s, higher is better  0.92      3.32"

# --- presets (compare.sh --plan: what a run would be, host-only) -------------
# plan ARGS...: compare.sh --plan's lines, or its error
plan() { "$ROOT/scripts/compare.sh" "$@" --plan 2>&1 || true; }
# What make demo runs, as compare.sh --quick always did: rxe
# irn-gbn irn tcp, lossless, 1% and 5% loss and the bottleneck,
# write_bw write_lat iperf3, 1 run of 2 s, 500 latency iterations, one
# boot per transport: 3 RDMA transports x 4 conditions x 2 workloads,
# and tcp's 4 iperf3 runs, 28 runs.
plan --preset demo >"$TMP/plan-demo"
expect "--quick is the demo preset" "$(cat "$TMP/plan-demo")" "$(plan --quick)"
expect "demo preset" "preset       demo
mode         two-guest
transports   rxe irn-gbn irn tcp
conditions   lossless loss-1% loss-5% bottleneck
workloads    write_bw write_lat iperf3
reps         1
rounds       -
seconds      2
lat-iters    500
boot         rxe: rxe
boot         irn-gbn: irn-gbn
boot         irn: irn
boot         tcp: tcp
runs         28" "$(cat "$TMP/plan-demo")"
expect "bench preset" "preset       bench
mode         two-guest
transports   rxe irn-gbn irn
conditions   lossless
workloads    write_bw read_bw send_bw write_lat send_lat
reps         1
rounds       3
seconds      4
lat-iters    2000
boot         rounds: rxe irn-gbn irn
runs         45" "$(plan --preset bench)"
expect_line "options over the preset" <(plan --preset bench --rounds 1 --workloads "write_bw write_lat" --seconds 2) "runs         6"
expect_line "options over the preset: seconds" <(plan --seconds 2 --preset bench) "seconds      2"
expect_line "one guest: rxe n/a" <(plan --preset bench --one-guest) "boot         rounds: irn-gbn irn"
expect_line "rounds: reps 1 unless given" <(plan --rounds 2 --transports irn) "reps         1"
expect_line "rounds: siw boots its own kernel" <(plan --rounds 2 --transports "irn siw") "boot         siw: siw"
expect_line "rounds: without the NVMe-oF workloads" <(plan --rounds 2) \
	"workloads    write_bw read_bw send_bw write_bw_4qp write_lat send_lat iperf3"
expect_line "new transport and workload" <(plan --transports "irn-sack1" --workloads atomic_bw) "runs         30"
# refused MESSAGE ARG...: compare.sh ARG... --plan fails, saying MESSAGE
refused() {
	local msg=$1
	shift
	expect "refused: $*" "1:1" \
		"$("$ROOT/scripts/compare.sh" "$@" --plan >"$TMP/bad.log" 2>&1 && echo 0 || echo 1):$(grep -cF -- "$msg" "$TMP/bad.log")"
}
refused "unknown preset 'nope'" --preset nope
refused "one preset per run" --quick --preset bench
refused "--rounds must be a positive integer" --rounds 0
refused "--rounds does not take the nvme_* workloads" --rounds 2 --workloads nvme_randread
refused "--preset bench (--rounds 3) does not take" --preset bench --workloads nvme_randwrite
irn_expect_summary
