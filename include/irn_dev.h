/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The irn device object, shared by every layer above the wire format.
 */
#ifndef _IRN_DEV_H
#define _IRN_DEV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "irn_counters.h"
#include "irn_cc.h"

struct irn_qp;

#define IRN_PORT	1

/**
 * enum irn_mode - transport of a device's new RC QPs
 * @IRN_MODE_AUTO: IRN with a peer that has shown it speaks IRN, standard
 *		   RoCEv2 otherwise
 * @IRN_MODE_GBN: standard RoCEv2 (go-back-N) only; advertises nothing
 * @IRN_MODE_IRN: IRN from the first packet; both ends must be irn
 */
enum irn_mode {
	IRN_MODE_AUTO,
	IRN_MODE_GBN,
	IRN_MODE_IRN,
};

/* Limits of the per-QP cap on packets in flight (BDP-FC). */
#define IRN_CAP_MIN	4
#define IRN_CAP_MAX	512

/**
 * struct irn_tunables - knobs read when a QP is created
 * @mode: enum irn_mode
 * @cap: packets in flight per QP (BDP-FC), IRN_CAP_MIN..IRN_CAP_MAX
 * @rto_low_us: floor of IRN's short timeout (few packets in flight)
 * @rto_high_us: floor of IRN's long timeout
 * @sack_single: SACKs name only the PSN that triggered them, as IRN's NACK
 *		 does, instead of the whole bitmap (for comparison)
 * @cc: congestion control of new RC QPs and its parameters
 * @cnp_interval_us: a QP sends at most one CNP this often (mlx5's
 *		     np_min_time_between_cnps)
 * @cnp_dscp: DSCP of the CNPs sent (np_cnp_dscp)
 * @paths: UDP source ports an RC QP with IRN on sprays its requests over,
 *	   1..IRN_PATH_MAX; 1, the default, sprays nothing
 *
 * Written through debugfs at any time, so read with READ_ONCE().
 */
struct irn_tunables {
	u32			mode;
	u32			cap;
	u32			rto_low_us;
	u32			rto_high_us;
	bool			sack_single;
	struct irn_cc_config	cc;
	u32			cnp_interval_us;
	u32			cnp_dscp;
	u32			paths;
};

/**
 * struct irn_dev - one irn RDMA device, bound to one Ethernet netdev
 * @ib_dev: the RDMA core's device; must stay first (ib_alloc_device)
 * @attr: device attributes reported by query_device
 * @ndev: the netdev, referenced for the device's whole life
 * @ndev_tracker: tracks that reference
 * @net: the network namespace @ndev was in when the device was created;
 *	 the device sends and receives in it.  Not a counted reference: the
 *	 namespace waits for the device to be freed (irn_net.c)
 * @port_state: last port state reported to the RDMA core, so that events
 *		are dispatched on changes only; written under RTNL
 * @stats: per-CPU port counters
 * @mr_keys: MRs by key index (key >> 8); RCU-safe lookups
 * @mr_next: next index to try, for cyclic allocation
 * @ahs: address handles by number
 * @ah_next: next AH number to try
 * @qps: queue pairs by QP number; RCU-safe lookups
 * @qp_next: next QP number to try
 * @gsi: the QP numbered 1 on the wire, if created
 * @atomic_lock: makes remote atomics atomic with respect to each other
 * @tun: IRN knobs for new QPs
 * @reo_q: reordering window the device's QPs last settled on, in quarter
 *	   RTTs; new QPs start from it (a path memory, like TCP's metrics
 *	   cache), 0 before any has moved it
 * @reord: a QP of this device saw its path reorder; new QPs start
 *	   knowing it, and wait a reordering window from their first loss
 * @mcast_lock: serialises changes to @mcgs (irn_mcast.c)
 * @mcgs: UD multicast groups with attached QPs; RCU-safe lookups
 * @n_mcgs: how many
 * @debugfs: the device's debugfs directory
 * @list: on the module's device list, protected by irn_devices_lock; on
 *	  it from irn_newlink() until irn_dealloc_driver()
 * @unreg_work: unregisters the device once its netdev is unregistered or
 *		leaves its namespace (irn_device.c)
 */
struct irn_dev {
	struct ib_device	ib_dev;
	struct ib_device_attr	attr;
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	struct net		*net;
	enum ib_port_state	port_state;
	struct irn_counters __percpu *stats;
	struct xarray		mr_keys;
	u32			mr_next;
	struct xarray		ahs;
	u32			ah_next;
	struct xarray		qps;
	u32			qp_next;
	struct irn_qp __rcu	*gsi;
	spinlock_t		atomic_lock;	/* see above */
	struct irn_tunables	tun;
	u32			reo_q;
	bool			reord;
	struct mutex		mcast_lock;	/* see above */
	struct list_head	mcgs;
	unsigned int		n_mcgs;
	struct dentry		*debugfs;
	struct list_head	list;
	struct work_struct	unreg_work;
};

static inline struct irn_dev *to_irn_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct irn_dev, ib_dev);
}

static inline void irn_dev_count(struct irn_dev *dev, enum irn_counter idx)
{
	irn_counter_inc(dev->stats, idx);
}

#endif /* _IRN_DEV_H */
