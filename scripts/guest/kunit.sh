#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest KUnit job (scripts/vm.sh --kernel kunit): loads the modules
# named in IRN_KUNIT_MODULES in order (their tests run at load time),
# saves the kernel log for scripts/ktap.sh and unloads them again.
set -uo pipefail

log=$IRN_GUEST_OUT/kunit-dmesg.txt
rc=0
loaded=()
for m in ${IRN_KUNIT_MODULES:-rdma_irn irn_kunit}; do
	if modprobe -v "$m"; then
		loaded=("$m" "${loaded[@]}")
	else
		echo "irn-kunit: loading $m failed" >&2
		rc=1
		break
	fi
done
dmesg >"$log"
for m in "${loaded[@]}"; do
	rmmod "$m" || { echo "irn-kunit: rmmod $m failed" >&2; rc=1; }
done
exit "$rc"
