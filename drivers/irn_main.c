// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * irn: a loss-tolerant software RoCEv2 RDMA device.
 *
 * Module init and exit only; see Documentation/design.rst for the map.
 */

#include <linux/kconfig.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <rdma/rdma_netlink.h>

#include "irn_debugfs.h"
#include "irn_device.h"
#include "irn_net.h"
#include "irn_task.h"
#include "irn_txsock.h"

#if !IS_ENABLED(CONFIG_INFINIBAND_VIRT_DMA)
#error "irn needs CONFIG_INFINIBAND_VIRT_DMA"
#endif
#if !IS_ENABLED(CONFIG_NET_UDP_TUNNEL)
#error "irn needs CONFIG_NET_UDP_TUNNEL"
#endif

static int __init irn_init(void)
{
	int err;

	irn_debugfs_init();
	err = irn_task_module_init();
	if (err)
		goto err_debugfs_exit;
	err = irn_net_init();
	if (err)
		goto err_task_exit;
	err = irn_device_init();
	if (err)
		goto err_net_exit;
	return 0;

err_net_exit:
	irn_net_exit();
err_task_exit:
	irn_task_module_exit();
err_debugfs_exit:
	irn_debugfs_exit();
	return err;
}

static void __exit irn_exit(void)
{
	irn_device_exit();
	/* Packets the devices' QPs sent while they were being removed. */
	irn_txsock_wait_all();
	/* Address vectors freed after a grace period (irn_av_free()). */
	rcu_barrier();
	irn_net_exit();
	irn_task_module_exit();
	irn_debugfs_exit();
}

/* Late, like rdma_rxe: the RDMA core and IPv6 are initialised by then. */
late_initcall(irn_init);
module_exit(irn_exit);

MODULE_ALIAS_RDMA_LINK("irn");
MODULE_AUTHOR("The irn authors");
MODULE_DESCRIPTION("Loss-tolerant software RoCEv2 RDMA device (IRN)");
MODULE_LICENSE("Dual BSD/GPL");
