// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device lifetime.
 *
 * `rdma link add NAME type irn netdev DEV` reaches irn_newlink(), which
 * creates and registers one RDMA device on an Ethernet netdev, in the
 * network namespace the netdev is in (irn_net.c).  Devices go away by
 * `rdma link delete`, when their netdev is unregistered or leaves the
 * namespace, or at module unload; in every case the RDMA core calls
 * irn_dealloc_driver() last.  None of these waits for the programs that
 * have the device open: the RDMA core revokes their user contexts
 * (disassociate_ucontext, irn_verbs.c).
 *
 * The RDMA core's own namespace of a device (who may see and open it) is
 * the initial one at creation on the kernels irn supports; in the core's
 * exclusive mode `rdma dev set NAME netns NS` moves it, which the core does
 * by disabling the device (revoking its users), and enabling it again in
 * NS.  While disabled, the core's lookups by netdev do not find the
 * device, so the netdev notifier finds irn's devices on irn's own list.
 *
 * irn registers as RDMA_DRIVER_RXE so that rdma-core's rxe provider drives
 * it, which means core lookups by driver id also find stock rxe devices:
 * the lookup by netdev (irn_devref.c) checks that the device is really ours
 * by its ops' owner, and module unload walks irn's own device list instead
 * of ib_unregister_driver(), which would take stock rxe's devices down too.
 */

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <uapi/rdma/ib_user_verbs.h>

#include "irn_debugfs.h"
#include "irn_dev.h"
#include "irn_device.h"
#include "irn_devref.h"
#include "irn_hdr.h"
#include "irn_mcast.h"
#include "irn_net.h"
#include "irn_tunables.h"
#include "irn_verbs.h"

/* rxe provider ABI: rdma-core accepts 1..2; 2 is what stock rxe reports. */
#define IRN_UVERBS_ABI_VERSION	2

/*
 * All irn devices, registered or not: taken by newlink, dealloc, the netdev
 * notifier (under RTNL) and module unload, never across a call into the
 * RDMA core.
 */
static DEFINE_MUTEX(irn_devices_lock);
static LIST_HEAD(irn_devices);
/* Unregistrations asked for by the netdev notifier; drained at unload. */
static struct workqueue_struct *irn_unreg_wq;

static void irn_dealloc_driver(struct ib_device *ibdev);

static const struct ib_device_ops irn_dev_ops = {
	/* What tells irn's devices from stock rxe's (irn_devref.c). */
	.owner		= THIS_MODULE,
	.driver_id	= RDMA_DRIVER_RXE,
	.uverbs_abi_ver	= IRN_UVERBS_ABI_VERSION,
	.dealloc_driver	= irn_dealloc_driver,
};

static int check_netdev(const char *name, struct net_device *ndev)
{
	struct ib_device *ibdev;

	if (is_vlan_dev(ndev)) {
		pr_err("%s is a VLAN device; add irn on its real device %s instead\n",
		       ndev->name, vlan_dev_real_dev(ndev)->name);
		return -EPERM;
	}
	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s is not an Ethernet device; irn needs one\n",
		       ndev->name);
		return -EINVAL;
	}
	ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (ibdev) {
		pr_err("an RDMA device named %s already exists; pick another name\n",
		       name);
		ib_device_put(ibdev);
		return -EEXIST;
	}
	return 0;
}

/* Must hold irn_devices_lock.  A netdev has at most one irn device. */
static struct irn_dev *find_by_netdev(struct net_device *ndev)
{
	struct irn_dev *dev;

	lockdep_assert_held(&irn_devices_lock);
	list_for_each_entry(dev, &irn_devices, list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/*
 * Put a new device on the list, unless its netdev already has one there.
 * The list decides rather than a lookup of registered devices, which would
 * miss a device being registered, or disabled by the RDMA core for a
 * namespace change, and would let two `rdma link add` race.
 */
static int list_add_unique(struct irn_dev *dev)
{
	struct irn_dev *other;
	const char *other_name;
	int err = 0;

	mutex_lock(&irn_devices_lock);
	other = find_by_netdev(dev->ndev);
	if (other) {
		/* NULL until the other device's registration names it. */
		other_name = dev_name(&other->ib_dev.dev);
		if (other_name)
			pr_err("%s already has irn device %s; delete it first with 'rdma link delete %s'\n",
			       dev->ndev->name, other_name, other_name);
		else
			pr_err("%s already has an irn device being added\n",
			       dev->ndev->name);
		err = -EEXIST;
	} else {
		list_add_tail(&dev->list, &irn_devices);
	}
	mutex_unlock(&irn_devices_lock);
	return err;
}

/*
 * The namespace @ndev is in, referenced, or NULL if it is being deleted.
 * The netdev may be moving to another namespace meanwhile: whichever one
 * this finds, netdev_stayed() checks it once the device is registered.
 */
static struct net *netdev_net_get(struct net_device *ndev)
{
	struct net *net;

	rcu_read_lock();
	net = maybe_get_net(dev_net(ndev));
	rcu_read_unlock();
	return net;
}

/*
 * Whether @dev's netdev is still registered in @dev's namespace.  The
 * netdev notifier takes a registered device down when its netdev is
 * unregistered or moved, both under RTNL; one that went while the device
 * was being registered found nothing to take down.
 */
static bool netdev_stayed(struct irn_dev *dev)
{
	bool stayed;

	rtnl_lock();
	stayed = dev->ndev->reg_state == NETREG_REGISTERED &&
		 net_eq(dev_net(dev->ndev), dev->net);
	rtnl_unlock();
	return stayed;
}

static void init_ib_device(struct irn_dev *dev)
{
	struct ib_device *ibdev = &dev->ib_dev;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    dev->ndev->dev_addr);
	strscpy(ibdev->node_desc, "irn", sizeof(ibdev->node_desc));
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ibdev, &irn_verbs_ops);
	irn_verbs_init_attr(dev);
}

/*
 * On irn_unreg_wq: the netdev notifier asked for the device to go.  The
 * RDMA core serialises this with `rdma link delete`, module unload and its
 * own namespace changes (the device's unregistration lock): whichever comes
 * second finds the device unregistered and does nothing, and a namespace
 * change under way finishes first.  A device still being registered by
 * irn_newlink() is not registered yet or is already: newlink then sees its
 * netdev gone (netdev_stayed()) and unregisters it itself.
 */
static void unreg_work(struct work_struct *work)
{
	struct irn_dev *dev = container_of(work, struct irn_dev, unreg_work);

	ib_unregister_device(&dev->ib_dev);
	/* The notifier's reference; @dev may be freed from here on. */
	put_device(&dev->ib_dev.dev);
}

/**
 * irn_newlink() - rdma_link_ops.newlink: `rdma link add NAME type irn`
 * @name: RDMA device name asked for
 * @ndev: Ethernet netdev to bind to
 *
 * The device sends and receives in @ndev's network namespace; the RoCEv2
 * port there is bound with the namespace's first device.  The RDMA core
 * puts the device itself in the initial namespace, whatever the caller's:
 * in the core's exclusive mode `rdma dev set NAME netns NS` moves it.
 *
 * Context: process context, may sleep; takes RTNL.  Called under the RDMA
 * core's link_ops lock (read), which module unload takes for writing, so
 * no device is created while irn unloads.
 * Return: 0 or a negative errno, with the reason in the kernel log.
 */
static int irn_newlink(const char *name, struct net_device *ndev)
{
	struct irn_dev *dev;
	struct net *net;
	int err;

	net = netdev_net_get(ndev);
	if (!net) {
		pr_err("the network namespace of %s is being deleted\n",
		       ndev->name);
		return -ENODEV;
	}
	err = check_netdev(name, ndev);
	if (err)
		goto err_put_net;

	dev = ib_alloc_device(irn_dev, ib_dev);
	if (!dev) {
		err = -ENOMEM;
		goto err_put_net;
	}
	INIT_LIST_HEAD(&dev->list);
	INIT_WORK(&dev->unreg_work, unreg_work);
	xa_init_flags(&dev->mr_keys, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->ahs, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qps, XA_FLAGS_ALLOC);
	spin_lock_init(&dev->atomic_lock);
	irn_mcast_init(dev);
	irn_tunables_default(&dev->tun);
	dev->ndev = ndev;
	netdev_hold(ndev, &dev->ndev_tracker, GFP_KERNEL);
	/*
	 * From here on ib_dealloc_device() calls irn_dealloc_driver(), which
	 * undoes what is done so far and whatever of the rest is done.
	 */
	ib_set_device_ops(&dev->ib_dev, &irn_dev_ops);
	/*
	 * On the list before registering, so that the netdev notifier finds
	 * it from now on; irn_dealloc_driver() takes it off either way.
	 */
	err = list_add_unique(dev);
	if (err)
		goto err_dealloc_device;
	dev->stats = alloc_percpu(struct irn_counters);
	if (!dev->stats) {
		err = -ENOMEM;
		goto err_dealloc_device;
	}
	err = irn_net_get(net);
	if (err)
		goto err_dealloc_device;
	dev->net = net;
	init_ib_device(dev);
	dev->port_state = irn_port_state(dev);

	err = ib_device_set_netdev(&dev->ib_dev, ndev, IRN_PORT);
	if (err)
		goto err_dealloc_device;

	/* Once registered it may be unregistered and freed by anyone. */
	get_device(&dev->ib_dev.dev);
	err = ib_register_device(&dev->ib_dev, name, NULL);
	if (err) {
		pr_err("registering %s on %s failed: %d\n", name, ndev->name,
		       err);
		goto err_put_device;
	}
	if (!netdev_stayed(dev)) {
		pr_err("%s was removed or changed namespace while %s was added on it\n",
		       ndev->name, name);
		/* Calls irn_dealloc_driver() too. */
		ib_unregister_device(&dev->ib_dev);
		put_device(&dev->ib_dev.dev);
		err = -ENODEV;
		goto err_put_net;
	}
	/*
	 * Only while on the list: a device unregistered meanwhile has gone
	 * through irn_dealloc_driver(), which removes the directory after
	 * taking it off.
	 */
	mutex_lock(&irn_devices_lock);
	if (!list_empty(&dev->list))
		irn_debugfs_add_dev(dev);
	mutex_unlock(&irn_devices_lock);
	ibdev_info(&dev->ib_dev, "added on %s (mode %s)\n", ndev->name,
		   irn_mode_name(dev->tun.mode));
	put_device(&dev->ib_dev.dev);
	put_net(net);
	return 0;

err_put_device:
	put_device(&dev->ib_dev.dev);
err_dealloc_device:
	/* Calls irn_dealloc_driver(), which undoes everything above. */
	ib_dealloc_device(&dev->ib_dev);
err_put_net:
	put_net(net);
	return err;
}

/**
 * irn_dealloc_driver() - ib_device_ops.dealloc_driver
 * @ibdev: device
 *
 * The last thing the RDMA core does with a device, after unregistration, a
 * failed registration or a failed irn_newlink(); the memory is freed by the
 * core afterwards.  By then the core has revoked every user context of the
 * device and destroyed its objects.  The device lets go of its namespace
 * before its netdev: a namespace being deleted waits for its netdevs, and
 * so for this, before irn_net.c's exit.
 *
 * Context: process context, may sleep.
 */
static void irn_dealloc_driver(struct ib_device *ibdev)
{
	struct irn_dev *dev = to_irn_dev(ibdev);

	mutex_lock(&irn_devices_lock);
	list_del_init(&dev->list);
	mutex_unlock(&irn_devices_lock);
	/* Off the list, the device gets no new directory (irn_newlink()). */
	irn_debugfs_remove_dev(dev);
	WARN_ON(!xa_empty(&dev->mr_keys));
	xa_destroy(&dev->mr_keys);
	WARN_ON(!xa_empty(&dev->ahs) || !xa_empty(&dev->qps));
	xa_destroy(&dev->ahs);
	xa_destroy(&dev->qps);
	irn_mcast_cleanup(dev);
	free_percpu(dev->stats);
	if (dev->net)
		irn_net_put(dev->net);
	netdev_put(dev->ndev, &dev->ndev_tracker);
}

static struct rdma_link_ops irn_link_ops = {
	.type		= "irn",
	.newlink	= irn_newlink,
};

/* Must hold RTNL: serialises writers of dev->port_state. */
static void port_state_changed(struct irn_dev *dev)
{
	enum ib_port_state state = irn_port_state(dev);
	struct ib_event event = {
		.device			= &dev->ib_dev,
		.element.port_num	= IRN_PORT,
	};

	ASSERT_RTNL();
	if (state == dev->port_state)
		return;
	dev->port_state = state;
	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
}

/*
 * @ndev is being unregistered, or is leaving its namespace: queue the
 * unregistration of its device.  The device is looked up on irn's list:
 * the RDMA core's lookup finds only enabled devices, and would miss one
 * disabled for a namespace change (`rdma dev set`, or its namespace being
 * deleted) at this moment; a moved netdev's NETDEV_UNREGISTER comes once.
 * Must hold RTNL.
 *
 * Return: whether @ndev has an irn device.
 */
static bool unregister_netdev_device(struct net_device *ndev)
{
	struct irn_dev *dev;
	bool found = false;

	ASSERT_RTNL();
	mutex_lock(&irn_devices_lock);
	dev = find_by_netdev(ndev);
	if (dev) {
		found = true;
		/* On the list, so not freed yet; the work drops this. */
		get_device(&dev->ib_dev.dev);
		if (!queue_work(irn_unreg_wq, &dev->unreg_work))
			put_device(&dev->ib_dev.dev);
	}
	mutex_unlock(&irn_devices_lock);
	return found;
}

/**
 * irn_netdev_event() - netdev notifier
 * @nb: irn_netdev_notifier
 * @event: NETDEV_*
 * @ptr: notifier info naming the netdev
 *
 * Context: process context, RTNL held.
 * Return: NOTIFY_OK for irn's netdevs, NOTIFY_DONE for others.
 */
static int irn_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct irn_dev *dev;

	if (event == NETDEV_UNREGISTER)
		return unregister_netdev_device(ndev) ? NOTIFY_OK : NOTIFY_DONE;

	/* Port events matter to registered, enabled devices only. */
	dev = irn_devref_get_by_netdev(ndev);
	if (!dev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		port_state_changed(dev);
		break;
	case NETDEV_CHANGEMTU:
		/* query_port derives the active MTU from the netdev. */
		ibdev_dbg(&dev->ib_dev, "%s MTU now %u, active IB MTU %d\n",
			  ndev->name, ndev->mtu,
			  ib_mtu_enum_to_int(irn_mtu_from_netdev(ndev->mtu)));
		break;
	default:
		break;
	}
	irn_devref_put(dev);
	return NOTIFY_OK;
}

static struct notifier_block irn_netdev_notifier = {
	.notifier_call = irn_netdev_event,
};

/**
 * irn_device_init() - accept `rdma link add ... type irn`
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int irn_device_init(void)
{
	int err;

	irn_unreg_wq = alloc_workqueue("irn_unreg", WQ_UNBOUND, 0);
	if (!irn_unreg_wq)
		return -ENOMEM;
	err = register_netdevice_notifier(&irn_netdev_notifier);
	if (err)
		goto err_destroy_unreg_wq;
	rdma_link_register(&irn_link_ops);
	return 0;

err_destroy_unreg_wq:
	destroy_workqueue(irn_unreg_wq);
	return err;
}

/**
 * irn_device_exit() - remove every irn device
 *
 * Programs that have a device open do not hold the module: the RDMA core
 * revokes their contexts as it unregisters the device.
 *
 * Context: module exit.
 */
void irn_device_exit(void)
{
	struct irn_dev *dev;

	rdma_link_unregister(&irn_link_ops);
	unregister_netdevice_notifier(&irn_netdev_notifier);
	/* Nothing queues unregistrations any more: let those queued run. */
	flush_workqueue(irn_unreg_wq);

	mutex_lock(&irn_devices_lock);
	while ((dev = list_first_entry_or_null(&irn_devices, struct irn_dev,
					       list))) {
		list_del_init(&dev->list);
		/* Keeps the memory alive if `rdma link delete` races us. */
		get_device(&dev->ib_dev.dev);
		mutex_unlock(&irn_devices_lock);
		ib_unregister_device(&dev->ib_dev);
		put_device(&dev->ib_dev.dev);
		mutex_lock(&irn_devices_lock);
	}
	mutex_unlock(&irn_devices_lock);
	destroy_workqueue(irn_unreg_wq);
}
