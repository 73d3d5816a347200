/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Congestion control: the algorithms a QP can run (irn_flow.c applies
 * them), their names, and a device's choice for new QPs with the
 * parameters of each.
 */
#ifndef _IRN_CC_H
#define _IRN_CC_H

#include <linux/types.h>

#include "irn_dcqcn.h"
#include "irn_delay.h"

/* The notification point's defaults (struct irn_tunables, irn_cnp.c). */
#define IRN_CNP_INTERVAL_US	50
#define IRN_CNP_DSCP		48

/**
 * enum irn_cc - congestion control algorithms
 * @IRN_CC_NONE: the cap alone (IRN's BDP-FC)
 * @IRN_CC_DCQCN: DCQCN's reaction point: a rate, cut by CNPs
 * @IRN_CC_DELAY: a window driven by the RTT samples
 * @IRN_CC_NR: how many
 */
enum irn_cc {
	IRN_CC_NONE,
	IRN_CC_DCQCN,
	IRN_CC_DELAY,
	IRN_CC_NR,
};

/**
 * struct irn_cc_config - congestion control of new QPs (a device's knob)
 * @algo: enum irn_cc
 * @dcqcn: parameters of IRN_CC_DCQCN
 * @delay: parameters of IRN_CC_DELAY
 */
struct irn_cc_config {
	u32			algo;
	struct irn_dcqcn_params	dcqcn;
	struct irn_delay_params	delay;
};

void irn_cc_config_default(struct irn_cc_config *cfg, u32 algo);
int irn_cc_parse(const char *s);
const char *irn_cc_name(u32 algo);

#endif /* _IRN_CC_H */
