/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve and the ports the kernel picks on its own.
 */
#ifndef _SECURITY_KPORTRESERVE_AUTOBIND_H
#define _SECURITY_KPORTRESERVE_AUTOBIND_H

#include <net/ip.h>

#include "policy.h"

int kpr_autobind_init(void);
void kpr_autobind_reserve(const struct kpr_policy *pol);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static without KUnit: only the suites call it from outside. */
void kpr_autobind_ports(const struct kpr_policy *pol,
			const unsigned long *ports[INET_PORT_SPACES]);
#endif

#endif /* _SECURITY_KPORTRESERVE_AUTOBIND_H */
