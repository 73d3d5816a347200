#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""irn_ctxhold - hold an RDMA device open, then check it was revoked.

Opens DEV and creates a PD, a CQ, an MR and an RC QP on it (the rxe
provider maps the CQ's and the QP's rings), then, with --netns PATH,
leaves its network namespace for the one PATH names (/proc/1/ns/net: the
initial one), so that the namespace it opened the device in can be
deleted while it keeps the device open.  It writes its pid to the --ready
file and waits until the --go file exists (at most --wait seconds).

Then it checks what the kernel did meanwhile.  With --expect revoked (the
default), the device was removed or moved to another namespace, and the
RDMA core revoked the context: ibv_query_device() and ibv_query_qp() must
fail with EIO, and polling the CQ, whose ring is still mapped, must find
nothing and not fault.  With --expect live, both queries must work.  It
then closes everything and exits:

  0  as expected
  1  setup failed, or --go never came
  2  not as expected (the message says what)
"""

import argparse
import ctypes
import errno
import os
import sys
import time

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
import pyverbs.enums as e

CLONE_NEWNET = 0x40000000


def say(msg):
    print(f"irn_ctxhold[{os.getpid()}]: {msg}", flush=True)


def leave_netns(path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns({path}): {os.strerror(err)}")
    finally:
        os.close(fd)


def verb_errno(fn):
    """errno of a verb that failed, 0 if it worked"""
    try:
        fn()
    except PyverbsRDMAError as ex:
        return ex.error_code or -1
    return 0


def wait_for(path, secs):
    end = time.monotonic() + secs
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--go", required=True)
    ap.add_argument("--netns")
    ap.add_argument("--wait", type=float, default=120)
    ap.add_argument("--expect", choices=("revoked", "live"),
                    default="revoked")
    args = ap.parse_args()

    try:
        ctx = Context(name=args.dev)
        pd = PD(ctx)
        cq = CQ(ctx, 16)
        mr = MR(pd, 65536, e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=cap))
        if args.netns:
            leave_netns(args.netns)
    except (PyverbsError, OSError) as ex:
        say(f"setup on {args.dev} failed: {ex}")
        return 1
    say(f"holds {args.dev}: QP {qp.qp_num}, MR lkey {mr.lkey:#x}"
        + (f", now in {args.netns}" if args.netns else ""))
    tmp = args.ready + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{os.getpid()}\n")
    os.rename(tmp, args.ready)

    if not wait_for(args.go, args.wait):
        say(f"no {args.go} within {args.wait:.0f} s")
        return 1

    qd = verb_errno(ctx.query_device)
    qq = verb_errno(lambda: qp.query(e.IBV_QP_STATE))
    try:
        polled = cq.poll(1)[0]
    except PyverbsError as ex:
        polled = f"error {ex}"
    say(f"after: query_device errno {qd}, query_qp errno {qq}, "
        f"CQ poll {polled}")
    rc = 0
    if args.expect == "revoked":
        if qd != errno.EIO or qq != errno.EIO:
            say(f"the context was not revoked: expected errno {errno.EIO}")
            rc = 2
        if polled != 0:
            say("polling the revoked CQ's ring found something")
            rc = 2
    elif qd or qq:
        say("the context does not work")
        rc = 2

    # Destroying the objects of a revoked context succeeds; report, do
    # not judge, anything else.
    for obj in (qp, mr, cq, pd, ctx):
        try:
            obj.close()
        except PyverbsError as ex:
            say(f"closing {type(obj).__name__}: {ex}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
