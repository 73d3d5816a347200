#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=1200 ci=600 6.12
#
# rdma-core's own Python test suite (pyverbs), from Debian's rdma-core
# package (/usr/share/doc/rdma-core/tests, copied to /tmp and gunzipped),
# run twice in this guest: first against stock rdma_rxe (rxe0 on eth0,
# then unloaded), then against irn (irn0 on eth0):
#
#	/usr/bin/python3 run_tests.py --dev DEV -v
#
# The test passes only if every test that passes on rxe also passes on
# irn.  It prints the pass/skip/fail/error counts of both runs and the
# regressions (passed on rxe, anything else on irn, including tests that
# never reported because the run hung or crashed).  Tests that pass on irn
# but not on rxe are listed as well, for information.  Full logs:
# suite-rxe.log, suite-irn-MODE.log and the parsed results suite-*.results
# ("STATUS test-id" lines) in the test's output directory.
# The rxe run is the baseline, so the test also fails when a run did not
# finish (a timeout, or no "Ran N tests" line: hung or crashed), or when
# rxe passed fewer than 3/4 as many tests as an irn run, or none: a
# broken rxe run would leave nothing to compare.
# irn runs once per transport mode (module parameter mode=), each
# compared with the rxe run: "auto gbn irn" in the full tier; in make
# check's CI tier (IRN_TIER=ci) only "auto", the default, whose QPs start
# as standard RoCEv2 and turn IRN on once the peer (irn0 itself)
# answers.  IRN_SUITE_MODES overrides either.
# With IRN_DRIVER=rxe the second run is stock rxe again (a flakiness check).
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
PY=$(irn_python)
$PY -c 'import pyverbs' 2>/dev/null || irn_skip "python3-pyverbs is not installed ($PY)"
SRC=/usr/share/doc/rdma-core/tests
[[ -f $SRC/run_tests.py ]] || irn_skip "rdma-core tests not installed ($SRC)"

WORK=/tmp/rdma-core-tests
rm -rf "$WORK"
cp -r "$SRC" "$WORK"
find "$WORK" -name '*.gz' -exec gunzip -f {} +

SECOND=$IRN_DRIVER
MODES=${IRN_SUITE_MODES:-$(irn_by_tier "auto gbn irn" auto)}
# runs that leave no sound comparison, one line each
BROKEN=()

# use_driver rxe|irn: point lib.sh's IRN_MODULE/IRN_LINK_TYPE/IRN_DEV at it
use_driver()
{
	IRN_DRIVER=$1
	case $1 in
	irn) IRN_MODULE=rdma_irn IRN_LINK_TYPE=irn IRN_DEV=irn0 ;;
	rxe) IRN_MODULE=rdma_rxe IRN_LINK_TYPE=rxe IRN_DEV=rxe0 ;;
	esac
}

# parse LOG > RESULTS: "pass|skip|fail|error ID" per test, from unittest -v
parse()
{
	$PY - "$1" <<'PYEOF'
import re, sys
status = {}
order = []
pending = None
statre = re.compile(r'(ok|skipped|FAIL|ERROR|expected failure|unexpected success)\b')
namere = re.compile(r'^(\w+) \(([\w.]+)\)')
mapping = {'ok': 'pass', 'skipped': 'skip', 'FAIL': 'fail', 'ERROR': 'error',
           'expected failure': 'pass', 'unexpected success': 'fail'}

def tid(name, paren):
    return paren if paren.endswith('.' + name) else paren + '.' + name

def setst(t, s):
    if t not in status:
        order.append(t)
    status[t] = s

lines = open(sys.argv[1], errors='replace').read().splitlines()
for line in lines:
    m = re.match(r'^(FAIL|ERROR): (\w+) \(([\w.]+)\)', line)
    if m:
        setst(tid(m.group(2), m.group(3)), m.group(1).lower())
        continue
    m = namere.match(line)
    if m:
        pending = tid(m.group(1), m.group(2))
        if pending not in status:
            setst(pending, 'running')
    if pending is None:
        continue
    if ' ... ' in line:
        rest = line.split(' ... ', 1)[1]
        sm = statre.match(rest)
        if sm:
            if status.get(pending) == 'running':
                status[pending] = mapping[sm.group(1)]
            pending = None
        continue
    sm = statre.match(line)
    if sm and status.get(pending) == 'running':
        status[pending] = mapping[sm.group(1)]
        pending = None
for t in order:
    s = status[t]
    print(('hang' if s == 'running' else s), t)
PYEOF
}

# run_suite DRIVER TAG [MODE]: one device, the whole suite, results in
# suite-TAG.*; MODE is irn's transport mode
run_suite()
{
	local drv=$1 tag=$2 mode=${3:-} rc=0 log res
	use_driver "$drv"
	log=$IRN_OUT/suite-$tag.log res=$IRN_OUT/suite-$tag.results
	if [[ -n $mode ]]; then
		modprobe "$IRN_MODULE" mode="$mode" ||
			irn_fail "modprobe $IRN_MODULE mode=$mode failed"
	fi
	irn_dev_up
	irn_log "running the rdma-core suite on $IRN_DEV (log $log)"
	(cd "$WORK" && timeout -k 10 "${IRN_SUITE_TIMEOUT:-480}" \
		"$PY" run_tests.py --dev "$IRN_DEV" -v) >"$log" 2>&1 </dev/null || rc=$?
	irn_log "suite on $IRN_DEV: exit status $rc, $(grep -E '^Ran [0-9]+ tests' "$log" || echo 'no summary (hung or crashed?)')"
	if [[ $rc == 124 ]]; then
		echo "TIMEOUT after ${IRN_SUITE_TIMEOUT:-480}s" >>"$log"
		BROKEN+=("$tag: timed out after ${IRN_SUITE_TIMEOUT:-480}s")
	elif ! grep -qE '^Ran [0-9]+ tests? in ' "$log"; then
		BROKEN+=("$tag: no 'Ran N tests' line (exit status $rc: hung or crashed?)")
	fi
	parse "$log" >"$res"
	rdma statistic show link "$IRN_DEV/1" >"$IRN_OUT/counters-$tag.txt" 2>&1 || true
	irn_link_del "$IRN_DEV"
	irn_rmmod || irn_fail "cannot unload $IRN_MODULE after the suite"
}

counts()
{
	awk '{ n[$1]++; t++ } END {
		printf "%d tests: %d pass, %d skip, %d fail, %d error, %d hung/unfinished\n",
			t, n["pass"], n["skip"], n["fail"], n["error"], n["hang"] }' "$1"
}

run_suite rxe rxe
SECONDS_RUNS=()
if [[ $SECOND == rxe ]]; then
	run_suite rxe rxe2
	SECONDS_RUNS=(rxe2)
else
	for m in $MODES; do
		run_suite irn "irn-$m" "$m"
		SECONDS_RUNS+=("irn-$m")
	done
fi
use_driver "$SECOND"

npass() { grep -c '^pass ' "$1" || true; }

RA=$IRN_OUT/suite-rxe.results
echo "rxe: $(counts "$RA")"
PA=$(npass "$RA")
((PA > 0)) || BROKEN+=("rxe: no test passed")
nreg=0
for B in "${SECONDS_RUNS[@]}"; do
	RB=$IRN_OUT/suite-$B.results
	echo "$B: $(counts "$RB")"
	PB=$(npass "$RB")
	((4 * PA >= 3 * PB)) ||
		BROKEN+=("rxe: $PA tests passed, $B: $PB (the baseline needs 3/4 of that)")
	# regressions: pass on rxe, anything else (or absent) on this run
	regs=$(awk 'NR == FNR { b[$2] = $1; next }
		$1 == "pass" && b[$2] != "pass" { print "  " $2 ": " (b[$2] == "" ? "not run" : b[$2]) }' \
		"$RB" "$RA")
	better=$(awk 'NR == FNR { a[$2] = $1; next }
		$1 == "pass" && a[$2] != "pass" { print "  " $2 ": " (a[$2] == "" ? "not run" : a[$2]) " on rxe" }' \
		"$RA" "$RB")
	printf '%s\n' "$regs" >"$IRN_OUT/regressions-$B.txt"
	if [[ -n $better ]]; then
		echo "passing on $B but not on rxe:"
		printf '%s\n' "$better"
	fi
	grep -E -A12 '^(FAIL|ERROR): ' "$IRN_OUT/suite-$B.log" | head -n 200 >"$IRN_OUT/failures-$B.txt" || true
	if [[ -n $regs ]]; then
		echo "regressions (pass on rxe, not on $B): $(grep -c . <<<"$regs")"
		printf '%s\n' "$regs"
		nreg=$((nreg + $(grep -c . <<<"$regs")))
	fi
done
irn_dmesg_check "rdma-core suite"
[[ ${#BROKEN[@]} -eq 0 ]] ||
	irn_fail "no sound comparison:"$'\n'"$(printf '  %s\n' "${BROKEN[@]}")"
[[ $nreg -eq 0 ]] ||
	irn_fail "$nreg tests pass on rxe but not on ${SECONDS_RUNS[*]} (list above; logs in $IRN_OUT)"
irn_log "PASS: every test that passes on rxe passes on ${SECONDS_RUNS[*]}"
