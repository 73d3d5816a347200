# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The client/server cases of scripts/tests/lib.sh (tests source lib.sh,
# never this file): irn_case and irn_cases_finish, and the checks of a
# case's output for perftest, ibv_*_pingpong and rping.  Uses runner.sh,
# device.sh (IRN_CASE_DEVS) and peer.sh.
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
