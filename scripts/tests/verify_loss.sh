#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# irn-test: guests=2 timeout=600 ci=600 6.12
#
# The data checks of verify.sh (no error paths) over a lossy link: netem
# drops 1% and delays 1 ms on eth0 of both guests, so go-back-N must
# recover every lost request, response and ACK and every byte must still
# verify.  RC only: UC and UD are unreliable by definition (a lost packet
# is a lost message), so there is nothing to recover for them.  Two
# messages per test (-n 2) keep the run short.
#
#   IRN_VERIFY_LOSS   netem parameters (default "loss 1% delay 1ms")
set -euo pipefail
IRN_VERIFY_LOSS=${IRN_VERIFY_LOSS:-loss 1% delay 1ms}
# shellcheck source=scripts/tests/verify.sh
. "$(dirname "${BASH_SOURCE[0]}")/verify.sh"
