/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Device lifetime: `rdma link add/delete`, netdev events.
 */
#ifndef _IRN_DEVICE_H
#define _IRN_DEVICE_H

int irn_device_init(void);
void irn_device_exit(void);

#endif /* _IRN_DEVICE_H */
