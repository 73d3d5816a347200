#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: host timeout=60 ci=60
#
# The parsing and aggregation behind scripts/compare.sh (scripts/lib/
# compare.sh), on the host, without guests:
#  - perftest, iperf3 and fio (JSON) output recorded from real guest runs
#    (data/compare/*.client) parse to the numbers read off those files by
#    hand;
#  - counter snapshots recorded before and after real runs on both guests
#    (data/compare/*.{a,b}-{before,after}) give the deltas worked out by
#    hand;
#  - a synthetic runs CSV (data/compare/synthetic-runs.csv) aggregates to
#    the medians, % of lossless, counters and statuses worked out by hand
#    (odd and even run counts, a failed run, an n/a transport, a delay
#    whose lossless reference is not the first condition);
#  - the Markdown has those cells and no empty one; the gnuplot data is
#    right and gnuplot draws PNGs from it;
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
#    ends and README's headline say so.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA=$ROOT/scripts/tests/data/compare

# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/compare.sh
source "$ROOT/scripts/lib/compare.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
NFAIL=0 NOK=0

# expect WHAT EXPECTED SEEN
expect() {
	if [[ $2 == "$3" ]]; then
		NOK=$((NOK + 1))
	else
		printf 'FAIL: %s\n  expected: %s\n  seen:     %s\n' "$1" "$2" "$3"
		NFAIL=$((NFAIL + 1))
	fi
}

# expect_line WHAT FILE LINE: FILE has LINE exactly
expect_line() {
	if grep -qxF -- "$3" "$2"; then
		NOK=$((NOK + 1))
	else
		printf 'FAIL: %s: no line\n  %s\n  in %s:\n' "$1" "$3" "$2"
		sed 's/^/  | /' "$2"
		NFAIL=$((NFAIL + 1))
	fi
}

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
irn,lossless,0,0,lossless,write_bw,3,3,20.00,100,-,-,0,0,0,0,ok
irn,loss-1%,0,1,random,write_bw,3,3,9.00,45,-,-,60,200,22,6,ok
irn,2ms,2,0,lossless,write_bw,2,2,10.00,100,-,-,0,0,0,0,ok
irn,2ms-loss-1%,2,1,random,write_bw,3,2,5.00,50,-,-,15,14,4,2,1 of 3 failed: rc=124
irn,lossless,0,0,lossless,write_lat,3,3,-,-,200,3000,0,0,0,0,ok
rxe,lossless,0,0,lossless,write_bw,3,3,40.00,100,-,-,0,-,0,-,ok
rxe,loss-1%,0,1,random,write_bw,3,3,4.00,10,-,-,40,-,8,-,ok
siw,lossless,0,0,lossless,write_bw,3,0,-,-,-,-,-,-,-,-,n/a: not enabled in this kernel
tcp,lossless,0,0,lossless,iperf3,2,2,105.00,100,-,-,0,1,-,-,ok
tcp,loss-1%,0,1,random,iperf3,1,1,21.00,20,-,-,40,3,-,-,ok
irn,lossless,0,0,lossless,nvme_randread,2,2,3.00,100,400,1200,0,0,0,0,ok
irn,loss-1%,0,1,random,nvme_randread,1,1,1.00,33,1000,40000,10,12,4,2,ok
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
| irn | 2ms-loss-1% | write_bw | 2/3 | 5.00 | 50% | - | - | 15 | 14 | 4 | 2 | 1 of 3 failed: rc=124 |
| siw | lossless | write_bw | 0/3 | - | - | - | - | - | - | - | - | n/a (not enabled in this kernel) |
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
mkdir "$TMP/plots"
irn_cmp_plot "$TMP/summary.csv" "$TMP/plots" >"$TMP/plots.txt"
for f in goodput_vs_loss.png goodput_pct_vs_loss.png p99_vs_loss.png; do
	expect "$f is a PNG" 89504e470d0a1a0a \
		"$(head -c 8 "$TMP/plots/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')"
done

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
	run() {
		local kind=random
		[[ $2 != lossless ]] || kind=lossless
		printf '%s,%s,0,%s,%s,%s,%s,ok,3,%s,%s,%s,%s,%s,,%s,,,,,%s,,,,6.1.0-57-amd64\n' \
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

printf '%s checks passed, %s failed\n' "$NOK" "$NFAIL"
[[ $NFAIL == 0 ]]
