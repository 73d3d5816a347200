# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Where a process's threads wait, for the stuck reports of the guest
# tests (scripts/tests/lib.sh) and of the comparison (scripts/guest/
# compare.sh).

# irn_task_stacks PID: each thread's wait channel and kernel stack.
irn_task_stacks() {
	local t

	for t in /proc/"$1"/task/*; do
		echo "--- task ${t##*/} wchan $(cat "$t/wchan" 2>&1)"
		cat "$t/stack" 2>&1
	done
}
