#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or find in the cache) a KUnit-enabled test kernel from Debian's
# linux-source-6.1 tarball.
#
#   scripts/kernel.sh [--debug] [--print-key]
#
# Prints two lines on stdout:
#   KDIR=<build tree, usable as make -C KDIR M=... modules>
#   BZIMAGE=<path of bzImage>
# The modules of that kernel are installed under KDIR/modroot/lib/modules.
# Cache: $IRN_CACHE/kernel/<key>, key = sha256(fragments, source version,
# the build recipe below). A change to any of them rebuilds.
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"

JOBS=${IRN_JOBS:-$(nproc)}

usage() {
	sed -n '4,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

fragments() {
	printf '%s\n' "$IRN_ROOT/scripts/config/kunit.config"
	if [[ $DEBUG == 1 ]]; then
		printf '%s\n' "$IRN_ROOT/scripts/config/debug.config"
	fi
}

# The unpacked source tree, shared by every build (built with O=).
source_tree() {
	local ver
	ver=$(irn_pkg_version "$IRN_LINUX_SOURCE_PKG")
	printf '%s\n' "$IRN_CACHE/src/$IRN_LINUX_SOURCE_PKG-$ver"
}

unpack_source() {
	local dst=$1 tmp
	[[ -f $dst/.irn-unpacked ]] && return 0
	[[ -f $IRN_LINUX_SOURCE_TARBALL ]] ||
		irn_die "$IRN_LINUX_SOURCE_TARBALL missing; run scripts/deps.sh"
	irn_log "unpacking $IRN_LINUX_SOURCE_TARBALL into $dst"
	tmp=$dst.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -xJf "$IRN_LINUX_SOURCE_TARBALL" -C "$tmp" --strip-components=1
	rm -rf "$dst"
	mv "$tmp" "$dst"
	touch "$dst/.irn-unpacked"
}

# Every CONFIG_X=v / "# CONFIG_X is not set" line of the fragments must
# appear unchanged in the final .config.
verify_config() {
	local out=$1 frag line opt want have bad=0
	while read -r frag; do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
				opt=${BASH_REMATCH[1]}
				want=${BASH_REMATCH[2]}
			elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set ]]; then
				opt=${BASH_REMATCH[1]}
				want=n
			else
				continue
			fi
			have=$(sed -n "s/^$opt=//p" "$out/.config")
			[[ -n $have ]] || have=n
			if [[ $have != "$want" ]]; then
				irn_warn "$(basename "$frag"): $opt=$want requested, got $have"
				bad=1
			fi
		done <"$frag"
	done < <(fragments)
	[[ $bad == 0 ]] || irn_die "config fragment options did not survive olddefconfig (missing dependencies?); fix scripts/config/*.config"
}

configure_tree() {
	local src=$1 out=$2
	make -s -C "$src" O="$out" tinyconfig
	# merge_config.sh -m: merge only, olddefconfig resolves the rest
	(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" $(fragments)) >"$out/merge_config.log"
	make -s -C "$src" O="$out" olddefconfig
}

build_tree() {
	local src=$1 out=$2
	make -C "$src" O="$out" -j"$JOBS" bzImage modules
	make -C "$src" O="$out" -j"$JOBS" modules_prepare
	rm -rf "$out/modroot"
	make -s -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" \
		INSTALL_MOD_STRIP=1 modules_install
}

kernel_key() {
	local src_ver
	src_ver=$(irn_pkg_version "$IRN_LINUX_SOURCE_PKG")
	{
		printf 'source %s debug %s\n' "$src_ver" "$DEBUG"
		fragments | xargs cat
		declare -f configure_tree build_tree verify_config
	} | irn_key
}

build_kernel() {
	local src=$1 out=$2 t0
	[[ -f $out/.irn-built ]] && return 0
	irn_with_lock "$src.lock" unpack_source "$src"
	t0=$(irn_now)
	irn_log "building test kernel in $out (first build takes 5-10 minutes; log: $out.log)"
	rm -rf "$out"
	mkdir -p "$out"
	if ! { configure_tree "$src" "$out" && verify_config "$out" &&
		build_tree "$src" "$out"; } >"$out.log" 2>&1; then
		tail -n 60 "$out.log" >&2
		irn_die "kernel build failed; full log: $out.log"
	fi
	touch "$out/.irn-built"
	irn_log "kernel built in $(irn_elapsed "$t0") s"
}

main() {
	DEBUG=0
	local print_key=0 src out key
	while [[ $# -gt 0 ]]; do
		case $1 in
		--debug) DEBUG=1 ;;
		--print-key) print_key=1 ;;
		-h | --help) usage 0 ;;
		*) irn_warn "unknown argument $1"; usage 1 ;;
		esac
		shift
	done
	irn_need_cmd make gcc flex bison bc tar xz
	key=$(kernel_key)
	if [[ $print_key == 1 ]]; then
		printf '%s\n' "$key"
		return 0
	fi
	src=$(source_tree)
	out=$IRN_CACHE/kernel/$key
	[[ $DEBUG == 1 ]] && out=$IRN_CACHE/kernel/debug-$key
	irn_with_lock "$out.lock" build_kernel "$src" "$out"
	printf 'KDIR=%s\nBZIMAGE=%s\n' "$out" "$out/arch/x86/boot/bzImage"
}

main "$@"
