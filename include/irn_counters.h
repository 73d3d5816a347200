/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Port counters, shown by `rdma statistic show` and in
 * /sys/class/infiniband/DEV/ports/1/hw_counters/.
 */
#ifndef _IRN_COUNTERS_H
#define _IRN_COUNTERS_H

#include <linux/percpu.h>

struct ib_device;
struct rdma_hw_stats;

/*
 * Keep in step with the names in irn_counters.c; Documentation/ops-guide.rst
 * explains each one.
 */
enum irn_counter {
	IRN_CNT_RCVD_PKTS,
	IRN_CNT_DROP_TRUNCATED,
	IRN_CNT_DROP_BAD_VERSION,
	IRN_CNT_DROP_BAD_OPCODE,
	IRN_CNT_DROP_BAD_LENGTH,
	IRN_CNT_DROP_BAD_HEADER,
	IRN_CNT_DROP_BAD_DGID,
	IRN_CNT_DROP_BAD_ICRC,
	IRN_CNT_DROP_UNKNOWN_QPN,
	IRN_CNT_DROP_BAD_QP,
	IRN_CNT_SENT_PKTS,
	IRN_CNT_SEND_DROPPED,
	IRN_CNT_RETRANSMIT,
	IRN_CNT_RTO,
	IRN_CNT_SEQ_NAK_SENT,
	IRN_CNT_SEQ_NAK_RCVD,
	IRN_CNT_RNR_NAK_SENT,
	IRN_CNT_RNR_NAK_RCVD,
	IRN_CNT_DUP_REQ,
	IRN_CNT_RETRY_EXCEEDED,
	IRN_CNT_RETX_PKTS,
	IRN_CNT_IRN_QPS,
	IRN_CNT_SACK_SENT,
	IRN_CNT_SACK_RCVD,
	IRN_CNT_SEL_RETX,
	IRN_CNT_RECOVERY,
	IRN_CNT_RTO_SHORT,
	IRN_CNT_RTO_LONG,
	IRN_CNT_OOO_PLACED,
	IRN_CNT_OOO_DROPPED,
	IRN_CNT_IRN_DUP,
	IRN_CNT_SPURIOUS,
	IRN_CNT_REORDER_SEEN,
	IRN_CNT_SPURIOUS_RTO,
	IRN_CNT_DUP_DROPPED,
	IRN_CNT_DROP_BACKLOG,
	IRN_CNT_ECN_MARKED,
	IRN_CNT_CNP_SENT,
	IRN_CNT_CNP_RCVD,
	IRN_CNT_RATE_CUTS,
	IRN_CNT_PATH_CHANGES,
	IRN_CNT_PATHS_DOWN,
	IRN_CNT_PATH_PROBES,
	IRN_CNT_PATH_RESENDS_MOVED,
	IRN_NUM_COUNTERS
};

struct irn_counters {
	u64 val[IRN_NUM_COUNTERS];
};

static inline void irn_counter_inc(struct irn_counters __percpu *c,
				   enum irn_counter idx)
{
	this_cpu_inc(c->val[idx]);
}

struct rdma_hw_stats *irn_counters_alloc_port_stats(struct ib_device *ibdev,
						    u32 port_num);
int irn_counters_fill_hw_stats(struct irn_counters __percpu *c,
			       struct rdma_hw_stats *stats);
u64 irn_counter_read(struct irn_counters __percpu *c, enum irn_counter idx);

#endif /* _IRN_COUNTERS_H */
