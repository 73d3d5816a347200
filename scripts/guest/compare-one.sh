#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/compare.sh --one-guest: both ends in this one
# guest.  Network namespaces n1 and n2, joined by a veth pair (v1
# 10.99.0.1 in n1, v2 10.99.0.2 in n2), stand for the two guests and
# their cable; scripts/guest/compare.sh runs twice at once, as the client
# end (role a) in n1 on v1 and as the server end (role b) in n2 on v2,
# both on $IRN_GUEST_SHARED for their barriers and snapshots, as two
# guests are.  Each end creates its own RDMA device on its veth end, d1
# and d2 (RDMA device names are one name space for the whole kernel, so
# both cannot be dev0), and sets each condition's qdisc on its veth end
# (the ingress ones through an ifb0 of its own namespace), as each guest
# does on its eth0.
#
# Output: role a's in $IRN_GUEST_OUT, where the host reads it as guest
# a's (runs.tsv, the clients' output); role b's in $IRN_GUEST_OUT/b.  Both
# ends write to this job's log, each line after its namespace's name.
#
# The ends enter their namespace with nsenter --net, not ip netns exec:
# their mounts stay those of the guest, /sys included (the RDMA devices'
# sysfs and debugfs as the initial namespace sees them), and only the
# network (addresses, routes, qdiscs, /proc/net) is the namespace's.
# Environment: that of scripts/guest/compare.sh, from scripts/vm.sh.
set -uo pipefail

HERE=$(dirname "${BASH_SOURCE[0]}")
A=10.99.0.1 B=10.99.0.2

log() { printf '[compare-one %s] %s\n' "${CMP_TRANSPORTS:-?}" "$*"; }

# make_namespaces: n1 and n2 joined by the veth pair v1-v2, up
make_namespaces() {
	ip netns add n1 && ip netns add n2 &&
		ip link add v1 netns n1 type veth peer name v2 netns n2 &&
		ip -n n1 addr add "$A/24" dev v1 && ip -n n2 addr add "$B/24" dev v2 &&
		ip -n n1 link set lo up && ip -n n2 link set lo up &&
		ip -n n1 link set v1 up && ip -n n2 link set v2 up
}

# run_end ROLE NS NETDEV SELF PEER DEVICE OUT: scripts/guest/compare.sh
# as ROLE in namespace NS, its lines after "NS: "; returns its status
run_end() {
	local role=$1 ns=$2

	mkdir -p "$7" || return 1
	IRN_ROLE=$role IRN_NETDEV=$3 IRN_SELF_IP=$4 IRN_PEER_IP=$5 CMP_DEV=$6 \
		IRN_GUEST_OUT=$7 CMP_NAMESPACE=$ns \
		nsenter --net="/var/run/netns/$ns" bash "$HERE/compare.sh" 2>&1 |
		sed -u "s/^/$ns: /"
	return "${PIPESTATUS[0]}"
}

main() {
	local pa pb rc=0

	make_namespaces || { log "cannot make namespaces n1 and n2 and their veth pair"; exit 1; }
	# In the RDMA core's default shared mode every namespace sees every
	# RDMA device; in exclusive mode a device added from n1 would start
	# in the initial namespace, out of n1's reach.
	[[ $(rdma system show 2>&1) == *"netns shared"* ]] || {
		log "the RDMA core is not in shared netns mode: $(rdma system show 2>&1)"
		exit 1
	}
	log "n1 (v1 $A, client) and n2 (v2 $B, server) joined by a veth pair"
	run_end a n1 v1 "$A" "$B" d1 "$IRN_GUEST_OUT" &
	pa=$!
	run_end b n2 v2 "$B" "$A" d2 "$IRN_GUEST_OUT/b" &
	pb=$!
	# An end that fails leaves the other waiting at a barrier for up to
	# 10 minutes: the first failure ends the job (and so the guest, which
	# powers off with whatever still runs in it).
	wait -n "$pa" "$pb" || rc=$?
	if ((rc != 0)); then
		log "an end failed (status $rc); stopping"
		exit "$rc"
	fi
	wait "$pa" || rc=$?
	wait "$pb" || rc=$?
	exit "$rc"
}

main "$@"
