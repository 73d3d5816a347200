#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=900 debug
#
# Faults while data moves (make check's CI tier: from kill on, on the
# debug kernel).  Each phase runs an RDMA WRITE transfer of a
# fixed size (ib_write_bw -n 1500, 64 KiB messages: 3 to 10 s on the
# Debian kernel; -n 200 on the debug kernel, 15 to 65 s), or for rmmod and
# linkdel of a fixed time, from guest a (client) to guest b (server) and,
# two seconds in, does something unfriendly on guest a:
#
#   carrier   eth0 down for 3 s, then up again
#   mtu       eth0's MTU cut to 576 (below the QP's packets) for 3 s
#   kill      the client is killed with SIGKILL
#   rmmod     rmmod of the module while the device is in use: it unloads
#             (tried again while the transfer's packets, which hold the
#             module, are in flight) without waiting for the client, whose
#             context the RDMA core revokes; the client ends, and the
#             device is added again
#   linkdel   "rdma link delete" of the device in use: it returns without
#             waiting for the application (the RDMA core revokes its
#             context), and the client ends, with a verbs error or at its
#             time; the device is added again
#   unreg     (loopback on a veth pair inside guest a; perftest's own TCP
#             exchange over 127.0.0.1) the veth is deleted under a device
#             with live QPs: "ip link del" returns without waiting for the
#             users, whose context is revoked, and both ends of the
#             transfer end
#   failslab  (kernels with failslab and its debugfs knobs; loopback on
#             guest a's device) tools/irn_failalloc fails, one at a time,
#             every slab allocation a verb makes in the calling process
#             (uverbs, RDMA core, irn): PD, MR, CQ and its resize, SRQ,
#             QP, connecting QPs, an RDMA WRITE, READ and SEND and their
#             doorbells, binding a memory window, AH, a UD send, moving
#             a QP to ERR, destroying a QP.  Every failure must come back
#             as an error or an error completion, leave the device usable
#             and leak nothing.  Then, for 30 s (10 in make check's CI
#             tier), one skb allocation in ten fails in any context
#             (failslab's cache filter on skbuff_head_cache, marked at
#             boot by the harness) while irn_failalloc -t moves data:
#             every request completes, every successful one delivered
#             its bytes
#
# Pass, per phase: the client ends within LIMIT seconds (never hangs); a
# client that failed reported a completion error or a verbs error rather
# than going silent; the fault's command did what is said above; within
# 10 s of the end no QP, CQ, MR or PD of the client's pid is left in "rdma
# resource show"; and a fresh 200-iteration transfer between the guests
# passes afterwards (20 in make check's CI tier, and there only after
# linkdel: the next phase's transfer shows it after kill and rmmod).  At
# the end, no kernel warning in dmesg (the harness adds kmemleak and, on
# the debug kernel, KASAN/lockdep).
#
# IRN_FAULTS_QP_TIMEOUT sets the QPs' local ACK timeout (default 18).
# IRN_FAULTS_ITERS sets the transfer's length (default 1500, 200 on the
# debug kernel).
# IRN_FAULTS_ONLY=unreg or failslab runs only that phase; =phases only the
# two-guest phases (carrier to linkdel).
#
# Output: $IRN_OUT/faults.txt (one line per phase: outcome, seconds,
# client exit status), and each run's perftest output.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ib_write_bw ss timeout pkill

B_IP=10.77.0.2
# The transfer: 1500 RDMA WRITEs of 64 KiB, 3 to 10 s on the Debian kernel.
# The debug kernel (IRN_TIMEOUT_SCALE > 1) receives 200 to 800 packets a
# second under QEMU TCG, by how many guests share the host's CPUs: it gets
# 200 (12800 packets), which still runs well past each fault, and its
# limit grows with the scale.  make check's CI tier checks recovery with
# 20 WRITEs instead of 200 and runs rmmod and linkdel for half as long.
SCALE=${IRN_TIMEOUT_SCALE:-1}
ITERS=${IRN_FAULTS_ITERS:-1500}
[[ $SCALE -le 1 || -n ${IRN_FAULTS_ITERS:-} ]] || ITERS=200
RECOVERY_ITERS=$(irn_by_tier 200 20)
LIMIT=$((150 * SCALE))	# the most it may take, fault included
# rmmod, linkdel and unreg revoke the client's context: their transfers
# run for a time rather than a length, so that a client that polls a CQ
# nothing completes on any more still ends (perftest's alarm).
TIMED=(-D $(($(irn_by_tier 10 5) * SCALE)))
# The QPs' local ACK timeout: 18 is T = 1.07 s, so a QP fails with
# RETRY_EXC after 8.6 s without progress.  perftest's default (14, 67 ms
# and 0.5 s) is shorter than the debug kernel's stalls when two guest
# pairs share two host CPUs: the recovery checks failed on it.  A hung
# QP still fails the phase, as a completion error.
QP_TIMEOUT=${IRN_FAULTS_QP_TIMEOUT:-18}
DIAG_AT=$((LIMIT / 2))	# a phase still running then is recorded
BASE_PORT=19100
PHASE_N=0
SUMMARY=$IRN_OUT/faults.txt
: >"$SUMMARY"

irn_dev_up
irn_barrier devs-up

# write_bw PORT: WRITE_BW becomes the phases' ib_write_bw on $IRN_DEV
# (whose GID index changes when linkdel recreates it) on PORT.
write_bw()
{
	WRITE_BW=(ib_write_bw -d "$IRN_DEV" -x "$IRN_GIDX" -p "$1" -F
		  -u "$QP_TIMEOUT")
}

no_resources()
{
	[[ $(irn_pid_resources "$1") -eq 0 ]]
}

# The transfer ends as it must: in time, and not silently if it failed.
check_client()
{
	local phase=$1 rc=$2 secs=$3 out=$4

	if [[ $rc -eq 124 || $rc -eq 137 ]] && [[ $phase != kill ]]; then
		show_stuck "$phase" client "$out"
		irn_fail "$phase: the client did not end within $LIMIT s (exit $rc)"
	fi
	if [[ $rc -ne 0 && $phase != kill ]] &&
		! grep -Eqi 'error|failed status|couldn.t|unable' "$out"; then
		irn_fail "$phase: the client failed (exit $rc) without reporting an error: $(tail -5 "$out")"
	fi
	printf '%-9s client exit %3d after %3d s  %s\n' "$phase" "$rc" "$secs" \
		"$(grep -Eim1 'completion with error|failed status' "$out" || echo "-")" >>"$SUMMARY"
	irn_log "$phase: client exit $rc after $secs s"
}

# A short transfer between the guests works after the fault.  The CI
# tier leaves that to the next phase after kill and rmmod: the transfers
# of rmmod and linkdel must succeed.
check_recovered()
{
	local phase=$1

	if [[ ${IRN_TIER:-full} == ci && ( $phase == kill || $phase == rmmod ) ]]; then
		irn_log "$phase: the next phase's transfer checks the recovery"
		return 0
	fi
	irn_perftest "after $phase" 120 ib_write_bw -u "$QP_TIMEOUT" -n "$RECOVERY_ITERS"
}

# fault_phase NAME FAULT [LENGTH...]: one transfer a -> b (of ITERS
# messages, or as LENGTH says), FAULT (a function) run on guest a two
# seconds in, with the client's pid as argument.
fault_phase()
{
	local phase=$1 fault=$2 port=$((BASE_PORT + PHASE_N)) cpid
	local rc=0 start out=$IRN_OUT/faults-$1-client.log
	local len=(-n "$ITERS") cmd

	[[ $# -le 2 ]] || len=("${@:3}")
	write_bw "$port"
	cmd=("${WRITE_BW[@]}" "${len[@]}")

	irn_barrier "$phase-start"
	if [[ $IRN_ROLE == b ]]; then
		fault_phase_server "$phase" "${len[@]}"
		return 0
	fi
	PHASE_N=$((PHASE_N + 1))
	irn_get "$phase-ready" 60 >/dev/null
	start=$SECONDS
	timeout -k 5 $LIMIT "${cmd[@]}" "$B_IP" >"$out" 2>&1 &
	cpid=$!
	sleep 2
	PHASE_PID=$(client_pid "$phase" "$cpid")
	diag_start "$phase" "$PHASE_PID"
	"$fault" "$PHASE_PID"
	wait "$cpid" || rc=$?
	diag_stop
	check_client "$phase" "$rc" $((SECONDS - start)) "$out"
	irn_barrier "$phase-end" $((LIMIT + 60))
	check_recovered "$phase"
}

# client_pid PHASE PID: the perftest process under timeout(1) (PID), which
# must own RDMA resources by now: else the release checks prove nothing.
client_pid()
{
	local pid

	pid=$(pgrep -P "$2" -x ib_write_bw) ||
		irn_fail "$1: the client is not running 2 s in: $(cat "$IRN_OUT/faults-$1-client.log")"
	[[ $(irn_pid_resources "$pid") -gt 0 ]] ||
		irn_fail "$1: rdma resource show lists nothing of the client (pid $pid)"
	echo "$pid"
}

fault_carrier()
{
	ip link set "$IRN_NETDEV" down
	sleep 3
	ip link set "$IRN_NETDEV" up
}

fault_mtu()
{
	local mtu

	mtu=$(cat "/sys/class/net/$IRN_NETDEV/mtu")
	ip link set "$IRN_NETDEV" mtu 576
	sleep 3
	ip link set "$IRN_NETDEV" mtu "$mtu"
}

fault_kill()
{
	kill -KILL "$1"
}

fault_rmmod()
{
	local i out=

	for ((i = 1; i <= 100 * SCALE; i++)); do
		out=$(rmmod "$IRN_MODULE" 2>&1) && break
		sleep 0.1
	done
	! irn_module_loaded "$IRN_MODULE" ||
		irn_fail "rmmod: $IRN_MODULE still loaded after $((i - 1)) tries in $((10 * SCALE)) s while its device was in use: $out"
	if kill -0 "$1" 2>/dev/null; then
		irn_log "rmmod: unloaded under the running client (try $i)"
	else
		irn_log "rmmod: unloaded at try $i, once the client had ended (its packets in flight hold the module)"
	fi
	modprobe "$IRN_MODULE"
	IRN_CASE_DEVS=()
	irn_dev_up
}

fault_linkdel()
{
	local pid=$1 t0=$SECONDS out running=no

	out=$(timeout -k 5 $((30 * SCALE)) rdma link delete "$IRN_DEV" 2>&1) ||
		irn_fail "linkdel: rdma link delete $IRN_DEV failed or did not return (exit $?): $out"
	! kill -0 "$pid" 2>/dev/null || running=yes
	irn_log "linkdel: rdma link delete returned in $((SECONDS - t0)) s (client still running: $running)"
}

# After the phase's client ended: its resources are released.
check_released()
{
	local phase=$1 pid=$2

	irn_wait_for 10 "$phase: resources of pid $pid released" no_resources "$pid"
}

# The faults of the network (carrier, mtu) are for the full tier: make
# check's CI tier runs faults on the debug kernel only, for what KASAN,
# lockdep and kmemleak see in the driver's own teardown paths.
run_phases()
{
	if [[ ${IRN_TIER:-full} == full ]]; then
		fault_phase carrier fault_carrier
		if [[ $IRN_ROLE == a ]]; then
			check_released carrier "$PHASE_PID"
			irn_wait_for 10 "$IRN_DEV port 1 ACTIVE again" irn_port_state_is "$IRN_DEV" 4
		fi

		fault_phase mtu fault_mtu
		[[ $IRN_ROLE != a ]] || check_released mtu "$PHASE_PID"
	fi

	# Long enough to be killed however slow the kernel is.
	fault_phase kill fault_kill -n 1000000
	[[ $IRN_ROLE != a ]] || check_released kill "$PHASE_PID"

	# Fixed in time, not length: the fault must fall inside the transfer
	# however fast it runs.
	fault_phase rmmod fault_rmmod "${TIMED[@]}"

	# The device is deleted under the client: recreated for what follows.
	irn_barrier linkdel-start
	if [[ $IRN_ROLE == a ]]; then
		fault_linkdel_phase
	else
		fault_phase_server linkdel "${TIMED[@]}"
	fi
}

# Not through fault_phase: the device goes away and comes back.
fault_linkdel_phase()
{
	local rc=0 start cpid port=$((BASE_PORT + PHASE_N))
	local out=$IRN_OUT/faults-linkdel-client.log

	PHASE_N=$((PHASE_N + 1))
	irn_get linkdel-ready 60 >/dev/null
	start=$SECONDS
	write_bw "$port"
	timeout -k 5 $LIMIT "${WRITE_BW[@]}" "${TIMED[@]}" "$B_IP" >"$out" 2>&1 &
	cpid=$!
	sleep 2
	PHASE_PID=$(client_pid linkdel "$cpid")
	fault_linkdel "$PHASE_PID"
	wait "$cpid" || rc=$?
	check_client linkdel "$rc" $((SECONDS - start)) "$out"
	irn_wait_for 10 "$IRN_DEV to disappear" test ! -e "/sys/class/infiniband/$IRN_DEV"
	check_released linkdel "$PHASE_PID"
	IRN_CASE_DEVS=()
	irn_dev_up
	irn_barrier linkdel-end $((LIMIT + 60))
	check_recovered linkdel
}

# fault_phase_server NAME [LENGTH...]: guest b's side of a phase: the
# server, then the check that a new transfer works.
fault_phase_server()
{
	local phase=$1 port=$((BASE_PORT + PHASE_N)) spid src=0
	local len=(-n "$ITERS")

	[[ $# -le 1 ]] || len=("${@:2}")
	PHASE_N=$((PHASE_N + 1))
	write_bw "$port"
	timeout -k 5 $((LIMIT + 30)) "${WRITE_BW[@]}" "${len[@]}" \
		>"$IRN_OUT/faults-$phase-server.log" 2>&1 &
	spid=$!
	irn_wait_for 30 "ib_write_bw server on port $port" irn_tcp_listening "$port"
	irn_put "$phase-ready" 1
	diag_start "$phase" "$spid"
	wait "$spid" || src=$?
	diag_stop
	irn_log "$phase: server exit $src"
	# The kill phase's server fails by design; any other failure is
	# worth its output when the client side is what fails the test.
	[[ $src -eq 0 || $phase == kill ]] ||
		show_stuck "$phase" server "$IRN_OUT/faults-$phase-server.log"
	irn_barrier "$phase-end" $((LIMIT + 60))
	check_recovered "$phase"
}

# show_stuck PHASE SIDE LOG: the tail of a tool's output and, if the
# phase's stuck_diag fired, what it recorded, into this test's log.
show_stuck()
{
	local f=$IRN_OUT/faults-$1-stuck.txt

	irn_log "$1: last lines of the $2's output:"
	tail -15 "$3" | sed 's/^/    | /'
	[[ -s $f ]] || return 0
	irn_log "$1: the $2 was still running $DIAG_AT s in:"
	sed 's/^/    | /' "$f"
}

# diag_start PHASE PID: record the state of a phase's tool if it runs
# longer than DIAG_AT seconds (a transfer takes a fraction of that);
# diag_stop ends the watch once the tool is gone, after letting a record
# that started finish.
diag_start()
{
	DIAG_T0=$SECONDS
	stuck_diag "$DIAG_AT" "$2" "$IRN_DEV" "$IRN_OUT/faults-$1-stuck.txt" &
	DIAG_PID=$!
}

diag_stop()
{
	if ((SECONDS - DIAG_T0 < DIAG_AT)); then
		kill "$DIAG_PID" 2>/dev/null || true
	fi
	wait "$DIAG_PID" 2>/dev/null || true
}

# stuck_diag SECS PID DEV FILE: if PID still runs SECS from now, record
# where it is blocked and what its device's QPs look like.
stuck_diag()
{
	sleep "$1"
	kill -0 "$2" 2>/dev/null || return 0
	{
		echo "### pid $2 still running $1 s after the fault"
		irn_stuck_report "$3" "$2"
	} >"$4" 2>&1
}

# Guest a alone: loopback on a veth pair whose end is deleted under it.
unreg_phase()
{
	local port=$((BASE_PORT + 90)) spid spid_rdma cpid tpid dpid diag
	local rc=0 drc=0 gidx start
	local dev=${IRN_DEV}v out=$IRN_OUT/faults-unreg-client.log

	ip link add irnv0 type veth peer name irnv1 ||
		irn_fail "unreg: cannot create a veth pair"
	ip addr add 10.79.0.1/24 dev irnv0
	ip link set irnv0 up
	ip link set irnv1 up
	irn_dev_up "$dev" irnv0 10.79.0.1
	gidx=$IRN_GIDX
	timeout -k 5 $((LIMIT + 30)) ib_write_bw -d "$dev" -x "$gidx" \
		-p "$port" -F "${TIMED[@]}" >"$IRN_OUT/faults-unreg-server.log" 2>&1 &
	spid=$!
	irn_wait_for 30 "loopback server on port $port" irn_tcp_listening "$port"
	# now: on the debug kernel the transfer can end before client_pid's
	# resource listing does
	spid_rdma=$(pgrep -P "$spid" -x ib_write_bw) ||
		irn_fail "unreg: the loopback server is not running"
	start=$SECONDS
	timeout -k 5 $LIMIT ib_write_bw -d "$dev" -x "$gidx" \
		-p "$port" -F "${TIMED[@]}" 127.0.0.1 >"$out" 2>&1 &
	tpid=$!
	sleep 2
	cpid=$(client_pid unreg "$tpid")
	timeout -k 5 $((LIMIT + 30)) ip link del irnv0 \
		>"$IRN_OUT/faults-unreg-del.log" 2>&1 &
	dpid=$!
	stuck_diag 30 "$cpid" "$dev" "$IRN_OUT/faults-unreg-stuck.txt" &
	diag=$!
	wait "$tpid" || rc=$?
	wait "$dpid" || drc=$?
	wait "$spid" || true
	kill "$diag" 2>/dev/null || true
	wait "$diag" 2>/dev/null || true
	check_client unreg "$rc" $((SECONDS - start)) "$out"
	[[ $drc -eq 0 ]] ||
		irn_fail "unreg: ip link del irnv0 failed (exit $drc): $(cat "$IRN_OUT/faults-unreg-del.log")"
	irn_log "unreg: ip link del returned $((SECONDS - start)) s after the transfer began"
	irn_wait_for 10 "$dev to disappear" test ! -e "/sys/class/infiniband/$dev"
	check_released unreg "$cpid"
	check_released unreg "$spid_rdma"
	IRN_CASE_DEVS=("$IRN_DEV")
	IRN_GIDX=$(irn_gid_index "$IRN_DEV")
}

# Guest a alone: every slab allocation on the path of every verb fails
# once (tools/irn_failalloc, failslab through fail-nth).
failslab_phase()
{
	local fs=/sys/kernel/debug/failslab rc=0 log=$IRN_OUT/faults-failslab.log
	local tool last

	if [[ ! -e $fs/ignore-gfp-wait ]]; then
		irn_skip_part "failslab: no $fs/ignore-gfp-wait in this kernel (needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS)"
		echo "failslab  skipped: no $fs in this kernel" >>"$SUMMARY"
		return 0
	fi
	tool=$(irn_tool irn_failalloc)
	# only fail-nth injects; GFP_KERNEL allocations too; no stack dumps
	echo 0 >"$fs/probability"
	echo N >"$fs/ignore-gfp-wait"
	echo 0 >"$fs/verbose"
	timeout -k 5 1200 "$tool" -d "$IRN_DEV" -g "$IRN_GIDX" >"$log" 2>&1 || rc=$?
	echo Y >"$fs/ignore-gfp-wait"
	cat "$log"
	[[ $rc -ne 124 && $rc -ne 137 ]] || irn_fail "failslab: irn_failalloc hung"
	[[ $rc -eq 0 ]] || irn_fail "failslab: irn_failalloc exited with $rc: $(grep -m 5 '^BAD' "$log" | tr '\n' ';')"
	last=$(tail -n 1 "$log")
	[[ $last =~ ^[0-9]+\ trials,\ [1-9][0-9]*\ allocations\ failed,\ 0\ misbehaviours$ ]] ||
		irn_fail "failslab: no allocation failed: $last"
	echo "failslab  $last" >>"$SUMMARY"
	irn_log "failslab: $last"
	irn_wait_for 10 "failslab: no QP left" test -z "$(rdma resource show qp | grep -v 'qpn 1 ' || true)"
	skb_failures_phase "$tool"
}

# Guest a alone: one skb allocation in ten fails, in every context (the
# requester's, the responder's, the network stack's), while
# irn_failalloc -t moves and checks data.
skb_failures_phase()
{
	local tool=$1 fs=/sys/kernel/debug/failslab rc=0 times=1000000 left last
	local cache=/sys/kernel/slab/skbuff_head_cache/failslab
	local log=$IRN_OUT/faults-skbfail.log

	if [[ $(cat "$cache" 2>/dev/null) != 1 ]]; then
		irn_skip_part "skbfail: skbuff_head_cache is not marked for failslab (boot with slub_debug=A,skbuff_head_cache)"
		echo "skbfail   skipped: skbuff_head_cache not marked for failslab" >>"$SUMMARY"
		return 0
	fi
	echo Y >"$fs/cache-filter"
	echo N >"$fs/ignore-gfp-wait"
	echo N >"$fs/task-filter"
	echo 1 >"$fs/interval"
	echo "$times" >"$fs/times"
	echo 10 >"$fs/probability"
	timeout -k 5 300 "$tool" -d "$IRN_DEV" -g "$IRN_GIDX" -t "${IRN_FAULTS_SKBFAIL_SECS:-$(irn_by_tier 30 10)}" >"$log" 2>&1 || rc=$?
	echo 0 >"$fs/probability"
	left=$(cat "$fs/times")
	echo N >"$fs/cache-filter"
	echo Y >"$fs/ignore-gfp-wait"
	cat "$log"
	[[ $rc -ne 124 && $rc -ne 137 ]] || irn_fail "skbfail: irn_failalloc hung"
	[[ $rc -eq 0 ]] || irn_fail "skbfail: irn_failalloc exited with $rc: $(grep -m 5 '^BAD' "$log" | tr '\n' ';')"
	[[ $((times - left)) -gt 0 ]] || irn_fail "skbfail: no skb allocation failed"
	last="$((times - left)) skb allocations failed; $(tail -n 2 "$log" | head -n 1)"
	echo "skbfail   $last" >>"$SUMMARY"
	irn_log "skbfail: $last"
	irn_wait_for 10 "skbfail: no QP left" test -z "$(rdma resource show qp | grep -v 'qpn 1 ' || true)"
}

# IRN_FAULTS_ONLY=unreg|failslab runs just that phase (guest a alone),
# =phases just the two-guest ones.
case ${IRN_FAULTS_ONLY:-} in
'' | phases) run_phases ;;
unreg | failslab) ;;
*) irn_fail "IRN_FAULTS_ONLY must be phases, unreg or failslab" ;;
esac
if [[ $IRN_ROLE == a && ${IRN_FAULTS_ONLY:-} != phases ]]; then
	[[ ${IRN_FAULTS_ONLY:-unreg} != unreg ]] || unreg_phase
	[[ ${IRN_FAULTS_ONLY:-failslab} != failslab ]] || failslab_phase
fi
irn_barrier all-done 600
cat "$SUMMARY"
irn_dmesg_check faults
irn_cases_finish
