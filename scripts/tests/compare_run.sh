#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: host timeout=600
#
# A short real run of scripts/compare.sh (make compare): irn in go-back-N
# mode against irn with IRN, lossless and with 5% random loss,
# ib_write_bw and ib_write_lat, one run of 2 s each, on two guests.
# Passes when the results folder has runs.csv with one row per run (all
# "ok", with a goodput or latency, irn's retransmission counter and both
# guests' vCPU use filled in), summary.csv, summary.md whose tables have
# no empty cell, and the three PNG plots; when IRN resent packets under
# loss; and when no guest console shows a kernel report
# (irn_bad_kernel_patterns: WARNING:, BUG:, KASAN:, lockdep, ...), which
# compare.sh, booting its guests with vm.sh --no-scan, does not look for.
# Then the same two transports take turns twice in one boot (--rounds 2,
# lossless, make bench's way): every run "ok" with its round's rep
# number, and each turn's counters saved, so each turn had its device
# (the module unloaded and loaded again between them).
# Runs on the host (compare.sh boots its own guests); some 4 minutes.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
OUT=${IRN_OUT:-$(mktemp -d)}/compare
NFAIL=0

fail() { printf 'FAIL: %s\n' "$*"; NFAIL=$((NFAIL + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

# scan_consoles RAW: the kernel reports vm.sh's scan would fail a guest
# for (irn_scan_kernel_log), in every guest console under RAW, named with
# their lines.  netem's drops are no kernel report.  Left out: a boot
# that compare.sh retried because its kernel died before the job started
# (RAW/*.failed-boot without "irn-guest: running").
scan_consoles()
{
	local f bad n=0 nbad=0

	for f in "$1"/*/guest-?/console.log; do
		[[ -f $f ]] || continue
		[[ $f != */*.failed-boot/* ]] || grep -q 'irn-guest: running' "$f" ||
			continue
		n=$((n + 1))
		if bad=$(irn_scan_kernel_log "$f" | grep -a -v -E '^(irn-guest|irn-test):'); then
			fail "kernel report in $f:"$'\n'"$(head -n 20 <<<"$bad" | tr -d '\r')"
			nbad=$((nbad + 1))
		fi
	done
	if [[ $n == 0 ]]; then
		fail "no guest console under $1"
	elif [[ $nbad == 0 ]]; then
		ok "no kernel report in the $n guest consoles"
	fi
}

rm -rf "$OUT"
rc=0
"$ROOT/scripts/compare.sh" --transports "irn-gbn irn" \
	--conditions "lossless loss-5%" --workloads "write_bw write_lat" \
	--reps 1 --seconds 2 --lat-iters 50 --out "$OUT" || rc=$?
scan_consoles "$OUT/raw"
[[ $rc == 0 ]] || { echo "FAIL: scripts/compare.sh exited with $rc"; exit 1; }

for f in runs.csv summary.csv summary.md goodput_vs_loss.png \
	goodput_pct_vs_loss.png p99_vs_loss.png; do
	if [[ -s $OUT/$f ]]; then ok "$f written"; else fail "$OUT/$f missing or empty"; fi
done
for f in "$OUT"/*.png; do
	[[ $(head -c 8 "$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
		fail "$f is not a PNG"
done

# runs.csv: 2 transports x 2 conditions x 2 workloads = 8 rows, all ok
rows=$(($(wc -l <"$OUT/runs.csv") - 1))
if [[ $rows == 8 ]]; then ok "8 runs in runs.csv"; else fail "runs.csv has $rows rows, expected 8"; fi
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["status"] != "ok" { print $c["transport"], $c["condition"], $c["workload"], $c["status"] }
	$c["status"] == "ok" && $c["bw_MBps"] == "" && $c["lat_p99_us"] == "" { print $c["transport"], $c["condition"], $c["workload"], "no value" }
	$c["status"] == "ok" && $c["retransmitted_pkts"] == "" { print $c["transport"], $c["condition"], $c["workload"], "no retransmitted_pkts" }
	$c["status"] == "ok" && ($c["cpu_a_pct"] == "" || $c["cpu_b_pct"] == "") { print $c["transport"], $c["condition"], $c["workload"], "no vCPU use" }' \
	"$OUT/runs.csv")
if [[ -z $bad ]]; then
	ok "every run ok, with values and counters"
else
	fail "runs: $bad"
	# what the runs that hung were doing (scripts/guest/compare.sh)
	find "$OUT/raw" -name '*.stuck*' -print -exec cat {} \; 2>/dev/null | head -n 300
fi

# IRN under 5% loss resends something, and the qdisc dropped something
resent=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["transport"] == "irn" && $c["condition"] == "loss-5%" && $c["workload"] == "write_bw" { print $c["retransmitted_pkts"] "/" $c["qdisc_dropped"] }' \
	"$OUT/runs.csv")
if [[ ${resent%/*} -gt 0 && ${resent#*/} -gt 0 ]]; then
	ok "irn, 5% loss: resent/dropped $resent"
else
	fail "irn, 5% loss: resent/dropped '$resent', expected both > 0"
fi

# Markdown tables: no empty cell ("| |" or "||"), the pivot has both
# transports and both conditions
empty=$(grep -E '^\|' "$OUT/summary.md" | grep -nE '\|\s*\|' || true)
if [[ -z $empty ]]; then ok "no empty cell in summary.md"; else fail "empty cells in summary.md: $empty"; fi
for want in "| irn-gbn | write_bw |" "| irn | write_bw |" "| irn | write_lat |" "loss-5%"; do
	if grep -qF -- "$want" "$OUT/summary.md"; then
		ok "summary.md has '$want'"
	else
		fail "summary.md lacks '$want'"
	fi
done
# --- the transports taking turns in one boot (--rounds 2) -------------------
OUT2=$OUT-rounds
rm -rf "$OUT2"
rc=0
"$ROOT/scripts/compare.sh" --rounds 2 --transports "irn-gbn irn" \
	--conditions lossless --workloads "write_bw write_lat" \
	--seconds 2 --lat-iters 50 --out "$OUT2" || rc=$?
scan_consoles "$OUT2/raw"
[[ $rc == 0 ]] || { echo "FAIL: scripts/compare.sh --rounds 2 exited with $rc"; exit 1; }
# 2 transports x 2 workloads x 2 rounds, reps 1 and 2, all ok
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $c["transport"], $c["workload"], $c["rep"], $c["status"] }' "$OUT2/runs.csv" | sort | tr '\n' ';')
want="irn write_bw 1 ok;irn write_bw 2 ok;irn write_lat 1 ok;irn write_lat 2 ok;irn-gbn write_bw 1 ok;irn-gbn write_bw 2 ok;irn-gbn write_lat 1 ok;irn-gbn write_lat 2 ok;"
if [[ $got == "$want" ]]; then ok "--rounds 2: 8 runs ok, reps 1 and 2"; else fail "--rounds 2: runs '$got', expected '$want'"; fi
for f in counters-irn-gbn-r1 counters-irn-r1 counters-irn-gbn-r2 counters-irn-r2; do
	if grep -q retransmitted_pkts "$OUT2/raw/rounds/guest-a/out/$f.txt" 2>/dev/null; then
		ok "--rounds 2: $f.txt"
	else
		fail "--rounds 2: no device counters in $OUT2/raw/rounds/guest-a/out/$f.txt"
	fi
done
[[ ! -s $OUT2/ratios.csv ]] || fail "--rounds 2: ratios.csv without rxe"

[[ $NFAIL == 0 ]] || { echo "$NFAIL check(s) failed; results in $OUT"; exit 1; }
echo "PASS; results in $OUT and $OUT2"
