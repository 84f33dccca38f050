// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve and the ports the kernel picks on its own.
 *
 * socket_bind never sees a port the kernel picks: bind() to port 0,
 * listen() or connect() on an unbound socket, sendmsg() on an unbound UDP
 * socket, and the privileged source ports that the RPC client (NFS, lockd)
 * and 9p's privport over TCP choose for themselves. Every one of those
 * allocators skips the ports of a bitmap that the network stack folds from
 * ip_local_reserved_ports and the reservations of kernel users (struct
 * inet_port_reservation). kportreserve holds one reservation in the
 * initial network namespace and makes it the policy's reserved ports at
 * every load, so the allocators test no more than they did without it,
 * the administrator's sysctl is neither read nor written here, and a
 * write to it reopens nothing.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <kunit/visibility.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "autobind.h"

/* The reservation of kportreserve in init_net, once kpr_autobind_init() ran. */
static struct inet_port_reservation kpr_reservation;
static bool kpr_reservation_added __ro_after_init;

/**
 * kpr_autobind_ports() - the ports a policy keeps out of each port space
 * @pol: the policy
 * @ports: receives, for each space of the network stack, the policy's
 *         bitmap of the ports reserved for that protocol
 *
 * The network stack's spaces are those of the policy's protocols: MPTCP
 * shares TCP's space, as its rules are /tcp rules.
 *
 * Context: any context.
 */
VISIBLE_IF_KUNIT void
kpr_autobind_ports(const struct kpr_policy *pol,
		   const unsigned long *ports[INET_PORT_SPACES])
{
	ports[INET_PORT_SPACE_TCP] = pol->reserved[KPR_PROTO_TCP];
	ports[INET_PORT_SPACE_UDP] = pol->reserved[KPR_PROTO_UDP];
	ports[INET_PORT_SPACE_SCTP] = pol->reserved[KPR_PROTO_SCTP];
}
EXPORT_SYMBOL_IF_KUNIT(kpr_autobind_ports);

/**
 * kpr_autobind_init() - start keeping reserved ports out of the kernel's choice
 *
 * Called at late_initcall, before the boot policy: the network stack's
 * sysctls are set up by then.
 *
 * Context: process context.
 * Return: 0, or -ENOMEM; the kernel's choice then ignores the policy.
 */
int __init kpr_autobind_init(void)
{
	int err;

	err = inet_port_reservation_add(&init_net, &kpr_reservation);
	if (err) {
		pr_err("reserved ports are not kept out of automatic assignment: %d\n",
		       err);
		return err;
	}
	kpr_reservation_added = true;
	return 0;
}

/**
 * kpr_autobind_reserve() - keep a policy's ports out of the kernel's choice
 * @pol: the policy being put in force
 *
 * Reservations hold in the initial network namespace only, whatever the
 * mode: in permissive mode a bind by number is logged and let through, but
 * nothing is gained by handing a reserved port out unasked. A port that
 * the old and the new policy both reserve stays out of the choice
 * throughout.
 *
 * Context: process context; kpr_control_lock held.
 */
void kpr_autobind_reserve(const struct kpr_policy *pol)
{
	const unsigned long *ports[INET_PORT_SPACES];

	if (!kpr_reservation_added)
		return;
	kpr_autobind_ports(pol, ports);
	inet_port_reservation_set(&init_net, &kpr_reservation, ports);
}
