// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the tools (irn_tool.h).
 */

#include <time.h>

#include "irn_tool.h"

/* CLOCK_MONOTONIC in milliseconds. */
__u64 irn_tool_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Poll @cq into @wc until @n completions came or @ms passed, sleeping
 * 20 us after a poll that found nothing.  Returns how many came (0 to
 * @n), or -1 if polling failed.
 */
int irn_tool_poll_cq(struct ibv_cq *cq, struct ibv_wc *wc, int n,
		     unsigned int ms)
{
	struct timespec ts = { 0, 20 * 1000 };
	__u64 end = irn_tool_now_ms() + ms;
	int got = 0, k;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got, wc + got);
		if (k < 0)
			return -1;
		got += k;
		if (got == n || irn_tool_now_ms() > end)
			break;
		if (!k)
			nanosleep(&ts, NULL);
	}
	return got;
}
