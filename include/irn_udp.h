/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RoCEv2 UDP port of one network namespace.
 */
#ifndef _IRN_UDP_H
#define _IRN_UDP_H

struct net;
struct socket;

/**
 * struct irn_udp_port - UDP port 4791 of one network namespace
 * @sock4: IPv4 socket
 * @sock6: IPv6 socket, NULL where IPv6 is unavailable
 */
struct irn_udp_port {
	struct socket	*sock4;
	struct socket	*sock6;
};

int irn_udp_open(struct net *net, struct irn_udp_port *port);
void irn_udp_close(struct irn_udp_port *port);

#endif /* _IRN_UDP_H */
