#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=300 ci=240 debug
#
# Queue pair corner cases and races through the stock rxe provider: runs
# tools/irn_qpcheck against the device, every QP in loopback on its own
# RoCE v2 GID.
#
#   zero-rq         RC QPs with max_recv_wr = 0 and with max_send_wr = 0
#                   are created and move data (64 KiB READ, 4 KiB WRITE)
#   ah-foreign-pd   a UD send through an AH of another PD completes in
#                   error and delivers nothing; one through an AH of the
#                   QP's own PD arrives
#   ud-error-sqe    a UD send with a bad lkey completes in error and moves
#                   the QP to SQE (not ERR); SQE -> RTS resumes it
#   modify-av-race  two threads replace the AV of a QP in SQD while its
#                   responder ACKs a stream of RDMA WRITEs
#   destroy-busy    QPs with timeout 1 destroyed under 32 x 64 KiB WRITEs
#   rnr-wait        a SEND answered with RNR NAKs for 3 s (45 local ACK
#                   timeouts) completes once the receive is posted: an
#                   RNR wait does not spend the transport's retry count
#
# Then qperf, as a user would run it, in loopback through rdma_cm: its
# bandwidth tests create QPs with an empty receive or send queue.
#
# The last two exist for the debug kernel (KASAN, lockdep, DEBUG_OBJECTS):
# the tool checks statuses and data, the kernel log the rest.  With
# IRN_DRIVER=rxe the same runs against stock rdma_rxe (whose UD QPs go to
# ERR, not SQE, after a send error: ud-error-sqe fails there).
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init

qpcheck=$(irn_tool irn_qpcheck)
irn_dev_up "$IRN_DEV"

# DEBUG_OBJECTS warns five times per boot, then only counts
odebug_stats=/sys/kernel/debug/debug_objects/stats
odebug_warnings()
{
	awk -F: '$1 ~ /^warnings/ { print $2 + 0 }' "$odebug_stats" 2>/dev/null
}
odebug0=$(odebug_warnings || true)

failed=()
qpcheck_run()
{
	local args=(-d "$IRN_DEV" -g "$IRN_GIDX" -v "$@") out rc

	set +e
	out=$("$qpcheck" "${args[@]}" 2>&1)
	rc=$?
	set -e
	printf '%s\n' "$out" | tee -a "$IRN_OUT/irn_qpcheck-$IRN_DEV.txt"
	[[ $rc -eq 0 ]] ||
		failed+=("irn_qpcheck ${args[*]} exited with $rc; failed steps: $(grep '^FAIL' <<<"$out" | tr '\n' ';')")
}
qpcheck_run -s zero-rq,ah-foreign-pd,ud-error-sqe,modify-av-race,rnr-wait
# destroy-busy takes about 0.6 s a round on the debug kernel under TCG
qpcheck_run -s destroy-busy -n "$(irn_by_tier 200 25)"

irn_require_cmd qperf
tcp_listening()
{
	ss -ltn | grep -q ":$1 "
}

# every counter of the device, for irn_snapshot
COUNTER_NAMES=("/sys/class/infiniband/$IRN_DEV/ports/1/hw_counters/"*)
COUNTER_NAMES=("${COUNTER_NAMES[@]##*/}")

# qperf TEST PORT: one test against a server of its own.  A qperf 0.4.11 server
# that serves several tests in a row sometimes dies between two of them
# (a NULL object in its teardown, seen on Debian's kernel), which would
# fail the tests after it for a reason that is not irn's.  A test that
# reports nothing logs the counters that moved during it.
irn_qperf_one()
{
	local t=$1 port=$2 out server before secs=2

	# qperf's read test posts all of its 1024 reads before it polls, and
	# counts only completions polled before its timer: in loopback each
	# 64 KiB read takes about 2 ms, so with -t 2 the posting alone can
	# outlast the timer and the test reports 0 bytes/s (seen with
	# packets moving at the usual rate).
	[[ $t != rc_rdma_read_bw ]] || secs=5

	before=$(irn_snapshot "${COUNTER_NAMES[@]}")
	qperf -lp "$port" >>"$IRN_OUT/qperf-server.log" 2>&1 &
	server=$!
	irn_wait_for 10 "qperf listening on $port" tcp_listening "$port"
	# -cm1: RoCE needs a GRH, which qperf only builds through rdma_cm
	out=$(timeout 60 qperf -lp "$port" -cm1 -t "$secs" -v "$IRN_SELF_IP" \
		"$t" 2>&1) || true
	kill "$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
	printf '%s\n' "$out" | tee -a "$IRN_OUT/qperf.txt"
	awk -v t="$t:" '$1 == t { on = 1; next }
		on && /:$/ { exit }
		on && ($1 == "bw" || $1 == "latency") && $3 + 0 > 0 { ok = 1 }
		END { exit !ok }' <<<"$out" && return 0
	failed+=("qperf $t reported no bandwidth or latency")
	irn_log "$t: counters that moved: $(awk 'NR == FNR { was[$1] = $2; next }
		$2 != was[$1] { printf "%s +%d ", $1, $2 - was[$1] }' \
		<(printf '%s\n' "$before") <(irn_snapshot "${COUNTER_NAMES[@]}"))"
}

port=19765
for t in rc_bw rc_rdma_write_bw rc_rdma_read_bw rc_rdma_read_lat rc_lat; do
	irn_qperf_one "$t" "$port"
	port=$((port + 1))
done

((${#failed[@]} == 0)) || {
	irn_dmesg_check "qp checks"
	irn_fail "$(printf '%s\n' "${failed[@]}")"
}
irn_dmesg_check "qp checks"

# DEBUG_OBJECTS prints its first five reports per boot, then only counts.
odebug1=$(odebug_warnings || true)
if [[ -n $odebug0 && -n $odebug1 ]] && ((odebug1 > odebug0)); then
	irn_fail "qp checks: DEBUG_OBJECTS counted $((odebug1 - odebug0)) new warning(s) ($odebug_stats)"
fi
irn_log "PASS"
