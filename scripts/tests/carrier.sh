#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=120 ci=120 debug
#
# Port state follows the netdev: "ip link set eth0 down" -> port DOWN (1),
# "up" -> ACTIVE (4), as seen in sysfs and ibv_devinfo, and userspace gets
# IBV_EVENT_PORT_ERR and IBV_EVENT_PORT_ACTIVE (ibv_asyncwatch).
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_cmd ibv_devinfo ibv_asyncwatch

DEV=$IRN_DEV
ND=$IRN_NETDEV
irn_defer ip link set "$ND" up

devinfo_state()
{
	ibv_devinfo -d "$DEV" -i 1 | awk '$1 == "state:" { print $2, $3 }'
}

expect_state()
{
	local num=$1 name=$2 seen

	irn_wait_for 10 "$DEV port state $num ($name) in sysfs" \
		irn_port_state_is "$DEV" "$num"
	irn_log "ok: sysfs state: $(cat "/sys/class/infiniband/$DEV/ports/1/state")"
	seen=$(devinfo_state)
	irn_expect_eq "ibv_devinfo port state" "PORT_$name ($num)" "$seen"
}

irn_link_add "$DEV" "$ND"
expect_state 4 ACTIVE

ev=$IRN_OUT/asyncwatch-$DEV.txt
stdbuf -oL ibv_asyncwatch -d "$DEV" >"$ev" 2>&1 &
watch_pid=$!
irn_defer kill "$watch_pid"
# ibv_asyncwatch prints its banner once it has the device open.
irn_wait_for 10 "ibv_asyncwatch to start" grep -q . "$ev"
kill -0 "$watch_pid" 2>/dev/null || irn_fail "ibv_asyncwatch exited: $(cat "$ev")"

ip link set "$ND" down
expect_state 1 DOWN
irn_wait_for 10 "IBV_EVENT_PORT_ERR from ibv_asyncwatch" \
	grep -q IBV_EVENT_PORT_ERR "$ev"
irn_log "ok: IBV_EVENT_PORT_ERR seen"

ip link set "$ND" up
expect_state 4 ACTIVE
irn_wait_for 10 "IBV_EVENT_PORT_ACTIVE from ibv_asyncwatch" \
	grep -q IBV_EVENT_PORT_ACTIVE "$ev"
irn_log "ok: IBV_EVENT_PORT_ACTIVE seen"
irn_log "asyncwatch output:"$'\n'"$(cat "$ev")"

kill "$watch_pid" 2>/dev/null || true
wait "$watch_pid" 2>/dev/null || true
irn_dmesg_check "carrier"
irn_log "PASS"
