#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest integration test runner (scripts/vm.sh job).
#
#   run-tests.sh TEST.sh...
#
# Runs the tests one after the other. With two guests both run the same
# list and meet at a barrier in the shared export before and after each
# test. Per test: IRN_OUT=$IRN_GUEST_OUT/tests/NAME (log, dmesg.txt),
# IRN_SHARED=$IRN_GUEST_SHARED/tests/NAME, a timeout from the test's
# "# irn-test:" header, kernel warnings in the test's dmesg window fail
# it, and the module must unload afterwards. One line per test is
# appended to $IRN_GUEST_OUT/results: "PASS|FAIL|SKIP NAME[: reason]".
set -uo pipefail

MODULE=${IRN_MODULE_NAME:-rdma_irn}
RESULTS=$IRN_GUEST_OUT/results
DMESG_ALL=$IRN_GUEST_OUT/dmesg-all.txt
SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$SOURCE_DIR/scripts/lib/common.sh"

kmsg() { echo "irn-test: $*" >/dev/kmsg 2>/dev/null || true; }

test_timeout() {
	local t
	t=$(grep -m1 -E '^# irn-test:' "$1" | grep -o -E 'timeout=[0-9]+' | cut -d= -f2)
	printf '%s\n' "$((${t:-${IRN_DEFAULT_TIMEOUT:-120}} * ${IRN_TIMEOUT_SCALE:-1}))"
}

# barrier NAME TIMEOUT: both guests arrive or it fails (one guest: no-op)
barrier() {
	local name=$1 limit=$2 dir=$IRN_GUEST_SHARED/.runner peer i
	[[ ${IRN_GUESTS:-1} == 2 ]] || return 0
	[[ $IRN_ROLE == a ]] && peer=b || peer=a
	mkdir -p "$dir"
	touch "$dir/$name.$IRN_ROLE"
	for ((i = 0; i < limit * 10; i++)); do
		[[ -e $dir/$name.$peer ]] && return 0
		sleep 0.1
	done
	return 1
}

# Remove whatever the test left; fail if the module does not unload.
unload_module() {
	local link
	grep -q "^$MODULE " /proc/modules || return 0
	rmmod "$MODULE" 2>/dev/null && return 0
	for link in $(rdma link show 2>/dev/null | awk '$1 == "link" { split($2, a, "/"); print a[1] }'); do
		rdma link delete "$link" 2>/dev/null
	done
	rmmod "$MODULE" 2>/dev/null
	return 1
}

# On a kernel with kmemleak: objects leaked since the last scan, saved to
# FILE; prints a summary and succeeds if there are any.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_scan() {
	local n
	[[ -w $KMEMLEAK ]] || return 1
	echo scan >$KMEMLEAK
	cat $KMEMLEAK >"$1"
	echo clear >$KMEMLEAK
	n=$(grep -c '^unreferenced object' "$1")
	[[ $n -gt 0 ]] || return 1
	printf '%s unreferenced objects, see %s\n' "$n" "$1"
}

record() {
	echo "$1" >>"$RESULTS"
	echo "irn-test: $1" >/dev/console
}

run_one() {
	local test=$1 name t rc pid reason='' verdict bad
	name=$(basename "$test" .sh)
	t=$(test_timeout "$test")
	export IRN_OUT=$IRN_GUEST_OUT/tests/$name
	export IRN_SHARED=$IRN_GUEST_SHARED/tests/$name
	mkdir -p "$IRN_OUT" "$IRN_SHARED"
	if ! barrier "$name.start" $((t + 120)); then
		record "FAIL $name: peer guest never reached the test (died or stuck)"
		return 1
	fi
	dmesg -c >>"$DMESG_ALL"
	kmsg "begin $name"
	setsid timeout -k 5 "$t" bash "$test" </dev/null >"$IRN_OUT/log" 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	unload_module || reason="left the module loaded (rmmod $MODULE failed)"
	kmsg "end $name"
	dmesg -c >"$IRN_OUT/dmesg.txt"
	cat "$IRN_OUT/dmesg.txt" >>"$DMESG_ALL"
	if bad=$(irn_scan_kernel_log "$IRN_OUT/dmesg.txt" | grep -v 'irn-test:'); then
		reason="kernel warning during the test: $(printf '%s\n' "$bad" | head -n1)"
	fi
	if bad=$(kmemleak_scan "$IRN_OUT/kmemleak.txt"); then
		reason="${reason:+$reason; }kmemleak: $bad"
	fi
	case $rc in
	0) verdict=PASS ;;
	77) verdict=SKIP ;;
	124 | 137) verdict=FAIL; reason="timed out after $t s${reason:+; $reason}" ;;
	*) verdict=FAIL; reason="exit status $rc${reason:+; $reason}" ;;
	esac
	[[ -z $reason ]] || verdict=FAIL
	record "$verdict $name${reason:+: $reason}"
	barrier "$name.end" 300 || true
}

main() {
	local test
	: >"$RESULTS"
	# leaks from boot are not the tests'
	[[ ! -w $KMEMLEAK ]] || { echo scan >$KMEMLEAK; echo clear >$KMEMLEAK; }
	export IRN_SRC IRN_KO IRN_TOOLS IRN_ROLE IRN_SELF_IP IRN_PEER_IP IRN_NETDEV
	for test in "$@"; do
		run_one "$test"
	done
	return 0
}

main "$@"
