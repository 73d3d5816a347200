#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=180 ci=180 6.12
#
# What libibverbs (through the stock rxe provider) reports for irn0,
# checked field by field, and how the active MTU follows the netdev MTU.
# With IRN_DRIVER=rxe the same checks run against stock rdma_rxe; this is
# how the expectations below were validated.
#
# Node GUID: EUI-64 from the netdev MAC m0:m1:m2:m3:m4:m5 ->
#   (m0 ^ 0x02) m1 m2 ff fe m3 m4 m5  (universal/local bit flipped),
# e.g. 52:54:00:12:34:01 -> 5054:00ff:fe12:3401 (as stock rxe shows).
# sys_image_guid equals node_guid.
#
# Active MTU: the largest IB MTU (256, 512, 1024, 2048, 4096) not above
# the netdev MTU minus the IPv4/UDP/BTH/ICRC headroom (plus extension
# headers).  Stock rxe reserves 80 bytes; irn reserves between 44
# (IPv4 20 + UDP 8 + BTH 12 + ICRC 4) and 100.  The netdev MTUs below
# were chosen so that any headroom in 44..100 gives the same answer:
#
#   netdev MTU   headroom 44..100 leaves   expected active_mtu
#   1500         1400..1456                1024
#   1280         1180..1236                1024
#   3000         2900..2956                2048
#   4200         4100..4156                4096
#   9000         8900..8956                4096
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init
irn_require_cmd ibv_devices ibv_devinfo

DEV=$IRN_DEV
ND=$IRN_NETDEV
declare -A MTU_TABLE=([1500]=1024 [1280]=1024 [3000]=2048 [4200]=4096 [9000]=4096)
MTU_ORDER=(3000 4200 9000 1280 1500)

orig_mtu=$(cat "/sys/class/net/$ND/mtu")
irn_defer ip link set "$ND" mtu "$orig_mtu"
[[ $orig_mtu == 1500 ]] ||
	irn_log "info: $ND starts with MTU $orig_mtu; setting 1500 first"
ip link set "$ND" mtu 1500 || irn_fail "cannot set $ND MTU 1500"

irn_link_add "$DEV" "$ND"
irn_wait_for 10 "$DEV port 1 ACTIVE" irn_port_state_is "$DEV" 4

# --- node GUID from the MAC --------------------------------------------
mac=$(cat "/sys/class/net/$ND/address")
IFS=: read -r m0 m1 m2 m3 m4 m5 <<<"$mac"
g0=$(printf '%02x' $((0x$m0 ^ 0x02)))
want_guid="$g0$m1:${m2}ff:fe$m3:$m4$m5"
irn_log "$ND MAC $mac -> expected node GUID $want_guid"

devices=$(ibv_devices 2>&1) || irn_fail "ibv_devices failed: $devices"
printf '%s\n' "$devices"
dline=$(awk -v d="$DEV" '$1 == d' <<<"$devices")
[[ -n $dline ]] || irn_fail "ibv_devices does not list $DEV"
irn_expect_eq "ibv_devices node GUID of $DEV" "${want_guid//:/}" "$(awk '{print $2}' <<<"$dline")"
irn_expect_eq "sysfs node_guid" "$want_guid" "$(cat "/sys/class/infiniband/$DEV/node_guid")"

# --- ibv_devinfo -v, field by field --------------------------------------
info=$(ibv_devinfo -v -d "$DEV" 2>&1) || irn_fail "ibv_devinfo -v -d $DEV failed: $info"
printf '%s\n' "$info" >"$IRN_OUT/ibv_devinfo-$DEV.txt"

# field NAME: the value of the first "NAME:" line, blanks trimmed
field()
{
	awk -v n="$1:" '$1 == n { sub(/^[ \t]*[^ \t]+[ \t]+/, ""); print; exit }' <<<"$info"
}

irn_expect_eq "hca_id" "$DEV" "$(field hca_id)"
irn_expect_eq "transport" "InfiniBand (0)" "$(field transport)"
irn_expect_eq "node_guid" "$want_guid" "$(field node_guid)"
irn_expect_eq "sys_image_guid" "$want_guid" "$(field sys_image_guid)"
irn_expect_match "fw_ver" '^[0-9]+(\.[0-9]+)*$' "$(field fw_ver)"
irn_expect_match "vendor_id" '^0x[0-9a-f]+$' "$(field vendor_id)"
irn_expect_eq "phys_port_cnt" 1 "$(field phys_port_cnt)"
irn_expect_eq "port state" "PORT_ACTIVE (4)" "$(field state)"
irn_expect_eq "link_layer" "Ethernet" "$(field link_layer)"
irn_expect_eq "max_mtu" "4096 (5)" "$(field max_mtu)"
irn_expect_eq "active_mtu at netdev MTU 1500" "1024 (3)" "$(field active_mtu)"
irn_expect_match "max_cqe" '^[1-9][0-9]*$' "$(field max_cqe)"

# The GID table holds the IPv4-mapped address of the netdev as RoCE v2.
want_gid="::ffff:$IRN_SELF_IP, RoCE v2"
grep -Eq "GID\[ *[0-9]+\]:[[:space:]]+$want_gid\$" <<<"$info" ||
	irn_fail "ibv_devinfo: no GID entry '$want_gid'; GIDs: $(grep GID <<<"$info" | tr -s '\t ' ' ')"
irn_log "ok: GID table has $want_gid"
gidx=$(irn_gid_index "$DEV") ||
	irn_fail "sysfs: no RoCE v2 GID for ::ffff:$IRN_SELF_IP under /sys/class/infiniband/$DEV/ports/1/gids"
irn_log "ok: RoCE v2 GID index of ::ffff:$IRN_SELF_IP is $gidx"

# --- active MTU follows the netdev MTU -----------------------------------
port_mtu()
{
	ibv_devinfo -d "$DEV" -i 1 | awk '$1 == "active_mtu:" { print $2 }'
}

for m in "${MTU_ORDER[@]}"; do
	want=${MTU_TABLE[$m]}
	if ! err=$(ip link set "$ND" mtu "$m" 2>&1); then
		irn_skip_part "$ND refuses MTU $m ($err): active_mtu at that MTU"
		continue
	fi
	for ((i = 0; i < 50; i++)); do
		seen=$(port_mtu)
		[[ $seen == "$want" ]] && break
		sleep 0.1
	done
	irn_expect_eq "active_mtu at netdev MTU $m" "$want" "$seen"
done
irn_dmesg_check "devinfo"
irn_log "PASS"
