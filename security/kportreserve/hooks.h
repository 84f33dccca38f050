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
 * @family: AF_INET or AF_INET6: which member of the address is set
 * @v4: the IPv4 address, with AF_INET
 * @v6: the IPv6 address, with AF_INET6
 */
struct kpr_bind {
	enum kpr_proto proto;
	u16 port;
	u16 family;
	union {
		__be32 v4;
		struct in6_addr v6;
	};
};

int kpr_socket_bind(struct socket *sock, struct sockaddr *address,
		    int addrlen);
int kpr_sctp_bind_connect(struct sock *sk, int optname,
			  struct sockaddr *address, int addrlen);

#endif /* _SECURITY_KPORTRESERVE_HOOKS_H */
