/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Device lifetime: `rdma link add/delete`, netdev events, lookup.
 */
#ifndef _IRN_DEVICE_H
#define _IRN_DEVICE_H

struct irn_dev;
struct net_device;

int irn_device_init(void);
void irn_device_exit(void);

struct irn_dev *irn_device_get_by_netdev(struct net_device *ndev);
void irn_device_put(struct irn_dev *dev);

#endif /* _IRN_DEVICE_H */
