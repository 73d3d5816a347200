#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check / make check-full: deps -> kernels -> module builds -> KUnit
# -> integration tests, under QEMU.  Ends with "N passed, N failed".
#
#   scripts/check.sh [--tier ci|full] [--debug [--subset]]
#                    [--kunit-only | --integration-only] [NAME]
#
# --tier ci (make check, the default) runs the tests whose "# irn-test:"
# header has "ci=SECONDS" on Debian's kernel, with that budget and
# IRN_TIER=ci, which each test reads for its quick cut (irn_by_tier in
# scripts/tests/lib.sh).  --tier full (make check-full) runs every test
# whole, with its "timeout=SECONDS" budget.  Both then run the tests
# marked "debug" in their header ("debug-full": the full tier only) on the
# harness's debug kernel (KASAN, lockdep, UBSAN, kmemleak, failslab:
# scripts/config/debug.config) as "debug:NAME", where any kernel report
# fails the test; KUnit runs on that kernel too, so a run builds one
# kernel.  IRN_CHECK_DEBUG=0 leaves the debug tests out.  --debug runs
# every test on the debug kernel instead (make check-debug); --debug
# --subset just the "debug" ones.
#
# Debian's second kernel line, IRN_NEW_LINE (6.12), follows as
# "6.12:NAME": in the CI tier the tests marked "6.12" in their header, in
# the full tier all of them; and the tests marked "6.1+6.12" run once more
# as "6.1+6.12:NAME" in a pair of the two kernels, guest a on 6.1 and b on
# 6.12 (irn talking to itself across kernels).  IRN_CHECK_NEW_LINE=0
# leaves both out; make check-6.12 (IRN_KERNEL_LINE=6.12) runs the CI
# tier on 6.12 alone.
#
# The tests of two guests boot as one pair a stage, joined by one cable;
# those whose header also has "cables=2" (the multipath bed) boot as
# another pair, joined by two (scripts/vm.sh --cables 2), as "integ-2x2".
#
# NAME (make check T=NAME) runs one test whatever its tier: an
# integration test (scripts/tests/NAME.sh; a shell glob selects several),
# "debug:NAME", "6.12:NAME" or "6.1+6.12:NAME" for it on that kernel or
# pair, or "kunit*" for KUnit result names (KUnit runs whole).  A NAME that selects nothing is an error.
#
# Every result line carries the test's time; the run ends with the
# slowest tests.  A test past its budget fails and the run goes on.  The
# run has a deadline, IRN_CHECK_DEADLINE seconds from its start (default
# 4500 for the CI tier, inside CI's 5400, and 14400 for the full tier):
# whatever runs then is stopped and fails with its stuck report, and the
# closing line is printed all the same.  With CI set (or IRN_NO_SKIP=1) a
# skipped test, or a skipped part of one, fails: CI must run everything
# it lists.  Logs: $IRN_RESULTS/<timestamp>/ (results/ in the checkout).
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

NPASS=0 NFAIL=0 NSKIP=0
DO_KUNIT=1 DO_INTEG=1 FILTER='' DEBUG='' TIER=ci
# FILTER's stage: debug, 6.12 or 6.1+6.12 (a "STAGE:NAME" filter)
ONLY=''
# --debug: the integration tests run on the debug kernel; --subset: only
# those marked "debug" (as after Debian's stage)
SUBSET=0
TESTS_DIR=${IRN_TESTS_DIR:-$IRN_ROOT/scripts/tests}
STRICT=0
[[ -z ${CI:-} && ${IRN_NO_SKIP:-0} != 1 ]] || STRICT=1
declare -A TIMES=()
NMATCHED=0

usage() {
	awk 'NR >= 4 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 4 { exit }' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

# Seconds left before the run's deadline.
remaining() { printf '%s\n' "$((DEADLINE - SECONDS))"; }

# result VERDICT NAME SECONDS [DETAIL]
result() {
	local v=$1 n=$2 secs=$3
	shift 3
	if [[ $v == SKIP && $STRICT == 1 ]]; then
		v=FAIL
		set -- "skipped, but CI must run it: ${*:-no reason given}"
	fi
	case $v in
	PASS) NPASS=$((NPASS + 1)) ;;
	SKIP) NSKIP=$((NSKIP + 1)) ;;
	*) v=FAIL; NFAIL=$((NFAIL + 1)) ;;
	esac
	TIMES[$n]=$secs
	printf '%s %s [%s s]%s\n' "$v" "$n" "$secs" "${1:+ ($*)}" | tee -a "$RUN/summary.txt"
}

# Print the last lines of a file, indented, below a FAIL line.
show_tail() {
	local f=$1 n=${2:-30}
	[[ -s $f ]] || return 0
	printf '    --- last %s lines of %s\n' "$n" "$f"
	tail -n "$n" "$f" | sed 's/^/    | /'
}

matches_filter() {
	[[ -z $FILTER ]] && return 0
	# shellcheck disable=SC2053
	[[ $1 == $FILTER ]]
}

# step_deps: the packages, Debian's second kernel line's too when it runs
step_deps() {
	local with=()

	if new_line_follows || [[ $ONLY == "$IRN_NEW_LINE" || $ONLY == 6.1+"$IRN_NEW_LINE" ]]; then
		with=(--with-line "$IRN_NEW_LINE")
	fi
	"$IRN_ROOT/scripts/deps.sh" --check "${with[@]}" 2>/dev/null ||
		"$IRN_ROOT/scripts/deps.sh" "${with[@]}"
}

# ---- KUnit ---------------------------------------------------------------

# The suites kunit/*.c define: each must report, or the run fails.
kunit_suites() {
	sed -n '/^struct kunit_suite /,/^}/s/^\t\.name = "\(.*\)",$/\1/p' \
		"$IRN_ROOT"/kunit/*.c
}

# kunit_results LOG: one result per case; each case's time comes from the
# kernel log's timestamps (scripts/ktap.sh).
kunit_results() {
	local file=$1 line name secs verdict suites
	mapfile -t suites < <(kunit_suites)
	while read -r verdict secs name; do
		line=$name
		name=${name%% (*}
		matches_filter "$name" || [[ $FILTER != kunit* ]] || continue
		NMATCHED=$((NMATCHED + 1))
		result "$verdict" "$name" "$secs" "$(sed -n 's/^[^(]*(\(.*\))$/\1/p' <<<"$line")"
	done < <("$IRN_ROOT/scripts/ktap.sh" --times "$file" "${suites[@]}" || true)
}

# The debug kernel's reports (KASAN, lockdep, UBSAN, ...) while the KUnit
# suites ran.
kunit_kernel_log() {
	local found
	matches_filter kunit:kernel-log || [[ $FILTER != kunit* ]] || return 0
	NMATCHED=$((NMATCHED + 1))
	if found=$(irn_scan_kernel_log "$1"); then
		result FAIL kunit:kernel-log "$2" "$(head -n 1 <<<"$found") (log: $1)"
	else
		result PASS kunit:kernel-log "$2"
	fi
}

run_kunit() {
	local kdir id bdir mods vmrc=0 dir t0 limit
	t0=$SECONDS
	kdir=$(irn_kunit_kdir --debug) ||
		{ result FAIL build:kunit-kernel 0 "see $IRN_CACHE/kernel/*.log"; return; }
	id=$(irn_kunit_build_id --debug)
	if ! bdir=$(irn_build_modules "$kdir" "$id"); then
		result FAIL build:kunit-module 0 "compiler output above"
		return
	fi
	if [[ ! -f $bdir/irn_kunit.ko ]]; then
		result FAIL build:kunit-module 0 "irn_kunit.ko was not built: Kbuild must put it in obj-m when CONFIG_KUNIT is set (obj-$(CONFIG_KUNIT) is built-in with KUNIT=y)"
		return
	fi
	mods=$bdir/rdma_irn.ko:$bdir/irn_kunit.ko
	irn_log "KUnit: kernel and modules ready in $((SECONDS - t0)) s"
	t0=$SECONDS
	limit=$(remaining)
	((limit < 600)) || limit=600
	"$IRN_ROOT/scripts/vm.sh" --kernel debug --name kunit --run-dir "$RUN" \
		--timeout "$limit" --modules "$mods" \
		--env "IRN_KUNIT_MODULES=rdma_irn irn_kunit" \
		"$IRN_ROOT/scripts/guest/kunit.sh" || vmrc=$?
	dir=$RUN/kunit/guest-a
	if [[ -f $dir/out/kunit-dmesg.txt ]]; then
		kunit_results "$dir/out/kunit-dmesg.txt"
	else
		kunit_results "$dir/console.log"
	fi
	[[ $vmrc != 0 ]] || kunit_kernel_log "$dir/out/kunit-dmesg.txt" "$((SECONDS - t0))"
	case $vmrc in
	0) ;;
	1) result FAIL kunit:load "$((SECONDS - t0))" "modprobe failed, see $dir/out/job.log"
	   show_tail "$dir/out/job.log" 10 ;;
	*) result FAIL kunit:guest "$((SECONDS - t0))" "$(cat "$dir/status" 2>/dev/null), console $dir/console.log"
	   show_tail "$dir/console.log" 40 ;;
	esac
	irn_log "KUnit guest took $((SECONDS - t0)) s"
}

# ---- integration -----------------------------------------------------------

test_header() { grep -m1 -E '^# irn-test:' "$1"; }

test_guests() {
	local g
	g=$(test_header "$1" | grep -o -E 'guests=[0-9]+' | cut -d= -f2)
	printf '%s\n' "${g:-1}"
}

# test_shape FILE: the boot a test needs: 1 or 2 guests, or 2x2 for two
# guests joined by two cables ("cables=2": scripts/vm.sh --cables 2),
# which boot in a group of their own.
test_shape() {
	local g
	g=$(test_guests "$1")
	if [[ $g == 2 ]] && test_header "$1" | grep -q -E '(^| )cables=2( |$)'; then
		g=2x2
	fi
	printf '%s\n' "$g"
}

# has_tag HEADER WORD: the irn-test header lists WORD.
has_tag() { [[ " $1 " == *" $2 "* ]]; }

# test_selected FILE TAGS: whether this run takes the test into a stage
# that takes the tests marked TAGS (a word, or "ci" for the tier's own
# choice: the CI tier's ci=SECONDS tests, or all of them in the full
# tier, or "all").
test_selected() {
	local hdr
	hdr=$(test_header "$1") || return 1
	if [[ -n $FILTER ]]; then
		matches_filter "$(basename "$1" .sh)"
	elif [[ $2 == all ]]; then
		return 0
	elif [[ $2 == ci ]]; then
		[[ $TIER == full ]] || grep -q -E '(^| )ci=[0-9]+' <<<"$hdr"
	else
		has_tag "$hdr" "$2" || { [[ $TIER == full ]] && has_tag "$hdr" "$2-full"; }
	fi
}

# Combine the result lines of one test from each guest of GROUP and print
# it once, with the longer of the guests' times.
declare -A REPORTED=()
emit_results() {
	local group=$1 n=${G_N[$1]} tag=${G_TAG[$1]} t line verdict reason role f secs s
	for t in ${G_NAMES[$group]}; do
		[[ -z ${REPORTED[$tag$t]:-} ]] || continue
		verdict='' reason='' secs=0
		for role in a $([[ $n == 2 ]] && echo b); do
			f=$RUN/$group/guest-$role/out/results
			line=$(grep -m1 -E "^(PASS|FAIL|SKIP) $t(:|$)" "$f" 2>/dev/null) || continue 2
			s=$(awk -v t="$t" '$1 == t { print $2; exit }' "$RUN/$group/guest-$role/out/times" 2>/dev/null)
			((${s:-0} <= secs)) || secs=$s
			case ${line%% *} in
			FAIL) verdict=FAIL; reason+="${reason:+; }$role: ${line#*: }" ;;
			SKIP) [[ $verdict == FAIL ]] || { verdict=SKIP; reason=${line#*: }; } ;;
			PASS) [[ -n $verdict ]] || verdict=PASS ;;
			esac
		done
		REPORTED[$tag$t]=1
		result "$verdict" "$tag$t" "$secs" "$reason"
		if [[ $verdict == FAIL ]]; then
			for role in a $([[ $n == 2 ]] && echo b); do
				show_tail "$RUN/$group/guest-$role/out/tests/$t/log" 60
				show_tail "$RUN/$group/guest-$role/out/tests/$t/stuck.txt" 60
			done
		fi
	done
}

# Groups: one boot (a guest, or a pair) of one kernel for all of a stage's
# tests that need that many guests.  Per group (by name): its vm.sh pid,
# guests, result prefix, test names and start time.
declare -A G_PID=() G_N=() G_TAG=() G_NAMES=() G_T0=()

# group_start KERNEL SHAPE TEST.sh...: boot the group in the background
# (SHAPE: 1 or 2 guests, or 2x2: two guests on two cables).
group_start() {
	local kernel=$1 n=${2%x*} group tag='' f total=120 t left scale=1 v envs=() boot
	local cables=(--cables 1) shape=$2
	[[ $shape != *x2 ]] || cables=(--cables 2)
	shift 2
	[[ $kernel == debian ]] || tag=$kernel:
	group=${tag%:}${tag:+-}integ-$shape
	case $kernel in
	debian | debug) boot=(--kernel "$kernel") ;;
	6.1+*) boot=(--kernel debian --kernel-b "debian-${kernel#6.1+}") ;;
	*) boot=(--kernel "debian-$kernel") ;;
	esac
	G_N[$group]=$n G_TAG[$group]=$tag G_T0[$group]=$SECONDS G_NAMES[$group]=
	# KASAN and lockdep slow a TCG guest down about threefold
	[[ $kernel != debug ]] || scale=3
	for f in "$@"; do
		G_NAMES[$group]+=" $(basename "$f" .sh)"
		total=$((total + scale * $(irn_test_budget "$f" "$TIER") + 60))
	done
	left=$(remaining)
	if ((left < 90)); then
		for t in ${G_NAMES[$group]}; do
			REPORTED[$tag$t]=1
			result FAIL "$tag$t" 0 "not started: the run's deadline has passed"
		done
		return
	fi
	((total < left)) || total=$left
	# tests' own knobs (IRN_LOSSY_*, IRN_VERIFY_*, IRN_SUITE_*, IRN_NVMEOF_*,
	# IRN_WIREFUZZ_*, IRN_RINGFUZZ_*, IRN_FAULTS_*, IRN_SOAK_*, IRN_PERFTEST_*, IRN_MP_*,
	# IRN_INTEROP_*) go along
	for v in $(compgen -e | grep -E '^IRN_(LOSSY|VERIFY|SUITE|NVMEOF|WIREFUZZ|RINGFUZZ|FAULTS|SOAK|PERFTEST|INTEROP|MP)_' || true); do
		envs+=(--env "$v=${!v}")
	done
	# the debug tests after a run on Debian's kernel: one lossy condition
	# is enough to walk IRN's recovery there; the CI tier leaves the SRQ
	# runs to Debian's kernel
	if [[ $kernel == debug && ( -z $DEBUG || $SUBSET == 1 ) ]]; then
		[[ -n ${IRN_LOSSY_NETEM:-} ]] || envs+=(--env "IRN_LOSSY_NETEM=delay 2ms loss 1%")
		[[ -n ${IRN_LOSSY_MODES:-} ]] || envs+=(--env IRN_LOSSY_MODES=irn)
		[[ $TIER != ci || -n ${IRN_LOSSY_SRQ+set} ]] || envs+=(--env IRN_LOSSY_SRQ=)
	fi
	# the CI tier's NVMe-oF on the second line: its lossy phase alone
	if [[ $kernel == "$IRN_NEW_LINE" && $TIER == ci && -z ${IRN_NVMEOF_PHASES:-} ]]; then
		envs+=(--env "IRN_NVMEOF_PHASES=auto:delay 2ms loss 1%:1")
	fi
	# IRN_DRIVER=rxe: the same tests against stock rdma_rxe (tests/lib.sh);
	# the guest runner then unloads rdma_rxe after each test
	if [[ -n ${IRN_DRIVER:-} ]]; then
		envs+=(--env "IRN_DRIVER=$IRN_DRIVER")
		[[ $IRN_DRIVER != rxe ]] || envs+=(--env IRN_MODULE_NAME=rdma_rxe)
	fi
	[[ $STRICT == 0 ]] || envs+=(--env IRN_NO_SKIP=1)
	# the guests' runner stops the last test 60 s before QEMU is killed,
	# so that even a stuck test leaves its report
	"$IRN_ROOT/scripts/vm.sh" "${boot[@]}" --guests "$n" "${cables[@]}" --name "$group" \
		--run-dir "$RUN" --timeout "$total" --modules "${KO[$kernel]}" \
		--env "IRN_KO=${KO[$kernel]}" --env "IRN_TOOLS=$TOOLS" "${envs[@]}" \
		--env "IRN_TIMEOUT_SCALE=$scale" --env "IRN_TIER=$TIER" \
		--env "IRN_RUN_BUDGET=$((total - 60))" \
		"$IRN_ROOT/scripts/guest/run-tests.sh" "$@" &
	G_PID[$group]=$!
}

# group_finish GROUP: what a group that has ended did not report.
group_finish() {
	local group=$1 tag=${G_TAG[$1]} t0=${G_T0[$1]} vmrc=0 t role st

	wait "${G_PID[$group]}" || vmrc=$?
	emit_results "$group"
	for t in ${G_NAMES[$group]}; do
		[[ -z ${REPORTED[$tag$t]:-} ]] || continue
		REPORTED[$tag$t]=1
		result FAIL "$tag$t" "$((SECONDS - t0))" "no result: guest died or was killed at its time limit, console $RUN/$group/guest-a/console.log"
		show_tail "$RUN/$group/guest-a/console.log" 40
	done
	if [[ $vmrc == 2 ]]; then
		for role in a b; do
			st=$(cat "$RUN/$group/guest-$role/status" 2>/dev/null) || continue
			[[ $st != ok ]] || continue
			result FAIL "${tag}guest:$group-$role" "$((SECONDS - t0))" "$st, console $RUN/$group/guest-$role/console.log"
		done
	fi
	irn_log "$group took $((SECONDS - t0)) s"
}

# groups_wait [GROUP]: report the running groups' results as they come,
# until GROUP has ended (by default: every group).
groups_wait() {
	local until=${1:-} group busy=1

	while ((busy)); do
		busy=0
		for group in "${!G_PID[@]}"; do
			emit_results "$group"
			if ! kill -0 "${G_PID[$group]}" 2>/dev/null; then
				group_finish "$group"
				unset "G_PID[$group]"
			elif [[ -z $until || $group == "$until" ]]; then
				busy=1
			fi
		done
		((busy == 0)) || sleep 1
	done
}

# run_host TEST.sh...: tests whose header says "host", run here one by
# one with IRN_OUT=$RUN/host/NAME; exit status 0 pass, 77 skip.
run_host() {
	local f name rc t0 limit
	for f in "$@"; do
		name=$(basename "$f" .sh)
		limit=$(irn_test_budget "$f" "$TIER")
		(($(remaining) > limit)) || limit=$(remaining)
		if ((limit < 10)); then
			result FAIL "$name" 0 "not started: the run's deadline has passed"
			continue
		fi
		mkdir -p "$RUN/host/$name"
		rc=0 t0=$SECONDS
		IRN_OUT=$RUN/host/$name IRN_TIER=$TIER timeout -k 10 "$limit" \
			bash "$f" >"$RUN/host/$name/log" 2>&1 || rc=$?
		case $rc in
		0) result PASS "$name" "$((SECONDS - t0))" ;;
		77) result SKIP "$name" "$((SECONDS - t0))" "$(tail -n1 "$RUN/host/$name/log")" ;;
		124 | 137) result FAIL "$name" "$((SECONDS - t0))" "stopped after $limit s, log $RUN/host/$name/log"
		   show_tail "$RUN/host/$name/log" 30 ;;
		*) result FAIL "$name" "$((SECONDS - t0))" "exit status $rc, log $RUN/host/$name/log"
		   show_tail "$RUN/host/$name/log" 30 ;;
		esac
	done
}

build_tools() {
	TOOLS=$IRN_ROOT/tools
	[[ -f $IRN_ROOT/tools/Makefile ]] || return 0
	if ! make -C "$IRN_ROOT/tools" >"$RUN/tools-build.log" 2>&1; then
		cat "$RUN/tools-build.log"
		result FAIL build:tools 0 "make -C tools failed, log $RUN/tools-build.log"
		return 1
	fi
}

# stage_tests KERNEL: the tests this run takes on KERNEL (debian, debug,
# 6.12 or 6.1+6.12), one "SHAPE FILE" line each (test_shape: 1, 2 or
# 2x2); "host FILE" for the tests that run on the host, once, with
# Debian's stage.
stage_tests() {
	local f tags=ci

	case $1 in
	debug) [[ -n $DEBUG && $SUBSET == 0 ]] || tags=debug ;;
	"$IRN_NEW_LINE") [[ $TIER == full ]] || tags=$IRN_NEW_LINE ;;
	6.1+*) tags=$1 ;;
	esac
	[[ $1 != debug || -z $DEBUG || $SUBSET == 1 || $TIER == full ]] || tags=all
	for f in "$TESTS_DIR"/*.sh; do
		test_selected "$f" "$tags" || continue
		if test_header "$f" | grep -qw host; then
			[[ $1 != debian ]] || printf 'host %s\n' "$f"
		elif [[ $1 != 6.1+* ]] || [[ $(test_guests "$f") == 2 ]]; then
			printf '%s %s\n' "$(test_shape "$f")" "$f"
		fi
	done
}

# stage_module KERNEL: build rdma_irn.ko for KERNEL into KO[KERNEL].
declare -A KO=()
stage_module() {
	local kdir id bdir kver

	case $1 in
	debug)
		if ! kdir=$(irn_kunit_kdir --debug) || [[ -z $kdir ]]; then
			irn_warn "the debug kernel did not build: see $IRN_CACHE/kernel/debug-*.log"
			return 1
		fi
		id=$(irn_kunit_build_id --debug) ;;
	debian) kdir=$IRN_DEBIAN_KDIR id=$(irn_debian_build_id) ;;
	6.1+*)
		# the pair's two modules, each built (or cached) by its stage
		stage_module debian && stage_module "${1#6.1+}" || return 1
		KO[$1]=${KO[debian]}:${KO[${1#6.1+}]}
		return 0 ;;
	*)
		kver=$(IRN_KERNEL_LINE=$1 irn_find_debian_kver)
		[[ -n $kver ]] || { irn_warn "no Debian $1 kernel is installed"; return 1; }
		kdir=/usr/src/linux-headers-$kver id=debian-$kver ;;
	esac
	bdir=$(irn_build_modules "$kdir" "$id") || return 1
	KO[$1]=$bdir/rdma_irn.ko
}

# The integration tests: Debian's stage, the debug kernel's, or Debian's
# followed by the debug subset, with KUnit and the host tests.  Two lanes
# first, one vCPU each on a 2-core host (as much as one pair of guests):
# the debug kernel's one-guest group in one; KUnit, Debian's one-guest
# group and the host tests (which boot a guest of their own) one after
# the other in the other.  Then the pairs, one after the other.
run_integration() {
	local t0=$SECONDS kernels=() k n f host=() failed
	local -A one=() two=() wide=()

	if [[ -n $ONLY ]]; then
		kernels=("$ONLY")
	else
		kernels=(debian)
		! debug_subset_follows || kernels+=(debug)
		! new_line_follows || kernels+=("$IRN_NEW_LINE" "6.1+$IRN_NEW_LINE")
	fi
	for k in "${kernels[@]}"; do
		one[$k]='' two[$k]='' wide[$k]=''
		while read -r n f; do
			NMATCHED=$((NMATCHED + 1))
			case $n in
			host) host+=("$f") ;;
			2) two[$k]+=" $f" ;;
			2x2) wide[$k]+=" $f" ;;
			*) one[$k]+=" $f" ;;
			esac
		done < <(if [[ $k == debug && -z $DEBUG ]]; then
				DEBUG=--debug SUBSET=1 stage_tests "$k"
			else
				stage_tests "$k"
			fi)
	done
	build_tools || true
	for k in "${kernels[@]}"; do
		[[ -n ${one[$k]}${two[$k]}${wide[$k]} ]] || continue
		stage_module "$k" && continue
		result FAIL "build:$k-module" 0 "compiler output above"
		for f in ${one[$k]} ${two[$k]} ${wide[$k]}; do
			failed=$(basename "$f" .sh)
			[[ $k == debian ]] || failed=$k:$failed
			result FAIL "$failed" 0 "module did not build"
		done
		one[$k]='' two[$k]='' wide[$k]=''
	done
	# shellcheck disable=SC2086
	[[ -z ${one[debug]:-} ]] || group_start debug 1 ${one[debug]}
	[[ $DO_KUNIT == 0 ]] || run_kunit
	for k in "${kernels[@]}"; do
		[[ $k != debug && -n ${one[$k]:-} ]] || continue
		# shellcheck disable=SC2086
		group_start "$k" 1 ${one[$k]}
		groups_wait "$([[ $k == debian ]] || echo "$k-")integ-1"
	done
	[[ ${#host[@]} -eq 0 ]] || run_host "${host[@]}"
	groups_wait
	for k in "${kernels[@]}"; do
		if [[ -n ${two[$k]} ]]; then
			# shellcheck disable=SC2086
			group_start "$k" 2 ${two[$k]}
			groups_wait
		fi
		# the tests on two cables (cables=2), a pair of their own
		if [[ -n ${wide[$k]} ]]; then
			# shellcheck disable=SC2086
			group_start "$k" 2x2 ${wide[$k]}
			groups_wait
		fi
	done
	irn_log "integration stage took $((SECONDS - t0)) s"
}

# The debug tests follow a run on Debian's kernel.
debug_subset_follows() {
	[[ $DO_INTEG == 1 && -z $FILTER && -z $DEBUG && ${IRN_CHECK_DEBUG:-1} == 1 ]]
}

# So do the second line's, and the pair of both lines, unless the run is
# on the second line already (make check-6.12).
new_line_follows() {
	[[ $DO_INTEG == 1 && -z $FILTER && -z $DEBUG && ${IRN_CHECK_NEW_LINE:-1} == 1 &&
	   $IRN_KERNEL_LINE != "$IRN_NEW_LINE" ]]
}

# The slowest results, and where the time went.
slowest() {
	local n

	[[ ${#TIMES[@]} -gt 0 ]] || return 0
	printf '\nslowest tests (s):\n'
	for n in "${!TIMES[@]}"; do
		printf '%6s  %s\n' "${TIMES[$n]}" "$n"
	done | sort -rn | awk 'NR <= 12'	# reads it all: no SIGPIPE for sort
	printf 'whole run: %s s (%s tier)\n\n' "$SECONDS" "$TIER"
}

main() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--tier) TIER=$2; shift ;;
		--kunit-only) DO_INTEG=0 ;;
		--debug) DEBUG=--debug ;;
		--subset) SUBSET=1 ;;
		--integration-only) DO_KUNIT=0 ;;
		-h | --help) usage 0 ;;
		-*) irn_warn "unknown option $1"; usage 1 ;;
		*) FILTER=$1 ;;
		esac
		shift
	done
	[[ $TIER == ci || $TIER == full ]] || irn_die "--tier takes ci or full, not '$TIER'"
	if [[ $TIER == ci ]]; then
		DEADLINE=${IRN_CHECK_DEADLINE:-4500}
	else
		DEADLINE=${IRN_CHECK_DEADLINE:-14400}
	fi
	case $FILTER in
	debug:* | "$IRN_NEW_LINE":* | 6.1+"$IRN_NEW_LINE":*)
		ONLY=${FILTER%%:*} FILTER=${FILTER#*:} ;;
	esac
	[[ $ONLY != debug ]] || DEBUG=--debug
	[[ -z $DEBUG ]] || ONLY=debug
	if [[ -n $FILTER ]]; then
		if [[ $FILTER == kunit* ]]; then DO_INTEG=0; else DO_KUNIT=0; fi
	fi
	irn_guest_lock "scripts/check.sh --tier $TIER${FILTER:+ $FILTER}"
	step_deps
	irn_debian_kernel
	[[ -n $IRN_DEBIAN_KVER ]] ||
		irn_die "no Debian $IRN_KERNEL_LINE kernel with image, modules and headers is installed"
	RUN=$(irn_run_dir)
	irn_log "results: $RUN (deadline in $DEADLINE s)"
	irn_log "Debian's kernel: $IRN_DEBIAN_KVER"
	if [[ $DO_INTEG == 1 ]]; then
		run_integration
	elif [[ $DO_KUNIT == 1 ]]; then
		run_kunit
	fi
	if [[ -n $FILTER && $NMATCHED == 0 ]]; then
		result FAIL "select:$FILTER" 0 "no test matches '$FILTER' (tests: scripts/tests/*.sh with an irn-test header; kunit:SUITE.CASE)"
	fi
	slowest | tee -a "$RUN/summary.txt"
	if [[ $NSKIP -gt 0 ]]; then
		printf '%s passed, %s failed, %s skipped\n' "$NPASS" "$NFAIL" "$NSKIP" | tee -a "$RUN/summary.txt"
	else
		printf '%s passed, %s failed\n' "$NPASS" "$NFAIL" | tee -a "$RUN/summary.txt"
	fi
	[[ $NFAIL -eq 0 ]]
}

# One line: a check.sh edited while it runs goes on to the end unharmed.
main "$@"; exit
