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
# IRN_SHARED=$IRN_GUEST_SHARED/tests/NAME, a time budget from the test's
# "# irn-test:" header for the tier IRN_TIER (irn_test_budget), kernel
# warnings in the test's dmesg window fail it, and the module must unload
# afterwards. One line per test is appended to $IRN_GUEST_OUT/results:
# "PASS|FAIL|SKIP NAME[: reason]", and "NAME SECONDS" to
# $IRN_GUEST_OUT/times.
#
# IRN_RUN_BUDGET (seconds from the job's start) is the run's deadline: a
# test still running then is stopped and fails, later tests fail without
# starting.  A test stopped for either limit leaves where its processes,
# and every task blocked in the kernel, were waiting in
# $IRN_OUT/stuck.txt.
set -uo pipefail

MODULE=${IRN_MODULE_NAME:-rdma_irn}
RESULTS=$IRN_GUEST_OUT/results
TIMES=$IRN_GUEST_OUT/times
DMESG_ALL=$IRN_GUEST_OUT/dmesg-all.txt
SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$SOURCE_DIR/scripts/lib/common.sh"
# shellcheck source=scripts/lib/stacks.sh
source "$SOURCE_DIR/scripts/lib/stacks.sh"

kmsg() { echo "irn-test: $*" >/dev/kmsg 2>/dev/null || true; }

test_timeout() {
	printf '%s\n' "$(($(irn_test_budget "$1" "${IRN_TIER:-full}") * ${IRN_TIMEOUT_SCALE:-1}))"
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

# stuck_report PGID: where the test's processes wait, and every task in
# uninterruptible sleep (a hang in the kernel is often someone else's).
stuck_report() {
	local p

	echo "=== the test's processes (process group $1)"
	for p in $(ps -e -o pid=,pgid= | awk -v g="$1" '$2 == g { print $1 }'); do
		echo "--- pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
		irn_task_stacks "$p"
	done
	echo "=== tasks in uninterruptible sleep"
	for p in $(ps -e -o pid=,stat= | awk '$2 ~ /^D/ { print $1 }'); do
		echo "--- pid $p: $(cat "/proc/$p/comm" 2>/dev/null)"
		irn_task_stacks "$p"
	done
}

# run_limited SECONDS TEST: run TEST in a process group of its own; stop
# it when SECONDS pass, after saving its stuck report, and set STOPPED.
# Exit status: the test's.
run_limited() {
	local test=$2 pid end=$((SECONDS + $1)) rc

	STOPPED=0

	setsid bash "$test" </dev/null >"$IRN_OUT/log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		stuck_report "$pid" >"$IRN_OUT/stuck.txt" 2>&1
		kill -TERM -- "-$pid" 2>/dev/null
		sleep 2
		kill -KILL -- "-$pid" 2>/dev/null
		STOPPED=1
		wait "$pid"
		return
	fi
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	return "$rc"
}

run_one() {
	local test=$1 name t rc reason='' verdict bad left t0 why
	name=$(basename "$test" .sh)
	t=$(test_timeout "$test")
	why="timed out after $t s (its budget)"
	left=$((DEADLINE - SECONDS))
	if ((left < 10)); then
		record "FAIL $name: not started: the run's deadline has passed"
		echo "$name 0" >>"$TIMES"
		return 1
	fi
	if ((left < t)); then
		t=$left
		why="stopped at the run's deadline after $t s"
	fi
	export IRN_OUT=$IRN_GUEST_OUT/tests/$name
	export IRN_SHARED=$IRN_GUEST_SHARED/tests/$name
	mkdir -p "$IRN_OUT" "$IRN_SHARED"
	if ! barrier "$name.start" "$(((t + 120) < left ? t + 120 : left))"; then
		record "FAIL $name: peer guest never reached the test (died or stuck)"
		echo "$name 0" >>"$TIMES"
		return 1
	fi
	dmesg -c >>"$DMESG_ALL"
	kmsg "begin $name"
	t0=$SECONDS
	rc=0
	run_limited "$t" "$test" || rc=$?
	echo "$name $((SECONDS - t0))" >>"$TIMES"
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
	if [[ $STOPPED == 1 ]]; then
		verdict=FAIL reason="$why, stacks in stuck.txt${reason:+; $reason}"
	else
		case $rc in
		0) verdict=PASS ;;
		77) verdict=SKIP ;;
		*) verdict=FAIL; reason="exit status $rc${reason:+; $reason}" ;;
		esac
	fi
	[[ -z $reason ]] || verdict=FAIL
	record "$verdict $name${reason:+: $reason}"
	left=$((DEADLINE - SECONDS))
	barrier "$name.end" "$((left < 300 ? (left > 1 ? left : 1) : 300))" || true
}

main() {
	local test
	: >"$RESULTS"
	: >"$TIMES"
	DEADLINE=$((SECONDS + ${IRN_RUN_BUDGET:-86400}))
	# leaks from boot are not the tests'
	[[ ! -w $KMEMLEAK ]] || { echo scan >$KMEMLEAK; echo clear >$KMEMLEAK; }
	export IRN_SRC IRN_KO IRN_TOOLS IRN_ROLE IRN_SELF_IP IRN_PEER_IP IRN_NETDEV
	for test in "$@"; do
		run_one "$test"
	done
	return 0
}

main "$@"
