#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=1500
#
# interop.sh (stock rdma_rxe on guest a, irn on guest b, both directions)
# with netem dropping 1% of the packets leaving each guest's eth0
# (IRN_INTEROP_LOSS overrides the rate).  Go-back-N on both sides must
# recover: every run must complete on both sides and pass interop.sh's
# checks of both outputs (the pingpong server's -c, rping's data on both
# ends, irn_perftest's).  A pingpong server whose last send was never
# acknowledged checked nothing: its case runs once more.  Bigger runs
# (ib_*_bw -s 65536 -n 200) and generous timeouts.
# With IRN_DRIVER=rxe both guests run stock rdma_rxe.
export IRN_INTEROP_LOSS=${IRN_INTEROP_LOSS:-1%}
# shellcheck source=scripts/tests/interop.sh
. "$(dirname "${BASH_SOURCE[0]}")/interop.sh"
