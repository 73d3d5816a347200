# SPDX-License-Identifier: GPL-2.0
#
# Build (cached) the tiny initramfs of irn guests: static busybox, the
# init script scripts/guest/initramfs-init and, for a modular kernel, the
# modules needed to reach the host root and eth0 (with dependencies).
# Needs common.sh.

# Modules (and their dependencies) the Debian kernel needs before
# switch_root. Built-in on the KUnit kernel.
IRN_INITRAMFS_MODULES=(virtio_pci 9pnet_virtio 9p virtio_net)

# Print, in load order and without duplicates, the .ko files to insmod
# for the initramfs modules of kernel release $1 with modules in $2.
irn_initramfs_module_files() {
	local kver=$1 moddir=$2 m
	for m in "${IRN_INITRAMFS_MODULES[@]}"; do
		modprobe -d "${moddir%/lib/modules}" -S "$kver" --show-depends "$m" ||
			irn_die "module $m for $kver not found under $moddir"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

# irn_initramfs KVER MODDIR: print the path of the (cached) initramfs.
# MODDIR is the /lib/modules-style parent of KVER's modules, or "" when
# the kernel has everything built in.
irn_initramfs() {
	local kver=$1 moddir=$2 busybox key out files=()
	busybox=$(command -v busybox) || irn_die "busybox not found; run scripts/deps.sh"
	if [[ -n $moddir ]]; then
		mapfile -t files < <(irn_initramfs_module_files "$kver" "$moddir")
	fi
	key=$({
		sha256sum "$busybox" "$IRN_ROOT/scripts/guest/initramfs-init"
		printf '%s\n' "$kver" "${files[@]}"
		declare -f irn_initramfs_module_files irn_initramfs_pack
		[[ ${#files[@]} -eq 0 ]] || sha256sum "${files[@]}"
	} | irn_key)
	out=$IRN_CACHE/initramfs/$kver-$key.cpio.gz
	if [[ ! -f $out ]]; then
		irn_initramfs_pack "$out" "$busybox" "${files[@]}"
	fi
	printf '%s\n' "$out"
}

irn_initramfs_pack() {
	local out=$1 busybox=$2 dir f
	shift 2
	dir=$(mktemp -d)
	mkdir -p "$dir"/{bin,dev,proc,sys,newroot,modules}
	cp "$busybox" "$dir/bin/busybox"
	install -m 755 "$IRN_ROOT/scripts/guest/initramfs-init" "$dir/init"
	for f in "$@"; do
		cp "$f" "$dir/modules/"
		basename "$f" >>"$dir/modules/order"
	done
	mkdir -p "$(dirname "$out")"
	(cd "$dir" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
	mv "$out.tmp" "$out"
	rm -rf "$dir"
}
