#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 cables=2 timeout=900 ci=480
#
# Multipath (issue 36) on the two-cable bed: two guests joined by two
# cables (scripts/vm.sh --cables 2), bonded at each end into bond0
# (scripts/guest/mpnet.sh: balance-xor, layer3+4 hash, so that each
# packet takes the cable its UDP ports hash to), irn0 on bond0.  Guest a
# runs irn_verify's client (the requester: RC writes of 1 MiB, every
# byte and completion checked), guest b its server.  A tcpdump on each
# of a's NICs records the UDP source ports of what a sends to 4791, and
# a's paths_state (debugfs) is read every 0.2 s while the QP lives.
# Each case is named and fails on its own; the test fails if any did.
#
#   pinned      paths=1: one source port, one cable carries every irn
#               packet (the other none, and under 5% of a's frames)
#   sprayed     paths=IRN_MP_PATHS (4): as many ports as paths, each on
#               one cable only, each cable at least 15% of the irn
#               packets (the bond's hash puts 3 of 4 paths on one
#               cable: 25%), paths_state lists every path with packets
#               sent and the ports the wire shows
#   lossy       netem loss 5% on cable 2 at both ends: verified, the
#               paths on cable 2 lost packets and lost more than those
#               on cable 1, some path changed state (path_changes)
#   blackhole   cable 2 drops every RoCEv2 packet a sends on it (its
#               carrier up: the bond keeps hashing onto it; mpnet.sh
#               blackhole) from the middle of a transfer: verified, no
#               error completion,
#               paths_down and path_resends_moved grew, and cable 2's
#               paths are down or probing once the QP had a second to
#               see it; a's bond0 bytes every 0.2 s go to
#               blackhole.rate for the recovery's eye
#   pulled      cable 2 set down at both ends in the middle of a
#               transfer (the bonds take it out of their hash at once):
#               verified, a sends nothing on it afterwards
#   gbn-peer    paths=IRN_MP_PATHS, mode auto on a, gbn on b (IRN never
#               negotiated): one source port
#   rxe-peer    the same against stock rdma_rxe on b: one source port
#
# Knobs: IRN_MP_PATHS (paths of the sprayed cases, default 4),
# IRN_MP_MIB (MiB a transfer moves, default 8; the blackhole and pulled
# cases move three times as much).  Run: make check T=multipath.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_shared
irn_require_cmd tcpdump timeout awk
[[ $IRN_DRIVER == irn ]] || irn_skip "multipath exists in irn only"
[[ ${IRN_CABLES:-1} == 2 ]] ||
	irn_skip "needs two cables (scripts/vm.sh --cables 2; the header's cables=2)"

MPNET=$(cd "$(dirname "${BASH_SOURCE[0]}")/../guest" && pwd)/mpnet.sh
VERIFY=$(irn_tool irn_verify)
NPATHS=${IRN_MP_PATHS:-4}
MIB=${IRN_MP_MIB:-8}
DBG=/sys/kernel/debug/irn/$IRN_DEV
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

# knobs MODE PATHS: for the QPs created from now on
knobs()
{
	echo "$1" >"$DBG/mode"
	echo "$2" >"$DBG/paths"
	[[ $(cat "$DBG/mode") == "$1" && $(cat "$DBG/paths") == "$2" ]] ||
		irn_fail "cannot set mode $1 and paths $2 (read back $(cat "$DBG/mode"), $(cat "$DBG/paths"))"
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

# grew BEFORE AFTER NAME: how much NAME grew
grew()
{
	local b a

	b=$(awk -v n="$3" '$1 == n { print $2 }' "$1")
	a=$(awk -v n="$3" '$1 == n { print $2 }' "$2")
	echo $((${a:-0} - ${b:-0}))
}

# nic_tx NIC: frames NIC sent so far
nic_tx() { cat "/sys/class/net/$1/statistics/tx_packets"; }

# cap_start TAG: a tcpdump on each NIC of what this guest sends to 4791
CAP_PIDS=()
cap_start()
{
	local n

	CAP_PIDS=()
	for n in "${NICS[@]}"; do
		tcpdump -i "$n" -p -nn -s 64 -B 4096 -w "$CAPDIR/$1.$n.pcap" \
			"udp dst port $IRN_RDMA_PORT and src host $IRN_SELF_IP" \
			2>"$IRN_OUT/$1.$n.tcpdump" &
		CAP_PIDS+=("$!")
	done
	for n in "${NICS[@]}"; do
		irn_wait_for 20 "tcpdump on $n" grep -q 'listening on' "$IRN_OUT/$1.$n.tcpdump"
	done
}

# cap_stop TAG: stop the captures; TAG.ports gets "NIC PORT PACKETS" lines
cap_stop()
{
	local pid n

	sleep 0.5
	for pid in "${CAP_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
	done
	for pid in "${CAP_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	: >"$IRN_OUT/$1.ports"
	for n in "${NICS[@]}"; do
		# "TIME IP 10.77.0.1.49663 > 10.77.0.2.4791: UDP, length N"
		tcpdump -r "$CAPDIR/$1.$n.pcap" -nn 2>/dev/null |
			awk -v nic="$n" '$2 == "IP" { k = split($3, f, "."); c[f[k]]++ }
				END { for (p in c) print nic, p, c[p] }' >>"$IRN_OUT/$1.ports"
	done
	irn_log "[$1] source ports to $IRN_RDMA_PORT (NIC port packets): $(tr '\n' ';' <"$IRN_OUT/$1.ports")"
}

# ports TAG [NIC]: the distinct source ports (on NIC)
ports()
{
	awk -v nic="${2:-}" 'nic == "" || $1 == nic { print $2 }' "$IRN_OUT/$1.ports" | sort -u
}

# pkts TAG [NIC]: the packets captured (on NIC)
pkts()
{
	awk -v nic="${2:-}" 'nic == "" || $1 == nic { s += $3 } END { print s + 0 }' "$IRN_OUT/$1.ports"
}

# poll_start TAG: a's paths_state every 0.2 s into TAG.paths (the last
# reading with rows: the QP goes with its test) and "SECONDS BYTES" of
# bond0's sent bytes into TAG.rate
POLL_PID=
poll_start()
{
	local tag=$1

	(
		while :; do
			s=$(cat "$DBG/paths_state" 2>/dev/null) || s=
			now=$(cut -d' ' -f1 /proc/uptime)
			if [[ $(wc -l <<<"$s") -gt 1 ]]; then
				printf '# at %s\n%s\n' "$now" "$s" >"$CAPDIR/$tag.paths.tmp"
				mv "$CAPDIR/$tag.paths.tmp" "$CAPDIR/$tag.paths"
			fi
			echo "$now $(cat /sys/class/net/bond0/statistics/tx_bytes)" >>"$CAPDIR/$tag.rate"
			sleep 0.2
		done
	) &
	POLL_PID=$!
}

# poll_stop TAG: stop it; TAG.paths and TAG.rate go to IRN_OUT
poll_stop()
{
	[[ -z $POLL_PID ]] || { kill "$POLL_PID" 2>/dev/null; wait "$POLL_PID" 2>/dev/null; } || true
	POLL_PID=
	cp "$CAPDIR/$1.paths" "$CAPDIR/$1.rate" "$IRN_OUT/" 2>/dev/null || true
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

# mid_transfer PID: wait until cable 2 has carried 2000 more of a's
# frames (a sixth to a half of a 3 * IRN_MP_MIB transfer, as 1 or 3 of 4
# paths hash onto it), or PID ended, or a minute passed
mid_transfer()
{
	local tx0 i

	tx0=$(nic_tx eth1)
	for ((i = 0; i < 600; i++)); do
		(($(nic_tx eth1) - tx0 < 2000)) || return 0
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
}

# serve TAG [DEV]: irn_verify's server for one transfer (guest b); its
# exit status goes to the peer
serve()
{
	local rc=0 dev=${2:-$IRN_DEV} gidx=${SERVE_GIDX:-$IRN_GIDX}

	timeout -k 5 400 "$VERIFY" -d "$dev" -g "$gidx" -p "$((PORT + RUN))" \
		>"$IRN_OUT/$1.server.log" 2>&1 || rc=$?
	irn_put "$1.server" "$rc"
}

# client TAG MIB: irn_verify's client (guest a): MIB writes of 1 MiB
client()
{
	timeout -k 5 400 "$VERIFY" -d "$IRN_DEV" -g "$IRN_GIDX" \
		-p "$((PORT + RUN))" -t rc --data-only --only rc.write.1048576 \
		-n "$2" --timeout 120 "$IRN_PEER_IP" >"$IRN_OUT/$1.client.log" 2>&1
}

# verified TAG CLIENT_RC: both sides of the transfer passed (irn_verify
# checks every byte and every completion: an error completion fails it)
verified()
{
	local src

	src=$(irn_get "$1.server" 420)
	if [[ $2 != 0 || $src != 0 ]]; then
		bad "$1" "irn_verify: client exit $2, server exit $src"
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
# Sets CRC (the client's exit status) on a.
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
	TX0=("$(nic_tx eth0)" "$(nic_tx eth1)")
	CRC=0
	client "$tag" "$2" || CRC=$?
	TX1=("$(nic_tx eth0)" "$(nic_tx eth1)")
	counter_snap "$IRN_OUT/$tag.after"
	poll_stop "$tag"
	cap_stop "$tag"
	irn_barrier "$tag-end"
}

# ---- pinned: paths=1, one port, one cable ------------------------------------
# Fails if a QP with spraying off varied its port, or if the bed spread
# one port over both cables.
knobs irn 1
transfer pinned "$MIB"
if [[ $IRN_ROLE == a ]] && verified pinned "$CRC"; then
	mapfile -t all < <(ports pinned)
	if [[ ${#all[@]} -ne 1 ]]; then
		bad pinned "${#all[@]} source ports (${all[*]}), expected 1 with paths=1"
	else
		for i in 0 1; do
			tx[i]=$((TX1[i] - TX0[i]))
			got[i]=$(pkts pinned "${NICS[i]}")
		done
		# the cable the port hashes to carries it all
		if ((got[0] > 0 && got[1] > 0)); then
			bad pinned "one port on both cables (${got[0]} and ${got[1]} packets): the bond does not hash by port"
		elif ((got[0] + got[1] == 0)); then
			bad pinned "no irn packet captured"
		else
			other=$((got[0] > 0 ? 1 : 0))
			# the other cable: at most ARP and irn_verify's TCP
			if ((tx[other] * 20 > tx[0] + tx[1])); then
				bad pinned "${NICS[other]} sent ${tx[other]} of $((tx[0] + tx[1])) frames with paths=1"
			else
				irn_log "ok [pinned]: port ${all[0]}, irn packets ${got[0]}/${got[1]} on eth0/eth1, frames ${tx[0]}/${tx[1]}"
			fi
		fi
	fi
fi

# ---- sprayed: paths=N over both cables -----------------------------------
# Fails if the QP sends from fewer ports than paths, if a cable carries
# (almost) nothing, or if paths_state does not show every path used.
knobs irn "$NPATHS"
transfer sprayed "$MIB"
if [[ $IRN_ROLE == a ]] && verified sprayed "$CRC"; then
	mapfile -t all < <(ports sprayed)
	p0=$(pkts sprayed eth0) p1=$(pkts sprayed eth1)
	both=$(comm -12 <(ports sprayed eth0) <(ports sprayed eth1) | wc -l)
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
	elif ((nrows != NPATHS || unused > 0)); then
		bad sprayed "paths_state shows $nrows paths, $unused without a packet sent"
	elif [[ $state_ports != "$wire_ports" ]]; then
		bad sprayed "paths_state's ports ($state_ports) are not the wire's ($wire_ports)"
	else
		irn_log "ok [sprayed]: $NPATHS ports, irn packets $p0/$p1 on eth0/eth1, frames $((TX1[0] - TX0[0]))/$((TX1[1] - TX0[1]))"
	fi
fi

# ---- lossy: 5% loss on cable 2 ------------------------------------------
# Fails if the losses are not charged to cable 2's paths (per-path loss
# accounting), or if no path ever left ACTIVE.
"$MPNET" shape 2 netem loss 5% || irn_fail "netem on cable 2 failed"
transfer lossy "$MIB"
"$MPNET" shape 2 none
if [[ $IRN_ROLE == a ]] && verified lossy "$CRC"; then
	rows=$(path_rows lossy)
	mapfile -t on2 < <(ports lossy eth1)
	lost2=0 lost1=0
	while read -r _ sport _ _ _ lost _; do
		[[ -n ${sport:-} ]] || continue
		if printf '%s\n' "${on2[@]}" | grep -qx "$sport"; then
			lost2=$((lost2 + lost))
		else
			lost1=$((lost1 + lost))
		fi
	done <<<"$rows"
	changes=$(grew "$IRN_OUT/lossy.before" "$IRN_OUT/lossy.after" path_changes)
	downs=$(grew "$IRN_OUT/lossy.before" "$IRN_OUT/lossy.after" paths_down)
	printf '%s\n' "$rows"
	if [[ ${#on2[@]} -eq 0 ]]; then
		bad lossy "no path on cable 2"
	elif ((lost2 == 0 || lost2 <= lost1)); then
		bad lossy "cable 2's paths (${on2[*]}) lost $lost2, cable 1's $lost1"
	elif ((changes == 0)); then
		bad lossy "no path changed state (path_changes 0) at 5% loss"
	else
		irn_log "ok [lossy]: lost $lost2 on cable 2's paths, $lost1 on cable 1's; path_changes +$changes, paths_down +$downs"
	fi
fi

# ---- blackhole: cable 2 drops a's packets from mid-transfer ----------------
# Fails if the QP errs (retry exceeded: resends kept going to the dead
# paths), or if no path went down and no resend moved to another path.
RUN=$((RUN + 1))
irn_barrier blackhole-go
if [[ $IRN_ROLE == b ]]; then
	serve blackhole
else
	cap_start blackhole
	poll_start blackhole
	counter_snap "$IRN_OUT/blackhole.before"
	CRC=0
	client blackhole $((3 * MIB)) &
	cpid=$!
	mid_transfer "$cpid"
	"$MPNET" blackhole 2 || irn_fail "the blackhole on cable 2 failed"
	tcut=$(cut -d' ' -f1 /proc/uptime)
	irn_log "[blackhole] cable 2 drops what a sends, at $tcut s"
	wait "$cpid" || CRC=$?
	counter_snap "$IRN_OUT/blackhole.after"
	poll_stop blackhole
	cap_stop blackhole
	"$MPNET" shape 2 none
fi
irn_barrier blackhole-end
if [[ $IRN_ROLE == a ]] && verified blackhole "$CRC"; then
	rows=$(path_rows blackhole)
	printf '%s\n' "$rows"
	mapfile -t on2 < <(ports blackhole eth1)
	downs=$(grew "$IRN_OUT/blackhole.before" "$IRN_OUT/blackhole.after" paths_down)
	moved=$(grew "$IRN_OUT/blackhole.before" "$IRN_OUT/blackhole.after" path_resends_moved)
	at=$(sed -n 's/^# at //p' "$IRN_OUT/blackhole.paths" 2>/dev/null || echo 0)
	live=''
	if awk -v a="$at" -v c="$tcut" 'BEGIN { exit !(a - c >= 1) }'; then
		while read -r _ sport state _; do
			[[ -n ${sport:-} ]] || continue
			printf '%s\n' "${on2[@]}" | grep -qx "$sport" || continue
			[[ $state == down || $state == probing ]] || live+=" $sport:$state"
		done <<<"$rows"
	else
		irn_log "[blackhole] the QP ended within a second of the cut: path states not judged"
	fi
	if ((downs == 0 || moved == 0)); then
		bad blackhole "paths_down +$downs, path_resends_moved +$moved: the dead cable's packets did not move"
	elif [[ -n $live ]]; then
		bad blackhole "cable 2's paths still in use a second after it died:$live"
	else
		irn_log "ok [blackhole]: paths_down +$downs, path_resends_moved +$moved, timeouts +$(grew "$IRN_OUT/blackhole.before" "$IRN_OUT/blackhole.after" timeouts); bond0 bytes over time in blackhole.rate"
	fi
fi

# ---- pulled: cable 2 down at both ends mid-transfer --------------------------
# Fails on an error completion or a corrupted byte while the bonds move
# cable 2's ports onto cable 1.
RUN=$((RUN + 1))
irn_barrier pulled-go
if [[ $IRN_ROLE == b ]]; then
	serve pulled &
	spid=$!
	irn_get pulled.cut 400 >/dev/null
	"$MPNET" cut 2
	wait "$spid" || true
else
	counter_snap "$IRN_OUT/pulled.before"
	CRC=0
	client pulled $((3 * MIB)) &
	cpid=$!
	mid_transfer "$cpid"
	"$MPNET" cut 2
	irn_put pulled.cut 1
	sleep 0.5
	txcut=$(nic_tx eth1)
	wait "$cpid" || CRC=$?
	counter_snap "$IRN_OUT/pulled.after"
	txend=$(nic_tx eth1)
fi
irn_barrier pulled-end
"$MPNET" mend 2 || irn_fail "cable 2 did not come back"
irn_barrier pulled-mended
if [[ $IRN_ROLE == a ]] && verified pulled "$CRC"; then
	if ((txend != txcut)); then
		bad pulled "eth1 sent $((txend - txcut)) frames while down"
	else
		irn_log "ok [pulled]: paths_down +$(grew "$IRN_OUT/pulled.before" "$IRN_OUT/pulled.after" paths_down), path_resends_moved +$(grew "$IRN_OUT/pulled.before" "$IRN_OUT/pulled.after" path_resends_moved)"
	fi
fi

# ---- gbn-peer: no IRN on b, no spraying ----------------------------------
# Fails if a QP sprays toward a peer that places in order only.
if [[ $IRN_ROLE == a ]]; then knobs auto "$NPATHS"; else knobs gbn "$NPATHS"; fi
transfer gbn-peer 2
if [[ $IRN_ROLE == a ]] && verified gbn-peer "$CRC"; then
	mapfile -t all < <(ports gbn-peer)
	if [[ ${#all[@]} -ne 1 ]]; then
		bad gbn-peer "${#all[@]} source ports (${all[*]}) toward a gbn peer"
	else
		irn_log "ok [gbn-peer]: one source port, ${all[0]}"
	fi
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
if [[ $IRN_ROLE == a ]] && verified rxe-peer "$CRC"; then
	mapfile -t all < <(ports rxe-peer)
	if [[ ${#all[@]} -ne 1 ]]; then
		bad rxe-peer "${#all[@]} source ports (${all[*]}) toward stock rxe"
	else
		irn_log "ok [rxe-peer]: one source port, ${all[0]}"
	fi
fi
if [[ $IRN_ROLE == b ]]; then
	rdma link delete rxe0 || true
	rmmod rdma_rxe || irn_fail "cannot unload rdma_rxe"
fi
irn_barrier finished

irn_dmesg_check multipath
[[ ${#FAILED[@]} -eq 0 ]] || irn_fail "cases failed: ${FAILED[*]}"
[[ $IRN_ROLE == b ]] || irn_log "PASS: pinned sprayed lossy blackhole pulled gbn-peer rxe-peer"
