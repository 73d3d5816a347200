// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port counters through the RDMA core's hw_counters interface.
 *
 * Counters are per-CPU u64s bumped without locks on the data path and summed
 * when someone reads them.  They know nothing of the device that holds
 * them (irn_dev.h): its get_hw_stats (irn_verbs.c) hands them in.
 */

#include <rdma/ib_verbs.h>

#include "irn_counters.h"

static const struct rdma_stat_desc irn_counter_descs[] = {
	[IRN_CNT_RCVD_PKTS].name		= "rcvd_pkts",
	[IRN_CNT_DROP_TRUNCATED].name		= "rcvd_drop_truncated",
	[IRN_CNT_DROP_BAD_VERSION].name		= "rcvd_drop_bad_version",
	[IRN_CNT_DROP_BAD_OPCODE].name		= "rcvd_drop_bad_opcode",
	[IRN_CNT_DROP_BAD_LENGTH].name		= "rcvd_drop_bad_length",
	[IRN_CNT_DROP_BAD_HEADER].name		= "rcvd_drop_bad_header",
	[IRN_CNT_DROP_BAD_DGID].name		= "rcvd_drop_bad_dgid",
	[IRN_CNT_DROP_BAD_ICRC].name		= "rcvd_drop_bad_icrc",
	[IRN_CNT_DROP_UNKNOWN_QPN].name		= "rcvd_drop_unknown_qpn",
	[IRN_CNT_DROP_BAD_QP].name		= "rcvd_drop_bad_qp",
	[IRN_CNT_SENT_PKTS].name		= "sent_pkts",
	[IRN_CNT_SEND_DROPPED].name		= "sent_drop_local",
	[IRN_CNT_RETRANSMIT].name		= "retransmit_episodes",
	[IRN_CNT_RTO].name			= "timeouts",
	[IRN_CNT_SEQ_NAK_SENT].name		= "seq_nak_sent",
	[IRN_CNT_SEQ_NAK_RCVD].name		= "seq_nak_rcvd",
	[IRN_CNT_RNR_NAK_SENT].name		= "rnr_nak_sent",
	[IRN_CNT_RNR_NAK_RCVD].name		= "rnr_nak_rcvd",
	[IRN_CNT_DUP_REQ].name			= "duplicate_requests",
	[IRN_CNT_RETRY_EXCEEDED].name		= "retry_exceeded",
	[IRN_CNT_RETX_PKTS].name		= "retransmitted_pkts",
	[IRN_CNT_IRN_QPS].name			= "irn_qps",
	[IRN_CNT_SACK_SENT].name		= "sack_sent",
	[IRN_CNT_SACK_RCVD].name		= "sack_rcvd",
	[IRN_CNT_SEL_RETX].name			= "selective_retransmits",
	[IRN_CNT_RECOVERY].name			= "recovery_episodes",
	[IRN_CNT_RTO_SHORT].name		= "timeouts_short",
	[IRN_CNT_RTO_LONG].name			= "timeouts_long",
	[IRN_CNT_OOO_PLACED].name		= "ooo_placed",
	[IRN_CNT_OOO_DROPPED].name		= "ooo_dropped",
	[IRN_CNT_IRN_DUP].name			= "irn_duplicates",
	[IRN_CNT_SPURIOUS].name			= "spurious_retransmits",
	[IRN_CNT_REORDER_SEEN].name		= "reordering_seen",
	[IRN_CNT_SPURIOUS_RTO].name		= "spurious_timeouts",
	[IRN_CNT_DUP_DROPPED].name		= "duplicate_reads_dropped",
	[IRN_CNT_DROP_BACKLOG].name		= "rcvd_drop_backlog",
	[IRN_CNT_ECN_MARKED].name		= "rcvd_ecn_marked",
	[IRN_CNT_CNP_SENT].name			= "cnp_sent",
	[IRN_CNT_CNP_RCVD].name			= "cnp_rcvd",
	[IRN_CNT_RATE_CUTS].name		= "rate_cuts",
	[IRN_CNT_PATH_CHANGES].name		= "path_changes",
	[IRN_CNT_PATHS_DOWN].name		= "paths_down",
	[IRN_CNT_PATH_PROBES].name		= "path_probes",
	[IRN_CNT_PATH_RESENDS_MOVED].name	= "path_resends_moved",
};

static_assert(ARRAY_SIZE(irn_counter_descs) == IRN_NUM_COUNTERS);

/**
 * irn_counter_read() - sum of a counter over all CPUs
 * @c: the counters
 * @idx: which one
 *
 * Context: any.
 * Return: the sum.
 */
u64 irn_counter_read(struct irn_counters __percpu *c, enum irn_counter idx)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(c, cpu)->val[idx];
	return sum;
}

/**
 * irn_counters_alloc_port_stats() - ib_device_ops.alloc_hw_port_stats
 * @ibdev: device
 * @port_num: port, always 1
 *
 * Context: process context, may sleep.
 * Return: a stats structure naming every irn counter, or NULL.
 */
struct rdma_hw_stats *irn_counters_alloc_port_stats(struct ib_device *ibdev,
						    u32 port_num)
{
	return rdma_alloc_hw_stats_struct(irn_counter_descs,
					  ARRAY_SIZE(irn_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * irn_counters_fill_hw_stats() - the counters' sums, for get_hw_stats
 * @c: the counters
 * @stats: from irn_counters_alloc_port_stats(); filled with the sums
 *
 * Context: any.
 * Return: the number of counters filled in, all of them.
 */
int irn_counters_fill_hw_stats(struct irn_counters __percpu *c,
			       struct rdma_hw_stats *stats)
{
	int i;

	for (i = 0; i < IRN_NUM_COUNTERS; i++)
		stats->value[i] = irn_counter_read(c, i);
	return IRN_NUM_COUNTERS;
}
