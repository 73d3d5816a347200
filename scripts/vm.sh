#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one or two QEMU (TCG) guests that share the host root read-only
# over 9p and run a job script in each.
#
#   scripts/vm.sh [options] JOB [ARGS...]
#     --kernel debian|debian-LINE|kunit|debug
#                             Debian's stock kernel (default; of line
#                             IRN_KERNEL_LINE), Debian's kernel of LINE
#                             (debian-6.12), scripts/kernel.sh's KUnit
#                             kernel, or its --debug build (KASAN, lockdep, ...)
#     --kernel-b KERNEL       guest b boots this kernel instead (a pair of
#                             two kernels: interoperability between them)
#     --guests 1|2            two guests are joined by one virtual Ethernet cable
#     --cables 1|2            with --guests 2: cables between a and b (default 1);
#                             2 adds eth1 on each guest, on a cable of its own
#     --switch N              N senders (b, c, ...; 1 to 6) and a receiver (a),
#                             each cabled to a port of a switch guest (s)
#     --timeout SEC           hard limit for the whole boot+job (default 300)
#     --mem MB                memory per guest (default 1536)
#     --cpus N                vCPUs per guest (default 1)
#     --name NAME             subdirectory of the run directory (default vm)
#     --run-dir DIR           default: $IRN_RESULTS/<timestamp> (IRN_RESULTS=results/)
#     --modules A.ko[:B.ko]   make these modprobe-able in the guest (also: IRN_MODULES)
#     --env NAME=VALUE        export to the job (repeatable)
#     --no-scan               do not fail on kernel warnings in the console
#
# JOB runs with bash as root inside each guest with IRN_ROLE (a or b),
# IRN_SELF_IP, IRN_PEER_IP, IRN_NETDEV (eth0), IRN_GUEST_OUT (this guest's
# writable export) and IRN_GUEST_SHARED (export shared by both guests).
# Guest a is 10.77.0.1, guest b 10.77.0.2 (private, emulated cable only).
# With --switch the senders b, c, ... are 10.77.0.2, .3, ..., their peer
# is a, and the switch guest s has no address: its eth0 is cabled to a,
# eth1 to b, and so on, and the job bridges them (IRN_SENDERS lists the
# senders' roles for every guest).
# The cable is a Unix socket (QEMU's stream netdev); IRN_CABLE=tcp in the
# environment joins them over QEMU's TCP socket netdev instead, whose
# Nagle delays small frames (see start_guests).  With --cables 2 a second
# cable of the same kind joins a's eth1 to b's eth1; it comes up without
# an address (IRN_CABLES=2 tells the job), for the job to set up
# (scripts/guest/mpnet.sh: the multipath bed).
#
# Results: RUN/NAME/guest-X/{console.log,qemu.log,status,out/{job.log,job.rc,dmesg.txt}}
# and RUN/NAME/shared/. Exit status: 0 all jobs passed and consoles clean,
# 1 a job failed, 2 a guest crashed, timed out or logged a kernel warning.
set -euo pipefail

IRN_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IRN_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/initramfs.sh
source "$IRN_ROOT/scripts/lib/initramfs.sh"

KERNEL=debian KERNEL_B='' GUESTS=1 CABLES=1 TIMEOUT=300 MEM=1536 CPUS=1 NAME=vm RUN_DIR='' SCAN=1
SENDERS=0	# --switch: how many
MODULES=${IRN_MODULES:-}
JOB_ENV=()
JOB=
JOB_ARGS=()

usage() {
	awk 'NR >= 4 && /^#/ { sub(/^# ?/, ""); print; next } NR >= 4 { exit }' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--kernel) KERNEL=$2; shift ;;
		--kernel-b) KERNEL_B=$2; shift ;;
		--guests) GUESTS=$2; shift ;;
		--cables) CABLES=$2; shift ;;
		--switch) SENDERS=$2; shift ;;
		--timeout) TIMEOUT=$2; shift ;;
		--mem) MEM=$2; shift ;;
		--cpus) CPUS=$2; shift ;;
		--name) NAME=$2; shift ;;
		--run-dir) RUN_DIR=$2; shift ;;
		--modules) MODULES=$2; shift ;;
		--env) JOB_ENV+=("$2"); shift ;;
		--no-scan) SCAN=0 ;;
		-h | --help) usage 0 ;;
		--) shift; break ;;
		-*) irn_warn "unknown option $1"; usage 1 ;;
		*) break ;;
		esac
		shift
	done
	[[ $# -gt 0 ]] || irn_die "no job script given (see --help)"
	JOB=$(realpath "$1")
	shift
	JOB_ARGS=("$@")
	[[ -f $JOB ]] || irn_die "job script $JOB not found"
	[[ $GUESTS == 1 || $GUESTS == 2 ]] || irn_die "--guests must be 1 or 2"
	[[ $CABLES == 1 || $CABLES == 2 ]] || irn_die "--cables must be 1 or 2"
	[[ $CABLES == 1 || ( $GUESTS == 2 && $SENDERS == 0 ) ]] ||
		irn_die "--cables 2 needs --guests 2 (and no --switch)"
	if [[ $SENDERS != 0 ]]; then
		[[ $SENDERS =~ ^[1-6]$ ]] || irn_die "--switch takes 1 to 6 senders"
		GUESTS=$((SENDERS + 2))
	fi
	[[ $KERNEL =~ ^(debian|debian-[0-9.]+|kunit|debug)$ ]] ||
		irn_die "--kernel must be debian, debian-LINE, kunit or debug"
	[[ -z $KERNEL_B || $KERNEL_B =~ ^(debian|debian-[0-9.]+|kunit|debug)$ ]] ||
		irn_die "--kernel-b must be debian, debian-LINE, kunit or debug"
	[[ -z $KERNEL_B || $GUESTS == 2 ]] || irn_die "--kernel-b needs --guests 2"
	[[ -n $KERNEL_B ]] || KERNEL_B=$KERNEL
}

# select_kernel KERNEL: sets BZIMAGE, KVER, INITRD, MODDIR (parent of
# KVER's module tree as the host sees it), MODLINK (that tree's kernel/ as
# the guest sees it), QEMU_CPU and KERNEL_ARGS.
select_kernel() {
	local kernel=$1 kdir
	if [[ $kernel == debian* ]]; then
		KVER=$IRN_DEBIAN_KVER BZIMAGE=$IRN_DEBIAN_BZIMAGE
		if [[ $kernel == debian-* ]]; then
			KVER=$(IRN_KERNEL_LINE=${kernel#debian-} irn_find_debian_kver)
			[[ -n $KVER ]] ||
				irn_die "no Debian ${kernel#debian-} kernel with image, modules and headers is installed"
			BZIMAGE=/boot/vmlinuz-$KVER
		fi
		MODDIR=/lib/modules
		MODLINK=/run/irn/lib-modules-orig/$KVER/kernel
		INITRD=$(irn_initramfs "$KVER" "$MODDIR")
	else
		local flavour=()
		[[ $kernel != debug ]] || flavour=(--debug)
		kdir=$("$IRN_ROOT/scripts/kernel.sh" "${flavour[@]}" | sed -n 's/^KDIR=//p')
		[[ -n $kdir ]] || irn_die "scripts/kernel.sh did not return a kernel"
		BZIMAGE=$kdir/arch/x86/boot/bzImage
		KVER=$(cat "$kdir/include/config/kernel.release")
		MODDIR=$kdir/modroot/lib/modules
		MODLINK=$MODDIR/$KVER/kernel
		INITRD=$(irn_initramfs "$KVER" "")
	fi
	# TCG's "max" CPU offers 5-level paging; KASAN in 6.1 once reported
	# a wild access in early boot (handle_edge_irq, before any module)
	# with it.  The debug kernel runs with 4-level paging, as most
	# hardware does.
	QEMU_CPU=max
	KERNEL_ARGS=''
	[[ $kernel != debug ]] || QEMU_CPU=max,la57=off
	# The skb cache marked for failslab's cache filter (a mark that can
	# only be set at boot in 6.1; it has no effect until the filter is
	# switched on): the faults test's skb allocation failures.
	[[ $kernel != debug ]] || KERNEL_ARGS=slub_debug=A,skbuff_head_cache
	[[ -r $BZIMAGE ]] || irn_die "kernel image $BZIMAGE not readable (run scripts/deps.sh / scripts/kernel.sh)"
}

# prepare_kernel SLOT KERNEL: select_kernel and stage_modules for the
# guests that boot KERNEL (slot a: every guest but b; slot b: guest b),
# remembered in the BOOT_* arrays by slot.
declare -A BOOT_KERNEL=() BOOT_BZIMAGE=() BOOT_INITRD=() BOOT_CPU=() BOOT_ARGS=() BOOT_MODSTAGE=()
prepare_kernel() {
	local slot=$1

	select_kernel "$2"
	MODSTAGE=
	stage_modules "$2"
	BOOT_KERNEL[$slot]=$2 BOOT_BZIMAGE[$slot]=$BZIMAGE BOOT_INITRD[$slot]=$INITRD
	BOOT_CPU[$slot]=$QEMU_CPU BOOT_ARGS[$slot]=$KERNEL_ARGS BOOT_MODSTAGE[$slot]=$MODSTAGE
}

# boot_slot ROLE: which prepared kernel ROLE boots.
boot_slot() { [[ $1 == b && -n ${BOOT_KERNEL[b]:-} ]] && echo b || echo a; }

# stage_modules KERNEL: a cached directory whose lib/modules/KVER has the
# test modules built for KVER (of --modules, by their vermagic) in extra/,
# modules.* from depmod, and kernel/ linking to MODLINK.
stage_modules() {
	local given=() kos=() ko key stage mdir
	IFS=: read -r -a given <<<"$MODULES"
	for ko in "${given[@]}"; do
		[[ -f $ko ]] || irn_die "module $ko (IRN_MODULES / --modules) not found"
		[[ $(modinfo -F vermagic "$ko") != "$KVER "* ]] || kos+=("$ko")
	done
	[[ ${#given[@]} -eq 0 || ${#kos[@]} -gt 0 ]] ||
		irn_die "none of the modules ($MODULES) is built for $KVER"
	[[ ${#kos[@]} -gt 0 || $1 != debian* ]] || return 0
	key=$({
		printf '%s\n' "$KVER" "$MODDIR" "$MODLINK"
		declare -f stage_modules
		[[ ${#kos[@]} -eq 0 ]] || sha256sum "${kos[@]}"
	} | irn_key)
	stage=$IRN_CACHE/modstage/$KVER-$key
	if [[ ! -d $stage ]]; then
		mdir=$stage.tmp/lib/modules/$KVER
		rm -rf "$stage.tmp"
		mkdir -p "$mdir/extra"
		ln -s "$MODDIR/$KVER/kernel" "$mdir/kernel"
		cp "$MODDIR/$KVER"/modules.{order,builtin,builtin.modinfo} "$mdir/"
		[[ ${#kos[@]} -eq 0 ]] || cp "${kos[@]}" "$mdir/extra/"
		depmod -b "$stage.tmp" "$KVER" || irn_die "depmod for the module stage failed"
		ln -sfn "$MODLINK" "$mdir/kernel"
		mv "$stage.tmp" "$stage"
	fi
	MODSTAGE=$stage
}

# Host paths the guest needs that a guest tmpfs would hide.
keep_paths() {
	local p keep=()
	for p in "$IRN_ROOT" "$IRN_CACHE" "$(dirname "$JOB")" ${IRN_KEEP:-}; do
		case $p in
		/run | /run/* | /dev/* | /proc/* | /sys/*)
			irn_die "$p is hidden inside guests; move it (or set IRN_CACHE)" ;;
		/tmp/* | /var/tmp/* | /root/*) keep+=("$p") ;;
		esac
	done
	local IFS=:
	printf '%s' "${keep[*]}"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The end hosts' roles and addresses: a is 10.77.0.1, b .2, c .3 ...
role_ip() {
	local n

	n=$(printf '%d' "'$1")
	printf '10.77.0.%d\n' $((n - 96))
}

# --switch: the senders' roles, b onwards.
sender_roles() {
	local all=bcdefg i

	for ((i = 0; i < SENDERS; i++)); do
		printf '%s\n' "${all:i:1}"
	done
}

write_guest_env() {
	local role=$1 dir=$2 self peer kv slot

	slot=$(boot_slot "$role")
	case $role in
	s) self='' peer='' ;;
	a) self=$(role_ip a) peer=$(role_ip b) ;;
	*) self=$(role_ip "$role") peer=$(role_ip a) ;;
	esac
	{
		printf 'export IRN_ROLE=%q IRN_SELF_IP=%q IRN_PEER_IP=%q IRN_NETDEV=eth0\n' "$role" "$self" "$peer"
		printf 'export IRN_SENDERS=%q\n' "$(sender_roles | tr '\n' ' ')"
		printf 'export IRN_GUESTS=%q IRN_KERNEL=%q IRN_SRC=%q\n' "$GUESTS" "${BOOT_KERNEL[$slot]}" "$IRN_ROOT"
		printf 'export IRN_CABLES=%q\n' "$CABLES"
		printf 'export IRN_GUEST_OUT=/run/irn/out IRN_GUEST_SHARED=/run/irn/shared\n'
		printf 'export IRN_MODSTAGE=%q\n' "${BOOT_MODSTAGE[$slot]}"
		printf 'IRN_JOB=%q\n' "$JOB"
		printf 'IRN_JOB_ARGS=(%s)\n' "$(printf '%q ' "${JOB_ARGS[@]}")"
		for kv in "${JOB_ENV[@]}"; do
			printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
		done
	} >"$dir/out/guest.env"
}

# cpus_of ROLE: with --switch on a host of two CPUs or more, the CPUs
# its QEMU may run on: the switch and the receiver on CPU 0, the senders
# on the others.  A sender polls its completion queue and keeps its vCPU
# busy whatever it sends; sharing every CPU, the senders starved the
# switch guest, whose shaper then sent below its rate (it cannot make up
# for time its guest was not scheduled).  A switch is hardware and a
# receiver has its host to itself: they get a CPU the senders do not
# touch.  Prints nothing otherwise (no pinning).
cpus_of() {
	local n

	n=$(nproc)
	((SENDERS > 0 && n >= 2)) || return 0
	case $1 in
	s|a) echo 0 ;;
	*) echo "1-$((n - 1))" ;;
	esac
}

# start_guest ROLE NETDEV-ARGS...: QEMU in the background, pid in
# PIDS[ROLE]; one NIC per netdev (ids n0, n1, ...: eth0, eth1, ...).
start_guest() {
	local role=$1 dir=$RUN/guest-$1 keep net nics=() i=0 host slot pin=()
	shift
	[[ -z $(cpus_of "$role") ]] || pin=(taskset -c "$(cpus_of "$role")")
	slot=$(boot_slot "$role")
	host=$(($(printf '%d' "'$role") - 96))
	[[ $role != s ]] || host=0x10
	for net in "$@"; do
		nics+=(-netdev "${net/id=n0/id=n$i}" -device
		       "virtio-net-pci,netdev=n$i,mac=$(printf '52:54:00:77:%02x:%02x' "$i" "$host")")
		i=$((i + 1))
	done
	keep=$(keep_paths)
	mkdir -p "$dir/out"
	write_guest_env "$role" "$dir"
	"${pin[@]}" qemu-system-x86_64 -accel tcg -cpu "${BOOT_CPU[$slot]}" -smp "$CPUS" -m "$MEM" \
		-nodefaults -display none -no-reboot \
		-kernel "${BOOT_BZIMAGE[$slot]}" -initrd "${BOOT_INITRD[$slot]}" \
		-append "console=ttyS0,115200 panic=-1 mitigations=off irn.stage2=$IRN_ROOT/scripts/guest/stage2.sh irn.keep=$keep${BOOT_ARGS[$slot]:+ ${BOOT_ARGS[$slot]}}" \
		-chardev "file,id=con,path=$dir/console.log" -serial chardev:con \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$dir/out,mount_tag=irnout,security_model=none,multidevs=remap" \
		-virtfs "local,path=$RUN/shared,mount_tag=irnshared,security_model=none,multidevs=remap" \
		"${nics[@]}" >"$dir/qemu.log" 2>&1 &
	PIDS[$role]=$!
}

# wait_cable WHAT TEST...: wait up to 10 s for guest a's QEMU to listen on
# the cable (TEST succeeds), or stop the run.
wait_cable() {
	local what=$1

	shift
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	irn_die "QEMU of guest a never listened on $what; see $RUN/guest-a/qemu.log"
}

tcp_listening() { ss -ltn "sport = :$1" | grep -q LISTEN; }

# start_guests: guest a, and guest b on the other end of the cable (of
# each cable, with --cables 2: a listens on both, b connects to both).
# IRN_CABLE=unix (default): a stream netdev over a Unix socket, which has
# no Nagle (1.2 to 2.2 ms an ibv_rc_pingpong iteration of 64 B).
# IRN_CABLE=tcp: QEMU's socket netdev over a TCP connection on 127.0.0.1.
# QEMU leaves Nagle on, so a small frame sent right after another (an
# RDMA ACK, then the reply) waits for the host's delayed ACK, up to 40 ms:
# an iteration takes about 44 ms on it, where ICMP ping takes 1 to 2 ms.
# Both are lossless and keep frames in order.
start_guests() {
	local port k listen=() connect=() ports=()

	if [[ $SENDERS != 0 ]]; then
		start_switched
		return 0
	fi
	if [[ $IRN_CABLE == unix ]]; then
		CABLE_DIR=$(mktemp -d /tmp/irn-cable.XXXXXX)
		trap 'rm -rf "$CABLE_DIR"' EXIT
		# cable 1 is the socket s, cable 2 s2
		for ((k = 1; k <= CABLES; k++)); do
			listen+=("stream,id=n0,server=on,addr.type=unix,addr.path=$CABLE_DIR/s${k#1}")
			connect+=("stream,id=n0,server=off,addr.type=unix,addr.path=$CABLE_DIR/s${k#1}")
		done
		start_guest a "${listen[@]}"
		[[ $GUESTS == 2 ]] || return 0
		for ((k = 1; k <= CABLES; k++)); do
			wait_cable "$CABLE_DIR/s${k#1}" test -S "$CABLE_DIR/s${k#1}"
		done
		start_guest b "${connect[@]}"
		return 0
	fi
	[[ $IRN_CABLE == tcp ]] || irn_die "IRN_CABLE=$IRN_CABLE: use tcp or unix"
	for ((k = 1; k <= CABLES; k++)); do
		port=$(free_port)
		ports+=("$port")
		listen+=("socket,id=n0,listen=127.0.0.1:$port")
		connect+=("socket,id=n0,connect=127.0.0.1:$port")
	done
	start_guest a "${listen[@]}"
	[[ $GUESTS == 2 ]] || return 0
	for port in "${ports[@]}"; do
		wait_cable "port $port" tcp_listening "$port"
	done
	start_guest b "${connect[@]}"
}

# start_switched: the switch guest s with one listening Unix cable per
# port (port 0 for a, port k for the k-th sender), then the end hosts.
start_switched() {
	local k roles nets=()

	CABLE_DIR=$(mktemp -d /tmp/irn-cable.XXXXXX)
	trap 'rm -rf "$CABLE_DIR"' EXIT
	mapfile -t roles < <(printf 'a\n'; sender_roles)
	for k in "${!roles[@]}"; do
		nets+=("stream,id=n0,server=on,addr.type=unix,addr.path=$CABLE_DIR/p$k")
	done
	start_guest s "${nets[@]}"
	for k in "${!roles[@]}"; do
		wait_cable "$CABLE_DIR/p$k" test -S "$CABLE_DIR/p$k"
		start_guest "${roles[$k]}" \
			"stream,id=n0,server=off,addr.type=unix,addr.path=$CABLE_DIR/p$k"
	done
}

# Wait for all QEMUs; kill them when the deadline passes. Sets TIMED_OUT.
wait_guests() {
	local deadline=$((SECONDS + TIMEOUT)) alive pid
	TIMED_OUT=0
	while :; do
		alive=0
		for pid in "${PIDS[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[[ $alive == 1 ]] || break
		if ((SECONDS >= deadline)); then
			TIMED_OUT=1
			for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
			sleep 1
			for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
			break
		fi
		sleep 0.5
	done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# Judge one guest: prints a status word into guest-X/status, returns 0/1/2.
judge_guest() {
	local role=$1 dir=$RUN/guest-$1 rc bad
	if [[ ! -f $dir/out/job.rc ]]; then
		if [[ $TIMED_OUT == 1 ]]; then
			echo timeout >"$dir/status"
			irn_warn "guest $role: hard timeout ($TIMEOUT s) hit, killed; console: $dir/console.log"
		else
			echo crashed >"$dir/status"
			irn_warn "guest $role: died before its job finished; console: $dir/console.log"
		fi
		tail -n 25 "$dir/console.log" >&2 || true
		[[ ! -s $dir/qemu.log ]] || cat "$dir/qemu.log" >&2
		return 2
	fi
	if [[ $SCAN == 1 ]] && bad=$(irn_scan_kernel_log "$dir/console.log" | grep -v -E '^(irn-guest|irn-test):'); then
		echo kernel-warning >"$dir/status"
		irn_warn "guest $role: kernel warnings in $dir/console.log:"
		printf '%s\n' "$bad" | head -n 20 >&2
		return 2
	fi
	rc=$(cat "$dir/out/job.rc")
	if [[ $rc != 0 ]]; then
		echo "job-failed $rc" >"$dir/status"
		return 1
	fi
	echo ok >"$dir/status"
}

main() {
	local roles=(a) role worst=0 r t0
	declare -gA PIDS=()
	parse_args "$@"
	irn_guest_lock "scripts/vm.sh $NAME"
	irn_need_cmd qemu-system-x86_64 depmod modprobe cpio gzip python3 ss
	prepare_kernel a "$KERNEL"
	[[ $KERNEL_B == "$KERNEL" ]] || prepare_kernel b "$KERNEL_B"
	RUN=${RUN_DIR:-$(irn_run_dir)}/$NAME
	rm -rf "$RUN"
	mkdir -p "$RUN/shared"
	t0=$(irn_now)
	start_guests
	if [[ $SENDERS != 0 ]]; then
		mapfile -t roles < <(printf 's\na\n'; sender_roles)
	elif [[ $GUESTS == 2 ]]; then
		roles+=(b)
	fi
	wait_guests
	for role in "${roles[@]}"; do
		r=0
		judge_guest "$role" || r=$?
		((r > worst)) && worst=$r
	done
	irn_log "$NAME: guests done in $(irn_elapsed "$t0") s, results in $RUN"
	return "$worst"
}

# One line: a vm.sh edited while it runs goes on to the end unharmed.
main "$@"; exit
