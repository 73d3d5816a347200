#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 2 of an irn guest: runs as PID 1 on the host's root (9p, read
# only) after switch_root. Reads /run/irn/out/guest.env (written by
# scripts/vm.sh), makes the staged modules modprobe-able, brings up lo and
# eth0, runs the job script and powers the guest off.
#
# Files it leaves in the result export (/run/irn/out on the guest):
#   job.log  job stdout+stderr      job.rc  exit status of the job
#   dmesg.txt  kernel log at the end
set -uo pipefail

OUT=/run/irn/out
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb

say() { printf 'irn-guest: %s\n' "$*" >/dev/console; }

power_off() {
	sync
	/bin/busybox reboot -f
	sleep 2
	echo b >/proc/sysrq-trigger
}

fatal() {
	say "FATAL: $*"
	echo "IRN-GUEST-FATAL"
	echo "$*" >"$OUT/fatal" 2>/dev/null
	power_off
}

mount_extras() {
	mkdir -p /dev/pts /dev/shm
	mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t configfs configfs /sys/kernel/config 2>/dev/null
	ln -sf /proc/self/fd /dev/fd 2>/dev/null
	return 0
}

# IRN_MODSTAGE is a host directory prepared by scripts/vm.sh holding
# lib/modules/<release> with a depmod'ed copy of the test modules in
# extra/ and a link to the kernel's own modules. The original /lib/modules
# stays reachable as /run/irn/lib-modules-orig (the link points there).
setup_modules() {
	[[ -n ${IRN_MODSTAGE:-} ]] || return 0
	[[ -d $IRN_MODSTAGE/lib/modules/$(uname -r) ]] ||
		fatal "module stage $IRN_MODSTAGE has no lib/modules/$(uname -r)"
	mkdir -p /run/irn/lib-modules-orig
	mount --bind /lib/modules /run/irn/lib-modules-orig ||
		fatal "cannot bind /lib/modules"
	mount --bind "$IRN_MODSTAGE/lib/modules" /lib/modules ||
		fatal "cannot bind $IRN_MODSTAGE/lib/modules over /lib/modules"
}

wait_carrier() {
	local dev=$1
	for _ in $(seq 50); do
		[[ $(cat "/sys/class/net/$dev/carrier" 2>/dev/null) == 1 ]] && return 0
		sleep 0.1
	done
	return 1
}

# A switch guest (no address of its own): every port up, bridged by its
# job.
setup_ports() {
	local p

	for p in /sys/class/net/eth*; do
		ip link set "${p##*/}" up
		wait_carrier "${p##*/}" || fatal "${p##*/} has no carrier"
	done
}

setup_network() {
	hostname "irn-$IRN_ROLE"
	ip link set lo up
	[[ -d /sys/class/net/$IRN_NETDEV ]] ||
		fatal "no network device $IRN_NETDEV (virtio-net missing?)"
	if [[ -z $IRN_SELF_IP ]]; then
		setup_ports
		return
	fi
	ip addr add "$IRN_SELF_IP/24" brd + dev "$IRN_NETDEV"
	ip link set "$IRN_NETDEV" up
	wait_carrier "$IRN_NETDEV" || fatal "$IRN_NETDEV has no carrier"
	# scripts/vm.sh --cables 2: the second cable, up without an address
	# (scripts/guest/mpnet.sh makes the multipath bed of both)
	if [[ ${IRN_CABLES:-1} == 2 ]]; then
		ip link set eth1 up
		wait_carrier eth1 || fatal "eth1 (the second cable) has no carrier"
	fi
}

run_job() {
	local rc
	say "running $IRN_JOB ${IRN_JOB_ARGS[*]}"
	cd /tmp || return 1
	bash "$IRN_JOB" "${IRN_JOB_ARGS[@]}" </dev/null >"$OUT/job.log" 2>&1
	rc=$?
	say "job exited with status $rc"
	echo "$rc" >"$OUT/job.rc"
}

main() {
	[[ -f $OUT/guest.env ]] || fatal "$OUT/guest.env missing"
	# shellcheck disable=SC1091
	source "$OUT/guest.env"
	mount_extras
	setup_modules
	setup_network
	say "up: role $IRN_ROLE, $(uname -r), ip ${IRN_SELF_IP:-none}, uptime $(cut -d' ' -f1 /proc/uptime) s"
	run_job
	dmesg >"$OUT/dmesg.txt" 2>&1
	power_off
}

main "$@"
