# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# NVMe over Fabrics workloads (nvme_randread, nvme_randwrite) for the
# guest side of scripts/compare.sh, which sources this file.  One guest is the target: nvmet-rdma without SRQ (its
# default, so that every driver is measured the same way) exporting a
# 256 MiB brd RAM disk.  The other connects with nvme-rdma for each run, runs fio
# (4 KiB random I/O, iodepth 16, libaio, O_DIRECT) and disconnects.

IRN_NVME_NQN=nqn.2026-11.org.irn:bench

# irn_nvme_target ADDR: export the namespace on ADDR port 4420, once.
# Fails when this kernel lacks a module it needs (prints which).
irn_nvme_target() {
	local addr=$1 c=/sys/kernel/config/nvmet s p m
	s=$c/subsystems/$IRN_NVME_NQN p=$c/ports/1
	[[ -e $p/subsystems/$IRN_NVME_NQN ]] && return 0
	modprobe configfs
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	for m in brd nvmet nvmet-rdma; do
		modinfo "$m" >/dev/null 2>&1 || { echo "no $m module in this kernel"; return 1; }
	done
	modprobe brd rd_nr=1 rd_size=262144 max_part=0 && modprobe nvmet &&
		modprobe nvmet-rdma use_srq=0 || return 1
	mkdir -p "$s/namespaces/1" "$p" || return 1
	echo 1 >"$s/attr_allow_any_host"
	echo /dev/ram0 >"$s/namespaces/1/device_path"
	echo 1 >"$s/namespaces/1/enable"
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$addr" >"$p/addr_traddr"
	echo 4420 >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$IRN_NVME_NQN"
}

# irn_nvme_run NAME SECONDS ADDR LOG JSON: connect to the target at ADDR,
# run fio NAME (nvme_randread or nvme_randwrite) for SECONDS with its
# JSON report in JSON, disconnect.  Progress and errors go to LOG.
# Fails if no namespace appeared or fio failed.
irn_nvme_run() {
	local name=$1 secs=$2 addr=$3 log=$4 json=$5 dev='' d i rc=0 up=0
	modprobe nvme-rdma || return 1
	for i in 1 2 3; do
		if timeout 120 nvme connect -t rdma -a "$addr" -s 4420 \
			-n "$IRN_NVME_NQN" >>"$log" 2>&1; then
			up=1
			break
		fi
		sleep 2
	done
	if ((!up)); then
		echo "nvme connect failed three times" >>"$log"
		return 1
	fi
	for ((i = 0; i < 300; i++)); do
		for d in /sys/block/nvme*; do
			[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ && -b /dev/${d##*/} ]] &&
				dev=/dev/${d##*/} && break 2
		done
		sleep 0.1
	done
	if [[ -z $dev ]]; then
		echo "no NVMe namespace appeared after connecting" >>"$log"
		rc=1
	else
		timeout $((secs + 120)) fio --name="$name" --filename="$dev" \
			--direct=1 --ioengine=libaio --rw="${name#nvme_}" --bs=4k \
			--iodepth=16 --size=64M --time_based --runtime="$secs" \
			--output-format=json --output="$json" >>"$log" 2>&1 || rc=1
	fi
	timeout 120 nvme disconnect -n "$IRN_NVME_NQN" >>"$log" 2>&1
	return $rc
}
