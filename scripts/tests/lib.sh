# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the guest-side integration tests in scripts/tests/.
# Source it first thing:
#
#	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#	irn_init
#
# Environment (set by the harness, scripts/guest/run-tests.sh):
#   IRN_SRC IRN_KO IRN_TOOLS IRN_OUT IRN_ROLE IRN_SELF_IP IRN_PEER_IP
#   IRN_NETDEV IRN_SHARED
# Optional:
#   IRN_DRIVER=irn|rxe   run the same checks against stock rdma_rxe, to
#                        validate a test where the behaviour is shared
#                        (default irn)
#   IRN_TIER=ci|full     make check's quick cut or everything (default
#                        full): see irn_by_tier
#   IRN_NO_SKIP=1        a part of a test that cannot run fails it (CI)
#
# Exit codes: 0 pass, 77 skip, anything else fail.

# shellcheck source=scripts/lib/kernel-log.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/kernel-log.sh"

IRN_DRIVER=${IRN_DRIVER:-irn}
case $IRN_DRIVER in
irn)
	IRN_MODULE=rdma_irn
	IRN_LINK_TYPE=irn
	IRN_DEV=irn0
	;;
rxe)
	IRN_MODULE=rdma_rxe
	IRN_LINK_TYPE=rxe
	IRN_DEV=rxe0
	;;
*)
	echo "FAIL: IRN_DRIVER=$IRN_DRIVER: must be irn or rxe" >&2
	exit 1
	;;
esac

IRN_TEST=$(basename "${0%.sh}")
IRN_ROLE=${IRN_ROLE:-a}
IRN_NETDEV=${IRN_NETDEV:-eth0}
IRN_RDMA_PORT=4791
IRN_CLEANUP_CMDS=()
IRN_DMESG_MARK=0
IRN_BARRIER_TIMEOUT=${IRN_BARRIER_TIMEOUT:-120}

irn_log()
{
	printf '[%s %s %s] %s\n' "$IRN_TEST" "$IRN_ROLE" \
		"$(cut -d' ' -f1 /proc/uptime)" "$*"
}

irn_fail()
{
	printf '[%s %s] FAIL: %s\n' "$IRN_TEST" "$IRN_ROLE" "$*" >&2
	irn_abort_peer "$*"
	exit 1
}

irn_skip()
{
	printf '[%s %s] SKIP: %s\n' "$IRN_TEST" "$IRN_ROLE" "$*" >&2
	exit 77
}

# irn_skip_part WHAT: part of the test cannot run on this kernel or
# machine.  Where every part must run (IRN_NO_SKIP=1: make check in CI)
# that fails the test; elsewhere it is noted in the log and the test goes
# on.
irn_skip_part()
{
	[[ ${IRN_NO_SKIP:-0} != 1 ]] ||
		irn_fail "$* (a part CI must run; IRN_NO_SKIP=1)"
	irn_log "info: $*; skipped"
}

# irn_by_tier FULL CI: the value for this run's tier (IRN_TIER, set by
# scripts/check.sh): CI for make check's quick cut, FULL otherwise.
irn_by_tier()
{
	if [[ ${IRN_TIER:-full} == ci ]]; then
		printf '%s\n' "$2"
	else
		printf '%s\n' "$1"
	fi
}

# irn_expect_eq WHAT EXPECTED SEEN
irn_expect_eq()
{
	[[ $2 == "$3" ]] ||
		irn_fail "$1: expected '$2', saw '$3'"
	irn_log "ok: $1 = '$3'"
}

# irn_expect_match WHAT REGEX SEEN
irn_expect_match()
{
	[[ $3 =~ $2 ]] ||
		irn_fail "$1: expected to match /$2/, saw '$3'"
	irn_log "ok: $1 = '$3'"
}

# irn_run_ok WHAT CMD...: the command must succeed; show its output if not.
irn_run_ok()
{
	local what=$1 out
	shift
	out=$("$@" 2>&1) ||
		irn_fail "$what: '$*' failed (status $?): $out"
	irn_log "ok: $what"
	[[ -z $out ]] || printf '%s\n' "$out"
}

# irn_run_fails WHAT CMD...: the command must fail; print its message.
# The failure message is left in IRN_LAST_ERR.
irn_run_fails()
{
	local what=$1
	shift
	if IRN_LAST_ERR=$("$@" 2>&1); then
		irn_fail "$what: '$*' succeeded but must fail (output: '$IRN_LAST_ERR')"
	fi
	irn_log "ok: $what: refused with: ${IRN_LAST_ERR:-<no message>}"
}

irn_require_cmd()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null ||
			irn_fail "required command '$c' is missing in the guest"
	done
}

# irn_wait_for SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s.
irn_wait_for()
{
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	irn_fail "timed out after ${secs}s waiting for: $what"
}

irn_module_loaded()
{
	grep -q "^$1 " /proc/modules
}

# Loaded is not enough: wait for the module to be "Live".
irn_module_live()
{
	grep -q "^$1 .* Live " /proc/modules
}

irn_defer()
{
	IRN_CLEANUP_CMDS+=("$*")
}

# irn_trace_irn [LINES]: record irn's tracepoints (recovery, retransmission
# decisions, rewinds, placement) in a 16 MiB ring buffer from now on; if
# the test fails, its last LINES lines (default 50000) are kept in
# $IRN_OUT/trace-tail.txt.  Needs the module loaded; without tracefs or
# irn's events it does nothing.
irn_trace_irn()
{
	local t=/sys/kernel/tracing

	[[ -d $t/events/irn ]] || mount -t tracefs none $t 2>/dev/null || true
	[[ -d $t/events/irn ]] || return 0
	echo 16384 >$t/buffer_size_kb
	echo 1 >$t/events/irn/enable
	IRN_TRACE_KEEP=${1:-50000}
	irn_defer "echo 0 >$t/events/irn/enable"
}

# Delete every RDMA link of our driver type and unload the module.
irn_cleanup()
{
	local rc=$? i dev

	set +e
	if [[ $rc -ne 0 && $rc -ne 77 && -n ${IRN_TRACE_KEEP:-} ]]; then
		tail -n "$IRN_TRACE_KEEP" /sys/kernel/tracing/trace \
			>"${IRN_OUT:-/tmp}/trace-tail.txt" 2>/dev/null
	fi
	# a two-guest peer waiting for this guest should not wait in vain
	[[ $rc -eq 0 || $rc -eq 77 ]] || irn_abort_peer "exit status $rc"
	for ((i = ${#IRN_CLEANUP_CMDS[@]} - 1; i >= 0; i--)); do
		eval "${IRN_CLEANUP_CMDS[i]}" >/dev/null 2>&1
	done
	if irn_module_loaded "$IRN_MODULE"; then
		for dev in /sys/class/infiniband/*; do
			[[ -e $dev ]] || continue
			rdma link delete "${dev##*/}" >/dev/null 2>&1
		done
		if ! irn_rmmod; then
			echo "[$IRN_TEST $IRN_ROLE] FAIL: cleanup: cannot unload $IRN_MODULE" >&2
			[[ $rc -ne 0 ]] || rc=1
		fi
	fi
	ip link set "$IRN_NETDEV" up >/dev/null 2>&1
	dmesg >"${IRN_OUT:-/tmp}/dmesg-$IRN_TEST-$IRN_ROLE.txt" 2>/dev/null
	exit "$rc"
}

# rmmod with a few retries: device teardown may still hold a reference.
irn_rmmod()
{
	local i err

	for ((i = 0; i < 50; i++)); do
		irn_module_loaded "$IRN_MODULE" || return 0
		err=$(rmmod "$IRN_MODULE" 2>&1) && return 0
		sleep 0.1
	done
	echo "rmmod $IRN_MODULE: $err" >&2
	return 1
}

irn_dmesg_mark()
{
	IRN_DMESG_MARK=$(dmesg | wc -l)
}

# Fail if the kernel logged a warning, a bug or similar since the mark
# (irn_bad_kernel_patterns, less irn_drop_known_reports: scripts/lib/
# kernel-log.sh).
irn_dmesg_check()
{
	local what=${1:-dmesg} bad

	bad=$(dmesg | tail -n +"$((IRN_DMESG_MARK + 1))" | irn_drop_known_reports |
		grep -a -E -f <(irn_bad_kernel_patterns) || true)
	[[ -z $bad ]] ||
		irn_fail "$what: kernel log shows problems:"$'\n'"$bad"
}

# Common prologue: environment, root, a clean start, the exit trap.
irn_init()
{
	local v

	for v in IRN_OUT IRN_ROLE IRN_NETDEV; do
		[[ -n ${!v:-} ]] || irn_fail "environment variable $v is not set"
	done
	[[ $(id -u) -eq 0 ]] || irn_fail "must run as root"
	mkdir -p "$IRN_OUT"
	irn_require_cmd rdma ip modprobe rmmod dmesg
	[[ -d /sys/class/net/$IRN_NETDEV ]] ||
		irn_fail "netdev $IRN_NETDEV does not exist"
	if [[ $IRN_DRIVER == irn ]] && irn_module_loaded rdma_rxe; then
		irn_log "rdma_rxe is loaded; unloading it (it owns UDP $IRN_RDMA_PORT)"
		rmmod rdma_rxe || irn_fail "cannot unload rdma_rxe"
	fi
	if irn_module_loaded "$IRN_MODULE"; then
		irn_fail "$IRN_MODULE is already loaded at test start"
	fi
	trap irn_cleanup EXIT
	# a harness timeout sends SIGTERM: still clean up on the way out
	trap 'irn_log "terminated (timeout?)"; exit 143' TERM
	trap 'exit 130' INT
	irn_dmesg_mark
	irn_log "driver $IRN_DRIVER (module $IRN_MODULE, link type $IRN_LINK_TYPE, device $IRN_DEV) on $IRN_NETDEV"
}

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

irn_tool()
{
	local t=${IRN_TOOLS:-}/$1

	[[ -n ${IRN_TOOLS:-} ]] || irn_fail "IRN_TOOLS is not set"
	[[ -e $t ]] || irn_fail "tool $t missing: build with 'make -C tools' on the host"
	echo "$t"
}

# Python with the standard library and pyverbs (not a pyenv shim).
irn_python()
{
	if [[ -x /usr/bin/python3 ]]; then
		echo /usr/bin/python3
	else
		command -v python3 || irn_fail "no python3 in the guest"
	fi
}

# --- two-guest helpers ------------------------------------------------

irn_require_shared()
{
	[[ -n ${IRN_SHARED:-} && -d $IRN_SHARED && -w $IRN_SHARED ]] ||
		irn_fail "IRN_SHARED ('${IRN_SHARED:-}') is not a writable directory"
}

irn_peer_role()
{
	[[ $IRN_ROLE == a ]] && echo b || echo a
}

# irn_barrier NAME [TIMEOUT]: wait until both guests reached NAME.
irn_barrier()
{
	local name=$1 secs=${2:-$IRN_BARRIER_TIMEOUT} peer i

	irn_require_shared
	peer=$(irn_peer_role)
	: >"$IRN_SHARED/barrier.$name.$IRN_ROLE"
	for ((i = 0; i < secs * 10; i++)); do
		[[ -e $IRN_SHARED/barrier.$name.$peer ]] && return 0
		[[ -e $IRN_SHARED/abort.$peer ]] &&
			irn_fail "barrier $name: guest $peer aborted: $(cat "$IRN_SHARED/abort.$peer")"
		sleep 0.1
	done
	irn_fail "barrier $name: guest $peer did not arrive within ${secs}s"
}

# irn_put KEY VALUE / irn_get KEY [TIMEOUT]: pass values between guests.
irn_put()
{
	irn_require_shared
	printf '%s\n' "$2" >"$IRN_SHARED/.val.$1.$$"
	mv "$IRN_SHARED/.val.$1.$$" "$IRN_SHARED/val.$1"
}

irn_get()
{
	local secs=${2:-$IRN_BARRIER_TIMEOUT} i

	irn_require_shared
	for ((i = 0; i < secs * 10; i++)); do
		if [[ -e $IRN_SHARED/val.$1 ]]; then
			cat "$IRN_SHARED/val.$1"
			return 0
		fi
		sleep 0.1
	done
	irn_fail "value '$1' from the peer did not arrive within ${secs}s"
}

# Tell the peer this guest gave up, so it fails fast instead of waiting.
irn_abort_peer()
{
	[[ -n ${IRN_SHARED:-} && -d $IRN_SHARED ]] || return 0
	printf '%s\n' "${1:-failed}" >"$IRN_SHARED/abort.$IRN_ROLE" 2>/dev/null
	return 0
}

# --- datapath helpers: devices and client/server "cases" ----------------
#
# A case runs one server command and one client command (strings run with
# bash -c, each under timeout) and passes only if both exit 0 and the
# client's output satisfies an optional check function.  With two guests
# the server runs on SERVER_ROLE and the client on the other guest; with
# one guest (IRN_GUESTS != 2) both run here.  Cases never stop the test:
# irn_cases_finish prints the summary and sets the exit status.
#
#	irn_case NAME SERVER_ROLE TIMEOUT READY SERVER_CMD CLIENT_CMD [CHECK]
#
# READY says when the server is ready for the client: tcp (it listens on
# TCP $PORT), cm (an rdma_cm ID listens on $PORT), cm:N (... on port N)
# or sleep:N.  Each case
# gets its own port, exported as PORT: write '$PORT' (single quotes) into
# the commands.  CHECK and SCHECK are functions called with the client's
# and the server's output file and the case's slug (a name for its files,
# e.g. for irn_put); what they print is logged, or on failure is the
# reason.  IRN_DEV's sent_pkts and rcvd_pkts before and after each side's
# command go to its output file's name with .pkts for .log
# (_irn_case_pkts).
# A client that cannot connect yet is retried; a case whose only problem is
# perftest's out-of-band TCP exchange, or a server's unacknowledged last
# send (IRN_CASE_TAIL), is run once more (and reported so).
# Failed cases append a diagnosis (commands, output, counters, dmesg) to
# $IRN_OUT/failures.md on each guest.

IRN_CASE_N=0
IRN_CASE_RESULTS=()
IRN_CASE_NFAIL=0
IRN_CASE_GRACE=${IRN_CASE_GRACE:-15}
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

irn_two_guests()
{
	[[ ${IRN_GUESTS:-1} == 2 ]]
}

irn_peer_aborted()
{
	[[ -n ${IRN_SHARED:-} && -e $IRN_SHARED/abort.$(irn_peer_role) ]]
}

# _irn_case_ready READY: true once the server side is ready
_irn_case_ready()
{
	case $1 in
	tcp) ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q . ;;
	cm) rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:$PORT\b" ;;
	cm:*) rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*:${1#cm:}\b" ;;
	# the netdev has joined multicast group ADDR
	mcast:*) ip maddr show dev "$IRN_NETDEV" 2>/dev/null |
		grep -qE "inet6? +${1#mcast:}( |$)" ;;
	*) return 0 ;;
	esac
}

_irn_case_wait_ready()
{
	local ready=$1 pid=$2 i

	if [[ $ready == sleep:* ]]; then
		sleep "${ready#sleep:}"
		return 0
	fi
	for ((i = 0; i < 200; i++)); do
		_irn_case_ready "$ready" && { sleep 0.3; return 0; }
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# Output patterns of a client that came too early (server not listening).
IRN_CASE_NOCONN="Couldn't connect to|Unable to init the socket connection|Connection refused|RDMA_CM_EVENT_(REJECTED|UNREACHABLE)|rdma_resolve_addr|connect error"
# Output patterns of a failure in perftest's out-of-band TCP exchange.
IRN_CASE_OOB="Couldn't read remote address|Failed to exchange data between server and clients|Couldn't write to socket"
# Output patterns of a real RDMA failure: never retried.
IRN_CASE_HARD="Completion with error|Failed status|parse WC failed|Couldn't post send|Failed to modify QP"

# _irn_case_flag FILE: 2 if FILE shows an RDMA failure, 1 if only an
# out-of-band failure, else 0.
_irn_case_flag()
{
	if grep -Eq "$IRN_CASE_HARD" "$1" 2>/dev/null; then
		echo 2
	elif grep -Eq "$IRN_CASE_OOB" "$1" 2>/dev/null; then
		echo 1
	else
		echo 0
	fi
}

_irn_max() { echo $(($1 > $2 ? $1 : $2)); }

# Output lines of a failing run, for _irn_case_tail: IRN_CASE_HARD, and
# what ibv_*_pingpong prints beside it (an unknown wr_id, a failed post).
IRN_CASE_ANYFAIL="$IRN_CASE_HARD|[Ff]ail|[Ee]rror|[Uu]nknown|[Ii]nvalid|Couldn't"

# _irn_case_tail RC FILE: 1 if a server that exited RC failed only in the
# way IRN_CASE_TAIL (a regex of whole lines) allows, else 0.  Every line
# of FILE that looks like a failure must match IRN_CASE_TAIL, and there
# must be one, and one only, "retry counter exceeded".  Used for
# ibv_rc_pingpong under loss: once the client has made its last
# iteration it destroys its QP, so if the ACK of the server's last send
# is lost no retransmission is ever answered and the server ends with
# "transport retry counter exceeded" for that send.  Such a server never
# checks its data (rc_pingpong validates after its loop), so the case
# runs once more (_irn_case_once) and fails if the second run ends the
# same way.
_irn_case_tail()
{
	local rc=$1 file=$2 fails

	if [[ -z ${IRN_CASE_TAIL:-} || $rc == 0 || $rc == 124 || $rc == 98 ]]; then
		echo 0
		return
	fi
	fails=$(grep -E "$IRN_CASE_ANYFAIL" "$file" 2>/dev/null || true)
	if [[ -n $fails ]] && ! grep -Evq "$IRN_CASE_TAIL" <<<"$fails" &&
	   [[ $(grep -c 'retry counter exceeded' <<<"$fails") == 1 ]]; then
		echo 1
	else
		echo 0
	fi
}

# _irn_case_client TIMEOUT CMD OUT: run the client, retrying while it
# cannot connect; prints the exit status.
_irn_case_client()
{
	local t=$1 cmd=$2 out=$3 try rc

	for ((try = 1; try <= 6; try++)); do
		rc=0
		timeout -k 5 "$t" bash -c "$cmd" >"$out" 2>&1 </dev/null || rc=$?
		[[ $rc -ne 0 ]] && grep -Eq "$IRN_CASE_NOCONN" "$out" || break
		echo "[client attempt $try could not connect, retrying]" >>"$out.retries"
		cat "$out" >>"$out.retries"
		sleep 1
	done
	echo "$rc"
}

# _irn_case_server_wait PID KEY: wait for the server; once the client is
# done (the file DONEFILE appears) allow IRN_CASE_GRACE seconds, then
# kill it.  Its exit status goes to IRN_CASE_SRC (no subshell: wait needs
# the server to be our child).  Notes go to LOG.
_irn_case_server_wait()
{
	local pid=$1 donefile=$2 log=$3 since="" rc=0

	while kill -0 "$pid" 2>/dev/null; do
		if [[ -z $since && -e $donefile ]]; then
			since=$SECONDS
		elif [[ -n $since ]] && ((SECONDS - since > IRN_CASE_GRACE)); then
			kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
			sleep 1
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
			echo "[server killed: still running ${IRN_CASE_GRACE}s after the client ended]" >>"$log"
			since=$((SECONDS + 100000))
		fi
		if irn_peer_aborted; then
			kill -KILL -- "-$pid" 2>/dev/null || true
		fi
		sleep 0.2
	done
	wait "$pid" || rc=$?
	IRN_CASE_SRC=$rc
}

_irn_wait_file()
{
	local f=$1 secs=$2 i

	for ((i = 0; i < secs * 10; i++)); do
		[[ -e $f ]] && return 0
		irn_peer_aborted && return 1
		sleep 0.1
	done
	return 1
}

# shellcheck source=scripts/lib/stacks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/stacks.sh"

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

# irn_case_diag NAME WHAT CMD OUTFILE RC: append a diagnosis to failures.md
irn_case_diag()
{
	local name=$1 what=$2 cmd=$3 out=$4 rc=$5 d

	{
		printf '\n### %s: %s (%s, driver %s, guest %s): exit %s\n\n' \
			"$IRN_TEST" "$name" "$what" "$IRN_DRIVER" "$IRN_ROLE" "$rc"
		printf '```\n$ %s\n' "$cmd"
		tail -n 30 "$out" 2>/dev/null
		printf '```\n\n'
		for d in "${IRN_CASE_DEVS[@]}"; do
			printf 'rdma statistic show link %s/1:\n```\n' "$d"
			rdma statistic show link "$d/1" 2>&1 | fold -w 160
			printf '```\n'
		done
		printf 'dmesg | tail -50:\n```\n'
		dmesg | tail -n 50
		printf '```\n'
	} >>"$IRN_OUT/failures.md" 2>&1
}

# irn_case NAME SERVER_ROLE TIMEOUT READY SERVER_CMD CLIENT_CMD [CHECK [SCHECK]]
# CHECK and SCHECK judge the client's and the server's output once each
# exited 0.
irn_case()
{
	local name=$1 srole=$2 t=$3 ready=$4 scmd=$5 ccmd=$6 check=${7:-}
	local scheck=${8:-}
	local attempt verdict note="" slug

	IRN_CASE_N=$((IRN_CASE_N + 1))
	slug=$(printf '%02d-%s' "$IRN_CASE_N" "$(tr -c 'A-Za-z0-9_.=-' '_' <<<"$name" | sed 's/_*$//')")
	for attempt in 1 2; do
		export PORT=$((18515 + 2 * IRN_CASE_N + attempt - 1))
		_irn_case_once "$name" "$srole" "$t" "$ready" "$scmd" "$ccmd" \
			"$check" "$slug.$attempt" "$scheck"
		verdict=$IRN_CASE_VERDICT
		[[ $verdict == retry ]] || break
		note=" (passed on retry after an out-of-band TCP failure, a bad perftest clock calibration or an unacknowledged last send of the server)"
		irn_log "case $name: out-of-band exchange, clock calibration or the server's last ACK failed; one retry"
		verdict=FAIL
	done
	[[ $verdict == PASS ]] || note=": $IRN_CASE_REASON"
	IRN_CASE_RESULTS+=("$verdict $name$note")
	[[ $verdict == PASS ]] || IRN_CASE_NFAIL=$((IRN_CASE_NFAIL + 1))
	irn_log "CASE $verdict $name$note"
}

_irn_case_once()
{
	local name=$1 srole=$2 t=$3 ready=$4 scmd=$5 ccmd=$6 check=$7 slug=$8
	local scheck=$9 sres
	local two=0 iam_srv=1 iam_cli=1 sout cout spid src=0 crc=0 cres=ok tail=0
	local key=$IRN_OUT/$slug cdone oob=0 oob2=0

	irn_two_guests && two=1
	if [[ $two == 1 ]]; then
		if [[ $IRN_ROLE == "$srole" ]]; then iam_cli=0; else iam_srv=0; fi
	fi
	sout=$key.server.log cout=$key.client.log
	cdone=$key.client.done
	[[ $two == 0 ]] || cdone=$IRN_SHARED/val.$slug.client
	IRN_CASE_VERDICT=FAIL IRN_CASE_REASON=''

	if [[ $iam_srv == 1 ]]; then
		irn_log "case $name: server: $scmd"
		_irn_case_pkts >"${sout%.log}.pkts"
		setsid timeout -k 5 "$t" bash -c "$scmd" >"$sout" 2>&1 </dev/null &
		spid=$!
		if ! _irn_case_wait_ready "$ready" "$spid"; then
			echo "[server not ready ($ready) within 20s]" >>"$sout"
		fi
		[[ $two == 0 ]] || : >"$IRN_SHARED/ready.$slug"
	fi
	if [[ $iam_cli == 1 ]]; then
		if [[ $two == 1 ]] && ! _irn_wait_file "$IRN_SHARED/ready.$slug" 60; then
			crc=255 cres="server side never became ready"
		else
			irn_log "case $name: client: $ccmd"
			_irn_case_pkts >"${cout%.log}.pkts"
			crc=$(_irn_case_client "$t" "$ccmd" "$cout")
			_irn_case_pkts >>"${cout%.log}.pkts"
			if [[ $crc == 0 && -n $check ]] &&
			   cres=$("$check" "$cout" "$slug" 2>&1); then
				[[ -z $cres ]] || irn_log "case $name: $cres"
				cres=ok
			fi
			oob=$(_irn_case_flag "$cout")
			# perftest could not calibrate the CPU clock (a busy
			# host): its rates are meaningless, run it once more;
			# not on the debug kernel, where it never can, and
			# where a zero rate without that warning is the same
			# failure (seen once: 0.00 MB/s for 100 x 64 KiB that
			# the counters show were sent, no retransmission).
			# Too few packets (a "data check") is no clock problem.
			if [[ $cres != ok && $cres != "data check:"* && $oob == 0 ]] &&
				{ grep -q 'Correlation coefficient r^2' "$cout" ||
				  [[ ${IRN_TIMEOUT_SCALE:-1} -gt 1 &&
				     $cres == "zero bandwidth"* ]]; }; then
				if [[ $slug == *.1 && ${IRN_TIMEOUT_SCALE:-1} -le 1 ]]; then
					oob=1
				else
					# twice, or on the debug kernel: accept
					# the run (it completed), but say the
					# rate was not verified
					irn_log "case $name: rate not verified (perftest clock calibration failed): $cres"
					cres=ok
				fi
			fi
		fi
		if [[ $two == 1 ]]; then
			irn_put "$slug.client" "$crc $oob $cres"
		else
			: >"$cdone"
		fi
	fi
	if [[ $iam_srv == 1 ]]; then
		_irn_case_server_wait "$spid" "$cdone" "$sout"
		src=$IRN_CASE_SRC
		_irn_case_pkts >>"${sout%.log}.pkts"
		if [[ $src == 0 && -n $scheck ]]; then
			if sres=$("$scheck" "$sout" "$slug" 2>&1); then
				[[ -z $sres ]] || irn_log "case $name: $sres"
			else
				echo "[server output check failed: $sres]" >>"$sout"
				src=98
			fi
		fi
		tail=$(_irn_case_tail "$src" "$sout")
		oob=$(_irn_max "$oob" "$(_irn_case_flag "$sout")")
		[[ $two == 0 ]] || irn_put "$slug.server" "$src $oob $tail"
	fi
	if [[ $two == 1 ]]; then
		if [[ $iam_srv == 1 ]]; then
			if _irn_wait_file "$IRN_SHARED/val.$slug.client" $((t + 30)); then
				read -r crc oob2 cres <"$IRN_SHARED/val.$slug.client"
				oob=$(_irn_max "$oob" "$oob2")
			else
				crc=255 cres="client result never arrived"
			fi
		else
			if _irn_wait_file "$IRN_SHARED/val.$slug.server" $((t + 30 + IRN_CASE_GRACE)); then
				read -r src oob2 tail <"$IRN_SHARED/val.$slug.server"
				oob=$(_irn_max "$oob" "$oob2")
			else
				src=255
			fi
		fi
	fi
	if [[ $crc == 0 && $src == 0 && $cres == ok ]]; then
		IRN_CASE_VERDICT=PASS
		return 0
	fi
	if [[ $slug == *.1 ]] &&
	   { [[ $oob == 1 && $crc != 124 && $src != 124 ]] ||
	     [[ $crc == 0 && $cres == ok && $tail == 1 ]]; }; then
		IRN_CASE_VERDICT=retry
	fi
	IRN_CASE_REASON="client exit $crc, server exit $src"
	[[ $tail == 0 ]] || IRN_CASE_REASON+=" (its last send never acknowledged: it checked no data)"
	[[ $crc == 124 ]] && IRN_CASE_REASON+=" (client timed out after ${t}s)"
	[[ $src == 124 ]] && IRN_CASE_REASON+=" (server timed out after ${t}s)"
	[[ $src == 98 ]] && IRN_CASE_REASON+=" (the server's output failed its check)"
	[[ $cres == ok ]] || IRN_CASE_REASON+=", check: $cres"
	[[ $iam_cli == 0 ]] || irn_case_diag "$name" client "$ccmd" "$cout" "$crc"
	[[ $iam_srv == 0 ]] || irn_case_diag "$name" server "$scmd" "$sout" "$src"
	if [[ $iam_cli == 1 ]]; then
		echo "--- client output ($name) ---"
		tail -n 15 "$cout"
		echo
	fi
	if [[ $iam_srv == 1 ]]; then
		echo "--- server output ($name) ---"
		tail -n 15 "$sout"
		echo
	fi
	return 0
}

# irn_cases_finish: print the case summary; exit 1 if any case failed.
irn_cases_finish()
{
	local r npass=$((IRN_CASE_N - IRN_CASE_NFAIL))

	{
		echo "=== $IRN_TEST ($IRN_DRIVER, guest $IRN_ROLE): $npass of $IRN_CASE_N cases passed"
		for r in "${IRN_CASE_RESULTS[@]}"; do
			echo "  $r"
		done
	} | tee "$IRN_OUT/cases.txt"
	irn_dmesg_check "$IRN_TEST"
	if [[ $IRN_CASE_NFAIL -gt 0 ]]; then
		echo "[$IRN_TEST $IRN_ROLE] FAIL: $IRN_CASE_NFAIL of $IRN_CASE_N cases failed" >&2
		exit 1
	fi
	irn_log "PASS: all $IRN_CASE_N cases"
}

# Checks for irn_case (argument: the client's output file).
# perftest bandwidth: at least one result row, and every row shows a
# non-zero BW average or message rate (MsgRate has 6 decimals: slow TCG
# guests can show a BW of 0.00 MB/s for tiny messages).
irn_check_bw()
{
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ {
		rows++
		if ($4 + 0 <= 0 && $5 + 0 <= 0) { bad = bad " " $1 "B:" $4 "/" $5 }
	}
	END {
		if (!rows) { print "no result rows"; exit 1 }
		if (bad != "") { print "zero bandwidth and message rate at" bad; exit 1 }
	}' "$1"
}

# perftest latency: at least one result row with t_typical > 0.
irn_check_lat()
{
	awk '$1 ~ /^[0-9]+$/ && NF >= 7 && $2 ~ /^[0-9]+$/ {
		rows++; if ($5 + 0 <= 0) bad = bad " " $1
	}
	END {
		if (!rows) { print "no result rows"; exit 1 }
		if (bad != "") { print "zero latency reported at" bad; exit 1 }
	}' "$1"
}

# ibv_*_pingpong -c: the "N iters in" line, and no page the receiver
# found with the wrong contents (it prints a line but still exits 0).
irn_check_pingpong()
{
	! grep -i -m1 'invalid data' "$1" || return 1
	grep -Eq '^[0-9]+ iters in ' "$1" || { echo "no 'iters in' line"; return 1; }
}

# rping -v -C N: N "ping data" lines.
irn_check_rping()
{
	local want=${IRN_RPING_COUNT:-10} n

	n=$(grep -c 'ping data' "$1" || true)
	[[ $n -ge $want ]] || { echo "$n 'ping data' lines, expected $want"; return 1; }
}

# --- perftest: what the device moved -----------------------------------
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
# (the side's output file with .pkts for .log).

# _irn_case_pkts: "SENT RCVD", IRN_DEV's sent_pkts and rcvd_pkts now ("-"
# for one it does not have).
_irn_case_pkts()
{
	local c v vals=()

	for c in sent_pkts rcvd_pkts; do
		v=$(cat "/sys/class/infiniband/$IRN_DEV/ports/1/hw_counters/$c" 2>/dev/null ||
			rdma statistic show link "$IRN_DEV/1" 2>/dev/null |
			awk -v n="$c" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }' ||
			true)
		vals+=("${v:--}")
	done
	echo "${vals[*]}"
}

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

# --- a live QP held still, for crafted packets --------------------------
#
# irn_held_start TOOL SIZE PORT: a perftest bandwidth run (TOOL -s SIZE
# -D 8) from a (client) to b (server) whose client is stopped (SIGSTOP)
# once it has run for a second: its QP and b's stay up and go quiet (both
# devices send and receive nothing for a second), and
# a can send b's QP packets of its own from the right address.  On a,
# HELD_PSN (the client's first PSN, b's first expected PSN), HELD_QPN
# (b's QP), HELD_RKEY and HELD_VA (b's buffer) come from the address
# lines perftest prints; a puts HELD_QPN for b (irn_get held-qpn).  Both
# guests leave it with the barrier "held" passed.  HELD_PID is the run's
# timeout process, HELD_LOG its output.
irn_held_start()
{
	local tool=$1 size=$2 port=$3 scale=${IRN_TIMEOUT_SCALE:-1} peer=()

	irn_require_cmd "$tool" pkill timeout stdbuf
	HELD_LOG=$IRN_OUT/$tool.log
	[[ $IRN_ROLE == a ]] && peer=("$IRN_PEER_IP")
	[[ $IRN_ROLE == a ]] && sleep 1		# b's server listens first
	# stdbuf: the address lines must reach the file before the run ends
	timeout -k 5 $((120 * scale)) stdbuf -oL "$tool" -d "$IRN_DEV" \
		-x "$IRN_GIDX" -p "$port" -F -s "$size" -D 8 "${peer[@]}" \
		>"$HELD_LOG" 2>&1 &
	HELD_PID=$!
	if [[ $IRN_ROLE == a ]]; then
		irn_wait_for $((30 * scale)) "$tool's address lines" \
			_irn_held_addresses
		sleep 1
		# HELD_PID is timeout's; the client is its child
		pkill -STOP -P "$HELD_PID" "$tool" ||
			irn_fail "$tool ended before it could be held"
		irn_defer pkill -CONT -P "$HELD_PID" "$tool"
		irn_put held-qpn "$HELD_QPN"
		irn_log "$tool held: b's QP $HELD_QPN, first PSN $HELD_PSN, rkey $HELD_RKEY, VAddr $HELD_VA"
	fi
	irn_barrier held-stopped $((60 * scale))
	# what was in flight lands, and what the kernel resends for it (a
	# slow kernel's timeouts resend reads, which are answered again)
	irn_wait_for $((60 * scale)) "$IRN_DEV to go quiet" _irn_held_quiet
	irn_barrier held $((60 * scale))
}

# True once IRN_DEV sent and received nothing for a second.
_irn_held_quiet()
{
	local s0 r0 s1 r1

	irn_read_counter s0 "$IRN_DEV" sent_pkts
	irn_read_counter r0 "$IRN_DEV" rcvd_pkts
	sleep 1
	irn_read_counter s1 "$IRN_DEV" sent_pkts
	irn_read_counter r1 "$IRN_DEV" rcvd_pkts
	[[ $s0 == "$s1" && $r0 == "$r1" ]]
}

# The client's "local address" and "remote address" lines (perftest
# prints them before any traffic) into HELD_PSN HELD_QPN HELD_RKEY HELD_VA.
_irn_held_addresses()
{
	local line

	line=$(awk '/local address:/ { for (i = 1; i < NF; i++) if ($i == "PSN") p = $(i + 1) }
		/remote address:/ {
			for (i = 1; i < NF; i++) {
				if ($i == "QPN") q = $(i + 1)
				if ($i == "RKey") k = $(i + 1)
				if ($i == "VAddr") v = $(i + 1)
			}
		}
		END { if (p && q && k && v) print p, q, k, v }' "$HELD_LOG")
	[[ -n $line ]] || return 1
	read -r HELD_PSN HELD_QPN HELD_RKEY HELD_VA <<<"$line"
}

# irn_held_epsn QPN: b's expected PSN on its QP QPN, from debugfs.
irn_held_epsn()
{
	local q=$(($1))

	awk -v q="$q" '$1 == q { print $10; f = 1 } END { exit !f }' \
		"/sys/kernel/debug/irn/$IRN_DEV/qps" ||
		irn_fail "QP $1 is not in irn's debugfs qps table"
}

# irn_held_end resume|kill: let the held client go on and return its and
# the server's exit status (both must be 0), or kill it (after packets
# that leave its QP out of step) and its server, whose status is not
# judged.  Both guests must call it; it ends with the barrier "released".
irn_held_end()
{
	local how=$1 rc=0 tool

	tool=$(basename "$HELD_LOG" .log)
	if [[ $IRN_ROLE == a ]]; then
		if [[ $how == resume ]]; then
			pkill -CONT -P "$HELD_PID" "$tool"
		else
			pkill -KILL -P "$HELD_PID" "$tool"
		fi
	fi
	irn_barrier "released-$how" $((60 * ${IRN_TIMEOUT_SCALE:-1}))
	if [[ $how == kill ]]; then
		pkill -KILL -P "$HELD_PID" "$tool" || true
		wait "$HELD_PID" || true
		return 0
	fi
	wait "$HELD_PID" || rc=$?
	[[ $rc -eq 0 ]] ||
		irn_log "$tool exited with $rc: $(tail -n 3 "$HELD_LOG" | tr '\n' ' ')"
	return "$rc"
}
