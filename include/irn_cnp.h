/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Congestion Notification Packets: the notification point of DCQCN.
 */
#ifndef _IRN_CNP_H
#define _IRN_CNP_H

struct irn_qp;

void irn_cnp_notify(struct irn_qp *qp);

#endif /* _IRN_CNP_H */
