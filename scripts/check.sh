#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: deps -> test kernel -> module builds -> KUnit -> integration.
#
#   scripts/check.sh [--kunit-only | --integration-only] [--debug [--subset]]
#                    [GLOB]
#
# --debug runs everything on the harness's debug kernel instead (KASAN,
# lockdep, UBSAN, kmemleak, failslab: scripts/config/debug.config), where
# any report fails the test that caused it (make check-debug). A full run
# without --debug also runs the tests marked "debug" in their
# "# irn-test:" header on that kernel, as "debug:NAME" (IRN_CHECK_DEBUG=0
# skips them); --debug --subset runs just those. Such a run takes KUnit
# on the debug kernel too, so that it builds one kernel, not two. On the
# debug kernel any kernel report during KUnit fails kunit:kernel-log.
#
# Integration tests are the scripts/tests/*.sh with a "# irn-test:" header;
# "host" in the header runs one on the host itself (it boots its own
# guests, or none), before the guest tests.
# GLOB selects integration tests by name (scripts/tests/NAME.sh); a GLOB
# starting with "kunit" selects KUnit result names instead (KUnit still
# runs whole). Prints "PASS|FAIL|SKIP name" per test as it finishes and
# ends with "N passed, N failed, N skipped". Exit status 1 on any failure.
# Logs: $IRN_RESULTS/<timestamp>/ (IRN_RESULTS defaults to /tmp/irn-results).
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

NPASS=0 NFAIL=0 NSKIP=0
DO_KUNIT=1 DO_INTEG=1 FILTER='' DEBUG=''
# kernels: the KUnit one (ours) and the integration one (Debian's)
KUNIT_KERNEL=kunit INTEG_KERNEL=debian TAG='' SUBSET=0
TESTS_DIR=${IRN_TESTS_DIR:-$IRN_ROOT/scripts/tests}

usage() {
	sed -n '4,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# result VERDICT NAME [DETAIL]
result() {
	local v=$1 n=$2
	shift 2
	case $v in
	PASS) NPASS=$((NPASS + 1)) ;;
	SKIP) NSKIP=$((NSKIP + 1)) ;;
	*) v=FAIL; NFAIL=$((NFAIL + 1)) ;;
	esac
	printf '%s %s%s\n' "$v" "$n" "${1:+ ($*)}"
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

step_deps() {
	"$IRN_ROOT/scripts/deps.sh" --check 2>/dev/null || "$IRN_ROOT/scripts/deps.sh"
}

# ---- KUnit ---------------------------------------------------------------

kunit_results() {
	local file=$1 line name
	while IFS= read -r line; do
		name=${line#* }
		name=${name%% (*}
		matches_filter "$name" || [[ $FILTER != kunit* ]] || continue
		result "${line%% *}" "$name" "$(sed -n 's/^[^(]*(\(.*\))$/\1/p' <<<"$line")"
	done < <("$IRN_ROOT/scripts/ktap.sh" "$file" || true)
}

# The debug kernel's reports (KASAN, lockdep, UBSAN, ...) while the KUnit
# suites ran.
kunit_kernel_log() {
	local found
	matches_filter kunit:kernel-log || [[ $FILTER != kunit* ]] || return 0
	if found=$(irn_scan_kernel_log "$1"); then
		result FAIL kunit:kernel-log "$(head -n 1 <<<"$found") (log: $1)"
	else
		result PASS kunit:kernel-log
	fi
}

run_kunit() {
	local kdir id bdir mods vmrc=0 dir t0
	t0=$(irn_now)
	kdir=$(irn_kunit_kdir $DEBUG) || { result FAIL build:kunit-kernel "see $IRN_CACHE/kernel/*.log"; return; }
	id=$(irn_kunit_build_id $DEBUG)
	if ! bdir=$(irn_build_modules "$kdir" "$id"); then
		result FAIL build:kunit-module "compiler output above"
		return
	fi
	if [[ ! -f $bdir/irn_kunit.ko ]]; then
		result FAIL build:kunit-module "irn_kunit.ko was not built: Kbuild must put it in obj-m when CONFIG_KUNIT is set (obj-$(CONFIG_KUNIT) is built-in with KUNIT=y)"
		return
	fi
	mods=$bdir/rdma_irn.ko:$bdir/irn_kunit.ko
	"$IRN_ROOT/scripts/vm.sh" --kernel "$KUNIT_KERNEL" --name kunit --run-dir "$RUN" \
		--timeout "${IRN_KUNIT_TIMEOUT:-600}" --modules "$mods" \
		--env "IRN_KUNIT_MODULES=rdma_irn irn_kunit" \
		"$IRN_ROOT/scripts/guest/kunit.sh" || vmrc=$?
	dir=$RUN/kunit/guest-a
	if [[ -f $dir/out/kunit-dmesg.txt ]]; then
		kunit_results "$dir/out/kunit-dmesg.txt"
	else
		kunit_results "$dir/console.log"
	fi
	if [[ -n $DEBUG && $vmrc == 0 ]]; then
		kunit_kernel_log "$dir/out/kunit-dmesg.txt"
	fi
	case $vmrc in
	0) ;;
	1) result FAIL kunit:load "modprobe failed, see $dir/out/job.log"
	   show_tail "$dir/out/job.log" 10 ;;
	*) result FAIL kunit:guest "$(cat "$dir/status" 2>/dev/null), console $dir/console.log" ;;
	esac
	irn_log "KUnit stage took $(irn_elapsed "$t0") s"
}

# ---- integration -----------------------------------------------------------

test_guests() {
	local g
	g=$(grep -m1 -E '^# irn-test:' "$1" | grep -o -E 'guests=[0-9]+' | cut -d= -f2)
	printf '%s\n' "${g:-1}"
}

test_timeout() {
	local t
	t=$(grep -m1 -E '^# irn-test:' "$1" | grep -o -E 'timeout=[0-9]+' | cut -d= -f2)
	printf '%s\n' "${t:-120}"
}

# Combine the result lines of one test from each guest and print it once.
declare -A REPORTED=()
emit_results() {
	local group=$1 n=$2 t line verdict reason role f
	shift 2
	for t in "$@"; do
		[[ -z ${REPORTED[$TAG$t]:-} ]] || continue
		verdict='' reason=''
		for role in a $([[ $n == 2 ]] && echo b); do
			f=$RUN/$group/guest-$role/out/results
			line=$(grep -m1 -E "^(PASS|FAIL|SKIP) $t(:|$)" "$f" 2>/dev/null) || continue 2
			case ${line%% *} in
			FAIL) verdict=FAIL; reason+="${reason:+; }$role: ${line#*: }" ;;
			SKIP) [[ $verdict == FAIL ]] || verdict=SKIP ;;
			PASS) [[ -n $verdict ]] || verdict=PASS ;;
			esac
		done
		REPORTED[$TAG$t]=1
		result "$verdict" "$TAG$t" "$reason"
		if [[ $verdict == FAIL ]]; then
			for role in a $([[ $n == 2 ]] && echo b); do
				show_tail "$RUN/$group/guest-$role/out/tests/$t/log" 60
			done
		fi
	done
}

# run_group N TEST.sh...: one boot (pair) for all tests needing N guests
run_group() {
	local n=$1 group vmpid vmrc=0 f total=120 names=() t role
	shift
	group=${TAG%:}${TAG:+-}integ-$n
	# KASAN and lockdep slow a TCG guest down about threefold
	local scale=1
	[[ $INTEG_KERNEL != debug ]] || scale=3
	for f in "$@"; do
		names+=("$(basename "$f" .sh)")
		total=$((total + scale * $(test_timeout "$f") + 60))
	done
	# tests' own knobs (IRN_LOSSY_*, IRN_VERIFY_*, IRN_SUITE_*, IRN_NVMEOF_*,
	# IRN_WIREFUZZ_*, IRN_RINGFUZZ_*, IRN_FAULTS_*, IRN_SOAK_*) go along
	local v envs=()
	for v in $(compgen -e | grep -E '^IRN_(LOSSY|VERIFY|SUITE|NVMEOF|WIREFUZZ|RINGFUZZ|FAULTS|SOAK)_' || true); do
		envs+=(--env "$v=${!v}")
	done
	# IRN_DRIVER=rxe: the same tests against stock rdma_rxe (tests/lib.sh);
	# the guest runner then unloads rdma_rxe after each test
	if [[ -n ${IRN_DRIVER:-} ]]; then
		envs+=(--env "IRN_DRIVER=$IRN_DRIVER")
		[[ $IRN_DRIVER != rxe ]] || envs+=(--env IRN_MODULE_NAME=rdma_rxe)
	fi
	"$IRN_ROOT/scripts/vm.sh" --kernel "$INTEG_KERNEL" --guests "$n" --name "$group" \
		--run-dir "$RUN" --timeout "$total" --modules "$KO" \
		--env "IRN_KO=$KO" --env "IRN_TOOLS=$TOOLS" "${envs[@]}" \
		--env "IRN_TIMEOUT_SCALE=$scale" \
		"$IRN_ROOT/scripts/guest/run-tests.sh" "$@" &
	vmpid=$!
	while kill -0 "$vmpid" 2>/dev/null; do
		emit_results "$group" "$n" "${names[@]}"
		sleep 1
	done
	wait "$vmpid" || vmrc=$?
	emit_results "$group" "$n" "${names[@]}"
	for t in "${names[@]}"; do
		[[ -z ${REPORTED[$TAG$t]:-} ]] || continue
		REPORTED[$TAG$t]=1
		result FAIL "$TAG$t" "no result: guest died or timed out, console $RUN/$group/guest-a/console.log"
	done
	if [[ $vmrc == 2 ]]; then
		for role in a b; do
			[[ -f $RUN/$group/guest-$role/status ]] || continue
			[[ $(cat "$RUN/$group/guest-$role/status") == ok ]] && continue
			result FAIL "${TAG}guest:$group-$role" "$(cat "$RUN/$group/guest-$role/status"), console $RUN/$group/guest-$role/console.log"
		done
	fi
}

# run_host TEST.sh...: tests whose header says "host", run here one by
# one with IRN_OUT=$RUN/host/NAME; exit status 0 pass, 77 skip.
run_host() {
	local f name rc
	for f in "$@"; do
		name=$(basename "$f" .sh)
		mkdir -p "$RUN/host/$name"
		rc=0
		IRN_OUT=$RUN/host/$name timeout -k 10 "$(test_timeout "$f")" \
			bash "$f" >"$RUN/host/$name/log" 2>&1 || rc=$?
		case $rc in
		0) result PASS "$name" ;;
		77) result SKIP "$name" "$(tail -n1 "$RUN/host/$name/log")" ;;
		*) result FAIL "$name" "exit status $rc, log $RUN/host/$name/log"
		   show_tail "$RUN/host/$name/log" 30 ;;
		esac
	done
}

build_tools() {
	TOOLS=$IRN_ROOT/tools
	[[ -f $IRN_ROOT/tools/Makefile ]] || return 0
	if ! make -C "$IRN_ROOT/tools" >"$RUN/tools-build.log" 2>&1; then
		cat "$RUN/tools-build.log"
		result FAIL build:tools "make -C tools failed, log $RUN/tools-build.log"
		return 1
	fi
}

run_integration() {
	local bdir f name one=() two=() host=() t0 kdir id
	t0=$(irn_now)
	for f in "$TESTS_DIR"/*.sh; do
		# a test declares itself with a "# irn-test:" header (lib.sh has none)
		grep -q -m1 -E '^# irn-test:' "$f" 2>/dev/null || continue
		name=$(basename "$f" .sh)
		matches_filter "$name" || continue
		if [[ $SUBSET == 1 ]]; then
			grep -m1 -E '^# irn-test:' "$f" | grep -q -w debug || continue
		fi
		if grep -m1 -E '^# irn-test:' "$f" | grep -qw host; then
			# host tests do not depend on the guest kernel: once
			if [[ -z $DEBUG ]]; then host+=("$f"); fi
		elif [[ $(test_guests "$f") == 2 ]]; then two+=("$f"); else one+=("$f"); fi
	done
	if [[ $((${#one[@]} + ${#two[@]} + ${#host[@]})) -eq 0 ]]; then
		irn_log "no integration tests selected in $TESTS_DIR"
		return 0
	fi
	[[ ${#host[@]} -eq 0 ]] || run_host "${host[@]}"
	[[ $((${#one[@]} + ${#two[@]})) -gt 0 ]] || return 0
	if [[ -n $DEBUG ]]; then
		if ! kdir=$(irn_kunit_kdir --debug) || [[ -z $kdir ]]; then
			result FAIL build:debug-kernel "see $IRN_CACHE/kernel/debug-*.log"
			return
		fi
		id=$(irn_kunit_build_id --debug)
	else
		kdir=$IRN_DEBIAN_KDIR id=$(irn_debian_build_id)
	fi
	if ! bdir=$(irn_build_modules "$kdir" "$id"); then
		result FAIL "build:$INTEG_KERNEL-module" "compiler output above"
		for f in "${one[@]}" "${two[@]}"; do
			result FAIL "$TAG$(basename "$f" .sh)" "module did not build"
		done
		return
	fi
	KO=$bdir/rdma_irn.ko
	build_tools || true
	[[ ${#one[@]} -eq 0 ]] || run_group 1 "${one[@]}"
	[[ ${#two[@]} -eq 0 ]] || run_group 2 "${two[@]}"
	irn_log "integration stage took $(irn_elapsed "$t0") s"
}

# A full run without --debug ends with the debug subset.
debug_subset_follows() {
	[[ $DO_INTEG == 1 && -z $FILTER && ${IRN_CHECK_DEBUG:-1} == 1 ]]
}

main() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kunit-only) DO_INTEG=0 ;;
		--debug) DEBUG=--debug KUNIT_KERNEL=debug INTEG_KERNEL=debug ;;
		--subset) SUBSET=1 ;;
		--integration-only) DO_KUNIT=0 ;;
		-h | --help) usage 0 ;;
		-*) irn_warn "unknown option $1"; usage 1 ;;
		*) FILTER=$1 ;;
		esac
		shift
	done
	if [[ -n $FILTER ]]; then
		if [[ $FILTER == kunit* ]]; then DO_INTEG=0; else DO_KUNIT=0; fi
	fi
	step_deps
	RUN=$(irn_run_dir)
	irn_log "results: $RUN"
	if [[ $DO_KUNIT == 1 ]]; then
		if [[ -z $DEBUG ]] && debug_subset_follows; then
			# the debug subset builds the debug kernel anyway
			DEBUG=--debug KUNIT_KERNEL=debug run_kunit
		else
			run_kunit
		fi
	fi
	[[ $DO_INTEG == 0 ]] || run_integration
	if [[ -z $DEBUG ]] && debug_subset_follows; then
		DEBUG=--debug INTEG_KERNEL=debug TAG=debug: SUBSET=1
		# one lossy condition is enough to walk IRN's recovery there
		export IRN_LOSSY_NETEM=${IRN_LOSSY_NETEM:-delay 2ms loss 1%}
		export IRN_LOSSY_MODES=${IRN_LOSSY_MODES:-irn}
		run_integration
	fi
	if [[ $NSKIP -gt 0 ]]; then
		printf '%s passed, %s failed, %s skipped\n' "$NPASS" "$NFAIL" "$NSKIP"
	else
		printf '%s passed, %s failed\n' "$NPASS" "$NFAIL"
	fi
	[[ $NFAIL -eq 0 ]]
}

main "$@"
