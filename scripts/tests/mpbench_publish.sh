#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: host timeout=60 ci=60
#
# scripts/mpbench.sh --publish, on the host, without guests: two runs'
# tables as mpbench wrote them (data/mpbench/{none,delay}.md, from real
# runs) go to a Documentation/results-multipath.rst in a scratch root
# (IRN_PUBLISH_ROOT) that docutils passes with no warning, one section a
# run in the order given, named by the run's congestion control, each
# with all of its table's rows and cells and its run line; a second
# publish replaces the page; a folder without mpbench.md fails and
# leaves the page as it was.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA=$ROOT/scripts/tests/data/mpbench

# shellcheck source=scripts/lib/common.sh
source "$ROOT/scripts/lib/common.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=scripts/tests/lib/expect.sh
source "$ROOT/scripts/tests/lib/expect.sh"

# run NAME: a finished run's folder with data/mpbench/NAME.md
run() {
	mkdir -p "$TMP/$1"
	cp "$DATA/$1.md" "$TMP/$1/mpbench.md"
	printf '%s\n' "$TMP/$1"
}

# cells PAGE SECTION: the list-table cells of section SECTION, one a
# line, from docutils' own parse of PAGE
cells() {
	python3 - "$1" "$2" <<'PY'
import sys
import docutils.core
import docutils.nodes
tree = docutils.core.publish_doctree(
    open(sys.argv[1], encoding="utf-8").read(),
    settings_overrides={"halt_level": 2, "report_level": 2})
for sec in tree.traverse(docutils.nodes.section):
    if sec[0].astext() != sys.argv[2]:
        continue
    for entry in sec.traverse(docutils.nodes.entry):
        print(entry.astext())
PY
}

# md_cells MD: the Markdown table's cells, one a line, markup dropped
md_cells() {
	awk -F' [|] ' '/^[|]/ && !/^[|]---/ {
		sub(/^[|] /, ""); sub(/ [|]$/, "")
		for (i = 1; i <= NF; i++) { c = $i; gsub(/[*][*]/, "", c); print c }
	}' "$1"
}

PUB=$TMP/root
mkdir -p "$PUB/Documentation"
NONE=$(run none)
DELAY=$(run delay)
PAGE=$PUB/Documentation/results-multipath.rst
expect "publish two runs" 0 \
	"$(IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/mpbench.sh" --publish "$NONE" --publish "$DELAY" \
		>"$TMP/publish.log" 2>&1 && echo 0 || echo 1)"
expect "docutils passes the page" 0 "$(irn_rst_check "$PAGE" >&2 && echo 0 || echo 1)"
expect "sections in the order given" "Congestion control: none
Congestion control: delay" "$(grep '^Congestion control: ' "$PAGE")"
for cc in none delay; do
	expect "$cc: every cell of its table" "$(md_cells "$DATA/$cc.md")" \
		"$(cells "$PAGE" "Congestion control: $cc")"
	line=$(tail -n 1 "$DATA/$cc.md")
	expect "$cc: its run line" 1 "$(grep -cxF -- "$line" "$PAGE")"
done
expect "a missed target is bold" 1 "$(grep -cxF -- '     - **no**' "$PAGE")"

IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/mpbench.sh" --publish "$DELAY" >"$TMP/publish.log" 2>&1
expect "a new publish replaces the page" "Congestion control: delay" \
	"$(grep '^Congestion control: ' "$PAGE")"
cp "$PAGE" "$TMP/before.rst"
mkdir -p "$TMP/empty"
expect "a folder without mpbench.md fails" 1 \
	"$(IRN_PUBLISH_ROOT=$PUB "$ROOT/scripts/mpbench.sh" --publish "$DELAY" --publish "$TMP/empty" \
		>"$TMP/bad.log" 2>&1 && echo 0 || echo 1)"
expect "and leaves the page as it was" 0 "$(cmp -s "$TMP/before.rst" "$PAGE" && echo 0 || echo 1)"

irn_expect_summary
