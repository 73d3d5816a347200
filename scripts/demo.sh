#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build rdma_irn.ko for Debian's
# kernel, and run the quick lossless-against-lossy comparison
# (scripts/compare.sh --preset demo: stock rdma_rxe, irn in go-back-N
# mode, irn with IRN, and TCP as the ceiling, on two QEMU guests joined
# by one cable, lossless, with 1% and 5% random loss, and behind a
# shallow rate-limited bottleneck).  Prints the ratios to rxe and the
# summary tables, and where the results folder (CSV, Markdown, PNG
# plots) is.  Some 6 to 10 minutes.
#
#   scripts/demo.sh [COMPARE OPTIONS]   e.g. --reps 3 (see compare.sh --help)
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"

main() {
	local out
	irn_need_root demo
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	out=$IRN_RESULTS/demo-$(date +%Y%m%d-%H%M%S)
	"$IRN_ROOT/scripts/compare.sh" --preset demo --out "$out" "$@" ||
		irn_die "the comparison failed (output above; logs in $out/raw)"
	[[ -s $out/summary.md ]] || irn_die "no summary was written; logs in $out/raw"
	printf '\n'
	# the tables, without the run description at the top of summary.md
	# and without the ratios to rxe, which compare.sh has just printed
	awk '/^## Plots/ { exit }
		/^### / { on = 1; ratios = /^### Over stock rxe/ }
		on && !ratios' "$out/summary.md"
	printf 'How this was measured: the top of %s\n' "$out/summary.md"
}

main "$@"
