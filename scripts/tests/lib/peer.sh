# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The two-guest helpers of scripts/tests/lib.sh (tests source lib.sh,
# never this file): the guests keep in step through files in the shared
# export IRN_SHARED: barriers, values passed from one to the other
# (irn_put, irn_get), and whether the peer gave up (its abort file,
# written by irn_abort_peer in runner.sh).  Uses runner.sh.

IRN_BARRIER_TIMEOUT=${IRN_BARRIER_TIMEOUT:-120}

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

# irn_nap SECONDS: sleep without a fork, for loops that must look often
# (read -t on a FIFO nobody writes, made on first use; the open
# descriptor keeps it once its name is gone)
irn_nap()
{
	local d

	if [[ -z ${_IRN_NAP_FD:-} ]]; then
		d=$(mktemp -d /tmp/irn-nap.XXXXXX) ||
			irn_fail "cannot make a directory for the nap FIFO"
		mkfifo "$d/nap" || irn_fail "cannot make a FIFO to nap on"
		exec {_IRN_NAP_FD}<>"$d/nap"
		rm -rf "$d"
	fi
	read -r -t "$1" -u "$_IRN_NAP_FD" || true
}

# irn_await KEY SECONDS: wait for the peer's irn_put KEY, as irn_get does
# but looking every 0.05 s without a fork, for a peer that must act at
# once; fails if the peer gave up
irn_await()
{
	local i peer

	peer=$(irn_peer_role)
	for ((i = 0; i < $2 * 20; i++)); do
		[[ ! -e $IRN_SHARED/val.$1 ]] || return 0
		[[ ! -e $IRN_SHARED/abort.$peer ]] ||
			irn_fail "guest $peer gave up while $IRN_ROLE waited for $1"
		irn_nap 0.05
	done
	irn_fail "value '$1' from the peer did not arrive within ${2}s"
}

irn_two_guests()
{
	[[ ${IRN_GUESTS:-1} == 2 ]]
}

irn_peer_aborted()
{
	[[ -n ${IRN_SHARED:-} && -e $IRN_SHARED/abort.$(irn_peer_role) ]]
}

# _irn_wait_file FILE SECONDS: true once FILE exists; false after SECONDS,
# or as soon as the peer gave up.
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
