/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 UDP port.
 */
#ifndef _IRN_UDP_H
#define _IRN_UDP_H

int irn_udp_init(void);
void irn_udp_exit(void);

#endif /* _IRN_UDP_H */
