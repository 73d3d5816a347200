#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In-guest part of scripts/demo.sh: create an irn link on eth0, show it
# with the stock tools, delete it again.
set -euo pipefail

step() { printf '\n$ %s\n' "$*"; "$@"; }

step rdma link add irn0 type irn netdev "$IRN_NETDEV"
step rdma link
step ibv_devinfo -v -d irn0
step rdma statistic show
step rdma link delete irn0
step rmmod rdma_irn
