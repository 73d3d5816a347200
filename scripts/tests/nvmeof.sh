#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=1500 ci=600 6.12
#
# NVMe over Fabrics (RDMA transport) between the guests, on the kernel's
# own consumers: guest b is the target (nvmet + nvmet-rdma, a RAM-backed
# brd namespace configured through configfs), guest a the host
# (nvme-rdma, "nvme connect -t rdma").  Both run on irn0.
#
# Per phase (a transport mode and a netem condition, applied on eth0 of
# both guests, the mode set on both before any QP exists):
#   connect; fio with --verify=crc32c --do_verify=1: sequential and random
#   writes, 4k and 128k, iodepth 1 and 16; then 4k random read and write
#   at iodepth 16 for IRN_NVMEOF_RUNTIME seconds (IOPS, p99 latency);
#   a known pattern written (with fio verify headers) and checksummed,
#   disconnect, reconnect, checksum compared and fio --verify_only;
#   disconnect.  The irn counters of both guests are printed per phase.
#
# Fails on: a connect failure, any fio error or verify mismatch, a
# checksum mismatch after reconnect, a lossy auto phase with the SRQ in
# which the host's QPs did not turn IRN on or the target placed nothing
# out of order, NVMe I/O timeouts or errors in the
# kernel log (a target keep-alive expiry included, unless the controller
# is one the host had disconnected: see reclaimed()), or any kernel
# warning.  Go-back-N phases under loss connect with a 15 s keep-alive
# timeout instead of 5 s (see kato_args()): each tail loss costs them the
# 2.1 s IBTA timeout rdma_cm gives RoCE QPs.
#
#   IRN_NVMEOF_PHASES   ';'-separated MODE:NETEM[:SRQ] phases (NETEM "none"
#                       for no qdisc; SRQ: nvmet-rdma's use_srq, default
#                       IRN_NVMEOF_SRQ); default "auto:none:1;auto:delay 2ms
#                       loss 1%:1;auto:delay 2ms loss 1%:0;gbn:delay 2ms
#                       loss 1%:0" (IRN under loss with and without the
#                       target's SRQ, and go-back-N); in make check's CI
#                       tier the first two only
#   IRN_NVMEOF_RUNTIME  seconds of each IOPS/p99 run (default 10; 3 in make
#                       check's CI tier)
#   IRN_NVMEOF_SCALE    multiplies the verified amounts (default 1: 256 KiB
#                       to 4 MiB per job, kept small for make check)
#   IRN_NVMEOF_SRQ      nvmet-rdma's use_srq where a phase names none
#                       (default 1)
#   IRN_NVMEOF_DRIVER   irn (default) or rxe (stock rdma_rxe; the MODE of
#                       each phase is then ignored).  Stock rxe passes the
#                       clean link; at 2 ms and 1% loss it verified every
#                       byte but had NVMe I/O timeouts (30 s) and 8
#                       controller resets, which fail this test.
# Results: $IRN_OUT/nvmeof.txt on guest a (one line per fio job).
set -euo pipefail
IRN_DRIVER=${IRN_NVMEOF_DRIVER:-${IRN_DRIVER:-irn}}
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd timeout nvme fio md5sum dd
# Debian's kernel and the harness's debug kernel (scripts/config/
# debug.config) build all four; the KUnit kernel, and a custom kernel
# without them, skip.
for m in brd nvmet nvmet-rdma nvme-rdma; do
	modinfo "$m" >/dev/null 2>&1 ||
		irn_skip "kernel $(uname -r) has no $m module"
done

IFS=';' read -r -a PHASES <<<"${IRN_NVMEOF_PHASES:-$(irn_by_tier \
	'auto:none:1;auto:delay 2ms loss 1%:1;auto:delay 2ms loss 1%:0;gbn:delay 2ms loss 1%:0' \
	'auto:none:1;auto:delay 2ms loss 1%:1')}"
RUNTIME=${IRN_NVMEOF_RUNTIME:-$(irn_by_tier 10 3)}
SCALE=${IRN_NVMEOF_SCALE:-1}
USE_SRQ=${IRN_NVMEOF_SRQ:-1}
NQN=nqn.2026-11.org.irn:nvmeof-test
TADDR=10.77.0.2
TC=/usr/sbin/tc
DBG=/sys/kernel/debug/irn/$IRN_DEV
CFG=/sys/kernel/config/nvmet
SUMMARY=$IRN_OUT/nvmeof.txt
PY=$(irn_python)
if [[ $IRN_DRIVER == irn ]]; then
	COUNTERS=(retransmitted_pkts selective_retransmits timeouts
		  timeouts_short spurious_timeouts spurious_retransmits
		  irn_duplicates sent_drop_local retransmit_episodes
		  seq_nak_rcvd rnr_nak_rcvd retry_exceeded ooo_placed irn_qps)
else
	COUNTERS=(completer_retry_err rcvd_seq_err duplicate_request)
fi

modprobe sch_netem || irn_fail "modprobe sch_netem failed"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"
# configfs is a module in Debian's kernel: /sys/kernel/config appears with it
modprobe configfs 2>/dev/null || true
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
	irn_fail "cannot mount configfs"
irn_defer "$TC" qdisc del dev "$IRN_NETDEV" root
irn_dev_up
if [[ $IRN_DRIVER == irn ]]; then
	[[ -w $DBG/mode ]] || irn_fail "$DBG/mode missing: no debugfs knobs"
fi

# counters: "name value" per line for this guest's device
counters()
{
	local n
	for n in "${COUNTERS[@]}"; do
		echo "$n $(irn_counter "$IRN_DEV" "$n")"
	done
}

# A controller the host has disconnected can outlive the disconnect on the
# target: the host destroys its rdma_cm ID right after rdma_disconnect(),
# which cancels the retries of the CM disconnect request (DREQ), so when
# the lossy link drops that one packet the target learns of it only from
# its keep-alive timer, which then reclaims the controller ("ctrl N
# keep-alive timer (5 seconds) expired!", "ctrl N fatal error occurred!").
# The host writes the target's ID of every controller it disconnects to
# GONE; the target logs such lines for those IDs instead of failing.  The
# expiry of a live controller still fails: the host sees it.
GONE=$IRN_SHARED/nvmeof.disconnected
# A connect attempt can fail on a lossy link: its rdma_cm requests go over
# QP1 (UD, which no transport mode protects), and one lost request costs
# a CM retry of some 4 s, so setting up an I/O queue can outlast the new
# controller's 5 s keep-alive, which the target then expires ("Connect
# Invalid Data Parameter, cntlid: N" on the host).  connect() retries; the
# host's log lines of a failed attempt go to RETRIED, which nvme_log_check
# reports instead of failing, and that controller's ID to GONE.
RETRIED=$IRN_OUT/nvmeof.retried

# reclaimed LINES: those of LINES that are about controllers in GONE
reclaimed()
{
	local re='nvmet: ctrl ([0-9]+) (keep-alive timer \([0-9]+ seconds\) expired!|fatal error occurred!)'
	local l
	[[ -s $GONE ]] || return 0
	while IFS= read -r l; do
		[[ $l =~ $re ]] || continue
		grep -qx "${BASH_REMATCH[1]}" "$GONE" && echo "$l"
	done <<<"$1"
	return 0
}

# nvme_log_check WHAT: NVMe I/O timeouts, errors or resets are failures
nvme_log_check()
{
	local bad gone
	bad=$(dmesg | tail -n +"$((IRN_DMESG_MARK + 1))" |
		grep -E -i 'nvme.*(timeout|I/O error|error recovery|reconnect|failed)|nvmet.*(fail|error|expired)|I/O error|blk_update_request|critical' |
		grep -v -i 'Removing ctrl' || true)
	if [[ -s $RETRIED && -n $bad ]]; then
		gone=$(grep -x -F -f "$RETRIED" <<<"$bad" || true)
		if [[ -n $gone ]]; then
			irn_log "$1: from connect attempts that were retried:"$'\n'"$gone"
			bad=$(grep -v -x -F -f "$RETRIED" <<<"$bad" || true)
		fi
	fi
	gone=$(reclaimed "$bad")
	if [[ -n $gone ]]; then
		irn_log "$1: the target reclaimed controllers the host had disconnected (a lost DREQ):"$'\n'"$gone"
		bad=$(grep -v -x -F "$gone" <<<"$bad" || true)
	fi
	[[ -n $bad ]] || return 0
	irn_log "$1: counters now: $(counters | tr '\n' ' ')"
	irn_fail "$1: NVMe errors in the kernel log:"$'\n'"$bad"$'\n'"--- the log before the first:"$'\n'"$(dmesg |
		tail -n +"$((IRN_DMESG_MARK + 1))" | grep -B12 -m1 -F "${bad%%$'\n'*}" || true)"
}

# ---- target (guest b) -----------------------------------------------------

target_setup()
{
	local s=$CFG/subsystems/$NQN p=$CFG/ports/1
	modprobe brd rd_nr=1 rd_size=262144 max_part=0 || irn_fail "modprobe brd failed"
	irn_defer rmmod brd
	modprobe nvmet || irn_fail "modprobe nvmet failed"
	irn_defer rmmod nvmet
	irn_defer rmmod nvmet_rdma
	[[ -d $CFG ]] || irn_fail "$CFG missing after modprobe nvmet"
	mkdir "$s" || irn_fail "mkdir $s failed"
	irn_defer rmdir "$s"
	echo 1 >"$s/attr_allow_any_host"
	mkdir "$s/namespaces/1"
	irn_defer rmdir "$s/namespaces/1"
	echo /dev/ram0 >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable" || irn_fail "enabling namespace /dev/ram0 failed"
	irn_defer sh -c "echo 0 >$s/namespaces/1/enable"
	mkdir "$p"
	irn_defer rmdir "$p"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$TADDR" >"$p/addr_traddr"
	echo 4420 >"$p/addr_trsvcid"
	irn_defer rm -f "$p/subsystems/$NQN"
	irn_log "target: $NQN, namespace 1 = /dev/ram0 (256 MiB), rdma $TADDR:4420"
}

# target_srq 0|1: (re)load nvmet-rdma with that use_srq, enable the port
SRQ_NOW=
target_srq()
{
	local p=$CFG/ports/1
	[[ $SRQ_NOW != "$1" ]] || return 0
	rm -f "$p/subsystems/$NQN"
	if irn_module_loaded nvmet_rdma; then
		rmmod nvmet_rdma || irn_fail "rmmod nvmet_rdma failed"
	fi
	modprobe nvmet-rdma use_srq="$1" ||
		irn_fail "modprobe nvmet-rdma use_srq=$1 failed"
	ln -s "$CFG/subsystems/$NQN" "$p/subsystems/$NQN" ||
		irn_fail "linking $NQN to port 1 (rdma $TADDR:4420) failed: $(dmesg | tail -n 5)"
	SRQ_NOW=$1
	irn_log "target: nvmet-rdma use_srq=$1, port 1 enabled"
}

# ---- host (guest a) -------------------------------------------------------

BDEV=
# find_bdev: the namespace's block device (one NVMe-oF controller only)
find_bdev()
{
	local d
	for d in /sys/block/nvme*; do
		[[ -e $d ]] || continue
		[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[[ $(cat "$d/size") -gt 0 ]] || continue
		[[ -b /dev/${d##*/} ]] || continue
		BDEV=/dev/${d##*/}
		return 0
	done
	return 1
}

# The keep-alive timeout for this phase's connections.  rdma_cm gives
# RoCE QPs the IBTA local ACK timeout of a 2^18 packet lifetime: T = 2.1 s,
# and go-back-N recovers a lost tail packet only when T expires.  Two
# losses of one keep-alive command in a row cost 4.3 s of the default 5 s
# keep-alive timeout, and nvmet then fails the controller.  Go-back-N
# under loss (gbn, stock rxe) gets 15 s; IRN, which recovers in a few
# RTTs (with the target's SRQ too), and every lossless phase keep the
# default.
# Sets KATO to the connect arguments.
kato_args()
{
	KATO=()
	[[ $COND == none ]] && return 0
	[[ $MODE == irn || $MODE == auto ]] && return 0
	KATO=(--keep-alive-tmo=15)
}

connect()
{
	local out i rc from
	kato_args
	for ((i = 1; i <= 3; i++)); do
		rc=0
		from=$(dmesg | wc -l)
		out=$(timeout -k 5 120 nvme connect -t rdma -a "$TADDR" -s 4420 \
			-n "$NQN" "${KATO[@]}" 2>&1) || rc=$?
		[[ $rc -ne 0 ]] || break
		irn_log "nvme connect attempt $i failed (status $rc): $out"
		sleep 2
		# see RETRIED
		dmesg | tail -n +"$((from + 1))" | tee -a "$RETRIED" |
			sed -n 's/.*Connect Invalid Data Parameter, cntlid: \([0-9]*\).*/\1/p' \
			>>"$GONE"
	done
	[[ $rc -eq 0 ]] ||
		irn_fail "nvme connect -t rdma -a $TADDR -s 4420 -n $NQN failed: $out"$'\n'"$(dmesg | tail -n 15)"
	irn_wait_for 30 "the namespace block device" find_bdev
	irn_log "connected: $BDEV ($(($(cat /sys/block/"${BDEV#/dev/}"/size) / 2048)) MiB) $out"
}

# The target's controller IDs of this host's controllers of NQN
ctrl_ids()
{
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$NQN" ]] || continue
		cat "$c/cntlid"
	done
}

disconnect()
{
	local out
	ctrl_ids >>"$GONE"
	out=$(timeout -k 5 120 nvme disconnect -n "$NQN" 2>&1) ||
		irn_fail "nvme disconnect -n $NQN failed: $out"
	irn_wait_for 30 "the namespace block device to go" sh -c "! test -b $BDEV"
	irn_log "disconnected: $out"
}

# fio_job TAG TIMEOUT FIO-ARGS...: one fio job on BDEV; a failure or a
# verify error fails the test; a line of results goes to SUMMARY
fio_job()
{
	local tag=$1 t=$2 json=$IRN_OUT/fio-$PH-$1.json rc=0 line
	shift 2
	timeout -k 5 "$t" fio --name="$tag" --filename="$BDEV" --direct=1 \
		--ioengine=libaio --output-format=json --output="$json" \
		"$@" >"$IRN_OUT/fio-$PH-$tag.log" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]]; then
		cat "$IRN_OUT/fio-$PH-$tag.log" >&2
		[[ $rc -ne 124 ]] || irn_fail "[$PHASE] fio $tag timed out after ${t}s: fio $*"$'\n'"$(dmesg | tail -n 20)"
		irn_fail "[$PHASE] fio $tag failed (status $rc): fio $*"$'\n'"$(dmesg | tail -n 20)"
	fi
	line=$("$PY" - "$json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
if j.get("error"):
    print("ERROR %d" % j["error"]); sys.exit(1)
out = []
for d in ("read", "write"):
    s = j[d]
    # a verify_only run also reports its reads as writes, with no rate
    if not s["total_ios"] or not s["iops"]:
        continue
    p = s["clat_ns"].get("percentile", {})
    p99 = p.get("99.000000", 0) / 1000.0
    out.append("%s %8.0f IOPS %8.1f MiB/s p99 %9.0f us (%d I/Os)" %
               (d, s["iops"], s["bw"] / 1024.0, p99, s["total_ios"]))
print("; ".join(out))
EOF
	) || irn_fail "[$PHASE] fio $tag: $line"
	line=$(printf '%-4s %-22s srq=%s %-17s %s' "$MODE" "$COND" "$SRQ" "$tag" "$line")
	echo "$line" >>"$SUMMARY"
	irn_log "$line"
}

# verify_job TAG SIZE BS RW IODEPTH: write SIZE with crc32c headers and
# read every block back
verify_job()
{
	fio_job "$1" 300 --size="$2" --bs="$3" --rw="$4" --iodepth="$5" \
		--verify=crc32c --do_verify=1 --verify_fatal=1
}

PATTERN_ARGS=(--offset=128M --size=$((4 * SCALE))M --bs=64k --rw=write
	      --iodepth=8 --verify=crc32c --verify_fatal=1)
region_md5()
{
	dd if="$BDEV" bs=1M skip=128 count=$((4 * SCALE)) iflag=direct \
		status=none | md5sum
}

host_phase()
{
	local sum1 sum2
	connect
	verify_job seq-128k-qd16 $((2048 * SCALE))k 128k write 16
	verify_job seq-4k-qd1 $((256 * SCALE))k 4k write 1
	verify_job rand-4k-qd1 $((256 * SCALE))k 4k randwrite 1
	verify_job rand-4k-qd16 $((1024 * SCALE))k 4k randwrite 16
	verify_job rand-128k-qd1 $((1024 * SCALE))k 128k randwrite 1
	verify_job rand-128k-qd16 $((2048 * SCALE))k 128k randwrite 16
	fio_job randread-4k-qd16 $((RUNTIME + 120)) --size=64M --bs=4k \
		--rw=randread --iodepth=16 --time_based --runtime="$RUNTIME"
	fio_job randwrite-4k-qd16 $((RUNTIME + 120)) --size=64M --bs=4k \
		--rw=randwrite --iodepth=16 --time_based --runtime="$RUNTIME"
	# a known pattern survives a disconnect and a new connection
	fio_job pattern-write 300 "${PATTERN_ARGS[@]}" --do_verify=0
	sum1=$(region_md5)
	disconnect
	connect
	sum2=$(region_md5)
	[[ $sum1 == "$sum2" ]] ||
		irn_fail "[$PHASE] after reconnect: md5 of the $((4 * SCALE)) MiB pattern was $sum1, now $sum2"
	irn_log "[$PHASE] pattern md5 after reconnect: $sum2 (same)"
	fio_job pattern-verify 300 "${PATTERN_ARGS[@]}" --verify_only
	disconnect
}

# ---- phases ---------------------------------------------------------------

if [[ $IRN_ROLE == b ]]; then
	target_setup
else
	modprobe nvme-rdma || irn_fail "modprobe nvme-rdma failed"
	irn_defer rmmod nvme_fabrics
	irn_defer rmmod nvme_rdma
	irn_defer timeout 60 nvme disconnect-all
	: >"$SUMMARY"
	: >"$GONE"
	: >"$RETRIED"
fi

# delta ROLE NAME PHASE: growth of a counter of guest ROLE in a phase
delta()
{
	local b a
	b=$(awk -v n="$2" '$1 == n { print $2 }' "$IRN_SHARED/before.$3.$1")
	a=$(awk -v n="$2" '$1 == n { print $2 }' "$IRN_SHARED/after.$3.$1")
	echo $((a - b))
}

run=0
for ph in "${PHASES[@]}"; do
	run=$((run + 1))
	MODE=${ph%%:*} COND=${ph#*:} SRQ=$USE_SRQ
	if [[ $COND == *:* ]]; then
		SRQ=${COND##*:} COND=${COND%:*}
	fi
	[[ $IRN_DRIVER == irn ]] || MODE=rxe
	PH=$run PHASE="$MODE/$COND/srq=$SRQ"
	[[ $IRN_ROLE != b ]] || target_srq "$SRQ"
	if [[ $IRN_DRIVER == irn ]]; then
		echo "$MODE" >"$DBG/mode"
		[[ $(cat "$DBG/mode") == "$MODE" ]] || irn_fail "cannot set mode $MODE"
	fi
	if [[ $COND == none ]]; then
		"$TC" qdisc del dev "$IRN_NETDEV" root 2>/dev/null || true
	else
		# shellcheck disable=SC2086
		"$TC" qdisc replace dev "$IRN_NETDEV" root netem $COND ||
			irn_fail "tc qdisc replace ... netem $COND failed"
	fi
	counters >"$IRN_SHARED/before.$run.$IRN_ROLE"
	irn_barrier "start-$run"
	irn_log "phase $run: mode $MODE, netem $COND"
	t0=$SECONDS
	if [[ $IRN_ROLE == a ]]; then
		host_phase
		nvme_log_check "[$PHASE]"
		irn_barrier "done-$run" 60
	else
		irn_barrier "done-$run" 1100
	fi
	counters >"$IRN_SHARED/after.$run.$IRN_ROLE"
	irn_barrier "counted-$run"
	if [[ $IRN_ROLE == a ]]; then
		line="  counters [$PHASE] $((SECONDS - t0))s:"
		for n in "${COUNTERS[@]}"; do
			line+=" $n a=$(delta a "$n" "$run") b=$(delta b "$n" "$run")"
		done
		echo "$line" >>"$SUMMARY"
		irn_log "$line"
		# The target's QPs on its SRQ place out of order too: the
		# host's QPs turn IRN on toward them, and under loss b places.
		if [[ $MODE == auto && $SRQ == 1 && $COND == *loss* ]]; then
			(($(delta a irn_qps "$run") > 0)) ||
				irn_fail "[$PHASE] the host's QPs did not turn IRN on toward the target's SRQ QPs"
			(($(delta b ooo_placed "$run") > 0)) ||
				irn_fail "[$PHASE] the target's SRQ QPs placed nothing out of order"
		fi
	fi
done
"$TC" qdisc del dev "$IRN_NETDEV" root 2>/dev/null || true
[[ $IRN_ROLE != a ]] || cat "$SUMMARY"
nvme_log_check "nvmeof"

irn_dmesg_check "nvmeof"
irn_barrier finished 300
irn_log "PASS"
