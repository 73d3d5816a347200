#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Parse KUnit KTAP output from a kernel log (dmesg or serial console;
# "[ time ]" prefixes are removed) and print one line per test case:
#   PASS kunit:<suite>.<case> | FAIL kunit:<suite>.<case> | SKIP kunit:<suite>.<case>
# A suite that starts but never prints its own result (crash, hang,
# truncated log) is reported as "FAIL kunit:<suite> (incomplete KTAP)",
# and a log without any KTAP suite as "FAIL kunit:no-ktap-output".
# Parameterised cases give one line per case (failing parameters are
# named after it).
#
#   scripts/ktap.sh [--times] LOG [EXPECTED_SUITE...]
# Every EXPECTED_SUITE must appear. Exit status 0 when nothing failed.
# --times puts each case's seconds after the verdict ("PASS 0.012
# kunit:..."), from the log's printk timestamps: the time since the
# previous line of its suite (0 without timestamps).
set -euo pipefail

times=0
[[ ${1:-} != --times ]] || { times=1; shift; }
[[ $# -ge 1 ]] || { echo "usage: $0 [--times] LOG [EXPECTED_SUITE...]" >&2; exit 2; }
log=$1
shift
[[ -r $log ]] || { echo "FAIL kunit:no-ktap-output (cannot read $log)"; exit 1; }

# A "# Subtest: NAME" header at indent I opens NAME; results at indent I
# belong to it. The stack of open headers gives the path of a result.
# Each line becomes "TIMESTAMP<tab>TEXT" (an empty timestamp without one).
sed -E 's/\r$//; s/^\[ *([0-9]+\.[0-9]+)\] ?/\1\t/; t; s/^\[[^]]*\] ?//; s/^/\t/' "$log" |
awk -v expected="$*" -v times="$times" '
function depth_of(s) { match(s, /^ */); return RLENGTH }
function verdict_out(v) { return times ? sprintf("%s %.3f", v, dt) : v }
{
	i = index($0, "\t")
	ts = substr($0, 1, i - 1)
	$0 = substr($0, i + 1)
	dt = (ts != "" && last != "") ? ts - last : 0
}
function path_to(ind,   i, p) {
	p = ""
	for (i = 0; i <= ind; i += 4)
		if (i in open) p = (p == "" ? open[i] : p "." open[i])
	return p
}
function nparents(ind,   i, n) {
	n = 0
	for (i = 0; i <= ind; i += 4) if (i in open) n++
	return n
}
/^ *# Subtest: / {
	ind = depth_of($0)
	name = $0; sub(/^ *# Subtest: */, "", name)
	open[ind] = name
	for (i in open) if (i + 0 > ind) delete open[i]
	if (nparents(ind) == 1) { started[name] = 1; order[++nsuites] = name }
	last = ts
	next
}
/^ *(not )?ok [0-9]+ / {
	ind = depth_of($0)
	line = $0; sub(/^ */, "", line)
	fail = (line ~ /^not ok/)
	skip = (line ~ /# SKIP/)
	sub(/^(not )?ok [0-9]+ /, "", line)
	name = line; sub(/ *# .*$/, "", name); sub(/^- /, "", name)
	np = nparents(ind)
	if (np == 0) {
		# a suite result: closes the header one level deeper
		if ((ind + 4) in open && open[ind + 4] == name) {
			finished[name] = 1
			delete open[ind + 4]
		}
		next
	}
	parent = path_to(ind)
	if ((ind + 4) in open && open[ind + 4] == name) delete open[ind + 4]
	if (np == 1) {
		verdict = fail ? "FAIL" : (skip ? "SKIP" : "PASS")
		extra = (fail && (parent "." name) in badparams) ? " (failing parameters:" badparams[parent "." name] ")" : ""
		printf "%s kunit:%s.%s%s\n", verdict_out(verdict), parent, name, extra
		count[verdict]++
		last = ts
	} else if (fail) {
		badparams[parent] = badparams[parent] " " name
	}
	next
}
END {
	bad = 0
	for (i = 1; i <= nsuites; i++) {
		s = order[i]
		if (!(s in finished)) { printf "%s kunit:%s (incomplete KTAP: suite never finished)\n", verdict_out("FAIL"), s; bad = 1 }
	}
	n = split(expected, want, " ")
	for (i = 1; i <= n; i++)
		if (!(want[i] in started)) { printf "%s kunit:%s (suite missing from KTAP output)\n", verdict_out("FAIL"), want[i]; bad = 1 }
	if (nsuites == 0) { print verdict_out("FAIL") " kunit:no-ktap-output"; bad = 1 }
	exit (bad || count["FAIL"] > 0) ? 1 : 0
}'
