#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multipath benchmark's job, run in both guests of "scripts/vm.sh
# --guests 2 --cables 2" by scripts/mpbench.sh.  Both guests bond their
# two cables into bond0 (scripts/guest/mpnet.sh up) and shape what each
# cable sends, at both ends, with tbf at IRN_MPB_RATE Mbit/s (a queue of
# 256 KiB, more than the 128 packets irn's default cap keeps in flight:
# the shaper paces, it does not drop).  Then, for each case of
# IRN_MPB_CASES ("NAME|DRIVER|MODE|PATHS|CABLE2|KIND", separated by ';'),
# in order:
#
#   DRIVER  rxe: stock rdma_rxe (rxe0 on bond0); irn: rdma_irn (irn0 on
#           bond0) with debugfs mode MODE, paths PATHS and cc IRN_MPB_CC,
#           on both guests
#   CABLE2  shaped: tbf as cable 1; lossy: netem loss 5% with that tbf
#           under it; delayed: netem delay 10ms with that tbf under it;
#           cut: set down at both ends for the whole case;
#           cut-mid: shaped, and set down at both ends once a quarter of
#           the transfer has been sent
#   KIND    bw: ib_write_bw from a to b, 64 KiB WRITEs for
#           IRN_MPB_SECONDS (-D), local ACK timeout 18 (T = 1.07 s);
#           verify: irn_verify's client on a (IRN_MPB_MIB RC writes of
#           1 MiB, every byte and completion checked, an error
#           completion fails it; local ACK timeout 18 as well), its
#           server on b, killed after IRN_MPB_LIMIT seconds; a samples
#           its counters every 0.25 s
#
# T = 1.07 s: a shaped cable's full queue is some 100 ms at 20 Mbit/s,
# above perftest's default T (67 ms), which rxe and gbn would take for
# losses.
#
# Output in guest a's out/: NAME.log (the client's output), NAME.rc (its
# exit status), NAME.server (the server's), NAME.split ("eth0 BYTES eth1
# BYTES": what a sent on each cable during the transfer), NAME.counters
# (the device's counters after it, cumulative), NAME.fail (why the case
# failed); for verify also NAME.verified, NAME.rate ("TIME ETH0_TX_BYTES
# ETH1_TX_BYTES SENT_PKTS RETRANSMITTED_PKTS" every 0.25 s, read without
# a fork), NAME.trace with IRN_MPB_TRACE=1 (irn's tracepoints during an
# irn case) and NAME.times ("cut TIME", "end TIME": when a set cable 2 down
# and when the client ended, on the same clock).  b's out/ has
# NAME.server.log.  A case that fails is logged and the next one runs;
# the job fails at the end.  The guests keep in step through the shared
# export (scripts/tests/lib.sh's barriers and values).
set -euo pipefail
export IRN_OUT=$IRN_GUEST_OUT IRN_SHARED=$IRN_GUEST_SHARED
# shellcheck source=scripts/tests/lib.sh
. "$IRN_SRC/scripts/tests/lib.sh"
irn_init
irn_require_shared
irn_require_cmd ib_write_bw timeout mkfifo
[[ ${IRN_CABLES:-1} == 2 ]] || irn_fail "needs scripts/vm.sh --cables 2"
for v in IRN_MPB_CASES IRN_MPB_RATE IRN_MPB_SECONDS IRN_MPB_MIB IRN_MPB_LIMIT \
	IRN_MPB_CC IRN_MPB_TRACE; do
	[[ -n ${!v:-} ]] || irn_fail "$v is not set (scripts/mpbench.sh sets it)"
done

MPNET=$IRN_SRC/scripts/guest/mpnet.sh
VERIFY=$(irn_tool irn_verify)
TC=/usr/sbin/tc
TBF=(tbf rate "${IRN_MPB_RATE}mbit" burst 16kb limit 256kb)
SECS=$IRN_MPB_SECONDS
MIB=$IRN_MPB_MIB
LIMIT=$IRN_MPB_LIMIT
PORT=18800
POLL=0.25
DRIVER=none
GIDX=
N=0
FAILED=()
TMP=$(mktemp -d /tmp/mpbench.XXXXXX)
irn_defer rm -rf "$TMP"

# now VAR: the wall clock in seconds (no fork)
now() { printf -v "$1" '%s' "${EPOCHREALTIME/,/.}"; }

# tx VAR NIC: the bytes NIC sent so far (no fork)
tx() { read -r "$1" <"/sys/class/net/$2/statistics/tx_bytes"; }

# bad NAME WHY: the case failed; the run goes on
bad()
{
	irn_log "FAIL [$1]: $2"
	printf '%s\n' "$2" >"$IRN_OUT/$1.fail"
	FAILED+=("$1")
}

# use_driver rxe|irn: IRN_DEV a device of that driver on bond0, GIDX its
# RoCE v2 GID index (the two modules both own UDP 4791: one at a time)
use_driver()
{
	[[ $1 != "$DRIVER" ]] || return 0
	if [[ $DRIVER != none ]]; then
		irn_link_del "$IRN_DEV"
		irn_rmmod || irn_fail "cannot unload $IRN_MODULE"
	fi
	case $1 in
	rxe)
		IRN_MODULE=rdma_rxe IRN_LINK_TYPE=rxe IRN_DEV=rxe0
		modprobe crc32_generic 2>/dev/null || true
		;;
	irn) IRN_MODULE=rdma_irn IRN_LINK_TYPE=irn IRN_DEV=irn0 ;;
	*) irn_fail "unknown driver $1" ;;
	esac
	modprobe "$IRN_MODULE" || irn_fail "modprobe $IRN_MODULE failed"
	DRIVER=$1
	irn_dev_up "$IRN_DEV" bond0
	GIDX=$IRN_GIDX
}

# knobs MODE PATHS: for the QPs created from now on, with congestion
# control IRN_MPB_CC
knobs()
{
	local d=/sys/kernel/debug/irn/$IRN_DEV m p c

	echo "$1" >"$d/mode"
	echo "$2" >"$d/paths"
	echo "$IRN_MPB_CC" >"$d/cc"
	read -r m <"$d/mode"
	read -r p <"$d/paths"
	read -r c <"$d/cc"
	[[ $m == "$1" && $p == "$2" && $c == "$IRN_MPB_CC" ]] ||
		irn_fail "cannot set mode $1, paths $2, cc $IRN_MPB_CC (read back $m, $p, $c)"
}

# cable2 shaped|lossy|delayed|cut|cut-mid: cable 2 at this guest's end
cable2()
{
	local em=()

	"$MPNET" shape 2 none
	case $1 in
	lossy) em=(loss 5%) ;;
	delayed) em=(delay 10ms limit 10000) ;;
	esac
	if ((${#em[@]})); then
		# netem, then the rate under it (tc-netem(8)'s recipe)
		if ! modprobe sch_netem || ! modprobe sch_tbf ||
		   ! $TC qdisc add dev eth1 root handle 1: netem "${em[@]}" ||
		   ! $TC qdisc add dev eth1 parent 1:1 handle 10: "${TBF[@]}"; then
			irn_fail "netem ${em[*]} with ${TBF[*]} under it on eth1 failed"
		fi
	else
		"$MPNET" shape 2 "${TBF[@]}" || irn_fail "shaping cable 2 failed"
	fi
	[[ $1 != cut ]] || "$MPNET" cut 2 || irn_fail "mpnet.sh cut 2 failed"
}

# server_rc NAME: the peer's server exit status, into NAME.server
server_rc()
{
	irn_get "$1.server" $((LIMIT + 60)) >"$IRN_OUT/$1.server"
	cat "$IRN_OUT/$1.server"
}

# bw_case NAME: ib_write_bw from a to b for SECS seconds
bw_case()
{
	local name=$1 port=$((PORT + N)) rc=0 src pid t0 t1 e0 e1
	local bw=(ib_write_bw -d "$IRN_DEV" -x "$GIDX" -p "$port" -F -s 65536
		  -D "$SECS" -u 18)

	if [[ $IRN_ROLE == b ]]; then
		timeout -k 5 $((SECS + 60)) "${bw[@]}" >"$IRN_OUT/$name.server.log" 2>&1 &
		pid=$!
		irn_wait_for 60 "ib_write_bw server on port $port" irn_tcp_listening "$port"
		irn_barrier "$name-listening"
		wait "$pid" || rc=$?
		irn_put "$name.server" "$rc"
		return 0
	fi
	irn_barrier "$name-listening"
	tx t0 eth0
	tx t1 eth1
	timeout -k 5 $((SECS + 60)) "${bw[@]}" "$IRN_PEER_IP" >"$IRN_OUT/$name.log" 2>&1 || rc=$?
	tx e0 eth0
	tx e1 eth1
	printf 'eth0 %s eth1 %s\n' $((e0 - t0)) $((e1 - t1)) >"$IRN_OUT/$name.split"
	echo "$rc" >"$IRN_OUT/$name.rc"
	src=$(server_rc "$name")
	if [[ $rc != 0 || $src != 0 ]]; then
		bad "$name" "ib_write_bw: client exit $rc, server exit $src"
	elif ! grep -qE '^ *65536 +[0-9]+ ' "$IRN_OUT/$name.log"; then
		bad "$name" "ib_write_bw printed no result line"
	fi
}

# sample_start NAME: every POLL seconds, "TIME ETH0_TX ETH1_TX SENT RETX"
# (a's bytes sent on each cable, the device's sent_pkts and
# retransmitted_pkts) to NAME.rate; builtins only, no fork a reading
SAMPLER=
sample_start()
{
	local f=$TMP/$1.rate hw=/sys/class/infiniband/$IRN_DEV/ports/1/hw_counters

	(
		trap 'exit 0' TERM
		while :; do
			read -r b1 </sys/class/net/eth0/statistics/tx_bytes
			read -r b2 </sys/class/net/eth1/statistics/tx_bytes
			read -r s <"$hw/sent_pkts"
			read -r r <"$hw/retransmitted_pkts"
			printf '%s %s %s %s %s\n' "${EPOCHREALTIME/,/.}" "$b1" "$b2" "$s" "$r" >>"$f"
			irn_nap "$POLL"
		done
	) &
	SAMPLER=$!
}

sample_stop()
{
	local i

	kill -TERM "$SAMPLER" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$SAMPLER" 2>/dev/null || break
		irn_nap 0.1
	done
	kill -KILL "$SAMPLER" 2>/dev/null || true
	wait "$SAMPLER" 2>/dev/null || true
	cp "$TMP/$1.rate" "$IRN_OUT/" 2>/dev/null || true
}

# mid_transfer PID: wait until bond0 sent a quarter of MIB MiB, or PID
# ended, or LIMIT seconds passed; no fork
mid_transfer()
{
	local b0 b i want=$((MIB * 1048576 / 4))

	read -r b0 </sys/class/net/bond0/statistics/tx_bytes
	for ((i = 0; i < LIMIT * 10; i++)); do
		read -r b </sys/class/net/bond0/statistics/tx_bytes
		((b - b0 < want)) || return 0
		kill -0 "$1" 2>/dev/null || return 0
		irn_nap 0.1
	done
}

# verify_case NAME: irn_verify's MIB MiB, cable 2 pulled at both ends a
# quarter of the way through
verify_case()
{
	local name=$1 port=$((PORT + N)) rc=0 src pid t0 t1 e0 e1 cut end

	if [[ $IRN_ROLE == b ]]; then
		{
			timeout -k 5 $((LIMIT + 10)) "$VERIFY" -d "$IRN_DEV" -g "$GIDX" \
				-p "$port" >"$IRN_OUT/$name.server.log" 2>&1 || rc=$?
			irn_put "$name.server" "$rc"
		} &
		pid=$!
		irn_await "$name.cut" "$LIMIT"
		"$MPNET" cut 2 || irn_fail "mpnet.sh cut 2 failed"
		wait "$pid" || true
		return 0
	fi
	tx t0 eth0
	tx t1 eth1
	sample_start "$name"
	timeout -k 5 "$LIMIT" "$VERIFY" -d "$IRN_DEV" -g "$GIDX" -p "$port" \
		-t rc --data-only --only rc.write.1048576 -n "$MIB" \
		--ack-timeout 18 --timeout $((LIMIT / 2)) "$IRN_PEER_IP" \
		>"$IRN_OUT/$name.log" 2>&1 &
	pid=$!
	mid_transfer "$pid"
	"$MPNET" cut 2 || irn_fail "mpnet.sh cut 2 failed"
	now cut
	irn_log "[$name] cable 2 cut at a's end at $cut"
	# a's end first: a listens on every cable, and QEMU writes to an
	# accepted stream connection with a blocking sendmsg() under its big
	# lock, so frames a sent into a cable b no longer drains would freeze
	# all of guest a (tests/multipath.sh's pulled case says the same)
	irn_nap 0.3
	irn_put "$name.cut" 1
	wait "$pid" || rc=$?
	now end
	sample_stop "$name"
	tx e0 eth0
	tx e1 eth1
	printf 'eth0 %s eth1 %s\n' $((e0 - t0)) $((e1 - t1)) >"$IRN_OUT/$name.split"
	printf 'cut %s\nend %s\n' "$cut" "$end" >"$IRN_OUT/$name.times"
	echo "$rc" >"$IRN_OUT/$name.rc"
	src=$(server_rc "$name")
	if [[ $rc != 0 || $src != 0 ]]; then
		bad "$name" "irn_verify: client exit $rc, server exit $src (an error completion, a bad byte or a timeout)"
	elif ! grep -q '^ok rc.write.1048576/' "$IRN_OUT/$name.log"; then
		bad "$name" "irn_verify passed without checking rc.write.1048576"
	else
		echo yes >"$IRN_OUT/$name.verified"
		irn_log "[$name] verified: every byte and completion checked"
	fi
}

# trace on|off NAME: irn's path, cc, recovery and retransmit events on a
trace()
{
	local t=/sys/kernel/debug/tracing e v=0

	[[ $IRN_MPB_TRACE == 1 && $IRN_ROLE == a && $DRIVER == irn ]] || return 0
	if [[ $1 == on ]]; then
		v=1
		echo 8192 >"$t/buffer_size_kb"
		echo >"$t/trace"
	fi
	for e in irn_path irn_cc irn_delay_cut irn_recovery irn_retransmit; do
		echo "$v" >"$t/events/irn/$e/enable"
	done
	[[ $1 == on ]] || cat "$t/trace" >"$IRN_OUT/$2.trace"
}

# run_case NAME DRIVER MODE PATHS CABLE2 KIND
run_case()
{
	local name=$1 driver=$2 mode=$3 paths=$4 c2=$5 kind=$6

	N=$((N + 1))
	irn_log "case $name: $driver $mode, paths $paths, cable 2 $c2, $kind"
	use_driver "$driver"
	[[ $driver != irn ]] || knobs "$mode" "$paths"
	cable2 "$c2"
	irn_barrier "$name-set"
	trace on "$name"
	case $kind in
	bw) bw_case "$name" ;;
	verify) verify_case "$name" ;;
	*) irn_fail "case $name: unknown kind $kind" ;;
	esac
	trace off "$name"
	[[ $IRN_ROLE != a ]] ||
		rdma statistic show link "$IRN_DEV/1" >"$IRN_OUT/$name.counters" 2>&1 || true
	irn_barrier "$name-end" $((LIMIT + 120))
	# b's end first, so that b drains cable 2 before a sends into it
	if [[ $c2 == cut* && $IRN_ROLE == b ]]; then
		"$MPNET" mend 2 || irn_fail "cable 2 did not come back"
		irn_put "$name.mended" 1
	elif [[ $c2 == cut* ]]; then
		irn_await "$name.mended" 60
		"$MPNET" mend 2 || irn_fail "cable 2 did not come back"
	fi
	irn_barrier "$name-mended"
}

# ---- the bed --------------------------------------------------------------
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
irn_defer "$MPNET" down
"$MPNET" up || irn_fail "mpnet.sh up failed"
IRN_NETDEV=bond0
# before the bond goes (deferred commands run last first); the device
# of the driver in use then
# shellcheck disable=SC2016 # expanded when the cleanup runs
irn_defer 'rdma link delete "$IRN_DEV"'
"$MPNET" shape 1 "${TBF[@]}" || irn_fail "shaping cable 1 failed"
irn_log "bed: bond0 over eth0 and eth1, each sending through ${TBF[*]}"
irn_barrier bed-up

IFS=';' read -r -a SPECS <<<"$IRN_MPB_CASES"
for spec in "${SPECS[@]}"; do
	IFS='|' read -r name driver mode paths c2 kind <<<"$spec"
	run_case "$name" "$driver" "$mode" "$paths" "$c2" "$kind"
done
irn_barrier finished

irn_dmesg_check mpbench
[[ ${#FAILED[@]} -eq 0 ]] || irn_fail "cases failed: ${FAILED[*]}"
irn_log "PASS"
