#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multipath benchmark (issue 36) on the two-cable bed: two guests
# joined by two cables (scripts/vm.sh --guests 2 --cables 2), bonded at
# each end into bond0 (scripts/guest/mpnet.sh: balance-xor, layer3+4
# hash: each UDP source port takes one cable), each cable's egress shaped
# at both ends by tbf to the same rate, so that the cables and not the
# guests' CPUs are the bottleneck.  Guest a writes to guest b, one case
# after the other in one boot (scripts/guest/mpbench.sh), and each case
# is a row of the table.
#
#   scripts/mpbench.sh [--rate MBIT] [--seconds S] [--paths K]
#                      [--cc none|dcqcn|delay] [--cases "NAME ..."]
#                      [--trace] [--out DIR]
#   scripts/mpbench.sh --publish DIR [--publish DIR ...]
#
# Cases (driver and mode, paths, cable 2; cable 1 is always shaped):
#   rxe-pinned       stock rdma_rxe, 1 port, shaped: what rxe gets from
#                    the cable its one port hashes to
#   gbn-pinned       irn mode gbn, paths K, shaped (gbn never sprays: one
#                    port, one cable)
#   irn-pinned       irn mode irn, paths 1, shaped: the one-path figure
#   irn-sprayed      irn mode irn, paths K, shaped.  Target: 1.7 times
#                    irn-pinned or more
#   irn-clean-alone  irn mode irn, paths K, cable 2 down at both ends:
#                    the clean path alone
#   irn-lossy        irn mode irn, paths K, cable 2 shaped and losing 5%
#                    (netem, both ends).  Target: 0.9 times
#                    irn-clean-alone or more
#   irn-skewed       irn mode irn, paths K, cable 2 shaped and 10 ms
#                    longer each way (netem, both ends): paths of
#                    different lengths.  Target: 1.7 times irn-pinned or
#                    more
#   irn-cut          irn mode irn, paths K, shaped; cable 2 set down at
#                    both ends a quarter of the way through an irn_verify
#                    transfer (RC writes of 1 MiB, --rate MiB, 16 to 64).
#                    Target: verified (no error completion, every byte
#                    checked), and back to 0.9 times irn-pinned or more
#                    within 1 s of the cut
# Goodput: ib_write_bw's average (64 KiB WRITEs, -D S; perftest leaves
# out 2 s at each end) for all but irn-cut.  irn-cut's over time is the
# new data a sends (the device's sent_pkts less retransmitted_pkts, times
# the path MTU) in the 0.25 s between two readings; its recovery time
# runs from the cut to the end of the first such bin at 90% of
# irn-pinned or more whose next bin is too, and its goodput cell is the
# mean from that bin to the transfer's end.  Ratios are to irn-pinned,
# irn-lossy's to irn-clean-alone.  Each row also gives the share of its
# bytes a sent on each cable.
#
# Paths: the bond's hash with two cables takes bits 1 and 9 of the
# source port, and irn's path i moves the port by i * 0x278d in its low
# 14 bits (irn_path_sport()), so whatever the QP, 2 paths put one port on
# each cable, 8 four on each, and 4 (the knob's suggested value) three on
# one and one on the other: over two equal cables that QP is held to 4/3
# of one.  Hence the default of 2; a K that splits unevenly is warned
# about and named in the table.
#
# --cc: the congestion control of every irn case's QPs, at both ends
# (debugfs cc; the tuning of each is the driver's default), against the
# same targets.
#
# --trace: guest a records irn's path, congestion control, recovery and
# retransmission tracepoints during each irn case into
# raw/bed/guest-a/out/NAME.trace (for finding out why a case misses its
# target; tracing costs goodput, so the figures of such a run are not
# the benchmark's).
#
# --publish: no run; writes Documentation/results-multipath.rst from the
# mpbench.md of finished runs' results folders, one section a run (for
# example one with --cc none and one with --cc delay), in the order
# given, in IRN_PUBLISH_ROOT (this checkout by default).  A new publish
# replaces the page.
#
# Defaults: 10 Mbit/s a cable (a TCG guest moves 5 to 10 MB/s over an
# unshaped cable, but some 2.9 MB/s through the bond and two shapers: at
# 20 Mbit/s a cable, 2.5 MB/s each, the guests and not the cables were
# the bottleneck of the sprayed case), 20 s a case,
# 2 paths, no congestion control, every case.  Results: DIR/mpbench.md (the table, then the
# run's date and commit in one line) and the guests' raw output in
# DIR/raw.  A target missed is a "no" in the table, not an error; a case
# that failed (an error completion, a bad byte, a tool's error) makes the
# run fail after the table is written.
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

RATE=10 SECS=20 PATHS=2 CC=none OUT='' CASES='' TRACE=0 PUBLISH=()
ALL_CASES="rxe-pinned gbn-pinned irn-pinned irn-sprayed irn-clean-alone irn-lossy"
ALL_CASES+=" irn-skewed irn-cut"

usage() {
	sed -n '4,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

# case_spec NAME: "NAME|DRIVER|MODE|PATHS|CABLE2|KIND" for the guests
# (scripts/guest/mpbench.sh has the fields' meaning)
case_spec() {
	case $1 in
	rxe-pinned) echo "$1|rxe|-|1|shaped|bw" ;;
	gbn-pinned) echo "$1|irn|gbn|$PATHS|shaped|bw" ;;
	irn-pinned) echo "$1|irn|irn|1|shaped|bw" ;;
	irn-sprayed) echo "$1|irn|irn|$PATHS|shaped|bw" ;;
	irn-clean-alone) echo "$1|irn|irn|$PATHS|cut|bw" ;;
	irn-lossy) echo "$1|irn|irn|$PATHS|lossy|bw" ;;
	irn-skewed) echo "$1|irn|irn|$PATHS|delayed|bw" ;;
	irn-cut) echo "$1|irn|irn|$PATHS|cut-mid|verify" ;;
	*) irn_die "unknown case $1 (see --help)" ;;
	esac
}

# port_split K: "N1 N2", how many of K paths' ports take path 0's cable and
# the other (see Paths above: bits 1 and 9 of i * 0x278d)
port_split() {
	local i v other=0

	for ((i = 0; i < $1; i++)); do
		v=$(((i * 0x278d) & 0x3fff))
		other=$((other + (((v >> 1) ^ (v >> 9)) & 1)))
	done
	printf '%d %d\n' $(($1 - other)) "$other"
}

parse_args() {
	local c n1 n2

	while [[ $# -gt 0 ]]; do
		case $1 in
		--rate) RATE=$2; shift ;;
		--seconds) SECS=$2; shift ;;
		--paths) PATHS=$2; shift ;;
		--cc) CC=$2; shift ;;
		--cases) CASES=$2; shift ;;
		--trace) TRACE=1 ;;
		--publish) PUBLISH+=("$2"); shift ;;
		--out) OUT=$2; shift ;;
		-h | --help) usage 0 ;;
		*) irn_warn "unknown option $1"; usage 1 ;;
		esac
		shift
	done
	[[ $RATE =~ ^[1-9][0-9]*$ ]] || irn_die "--rate takes a whole number of Mbit/s"
	if [[ ! $SECS =~ ^[0-9]+$ ]] || ((SECS < 6)); then
		irn_die "--seconds takes a whole number, 6 or more (perftest leaves out 2 s at each end)"
	fi
	[[ $CC =~ ^(none|dcqcn|delay)$ ]] || irn_die "--cc takes none, dcqcn or delay"
	[[ $PATHS =~ ^[2-8]$ ]] || irn_die "--paths takes 2 to 8 (the knob's range; 1 sprays nothing)"
	CASES=${CASES:-$ALL_CASES}
	for c in $CASES; do
		case_spec "$c" >/dev/null
	done
	for c in irn-sprayed:irn-pinned irn-skewed:irn-pinned irn-cut:irn-pinned \
		 irn-lossy:irn-clean-alone; do
		[[ " $CASES " != *" ${c%:*} "* || " $CASES " == *" ${c#*:} "* ]] ||
			irn_warn "${c%:*} without ${c#*:}: its ratio will read n/a"
	done
	read -r n1 n2 < <(port_split "$PATHS")
	SPLIT="$n1 + $n2"
	((n1 == n2)) ||
		irn_warn "$PATHS paths put $n1 ports on one cable and $n2 on the other (mpnet.sh's hash): spraying over two equal cables gets at most $((PATHS * 100 / (n1 > n2 ? n1 : n2)))% of one; 2 or 8 split evenly"
	# irn-cut's transfer: some 6 s on one cable after the cut; the
	# time it may take, irn_verify's checks included
	MIB=$((RATE < 16 ? 16 : RATE > 64 ? 64 : RATE))
	LIMIT=$((60 + 4 * MIB * 8 / RATE))
}

# out RAW NAME: guest a's files of case NAME, without the suffix
out() { printf '%s/guest-a/out/%s\n' "$1" "$2"; }

# goodput RAW NAME: ib_write_bw's average (MiB/s) in MB/s of 10^6 bytes,
# nothing without one
goodput() {
	awk '$1 == 65536 && NF >= 5 && $4 ~ /^[0-9.]+$/ { v = $4 }
		END { if (v != "") printf "%.2f\n", v * 1048576 / 1e6 }' \
		"$(out "$1" "$2").log" 2>/dev/null || true
}

# seen RAW NAME: "a sent X% / Y%": its bytes on cable 1 and cable 2
seen() {
	awk '$2 + $4 > 0 { printf "; a sent %.0f%% / %.0f%% on cables 1 / 2",
		100 * $2 / ($2 + $4), 100 * $4 / ($2 + $4) }' \
		"$(out "$1" "$2").split" 2>/dev/null || true
}

# ratio A B: A / B to two places, n/a without both
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

# met RATIO MIN: yes, **no** or n/a
met() {
	awk -v r="$1" -v m="$2" 'BEGIN {
		if (r == "n/a") print "n/a"; else print (r + 0 >= m ? "yes" : "**no**") }'
}

# cut_figures RAW NAME REF: "AFTER RATIO RECOVERY" for irn-cut against
# REF MB/s: the mean rate from the recovery on (MB/s), its ratio to REF,
# the seconds from the cut to the end of the first 0.25 s bin at 90% of
# REF or more whose next bin is too ("none" if no bin is); nothing
# without the files.  The bins start at the cut or later and end before
# the one in which a sent its last new packet (the client then waits for
# its completions and the server checks the data: no new data is due)
cut_figures() {
	local f mtu cut end

	f=$(out "$1" "$2")
	mtu=$(grep -o -m1 'active_mtu [0-9]*' "$f.log" 2>/dev/null | cut -d' ' -f2 || true)
	cut=$(awk '$1 == "cut" { print $2 }' "$f.times" 2>/dev/null || true)
	end=$(awk '$1 == "end" { print $2 }' "$f.times" 2>/dev/null || true)
	[[ -n $mtu && -n $cut && -n $end && -n $3 && -s $f.rate ]] || return 0
	awk -v cut="$cut" -v end="$end" -v mtu="$mtu" -v ref="$3" '
		NF == 5 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ { t[n] = $1; s[n] = $4 - $5; n++ }
		END {
			for (last = n - 1; last > 0 && s[last - 1] == s[n - 1]; last--)
				;
			for (i = 1; i < last; i++) {
				if (t[i - 1] < cut || t[i] > end || t[i] <= t[i - 1])
					continue
				e[k] = t[i]; d[k] = t[i] - t[i - 1]
				r[k] = (s[i] - s[i - 1]) * mtu / d[k] / 1e6; k++
			}
			if (!k)
				exit
			for (j = 0; j < k; j++)
				if (r[j] >= 0.9 * ref && (j == k - 1 || r[j + 1] >= 0.9 * ref))
					break
			rec = j < k ? sprintf("%.2f", e[j] - cut) : "none"
			if (j == k)
				j = 0
			for (; j < k; j++) { bytes += r[j] * d[j]; secs += d[j] }
			printf "%.2f %.2f %s\n", bytes / secs, bytes / secs / ref, rec
		}' "$f.rate"
}

# row RAW NAME: the table's row of case NAME
row() {
	local raw=$1 name driver mode paths c2 dm g cond r target ok fail f
	local rec

	IFS='|' read -r name driver mode paths c2 _ <<<"$(case_spec "$2")"
	f=$(out "$raw" "$name")
	dm=$driver
	[[ $mode == - ]] || dm+=" $mode"
	case $c2 in
	shaped) cond="both cables $RATE Mbit/s" ;;
	lossy) cond="both $RATE Mbit/s, cable 2 losing 5%" ;;
	delayed) cond="both $RATE Mbit/s, cable 2 10 ms longer each way" ;;
	cut) cond="cable 1 $RATE Mbit/s, cable 2 down" ;;
	cut-mid) cond="both $RATE Mbit/s, cable 2 down at 1/4 of $MIB MiB" ;;
	esac
	cond+=$(seen "$raw" "$name")
	fail=$(cat "$f.fail" 2>/dev/null || true)
	g=$(goodput "$raw" "$name")
	target='' ok=''
	case $name in
	irn-sprayed | irn-skewed)
		r=$(ratio "$g" "$PINNED") target="≥ 1.7 × irn-pinned" ok=$(met "$r" 1.7) ;;
	irn-lossy)
		r=$(ratio "$g" "$ALONE") target="≥ 0.9 × irn-clean-alone" ok=$(met "$r" 0.9) ;;
	irn-pinned) r=1.00 target="(the one-path figure)" ;;
	irn-cut)
		target="verified; ≥ 0.9 × irn-pinned within 1 s of the cut"
		g='' r='' rec=''
		# a reference of 0 MB/s would find every bin back at once
		[[ -z $PINNED ]] || awk -v p="$PINNED" 'BEGIN { exit !(p + 0 > 0) }' &&
			read -r g r rec < <(cut_figures "$raw" "$name" "$PINNED"; echo) || true
		if [[ -z $r ]]; then
			r=n/a ok=n/a
		else
			if [[ $rec == none ]]; then r="$r (never back)"; else r="$r (back in $rec s)"; fi
			ok=$(awk -v t="$rec" 'BEGIN { print (t != "none" && t + 0 <= 1 ? "yes" : "**no**") }')
		fi
		[[ -e $f.verified ]] || ok="**no** (not verified)"
		;;
	*) r=$(ratio "$g" "$PINNED") ;;
	esac
	[[ -z $fail ]] || { g="failed: $fail" r=n/a ok="**no**"; }
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" \
		"$dm" "$paths" "$cond" "${g:-n/a}" "$r" "${target:-—}" "${ok:-—}"
}

# report RAW: the table and the run's line
report() {
	local raw=$1 c

	PINNED=$(goodput "$raw" irn-pinned)
	ALONE=$(goodput "$raw" irn-clean-alone)
	printf '| case | driver/mode | paths | cable conditions | goodput MB/s | ratio | target | met? |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	for c in $CASES; do
		row "$raw" "$c"
	done
	printf '\n%s, commit %s: %s Mbit/s a cable (tbf at both ends), %s s a case, %s paths (%s ports on the two cables), irn congestion control %s, irn-cut %s MiB; MB/s are 10^6 bytes a second, ratios to irn-pinned unless the target says otherwise.%s\n' \
		"$(date -u +%Y-%m-%dT%H:%MZ)" \
		"$(git -C "$IRN_ROOT" describe --always --dirty 2>/dev/null || echo '?')" \
		"$RATE" "$SECS" "$PATHS" "$SPLIT" "$CC" "$MIB" \
		"$(irn_host_busy_note "$OUT" | sed 's/^/ /')"
}

# rst_table MD: mpbench.md's Markdown table as a reStructuredText
# list-table (its cells' markup, **no**, means the same in both)
rst_table() {
	printf '.. list-table::\n   :header-rows: 1\n\n'
	awk -F' [|] ' '/^[|]/ && !/^[|]---/ {
		sub(/^[|] /, ""); sub(/ [|]$/, "")
		for (i = 1; i <= NF; i++)
			printf "   %s %s\n", (i == 1 ? "* -" : "  -"), $i
	}' "$1"
}

# publish DIR...: Documentation/results-multipath.rst from the runs'
# mpbench.md, checked before it is written
publish() {
	local root=${IRN_PUBLISH_ROOT:-$IRN_ROOT} page stage d line cc

	page=$root/Documentation/results-multipath.rst
	[[ -d $root/Documentation ]] || irn_die "--publish: $root has no Documentation/"

	python3 -c 'import docutils' 2>/dev/null ||
		irn_die "--publish: python3's docutils checks the page (apt-get install python3-docutils)"
	stage=$(mktemp)
	# shellcheck disable=SC2064 # the name now
	trap "rm -f '$stage'" EXIT
	{
		cat <<'EOF'
.. SPDX-License-Identifier: GPL-2.0

.. Written by scripts/mpbench.sh --publish from finished runs' results
   folders.  A new publish replaces it; do not edit it by hand.

===========================
Measured results: multipath
===========================

What one QP sprayed over two paths gets against the same QP pinned to
one of them, with one path lossy, longer than the other, or cut in the
middle of a transfer, beside stock rxe and irn's go-back-N mode on the
same bed: ``make mpbench`` on two guests joined by two shaped cables.
What the cases are and how to read them: ``Documentation/ops-guide.rst``,
"The benchmark: make mpbench".  Each section is one run, named with its
date, commit and settings in its last line; new runs replace the page::

    make mpbench MPBENCH_ARGS="--cc none"    # prints its results folder
    make mpbench MPBENCH_ARGS="--cc delay"
    make mpbench MPBENCH_ARGS="--publish results/mpbench-A --publish results/mpbench-B"
EOF
		for d in "${PUBLISH[@]}"; do
			line=$(tail -n 1 "$d/mpbench.md")
			cc=$(sed -n 's/.*irn congestion control \([a-z]*\).*/\1/p' <<<"$line")
			printf '\nCongestion control: %s\n' "${cc:-?}"
			printf '%*s\n\n' $((20 + ${#cc})) '' | tr ' ' '='
			rst_table "$d/mpbench.md"
			printf '\n%s\n' "$(irn_rst_text <<<"$line")"
		done
	} >"$stage"
	irn_rst_check "$stage" ||
		irn_die "--publish: the page is not valid reStructuredText (above); nothing was written"
	cp "$stage" "$page"
	irn_log "published ${#PUBLISH[@]} run(s) in $page"
}

main() {
	local ko specs='' c limit rc=0 d

	parse_args "$@"
	if ((${#PUBLISH[@]})); then
		for d in "${PUBLISH[@]}"; do
			[[ -s $d/mpbench.md ]] || irn_die "--publish: $d has no mpbench.md (a finished run's results folder)"
			! grep -q -- '-dirty' <(tail -n 1 "$d/mpbench.md") ||
				irn_warn "$d was run from a tree with uncommitted changes: its line says so"
		done
		publish
		return
	fi
	irn_need_root mpbench
	irn_guest_lock "scripts/mpbench.sh"
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
	irn_debian_kernel
	OUT=${OUT:-$IRN_RESULTS/mpbench-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$OUT/raw"
	OUT=$(cd "$OUT" && pwd)
	ko=$(irn_build_modules "$IRN_DEBIAN_KDIR" "$(irn_debian_build_id)") ||
		irn_die "building rdma_irn.ko failed (output above)"
	make -C "$IRN_ROOT/tools" >"$OUT/raw/tools-build.log" 2>&1 ||
		irn_die "make -C tools failed (irn_verify; log $OUT/raw/tools-build.log)"
	for c in $CASES; do
		specs+="${specs:+;}$(case_spec "$c")"
	done
	limit=$(($(wc -w <<<"$CASES") * (SECS + 90) + LIMIT + 300))
	irn_log "mpbench: $RATE Mbit/s a cable, $PATHS paths, cases: $CASES; results in $OUT"
	irn_watch_host_start "$OUT"
	"$IRN_ROOT/scripts/vm.sh" --guests 2 --cables 2 --kernel debian \
		--run-dir "$OUT/raw" --name bed --timeout "$limit" \
		--modules "$ko/rdma_irn.ko" \
		--env "IRN_MPB_CASES=$specs" --env "IRN_MPB_RATE=$RATE" \
		--env "IRN_MPB_SECONDS=$SECS" --env "IRN_MPB_MIB=$MIB" \
		--env "IRN_MPB_LIMIT=$LIMIT" --env "IRN_MPB_CC=$CC" --env "IRN_MPB_TRACE=$TRACE" \
		--env "IRN_TOOLS=$IRN_ROOT/tools" \
		"$IRN_ROOT/scripts/guest/mpbench.sh" || rc=$?
	report "$OUT/raw/bed" | tee "$OUT/mpbench.md"
	[[ $rc -eq 0 ]] || irn_die "the bed failed (exit $rc): $OUT/raw/bed"
}

main "$@"; exit
