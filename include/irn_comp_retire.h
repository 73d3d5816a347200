/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the completer's two paths stand on (irn_comp_retire.c): the
 * response state machine's states, which the engine (irn_comp.c) runs and
 * the IRN path's handlers (irn_comp_sack.c) return, the WQE predicates both
 * paths ask, and the helpers that retire WQEs and move the cumulative
 * point.  Private to the completer.
 */
#ifndef _IRN_COMP_RETIRE_H
#define _IRN_COMP_RETIRE_H

#include <linux/types.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

#include "irn_compat.h"
#include "irn_hdr.h"
#include "irn_qp.h"

enum comp_state {
	COMP_CHECK_PSN,
	COMP_CHECK_OP,
	COMP_READ,
	COMP_ATOMIC,
	COMP_ATOMIC_WRITE,
	COMP_ACK,
	COMP_NAK,
	COMP_DONE,
};

static inline bool is_atomic_wqe(const struct irn_swqe *w)
{
	return w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/* Its reply is an empty RDMA READ Response Only (IBTA 1.5). */
static inline bool is_atomic_write_wqe(const struct irn_swqe *w)
{
	return w->opcode == IRN_WR_ATOMIC_WRITE;
}

/* Is @pkt, a read response, the reply of the atomic write @w? */
static inline bool aw_reply_ok(const struct irn_swqe *w,
			       const struct irn_pkt *pkt)
{
	return pkt->opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY &&
	       !pkt->paylen && pkt->psn == w->first_psn;
}

/*
 * IBTA lets the transport timer expire between T and 4T, T being the QP's
 * local ACK timeout: within that range irn follows the measured RTT, so a
 * path slower than the application guessed does not retransmit spuriously.
 */
static inline u64 ib_timeout_ns(const struct irn_qp *qp)
{
	return 4096ULL << min_t(u8, qp->timeout, 31);
}

u64 irn_comp_rto_ns(const struct irn_qp *qp);
struct irn_swqe *irn_comp_head_wqe(struct irn_qp *qp);
bool irn_comp_retire(struct irn_qp *qp, struct irn_swqe *w,
		     enum ib_wc_status status);
void irn_comp_progress(struct irn_qp *qp, u32 psn);

#endif /* _IRN_COMP_RETIRE_H */
