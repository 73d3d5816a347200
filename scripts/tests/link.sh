#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=180 ci=180
#
# rdma link add/delete life cycle:
#  - "rdma link add irn0 type irn netdev eth0" autoloads the module
#    (alias rdma-link-irn) and "rdma link show" lists irn0/1 on eth0;
#  - a second device on the same netdev is refused, and so is a duplicate
#    device name (on another Ethernet netdev, a dummy);
#  - a second device on another Ethernet netdev (dummy) works, and goes
#    away by itself when that netdev is unregistered;
#  - a non-Ethernet netdev (lo, ARPHRD_LOOPBACK) and a VLAN netdev
#    (eth0.5) are refused;
#  - "rdma link delete irn0" removes the device and rmmod then succeeds.
# With IRN_DRIVER=rxe the same runs against stock rdma_rxe.  Stock rxe
# refuses the second device ("File exists"), the duplicate name (the core
# says "Too many open files in system", ENFILE) and the VLAN ("Operation
# not permitted"), but accepts lo: with rxe that one is only reported.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init

DEV=$IRN_DEV
ND=$IRN_NETDEV
T=$IRN_LINK_TYPE

# expect_refused WHAT NAME NETDEV [rxe-differs]
expect_refused()
{
	local what=$1 name=$2 ndev=$3 rxe_differs=${4:-}

	if out=$(rdma link add "$name" type "$T" netdev "$ndev" 2>&1); then
		if [[ $IRN_DRIVER == rxe && -n $rxe_differs ]]; then
			irn_log "info: stock rxe accepts $what ($ndev)"
			irn_link_del "$name"
			return 0
		fi
		irn_fail "$what: 'rdma link add $name type $T netdev $ndev' succeeded but must be refused"
	fi
	[[ ! -e /sys/class/infiniband/$name ]] ||
		irn_fail "$what: add failed but /sys/class/infiniband/$name exists"
	irn_log "ok: $what refused: ${out:-<no message>}"
}

# 1. autoload through the link alias
out=$(rdma link add "$DEV" type "$T" netdev "$ND" 2>&1) ||
	irn_fail "rdma link add $DEV type $T netdev $ND failed (module autoload via alias rdma-link-$T?): $out"
irn_module_loaded "$IRN_MODULE" ||
	irn_fail "$IRN_MODULE not loaded after rdma link add (autoload)"
irn_wait_for 10 "/sys/class/infiniband/$DEV" test -d "/sys/class/infiniband/$DEV/ports/1"
show=$(rdma link show)
irn_log "rdma link show: $show"
line=$(grep "^link $DEV/1 " <<<"$show" || true)
[[ -n $line ]] || irn_fail "rdma link show does not list $DEV/1: '$show'"
[[ $line =~ netdev\ $ND( |$) ]] ||
	irn_fail "rdma link show: $DEV/1 not on netdev $ND: '$line'"
irn_log "ok: $line"

# 2. second device on the same netdev
irn_run_fails "second device on $ND" rdma link add "${DEV%0}9" type "$T" netdev "$ND"
[[ ! -e /sys/class/infiniband/${DEV%0}9 ]] ||
	irn_fail "second device on $ND was refused but ${DEV%0}9 exists"

# 3. another Ethernet netdev (dummy): duplicate name refused, a new
#    name accepted, and the device follows the netdev's unregistration
modprobe dummy 2>/dev/null || true
if ip link add irndummy0 type dummy 2>/dev/null; then
	irn_defer ip link delete irndummy0
	ip link set irndummy0 up
	irn_run_fails "duplicate name $DEV on irndummy0" \
		rdma link add "$DEV" type "$T" netdev irndummy0
	irn_link_add "${DEV%0}1" irndummy0
	rdma link show "${DEV%0}1/1" | grep -q "netdev irndummy0" ||
		irn_fail "${DEV%0}1 not shown on irndummy0: $(rdma link show)"
	ip link delete irndummy0
	irn_wait_for 10 "${DEV%0}1 to go away with irndummy0" \
		test ! -e "/sys/class/infiniband/${DEV%0}1"
	irn_log "ok: ${DEV%0}1 removed when irndummy0 was unregistered"
	[[ -e /sys/class/infiniband/$DEV ]] ||
		irn_fail "$DEV disappeared when irndummy0 was deleted"
else
	irn_skip_part "no dummy netdev support: the duplicate-name check on a second netdev"
	irn_run_fails "duplicate name $DEV" rdma link add "$DEV" type "$T" netdev "$ND"
fi

# 4. non-Ethernet netdev
expect_refused "loopback netdev" "${DEV%0}lo" lo rxe-differs

# 5. VLAN netdev
if modprobe 8021q 2>/dev/null &&
	ip link add link "$ND" name "$ND.5" type vlan id 5 2>/dev/null; then
	irn_defer ip link delete "$ND.5"
	ip link set "$ND.5" up
	expect_refused "VLAN netdev" "${DEV%0}v" "$ND.5"
	ip link delete "$ND.5"
else
	irn_skip_part "cannot create VLAN $ND.5 (no 8021q?): the VLAN check"
fi

# 6. delete and unload
irn_link_del "$DEV"
rdma link show | grep -q "^link $DEV/" &&
	irn_fail "rdma link show still lists $DEV after delete: $(rdma link show)"
irn_dmesg_check "after link tests"
out=$(rmmod "$IRN_MODULE" 2>&1) || irn_fail "rmmod $IRN_MODULE failed after deleting all links: $out"
irn_module_loaded "$IRN_MODULE" && irn_fail "$IRN_MODULE still loaded after rmmod"
irn_log "PASS"
