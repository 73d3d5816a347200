/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The round-trip time estimator of RFC 6298, shared by a QP's flow and
 * each of its paths.
 */

#ifndef _IRN_RTT_H
#define _IRN_RTT_H

#include <linux/types.h>

/**
 * irn_rtt_update() - take an RTT sample into a smoothed RTT and variation
 * @srtt_ns: smoothed RTT, 0 before the first sample
 * @rttvar_ns: its variation
 * @rtt_ns: the sample
 *
 * RFC 6298: the first sample sets the RTT and half of it as variation;
 * later ones move them with gains alpha = 1/8 and beta = 1/4.
 *
 * Context: under the owner's lock.
 */
static inline void irn_rtt_update(u64 *srtt_ns, u64 *rttvar_ns, u64 rtt_ns)
{
	u64 err;

	if (!*srtt_ns) {
		*srtt_ns = rtt_ns;
		*rttvar_ns = rtt_ns / 2;
		return;
	}
	err = rtt_ns > *srtt_ns ? rtt_ns - *srtt_ns : *srtt_ns - rtt_ns;
	*rttvar_ns = *rttvar_ns - (*rttvar_ns >> 2) + (err >> 2);
	*srtt_ns = *srtt_ns - (*srtt_ns >> 3) + (rtt_ns >> 3);
}

#endif /* _IRN_RTT_H */
