# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the irn test harness. Source it from a script in
# scripts/ after setting IRN_ROOT; it defines logging, the cache layout
# and a few small utilities. Nothing here has side effects at source time
# except computing paths.

IRN_ROOT=${IRN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
IRN_CACHE=${IRN_CACHE:-/var/cache/irn}
# Results of every run stay in the checkout (git ignores results/), so a
# failed CI run can be read afterwards.
IRN_RESULTS=${IRN_RESULTS:-$IRN_ROOT/results}
# One guest job at a time on this host: see irn_guest_lock.
IRN_GUEST_LOCK=${IRN_GUEST_LOCK:-/run/lock/irn-guest-jobs.lock}
# The guests' cable (scripts/vm.sh start_guests): unix or tcp.
IRN_CABLE=${IRN_CABLE:-unix}
# Debian's kernel the guests boot: the newest of line IRN_KERNEL_LINE with
# image, modules and headers installed.  6.1 is Debian 12's own; 6.12 is
# the newer line Debian 12 offers and Debian 13 ships (make check-6.12).
IRN_KERNEL_LINE=${IRN_KERNEL_LINE:-6.1}
# The second line, which make check runs a subset on after 6.1's tests.
IRN_NEW_LINE=6.12
irn_find_debian_kver() {
	local d v best=
	for d in /usr/src/linux-headers-"$IRN_KERNEL_LINE".*-amd64; do
		v=${d#/usr/src/linux-headers-}
		[[ -f /boot/vmlinuz-$v && -d /lib/modules/$v ]] || continue
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n1)
	done
	[[ -n $best || $IRN_KERNEL_LINE != 6.1 ]] || best=6.1.0-57-amd64
	printf '%s\n' "$best"
}
# irn_debian_kernel: IRN_DEBIAN_KVER, _KDIR and _BZIMAGE, each unless the
# caller set it; none while no kernel of the line is installed (the
# scripts call it again after scripts/deps.sh).
irn_debian_kernel() {
	IRN_DEBIAN_KVER=${IRN_DEBIAN_KVER:-$(irn_find_debian_kver)}
	[[ -n $IRN_DEBIAN_KVER ]] || return 0
	IRN_DEBIAN_KDIR=${IRN_DEBIAN_KDIR:-/usr/src/linux-headers-$IRN_DEBIAN_KVER}
	IRN_DEBIAN_BZIMAGE=${IRN_DEBIAN_BZIMAGE:-/boot/vmlinuz-$IRN_DEBIAN_KVER}
}
irn_debian_kernel
IRN_LINUX_SOURCE_TARBALL=${IRN_LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
IRN_LINUX_SOURCE_PKG=linux-source-6.1

# Messages go to stderr so that stdout stays usable for results.
irn_log() { printf 'irn: %s\n' "$*" >&2; }
irn_warn() { printf 'irn: warning: %s\n' "$*" >&2; }
irn_die() { printf 'irn: error: %s\n' "$*" >&2; exit 1; }

irn_need_root() {
	[[ $(id -u) -eq 0 ]] || irn_die "$1 needs root (run it with sudo)"
}

irn_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			irn_die "'$c' not found; run scripts/deps.sh"
	done
}

# sha256 of stdin, hex only
irn_sha() { sha256sum | cut -c1-64; }

# short key: first 16 hex digits of the sha256 of stdin
irn_key() { irn_sha | cut -c1-16; }

irn_pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null ||
		irn_die "package $1 is not installed; run scripts/deps.sh"
}

# irn_other_guests TEXT: how many QEMU processes run on this host whose
# command line does not contain TEXT (the guests of some other job)
irn_other_guests() {
	local n
	n=$({ pgrep -a -f '(^|/)qemu-system-' || true; } | { grep -c -v -F -- "$1" || true; })
	printf '%s\n' "${n:-0}"
}

# irn_watch_host DIR: run in the background; until the script that started
# it exits, note every 5 s how many other jobs' QEMU guests share the host,
# keeping the most seen in DIR/host-busy.  TCG guests beside a measurement
# distort it: latency, timeouts and single bandwidth runs most.
irn_watch_host() {
	local n max=0 parent=$$
	while kill -0 "$parent" 2>/dev/null; do
		n=$(irn_other_guests "$1")
		if ((n > max)); then
			max=$n
			printf '%s\n' "$max" >"$1/host-busy"
		fi
		sleep 5
	done
}

# irn_watch_host_start DIR: start irn_watch_host in the background (its
# output closed, so that it holds no pipe of the caller open) and warn now
# if other jobs' guests are already running
irn_watch_host_start() {
	local busy
	irn_watch_host "$1" >/dev/null 2>&1 &
	busy=$(irn_other_guests "$1")
	((busy == 0)) ||
		irn_warn "$busy QEMU guest(s) of another job are running: the figures will be distorted"
}

# irn_host_busy_note DIR: a warning sentence if irn_watch_host saw other
# guests during the run, nothing otherwise
irn_host_busy_note() {
	[[ -s $1/host-busy ]] || return 0
	printf 'Host not quiet: up to %s QEMU guest(s) of another job ran beside this run, which distorts latency, timeouts and single bandwidth runs; repeat it on a quiet host before relying on it.\n' \
		"$(cat "$1/host-busy")"
}

# Run "$@" holding an exclusive lock on file $1 (serialises cache writers).
irn_with_lock() {
	local lock=$1
	shift
	mkdir -p "$(dirname "$lock")"
	(
		flock -x 9
		"$@"
	) 9>"$lock"
}

# irn_guest_lock WHAT: take the host-wide lock of guest jobs, waiting (and
# saying so) while another job holds it.  TCG guests of two jobs on a
# 2-core host make each other's timers fire and their figures
# meaningless.  The lock is held until this process and every child that
# inherited it (QEMU included) have exited; a child script that boots
# guests itself sees IRN_GUEST_LOCK_HELD and does not take it again.
irn_guest_lock() {
	local what=$1 holder

	[[ ${IRN_GUEST_LOCK_HELD:-} != 1 ]] || return 0
	mkdir -p "$(dirname "$IRN_GUEST_LOCK")"
	exec {IRN_GUEST_LOCK_FD}<>"$IRN_GUEST_LOCK"
	if ! flock -x -n "$IRN_GUEST_LOCK_FD"; then
		holder=$(cat "$IRN_GUEST_LOCK" 2>/dev/null)
		irn_log "$what: waiting for another guest job to finish (${holder:-holder unknown}; lock $IRN_GUEST_LOCK)"
		flock -x "$IRN_GUEST_LOCK_FD"
		irn_log "$what: lock taken"
	fi
	printf 'pid %s, %s, since %s\n' "$$" "$what" "$(date -u +%H:%M:%S)" >"$IRN_GUEST_LOCK"
	export IRN_GUEST_LOCK_HELD=1
}

# Timestamped run directory for logs and results; created once per
# process tree (exported so child scripts reuse it).
irn_run_dir() {
	if [[ -z ${IRN_RUN_DIR:-} ]]; then
		IRN_RUN_DIR=$IRN_RESULTS/$(date +%Y%m%d-%H%M%S)-$$
		mkdir -p "$IRN_RUN_DIR"
		export IRN_RUN_DIR
	fi
	printf '%s\n' "$IRN_RUN_DIR"
}

# shellcheck source=scripts/lib/kernel-log.sh
source "$IRN_ROOT/scripts/lib/kernel-log.sh"

# irn_test_budget FILE TIER: the seconds a test may take in TIER (ci or
# full), from its "# irn-test:" header: "ci=N" in the CI tier, else
# "timeout=N" (default 120).
irn_test_budget() {
	local hdr key=timeout t
	hdr=$(grep -m1 -E '^# irn-test:' "$1")
	[[ $2 != ci ]] || ! grep -q -E '(^| )ci=[0-9]+' <<<"$hdr" || key=ci
	t=$(grep -o -E "(^| )$key=[0-9]+" <<<"$hdr" | cut -d= -f2)
	printf '%s\n' "${t:-120}"
}

# Seconds since the epoch, with decimals.
irn_now() { date +%s.%N; }

irn_elapsed() { awk -v a="$1" -v b="$(irn_now)" 'BEGIN { printf "%.1f", b - a }'; }

# irn_rst_text: stdin with reStructuredText's markup characters escaped
irn_rst_text() {
	sed 's/[\\`*_|]/\\&/g'
}

# irn_rst_check FILE: fail, with docutils' messages, if FILE has an error
# or a warning as reStructuredText
irn_rst_check() {
	python3 - "$1" <<'PY'
import sys
import docutils.core
import docutils.utils
path = sys.argv[1]
try:
    docutils.core.publish_doctree(
        open(path, encoding="utf-8").read(), source_path=path,
        settings_overrides={"halt_level": 2, "report_level": 2})
except docutils.utils.SystemMessage:
    sys.exit(1)  # docutils printed the message
PY
}
