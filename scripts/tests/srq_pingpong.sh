#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=240 ci=240
#
# ibv_srq_pingpong between two guests (RC QPs sharing a shared receive
# queue), polling and with -e, -c validating the data.  Server on b,
# client on a.  Written while irn had no SRQ (ibv_create_srq refused, so
# this failed); kept as the end-to-end check of irn's SRQ support.
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ibv_srq_pingpong

irn_dev_up
irn_barrier devs-up

N=${IRN_PINGPONG_ITERS:-50}
for ev in "" "-e"; do
	for s in 64 4096; do
		args="-d $IRN_DEV -g $IRN_GIDX -s $s -n $N -q 4 -c $ev"
		irn_case "ibv_srq_pingpong -q 4 -s $s $ev" b 60 tcp \
			"ibv_srq_pingpong -p \$PORT $args" \
			"ibv_srq_pingpong -p \$PORT $args $IRN_PEER_IP" \
			irn_check_pingpong irn_check_pingpong
	done
done
irn_cases_finish
