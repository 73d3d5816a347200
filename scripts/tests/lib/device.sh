# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The device helpers of scripts/tests/lib.sh (tests source lib.sh, never
# this file): RDMA links (irn_link_add, irn_link_del, irn_dev_up, which
# also finds the GID index IRN_GIDX), port states, RoCE v2 GIDs, the
# port's counters and snapshots of them (irn_counter, irn_read_counter,
# irn_snapshot, irn_growth), the RDMA objects of a process, the UDP
# socket on 4791, and the stuck report of a device and the processes
# using it.  Uses runner.sh.

# irn_link_add [NAME [NETDEV]]: create a device and wait for it in sysfs.
irn_link_add()
{
	local name=${1:-$IRN_DEV} ndev=${2:-$IRN_NETDEV} out

	out=$(rdma link add "$name" type "$IRN_LINK_TYPE" netdev "$ndev" 2>&1) ||
		irn_fail "rdma link add $name type $IRN_LINK_TYPE netdev $ndev failed: $out"
	irn_wait_for 10 "/sys/class/infiniband/$name" \
		test -d "/sys/class/infiniband/$name/ports/1"
	irn_log "created $name on $ndev"
}

irn_link_del()
{
	local name=${1:-$IRN_DEV} out

	out=$(rdma link delete "$name" 2>&1) ||
		irn_fail "rdma link delete $name failed: $out"
	irn_wait_for 10 "/sys/class/infiniband/$name to disappear" \
		test ! -e "/sys/class/infiniband/$name"
	irn_log "deleted $name"
}

# The numeric port state from sysfs ("4: ACTIVE" -> 4).
irn_port_state()
{
	local s

	s=$(cat "/sys/class/infiniband/$1/ports/${2:-1}/state") || return 1
	echo "${s%%:*}"
}

# irn_port_state_is DEV NUM: for polling with irn_wait_for.
irn_port_state_is()
{
	[[ $(irn_port_state "$1" 2>/dev/null) == "$2" ]]
}

# irn_gid_index DEV [IPV4]: index of the RoCE v2 GID holding the
# IPv4-mapped address (::ffff:a.b.c.d) of IPV4 (default IRN_SELF_IP, or
# any IPv4-mapped entry when that is unset).
irn_gid_index()
{
	local dev=$1 ip=${2:-${IRN_SELF_IP:-}} p t n gid want=''
	local a b c d

	p=/sys/class/infiniband/$dev/ports/1
	if [[ -n $ip ]]; then
		IFS=. read -r a b c d <<<"$ip"
		want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
			"$a" "$b" "$c" "$d")
	fi
	for t in "$p"/gid_attrs/types/*; do
		n=${t##*/}
		[[ $(cat "$t" 2>/dev/null) == "RoCE v2" ]] || continue
		gid=$(cat "$p/gids/$n" 2>/dev/null) || continue
		if [[ -n $want ]]; then
			[[ $gid == "$want" ]] || continue
		else
			[[ $gid == 0000:0000:0000:0000:0000:ffff:* ]] || continue
		fi
		echo "$n"
		return 0
	done
	return 1
}

# The devices irn_dev_up created, whose counters irn_case_diag (case.sh)
# shows.
IRN_CASE_DEVS=()

# irn_dev_up [NAME [NETDEV [IPV4]]]: create a device, wait until it is
# ACTIVE and has its RoCE v2 GID; the GID index goes to IRN_GIDX.
irn_dev_up()
{
	local name=${1:-$IRN_DEV} ndev=${2:-$IRN_NETDEV} ip=${3:-${IRN_SELF_IP:-}}

	irn_link_add "$name" "$ndev"
	irn_wait_for 10 "$name port 1 ACTIVE" irn_port_state_is "$name" 4
	irn_wait_for 10 "RoCE v2 GID of $ip on $name" irn_gid_index "$name" "$ip" >/dev/null
	IRN_GIDX=$(irn_gid_index "$name" "$ip")
	IRN_CASE_DEVS+=("$name")
	irn_log "$name is ACTIVE, RoCE v2 GID index $IRN_GIDX for $ip"
}

# irn_counter DEV NAME: a port 1 counter from sysfs hw_counters, or from
# "rdma statistic show link DEV/1". Fails loudly if the counter is absent.
irn_counter()
{
	local dev=$1 name=$2 f v

	f=/sys/class/infiniband/$dev/ports/1/hw_counters/$name
	if [[ -r $f ]]; then
		read -r v <"$f"
		printf '%s\n' "$v"
		return 0
	fi
	v=$(rdma statistic show link "$dev/1" 2>/dev/null |
		awk -v n="$name" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }')
	[[ -n $v ]] ||
		irn_fail "counter $name not found for $dev (neither $f nor 'rdma statistic show link $dev/1')"
	echo "$v"
}

# irn_read_counter VAR DEV NAME: irn_counter into VAR, without a fork
# where sysfs has the counter (a fork costs a quarter of a second on the
# debug kernel, and some tests read dozens of counters a run).
# shellcheck disable=SC2034 # VAR is the caller's, through a nameref
irn_read_counter()
{
	local -n irn_into_=$1
	local f=/sys/class/infiniband/$2/ports/1/hw_counters/$3

	if [[ -r $f ]]; then
		read -r irn_into_ <"$f"
	else
		irn_into_=$(irn_counter "$2" "$3")
	fi
}

# irn_pid_resources PID: how many QPs, CQs, MRs and PDs PID owns on the
# RDMA devices this network namespace sees ("rdma resource show")
irn_pid_resources()
{
	local n=0 kind

	for kind in qp cq mr pd; do
		n=$((n + $(rdma resource show "$kind" 2>/dev/null |
			grep -cE "pid $1( |$)" || true)))
	done
	echo "$n"
}

# irn_snapshot NAME...: IRN_DEV's counters NAME, one "name value" per
# line on stdout, read without a fork (the debug kernel forks slowly).
# A test saves one in $IRN_SHARED/before.$IRN_ROLE and one in
# $IRN_SHARED/after.$IRN_ROLE around a run for irn_growth.
irn_snapshot()
{
	local n v

	for n in "$@"; do
		irn_read_counter v "$IRN_DEV" "$n"
		echo "$n $v"
	done
}

# irn_growth: IRN_GREW[ROLE.NAME] becomes how much NAME grew on guest
# ROLE (a and b) from $IRN_SHARED/before.ROLE to after.ROLE.
declare -gA IRN_GREW=()
irn_growth()
{
	local role n v
	local -A was

	IRN_GREW=()
	for role in a b; do
		was=()
		while read -r n v; do
			was[$n]=$v
		done <"$IRN_SHARED/before.$role"
		while read -r n v; do
			# shellcheck disable=SC2034 # read by the tests
			IRN_GREW[$role.$n]=$((v - ${was[$n]:-0}))
		done <"$IRN_SHARED/after.$role"
	done
}

# True if something listens on UDP port 4791 (IPv4, or IPv6 with -6).
irn_udp_bound()
{
	local file=/proc/net/udp port

	[[ ${1:-} == -6 ]] && file=/proc/net/udp6
	port=$(printf ':%04X' "$IRN_RDMA_PORT")
	awk -v p="$port" 'NR > 1 && substr($2, length($2) - 4) == p { f = 1 }
		END { exit !f }' "$file"
}

# shellcheck source=scripts/lib/stacks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/stacks.sh"

# irn_stuck_report DEV PID...: where each PID's threads are blocked and
# what DEV's QPs and counters look like, then again 5 s later (progress or
# none), for the log of a test whose tools outlive their time.
irn_stuck_report()
{
	local dev=$1 pid
	shift

	for pid in "$@"; do
		echo "--- pid $pid $(cat "/proc/$pid/comm" 2>&1)"
		irn_task_stacks "$pid"
	done
	echo "--- ip link"; ip -br link 2>&1
	echo "--- qdisc"; /usr/sbin/tc -s qdisc show dev "$IRN_NETDEV" 2>&1
	echo "--- dmesg"; dmesg | tail -8
	echo "--- rdma resource show qp"; rdma resource show qp 2>&1
	echo "--- counters"; rdma statistic show link "$dev/1" 2>&1
	echo "--- debugfs"; cat "/sys/kernel/debug/irn/$dev/qps" 2>&1
	sleep 5
	echo "--- 5 s later: counters"; rdma statistic show link "$dev/1" 2>&1
	echo "--- debugfs"; cat "/sys/kernel/debug/irn/$dev/qps" 2>&1
}
