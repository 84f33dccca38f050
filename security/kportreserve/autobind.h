/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve and the ports the kernel picks on its own.
 */
#ifndef _SECURITY_KPORTRESERVE_AUTOBIND_H
#define _SECURITY_KPORTRESERVE_AUTOBIND_H

#include <net/sock.h>

#include "policy.h"

int kpr_inet_reserved_port(const struct sock *sk, u16 port);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static without KUnit: only the suites call it from outside. */
bool kpr_autobind_reserves(const struct kpr_policy *pol, int protocol,
			   u16 port);
#endif

#endif /* _SECURITY_KPORTRESERVE_AUTOBIND_H */
