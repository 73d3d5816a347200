# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A live QP held still, for crafted packets, in scripts/tests/lib.sh
# (tests source lib.sh, never this file): irn_held_start stops a perftest
# client on guest a so that a test can send b's QP packets of its own;
# irn_held_epsn reads b's expected PSN, irn_held_end resumes or kills the
# client.  Uses runner.sh, device.sh and peer.sh.

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
