#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=600 ci=300 6.12 6.1+6.12
#
# libibverbs' example programs between two guests: ibv_rc_pingpong,
# ibv_uc_pingpong and ibv_ud_pingpong, polling and with -e (completion
# events), a few message sizes (one each in make check's CI tier), -n 50,
# -c (the receiver validates the buffer contents).  Server on guest b, client on guest a; both must exit
# 0.  UD messages must fit the path MTU (1024 at a netdev MTU of 1500).
# ibv_srq_pingpong is in srq_pingpong.sh.
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong

irn_dev_up
irn_barrier devs-up

N=${IRN_PINGPONG_ITERS:-50}
# make check's CI tier: one size each, a partial last packet for RC and UC
RCUC_SIZES=$(irn_by_tier "64 4096 8000" 8000)
UD_SIZES=$(irn_by_tier "64 512 1024" 1024)
for ev in "" "-e"; do
	for t in rc uc; do
		for s in $RCUC_SIZES; do
			args="-d $IRN_DEV -g $IRN_GIDX -s $s -n $N -c $ev"
			irn_case "ibv_${t}_pingpong -s $s $ev" b 60 tcp \
				"ibv_${t}_pingpong -p \$PORT $args" \
				"ibv_${t}_pingpong -p \$PORT $args $IRN_PEER_IP" \
				irn_check_pingpong irn_check_pingpong
		done
	done
	for s in $UD_SIZES; do
		args="-d $IRN_DEV -g $IRN_GIDX -s $s -n $N -c $ev"
		irn_case "ibv_ud_pingpong -s $s $ev" b 60 tcp \
			"ibv_ud_pingpong -p \$PORT $args" \
			"ibv_ud_pingpong -p \$PORT $args $IRN_PEER_IP" \
			irn_check_pingpong irn_check_pingpong
	done
done
irn_cases_finish
