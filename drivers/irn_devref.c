// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The irn device a netdev has.
 *
 * The receive hook (irn_udp.c) and the netdev notifier (irn_device.c) both
 * ask the RDMA core which device a netdev has, and take a registration
 * reference on it, so that it cannot be unregistered under them.  The
 * lookup stands below both: the receive hook needs nothing of how devices
 * are created and taken down.
 *
 * irn registers as RDMA_DRIVER_RXE (irn_device.c), which the core's lookup
 * by driver id shares with stock rxe: a device found is irn's if its
 * ib_device_ops.owner is this module, as irn_device.c sets it.  That tells
 * the two apart because irn is always a module, so THIS_MODULE is irn's
 * own and never NULL (a built-in rxe's owner is NULL, a modular rxe's is
 * rdma_rxe), and because only objects of rdma_irn.ko compile this file.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

#include "irn_dev.h"
#include "irn_devref.h"

#ifndef MODULE
#error "irn tells its devices from stock rxe's by THIS_MODULE: build it as a module"
#endif

static bool is_irn_dev(const struct ib_device *ibdev)
{
	return ibdev->ops.owner == THIS_MODULE;
}

/**
 * irn_devref_get_by_netdev() - the irn device bound to a netdev
 * @ndev: netdev
 *
 * Context: any; safe in softirq.
 * Return: the device with a registration reference held (drop it with
 * irn_devref_put()), or NULL if @ndev has no irn device that is registered
 * and enabled (the RDMA core disables a device while it moves it to
 * another namespace).
 */
struct irn_dev *irn_devref_get_by_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NULL;
	if (!is_irn_dev(ibdev)) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_irn_dev(ibdev);
}

/**
 * irn_devref_put() - drop a reference from irn_devref_get_by_netdev()
 * @dev: device
 *
 * Context: any.
 */
void irn_devref_put(struct irn_dev *dev)
{
	ib_device_put(&dev->ib_dev);
}
