#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=120 ci=120 debug
#
# User context, PD, CQs, and an SRQ QP's Last WQE Reached event through
# the stock rxe provider: runs tools/irn_devcheck against the device.
# IRN_DEVCHECK_ALLOW (comma separated step names, see "irn_devcheck -h")
# lists steps whose failure is tolerated while the driver is young.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init

devcheck=$(irn_tool irn_devcheck)
irn_link_add "$IRN_DEV" "$IRN_NETDEV"

args=(-d "$IRN_DEV" -v)
[[ -z ${IRN_DEVCHECK_ALLOW:-} ]] || args+=(--allow-fail "$IRN_DEVCHECK_ALLOW")
set +e
out=$("$devcheck" "${args[@]}" 2>&1)
rc=$?
set -e
printf '%s\n' "$out" | tee "$IRN_OUT/irn_devcheck-$IRN_DEV.txt"
[[ $rc -eq 0 ]] ||
	irn_fail "irn_devcheck ${args[*]} exited with $rc; failed steps: $(grep '^FAIL' <<<"$out" | tr '\n' ';')"
irn_dmesg_check "uverbs objects"

# The objects are gone: the device can be deleted and the module unloaded
# (irn_cleanup checks the unload).
irn_link_del "$IRN_DEV"
irn_log "PASS"
