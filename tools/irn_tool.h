/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What several of the tools need alike: a monotonic clock in milliseconds
 * and a wait for completions with a deadline.  irn_tool.c is linked into
 * each tool that includes this (tools/Makefile).
 */
#ifndef _IRN_TOOL_H
#define _IRN_TOOL_H

#include <infiniband/verbs.h>
#include <linux/types.h>

__u64 irn_tool_now_ms(void);
int irn_tool_poll_cq(struct ibv_cq *cq, struct ibv_wc *wc, int n,
		     unsigned int ms);

#endif /* _IRN_TOOL_H */
