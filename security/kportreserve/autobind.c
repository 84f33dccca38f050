// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve and automatic port assignment.
 *
 * socket_bind never sees a port the kernel picks: bind() to port 0,
 * listen() or connect() on an unbound socket, sendmsg() on an unbound UDP
 * socket. Every one of those allocators (inet_csk_find_open_port(),
 * __inet_hash_connect(), udp_lib_get_port(), sctp_get_port_local()) skips
 * the ports of the initial namespace's ip_local_reserved_ports. So each
 * policy load marks its reserved ports there, and unmarks the ports it
 * marked that are no longer reserved; ports the administrator reserved
 * through the sysctl are never unmarked.
 *
 * This needs no change to the network stack, at a price documented in the
 * admin guide: the sysctl is shared, so writing ip_local_reserved_ports
 * replaces kportreserve's marks until the next policy load; and the bitmap
 * has one bit per port for all protocols, so a port reserved for TCP only
 * is not assigned automatically to UDP either.
 *
 * Context: callers hold the policy lock, which serialises the marking.
 */

#include <linux/bitmap.h>
#include <net/net_namespace.h>
#include <net/netns/ipv4.h>

#include "autobind.h"

/* The bits of ip_local_reserved_ports that kportreserve set. */
static DECLARE_BITMAP(kpr_marked, KPR_NR_PORTS);

/**
 * kpr_autobind_sync() - keep automatic assignment off reserved ports
 * @pol: the policy now in force, or NULL
 *
 * Marks in init_net's ip_local_reserved_ports every port @pol reserves
 * for some protocol that is not marked yet (again, if a write to the
 * sysctl cleared it), and clears the marks kportreserve made for ports
 * that are no longer reserved.
 *
 * Context: process context; the policy lock held.
 */
void kpr_autobind_sync(const struct kpr_policy *pol)
{
	unsigned long *sysctl = init_net.ipv4.sysctl_local_reserved_ports;
	unsigned int word, bit;

	/* Allocated by the network stack's pernet init, before us. */
	if (WARN_ON_ONCE(!sysctl))
		return;
	for (word = 0; word < BITS_TO_LONGS(KPR_NR_PORTS); word++) {
		unsigned long want = pol ? pol->any[word] : 0;
		unsigned long add = want & ~READ_ONCE(sysctl[word]);
		unsigned long drop = kpr_marked[word] & ~want;

		for_each_set_bit(bit, &add, BITS_PER_LONG) {
			set_bit(word * BITS_PER_LONG + bit, sysctl);
			__set_bit(word * BITS_PER_LONG + bit, kpr_marked);
		}
		for_each_set_bit(bit, &drop, BITS_PER_LONG) {
			clear_bit(word * BITS_PER_LONG + bit, sysctl);
			__clear_bit(word * BITS_PER_LONG + bit, kpr_marked);
		}
	}
}
