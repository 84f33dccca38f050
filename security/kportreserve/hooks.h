/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve LSM hooks.
 */
#ifndef _SECURITY_KPORTRESERVE_HOOKS_H
#define _SECURITY_KPORTRESERVE_HOOKS_H

#include <linux/net.h>

int kpr_socket_bind(struct socket *sock, struct sockaddr *address,
		    int addrlen);

#endif /* _SECURITY_KPORTRESERVE_HOOKS_H */
