#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages the irn build and test harness needs.
# Idempotent: does nothing (and prints nothing) when all are present.
#
#   scripts/deps.sh [--check]   --check: only report, exit 1 if missing
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"

PACKAGES=(
	# kernel build, out-of-tree modules, lint
	build-essential gcc make flex bison bc cpio dkms libelf-dev libssl-dev
	xz-utils rsync sparse perl git
	linux-headers-amd64 linux-image-amd64 linux-source-6.1
	# guests
	qemu-system-x86 busybox-static kmod util-linux
	# networking and RDMA user space used inside guests
	iproute2 iputils-ping ethtool procps tcpdump iperf3
	rdma-core ibverbs-utils ibverbs-providers perftest rdmacm-utils qperf
	libibverbs-dev librdmacm-dev python3 python3-pyverbs
	# kernel RDMA consumers: NVMe over Fabrics (scripts/tests/nvmeof.sh)
	fio nvme-cli
	# reports
	gnuplot-nox python3-docutils
)

# Debian's 6.12 line, for make check-6.12 (IRN_KERNEL_LINE=6.12)
[[ $IRN_KERNEL_LINE != 6.12 ]] ||
	PACKAGES+=(linux-image-6.12-amd64 linux-headers-6.12-amd64)

missing_packages() {
	local p st
	for p in "${PACKAGES[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || st=
		[[ $st == installed ]] || printf '%s\n' "$p"
	done
}

main() {
	local check=0 missing
	[[ ${1:-} == --check ]] && check=1
	command -v dpkg-query >/dev/null ||
		irn_die "dpkg-query not found: this harness expects Debian 12"
	mapfile -t missing < <(missing_packages)
	[[ ${#missing[@]} -eq 0 ]] && return 0
	if [[ $check == 1 ]]; then
		irn_log "missing packages: ${missing[*]}"
		return 1
	fi
	irn_need_root "installing packages (${missing[*]})"
	irn_log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null ||
		irn_die "apt-get update failed; check the network and /etc/apt/sources.list"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		irn_die "apt-get install failed for: ${missing[*]}"
	mapfile -t missing < <(missing_packages)
	[[ ${#missing[@]} -eq 0 ]] ||
		irn_die "still missing after install: ${missing[*]}"
}

main "$@"
