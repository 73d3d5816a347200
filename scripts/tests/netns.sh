#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=600 ci=300 debug 6.12
#
# Network namespaces, as containers use them: two namespaces in one
# guest, n1 and n2, joined by a veth pair (v1 10.99.0.1 in n1, v2
# 10.99.0.2 in n2), each end with an irn device created from inside its
# namespace (ip netns exec nX rdma link add dX type irn netdev vX).
#
#   port            each namespace has UDP 4791 bound exactly while it
#                   has a device (before the first and after the last: not)
#   traffic         server in n2, client in n1: ibv_rc_pingpong -g,
#                   ib_write_bw, ib_read_bw, ib_send_bw, rping -v, ucmatose;
#                   v1's counters must show the packets crossed the pair
#   loss            ib_write_bw with netem loss 1% on v1
#   deletion        n1's processes killed under a running ib_write_bw and
#                   n1 deleted: both devices go (the veth pair dies with
#                   n1), the module unloads, the kernel log stays clean
#
# Then the same namespaces again, in the RDMA core's exclusive mode (rdma
# system set netns exclusive, which it refuses while any namespace but the
# initial one exists):
#
#   visibility      dX added from inside nX starts in the initial namespace;
#                   rdma dev set dX netns nX moves it to its netdev's; each
#                   namespace sees its own device only (rdma dev, sysfs,
#                   ibv_devices)
#   traffic         ibv_rc_pingpong -g and rping between n1 and n2
#   move            d1 moved back to the initial namespace (from n1) under a
#                   running ib_write_bw: returns without waiting for it,
#                   and leaves the client nothing (rdma resource show)
#   delete          rdma link delete d2 while irn_ctxhold.py holds d2 open
#                   with a PD, CQ, MR and QP: returns while the program
#                   still runs, and closes n2's port; the program's verbs
#                   then fail with EIO and its mapped CQ ring reads empty
#   ns deletion     n1 deleted while irn_ctxhold.py (opened d1 in n1, then
#                   left n1 for the initial namespace) holds d1: the core
#                   moves d1 out of n1, the veth pair goes, d1 and d2 are
#                   deleted, none of it waiting for the program
#
# Every step is bounded by a timeout.  Shared mode is restored at the end,
# and by the exit trap if the test fails.
#
# Stock rdma_rxe of Debian's 6.1 opens its port in the initial namespace
# only: with IRN_DRIVER=rxe the test skips.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_cmd ip tc ibv_rc_pingpong ib_write_bw ib_read_bw ib_send_bw \
	rping ucmatose timeout ibv_devices
[[ $IRN_DRIVER == irn ]] ||
	irn_skip "stock rxe binds its port in the initial namespace only"

A=10.99.0.1 B=10.99.0.2
PORT=19900
SCALE=${IRN_TIMEOUT_SCALE:-1}
# perftest's flags (see irn_perftest in lib.sh): -F, and on a slower
# kernel (the debug build) a local ACK timeout of 18 instead of 14
PT=(-F)
((SCALE <= 1)) || PT+=(-u 18)

in1() { ip netns exec n1 "$@"; }
in2() { ip netns exec n2 "$@"; }

# ns_do NS CMD...: CMD in namespace NS, or in this shell's (the initial
# one) for NS "init".  Under ip netns exec, /sys is NS's.
ns_do()
{
	local ns=$1

	shift
	if [[ $ns == init ]]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

# rdma_mode: the RDMA core's namespace mode, shared or exclusive
rdma_mode()
{
	rdma system show | sed -n 's/.*netns \([a-z]*\).*/\1/p'
}

# set_mode MODE: refused (EBUSY) while any namespace but the initial one
# exists, one still being cleaned up included
set_mode()
{
	rdma system set netns "$1" >/dev/null 2>&1 && [[ $(rdma_mode) == "$1" ]]
}

# port_bound NS: UDP 4791 (IPv4) is bound in namespace NS (/proc/net is
# the reading process's namespace's)
port_bound()
{
	local port

	port=$(printf ':%04X' "$IRN_RDMA_PORT")
	# shellcheck disable=SC2016 # the $ are awk's
	ip netns exec "$1" awk -v p="$port" \
		'NR > 1 && substr($2, length($2) - 4) == p { f = 1 }
		 END { exit !f }' /proc/net/udp
}

# port_free NS: not port_bound NS; a device's port closes as its
# unregistration ends, a moment after the core hides the device
port_free()
{
	! port_bound "$1"
}

# v1_packets: packets v1 sent and received
v1_packets()
{
	local tx rx

	tx=$(in1 cat /sys/class/net/v1/statistics/tx_packets)
	rx=$(in1 cat /sys/class/net/v1/statistics/rx_packets)
	echo $((tx + rx))
}

# make_namespaces: n1 and n2 joined by the veth pair v1-v2, up
make_namespaces()
{
	local ns

	ip netns add n1
	irn_defer "ip netns del n1"
	ip netns add n2
	irn_defer "ip netns del n2"
	ip link add v1 netns n1 type veth peer name v2 netns n2
	in1 ip addr add "$A/24" dev v1
	in2 ip addr add "$B/24" dev v2
	for ns in n1 n2; do
		ip -n "$ns" link set lo up
	done
	in1 ip link set v1 up
	in2 ip link set v2 up
}

make_namespaces
modprobe "$IRN_MODULE"
# the exclusive phase below restores shared mode, even when it fails
[[ $(rdma_mode) == shared ]] ||
	irn_fail "the RDMA core is in netns mode '$(rdma_mode)' at test start: rdma system set netns shared"

# ---- port ------------------------------------------------------------------
! port_bound n1 || irn_fail "UDP $IRN_RDMA_PORT is bound in n1 before it has a device"
out=$(in1 rdma link add d1 type "$IRN_LINK_TYPE" netdev v1 2>&1) ||
	irn_fail "ip netns exec n1 rdma link add d1 netdev v1: $out"
out=$(in2 rdma link add d2 type "$IRN_LINK_TYPE" netdev v2 2>&1) ||
	irn_fail "ip netns exec n2 rdma link add d2 netdev v2: $out"
port_bound n1 || irn_fail "UDP $IRN_RDMA_PORT is not bound in n1, which has d1"
port_bound n2 || irn_fail "UDP $IRN_RDMA_PORT is not bound in n2, which has d2"
for d in d1 d2; do
	irn_wait_for 10 "$d port 1 ACTIVE" irn_port_state_is "$d" 4
done
irn_wait_for 10 "GID of $A on d1" irn_gid_index d1 "$A" >/dev/null
irn_wait_for 10 "GID of $B on d2" irn_gid_index d2 "$B" >/dev/null
G1=$(irn_gid_index d1 "$A")
G2=$(irn_gid_index d2 "$B")
irn_log "d1 (n1) GID index $G1, d2 (n2) GID index $G2"

# ---- traffic -----------------------------------------------------------------
# pair NAME SECS SERVER... -- CLIENT...: the server in n2, the client in
# n1; both must exit 0.  Output in $IRN_OUT/NAME.{server,client}.
pair()
{
	local name=$1 secs=$2 srv=() cli=() s rc=0 rs=0

	shift 2
	while [[ $1 != -- ]]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	PORT=$((PORT + 1))
	secs=$((secs * SCALE))
	in2 timeout "$secs" "${srv[@]//@PORT@/$PORT}" \
		>"$IRN_OUT/$name.server" 2>&1 &
	s=$!
	sleep 1
	in1 timeout "$secs" "${cli[@]//@PORT@/$PORT}" \
		>"$IRN_OUT/$name.client" 2>&1 || rc=$?
	wait "$s" || rs=$?
	if ((rc || rs)); then
		irn_log "--- $name client"; tail -n 20 "$IRN_OUT/$name.client" >&2
		irn_log "--- $name server"; tail -n 20 "$IRN_OUT/$name.server" >&2
		irn_fail "$name between n1 and n2: client exit $rc, server exit $rs"
	fi
	irn_log "$name between n1 and n2: ok"
}

pk0=$(v1_packets)
c0=$(irn_counter d1 sent_pkts)
pair ibv_rc_pingpong 60 ibv_rc_pingpong -d d2 -g "$G2" -n 50 -p @PORT@ -- \
	ibv_rc_pingpong -d d1 -g "$G1" -n 50 -p @PORT@ "$B"
for t in ib_write_bw ib_read_bw ib_send_bw; do
	pair "$t" 90 "$t" -d d2 -x "$G2" -n 200 "${PT[@]}" -p @PORT@ -- \
		"$t" -d d1 -x "$G1" -n 200 "${PT[@]}" -p @PORT@ "$B"
done
pair rping 60 rping -s -a "$B" -p @PORT@ -v -C 10 -- \
	rping -c -a "$B" -p @PORT@ -v -C 10
pair ucmatose 60 ucmatose -b "$B" -p @PORT@ -- ucmatose -s "$B" -p @PORT@
sent=$(($(irn_counter d1 sent_pkts) - c0))
crossed=$(($(v1_packets) - pk0))
irn_log "d1 sent $sent packets; v1 carried $crossed"
((sent > 1000)) || irn_fail "d1 sent only $sent packets for six programs"
((crossed >= sent)) ||
	irn_fail "v1 carried $crossed packets, fewer than the $sent d1 sent: they did not cross the veth pair"

# ---- loss --------------------------------------------------------------------
in1 tc qdisc add dev v1 root netem loss 1%
r0=$(irn_counter d1 retransmitted_pkts)
pair ib_write_bw-loss 120 ib_write_bw -d d2 -x "$G2" -n 500 "${PT[@]}" -p @PORT@ -- \
	ib_write_bw -d d1 -x "$G1" -n 500 "${PT[@]}" -p @PORT@ "$B"
r=$(($(irn_counter d1 retransmitted_pkts) - r0))
irn_log "at 1% loss on v1, d1 resent $r packets"
((r > 0)) || irn_fail "no resend at 1% loss on v1: did the packets cross it?"
in1 tc qdisc del dev v1 root

# ---- deletion under live QPs -------------------------------------------------
PORT=$((PORT + 1))
in2 ib_write_bw -d d2 -x "$G2" -D 30 "${PT[@]}" -p "$PORT" \
	>"$IRN_OUT/live.server" 2>&1 &
sleep 1
in1 ib_write_bw -d d1 -x "$G1" -D 30 "${PT[@]}" -p "$PORT" "$B" \
	>"$IRN_OUT/live.client" 2>&1 &
irn_wait_for $((20 * SCALE)) "traffic on d1" bash -c "(( \$(cat /sys/class/infiniband/d1/ports/1/hw_counters/sent_pkts) > $(irn_counter d1 sent_pkts) + 200 ))"
ip netns pids n1 | xargs -r kill -9
ip netns pids n2 | xargs -r kill -9
ip netns del n1
irn_log "n1 deleted under a running ib_write_bw"
irn_wait_for 20 "d1 and d2 to go with the veth pair" \
	bash -c '! test -e /sys/class/infiniband/d1 && ! test -e /sys/class/infiniband/d2'
irn_wait_for 10 "UDP $IRN_RDMA_PORT free in n2 after its device went" port_free n2
ip netns del n2
# rmmod also waits for the namespaces' cleanup (unregister_pernet_subsys)
irn_rmmod || irn_fail "cannot unload $IRN_MODULE after the namespaces went"
irn_dmesg_check "netns"

# ---- exclusive mode ------------------------------------------------------------
# Each check is bounded: a revocation that waited for its program would
# time out rather than hang the test.
T=$((30 * SCALE))
INIT_NS=irn-init	# a name for the initial namespace, for rdma dev set
PY=$(irn_python)
HOLD=$(irn_tool irn_ctxhold.py)
# the exit trap throws away what deferred commands print: excl_restore
# writes to the test's own stderr
exec {ERR_FD}>&2

# excl_restore: shared mode again, whatever state a failure left behind:
# the namespaces go first, then the mode is set, retried while their
# cleanup runs (the exit trap runs this last, after the other cleanups)
excl_restore()
{
	local ns i

	for ns in n1 n2; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9
		ip netns del "$ns" 2>/dev/null
	done
	ip netns del "$INIT_NS" 2>/dev/null
	for ((i = 0; i < 600; i++)); do
		set_mode shared && return 0
		sleep 0.1
	done
	echo "[$IRN_TEST $IRN_ROLE] cleanup: the RDMA core stays in netns mode '$(rdma_mode)': the next tests may fail" >&"$ERR_FD"
	return 1
}

# expect_sees NS DEV yes|no: whether NS's rdma dev, its sysfs and its
# ibv_devices list DEV
expect_sees()
{
	local ns=$1 dev=$2 want=$3 rd=no sys=no ibv=no

	ns_do "$ns" rdma dev show "$dev" >/dev/null 2>&1 && rd=yes
	ns_do "$ns" test -e "/sys/class/infiniband/$dev" && sys=yes
	ns_do "$ns" ibv_devices 2>/dev/null |
		awk -v d="$dev" 'NR > 2 && $1 == d { f = 1 } END { exit !f }' &&
		ibv=yes
	[[ $rd == "$want" && $sys == "$want" && $ibv == "$want" ]] ||
		irn_fail "namespace $ns sees $dev: rdma dev $rd, sysfs $sys, ibv_devices $ibv; expected $want"
}

# ns_active NS DEV: DEV's port 1 is ACTIVE, seen from NS
ns_active()
{
	[[ $(ns_do "$1" cat "/sys/class/infiniband/$2/ports/1/state" 2>/dev/null) == "4: ACTIVE" ]]
}

# ns_gid NS DEV IPV4: irn_gid_index, run in NS (whose sysfs has DEV)
ns_gid()
{
	ns_do "$1" bash -c "$(declare -f irn_gid_index); irn_gid_index \"\$@\"" \
		irn_gid_index "$2" "$3"
}

# ns_counter NS DEV NAME: a port counter of DEV, seen from NS
ns_counter()
{
	ns_do "$1" cat "/sys/class/infiniband/$2/ports/1/hw_counters/$3"
}

# counter_above NS DEV NAME MIN: the counter has passed MIN
counter_above()
{
	local v

	v=$(ns_counter "$1" "$2" "$3" 2>/dev/null) || return 1
	((v > $4))
}

# ns_pid NS COMM: the pid of the process named COMM in NS
ns_pid()
{
	local p

	for p in $(ip netns pids "$1"); do
		[[ $(cat "/proc/$p/comm" 2>/dev/null) == "$2" ]] || continue
		echo "$p"
		return 0
	done
	return 1
}

# excl_device NS DEV NETDEV IPV4: DEV added from inside NS on NETDEV, in
# the initial RDMA namespace as the core puts every new device, then moved
# to NS; waits until it is ACTIVE there with IPV4's GID
excl_device()
{
	local ns=$1 dev=$2 ndev=$3 ip=$4 out

	out=$(ns_do "$ns" rdma link add "$dev" type "$IRN_LINK_TYPE" netdev "$ndev" 2>&1) ||
		irn_fail "ip netns exec $ns rdma link add $dev netdev $ndev: $out"
	expect_sees init "$dev" yes
	expect_sees "$ns" "$dev" no
	out=$(timeout "$T" rdma dev set "$dev" netns "$ns" 2>&1) ||
		irn_fail "rdma dev set $dev netns $ns: $out"
	irn_wait_for "$T" "$dev port 1 ACTIVE in $ns" ns_active "$ns" "$dev"
	irn_wait_for "$T" "GID of $ip on $dev in $ns" ns_gid "$ns" "$dev" "$ip" >/dev/null
}

# pid_gone PID: PID has ended (a zombie, not yet waited for, has too)
pid_gone()
{
	local state

	state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) ||
		return 0
	[[ -z $state || $state == Z ]]
}

# hold_start NS DEV [ARGS...]: irn_ctxhold.py opens DEV in NS with ARGS;
# HOLD_JOB becomes its job, HOLD_PID its pid once it holds the device
hold_start()
{
	local ns=$1 dev=$2 tag

	shift 2
	tag=$IRN_OUT/hold-$ns-$dev
	HOLD_READY=$tag.ready HOLD_GO=$tag.go HOLD_LOG=$tag.log
	rm -f "$HOLD_READY" "$HOLD_GO"
	ns_do "$ns" "$PY" "$HOLD" --dev "$dev" --ready "$HOLD_READY" \
		--go "$HOLD_GO" --wait $((4 * T)) "$@" >"$HOLD_LOG" 2>&1 &
	HOLD_JOB=$!
	irn_wait_for "$T" "irn_ctxhold.py holding $dev" hold_ready
	HOLD_PID=$(<"$HOLD_READY")
	irn_defer "kill -9 $HOLD_PID"
	irn_log "irn_ctxhold.py (pid $HOLD_PID) holds $dev: $(tail -n 1 "$HOLD_LOG")"
}

hold_ready()
{
	[[ -s $HOLD_READY ]] && return 0
	! pid_gone "$HOLD_JOB" ||
		irn_fail "irn_ctxhold.py ended before holding the device: $(cat "$HOLD_LOG")"
	return 1
}

# hold_alive WHAT: the holder still runs after WHAT, which so did not wait
# for it to close the device
hold_alive()
{
	! pid_gone "$HOLD_PID" ||
		irn_fail "$1: irn_ctxhold.py (pid $HOLD_PID) ended meanwhile: $(cat "$HOLD_LOG")"
}

# hold_finish: the holder finds its context revoked and ends, in time
hold_finish()
{
	local rc=0

	touch "$HOLD_GO"
	irn_wait_for "$T" "irn_ctxhold.py (pid $HOLD_PID) to end" \
		pid_gone "$HOLD_PID"
	wait "$HOLD_JOB" || rc=$?
	((rc == 0)) ||
		irn_fail "irn_ctxhold.py exit $rc: $(cat "$HOLD_LOG")"
	irn_log "$(tail -n 1 "$HOLD_LOG")"
}

irn_dmesg_mark
irn_wait_for "$T" "rdma system set netns exclusive (refused while a namespace other than the initial one exists)" \
	set_mode exclusive
irn_defer excl_restore
irn_log "RDMA core in exclusive netns mode"
ip netns del "$INIT_NS" 2>/dev/null || true
ip netns attach "$INIT_NS" 1
make_namespaces
modprobe "$IRN_MODULE"

# ---- exclusive: visibility ---------------------------------------------------
excl_device n1 d1 v1 "$A"
excl_device n2 d2 v2 "$B"
expect_sees n1 d1 yes
expect_sees n1 d2 no
expect_sees n2 d2 yes
expect_sees n2 d1 no
expect_sees init d1 no
expect_sees init d2 no
G1=$(ns_gid n1 d1 "$A")
G2=$(ns_gid n2 d2 "$B")
irn_log "exclusive: d1 only in n1 (GID index $G1), d2 only in n2 ($G2)"

# ---- exclusive: traffic --------------------------------------------------------
pair excl-ibv_rc_pingpong 60 ibv_rc_pingpong -d d2 -g "$G2" -n 50 -p @PORT@ -- \
	ibv_rc_pingpong -d d1 -g "$G1" -n 50 -p @PORT@ "$B"
pair excl-rping 60 rping -s -a "$B" -p @PORT@ -v -C 10 -- \
	rping -c -a "$B" -p @PORT@ -v -C 10

# ---- exclusive: move under a running transfer --------------------------------
PORT=$((PORT + 1))
D=$((6 * SCALE))
in2 timeout $((D + T)) ib_write_bw -d d2 -x "$G2" -D "$D" "${PT[@]}" \
	-p "$PORT" >"$IRN_OUT/excl-move.server" 2>&1 &
spid=$!
sleep 1
in1 timeout $((D + T)) ib_write_bw -d d1 -x "$G1" -D "$D" "${PT[@]}" \
	-p "$PORT" "$B" >"$IRN_OUT/excl-move.client" 2>&1 &
cpid=$!
c0=$(ns_counter n1 d1 sent_pkts)
irn_wait_for "$T" "traffic on d1" counter_above n1 d1 sent_pkts $((c0 + 200))
client=$(ns_pid n1 ib_write_bw) || irn_fail "move: the ib_write_bw client is not running"
t0=$SECONDS
out=$(timeout "$T" ip netns exec n1 rdma dev set d1 netns "$INIT_NS" 2>&1) ||
	irn_fail "move: ip netns exec n1 rdma dev set d1 netns $INIT_NS: $out"
if kill -0 "$client" 2>/dev/null; then running=yes; else running=no; fi
irn_log "move: d1 back in the initial namespace after $((SECONDS - t0)) s (client still running: $running)"
expect_sees init d1 yes
expect_sees n1 d1 no
n=$(irn_pid_resources "$client")
((n == 0)) || irn_fail "move: the client (pid $client) still has $n objects on d1"
rc=0
wait "$cpid" || rc=$?
rs=0
wait "$spid" || rs=$?
irn_log "move: ib_write_bw client exit $rc, server exit $rs"
((rc != 124 && rc != 137)) || irn_fail "move: the client did not end within $((D + T)) s"
((rs != 124 && rs != 137)) || irn_fail "move: the server did not end within $((D + T)) s"
out=$(timeout "$T" rdma dev set d1 netns n1 2>&1) ||
	irn_fail "rdma dev set d1 netns n1 again: $out"
irn_wait_for "$T" "d1 port 1 ACTIVE in n1 again" ns_active n1 d1
expect_sees n1 d1 yes

# ---- exclusive: delete a device in use -----------------------------------------
hold_start n2 d2
t0=$SECONDS
out=$(timeout "$T" ip netns exec n2 rdma link delete d2 2>&1) ||
	irn_fail "delete: ip netns exec n2 rdma link delete d2 with a program holding it: $out"
hold_alive "rdma link delete d2"
irn_log "delete: d2 deleted in $((SECONDS - t0)) s under irn_ctxhold.py"
expect_sees n2 d2 no
! port_bound n2 || irn_fail "delete: UDP $IRN_RDMA_PORT still bound in n2 after its only device went"
hold_finish
excl_device n2 d2 v2 "$B"
port_bound n2 || irn_fail "UDP $IRN_RDMA_PORT is not bound in n2 with d2 added again"

# ---- exclusive: delete a namespace under a held device ------------------------
hold_start n1 d1 --netns /proc/1/ns/net
left=$(ip netns pids n1)
[[ -z $left ]] || irn_fail "ns deletion: processes left in n1: $left"
t0=$SECONDS
ip netns del n1
irn_wait_for "$T" "v2 to go with n1 (the veth pair)" \
	bash -c '! ip netns exec n2 ip link show v2 >/dev/null 2>&1'
irn_wait_for "$T" "d1 to be deleted" bash -c '! rdma dev show d1 >/dev/null 2>&1'
irn_wait_for "$T" "d2 to be deleted" bash -c '! ip netns exec n2 rdma dev show d2 >/dev/null 2>&1'
hold_alive "deleting n1"
irn_log "ns deletion: n1 deleted, d1 and d2 gone after $((SECONDS - t0)) s under irn_ctxhold.py"
irn_wait_for "$T" "ns deletion: UDP $IRN_RDMA_PORT free in n2 after d2 went" port_free n2
hold_finish

# ---- exclusive: back to shared -------------------------------------------------
ip netns del n2
ip netns del "$INIT_NS"
irn_wait_for "$T" "rdma system set netns shared (once the namespaces are gone)" \
	set_mode shared
irn_log "RDMA core back in shared netns mode"
irn_rmmod || irn_fail "cannot unload $IRN_MODULE after exclusive mode"
irn_dmesg_check "netns exclusive"
if dmesg | tail -n +"$((IRN_DMESG_MARK + 1))" | grep 'rdma_irn: .*waits for'; then
	irn_fail "a namespace's cleanup or the unload waited for irn (above)"
fi
irn_log "PASS"
