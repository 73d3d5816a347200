// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCEv2 UDP port, 4791, bound for IPv4 and IPv6 in one network
 * namespace: irn_net.c opens it in the initial namespace while the module
 * is loaded, and in any other with the namespace's first irn device.
 * Packets reach irn_recv() through the UDP encapsulation hook, in softirq
 * context, without a socket queue.
 *
 * Only one RoCEv2 implementation can own the port: stock rdma_rxe binds it
 * in the initial namespace at load time too, so whichever module loads
 * second fails, and irn says so.
 */

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "irn_dev.h"
#include "irn_devref.h"
#include "irn_recv.h"
#include "irn_udp.h"

/*
 * Traffic between two local addresses (one irn device talking to itself, or
 * two devices in one namespace) arrives on the namespace's loopback device:
 * the destination address names the netdev, and so the irn device, it was
 * meant for.
 */
static struct net_device *local_netdev(struct net *net, struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	return ipv6_dev_find(net, &ipv6_hdr(skb)->daddr, NULL);
}

/*
 * The device a datagram received in @net is for, with a registration
 * reference.  Only a device of @net takes it: a device whose netdev has
 * moved to @net since is being unregistered (NETDEV_UNREGISTER), and a
 * VLAN's real netdev may be in another namespace than the VLAN.
 */
static struct irn_dev *find_dev(struct net *net, struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct irn_dev *dev;

	if (ndev->flags & IFF_LOOPBACK)
		ndev = local_netdev(net, skb);
	else if (is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	if (!ndev)
		return NULL;
	dev = irn_devref_get_by_netdev(ndev);
	if (dev && !net_eq(dev->net, net)) {
		irn_devref_put(dev);
		return NULL;
	}
	return dev;
}

/**
 * irn_udp_encap_recv() - UDP encapsulation hook for port 4791
 * @sk: irn's IPv4 or IPv6 socket of the namespace @skb arrived in
 * @skb: datagram, data at the UDP header; always consumed
 *
 * Context: softirq, under rcu_read_lock().
 * Return: 0 (consumed).
 */
static int irn_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct irn_dev *dev = find_dev(sock_net(sk), skb);

	if (!dev) {
		kfree_skb(skb);
		return 0;
	}
	irn_recv(dev, skb);
	irn_devref_put(dev);
	return 0;
}

static struct socket *open_socket(struct net *net, int family)
{
	struct udp_port_cfg port_cfg = {
		.family			= family,
		.local_udp_port		= htons(ROCE_V2_UDP_DPORT),
		.ipv6_v6only		= family == AF_INET6,
	};
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		.encap_type		= 1,
		.encap_rcv		= irn_udp_encap_recv,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);
	return sock;
}

static int port_error(struct net *net, int family, int err)
{
	int v = family == AF_INET ? 4 : 6;

	if (err == -EADDRINUSE && net_eq(net, &init_net))
		pr_err("UDP port %d (IPv%d) is already in use, most likely by rdma_rxe: irn and rdma_rxe cannot be loaded together; run 'rdma link delete' on rxe devices and 'modprobe -r rdma_rxe' first\n",
		       ROCE_V2_UDP_DPORT, v);
	else if (err == -EADDRINUSE)
		pr_err("UDP port %d (IPv%d) is already in use in the netdev's network namespace; 'ss -ulpn sport = :%d' there names the owner\n",
		       ROCE_V2_UDP_DPORT, v, ROCE_V2_UDP_DPORT);
	else
		pr_err("cannot bind UDP port %d (IPv%d): %d\n",
		       ROCE_V2_UDP_DPORT, v, err);
	return err;
}

/**
 * irn_udp_open() - bind the RoCEv2 port in a namespace
 * @net: network namespace, alive for as long as the port is open
 *	 (irn_net.c)
 * @port: filled in
 *
 * The sockets hold no reference to @net: they must be closed before it
 * goes away.  An IPv6 failure is fatal only if IPv6 is available at all.
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno, with the reason in the kernel log.
 */
int irn_udp_open(struct net *net, struct irn_udp_port *port)
{
	struct socket *sock;

	sock = open_socket(net, AF_INET);
	if (IS_ERR(sock))
		return port_error(net, AF_INET, PTR_ERR(sock));
	port->sock4 = sock;

	sock = open_socket(net, AF_INET6);
	if (IS_ERR(sock)) {
		if (PTR_ERR(sock) == -EAFNOSUPPORT) {
			pr_warn_once("IPv6 is disabled: RoCEv2 over IPv4 only\n");
			port->sock6 = NULL;
			return 0;
		}
		udp_tunnel_sock_release(port->sock4);
		port->sock4 = NULL;
		return port_error(net, AF_INET6, PTR_ERR(sock));
	}
	port->sock6 = sock;
	return 0;
}

/**
 * irn_udp_close() - release the RoCEv2 port of a namespace
 * @port: from irn_udp_open()
 *
 * Waits until no receive handler runs on it any more.
 *
 * Context: process context, sleeps.
 */
void irn_udp_close(struct irn_udp_port *port)
{
	if (port->sock6)
		udp_tunnel_sock_release(port->sock6);
	udp_tunnel_sock_release(port->sock4);
	port->sock6 = NULL;
	port->sock4 = NULL;
	synchronize_net();
}
