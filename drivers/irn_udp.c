// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RoCEv2 UDP port, 4791, bound for IPv4 and IPv6 in the initial network
 * namespace while the module is loaded.  Packets reach irn_recv() through
 * the UDP encapsulation hook, in softirq context, without a socket queue.
 *
 * Only one RoCEv2 implementation can own the port: stock rdma_rxe binds it
 * at load time too, so whichever module loads second fails, and irn says so.
 */

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "irn_dev.h"
#include "irn_device.h"
#include "irn_recv.h"
#include "irn_udp.h"

static struct socket *irn_sock4;
static struct socket *irn_sock6;

/*
 * Traffic between two local addresses (one irn device talking to itself, or
 * two devices on one host) arrives on the loopback device: the destination
 * address names the netdev, and so the irn device, it was meant for.
 */
static struct net_device *local_netdev(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(&init_net, ip_hdr(skb)->daddr, false);
	return ipv6_dev_find(&init_net, &ipv6_hdr(skb)->daddr, NULL);
}

/**
 * irn_udp_encap_recv() - UDP encapsulation hook for port 4791
 * @sk: irn's IPv4 or IPv6 socket
 * @skb: datagram, data at the UDP header; always consumed
 *
 * Context: softirq, under rcu_read_lock().
 * Return: 0 (consumed).
 */
static int irn_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct irn_dev *dev = NULL;

	if (ndev->flags & IFF_LOOPBACK)
		ndev = local_netdev(skb);
	else if (is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	if (ndev)
		dev = irn_device_get_by_netdev(ndev);
	if (!dev) {
		kfree_skb(skb);
		return 0;
	}
	irn_recv(dev, skb);
	irn_device_put(dev);
	return 0;
}

static struct socket *open_port(int family)
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

	err = udp_sock_create(&init_net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tunnel_cfg);
	return sock;
}

static int port_error(int family, int err)
{
	if (err == -EADDRINUSE)
		pr_err("UDP port %d (IPv%d) is already in use, most likely by rdma_rxe: irn and rdma_rxe cannot be loaded together; run 'rdma link delete' on rxe devices and 'modprobe -r rdma_rxe' first\n",
		       ROCE_V2_UDP_DPORT, family == AF_INET ? 4 : 6);
	else
		pr_err("cannot bind UDP port %d (IPv%d): %d\n",
		       ROCE_V2_UDP_DPORT, family == AF_INET ? 4 : 6, err);
	return err;
}

/**
 * irn_udp_init() - bind the RoCEv2 port
 *
 * An IPv6 failure is fatal only if IPv6 is available at all.
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int irn_udp_init(void)
{
	struct socket *sock;

	sock = open_port(AF_INET);
	if (IS_ERR(sock))
		return port_error(AF_INET, PTR_ERR(sock));
	irn_sock4 = sock;

	sock = open_port(AF_INET6);
	if (IS_ERR(sock)) {
		if (PTR_ERR(sock) == -EAFNOSUPPORT) {
			pr_warn("IPv6 is disabled: RoCEv2 over IPv4 only\n");
			return 0;
		}
		udp_tunnel_sock_release(irn_sock4);
		irn_sock4 = NULL;
		return port_error(AF_INET6, PTR_ERR(sock));
	}
	irn_sock6 = sock;
	return 0;
}

/**
 * irn_udp_exit() - release the RoCEv2 port
 *
 * Waits until no receive handler runs any more.
 *
 * Context: module exit.
 */
void irn_udp_exit(void)
{
	if (irn_sock6)
		udp_tunnel_sock_release(irn_sock6);
	udp_tunnel_sock_release(irn_sock4);
	irn_sock6 = NULL;
	irn_sock4 = NULL;
	synchronize_net();
}
