#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 cables=2 timeout=900 ci=480
#
# Multipath (issue 36) on the two-cable bed: two guests joined by two
# cables (scripts/vm.sh --cables 2), bonded at each end into bond0
# (scripts/guest/mpnet.sh: balance-xor, layer3+4 hash, so that each
# packet takes the cable its UDP ports hash to), irn0 on bond0.  Guest a
# runs irn_verify's client (the requester: RC writes of 1 MiB, every
# byte and completion checked: an error completion fails it), guest b
# its server.  A tcpdump on each of a's NICs records the time and the
# UDP source port of each packet a sends to 4791; a poller that forks
# nothing reads a's paths_state (debugfs) every 0.25 s while the QP
# lives, and keeps the last reading with rows.  Each case is named and
# fails on its own; the test fails if any did.  A case with a capture
# also fails if tcpdump lost packets or holds fewer than one per 4 KiB
# moved: its counts would prove nothing.
#
#   pinned      paths=1: one source port, one cable carries every irn
#               packet, the other under 5% of a's frames, and
#               paths_state lists no path
#   sprayed     paths=IRN_MP_PATHS (4): as many ports as paths, each on
#               one cable only, each cable at least 15% of the irn
#               packets (the bond's hash puts 3 of 4 paths on one
#               cable: 25%), each port at least a quarter of its fair
#               share, paths_state lists every path with packets sent
#               and the ports the wire shows
#   lossy       netem loss 5% on cable 2 at both ends: verified; per
#               packet sent (paths_state's lost and timeouts over sent,
#               each path on the cable the wire showed its port on),
#               cable 2's paths lost 1% or more and at least twice what
#               cable 1's did, and each of cable 2's paths that sent 200
#               packets or more lost more than cable 1's; some path
#               changed state (path_changes)
#   blackhole   cable 2 drops every RoCEv2 packet a sends on it (its
#               carrier up: the bond keeps hashing onto it; mpnet.sh
#               blackhole) from a quarter of the way through a transfer:
#               cable 2 carried 100 irn packets or more before and none
#               after, cable 1 carried some after (the transfer went
#               on), verified (no error completion), paths_down and
#               path_resends_moved grew, paths_state lists cable 2's
#               ports, and they are down or probing in the last reading
#               if that came a second after the blackhole or later;
#               a's bond0 bytes every 0.25 s go to blackhole.rate for
#               the recovery's eye
#   pulled      cable 2 set down at both ends a quarter of the way
#               through a transfer (the bonds take it out of their hash
#               at once): cable 2 carried 100 irn packets or more
#               before, none after, cable 1 100 or more after;
#               verified; and if cable 1 carried the transfer 3 s past
#               the pull, every port cable 2 carried before came back
#               on cable 1 (a path the pull took down was probed back)
#   gbn-peer    paths=IRN_MP_PATHS, mode auto on a, gbn on b (IRN never
#               negotiated): one source port
#   rxe-peer    the same against stock rdma_rxe on b: one source port
#
# Knobs: IRN_MP_PATHS (paths of the sprayed cases, 2 to 8, default 4),
# IRN_MP_MIB (MiB a transfer moves, default 8; the blackhole and pulled
# cases move three times as much).  The cases move 76 MiB in all: ten
# seconds at the 8-12 MB/s irn moves on TCG with or without 5% loss
# (Documentation/results.rst), a minute and a quarter were it 1 MB/s;
# the bed, tcpdump's starts and decoding, irn_verify's checks of the
# data and rxe-peer's module swap take the most of ci=480, which fits
# without smaller transfers in the CI tier.  A transfer may take 300 s,
# 120 s in the CI tier (IRN_TIER=ci): a stuck one fails its case within
# the budget and the others still run.  Run: make check T=multipath.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd tcpdump timeout awk mkfifo
[[ $IRN_DRIVER == irn ]] || irn_skip "multipath exists in irn only"
[[ ${IRN_CABLES:-1} == 2 ]] ||
	irn_skip "needs two cables (scripts/vm.sh --cables 2; the header's cables=2)"

MPNET=$(cd "$(dirname "${BASH_SOURCE[0]}")/../guest" && pwd)/mpnet.sh
VERIFY=$(irn_tool irn_verify)
NPATHS=${IRN_MP_PATHS:-4}
MIB=${IRN_MP_MIB:-8}
[[ $NPATHS =~ ^[2-8]$ ]] ||
	irn_fail "IRN_MP_PATHS=$NPATHS: the sprayed cases need 2 to 8 paths"
[[ $MIB =~ ^[1-9][0-9]*$ ]] ||
	irn_fail "IRN_MP_MIB=$MIB: a whole number of MiB, 1 or more"
# seconds a transfer may take before it is killed
LIMIT=$(irn_by_tier 300 120)
# seconds between two readings of paths_state: the QP of an 8 MiB
# transfer lives about a second on TCG, and the verdicts take the last
# reading before it goes; a reading forks nothing
POLL=0.25
DBG=/sys/kernel/debug/irn/$IRN_DEV
TXB=/sys/class/net/bond0/statistics/tx_bytes
PORT=18700
NICS=(eth0 eth1)
NAMES=(path_changes paths_down path_probes path_resends_moved
       retransmitted_pkts timeouts)
FAILED=()
RUN=0
# the captures and readings while they are taken (the guest's tmpfs, not
# the 9p export)
CAPDIR=$(mktemp -d /tmp/multipath.XXXXXX)
irn_defer rm -rf "$CAPDIR"
irn_defer stray_stop

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug ||
	irn_fail "cannot mount debugfs"

# ---- the bed --------------------------------------------------------------
irn_defer "$MPNET" down
"$MPNET" up || irn_fail "mpnet.sh up failed"
IRN_NETDEV=bond0
modprobe "$IRN_MODULE" || irn_fail "modprobe $IRN_MODULE failed"
irn_dev_up "$IRN_DEV" bond0
# before the bond goes (deferred commands run last first)
irn_defer rdma link delete "$IRN_DEV"
[[ -w $DBG/paths ]] || irn_fail "$DBG/paths missing: no multipath in this module"
irn_log "bed: $(tr '\n' ' ' </proc/net/bonding/bond0 | grep -o 'Transmit Hash Policy: [^ ]*')"
irn_barrier bed-up

# ---- helpers --------------------------------------------------------------

# now VAR: the wall clock, tcpdump's -tt clock, in seconds (no fork)
now() { printf -v "$1" '%s' "${EPOCHREALTIME/,/.}"; }

# nic_tx VAR NIC: frames NIC sent so far (no fork)
nic_tx() { read -r "$1" <"/sys/class/net/$2/statistics/tx_packets"; }

# knobs MODE PATHS: for the QPs created from now on
knobs()
{
	local m p

	echo "$1" >"$DBG/mode"
	echo "$2" >"$DBG/paths"
	read -r m <"$DBG/mode"
	read -r p <"$DBG/paths"
	[[ $m == "$1" && $p == "$2" ]] ||
		irn_fail "cannot set mode $1 and paths $2 (read back $m, $p)"
}

# bad TAG WHY: the case TAG failed; the test goes on
bad()
{
	irn_log "FAIL [$1]: $2"
	FAILED+=("$1")
}

# counter_snap FILE: a's counters of NAMES
counter_snap()
{
	irn_snapshot "${NAMES[@]}" >"$1"
}

# growth TAG: GREW[NAME] becomes how much NAME grew over TAG's transfer
declare -A GREW=()
growth()
{
	local n v
	local -A was=()

	GREW=()
	while read -r n v; do
		was[$n]=$v
	done <"$IRN_OUT/$1.before"
	while read -r n v; do
		GREW[$n]=$((v - ${was[$n]:-0}))
	done <"$IRN_OUT/$1.after"
}

# pct VAR PPM: PPM parts per million as a percentage, "4.87%"
pct() { printf -v "$1" '%d.%02d%%' $(($2 / 10000)) $(($2 / 100 % 100)); }

# reap PID: wait up to 5 s for the child PID to end, then kill it
reap()
{
	local i

	for ((i = 0; i < 50; i++)); do
		kill -0 "$1" 2>/dev/null || break
		irn_nap 0.1
	done
	((i < 50)) || kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# stray_stop: end the captures and the poller a failed case left behind
# (deferred: the cleanup at exit runs it)
stray_stop()
{
	local pid

	for pid in "${CAP_PIDS[@]}" ${POLL_PID:+"$POLL_PID"}; do
		kill -TERM "$pid" 2>/dev/null || true
	done
}

# ---- captures -------------------------------------------------------------
# cap_start TAG: a tcpdump on each NIC of what this guest sends to 4791.
# -Z root: Debian's tcpdump drops to its own user before it opens the
# file.  --immediate-mode and -U: each packet is written as it arrives,
# none waits in a ring block or a stdio buffer when tcpdump stops.
CAP_PIDS=()
cap_start()
{
	local n i

	CAP_PIDS=()
	for n in "${NICS[@]}"; do
		tcpdump -i "$n" -p -nn -s 64 -B 16384 --immediate-mode -U -Z root \
			-w "$CAPDIR/$1.$n.pcap" \
			"udp dst port $IRN_RDMA_PORT and src host $IRN_SELF_IP" \
			2>"$IRN_OUT/$1.$n.tcpdump" &
		CAP_PIDS+=("$!")
	done
	for i in "${!NICS[@]}"; do
		cap_listening "${CAP_PIDS[i]}" "$IRN_OUT/$1.${NICS[i]}.tcpdump"
	done
}

# cap_listening PID LOG: wait until tcpdump PID says in LOG it listens
cap_listening()
{
	local i l

	for ((i = 0; i < 200; i++)); do
		# the log is there once the child's redirection ran
		if [[ -e $2 ]]; then
			while read -r l; do
				[[ $l != *'listening on'* ]] || return 0
			done <"$2"
		fi
		kill -0 "$1" 2>/dev/null || irn_fail "tcpdump ended before it listened: $(<"$2")"
		irn_nap 0.1
	done
	irn_fail "tcpdump did not listen within 20 s: $(<"$2")"
}

# cap_stop TAG [AT]: stop the captures: SIGTERM to each tcpdump itself
# (not a wrapper), which ends its loop, writes its statistics and exits;
# then cap_count and cap_drops
declare -A CAP_DROPPED=()
cap_stop()
{
	local pid

	# what is still in flight reaches the captures
	irn_nap 0.5
	for pid in "${CAP_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${CAP_PIDS[@]}"; do
		reap "$pid"
	done
	CAP_PIDS=()
	cap_count "$1" "${2:-}"
	cap_drops "$1"
}

# cap_count TAG [AT]: TAG.ports gets "NIC PORT PACKETS" lines, TAG.span
# "NIC FIRST LAST" (the times of a NIC's first and last packet); with AT
# (a time as now gives it) TAG.pre.ports and TAG.post.ports get the same
# as TAG.ports for the packets captured before AT, and from half a second
# after AT on (what sat in a qdisc at AT has left by then)
cap_count()
{
	local tag=$1 at=$2 n f

	for f in ports pre.ports post.ports span; do
		: >"$IRN_OUT/$tag.$f"
	done
	for n in "${NICS[@]}"; do
		# "TIME IP 10.77.0.1.49663 > 10.77.0.2.4791: UDP, length N"
		{ tcpdump -r "$CAPDIR/$tag.$n.pcap" -nn -tt 2>>"$IRN_OUT/$tag.$n.tcpdump" || true; } |
			awk -v nic="$n" -v at="$at" -v out="$IRN_OUT/$tag" '
				$2 == "IP" {
					k = split($3, f, ".")
					p = f[k]
					all[p]++
					if (at != "") {
						if ($1 + 0 < at + 0)
							pre[p]++
						else if ($1 + 0 >= at + 0.5)
							post[p]++
					}
					if (first == "")
						first = $1
					last = $1
				}
				END {
					for (p in all)
						print nic, p, all[p] >>(out ".ports")
					for (p in pre)
						print nic, p, pre[p] >>(out ".pre.ports")
					for (p in post)
						print nic, p, post[p] >>(out ".post.ports")
					if (first != "")
						print nic, first, last >>(out ".span")
				}'
	done
	irn_log "[$tag] source ports to $IRN_RDMA_PORT (NIC port packets): $(tr '\n' ';' <"$IRN_OUT/$tag.ports")"
	[[ -z $at ]] ||
		irn_log "[$tag] from 0.5 s after $at: $(tr '\n' ';' <"$IRN_OUT/$tag.post.ports")"
}

# cap_drops TAG: CAP_DROPPED[TAG] becomes the packets the captures lost
# (tcpdump's "N packets dropped by kernel" as it exits)
cap_drops()
{
	local n l d=0

	for n in "${NICS[@]}"; do
		while read -r l; do
			if [[ $l =~ ^([0-9]+)\ packets\ dropped\ by\ kernel ]]; then
				d=$((d + BASH_REMATCH[1]))
			fi
		done <"$IRN_OUT/$1.$n.tcpdump"
	done
	CAP_DROPPED[$1]=$d
}

# ports TAG [NIC]: the distinct source ports (on NIC) in TAG.ports
ports()
{
	awk -v nic="${2:-}" 'nic == "" || $1 == nic { print $2 }' "$IRN_OUT/$1.ports" | sort -u
}

# pkts TAG [NIC]: the packets (on NIC) in TAG.ports
pkts()
{
	awk -v nic="${2:-}" 'nic == "" || $1 == nic { s += $3 } END { print s + 0 }' "$IRN_OUT/$1.ports"
}

# captured TAG MIB: TAG's capture can be judged: tcpdump lost no packet
# and holds at least one per 4 KiB of the MIB MiB moved
captured()
{
	local got

	got=$(pkts "$1")
	if ((${CAP_DROPPED[$1]:-0} > 0)); then
		bad "$1" "the capture lost ${CAP_DROPPED[$1]} packets: its counts prove nothing"
	elif ((got < $2 * 256)); then
		bad "$1" "$got irn packets captured for $2 MiB: the capture missed packets"
	else
		return 0
	fi
	return 1
}

# cables_of TAG: CABLE[PORT] becomes 1 or 2, the cable TAG's capture saw
# PORT on, or "both"
declare -A CABLE=()
cables_of()
{
	local nic port c

	CABLE=()
	while read -r nic port _; do
		if [[ $nic == "${NICS[0]}" ]]; then c=1; else c=2; fi
		if [[ -n ${CABLE[$port]:-} && ${CABLE[$port]} != "$c" ]]; then
			CABLE[$port]=both
		else
			CABLE[$port]=$c
		fi
	done <"$IRN_OUT/$1.ports"
}

# ---- paths_state ----------------------------------------------------------
# poll_start TAG: a's paths_state every POLL seconds, the last reading
# with rows ("# at TIME" first) to TAG.paths as the poller stops (the QP
# goes with its test), and "TIME BYTES" of bond0's sent bytes to
# TAG.rate; builtins only, no fork a reading
POLL_PID=
poll_start()
{
	local tag=$1

	rm -f "$IRN_OUT/$tag.paths" "$CAPDIR/$tag.paths" "$CAPDIR/$tag.rate"
	(
		last=()
		trap '((${#last[@]} == 0)) || printf "%s\n" "${last[@]}" >"$CAPDIR/$tag.paths"; exit 0' TERM
		while :; do
			t=${EPOCHREALTIME/,/.}
			rows=()
			mapfile -t rows 2>/dev/null <"$DBG/paths_state" || true
			((${#rows[@]} < 2)) || last=("# at $t" "${rows[@]}")
			read -r b 2>/dev/null <"$TXB" || b=-
			printf '%s %s\n' "$t" "$b" >>"$CAPDIR/$tag.rate"
			irn_nap "$POLL"
		done
	) &
	POLL_PID=$!
}

# poll_stop TAG: stop it; TAG.paths and TAG.rate go to IRN_OUT
poll_stop()
{
	if [[ -n $POLL_PID ]]; then
		kill -TERM "$POLL_PID" 2>/dev/null || true
		reap "$POLL_PID"
	fi
	POLL_PID=
	cp "$CAPDIR/$1.rate" "$IRN_OUT/" 2>/dev/null || true
	[[ ! -e $CAPDIR/$1.paths ]] || cp "$CAPDIR/$1.paths" "$IRN_OUT/"
}

# path_rows TAG: the rows of the QP that sent most in TAG.paths:
# "path sport state sent acked lost timeouts probes"
path_rows()
{
	[[ -s $IRN_OUT/$1.paths ]] || return 0
	awk '$1 ~ /^[0-9]+$/ { sent[$1] += $5; row[$1] = row[$1] $2 " " $3 " " $4 " " $5 " " $6 " " $7 " " $8 " " $9 "\n" }
		END { for (q in sent) if (!best || sent[q] > sent[best]) best = q; printf "%s", row[best] }' \
		"$IRN_OUT/$1.paths"
}

# reading_at VAR TAG: the time of TAG.paths' reading, 0 if none
# shellcheck disable=SC2034 # VAR is the caller's, through a nameref
reading_at()
{
	local -n at_=$1
	local h=

	at_=0
	[[ -s $IRN_OUT/$2.paths ]] || return 0
	read -r h <"$IRN_OUT/$2.paths"
	[[ $h != '# at '* ]] || at_=${h#'# at '}
}

# ---- transfers ------------------------------------------------------------
# mid_transfer PID MIB: wait until bond0 sent a quarter of MIB MiB (the
# headers make it a quarter of the payload or a little less), or PID
# ended, or LIMIT seconds passed; reads and naps, no fork
mid_transfer()
{
	local b0 b i want=$(($2 * 1048576 / 4))

	read -r b0 <"$TXB"
	for ((i = 0; i < LIMIT * 10; i++)); do
		read -r b <"$TXB"
		((b - b0 < want)) || return 0
		kill -0 "$1" 2>/dev/null || return 0
		irn_nap 0.1
	done
}

# serve TAG [DEV]: irn_verify's server for one transfer (guest b); its
# exit status goes to the peer
serve()
{
	local rc=0 dev=${2:-$IRN_DEV} gidx=${SERVE_GIDX:-$IRN_GIDX}

	timeout -k 5 $((LIMIT + 10)) "$VERIFY" -d "$dev" -g "$gidx" -p "$((PORT + RUN))" \
		>"$IRN_OUT/$1.server.log" 2>&1 || rc=$?
	irn_put "$1.server" "$rc"
}

# client TAG MIB: irn_verify's client (guest a): MIB writes of 1 MiB.
# The local ACK timeout is 4.096 us * 2^18, about 1 s, so 7 retries last
# about 8 s: the pulled case spoils one end of cable 2 before the other,
# and until b's bond drops its eth1 every reply b hashes onto cable 2 is
# lost (irn_verify's default, 2^14 or 67 ms, gives up after half a
# second of that, as any RC transport would).
client()
{
	timeout -k 5 "$LIMIT" "$VERIFY" -d "$IRN_DEV" -g "$IRN_GIDX" \
		-p "$((PORT + RUN))" -t rc --data-only --only rc.write.1048576 \
		-n "$2" --ack-timeout 18 --timeout $((LIMIT / 2)) "$IRN_PEER_IP" \
		>"$IRN_OUT/$1.client.log" 2>&1
}

# verified TAG CLIENT_RC: both sides of the transfer passed (irn_verify
# checks every byte and every completion: an error completion fails it)
verified()
{
	local src

	src=$(irn_get "$1.server" $((LIMIT + 30)))
	if [[ $2 != 0 || $src != 0 ]]; then
		bad "$1" "irn_verify: client exit $2, server exit $src (an error completion, a bad byte or a timeout)"
		grep -E '^(FAIL|# )' "$IRN_OUT/$1.client.log" | head -n 10 || true
		return 1
	fi
	grep -q '^ok rc.write.1048576/' "$IRN_OUT/$1.client.log" || {
		bad "$1" "irn_verify passed without checking rc.write.1048576"
		return 1
	}
	irn_log "[$1] verified: every byte and completion checked"
	return 0
}

# transfer TAG MIB: one verified transfer, captured and polled on a.
# Sets CRC (the client's exit status) and TX0, TX1 (each NIC's frames
# before and after) on a.
transfer()
{
	local tag=$1

	RUN=$((RUN + 1))
	irn_barrier "$tag-go"
	if [[ $IRN_ROLE == b ]]; then
		serve "$tag"
		irn_barrier "$tag-end"
		return 0
	fi
	cap_start "$tag"
	poll_start "$tag"
	counter_snap "$IRN_OUT/$tag.before"
	nic_tx 'TX0[0]' eth0
	nic_tx 'TX0[1]' eth1
	CRC=0
	client "$tag" "$2" || CRC=$?
	nic_tx 'TX1[0]' eth0
	nic_tx 'TX1[1]' eth1
	counter_snap "$IRN_OUT/$tag.after"
	poll_stop "$tag"
	cap_stop "$tag"
	irn_barrier "$tag-end"
}

# cut_transfer TAG HOW: a transfer of 3 * MIB MiB on a; a quarter of the
# way through, the peer hears of it (the value TAG.cut, for a peer that
# spoils its end too) and "$MPNET" HOW 2 spoils cable 2 at a's end; the
# time just after goes to CUT.  Sets CRC.
cut_transfer()
{
	local tag=$1 how=$2 cpid

	# what takes seconds under TCG happens before the transfer starts
	[[ $how != blackhole ]] || "$MPNET" blackhole-ready 2 ||
		irn_fail "mpnet.sh blackhole-ready 2 failed"
	cap_start "$tag"
	poll_start "$tag"
	counter_snap "$IRN_OUT/$tag.before"
	CRC=0
	client "$tag" $((3 * MIB)) &
	cpid=$!
	mid_transfer "$cpid" $((3 * MIB))
	"$MPNET" "$how" 2 || irn_fail "mpnet.sh $how 2 failed"
	now CUT
	irn_log "[$tag] cable 2: $how at a's end at $CUT"
	# Only now may the peer spoil its end (pulled: its eth1 down, which
	# stops it draining cable 2).  Guest a is the listening end of every
	# cable, and QEMU's stream netdev writes to an accepted connection
	# with a blocking sendmsg() under the big lock: frames a still sends
	# into a cable whose far end stopped reading freeze all of guest a
	# until that end reads again (its watchdog then reports one "soft
	# lockup" as long as the freeze).  With a's end down first, a sends
	# nothing more into cable 2; the nap lets b take what a's ring held.
	irn_nap 0.3
	irn_put "$tag.cut" 1
	wait "$cpid" || CRC=$?
	counter_snap "$IRN_OUT/$tag.after"
	poll_stop "$tag"
	cap_stop "$tag" "$CUT"
}

# ---- pinned: paths=1, one port, one cable ------------------------------------
# Fails if a QP with spraying off varied its port or listed a path set,
# or if the bed spread one port over both cables.
judge_pinned()
{
	local -a all tx got
	local i other

	mapfile -t all < <(ports pinned)
	for i in 0 1; do
		tx[i]=$((TX1[i] - TX0[i]))
		got[i]=$(pkts pinned "${NICS[i]}")
	done
	other=$((got[0] > 0 ? 1 : 0))
	if [[ ${#all[@]} -ne 1 ]]; then
		bad pinned "${#all[@]} source ports (${all[*]}), expected 1 with paths=1"
	elif ((got[0] > 0 && got[1] > 0)); then
		bad pinned "one port on both cables (${got[0]} and ${got[1]} packets): the bond does not hash by port"
	elif ((tx[other] * 20 > tx[0] + tx[1])); then
		# the other cable: at most ARP and irn_verify's TCP
		bad pinned "${NICS[other]} sent ${tx[other]} of $((tx[0] + tx[1])) frames with paths=1"
	elif [[ -s $IRN_OUT/pinned.paths ]]; then
		bad pinned "paths_state lists paths for a QP of paths=1 (pinned.paths)"
	else
		irn_log "ok [pinned]: port ${all[0]}, irn packets ${got[0]}/${got[1]} on eth0/eth1, frames ${tx[0]}/${tx[1]}"
	fi
}

knobs irn 1
transfer pinned "$MIB"
if [[ $IRN_ROLE == a ]] && verified pinned "$CRC" && captured pinned "$MIB"; then
	judge_pinned
fi

# ---- sprayed: paths=N over both cables -----------------------------------
# Fails if the QP sends from fewer ports than paths, if a port or a cable
# carries (almost) nothing, or if paths_state does not show every path
# used on the ports the wire shows.
judge_sprayed()
{
	local -a all
	local p0 p1 both thin rows nrows unused state_ports wire_ports

	mapfile -t all < <(ports sprayed)
	p0=$(pkts sprayed eth0)
	p1=$(pkts sprayed eth1)
	both=$(comm -12 <(ports sprayed eth0) <(ports sprayed eth1) | wc -l)
	# the ports with under a quarter of an even share
	thin=$(awk -v min=$(((p0 + p1) / (4 * NPATHS))) '{ c[$2] += $3 }
		END { for (p in c) if (c[p] < min) printf " %s:%d", p, c[p] }' "$IRN_OUT/sprayed.ports")
	rows=$(path_rows sprayed)
	nrows=$(grep -c . <<<"$rows" || true)
	unused=$(awk '$4 == 0' <<<"$rows" | wc -l)
	state_ports=$(awk '{ print $2 }' <<<"$rows" | sort -u | tr '\n' ' ')
	wire_ports=$(printf '%s\n' "${all[@]}" | sort -u | tr '\n' ' ')
	irn_log "[sprayed] paths_state (path sport state sent acked lost timeouts probes):"
	printf '%s\n' "$rows"
	if [[ ${#all[@]} -ne $NPATHS ]]; then
		bad sprayed "${#all[@]} source ports (${all[*]}), expected $NPATHS"
	elif ((both > 0)); then
		bad sprayed "$both ports on both cables: the bond does not hash by port"
	elif ((p0 * 100 < 15 * (p0 + p1) || p1 * 100 < 15 * (p0 + p1))); then
		bad sprayed "irn packets $p0 on eth0, $p1 on eth1: a cable under 15%"
	elif [[ -n $thin ]]; then
		bad sprayed "ports under a quarter of an even share ($(((p0 + p1) / NPATHS)) packets):$thin"
	elif ((nrows != NPATHS || unused > 0)); then
		bad sprayed "paths_state shows $nrows paths, $unused without a packet sent"
	elif [[ $state_ports != "$wire_ports" ]]; then
		bad sprayed "paths_state's ports ($state_ports) are not the wire's ($wire_ports)"
	else
		irn_log "ok [sprayed]: $NPATHS ports, irn packets $p0/$p1 on eth0/eth1, frames $((TX1[0] - TX0[0]))/$((TX1[1] - TX0[1]))"
	fi
}

knobs irn "$NPATHS"
transfer sprayed "$MIB"
if [[ $IRN_ROLE == a ]] && verified sprayed "$CRC" && captured sprayed "$MIB"; then
	judge_sprayed
fi

# ---- lossy: 5% loss on cable 2 ------------------------------------------
# Fails if the losses are not charged to cable 2's paths (per-path loss
# accounting), or if no path ever left ACTIVE.  The bond's hash puts
# paths unevenly on the cables (3 and 1 of 4), so each cable's losses
# are a rate: lost and timed out per packet sent on its paths.
judge_lossy()
{
	local rows path sport sent lost tmo c r weak='' r1 r2 s1 s2
	local -a s=(0 0 0) l=(0 0 0) n=(0 0 0)

	rows=$(path_rows lossy)
	irn_log "[lossy] paths_state (path sport state sent acked lost timeouts probes):"
	printf '%s\n' "$rows"
	[[ -n $rows ]] || { bad lossy "no paths_state reading of the QP"; return 0; }
	cables_of lossy
	while read -r path sport _ sent _ lost tmo _; do
		((sent > 0)) || continue
		c=${CABLE[$sport]:-none}
		if [[ $c == both ]]; then
			bad lossy "path $path's port $sport on both cables: the bond does not hash by port"
			return 0
		elif [[ $c == none ]]; then
			bad lossy "path $path's port $sport sent $sent packets, none on the wire"
			return 0
		fi
		s[c]=$((s[c] + sent))
		l[c]=$((l[c] + lost + tmo))
		n[c]=$((n[c] + 1))
	done <<<"$rows"
	if ((n[1] == 0 || n[2] == 0)); then
		bad lossy "every path that sent is on cable $((n[1] > 0 ? 1 : 2)): no two cables to compare (IRN_MP_PATHS=$NPATHS)"
		return 0
	fi
	r1=$((l[1] * 1000000 / s[1]))
	r2=$((l[2] * 1000000 / s[2]))
	pct s1 "$r1"
	pct s2 "$r2"
	# each path of cable 2 with a sample to judge (none lost in 200 at
	# 5% happens once in 30000) loses more than cable 1's paths together
	while read -r path sport _ sent _ lost tmo _; do
		if [[ ${CABLE[$sport]:-} != 2 ]] || ((sent < 200)); then
			continue
		fi
		r=$(((lost + tmo) * 1000000 / sent))
		((r > r1)) || { pct r "$r"; weak+=" path $path ($sport): $r of $sent;"; }
	done <<<"$rows"
	growth lossy
	if ((r2 < 10000)); then
		bad lossy "cable 2's ${n[2]} paths lost $s2 of their ${s[2]} packets, under 1% at netem's 5%"
	elif ((r2 < 2 * r1)); then
		bad lossy "per packet sent, cable 2's paths lost $s2, cable 1's $s1: not twice as much"
	elif [[ -n $weak ]]; then
		bad lossy "cable 2's paths that lost no more than cable 1's $s1:$weak"
	elif ((GREW[path_changes] == 0)); then
		bad lossy "no path changed state (path_changes +0) at 5% loss"
	else
		irn_log "ok [lossy]: lost $s2 of ${s[2]} on cable 2's ${n[2]} paths, $s1 of ${s[1]} on cable 1's ${n[1]}; path_changes +${GREW[path_changes]}, paths_down +${GREW[paths_down]}"
	fi
}

"$MPNET" shape 2 netem loss 5% || irn_fail "netem on cable 2 failed"
transfer lossy "$MIB"
"$MPNET" shape 2 none
if [[ $IRN_ROLE == a ]] && verified lossy "$CRC" && captured lossy "$MIB"; then
	judge_lossy
fi

# ---- blackhole: cable 2 drops a's packets from mid-transfer ----------------
# Fails if the QP did not use both cables before (no path to lose, or
# no other path to move to), if the QP errs (retry exceeded: resends
# kept going to the dead paths), or if no path went down, no resend
# moved to another path, or cable 2's paths are still in use a second
# after the blackhole.
judge_blackhole()
{
	local -a on2
	local pre1 pre2 post2 post1 rows at live='' sport state

	pre1=$(pkts blackhole.pre eth0)
	pre2=$(pkts blackhole.pre eth1)
	post2=$(pkts blackhole.post eth1)
	post1=$(pkts blackhole.post eth0)
	mapfile -t on2 < <(ports blackhole.pre eth1)
	rows=$(path_rows blackhole)
	irn_log "[blackhole] paths_state (path sport state sent acked lost timeouts probes):"
	printf '%s\n' "$rows"
	growth blackhole
	reading_at at blackhole
	if ((pre2 < 100)); then
		bad blackhole "cable 2 carried $pre2 irn packets before the blackhole: no path of it to lose, the case proves nothing"
		return 0
	elif ((pre1 < 100)); then
		bad blackhole "cable 1 carried $pre1 irn packets before the blackhole: the QP did not spray over both cables"
		return 0
	elif ((post2 > 0)); then
		bad blackhole "cable 2 carried $post2 irn packets from half a second after the blackhole on: the bed's blackhole leaks"
		return 0
	elif ((post1 == 0)); then
		bad blackhole "no irn packet after the blackhole: the transfer was over, nothing to recover"
		return 0
	elif ((GREW[paths_down] == 0 || GREW[path_resends_moved] == 0)); then
		bad blackhole "paths_down +${GREW[paths_down]}, path_resends_moved +${GREW[path_resends_moved]}: the dead paths were not found, or their packets did not move"
		return 0
	fi
	for sport in "${on2[@]}"; do
		state=$(awk -v p="$sport" '$2 == p { print $3 }' <<<"$rows")
		if [[ -z $state ]]; then
			bad blackhole "paths_state lists no path on port $sport, which cable 2 carried"
			return 0
		fi
		[[ $state == down || $state == probing ]] || live+=" $sport:$state"
	done
	if ! awk -v a="$at" -v c="$CUT" 'BEGIN { exit !(a - c >= 1) }'; then
		irn_log "[blackhole] the last reading came within a second of the blackhole: path states not judged"
	elif [[ -n $live ]]; then
		bad blackhole "cable 2's paths still in use a second after it died:$live"
		return 0
	fi
	irn_log "ok [blackhole]: cable 2 carried $pre2 irn packets before, cable 1 $post1 after; paths_down +${GREW[paths_down]}, path_resends_moved +${GREW[path_resends_moved]}, timeouts +${GREW[timeouts]}; bond0 bytes over time in blackhole.rate"
}

RUN=$((RUN + 1))
irn_barrier blackhole-go
if [[ $IRN_ROLE == b ]]; then
	serve blackhole
else
	cut_transfer blackhole blackhole
	"$MPNET" shape 2 none
fi
irn_barrier blackhole-end
if [[ $IRN_ROLE == a ]] && verified blackhole "$CRC" &&
   captured blackhole $((3 * MIB)); then
	judge_blackhole
fi

# ---- pulled: cable 2 down at both ends mid-transfer --------------------------
# Fails if the QP did not use both cables before the pull (nothing to
# pull, or a QP on one port, which any bond moves), on an error
# completion or a corrupted byte while the bonds move cable 2's ports
# onto cable 1, if the transfer was over at the pull, or if a port cable
# 2 carried never came back on cable 1 though the transfer went on for
# 3 s.
judge_pulled()
{
	local pre1 pre2 post2 post1 missing tail_ms

	pre1=$(pkts pulled.pre eth0)
	pre2=$(pkts pulled.pre eth1)
	post2=$(pkts pulled.post eth1)
	post1=$(pkts pulled.post eth0)
	missing=$(comm -23 <(ports pulled.pre eth1) <(ports pulled.post eth0) | tr '\n' ' ')
	# how long cable 1 carried the transfer after the pull
	tail_ms=$(awk -v c="$CUT" '$1 == "eth0" { printf "%d", ($3 - c) * 1000 }' "$IRN_OUT/pulled.span")
	growth pulled
	if ((pre2 < 100)); then
		bad pulled "cable 2 carried $pre2 irn packets before the pull: it was not in use, the pull proves nothing"
	elif ((pre1 < 100)); then
		bad pulled "cable 1 carried $pre1 irn packets before the pull: the QP did not spray over both cables"
	elif ((post2 > 0)); then
		bad pulled "a sent $post2 irn packets on eth1 half a second after setting it down or later"
	elif ((post1 < 100)); then
		bad pulled "cable 1 carried $post1 irn packets after the pull: the transfer was (nearly) over"
	elif [[ -n $missing ]] && ((${tail_ms:-0} >= 3000)); then
		bad pulled "cable 2's ports ${missing}never came back on cable 1 in the $tail_ms ms the transfer went on"
	else
		[[ -z $missing ]] ||
			irn_log "[pulled] ports ${missing}not back on cable 1 within the ${tail_ms:-0} ms left: not judged"
		irn_log "ok [pulled]: cable 2 carried $pre2 irn packets before, cable 1 $post1 after (for $tail_ms ms); paths_down +${GREW[paths_down]}, path_resends_moved +${GREW[path_resends_moved]}"
	fi
}

RUN=$((RUN + 1))
irn_barrier pulled-go
if [[ $IRN_ROLE == b ]]; then
	serve pulled &
	spid=$!
	irn_await pulled.cut $((LIMIT + 30))
	"$MPNET" cut 2 || irn_fail "mpnet.sh cut 2 failed"
	wait "$spid" || true
else
	cut_transfer pulled cut
fi
irn_barrier pulled-end
# b's end first, for the same reason: b drains cable 2 before a's end
# can send into it again
if [[ $IRN_ROLE == b ]]; then
	"$MPNET" mend 2 || irn_fail "cable 2 did not come back"
	irn_put pulled.mended 1
else
	irn_await pulled.mended 60
	"$MPNET" mend 2 || irn_fail "cable 2 did not come back"
fi
irn_barrier pulled-mended
if [[ $IRN_ROLE == a ]] && verified pulled "$CRC" &&
   captured pulled $((3 * MIB)); then
	judge_pulled
fi

# one_port TAG WHAT: TAG's QP sent from one source port, toward WHAT
one_port()
{
	local -a all

	mapfile -t all < <(ports "$1")
	if [[ ${#all[@]} -ne 1 ]]; then
		bad "$1" "${#all[@]} source ports (${all[*]}) toward $2"
	else
		irn_log "ok [$1]: one source port, ${all[0]}"
	fi
}

# ---- gbn-peer: no IRN on b, no spraying ----------------------------------
# Fails if a QP sprays toward a peer that places in order only.
if [[ $IRN_ROLE == a ]]; then knobs auto "$NPATHS"; else knobs gbn "$NPATHS"; fi
transfer gbn-peer 2
if [[ $IRN_ROLE == a ]] && verified gbn-peer "$CRC" && captured gbn-peer 2; then
	one_port gbn-peer "a gbn peer"
fi

# ---- rxe-peer: stock rdma_rxe on b ---------------------------------------
# Fails if irn sprays toward a standard RoCEv2 peer.
if [[ $IRN_ROLE == b ]]; then
	rdma link delete "$IRN_DEV" || irn_fail "rdma link delete $IRN_DEV failed"
	irn_rmmod || irn_fail "cannot unload $IRN_MODULE for rdma_rxe"
	modprobe crc32_generic 2>/dev/null || true
	modprobe rdma_rxe || irn_fail "modprobe rdma_rxe failed"
	irn_defer rmmod rdma_rxe
	rdma link add rxe0 type rxe netdev bond0 || irn_fail "rdma link add rxe0 failed"
	irn_defer rdma link delete rxe0
	irn_wait_for 10 "RoCE v2 GID of $IRN_SELF_IP on rxe0" irn_gid_index rxe0 >/dev/null
	SERVE_GIDX=$(irn_gid_index rxe0)
fi
RUN=$((RUN + 1))
irn_barrier rxe-peer-go
if [[ $IRN_ROLE == b ]]; then
	serve rxe-peer rxe0
else
	cap_start rxe-peer
	CRC=0
	client rxe-peer 2 || CRC=$?
	cap_stop rxe-peer
fi
irn_barrier rxe-peer-end
if [[ $IRN_ROLE == a ]] && verified rxe-peer "$CRC" && captured rxe-peer 2; then
	one_port rxe-peer "stock rxe"
fi
if [[ $IRN_ROLE == b ]]; then
	rdma link delete rxe0 || true
	rmmod rdma_rxe || irn_fail "cannot unload rdma_rxe"
fi
irn_barrier finished

irn_dmesg_check multipath
[[ ${#FAILED[@]} -eq 0 ]] || irn_fail "cases failed: ${FAILED[*]}"
[[ $IRN_ROLE == b ]] || irn_log "PASS: pinned sprayed lossy blackhole pulled gbn-peer rxe-peer"
