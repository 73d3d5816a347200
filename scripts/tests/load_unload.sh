#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=300 ci=120 debug 6.12
#
# Load and unload the module 20 times (5 in make check's CI tier).  Each
# round checks that
#  - the module shows up in /proc/modules (and goes "Live"),
#  - UDP port 4791 is bound while it is loaded (/proc/net/udp, :12B7)
#    and free again after rmmod,
#  - the kernel logged no warning, BUG or oops.
# IPv6 ([::]:4791 in /proc/net/udp6) is reported, not required.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init

ROUNDS=${IRN_ROUNDS:-$(irn_by_tier 20 5)}

irn_udp_bound && irn_fail "UDP port $IRN_RDMA_PORT is bound before loading $IRN_MODULE"

for ((r = 1; r <= ROUNDS; r++)); do
	out=$(modprobe "$IRN_MODULE" 2>&1) ||
		irn_fail "round $r: modprobe $IRN_MODULE failed: $out"
	irn_module_loaded "$IRN_MODULE" ||
		irn_fail "round $r: $IRN_MODULE not in /proc/modules after modprobe"
	irn_wait_for 5 "$IRN_MODULE Live in /proc/modules" \
		irn_module_live "$IRN_MODULE"
	irn_udp_bound ||
		irn_fail "round $r: UDP port $IRN_RDMA_PORT not bound while $IRN_MODULE is loaded (/proc/net/udp: $(tail -n +2 /proc/net/udp | awk '{print $2}' | tr '\n' ' '))"
	if irn_udp_bound -6; then v6=yes; else v6=no; fi
	irn_dmesg_check "round $r: after modprobe"

	irn_rmmod || irn_fail "round $r: rmmod $IRN_MODULE failed"
	irn_module_loaded "$IRN_MODULE" &&
		irn_fail "round $r: $IRN_MODULE still in /proc/modules after rmmod"
	irn_udp_bound &&
		irn_fail "round $r: UDP port $IRN_RDMA_PORT still bound after rmmod"
	irn_udp_bound -6 &&
		irn_fail "round $r: UDP6 port $IRN_RDMA_PORT still bound after rmmod"
	irn_dmesg_check "round $r: after rmmod"
	irn_log "round $r/$ROUNDS ok (udp4 bound, udp6 bound: $v6)"
done
irn_log "PASS: $ROUNDS load/unload rounds"
