#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Demo (placeholder): install what is missing, build rdma_irn.ko for
# Debian's kernel, boot one guest, add an irn link on eth0 and show it
# with rdma-core's tools.
#
#   scripts/demo.sh
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

main() {
	local bdir run rc=0
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	bdir=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
		irn_die "building rdma_irn.ko failed (output above)"
	run=$(irn_run_dir)
	"$IRN_ROOT/scripts/vm.sh" --name demo --run-dir "$run" --timeout 300 \
		--modules "$bdir/rdma_irn.ko" "$IRN_ROOT/scripts/guest/demo.sh" || rc=$?
	cat "$run/demo/guest-a/out/job.log" 2>/dev/null || true
	[[ $rc == 0 ]] || irn_die "demo failed (status $rc); console: $run/demo/guest-a/console.log"
}

main "$@"
