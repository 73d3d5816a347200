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
#
# Exit codes: 0 pass, 77 skip, anything else fail.

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

# Delete every RDMA link of our driver type and unload the module.
irn_cleanup()
{
	local rc=$? i dev

	set +e
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

# Fail if the kernel logged a warning, a bug or similar since the mark.
irn_dmesg_check()
{
	local what=${1:-dmesg} bad

	bad=$(dmesg | tail -n +"$((IRN_DMESG_MARK + 1))" |
		grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|KASAN|UBSAN|kernel BUG|refcount_t:|list_(add|del) corruption|blocked for more than|RIP:' ||
		true)
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
		cat "$f"
		return 0
	fi
	v=$(rdma statistic show link "$dev/1" 2>/dev/null |
		awk -v n="$name" '{ for (i = 1; i < NF; i++) if ($i == n) print $(i + 1) }')
	[[ -n $v ]] ||
		irn_fail "counter $name not found for $dev (neither $f nor 'rdma statistic show link $dev/1')"
	echo "$v"
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
