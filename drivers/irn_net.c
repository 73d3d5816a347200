// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Network namespaces.
 *
 * An irn device sends and receives in the network namespace its netdev is
 * in when the device is created (irn_dev.net): routing, the QPs' transmit
 * sockets and the RoCEv2 port are that namespace's.  Each namespace with
 * irn devices has its own port (irn_udp.c), opened with its first device
 * and closed with its last, so a namespace without irn devices has port
 * 4791 free.  The count lives with the namespace (pernet_operations with
 * .id and .size, zeroed for every namespace by the core).
 *
 * The initial namespace's port is bound from module load to unload (the
 * module counts as one of its users).  That is irn's guard against stock
 * rdma_rxe, which binds the same port when it loads: rxe shares irn's
 * driver id, and its netdev notifier and module unload would take irn's
 * devices, in any namespace, for its own.
 *
 * A device does not hold a reference to its namespace: that would keep the
 * namespace, its netdevs, and so the device alive for ever.  Instead the
 * namespace's exit waits until it has no device left, which is normally
 * true already: the devices hold their netdevs until they are freed, and
 * the namespace's netdevs are unregistered, and waited for, before its
 * exit runs (irn's pernet_operations are a subsystem's, which exit after
 * the devices').  A netdev that leaves the namespace instead (moved by
 * `ip link set ... netns`, or a physical netdev going home to the initial
 * namespace when its namespace is deleted) takes its irn device down
 * (NETDEV_UNREGISTER) without that wait; the exit then waits for that
 * device to be freed.  That is soon: the RDMA core revokes the contexts
 * of programs that have the device open rather than waiting for them
 * (disassociate_ucontext).
 *
 * The RDMA core's own namespace of a device, which its exclusive mode
 * changes (`rdma dev set`, or the device's namespace being deleted), is
 * another matter and changes nothing here.
 *
 * Locking: irn_net_lock (a mutex) serialises every namespace's user count
 * and port; the namespace exit reads the count without it while waiting.
 */

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "irn_net.h"
#include "irn_udp.h"

/* The namespace exit says every this often what it is waiting for. */
#define IRN_NET_EXIT_NAG	(10 * HZ)

/**
 * struct irn_net - irn's state in one network namespace
 * @users: irn devices in the namespace, plus the module itself in the
 *	   initial one; written under irn_net_lock
 * @used: the namespace has had irn devices
 * @port: the RoCEv2 port, open while @users is not 0
 */
struct irn_net {
	unsigned int		users;
	bool			used;
	struct irn_udp_port	port;
};

static unsigned int irn_net_id;
static DEFINE_MUTEX(irn_net_lock);
/* Namespace exits waiting for a namespace's last device. */
static DECLARE_WAIT_QUEUE_HEAD(irn_net_wq);

static struct irn_net *irn_net(struct net *net)
{
	return net_generic(net, irn_net_id);
}

static int add_user(struct net *net, struct irn_net *in)
{
	int err;

	lockdep_assert_held(&irn_net_lock);
	if (!in->users) {
		err = irn_udp_open(net, &in->port);
		if (err)
			return err;
	}
	WRITE_ONCE(in->users, in->users + 1);
	in->used = true;
	return 0;
}

/* Return: true when the namespace's last device is gone. */
static bool remove_user(struct irn_net *in)
{
	lockdep_assert_held(&irn_net_lock);
	if (WARN_ON(!in->users))
		return false;
	if (in->users == 1)
		irn_udp_close(&in->port);
	WRITE_ONCE(in->users, in->users - 1);
	return !in->users;
}

/**
 * irn_net_get() - count a new device in a namespace
 * @net: the namespace of the device's netdev, referenced by the caller
 *	 for the call
 *
 * Opens the namespace's RoCEv2 port for its first device.  From the call
 * that succeeds until irn_net_put(), @net outlives the device: its exit
 * waits.
 *
 * Context: process context, may sleep.
 * Return: 0, or a negative errno if the port cannot be bound (the reason
 * is in the kernel log).
 */
int irn_net_get(struct net *net)
{
	int err;

	mutex_lock(&irn_net_lock);
	err = add_user(net, irn_net(net));
	mutex_unlock(&irn_net_lock);
	return err;
}

/**
 * irn_net_put() - a device of the namespace is gone
 * @net: as given to irn_net_get(), which it balances
 *
 * Closes the namespace's RoCEv2 port with its last device.  The caller
 * must not touch @net afterwards.
 *
 * Context: process context, may sleep.
 */
void irn_net_put(struct net *net)
{
	bool last;

	mutex_lock(&irn_net_lock);
	last = remove_user(irn_net(net));
	mutex_unlock(&irn_net_lock);
	/* A waiting exit may free @net from here on: wake it, touch no more. */
	if (last)
		wake_up(&irn_net_wq);
}

/*
 * pernet_operations.exit: the namespace is going away and its netdevs are
 * unregistered.  The address vectors of its devices' QPs and AHs, and the
 * routes they cache, are freed a grace period after them (irn_av_free()):
 * that must be done before the IPv6 routing's exit, which runs after this
 * one and frees the routes' accounting.
 */
static void __net_exit ns_exit(struct net *net)
{
	struct irn_net *in = irn_net(net);
	bool used;

	while (!wait_event_timeout(irn_net_wq, !READ_ONCE(in->users),
				   IRN_NET_EXIT_NAG))
		pr_warn("a network namespace being deleted waits for %u irn device(s) whose netdev left it to be freed\n",
			READ_ONCE(in->users));
	/* Pairs with irn_net_put(): what it wrote, it wrote under the lock. */
	mutex_lock(&irn_net_lock);
	used = in->used;
	WARN_ON(in->port.sock4);
	mutex_unlock(&irn_net_lock);
	if (used)
		rcu_barrier();
}

static struct pernet_operations irn_net_ops = {
	.exit	= ns_exit,
	.id	= &irn_net_id,
	.size	= sizeof(struct irn_net),
};

/**
 * irn_net_init() - give every namespace, present and future, irn's state
 *
 * Binds the initial namespace's port; any other namespace's waits for its
 * first device.
 *
 * Context: module init.
 * Return: 0 or a negative errno (the port's reason is in the kernel log).
 */
int irn_net_init(void)
{
	int err;

	err = register_pernet_subsys(&irn_net_ops);
	if (err)
		return err;
	err = irn_net_get(&init_net);
	if (err)
		goto err_unregister_pernet;
	return 0;

err_unregister_pernet:
	unregister_pernet_subsys(&irn_net_ops);
	return err;
}

/**
 * irn_net_exit() - take irn's state out of every namespace
 *
 * Context: module exit, every irn device gone, so only the initial
 * namespace's port is open, and this closes it.
 */
void irn_net_exit(void)
{
	irn_net_put(&init_net);
	unregister_pernet_subsys(&irn_net_ops);
}
