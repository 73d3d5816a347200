#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=1 timeout=600 debug
#
# Hostile user rings: tools/irn_ringfuzz writes garbage straight into the
# mmapped send and receive rings of a loopback RC QP (random slots,
# kernel-only and unknown opcodes, huge SGE counts and lengths, bad keys,
# inline lengths beyond the slot, unaligned atomics, atomic writes with odd
# lengths, addresses or keys, SGEs rewritten while the kernel reads them,
# producer indices out of range) and rings the doorbell.  Every case must end in a completion or the QP in error, the
# device must still move verified data afterwards, and the kernel must stay
# silent (on the debug kernel: no KASAN, UBSAN or lockdep report).
# IRN_RINGFUZZ_CASES (default 400) and IRN_RINGFUZZ_SEED (default: random,
# printed) tune the run.
set -euo pipefail
# shellcheck source=scripts/tests/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
irn_init

fuzz=$(irn_tool irn_ringfuzz)
irn_link_add "$IRN_DEV" "$IRN_NETDEV"
irn_wait_for 10 "$IRN_DEV port 1 ACTIVE" irn_port_state_is "$IRN_DEV" 4
irn_wait_for 10 "a RoCE v2 GID for $IRN_SELF_IP on $IRN_DEV" \
	irn_gid_index "$IRN_DEV" >/dev/null
gidx=$(irn_gid_index "$IRN_DEV")
seed=${IRN_RINGFUZZ_SEED:-$((RANDOM * 32768 + RANDOM))}
cases=${IRN_RINGFUZZ_CASES:-400}
irn_log "irn_ringfuzz: $cases cases, seed $seed (IRN_RINGFUZZ_SEED=$seed repeats them)"
set +e
"$fuzz" -d "$IRN_DEV" -g "$gidx" -n "$cases" -s "$seed" >"$IRN_OUT/ringfuzz.txt" 2>&1
rc=$?
set -e
cat "$IRN_OUT/ringfuzz.txt"
[[ $rc -eq 0 ]] || irn_fail "irn_ringfuzz exited with $rc (seed $seed); see above"
grep -q "^cases $cases .* failures 0 final verified" "$IRN_OUT/ringfuzz.txt" ||
	irn_fail "irn_ringfuzz did not report $cases clean cases"
# Most cases are invalid by construction: error completions must dominate.
errs=$(sed -n 's/.*completions \([0-9]*\) qp_errors \([0-9]*\).*/\1 \2/p' "$IRN_OUT/ringfuzz.txt")
read -r ncomp nqperr <<<"$errs"
[[ $((ncomp + nqperr)) -ge $cases ]] ||
	irn_fail "only $ncomp completions and $nqperr QP errors for $cases cases"
irn_dmesg_check "ring fuzzing"
irn_link_del "$IRN_DEV"
irn_log "PASS"
