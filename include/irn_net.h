/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Network namespaces: the RoCEv2 port each one with irn devices has.
 */
#ifndef _IRN_NET_H
#define _IRN_NET_H

struct net;

int irn_net_init(void);
void irn_net_exit(void);

int irn_net_get(struct net *net);
void irn_net_put(struct net *net);

#endif /* _IRN_NET_H */
