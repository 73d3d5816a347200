/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Queue pair verbs.
 */
#ifndef _IRN_QP_VERBS_H
#define _IRN_QP_VERBS_H

#include <rdma/ib_verbs.h>

#define IRN_MAX_QP_WR		16384
#define IRN_MAX_SGE		32
#define IRN_MAX_INLINE		512
#define IRN_MAX_QP		(BIT(24) - 17)

int irn_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int irn_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int irn_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int irn_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
int irn_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int irn_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);

#endif /* _IRN_QP_VERBS_H */
