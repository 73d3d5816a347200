#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: host timeout=420 ci=180
#
# scripts/check.sh always ends in a verdict.  It runs check.sh on the
# fixtures in data/harness/ (one guest, Debian's kernel):
#  - hang.sh sleeps for ever: it fails at its 15 s budget with its stuck
#    report, next.sh still runs and passes, and the run closes with
#    "1 passed, 1 failed" and the slowest-tests table;
#  - (not in make check's CI tier, where it would cost two minutes) the
#    same with a 150 s deadline for the whole run and hang.sh given
#    1000 s: hang.sh is stopped at the deadline, next.sh fails without
#    starting, and the closing line comes within a minute of the
#    deadline;
#  - a name that selects no test is a failure, not "0 passed, 0 failed".
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIX=$ROOT/scripts/tests/data/harness
OUT=${IRN_OUT:-$(mktemp -d)}
NFAIL=0

fail() { printf 'FAIL: %s\n' "$*"; NFAIL=$((NFAIL + 1)); }
ok() { printf 'ok: %s\n' "$*"; }

# check FIXTURES LOG ARGS...: a nested check.sh on the tests in the folder
# FIXTURES; its exit status
check() {
	local fix=$1 log=$2 rc=0
	shift 2
	env -u IRN_RUN_DIR IRN_RESULTS="$OUT/results" IRN_TESTS_DIR="$fix" \
		IRN_CHECK_DEBUG=0 "$ROOT/scripts/check.sh" --integration-only "$@" \
		>"$log" 2>&1 || rc=$?
	sed 's/^/    | /' "$log"
	return "$rc"
}

# expect LOG REGEX WHAT
expect() {
	if grep -q -E "$2" "$1"; then ok "$3"; else fail "$3: no line matching '$2' in $1"; fi
}

rc=0
check "$FIX" "$OUT/budget.log" || rc=$?
[[ $rc == 1 ]] && ok "budget run exits 1" || fail "budget run exited $rc, expected 1"
expect "$OUT/budget.log" '^FAIL hang \[[0-9]+ s\] \(a: timed out after 15 s \(its budget\), stacks in stuck.txt' \
	"hang fails at its budget"
expect "$OUT/budget.log" '^PASS next \[[0-9]+ s\]$' "the next test still runs"
expect "$OUT/budget.log" '^slowest tests' "the slowest-tests table"
expect "$OUT/budget.log" '^1 passed, 1 failed$' "the closing line"
stuck=$(find "$OUT/results" -path '*integ-1/guest-a/out/tests/hang/stuck.txt' | head -n 1)
if [[ -n $stuck ]] && grep -q 'sleep infinity' "$stuck"; then
	ok "the stuck report names the test's process"
else
	fail "no stuck report naming 'sleep infinity' (${stuck:-none found})"
fi

# deadline: the full tier only
deadline_run() {
	local rc=0 t0=$SECONDS took

	mkdir -p "$OUT/long"
	sed 's/timeout=15 ci=15/timeout=1000 ci=1000/' "$FIX/hang.sh" >"$OUT/long/hang.sh"
	cp "$FIX/next.sh" "$OUT/long/"
	IRN_CHECK_DEADLINE=150 check "$OUT/long" "$OUT/deadline.log" || rc=$?
	took=$((SECONDS - t0))
	[[ $rc == 1 ]] && ok "deadline run exits 1" || fail "deadline run exited $rc, expected 1"
	expect "$OUT/deadline.log" '^FAIL hang \[[0-9]+ s\] \(a: stopped at the run.s deadline after [0-9]+ s, stacks in stuck.txt' \
		"hang stopped at the deadline"
	expect "$OUT/deadline.log" '^FAIL next \[0 s\] \(a: not started: the run.s deadline has passed\)$' \
		"the next test fails without starting"
	expect "$OUT/deadline.log" '^0 passed, 2 failed$' "the closing line"
	if ((took <= 210)); then
		ok "closed in $took s (deadline 150 s)"
	else
		fail "closed in $took s, deadline 150 s"
	fi
}
[[ ${IRN_TIER:-full} == ci ]] || deadline_run

rc=0
check "$FIX" "$OUT/nomatch.log" no_such_test || rc=$?
[[ $rc == 1 ]] && ok "a name that selects nothing exits 1" || fail "no-match run exited $rc, expected 1"
expect "$OUT/nomatch.log" '^FAIL select:no_such_test ' "a name that selects nothing fails"
expect "$OUT/nomatch.log" '^0 passed, 1 failed$' "the closing line"

[[ $NFAIL == 0 ]] || { echo "$NFAIL check(s) failed"; exit 1; }
