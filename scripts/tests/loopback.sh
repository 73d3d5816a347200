#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=600 ci=300
#
# Client and server on one device in one guest: the requester and the
# responder share irn0 and every packet loops back inside the host.
#
#   ibv_rc/uc/ud_pingpong -c   client connects to localhost
#   ib_write_bw, ib_send_bw, ib_read_bw, ib_atomic_bw
#                              client connects to 127.0.0.1 (out-of-band
#                              TCP); ib_write_bw also to the guest's own IP
#   ib_write_lat               to 127.0.0.1
#   rping -v -C 10             rdma_cm on the guest's own address
#
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_cmd ibv_rc_pingpong ib_write_bw rping ss

irn_dev_up
SELF=$IRN_SELF_IP

for t in rc uc; do
	args="-d $IRN_DEV -g $IRN_GIDX -s 4096 -n 50 -c"
	irn_case "ibv_${t}_pingpong $args localhost" b 60 tcp \
		"ibv_${t}_pingpong -p \$PORT $args" \
		"ibv_${t}_pingpong -p \$PORT $args localhost" \
		irn_check_pingpong irn_check_pingpong
done
args="-d $IRN_DEV -g $IRN_GIDX -s 512 -n 50 -c"
irn_case "ibv_ud_pingpong $args localhost" b 60 tcp \
	"ibv_ud_pingpong -p \$PORT $args" \
	"ibv_ud_pingpong -p \$PORT $args localhost" \
	irn_check_pingpong irn_check_pingpong

IRN_PERFTEST_SERVER=127.0.0.1
for tool in ib_write_bw ib_send_bw ib_read_bw; do
	irn_perftest "to 127.0.0.1" 90 $tool -n 100
done
irn_perftest "to 127.0.0.1" 90 ib_atomic_bw -n 100
irn_perftest "to 127.0.0.1" 90 ib_write_lat -n 100
irn_perftest "to 127.0.0.1" 90 ib_send_bw -s 64 -I 64 -n 100
IRN_PERFTEST_SERVER=$SELF
irn_perftest "to $SELF" 90 ib_write_bw -n 100
irn_perftest "to $SELF" 90 ib_read_bw -n 100

irn_case "rping -v -C 10 on $SELF" b 60 cm \
	"rping -s -a $SELF -p \$PORT -v -C 10" \
	"rping -c -a $SELF -p \$PORT -v -C 10" irn_check_rping
irn_cases_finish
