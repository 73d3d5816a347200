#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=900 ci=240
#
# perftest between two guests, SEND: ib_send_bw and ib_send_lat.
# Server on guest b, client on guest a, RC unless -c says otherwise:
# the default posting path and --use_old_post_send, -a (all sizes, few
# iterations), inline (-I), several QPs (-q 4), bidirectional (-b),
# UC/UD where perftest has them.  Each run must exit 0 on both sides,
# report a non-zero bandwidth (or latency), and each guest's device must
# have sent and received at least the packets the client's results need
# (irn_check_perftest in lib.sh).  One case failing does not stop the
# others; see cases.txt and failures.md in the test's output.
# make check's quick cut (IRN_TIER=ci) runs one case: ib_send_bw -s 65536
# -n 100, RC on the default posting path, 64 KiB sends of many packets.
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ib_send_bw ib_send_lat

irn_dev_up
irn_barrier devs-up

if [[ ${IRN_TIER:-full} == ci ]]; then
	irn_perftest "" 90 ib_send_bw -s 65536 -n 100
else
	for tool in ib_send_bw ib_send_lat; do
		irn_perftest "" 90 $tool -n 100
		irn_perftest "" 90 $tool -n 100 --use_old_post_send
		# Each size's latency messages cross one at a time, both
		# ways: on the debug kernel ib_send_lat -a -n 5 outlasted
		# 720 s (240, scaled) where ib_send_bw -a -n 5 took 454 s.
		budget=240
		[[ $tool != ib_send_lat ]] || budget=480
		irn_perftest "" "$budget" $tool -a -n "$(irn_all_sizes_iters "$tool")"
		irn_perftest "" 90 $tool -s 64 -I 64 -n 100
		irn_perftest "" 90 $tool -c UC -n 100
		irn_perftest "" 90 $tool -c UD -s 1024 -n 100
	done
	irn_perftest "" 90 ib_send_bw -q 4 -n 100
	irn_perftest "" 90 ib_send_bw -b -n 100
fi
irn_cases_finish
