/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Verbs: the ib_device_ops irn implements and the limits it advertises.
 */
#ifndef _IRN_VERBS_H
#define _IRN_VERBS_H

#include <rdma/ib_verbs.h>

struct irn_dev;

/* Version reported as fw_ver, major.minor.sub. */
#define IRN_VERSION_MAJOR	0
#define IRN_VERSION_MINOR	1
#define IRN_VERSION_SUB		0

extern const struct ib_device_ops irn_verbs_ops;

void irn_verbs_init_attr(struct irn_dev *dev);
enum ib_port_state irn_port_state(struct irn_dev *dev);

#endif /* _IRN_VERBS_H */
