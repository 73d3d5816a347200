# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# perftest's cases in scripts/tests/lib.sh (tests source lib.sh, never
# this file): irn_perftest, one perftest run between the guests as an
# irn_case, judged by the packets the device moved and then the rate
# (irn_check_bw, irn_check_lat), and irn_all_sizes_iters.  Uses
# runner.sh, device.sh (IRN_GIDX), peer.sh and case.sh.
#
# perftest checks no data and a TCG guest's rates say little, but the
# device counts its packets: a case passes only if, on each guest,
# IRN_DEV's sent_pkts and rcvd_pkts grew by at least the packets the
# client's result rows need.  A row of N messages of B bytes at the MTU
# perftest reports takes N * ceil(B / MTU) packets one way; a read takes
# N requests the other way, an atomic N requests and N responses; the
# peer of a latency test sends as many as the client; an RC transfer
# needs a packet (an ACK) back.  Both ends must show these over RC, over
# UC and UD (which may lose a packet without a fault) only the sender.
# _irn_case_once snapshots the counters before and after each side runs
# (the side's output file with .pkts for .log, _irn_case_pkts in
# case.sh).

# _irn_perftest_want TOOL FILE: "FWD BACK RC" for the client's output
# FILE: the packets the run sent client -> server and server -> client
# at least, and 1 if the connection is reliable (RC, XRC, DC).
_irn_perftest_want()
{
	awk -v tool="$1" '
	BEGIN {
		op = tool
		sub(/^ib_/, "", op)
		sub(/_(bw|lat)$/, "", op)
		lat = tool ~ /_lat$/
		if (op !~ /^(write|send|read|atomic)$/) {
			print "unknown perftest tool " tool
			bad = 1
			exit 1
		}
	}
	$1 == "Mtu" && $2 == ":" { mtu = $3 + 0 }
	$1 == "Connection" && $2 == "type" && $3 == ":" { conn = $4 }
	$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ {
		rows++
		if (mtu <= 0)
			next
		n = $2
		pk = int(($1 + mtu - 1) / mtu)
		if (pk < 1)
			pk = 1
		if (op == "read") {
			fwd += n; back += n * pk
		} else if (op == "atomic") {
			fwd += n; back += n
		} else {
			fwd += n * pk
			if (lat)
				back += n * pk
		}
	}
	END {
		if (bad)
			exit 1
		if (!rows) { print "no result rows"; exit 1 }
		if (mtu <= 0) { print "no \"Mtu : N[B]\" line"; exit 1 }
		if (conn == "") { print "no \"Connection type\" line"; exit 1 }
		rc = conn ~ /^(RC|XRC|DC)$/
		if (rc && back < 1)
			back = 1
		printf "%.0f %.0f %d\n", fwd, back, rc
	}' "$2"
}

# _irn_perftest_cmp SIDE FILE SENT RCVD: IRN_DEV's counters, snapshots
# in FILE, grew by at least SENT and RCVD packets (RCVD "-": not
# checked).  Prints what it found.
_irn_perftest_cmp()
{
	local side=$1 file=$2 ws=$3 wr=$4 s0 r0 s1 r1 ds dr msg

	{ read -r s0 r0 && read -r s1 r1; } 2>/dev/null <"$file" ||
		{ echo "data check: no counter snapshots in $file"; return 1; }
	if ! [[ "$s0 $r0 $s1 $r1" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]]; then
		if [[ $IRN_DRIVER == rxe ]]; then
			echo "data check: not checked: $IRN_DEV (rxe) has no sent_pkts or rcvd_pkts counter"
			return 0
		fi
		echo "data check: $IRN_DEV ($side) has no sent_pkts or rcvd_pkts counter: '$s0 $r0', '$s1 $r1'"
		return 1
	fi
	ds=$((s1 - s0)) dr=$((r1 - r0))
	msg="$IRN_DEV ($side) sent $ds packets (needs $ws), received $dr"
	if [[ $wr == - ]]; then
		msg+=" (not checked)"
	else
		msg+=" (needs $wr)"
	fi
	if ((ds < ws)) || { [[ $wr != - ]] && ((dr < wr)); }; then
		echo "data check: too few packets: $msg"
		return 1
	fi
	echo "data check: $msg"
}

# irn_check_perftest FILE SLUG: irn_perftest's check of the client (tool
# in IRN_PERFTEST_TOOL): the device's counters, then the rate
# (irn_check_bw or irn_check_lat).  With two guests it leaves what the
# run needs for irn_check_perftest_server (val.SLUG.pkts); with one, the
# device carries both directions.
irn_check_perftest()
{
	local out=$1 slug=$2 tool=${IRN_PERFTEST_TOOL:?} want fwd back rc
	local ws wr data rate check=irn_check_bw

	want=$(_irn_perftest_want "$tool" "$out") ||
		{ echo "data check: $want"; return 1; }
	read -r fwd back rc <<<"$want"
	if irn_two_guests; then
		irn_put "$slug.pkts" "$want"
		ws=$fwd wr=$back
	else
		ws=$((fwd + back)) wr=$((fwd + back))
	fi
	[[ $rc == 1 ]] || wr=-
	data=$(_irn_perftest_cmp client "${out%.log}.pkts" "$ws" "$wr") ||
		{ echo "$data"; return 1; }
	[[ $tool != *_lat ]] || check=irn_check_lat
	rate=$("$check" "$out") || { echo "$rate; $data"; return 1; }
	echo "$data"
}

# irn_check_perftest_server FILE SLUG: the server's counters against
# what the client's check left (two guests only).  No figures: the
# client failed before its check, and so does the case.
irn_check_perftest_server()
{
	local out=$1 slug=$2 f fwd back rc

	irn_two_guests || return 0
	f=$IRN_SHARED/val.$slug.pkts
	# the server may end before the client has judged its output
	_irn_wait_file "$IRN_SHARED/val.$slug.client" "$IRN_BARRIER_TIMEOUT" ||
		{ echo "data check: not checked: no result from the client"; return 0; }
	[[ -e $f ]] || return 0
	read -r fwd back rc <"$f"
	[[ $rc == 1 ]] || fwd=-
	_irn_perftest_cmp server "${out%.log}.pkts" "$back" "$fwd"
}

# irn_all_sizes_iters TOOL: iterations of each size for perftest's -a
# (2 B to 8 MiB, some 16 MiB a round): 20, and 5 on a slower kernel
# (IRN_TIMEOUT_SCALE > 1, the debug build, some 1000 packets a second, 340
# for a latency test's ping-pong), where ib_send_lat -a -n 20 and
# ib_send_bw -a -n 20 each took more than 720 s.  perftest lowers its
# queue depths to the iterations.
irn_all_sizes_iters()
{
	if ((${IRN_TIMEOUT_SCALE:-1} > 1)); then
		echo 5
	else
		echo 20
	fi
}

# irn_perftest NAME_SUFFIX TIMEOUT TOOL ARGS...: one perftest case between
# the guests: both sides get -d, -x (GID index), -p $PORT, -F and ARGS;
# the client also the server's address.  The server runs on guest
# IRN_PERFTEST_SROLE (default b) at IRN_PERFTEST_SERVER (default: that
# guest's address).  Checked with irn_check_perftest (the packets the
# device moved, then the rate) and irn_check_perftest_server.
# On a slower kernel (IRN_TIMEOUT_SCALE > 1: the debug build, some 1000
# packets a second where Debian's moves 10000) TIMEOUT grows by the
# scale, and the QPs get a local ACK timeout of 18 (T = 1.07 s) in place
# of perftest's 14 (67 ms; the retries run out after 0.5 s without
# progress): 20 READs of 4 MiB ran out of retries there with no packet
# lost, 241052 responses sent and 241052 received.  ARGS may set -u
# again: the last one counts.
irn_perftest()
{
	local sfx=$1 t=$2 tool=$3 common srole srv scale=${IRN_TIMEOUT_SCALE:-1}
	local slow=''
	shift 3
	srole=${IRN_PERFTEST_SROLE:-b}
	srv=${IRN_PERFTEST_SERVER:-}
	if [[ -z $srv ]]; then
		[[ $srole == a ]] && srv=10.77.0.1 || srv=10.77.0.2
	fi
	if [[ $scale -gt 1 ]]; then
		t=$((t * scale))
		slow='-u 18 '
	fi
	common="$tool -d $IRN_DEV -x $IRN_GIDX -p \$PORT -F $slow$*"
	IRN_PERFTEST_TOOL=$tool irn_case "$tool $*${sfx:+ $sfx}" "$srole" "$t" \
		tcp "$common" "$common $srv" irn_check_perftest \
		irn_check_perftest_server
}
