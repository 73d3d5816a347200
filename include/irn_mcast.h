/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * UD multicast: which QPs of a device are attached to which group.
 */
#ifndef _IRN_MCAST_H
#define _IRN_MCAST_H

#include <rdma/ib_verbs.h>

struct irn_dev;
struct irn_qp;

/* Limits advertised in the device attributes. */
#define IRN_MCAST_GRP_MAX	256
#define IRN_MCAST_QP_MAX	16

void irn_mcast_init(struct irn_dev *dev);
void irn_mcast_cleanup(struct irn_dev *dev);
int irn_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int irn_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void irn_mcast_detach_qp(struct irn_qp *qp);
unsigned int irn_mcast_qpns(struct irn_dev *dev, const union ib_gid *mgid,
			    u32 qpns[IRN_MCAST_QP_MAX]);

#endif /* _IRN_MCAST_H */
