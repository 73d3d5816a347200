# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Parsing and aggregation for scripts/compare.sh, kept apart so that
# scripts/tests/compare_parse.sh can check them on recorded output.
# Pure functions of their input files: no guests, no root.
#
#   irn_cmp_parse_perftest FILE      -> "bw_MBps,lat_p50_us,lat_p99_us"
#   irn_cmp_parse_iperf3 FILE        -> "bw_MBps" (receiver side)
#   irn_cmp_parse_fio FILE           -> "bw_MBps,lat_p50_us,lat_p99_us"
#   irn_cmp_cpu FILE                 -> "busy_pct,kernel_pct" of one guest
#   irn_cmp_counters BA AA [BB AB]   -> "name delta" lines: after - before,
#                                       summed over both guests
#   irn_cmp_aggregate RUNS.csv       -> summary CSV (median per cell)
#   irn_cmp_ratios SUMMARY.csv       -> ratios CSV: each figure over rxe's
#   irn_cmp_ratio_table SUMMARY.csv  -> those ratios as one table (neutral)
#   irn_cmp_tables SUMMARY.csv       -> the tables, in a neutral form
#   irn_cmp_text                     -> tables of that form on stdin as text
#   irn_cmp_markdown SUMMARY.csv     -> those tables in Markdown
#   irn_cmp_rst SUMMARY.csv [CHAR]   -> the same in reStructuredText
#   irn_cmp_rst_format [CHAR]        -> tables of that form on stdin in
#                                       reStructuredText
#   irn_cmp_headline SUMMARY.csv     -> README's headline table (RST)
#   irn_cmp_plot SUMMARY.csv DIR     -> DIR/goodput_vs_loss.png, ...,
#                                       DIR/ratios_to_rxe.png
#
# Units: MB/s is 2^20 bytes per second, as perftest prints it (iperf3's
# Mbit/s are converted); latencies are microseconds.

# One row per run, in this order.
# shellcheck disable=SC2034
IRN_CMP_COUNTERS="retransmitted_pkts selective_retransmits retransmit_episodes recovery_episodes timeouts timeouts_short timeouts_long completer_retry_err out_of_seq_request duplicate_request tcp_retrans"
# How busy each guest's vCPUs were during the run (guest a: the client,
# guest b: the server), in all and in the kernel, in %: under TCG a busy
# vCPU, not the cable, is what limits a transport.
IRN_CMP_CPU="cpu_a_pct,cpu_a_kernel_pct,cpu_b_pct,cpu_b_kernel_pct"
IRN_CMP_CSV_HEADER="transport,condition,delay_ms,loss_pct,kind,workload,rep,status,seconds,bw_MBps,lat_p50_us,lat_p99_us,qdisc_dropped,${IRN_CMP_COUNTERS// /,},$IRN_CMP_CPU,kernel"
IRN_CMP_SUMMARY_HEADER="transport,condition,delay_ms,loss_pct,kind,workload,runs,ok,bw_MBps,pct_of_lossless,lat_p50_us,lat_p99_us,qdisc_dropped,resent_pkts,recovery_events,timeouts,$IRN_CMP_CPU,status"
IRN_CMP_RATIOS_HEADER="transport,condition,workload,figure,better,value,rxe_value,ratio"

# irn_cmp_parse_perftest FILE [SECONDS]: BW average (column 4 under "BW
# average") for the bandwidth tools, t_typical (the median, column 5) and
# the 99% percentile (column 8) for the latency tools.  Empty fields when
# the file has no result row (a failed run), or the latencies are "inf".
# perftest times with the CPU's cycle counter; on a kernel that could not
# calibrate the TSC it prints a BW of 0.00 and latencies of inf.  Given
# SECONDS (a -D run's duration), such a BW is worked out from the
# iterations: #iterations x #bytes / SECONDS.  For messages under 10 KiB
# (ib_atomic_bw's 8 bytes) perftest's two decimals of MB/s are coarser
# than its message rate (Mpps, six decimals: one message a second), so
# the BW is the message rate x #bytes, to four decimals.
irn_cmp_parse_perftest() {
	awk -v secs="${2:-}" '
	/#bytes/ && /BW average/ { mode = "bw"; next }
	/#bytes/ && /t_typical/ { mode = "lat"; next }
	mode != "" && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		if (mode == "bw" && NF >= 5) {
			small = $1 < 10240
			bw = $4
			if (small && $5 + 0 > 0)
				bw = sprintf("%.4f", $5 * 1000000 * $1 / 1048576)
			if (bw + 0 == 0 && $2 > 0 && secs > 0)
				bw = sprintf("%." (small ? 4 : 2) "f", $1 * $2 / secs / 1048576)
		}
		if (mode == "lat" && NF >= 8 && $5 != "inf" && $8 != "inf") { p50 = $5; p99 = $8 }
		mode = ""
	}
	END { printf "%s,%s,%s\n", bw, p50, p99 }' "$1"
}

# iperf3 (plain output): the receiver line's bitrate, in MB/s (2^20).
irn_cmp_parse_iperf3() {
	awk '
	/ receiver$/ {
		for (i = 2; i <= NF; i++) {
			f = 0
			if ($i == "bits/sec") f = 1
			else if ($i == "Kbits/sec") f = 1e3
			else if ($i == "Mbits/sec") f = 1e6
			else if ($i == "Gbits/sec") f = 1e9
			if (f) { bw = sprintf("%.2f", $(i - 1) * f / 8 / 1048576); break }
		}
	}
	END { printf "%s\n", bw }' "$1"
}

# irn_cmp_parse_fio FILE: fio's JSON report of one job (the NVMe-oF
# workloads): the bandwidth of the reads and writes together in MB/s, and
# the median and 99th percentile completion latency of whichever
# direction did more I/O, in microseconds.  Empty fields when the file is
# missing or is not such a report (a failed run).
irn_cmp_parse_fio() {
	python3 - "$1" <<'PY' 2>/dev/null || echo ",,"
import json, sys
job = json.load(open(sys.argv[1]))["jobs"][0]
sides = [job[d] for d in ("read", "write") if job[d]["total_ios"] > 0]
if not sides:
    raise SystemExit(1)
main = max(sides, key=lambda d: d["total_ios"])
pct = main["clat_ns"]["percentile"]
print("%.2f,%.0f,%.0f" % (sum(d["bw_bytes"] for d in sides) / 1048576,
                          pct["50.000000"] / 1000, pct["99.000000"] / 1000))
PY
}

# irn_cmp_cpu FILE: how busy one guest's vCPUs were between the two
# "cpu ..." lines of /proc/stat in FILE (before and after a run): busy
# (all but idle and iowait) and in the kernel (system, irq, softirq), in %
# of the time of user..steal.  Empty fields without two such lines.
irn_cmp_cpu() {
	[[ -f $1 ]] || { echo ","; return 0; }
	awk '
	$1 == "cpu" && NF >= 9 {
		n++; t = 0
		for (i = 2; i <= 9; i++) t += $i
		tot[n] = t; idle[n] = $5 + $6; ker[n] = $4 + $7 + $8
	}
	END {
		d = tot[2] - tot[1]
		if (n != 2 || d <= 0) { print ","; exit }
		printf "%.0f,%.0f\n", 100 * (d - idle[2] + idle[1]) / d, 100 * (ker[2] - ker[1]) / d
	}' "$1"
}

# irn_cmp_counters BEFORE_A AFTER_A [BEFORE_B AFTER_B]: per counter, the
# growth during the run summed over the guests.  A counter missing from a
# guest's snapshots counts 0 there; one missing everywhere is not printed.
irn_cmp_counters() {
	awk '
	FNR == 1 { fi++ }
	NF == 2 && $2 ~ /^-?[0-9]+$/ {
		if (!($1 in seen)) { seen[$1] = 1; name[n++] = $1 }
		if (fi % 2) before[fi, $1] = $2; else after[fi - 1, $1] = $2
	}
	END {
		for (i = 0; i < n; i++) {
			s = 0
			for (g = 1; g < fi; g += 2)
				if ((g, name[i]) in after && (g, name[i]) in before)
					s += after[g, name[i]] - before[g, name[i]]
			print name[i], s
		}
	}' "$@"
}

# irn_cmp_aggregate RUNS.csv: one summary row per (transport, condition,
# workload), in order of first appearance.  Medians over the runs whose
# status is "ok" (mean of the middle two for an even count).
# pct_of_lossless: the cell's median goodput against the same transport
# and workload on the lossless condition with the same delay (kind
# "lossless").  resent_pkts: retransmitted_pkts (irn), else tcp_retrans
# (tcp, siw); recovery_events: retransmit_episodes + recovery_episodes
# (irn), else completer_retry_err (rxe); timeouts: irn's timeouts; the
# guests' vCPU use.  "-" where a transport has no such counter or the cell
# no value.  Goodput below 1 MB/s keeps four decimals (ib_atomic_bw's).
# status: ok, "K of N failed: ..." or the n/a reason.
irn_cmp_aggregate() {
	awk -F, -v OFS=, -v header="$IRN_CMP_SUMMARY_HEADER" -v cpus="$IRN_CMP_CPU" '
	function median(list,    a, k, m, i, j, t) {
		k = split(list, a, " ")
		if (k == 0) return ""
		for (i = 2; i <= k; i++) {
			t = a[i] + 0
			for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
			a[j + 1] = t
		}
		m = (k % 2) ? a[(k + 1) / 2] + 0 : (a[k / 2] + a[k / 2 + 1]) / 2
		return m
	}
	function fmt(v, d) {
		if (v == "") return "-"
		return sprintf("%." d "f", v)
	}
	function fmt_bw(v) { return fmt(v, (v != "" && v < 1) ? 4 : 2) }
	function add(key, field, v) {
		if (v == "") return
		vals[key, field] = vals[key, field] (vals[key, field] == "" ? "" : " ") v
	}
	NR == 1 {
		for (i = 1; i <= NF; i++) col[$i] = i
		ncpu = split(cpus, cpu, ",")
		next
	}
	{
		key = $col["transport"] SUBSEP $col["condition"] SUBSEP $col["workload"]
		if (!(key in runs)) {
			order[n++] = key
			tr[key] = $col["transport"]; co[key] = $col["condition"]
			wl[key] = $col["workload"]; de[key] = $col["delay_ms"]
			lo[key] = $col["loss_pct"]; ki[key] = $col["kind"]
		}
		runs[key]++
		st = $col["status"]
		if (st ~ /^n\/a/) { na[key] = st; next }
		if (st != "ok") {
			bad[key]++
			if (index(why[key], st) == 0) why[key] = why[key] (why[key] == "" ? "" : " ") st
			next
		}
		okc[key]++
		add(key, "bw", $col["bw_MBps"])
		add(key, "p50", $col["lat_p50_us"])
		add(key, "p99", $col["lat_p99_us"])
		add(key, "drop", $col["qdisc_dropped"])
		r = $col["retransmitted_pkts"]
		if (r == "") r = $col["tcp_retrans"]
		add(key, "resent", r)
		e = ""
		if ($col["retransmit_episodes"] != "" || $col["recovery_episodes"] != "")
			e = $col["retransmit_episodes"] + $col["recovery_episodes"]
		else if ($col["completer_retry_err"] != "")
			e = $col["completer_retry_err"]
		add(key, "events", e)
		add(key, "timeouts", $col["timeouts"])
		# a runs.csv older than the vCPU columns has none
		for (c = 1; c <= ncpu; c++)
			if (cpu[c] in col) add(key, cpu[c], $col[cpu[c]])
	}
	END {
		print header
		for (i = 0; i < n; i++) {
			k = order[i]
			bw[k] = median(vals[k, "bw"])
		}
		for (i = 0; i < n; i++) {
			k = order[i]
			if (ki[k] == "lossless") ref[tr[k], wl[k], de[k]] = bw[k]
		}
		for (i = 0; i < n; i++) {
			k = order[i]
			r = ref[tr[k], wl[k], de[k]]
			pct = (bw[k] != "" && r != "" && r > 0) ? fmt(100 * bw[k] / r, 0) : "-"
			if (k in na) status = na[k]
			else if (bad[k]) status = bad[k] " of " runs[k] " failed: " why[k]
			else status = "ok"
			use = ""
			for (c = 1; c <= ncpu; c++)
				use = use fmt(median(vals[k, cpu[c]]), 0) ","
			print tr[k], co[k], de[k], lo[k], ki[k], wl[k], runs[k], okc[k] + 0,
				fmt_bw(bw[k]), pct,
				fmt(median(vals[k, "p50"]), 0), fmt(median(vals[k, "p99"]), 0),
				fmt(median(vals[k, "drop"]), 0), fmt(median(vals[k, "resent"]), 0),
				fmt(median(vals[k, "events"]), 0), fmt(median(vals[k, "timeouts"]), 0),
				use status
		}
	}' "$1"
}

# irn_cmp_ratios SUMMARY.csv: each transport's figure over stock rxe's
# under the same condition and workload, as CSV (IRN_CMP_RATIOS_HEADER):
# goodput (bw_MBps, higher is better) for the bandwidth workloads, p50
# and p99 (lower is better) for the latency ones, all three for NVMe-oF.
# value and rxe_value are the summary's medians, "-" where a cell has
# none (failed, n/a); ratio "-" then.  Where rxe is n/a (not in the
# kernel, or the one-guest mode) there is nothing to compare with: no
# row.  Fails when no row is left.
irn_cmp_ratios() {
	awk -F, -v OFS=, -v header="$IRN_CMP_RATIOS_HEADER" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		t = $col["transport"]; c = $col["condition"]; w = $col["workload"]
		k = t SUBSEP c SUBSEP w
		if (!(k in seen)) { seen[k] = 1; order[n++] = k }
		na[k] = $col["status"] ~ /^n\/a/
		good = $col["ok"] > 0 && !na[k]
		v[k, "bw_MBps"] = good ? $col["bw_MBps"] : "-"
		v[k, "lat_p50_us"] = good ? $col["lat_p50_us"] : "-"
		v[k, "lat_p99_us"] = good ? $col["lat_p99_us"] : "-"
	}
	END {
		for (i = 0; i < n; i++) {
			split(order[i], p, SUBSEP)
			r = "rxe" SUBSEP p[2] SUBSEP p[3]
			if (p[1] == "rxe" || !(r in seen) || na[r]) continue
			nf = 0
			if (p[3] !~ /_lat$/) { fig[++nf] = "bw_MBps"; better[nf] = "higher" }
			if (p[3] ~ /_lat$|^nvme_/) {
				fig[++nf] = "lat_p50_us"; better[nf] = "lower"
				fig[++nf] = "lat_p99_us"; better[nf] = "lower"
			}
			for (f = 1; f <= nf; f++) {
				a = v[order[i], fig[f]]; b = v[r, fig[f]]
				ratio = (a != "-" && b != "-" && b + 0 > 0) ? sprintf("%.2f", a / b) : "-"
				if (!rows++) print header
				print p[1], p[2], p[3], fig[f], better[f], a, b, ratio
			}
		}
		exit !rows
	}' "$1"
}

# irn_cmp_ratio_table SUMMARY.csv: irn_cmp_ratios as one table in
# irn_cmp_tables' form: a row per transport, workload and figure, a
# column per condition.  Prints nothing without rxe in the summary.
irn_cmp_ratio_table() {
	{ irn_cmp_ratios "$1" || true; } | awk -F, '
	function label(f) {
		if (f == "bw_MBps") return "MB/s, higher is better"
		return (f == "lat_p50_us" ? "p50" : "p99") ", lower is better"
	}
	NR == 1 { next }
	{
		r = $1 SUBSEP $3 SUBSEP $4
		if (!(r in rseen)) { rseen[r] = 1; rows[nr++] = r }
		if (!($2 in cseen)) { cseen[$2] = 1; conds[nc++] = $2 }
		cell[r, $2] = $8
	}
	END {
		if (!nr) exit
		print "T\tOver stock rxe: each transport'"'"'s median over rxe'"'"'s, same condition and workload (goodput: higher is better; latency: lower is better)"
		line = "H\ttransport\tworkload\tfigure"
		for (j = 0; j < nc; j++) line = line "\t" conds[j]
		print line
		for (i = 0; i < nr; i++) {
			split(rows[i], p, SUBSEP)
			line = "R\t" p[1] "\t" p[2] "\t" label(p[3])
			for (j = 0; j < nc; j++)
				line = line "\t" (((rows[i], conds[j]) in cell) ? cell[rows[i], conds[j]] : "-")
			print line
		}
	}'
}

# irn_cmp_tables SUMMARY.csv: the tables of a summary, in a neutral form
# that irn_cmp_markdown, irn_cmp_rst and irn_cmp_text print: a goodput
# table (MB/s and % of the lossless figure, transports x conditions), a
# latency table (p50 / p99; the NVMe-oF workloads are in both), the
# ratios to stock rxe when it ran (irn_cmp_ratio_table), and the per-cell
# detail with counters and vCPU use.  One line per item, fields separated
# by tabs:
#   T<tab>TITLE        a table begins
#   H<tab>CELL...      its header row
#   R<tab>CELL...      a row
# Every cell holds a value, "-" (no such value for this workload) or
# "n/a" / "failed".
irn_cmp_tables() {
	irn_cmp_table_part pivots "$1"
	irn_cmp_ratio_table "$1"
	irn_cmp_table_part detail "$1"
}

# irn_cmp_table_part pivots|detail SUMMARY.csv: irn_cmp_tables' goodput
# and latency tables, or its per-cell detail
irn_cmp_table_part() {
	awk -F, -v part="$1" '
	function cell_bw(k) {
		if (st[k] ~ /^n\/a/) return "n/a"
		if (ok[k] == 0) return "failed"
		return bw[k] " (" (pct[k] == "-" ? "-" : pct[k] "%") ")"
	}
	function cell_lat(k) {
		if (st[k] ~ /^n\/a/) return "n/a"
		if (ok[k] == 0) return "failed"
		return ms(p50[k]) " / " ms(p99[k])
	}
	function ms(us) { return us == "-" ? "-" : sprintf("%.2f", us / 1000) }
	# a vCPU figure and its kernel share: "57 (30)"
	function use(all, kernel) { return (all == "-" || all == "") ? "-" : all " (" kernel ")" }
	function has(w, islat) { return islat ? w ~ /_lat$|^nvme_/ : w !~ /_lat$/ }
	function pivot(title, islat,    i, j, k, line, any) {
		any = 0
		for (i = 0; i < nr; i++) if (has(rows[i], islat)) any = 1
		if (!any) return
		print "T\t" title
		line = "H\ttransport\tworkload"
		for (j = 0; j < nc; j++) line = line "\t" conds[j]
		print line
		for (i = 0; i < nr; i++) {
			split(rowkey[i], rk, SUBSEP)
			if (!has(rk[2], islat)) continue
			line = "R\t" rk[1] "\t" rk[2]
			for (j = 0; j < nc; j++) {
				k = rk[1] SUBSEP conds[j] SUBSEP rk[2]
				line = line "\t" ((k in st) ? (islat ? cell_lat(k) : cell_bw(k)) : "-")
			}
			print line
		}
	}
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		t = $col["transport"]; c = $col["condition"]; w = $col["workload"]
		k = t SUBSEP c SUBSEP w
		if (!((t, w) in rseen)) { rseen[t, w] = 1; rowkey[nr + 0] = t SUBSEP w; rows[nr++] = w }
		if (!(c in cseen)) { cseen[c] = 1; conds[nc++] = c }
		bw[k] = $col["bw_MBps"]; pct[k] = $col["pct_of_lossless"]
		p50[k] = $col["lat_p50_us"]; p99[k] = $col["lat_p99_us"]
		ok[k] = $col["ok"]; st[k] = $col["status"]
		gsub(/\t/, " ", st[k])
		detail[n++] = "R\t" t "\t" c "\t" w "\t" $col["ok"] "/" $col["runs"] "\t" \
			$col["bw_MBps"] "\t" ($col["pct_of_lossless"] == "-" ? "-" : $col["pct_of_lossless"] "%") "\t" \
			ms($col["lat_p50_us"]) "\t" ms($col["lat_p99_us"]) "\t" \
			$col["qdisc_dropped"] "\t" $col["resent_pkts"] "\t" \
			$col["recovery_events"] "\t" $col["timeouts"] "\t" \
			use($col["cpu_a_pct"], $col["cpu_a_kernel_pct"]) "\t" \
			use($col["cpu_b_pct"], $col["cpu_b_kernel_pct"]) "\t" \
			(st[k] ~ /^n\/a: / ? "n/a (" substr(st[k], 6) ")" : st[k])
	}
	END {
		if (part == "pivots") {
			pivot("Goodput, MB/s (% of the same transport on the lossless link with the same delay)", 0)
			pivot("Latency, ms: p50 / p99", 1)
			exit
		}
		print "T\tPer cell: medians of the runs, with counters and vCPU use"
		print "H\ttransport\tcondition\tworkload\tok runs\tMB/s\t% of lossless\tp50 ms\tp99 ms\tdropped\tresent pkts\trecovery events\ttimeouts\tvCPU a % (kernel)\tvCPU b % (kernel)\tstatus"
		for (i = 0; i < n; i++) print detail[i]
	}' "$2"
}

# irn_cmp_text: tables in irn_cmp_tables' form on stdin as plain text,
# columns aligned, for the terminal
irn_cmp_text() {
	awk -F'\t' '
	function flush(    r, j, s, u, d) {
		for (r = 0; r < nr; r++) {
			s = ""
			for (j = 1; j <= nc; j++)
				s = s (j > 1 ? "  " : "") sprintf("%-" w[j] "s", cell[r, j])
			sub(/ +$/, "", s)
			print s
			if (r > 0 || !head) continue
			u = ""
			for (j = 1; j <= nc; j++) {
				d = sprintf("%" w[j] "s", ""); gsub(/ /, "-", d)
				u = u (j > 1 ? "  " : "") d
			}
			print u
		}
		nr = 0; nc = 0; head = 0
		split("", w); split("", cell)
	}
	$1 == "T" { flush(); if (NR > 1) print ""; print $2; print ""; next }
	$1 ~ /^[HR]$/ {
		if ($1 == "H") head = 1
		for (j = 2; j <= NF; j++) {
			cell[nr + 0, j - 1] = $j
			if (length($j) > w[j - 1]) w[j - 1] = length($j)
		}
		if (NF - 1 > nc) nc = NF - 1
		nr++
	}
	END { flush() }'
}

# irn_cmp_markdown SUMMARY.csv: irn_cmp_tables as Markdown, a "###"
# heading and a table each.
irn_cmp_markdown() {
	irn_cmp_tables "$1" | awk -F'\t' '
	function row(    i, line) {
		line = "|"
		for (i = 2; i <= NF; i++) { gsub(/\|/, "\\|", $i); line = line " " $i " |" }
		return line
	}
	$1 == "T" { if (NR > 1) print ""; print "### " $2 "\n"; next }
	$1 == "H" { print row(); s = "|"; for (i = 2; i <= NF; i++) s = s " --- |"; print s; next }
	$1 == "R" { print row() }'
}

# irn_cmp_rst_format [CHAR]: tables in irn_cmp_tables' form on stdin as
# reStructuredText simple tables, one line per row, each after a section
# title underlined with CHAR (a table without a title: none).  Cells are
# escaped where reStructuredText would read markup in them, so that each
# shows its text as it is; rows typed "h" and "r" instead of "H" and "R"
# are reStructuredText already and go as they are.
irn_cmp_rst_format() {
	awk -F'\t' -v ch="${1:--}" '
	function esc(s,    out, i, c, p, q) {
		out = ""
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1); p = substr(s, i - 1, 1); q = substr(s, i + 1, 1)
			# inline markup, substitutions and references; an
			# underscore inside a word (write_bw) is none
			if (c ~ /[\\*`|]/ || (c == "_" && !(p ~ /[A-Za-z0-9]/ && q ~ /[A-Za-z0-9]/)))
				c = "\\" c
			out = out c
		}
		# what would start a list, a field, a comment, a line block or
		# a table border
		if (out ~ /^[-+#:.|>(=]/ || out ~ /^[A-Za-z0-9]+[.)]( |$)/)
			out = "\\" out
		# "::" would announce a literal block
		if (out ~ /::$/)
			out = substr(out, 1, length(out) - 1) "\\:"
		return out
	}
	function line(r,    j, s) {
		s = ""
		for (j = 1; j <= nc; j++)
			s = s (j > 1 ? "  " : "") sprintf("%-" w[j] "s", cell[r, j])
		sub(/ +$/, "", s)
		print s
	}
	function flush(    r, j, b) {
		if (nr == 0) return
		for (j = 1; j <= nc; j++) {
			b = sprintf("%" w[j] "s", ""); gsub(/ /, "=", b); cell[-1, j] = b
		}
		line(-1)
		for (r = 0; r < nr; r++) {
			line(r)
			if (r == 0 && head) line(-1)
		}
		line(-1)
		nr = 0; nc = 0; head = 0
		split("", w); split("", cell)
	}
	$1 == "T" {
		flush()
		if (NR > 1) print ""
		t = esc($2); u = t; gsub(/./, ch, u)
		print t; print u; print ""
		next
	}
	$1 ~ /^[HRhr]$/ {
		if ($1 ~ /^[Hh]$/) head = 1
		for (j = 2; j <= NF; j++) {
			c = ($1 ~ /^[HR]$/) ? esc($j) : $j
			# a row with an empty first cell would continue the one above
			if (j == 2 && c == "") c = "\\ "
			cell[nr + 0, j - 1] = c
			if (length(c) > w[j - 1]) w[j - 1] = length(c)
		}
		if (NF - 1 > nc) nc = NF - 1
		nr++
	}
	END { flush() }'
}

# irn_cmp_rst SUMMARY.csv [CHAR]: irn_cmp_tables in reStructuredText,
# each table a section titled with CHAR ("-" by default)
irn_cmp_rst() {
	irn_cmp_tables "$1" | irn_cmp_rst_format "${2:--}"
}

# irn_cmp_headline SUMMARY.csv: README's headline, an RST simple table
# of ib_write_bw goodput as % of each transport's own lossless figure at
# the same delay: one row per go-back-N or IRN transport of the run (rxe,
# irn-gbn, irn, irn-auto), one column per random-loss condition of 1% or
# more.  Fails when the summary has no such cell.
irn_cmp_headline() {
	local rows
	rows=$(awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["workload"] != "write_bw" { next }
	{
		t = $col["transport"]; c = $col["condition"]
		has[t] = 1
		if ($col["kind"] == "random" && $col["loss_pct"] + 0 >= 1 && !(c in cseen)) {
			cseen[c] = 1; conds[nc++] = c
			title[c] = ($col["delay_ms"] + 0 ? $col["delay_ms"] " ms, " : "") $col["loss_pct"] "% loss"
		}
		if ($col["status"] ~ /^n\/a/) v = "n/a"
		else if ($col["ok"] == 0) v = "failed"
		else if ($col["pct_of_lossless"] == "-") v = "\\-"
		else v = $col["pct_of_lossless"] "%"
		cell[t, c] = v
	}
	END {
		split("rxe irn-gbn irn irn-auto", order, " ")
		label["rxe"] = "stock rxe"; label["irn-gbn"] = "irn, ``gbn`` mode"
		label["irn"] = "irn"; label["irn-auto"] = "irn, ``auto`` mode"
		line = "h\ttransport"
		for (j = 0; j < nc; j++) line = line "\t" title[conds[j]]
		for (i = 1; i <= 4; i++) {
			t = order[i]
			if (!(t in has)) continue
			line = line "\nr\t" label[t]
			for (j = 0; j < nc; j++)
				line = line "\t" (((t, conds[j]) in cell) ? cell[t, conds[j]] : "\\-")
			nt++
		}
		if (nt == 0 || nc == 0) exit 1
		print line
	}' "$1") || return 1
	irn_cmp_rst_format <<<"$rows"
}

# irn_cmp_plot SUMMARY.csv DIR: PNGs with gnuplot, for the random-loss
# and lossless cells (x: loss rate, one line per transport, one panel per
# delay):
#   goodput_vs_loss.png   ib_write_bw MB/s, and iperf3's (the tcp line)
#   goodput_pct_vs_loss.png  the same as % of each line's lossless figure
#   p99_vs_loss.png       ib_write_lat p99 (ms)
#   ratios_to_rxe.png     irn_cmp_ratios as bars, one panel per condition
# Prints the files written.  A plot with no data is not written, nor one
# against the loss rate with fewer than two rates (a lossless-only run).
irn_cmp_plot() {
	local sum=$1 dir=$2 what file ylabel field wl script title
	for what in goodput pct p99 ratios; do
		case $what in
		goodput) file=goodput_vs_loss.png field=bw_MBps wl="write_bw iperf3"
			ylabel="goodput, MB/s (log scale)"
			title="ib_write_bw 64 KiB (tcp: iperf3)" ;;
		pct) file=goodput_pct_vs_loss.png field=pct_of_lossless wl="write_bw iperf3"
			ylabel="goodput, % of lossless"
			title="ib_write_bw 64 KiB (tcp: iperf3)" ;;
		p99) file=p99_vs_loss.png field=lat_p99_us wl="write_lat"
			ylabel="p99 latency, ms (log scale)"
			title="ib_write_lat 64 B" ;;
		ratios) file=ratios_to_rxe.png ;;
		esac
		if [[ $what == ratios ]]; then
			script=$(irn_cmp_ratios "$sum" | irn_cmp_ratio_plot_script "$dir/$file") || continue
		else
			script=$(irn_cmp_plot_script "$sum" "$dir/$file" "$field" "$wl" "$ylabel" "$title") || continue
		fi
		gnuplot <<<"$script" 2>"$dir/$file.log" ||
			{ irn_warn "gnuplot failed for $file (see $dir/$file.log)"; continue; }
		rm -f "$dir/$file.log"
		printf '%s\n' "$dir/$file"
	done
}

# irn_cmp_plot_script SUMMARY OUT.png FIELD "WORKLOADS" YLABEL TITLE: the
# gnuplot program (data inline); fails if there is nothing to plot.
irn_cmp_plot_script() {
	awk -F, -v out="$2" -v field="$3" -v wls=" $4 " -v ylabel="$5" -v what="$6" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["kind"] != "lossless" && $col["kind"] != "random" { next }
	index(wls, " " $col["workload"] " ") == 0 { next }
	$col[field] == "-" || $col["ok"] == 0 { next }
	{
		d = $col["delay_ms"]; t = $col["transport"]; l = $col["loss_pct"] + 0
		v = $col[field]
		if (field == "lat_p99_us") v = v / 1000
		if (!(d in dseen)) { dseen[d] = 1; delays[nd++] = d }
		if (!(t in tseen)) { tseen[t] = 1; trs[nt++] = t }
		if (!(l in lseen)) { lseen[l] = 1; losses[nl++] = l }
		val[d, t, l] = v; pts++
	}
	END {
		if (!pts || nl < 2) exit 1
		# loss rates sorted, each at its own x position (0, 0.1, 1 and 5
		# would crowd together on a linear axis, and log(0) does not exist)
		for (i = 1; i < nl; i++) {
			x = losses[i]
			for (j = i - 1; j >= 0 && losses[j] > x; j--) losses[j + 1] = losses[j]
			losses[j + 1] = x
		}
		print "set terminal pngcairo size " (nd > 1 ? 1200 : 700) ",480 font \",10\""
		print "set output \"" out "\""
		print "set termoption noenhanced"
		print "set datafile missing \"?\""
		print "set key outside right top"
		print "set grid"
		print "set xlabel \"random loss per direction, %\""
		print "set ylabel \"" ylabel "\""
		if (field != "pct_of_lossless") print "set logscale y"
		else print "set yrange [0:*]; set offsets 0, 0, graph 0.05, 0"
		xt = ""
		for (i = 0; i < nl; i++) xt = xt (i ? ", " : "") "\"" losses[i] "\" " i
		print "set xtics (" xt ")"
		print "set xrange [-0.3:" (nl - 0.7) "]"
		for (m = 0; m < nd; m++) {
			print "$d" m " << EOD"
			for (i = 0; i < nl; i++) {
				line = i
				for (t = 0; t < nt; t++) {
					v = ((delays[m], trs[t], losses[i]) in val) ? val[delays[m], trs[t], losses[i]] : "?"
					line = line " " v
				}
				print line
			}
			print "EOD"
		}
		if (nd > 1) print "set multiplot layout 1," nd
		for (m = 0; m < nd; m++) {
			print "set title \"" what ", delay " delays[m] " ms per direction\""
			p = "plot"
			for (t = 0; t < nt; t++)
				p = p (t ? "," : "") " $d" m " using 1:" (t + 2) " with linespoints lw 2 pt " (t + 5) " title \"" trs[t] (trs[t] == "tcp" ? " (iperf3)" : "") "\""
			print p
		}
		if (nd > 1) print "unset multiplot"
	}' "$1"
}

# irn_cmp_ratio_plot_script OUT.png: the gnuplot program for the ratios
# CSV on stdin (irn_cmp_ratios): bars of each transport's ratio to rxe,
# grouped by workload and figure, one panel per condition, a dashed line
# at 1 (rxe).  Fails if there is no ratio to plot.
irn_cmp_ratio_plot_script() {
	awk -F, -v out="$1" '
	NR == 1 || $8 == "-" { next }
	{
		f = $3 ($4 == "bw_MBps" ? "" : $4 == "lat_p50_us" ? " p50" : " p99")
		if (!($1 in tseen)) { tseen[$1] = 1; trs[nt++] = $1 }
		if (!($2 in cseen)) { cseen[$2] = 1; conds[nc++] = $2 }
		if (!(f in fseen)) { fseen[f] = 1; figs[nf++] = f }
		val[$2, f, $1] = $8; pts++
		if ($8 + 0 > top[$2]) top[$2] = $8 + 0
	}
	END {
		if (!pts) exit 1
		cols = nc < 3 ? nc : 3; rows = int((nc + cols - 1) / cols)
		w = 160 + cols * (200 + 36 * nf * nt)
		print "set terminal pngcairo size " (w < 720 ? 720 : w) "," (60 + rows * 420) " font \",10\""
		print "set output \"" out "\""
		print "set termoption noenhanced"
		print "set datafile missing \"?\""
		print "set style data histograms"
		print "set style histogram clustered gap 1"
		print "set style fill solid 0.8 border -1"
		print "set key outside right top"
		print "set grid ytics"
		print "set xtics rotate by -30"
		print "set ylabel \"ratio to stock rxe (rxe = 1)\""
		print "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2"
		for (m = 0; m < nc; m++) {
			print "$d" m " << EOD"
			for (i = 0; i < nf; i++) {
				line = "\"" figs[i] "\""
				for (t = 0; t < nt; t++)
					line = line " " (((conds[m], figs[i], trs[t]) in val) ? val[conds[m], figs[i], trs[t]] : "?")
				print line
			}
			print "EOD"
		}
		print "set multiplot layout " rows "," cols " title \"Over stock rxe (goodput: higher is better; latency: lower is better)\""
		for (m = 0; m < nc; m++) {
			print "set title \"" conds[m] "\""
			# room above the highest bar, and rxe'"'"'s line in sight
			print "set yrange [0:" (top[conds[m]] > 1 ? top[conds[m]] : 1) * 1.15 "]"
			p = "plot"
			for (t = 0; t < nt; t++)
				p = p (t ? "," : "") " $d" m " using " (t + 2) (t ? "" : ":xtic(1)") " title \"" trs[t] "\""
			print p
		}
		print "unset multiplot"
	}'
}
