// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve and the ports the kernel picks on its own.
 *
 * socket_bind never sees a port the kernel picks: bind() to port 0,
 * listen() or connect() on an unbound socket, sendmsg() on an unbound UDP
 * socket, and the privileged source ports that the RPC client (NFS, lockd)
 * and 9p's privport over TCP choose for themselves. Every one of those
 * allocators asks inet_sk_is_local_reserved_port(), which asks the
 * inet_reserved_port hook beside ip_local_reserved_ports. kportreserve
 * answers from the policy in force, so the administrator's sysctl is
 * neither read nor written here, and a write to it reopens nothing.
 */

#include <kunit/visibility.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "autobind.h"
#include "hooks.h"

/**
 * kpr_autobind_reserves() - tell whether the kernel must not pick a port
 * @pol: the policy in force, or NULL
 * @protocol: the socket's protocol (IPPROTO_*)
 * @port: the candidate port, in host order
 *
 * The protocols that have rules (kpr_ip_proto()) are kept off the ports
 * reserved for them; any other protocol is kept off every reserved port,
 * as its binds are not judged at all.
 *
 * Context: any context; under rcu_read_lock() when @pol is the policy in
 * force.
 * Return: true if @port must be skipped.
 */
VISIBLE_IF_KUNIT bool kpr_autobind_reserves(const struct kpr_policy *pol,
					    int protocol, u16 port)
{
	enum kpr_proto proto;

	if (!pol)
		return false;
	if (kpr_ip_proto(protocol, &proto))
		return test_bit(port, pol->reserved[proto]);
	return test_bit(port, pol->any);
}

/**
 * kpr_inet_reserved_port() - keep the kernel's own choice off reserved ports
 * @sk: the socket a local port is chosen for, the kernel's own included
 * @port: the candidate port, in host order
 *
 * Reservations hold in the initial network namespace only, whatever the
 * mode: in permissive mode a bind by number is logged and let through, but
 * nothing is gained by handing a reserved port out unasked.
 *
 * Context: any context; callers may hold a bucket spinlock with bottom
 * halves disabled (udp_lib_get_port()).
 * Return: 0 if the kernel may pick @port, -EADDRINUSE if it must not.
 */
int kpr_inet_reserved_port(const struct sock *sk, u16 port)
{
	bool reserved;

	/* In the allocator's loop: most candidates end here. */
	if (!kpr_port_may_be_reserved(port) ||
	    !net_eq(sock_net(sk), &init_net))
		return 0;
	rcu_read_lock();
	reserved = kpr_autobind_reserves(rcu_dereference(kpr_active_policy),
					 sk->sk_protocol, port);
	rcu_read_unlock();
	return reserved ? -EADDRINUSE : 0;
}
