#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=600 ci=300 debug-full
#
# rdma_cm between two guests: connection setup goes through the GSI QP
# (QP1, CM MADs) and the kernel verbs of the driver.  Server on guest b,
# client on guest a.
#
#   rping -v -C 10          RDMA READ/WRITE ping with data check (rping
#                           exits non-zero on a mismatch; -v prints the
#                           data, 10 "ping data" lines are required)
#   rping -v -S 4000 -C 20  larger buffers (not in make check's CI tier)
#   ucmatose                RC connect, 10 SENDs each way, disconnect
#   ucmatose -c 4 -S 1000   4 connections (not in the CI tier)
#   udaddy                  UD QPs resolved through rdma_cm
#   ib_write_bw -R          perftest with rdma_cm connection setup
#   mckey                   UD multicast: guest b joins an IPv4 group
#                           and receives every one of 20 messages guest
#                           a sends to it (rdma_cm refuses to join an
#                           IPv6 group from a link-local address)
#
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd rping ucmatose udaddy ib_write_bw mckey ip

irn_dev_up
irn_barrier devs-up
# the server binds the address of guest b
SRV=10.77.0.2

irn_case "rping -v -C 10" b 60 cm \
	"rping -s -a $SRV -p \$PORT -v -C 10" \
	"rping -c -a $SRV -p \$PORT -v -C 10" irn_check_rping
# make check's CI tier leaves out the bigger rping and ucmatose runs
if [[ ${IRN_TIER:-full} == full ]]; then
	IRN_RPING_COUNT=20 irn_case "rping -v -S 4000 -C 20" b 90 cm \
		"rping -s -a $SRV -p \$PORT -v -S 4000 -C 20" \
		"rping -c -a $SRV -p \$PORT -v -S 4000 -C 20" irn_check_rping
fi
irn_case "ucmatose" b 60 cm \
	"ucmatose -p \$PORT" \
	"ucmatose -s $SRV -p \$PORT"
if [[ ${IRN_TIER:-full} == full ]]; then
	irn_case "ucmatose -c 4 -S 1000" b 90 cm \
		"ucmatose -p \$PORT -c 4 -S 1000" \
		"ucmatose -s $SRV -p \$PORT -c 4 -S 1000"
fi
# udaddy has no port option: it always uses 7174
irn_case "udaddy" b 60 cm:7174 \
	"udaddy" \
	"udaddy -s $SRV"
irn_case "ib_write_bw -R -n 100" b 90 cm \
	"ib_write_bw -d $IRN_DEV -x $IRN_GIDX -p \$PORT -F -R -n 100" \
	"ib_write_bw -d $IRN_DEV -x $IRN_GIDX -p \$PORT -F -R -n 100 $SRV" irn_check_bw
# mckey's receiver exits 0 once it has all its messages; one lost
# message (UD) would hang it into the case's timeout
check_mckey_recv()
{
	grep -q "data transfers complete" "$1" ||
		{ echo "receiver did not get all its messages"; return 1; }
}
irn_case "mckey IPv4" b 60 mcast:239.77.0.1 \
	"stdbuf -oL mckey -m 239.77.0.1 -b $SRV -C 20" \
	"mckey -m 239.77.0.1 -b $IRN_SELF_IP -s -C 20" "" check_mckey_recv
irn_cases_finish
