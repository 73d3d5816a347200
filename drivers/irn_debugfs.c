// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * debugfs: /sys/kernel/debug/irn/DEV/
 *
 *   mode          auto | gbn | irn, for QPs created from now on
 *   cap           packets in flight per QP (BDP-FC), IRN_CAP_MIN..MAX
 *   rto_low_us    floor of IRN's short retransmission timeout
 *   rto_high_us   floor of IRN's long retransmission timeout
 *   sack_single   Y: SACKs name only the PSN that triggered them
 *   cc            none | dcqcn | delay: congestion control of new RC QPs
 *   cnp_interval_us  a QP sends at most one CNP this often
 *   cnp_dscp      DSCP of the CNPs sent
 *   paths         UDP source ports a new IRN QP sprays its requests over,
 *                 1..IRN_PATH_MAX (1: none)
 *   dcqcn/, delay/  their parameters (struct irn_dcqcn_params and
 *                 struct irn_delay_params), for QPs created from now on
 *   qps           one line per QP: mode, una/nxt, cap, scoreboard and
 *                 receiver-window occupancy, RTT estimate, packets in
 *                 the local transmit path, congestion control, DCQCN
 *                 rate and window in packets
 *   paths_state   one line per path of each QP that may spray: its
 *                 source port, state, packets sent, delivered, lost and
 *                 timed out, probes, smoothed RTT, and the QP's state
 *                 changes
 *
 * The RDMA netlink interface has no driver parameters in Linux 6.1 and
 * sysfs device groups are closed to new drivers, so the knobs live here.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "irn_av.h"
#include "irn_debugfs.h"
#include "irn_dev.h"
#include "irn_path.h"
#include "irn_qp.h"
#include "irn_tunables.h"
#include "irn_txsock.h"

static struct dentry *irn_debugfs_root;

/* Knobs that take a name: show it, or set the value it names. */
static ssize_t name_read(char __user *buf, size_t len, loff_t *ppos,
			 const char *name)
{
	char out[16];
	int n;

	n = scnprintf(out, sizeof(out), "%s\n", name);
	return simple_read_from_buffer(buf, len, ppos, out, n);
}

static ssize_t name_write(const char __user *buf, size_t len,
			  int (*parse)(const char *s), u32 *val)
{
	char in[16] = {};
	int v;

	if (len >= sizeof(in))
		return -EINVAL;
	if (copy_from_user(in, buf, len))
		return -EFAULT;
	v = parse(in);
	if (v < 0)
		return v;
	WRITE_ONCE(*val, v);
	return len;
}

static ssize_t mode_read(struct file *file, char __user *buf, size_t len,
			 loff_t *ppos)
{
	struct irn_dev *dev = file->private_data;

	return name_read(buf, len, ppos,
			 irn_mode_name(READ_ONCE(dev->tun.mode)));
}

static ssize_t mode_write(struct file *file, const char __user *buf,
			  size_t len, loff_t *ppos)
{
	struct irn_dev *dev = file->private_data;

	return name_write(buf, len, irn_mode_parse, &dev->tun.mode);
}

static const struct file_operations mode_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= mode_read,
	.write	= mode_write,
	.llseek	= default_llseek,
};

static ssize_t cc_read(struct file *file, char __user *buf, size_t len,
		       loff_t *ppos)
{
	struct irn_dev *dev = file->private_data;

	return name_read(buf, len, ppos,
			 irn_cc_name(READ_ONCE(dev->tun.cc.algo)));
}

static ssize_t cc_write(struct file *file, const char __user *buf,
			size_t len, loff_t *ppos)
{
	struct irn_dev *dev = file->private_data;

	return name_write(buf, len, irn_cc_parse, &dev->tun.cc.algo);
}

static const struct file_operations cc_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cc_read,
	.write	= cc_write,
	.llseek	= default_llseek,
};

static int cap_set(void *data, u64 val)
{
	struct irn_dev *dev = data;

	if (val < IRN_CAP_MIN || val > IRN_CAP_MAX)
		return -ERANGE;
	WRITE_ONCE(dev->tun.cap, val);
	return 0;
}

static int cap_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct irn_dev *)data)->tun.cap);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cap_fops, cap_get, cap_set, "%llu\n");

static int paths_set(void *data, u64 val)
{
	struct irn_dev *dev = data;

	if (val < 1 || val > IRN_PATH_MAX)
		return -ERANGE;
	WRITE_ONCE(dev->tun.paths, val);
	return 0;
}

static int paths_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct irn_dev *)data)->tun.paths);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(paths_fops, paths_get, paths_set, "%llu\n");

static const char * const state_names[] = {
	[IB_QPS_RESET]	= "RESET",
	[IB_QPS_INIT]	= "INIT",
	[IB_QPS_RTR]	= "RTR",
	[IB_QPS_RTS]	= "RTS",
	[IB_QPS_SQD]	= "SQD",
	[IB_QPS_SQE]	= "SQE",
	[IB_QPS_ERR]	= "ERR",
};

/* Congestion control: algorithm, DCQCN rate, window in packets. */
static void show_cc(struct seq_file *m, struct irn_flow *f)
{
	u32 algo = READ_ONCE(f->algo), w = irn_flow_window(f) * 100;

	if (algo == IRN_CC_DELAY)
		w = READ_ONCE(f->delay.st.cwnd) * 100 / IRN_DELAY_ONE;
	seq_printf(m, " %-5s %10u %4u.%02u", irn_cc_name(algo),
		   irn_flow_rate_kbps(f, ktime_get_ns()), w / 100, w % 100);
}

static void show_qp(struct seq_file *m, struct irn_qp *qp)
{
	struct irn_sb *sb = &qp->irn.sb;

	seq_printf(m, "%6u %-4s %-3s %5s %8u %8u %4u",
		   irn_qp_num(qp), irn_mode_name(qp->irn.mode),
		   irn_qp_irn_on(qp) ? "on" : "off",
		   state_names[irn_qp_state(qp)],
		   READ_ONCE(qp->comp.psn), READ_ONCE(qp->req.psn),
		   qp->flow.cap);
	if (sb->got) {
		spin_lock_bh(&qp->irn.sb_lock);
		seq_printf(m, " %5u %3s", irn_sb_weight(sb),
			   sb->in_recovery ? "yes" : "no");
		spin_unlock_bh(&qp->irn.sb_lock);
	} else {
		seq_puts(m, "     -   -");
	}
	seq_printf(m, " %8u %5u %8llu %9llu %4d", READ_ONCE(qp->resp.epsn),
		   READ_ONCE(qp->resp.win.placed),
		   READ_ONCE(qp->flow.srtt_ns) / NSEC_PER_USEC,
		   READ_ONCE(qp->flow.rttvar_ns) / NSEC_PER_USEC,
		   irn_txsock_queued(qp));
	show_cc(m, &qp->flow);
	if (sb->got)
		seq_printf(m, " %10llu\n", READ_ONCE(sb->walked));
	else
		seq_puts(m, "          -\n");
}

static int qps_show(struct seq_file *m, void *unused)
{
	struct irn_dev *dev = m->private;
	struct irn_qp *qp;
	unsigned long qpn;

	seq_puts(m, "   qpn mode irn state      una      nxt  cap  sack recov     epsn   ooo  srtt_us rttvar_us  txq cc     rate_kbps    cwnd     walked\n");
	/* A QP leaves the table and an RCU grace period before it is freed. */
	rcu_read_lock();
	xa_for_each(&dev->qps, qpn, qp)
		show_qp(m, qp);
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(qps);

/* The base source port of the QP's address vector, 0 before it has one. */
static u16 base_sport(struct irn_qp *qp)
{
	struct irn_av *av = rcu_dereference(qp->av);

	return av ? ntohs(av->sport) : 0;
}

static void show_paths(struct seq_file *m, struct irn_qp *qp)
{
	struct irn_path_set s;
	u16 base;
	u32 i;

	if (irn_flow_paths(&qp->flow) <= 1)
		return;
	irn_flow_path_snapshot(&qp->flow, &s);
	base = base_sport(qp);
	for (i = 0; i < s.n; i++) {
		const struct irn_path *p = &s.p[i];

		seq_printf(m, "%6u %4u %5u %-7s %10u %10llu %8llu %8llu %6llu %8llu %8llu\n",
			   irn_qp_num(qp), i, irn_path_sport(base, i),
			   irn_path_state_name(p->state), p->seq, p->acked,
			   p->lost, p->timeouts, p->probes,
			   p->srtt_ns / NSEC_PER_USEC, s.changes);
	}
}

static int paths_state_show(struct seq_file *m, void *unused)
{
	struct irn_dev *dev = m->private;
	struct irn_qp *qp;
	unsigned long qpn;

	seq_puts(m, "   qpn path sport state         sent      acked     lost timeouts probes  srtt_us  changes\n");
	rcu_read_lock();
	xa_for_each(&dev->qps, qpn, qp)
		show_paths(m, qp);
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(paths_state);

/* The congestion controllers' parameters, for QPs created from now on. */
static void add_cc_params(struct dentry *d, struct irn_cc_config *cc)
{
	struct irn_dcqcn_params *q = &cc->dcqcn;
	struct irn_delay_params *y = &cc->delay;
	struct dentry *p;

	p = debugfs_create_dir("dcqcn", d);
	debugfs_create_u32("max_kbps", 0600, p, &q->max_kbps);
	debugfs_create_u32("min_kbps", 0600, p, &q->min_kbps);
	debugfs_create_u32("ai_kbps", 0600, p, &q->ai_kbps);
	debugfs_create_u32("hai_kbps", 0600, p, &q->hai_kbps);
	debugfs_create_u32("g", 0600, p, &q->g);
	debugfs_create_u64("alpha_ns", 0600, p, &q->alpha_ns);
	debugfs_create_u64("timer_ns", 0600, p, &q->timer_ns);
	debugfs_create_u32("bytes", 0600, p, &q->bytes);
	debugfs_create_u32("threshold", 0600, p, &q->threshold);
	debugfs_create_u32("min_dec_pct", 0600, p, &q->min_dec_pct);
	debugfs_create_u64("cut_ns", 0600, p, &q->cut_ns);
	p = debugfs_create_dir("delay", d);
	debugfs_create_u64("target_ns", 0600, p, &y->target_ns);
	debugfs_create_u32("ai", 0600, p, &y->ai);
	debugfs_create_u32("beta", 0600, p, &y->beta);
	debugfs_create_u32("max_mdf", 0600, p, &y->max_mdf);
	debugfs_create_u32("min_cwnd", 0600, p, &y->min_cwnd);
	debugfs_create_u64("base_window_ns", 0600, p, &y->base_window_ns);
	debugfs_create_u32("burst_pkts", 0600, p, &y->burst_pkts);
}

/**
 * irn_debugfs_add_dev() - create a device's directory
 * @dev: registered device
 *
 * Failures are ignored, as debugfs wants.
 *
 * Context: process context.
 */
void irn_debugfs_add_dev(struct irn_dev *dev)
{
	struct dentry *d;

	d = debugfs_create_dir(dev_name(&dev->ib_dev.dev), irn_debugfs_root);
	dev->debugfs = d;
	debugfs_create_file("mode", 0600, d, dev, &mode_fops);
	debugfs_create_file_unsafe("cap", 0600, d, dev, &cap_fops);
	debugfs_create_u32("rto_low_us", 0600, d, &dev->tun.rto_low_us);
	debugfs_create_u32("rto_high_us", 0600, d, &dev->tun.rto_high_us);
	debugfs_create_bool("sack_single", 0600, d, &dev->tun.sack_single);
	debugfs_create_file("qps", 0400, d, dev, &qps_fops);
	debugfs_create_file("cc", 0600, d, dev, &cc_fops);
	debugfs_create_u32("cnp_interval_us", 0600, d,
			   &dev->tun.cnp_interval_us);
	debugfs_create_u32("cnp_dscp", 0600, d, &dev->tun.cnp_dscp);
	debugfs_create_file_unsafe("paths", 0600, d, dev, &paths_fops);
	debugfs_create_file("paths_state", 0400, d, dev, &paths_state_fops);
	add_cc_params(d, &dev->tun.cc);
}

/**
 * irn_debugfs_remove_dev() - remove a device's directory
 * @dev: device
 *
 * Waits for open files' operations to finish.
 *
 * Context: process context.
 */
void irn_debugfs_remove_dev(struct irn_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

/**
 * irn_debugfs_init() - create /sys/kernel/debug/irn
 *
 * Context: module init.
 */
void irn_debugfs_init(void)
{
	irn_debugfs_root = debugfs_create_dir("irn", NULL);
}

/**
 * irn_debugfs_exit() - remove /sys/kernel/debug/irn
 *
 * Context: module exit, after every device is gone.
 */
void irn_debugfs_exit(void)
{
	debugfs_remove_recursive(irn_debugfs_root);
}
