/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared receive queues.
 */
#ifndef _IRN_SRQ_H
#define _IRN_SRQ_H

#include <rdma/ib_verbs.h>

#include "irn_queue.h"

#define IRN_MAX_SRQ		SZ_64K
#define IRN_MAX_SRQ_WR		16384
#define IRN_MAX_SRQ_SGE		32
/* The most a QP's stage holds in WQE copies. */
#define IRN_SRQ_STAGE_BYTES	SZ_128K

/**
 * struct irn_srq - a shared receive queue
 * @ib_srq: the RDMA core's SRQ; must stay first
 * @rq: the ring of struct rxe_recv_wqe, and its lock, which here also
 *	serialises the responders of all QPs taking entries from it
 * @user: the ring is shared with user space
 * @limit: armed limit; an IB_EVENT_SRQ_LIMIT_REACHED fires once when fewer
 *	   entries remain, 0 when disarmed
 */
struct irn_srq {
	struct ib_srq		ib_srq;
	struct irn_wq		rq;
	bool			user;
	u32			limit;
};

/**
 * struct irn_srq_stage - the WQEs one QP has taken from its SRQ
 * @wqes: @mask + 1 copies of @size bytes; message n's is at n & @mask
 * @size: irn_srq_wqe_size() of the SRQ
 * @mask: the most messages staged at once, less one
 * @count: WQEs staged, for the messages from the oldest not completed on
 *
 * A responder that places messages as they arrive (IRN) needs the WQE of
 * a message that overtook earlier ones: it takes the earlier ones' WQEs
 * too, in order, and keeps them here until their messages complete or
 * the QP fails (then they complete as flushed).  Owned by the QP's
 * responder; the SRQ's lock covers only the taking.
 */
struct irn_srq_stage {
	void			*wqes;
	size_t			size;
	u32			mask;
	u32			count;
};

static inline struct irn_srq *to_irn_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct irn_srq, ib_srq);
}

static inline size_t irn_srq_wqe_size(const struct irn_srq *srq)
{
	return sizeof(struct rxe_recv_wqe) +
	       srq->rq.max_sge * sizeof(struct rxe_sge);
}

int irn_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int irn_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int irn_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int irn_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int irn_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
bool irn_srq_take(struct irn_srq *srq, struct rxe_recv_wqe *wqe);

int irn_srq_stage_init(struct irn_srq_stage *st, const struct irn_srq *srq,
		       u32 depth);
void irn_srq_stage_free(struct irn_srq_stage *st);
struct rxe_recv_wqe *irn_srq_stage_get(struct irn_srq_stage *st,
				       struct irn_srq *srq, u32 head, u32 rsn);
struct rxe_recv_wqe *irn_srq_stage_head(const struct irn_srq_stage *st,
					u32 head);
void irn_srq_stage_pop(struct irn_srq_stage *st);

#endif /* _IRN_SRQ_H */
