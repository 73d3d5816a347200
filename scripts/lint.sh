#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks: checkpatch.pl --strict (from the unpacked linux-source
# tree) on every .c/.h in drivers/ include/ kunit/ tools/, sparse (C=2)
# and a W=1 build, both against Debian's 6.1 headers. Exit status 1 if
# any of them reports anything.
#
#   scripts/lint.sh
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/build.sh
source "$IRN_ROOT/scripts/lib/build.sh"

FAILED=()

source_files() {
	find "$IRN_ROOT"/{drivers,include,kunit,tools} -type f \( -name '*.c' -o -name '*.h' \) \
		2>/dev/null | sort
}

# The unpacked linux-source tree (shared with scripts/kernel.sh).
checkpatch_path() {
	local ver src
	ver=$(irn_pkg_version "$IRN_LINUX_SOURCE_PKG")
	src=$IRN_CACHE/src/$IRN_LINUX_SOURCE_PKG-$ver
	if [[ ! -f $src/.irn-unpacked ]]; then
		mkdir -p "$src.tmp.$$"
		tar -xJf "$IRN_LINUX_SOURCE_TARBALL" -C "$src.tmp.$$" --strip-components=1
		rm -rf "$src"
		mv "$src.tmp.$$" "$src"
		touch "$src/.irn-unpacked"
	fi
	printf '%s\n' "$src/scripts/checkpatch.pl"
}

run_checkpatch() {
	local cp files=()
	cp=$(checkpatch_path)
	# Tracepoint headers are written in TRACE_EVENT()'s own layout, which
	# checkpatch reads as open-ended calls (as it does in the kernel's
	# include/trace/events/); they get sparse and W=1 like everything else.
	# irn_compat.h is the one place that tests LINUX_VERSION_CODE, which
	# checkpatch flags on every #if; it gets every other check on its own.
	mapfile -t files < <(source_files | grep -v -e '/irn_trace\.h$' -e '/irn_compat\.h$')
	[[ ${#files[@]} -gt 0 ]] || return 0
	# run from the repository so its .checkpatch.conf applies
	(cd "$IRN_ROOT" && perl "$cp" --strict --no-tree --show-types -q -f "${files[@]}") ||
		FAILED+=(checkpatch)
	(cd "$IRN_ROOT" && perl "$cp" --strict --no-tree --show-types -q \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f include/irn_compat.h) ||
		FAILED+=(checkpatch)
}

# lint_build ID FLAGS...: full rebuild in a fresh directory, fail on any
# compiler or sparse diagnostic.
lint_build() {
	local id=$1 what=$2 dir warn
	shift 2
	dir=$(irn_build_dir "$id")
	rm -rf "$dir"
	if ! irn_build_modules "$IRN_DEBIAN_KDIR" "$id" "$@" >/dev/null; then
		FAILED+=("$what")
		return
	fi
	warn=$(irn_build_warnings "$dir.log")
	if [[ -n $warn ]]; then
		printf '%s\n' "$warn"
		FAILED+=("$what")
	fi
}

main() {
	irn_need_cmd perl sparse make
	run_checkpatch
	lint_build "lint-sparse-$IRN_DEBIAN_KVER" sparse C=2
	lint_build "lint-w1-$IRN_DEBIAN_KVER" W=1 W=1
	if [[ ${#FAILED[@]} -gt 0 ]]; then
		irn_log "lint failed: ${FAILED[*]}"
		exit 1
	fi
	irn_log "lint clean: checkpatch --strict, sparse, W=1"
}

main "$@"
