# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The test runner, the first part of scripts/tests/lib.sh (tests source
# lib.sh, never this file): which driver a run tests (IRN_DRIVER: the
# module, the link type and the device name), logging, a test's verdicts
# (irn_fail, irn_skip, irn_skip_part, irn_expect_*, irn_run_*), the tier
# (irn_by_tier), the commands a test needs (irn_require_cmd, irn_tool,
# irn_python), waiting, the module's state and its unloading, the
# cleanup at exit (deferred commands, irn's trace, the links and the
# module), irn_init, and the kernel log's judgement (irn_dmesg_*).
# irn_fail and the cleanup tell a two-guest peer this guest gave up
# (irn_abort_peer) with a file in the shared export, without peer.sh.
# It uses no other part.

# shellcheck source=scripts/lib/kernel-log.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/kernel-log.sh"

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

# Tell the peer this guest gave up, so it fails fast instead of waiting.
irn_abort_peer()
{
	[[ -n ${IRN_SHARED:-} && -d $IRN_SHARED ]] || return 0
	printf '%s\n' "${1:-failed}" >"$IRN_SHARED/abort.$IRN_ROLE" 2>/dev/null
	return 0
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

# irn_tcp_listening PORT: something listens on TCP PORT (a perftest or
# iperf3 server is ready for its client)
irn_tcp_listening()
{
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
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
