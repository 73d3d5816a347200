/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The irn device a netdev has, found with a registration reference.
 */
#ifndef _IRN_DEVREF_H
#define _IRN_DEVREF_H

struct irn_dev;
struct net_device;

struct irn_dev *irn_devref_get_by_netdev(struct net_device *ndev);
void irn_devref_put(struct irn_dev *dev);

#endif /* _IRN_DEVREF_H */
