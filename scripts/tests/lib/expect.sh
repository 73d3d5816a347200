# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Checks of the host tests (scripts/tests/*.sh marked "host"), which
# compare what a script wrote with what was worked out by hand: each
# check counts in NOK or NFAIL and prints what differs, and the test ends
# with irn_expect_summary.

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

# irn_expect_summary: the counts; fails if a check failed
irn_expect_summary() {
	printf '%s checks passed, %s failed\n' "$NOK" "$NFAIL"
	[[ $NFAIL == 0 ]]
}
