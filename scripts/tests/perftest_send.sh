#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=900
#
# perftest between two guests, SEND: ib_send_bw and ib_send_lat.
# Server on guest b, client on guest a, RC unless -c says otherwise:
# the default posting path and --use_old_post_send, -a (all sizes, few
# iterations), inline (-I), several QPs (-q 4), bidirectional (-b),
# UC/UD where perftest has them.  Each run must exit 0 on both sides and
# report a non-zero bandwidth (or latency).  One case failing does not
# stop the others; see cases.txt and failures.md in the test's output.
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ib_send_bw ib_send_lat

irn_dev_up
irn_barrier devs-up

for tool in ib_send_bw ib_send_lat; do
	irn_perftest "" 90 $tool -n 100
	irn_perftest "" 90 $tool -n 100 --use_old_post_send
	irn_perftest "" 240 $tool -a -n 20
	irn_perftest "" 90 $tool -s 64 -I 64 -n 100
	irn_perftest "" 90 $tool -c UC -n 100
	irn_perftest "" 90 $tool -c UD -s 1024 -n 100
done
irn_perftest "" 90 ib_send_bw -q 4 -n 100
irn_perftest "" 90 ib_send_bw -b -n 100
irn_cases_finish
