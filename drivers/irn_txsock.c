// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Ownership of a QP's packets in the local transmit path.
 *
 * Each QP has a kernel UDP socket that owns the requester's packets from
 * irn_xmit() until the stack frees them, sent or dropped.  The QP counts
 * them and stops sending at IRN_TX_INFLIGHT, resuming when they drain to
 * IRN_TX_RESUME.  This paces every QP type at what the link takes, instead
 * of bursting a whole message into a queue that drops the tail (UC and UD
 * cannot recover from that).
 *
 * A packet holds the socket and the module, never the QP.  The stack may
 * keep a packet for as long as a stopped transmit queue stays stopped, and
 * destroying the QP must not wait for that: it waits a moment
 * (irn_txsock_drain()), then lets go.  The socket's sk_user_data
 * points to the QP, under RCU, until irn_txsock_detach(); a packet freed
 * after that finds NULL and only drops its references.  The socket itself
 * is freed with its last packet, and while any packet is out the module
 * cannot be unloaded (rmmod says it is in use).  rmmod checks that only
 * before the module's exit, which then removes the devices, and the QPs
 * may send meanwhile (a program's QPs too: the RDMA core revokes its
 * context rather than holding the module for it), so the exit also waits
 * for every packet (irn_txsock_wait_all()).
 *
 * The socket is created in the device's network namespace, the one its
 * packets are routed in, and holds no reference to it (a kernel socket):
 * the QP is destroyed before its device lets go of the namespace
 * (irn_net.c).  A released socket that packets still hold touches the
 * namespace no more when it is freed.
 */

#include <linux/module.h>
#include <linux/net.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/wait_bit.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "irn_qp.h"
#include "irn_task.h"
#include "irn_txsock.h"

#define IRN_TX_INFLIGHT		64
#define IRN_TX_RESUME		16
/* Module unload says every this often what it is waiting for. */
#define IRN_TX_UNLOAD_NAG	(10 * HZ)

/* Packets of every QP in the transmit path. */
static atomic_t irn_tx_packets = ATOMIC_INIT(0);

/**
 * irn_txsock_create() - give a new QP its transmit socket
 * @qp: QP being created, its device set
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
int irn_txsock_create(struct irn_qp *qp)
{
	int err;

	err = sock_create_kern(qp->dev->net, AF_INET, SOCK_DGRAM, 0,
			       &qp->tx_sock);
	if (err)
		return err;
	atomic_set(&qp->tx_inflight, 0);
	rcu_assign_sk_user_data(qp->tx_sock->sk, qp);
	return 0;
}

/* Destructor of an owned packet: the stack is done with it. */
static void tx_done(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;
	struct irn_qp *qp;

	rcu_read_lock();
	qp = rcu_dereference_sk_user_data(sk);
	if (qp) {
		int left = atomic_dec_return(&qp->tx_inflight);

		if (left == IRN_TX_RESUME)
			irn_task_sched(&qp->req_task);
		else if (!left)
			wake_up_var(&qp->tx_inflight);
	}
	sock_put(sk);
	/*
	 * Last, inside the read-side section: free_module() waits for a grace
	 * period after irn_txsock_wait_all() returns, so only the return
	 * below can race with an unload.
	 */
	if (atomic_dec_and_test(&irn_tx_packets))
		wake_up_var(&irn_tx_packets);
	module_put(THIS_MODULE);
	rcu_read_unlock();
}

/**
 * irn_txsock_own() - make @qp's transmit socket the owner of a packet
 * @qp: QP whose requester built @skb
 * @skb: packet about to be handed to irn_xmit()
 *
 * Context: the requester.
 */
void irn_txsock_own(struct irn_qp *qp, struct sk_buff *skb)
{
	struct sock *sk = qp->tx_sock->sk;

	atomic_inc(&qp->tx_inflight);
	atomic_inc(&irn_tx_packets);
	__module_get(THIS_MODULE);
	sock_hold(sk);
	skb->sk = sk;
	skb->destructor = tx_done;
}

/**
 * irn_txsock_full() - whether the requester must wait for its packets
 * @qp: QP
 *
 * Context: the requester.
 * Return: true when IRN_TX_INFLIGHT packets are in the transmit path; the
 * requester is scheduled again when they drain to IRN_TX_RESUME.
 */
bool irn_txsock_full(const struct irn_qp *qp)
{
	return atomic_read(&qp->tx_inflight) >= IRN_TX_INFLIGHT;
}

/**
 * irn_txsock_queued() - packets of @qp in the local transmit path
 * @qp: QP
 *
 * Context: any.
 * Return: the count, for debugfs and the destroy trace.
 */
int irn_txsock_queued(const struct irn_qp *qp)
{
	return atomic_read(&qp->tx_inflight);
}

/**
 * irn_txsock_drain() - wait a little for @qp's packets to leave
 * @qp: QP being destroyed, its requester stopped
 * @timeout: in jiffies
 *
 * Context: process context, sleeps.
 * Return: packets still in the transmit path.
 */
int irn_txsock_drain(struct irn_qp *qp, long timeout)
{
	wait_var_event_timeout(&qp->tx_inflight,
			       !atomic_read(&qp->tx_inflight), timeout);
	return atomic_read(&qp->tx_inflight);
}

/**
 * irn_txsock_detach() - stop packets freed from now on from touching @qp
 * @qp: QP being destroyed
 *
 * Packets freed before the caller's next RCU grace period ends may still
 * schedule the requester; after it, none touches the QP.
 *
 * Context: process context.
 */
void irn_txsock_detach(struct irn_qp *qp)
{
	rcu_assign_sk_user_data(qp->tx_sock->sk, NULL);
}

/**
 * irn_txsock_release() - let go of the transmit socket
 * @qp: QP being destroyed, detached an RCU grace period ago, its
 *	requester stopped
 *
 * Packets still in the transmit path keep the socket until they are freed.
 *
 * Context: process context.
 */
void irn_txsock_release(struct irn_qp *qp)
{
	sock_release(qp->tx_sock);
	qp->tx_sock = NULL;
}

/**
 * irn_txsock_wait_all() - wait until the stack has freed every packet
 *
 * Their destructor is irn's code.  Says every IRN_TX_UNLOAD_NAG how many
 * packets it waits for: a netdev whose transmit queue stays stopped (a
 * virtio-net ring the host does not consume) can hold them for ever.
 *
 * Context: module exit, every device gone, so no QP sends any more.
 */
void irn_txsock_wait_all(void)
{
	while (!wait_var_event_timeout(&irn_tx_packets,
				       !atomic_read(&irn_tx_packets),
				       IRN_TX_UNLOAD_NAG))
		pr_warn("unloading waits for %d packet(s) held in a transmit queue: bring its netdev up or delete it\n",
			atomic_read(&irn_tx_packets));
}
