#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages the irn build and test harness needs.
# Idempotent: does nothing (and prints nothing) when all are present.
#
#   scripts/deps.sh [--check] [--with-line LINE]
#
# --check: only report, exit 1 if anything is missing.  --with-line 6.12
# also installs Debian's kernel image and headers of that line (make
# check runs a subset on it; IRN_KERNEL_LINE=6.12 implies it).
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

# with_line LINE: Debian's kernel of LINE (6.12), image and headers, too
with_line() {
	[[ $1 == "$IRN_NEW_LINE" ]] ||
		irn_die "--with-line: Debian 12 offers one more kernel line, $IRN_NEW_LINE, not '$1'"
	PACKAGES+=("linux-image-$1-amd64" "linux-headers-$1-amd64")
}

missing_packages() {
	local p st
	for p in "${PACKAGES[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || st=
		[[ $st == installed ]] || printf '%s\n' "$p"
	done
}

main() {
	local check=0 missing

	while [[ $# -gt 0 ]]; do
		case $1 in
		--check) check=1 ;;
		--with-line) with_line "${2:-}"; shift ;;
		*) irn_die "usage: scripts/deps.sh [--check] [--with-line LINE]" ;;
		esac
		shift
	done
	[[ $IRN_KERNEL_LINE != "$IRN_NEW_LINE" ]] || with_line "$IRN_NEW_LINE"
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
