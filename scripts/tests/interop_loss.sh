#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=1500
#
# interop.sh (stock rdma_rxe on guest a, irn on guest b, both directions)
# with netem dropping 1% of the packets leaving each guest's eth0
# (IRN_INTEROP_LOSS overrides the rate).  Go-back-N on both sides must
# recover: every run must complete and ibv_rc_pingpong -c / rping -v must
# see intact data.  Bigger runs (ib_*_bw -s 65536 -n 200) and generous
# timeouts.  With IRN_DRIVER=rxe both guests run stock rdma_rxe.
export IRN_INTEROP_LOSS=${IRN_INTEROP_LOSS:-1%}
# shellcheck source=scripts/tests/interop.sh
. "$(dirname "${BASH_SOURCE[0]}")/interop.sh"
