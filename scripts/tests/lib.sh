# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the guest-side integration tests in scripts/tests/.
# Source it first thing:
#
#	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#	irn_init
#
# Environment (set by the harness, scripts/guest/run-tests.sh):
#   IRN_SRC IRN_KO IRN_TOOLS IRN_OUT IRN_ROLE IRN_SELF_IP IRN_PEER_IP
#   IRN_NETDEV IRN_SHARED
# Optional:
#   IRN_DRIVER=irn|rxe   run the same checks against stock rdma_rxe, to
#                        validate a test where the behaviour is shared
#                        (default irn)
#   IRN_TIER=ci|full     make check's quick cut or everything (default
#                        full): see irn_by_tier
#   IRN_NO_SKIP=1        a part of a test that cannot run fails it (CI)
#
# Exit codes: 0 pass, 77 skip, anything else fail.
#
# The helpers are in lib/, a file a concept, sourced here in this order;
# each uses only those before it:
#   runner.sh    the driver, logging, verdicts, the tier, waiting, the
#                module, the cleanup at exit, irn_init, the kernel log
#   device.sh    links, ports, GIDs, counters and their snapshots,
#                irn_dev_up, the stuck report
#   peer.sh      two guests: the shared export, barriers, values, the
#                peer's abort
#   case.sh      irn_case: a server and a client command as one case,
#                and the checks of their output
#   perftest.sh  irn_perftest: perftest's cases and the packets they move
#   held.sh      a live QP held still, for crafted packets

# shellcheck source=scripts/tests/lib/runner.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/runner.sh"
# shellcheck source=scripts/tests/lib/device.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/device.sh"
# shellcheck source=scripts/tests/lib/peer.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/peer.sh"
# shellcheck source=scripts/tests/lib/case.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/case.sh"
# shellcheck source=scripts/tests/lib/perftest.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/perftest.sh"
# shellcheck source=scripts/tests/lib/held.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/held.sh"
