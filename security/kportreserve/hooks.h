/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve LSM hooks.
 */
#ifndef _SECURITY_KPORTRESERVE_HOOKS_H
#define _SECURITY_KPORTRESERVE_HOOKS_H

#include <linux/in6.h>
#include <linux/net.h>

#include "parser.h"

/**
 * struct kpr_bind - a request to bind a local address
 * @proto: the protocol whose rules apply
 * @port: the port, in host order
 * @family: AF_INET or AF_INET6: what @addr points to
 * @addr: the struct in_addr or struct in6_addr inside the caller's copy
 *        of the address, read only for logging, so that a bind to a port
 *        without a rule copies nothing
 */
struct kpr_bind {
	enum kpr_proto proto;
	u16 port;
	u16 family;
	const void *addr;
};

bool kpr_ip_proto(int protocol, enum kpr_proto *proto);
int kpr_socket_bind(struct socket *sock, struct sockaddr *address,
		    int addrlen);
int kpr_sctp_bind_connect(struct sock *sk, int optname,
			  struct sockaddr *address, int addrlen);

#endif /* _SECURITY_KPORTRESERVE_HOOKS_H */
