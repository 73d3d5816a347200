# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree builds of the irn module for one kernel at a time. The
# sources (Kbuild, drivers/, include/, kunit/) are copied with rsync to
# $IRN_CACHE/build/<kernel-id>-<checkout>/ so objects of different kernels never mix
# and the repository stays clean. IRN_MODULE_SRC overrides the source
# directory (default: the repository). Needs common.sh.

irn_module_src() { printf '%s\n' "${IRN_MODULE_SRC:-$IRN_ROOT}"; }

irn_sync_sources() {
	local src=$1 dst=$2 d items=()
	for d in Kbuild drivers include kunit; do
		[[ -e $src/$d ]] && items+=("$src/$d")
	done
	[[ -f $src/Kbuild ]] ||
		irn_die "$src/Kbuild missing: nothing to build (set IRN_MODULE_SRC?)"
	# never mix objects of two source trees in one build directory
	if [[ -d $dst && $(cat "$dst/.irn-src" 2>/dev/null) != "$src" ]]; then
		rm -rf "$dst"
	fi
	mkdir -p "$dst"
	printf '%s\n' "$src" >"$dst/.irn-src"
	rsync -a --delete \
		--exclude='.git' --exclude='.irn-src' --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude='modules.order' --exclude='Module.symvers' --exclude='.tmp*' \
		"${items[@]}" "$dst/"
}

# irn_build_dir ID: where irn_build_modules builds for ID.
irn_build_dir() {
	printf '%s/build/%s-%s\n' "$IRN_CACHE" "$1" \
		"$(irn_module_src | irn_key | cut -c1-8)"
}

# irn_build_modules KDIR ID [MAKE ARGS...]: build into
# $IRN_CACHE/build/ID-CHECKOUT, one directory per checkout so that two
# clones (or worktrees) building at once do not mix their sources.
# Prints the build directory; on failure prints the compiler output to
# stderr and returns 1. The full log is BUILD_DIR.log.
irn_build_modules() {
	local kdir=$1 id=$2 dst log
	shift 2
	dst=$(irn_build_dir "$id")
	log=$dst.log
	[[ -f $kdir/Makefile ]] || irn_die "$kdir is not a kernel build tree"
	irn_sync_sources "$(irn_module_src)" "$dst"
	if ! make -C "$kdir" M="$dst" -j"$(nproc)" "$@" modules >"$log" 2>&1; then
		cat "$log" >&2
		irn_warn "module build against $kdir failed (log: $log)"
		return 1
	fi
	printf '%s\n' "$dst"
}

# Build warnings (for W=1 / C=1 runs): compiler and sparse diagnostics.
irn_build_warnings() {
	grep -E ': (warning|error):|: sparse: ' "$1" || true
}

irn_debian_build_id() { printf 'debian-%s\n' "$IRN_DEBIAN_KVER"; }

# irn_kunit_build_id [--debug]: build id for the harness's own kernel
irn_kunit_build_id() {
	printf 'kunit%s-%s\n' "${1:+-debug}" \
		"$("$IRN_ROOT/scripts/kernel.sh" ${1:+"$1"} --print-key)"
}

# irn_kunit_kdir [--debug]: build (or find) the harness's own kernel
irn_kunit_kdir() {
	"$IRN_ROOT/scripts/kernel.sh" ${1:+"$1"} | sed -n 's/^KDIR=//p'
}
