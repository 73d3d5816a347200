# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What in a kernel log fails a run: the host's harness (common.sh) and the
# guests' tests (tests/lib.sh) both judge logs with these.

# Kernel messages that make a run fail. Extended regex, one per line.
irn_bad_kernel_patterns() {
	cat <<'PAT'
WARNING:
BUG:
Oops
general protection
Call Trace
RIP:
possible circular locking
inconsistent lock state
lockdep: .*(turning off|BUG)
KASAN:
UBSAN:
refcount_t:
list_(add|del) corruption
kmemleak: .*(suspected memory leak|new suspected)
Kernel panic
INFO: task .* blocked for more than
blocked for more than
rcu: INFO: .* detected stalls
ODEBUG: 
dst_release(_immediate)?(: dst:| underflow)
PAT
}

# Filter: the kernel log without the reports that are no fault:
#
# - Failed allocations.  The kernel prints one (warn_alloc: "page
#   allocation failure" or "vmalloc error", a stack dump, the memory
#   state) for any failed allocation that did not ask for silence; the
#   faults test injects such failures on purpose.  At most 80 lines are
#   skipped per report.
# - NVMe-oF target's own lock order, which lockdep reports on any RDMA
#   device once a host has connected and a port is then unlinked in
#   configfs: an I/O queue's connect takes nvmet_config_sem under rdma_cm's
#   handler_mutex (nvmet_execute_io_connect), port removal takes
#   handler_mutex under nvmet_config_sem (nvmet_port_subsys_drop_link ->
#   rdma_destroy_id).  Dropped only when the report names both locks and
#   no irn code (blktests' nvme tests show the same family of reports
#   upstream).
#
# What may follow one (KASAN, a BUG, a leak) is still caught.
irn_drop_known_reports() {
	awk '
	function flush(drop) {
		if (!drop)
			printf "%s", held
		held = ""; n = 0; lockdep = 0
	}
	/(page allocation failure|vmalloc error): / { skip = 80 }
	skip > 0 { skip--; if ($0 ~ /<\/TASK>/) skip = 0; next }
	/WARNING: possible circular locking dependency detected/ { flush(0); lockdep = 1 }
	lockdep {
		held = held $0 "\n"
		if ($0 ~ /<\/TASK>/ || ++n >= 300)
			flush(held ~ /nvmet_config_sem/ && held ~ /handler_mutex/ &&
			      held ~ /nvmet_port_subsys_drop_link/ &&
			      held !~ /\[rdma_irn\]|irn_[a-z]/)
		next
	}
	{ print }
	END { flush(0) }'
}

# Print the lines of file $1 that match a bad-kernel pattern (empty if
# none). Exit status 0 if something was found.
irn_scan_kernel_log() {
	local f=$1
	[[ -s $f ]] || return 1
	irn_drop_known_reports <"$f" | grep -a -E -f <(irn_bad_kernel_patterns)
}
