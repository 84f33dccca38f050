/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve and automatic port assignment.
 */
#ifndef _SECURITY_KPORTRESERVE_AUTOBIND_H
#define _SECURITY_KPORTRESERVE_AUTOBIND_H

#include "policy.h"

#ifdef CONFIG_SYSCTL
void kpr_autobind_sync(const struct kpr_policy *pol);
#else
/* Without sysctls there is no ip_local_reserved_ports to steer by. */
static inline void kpr_autobind_sync(const struct kpr_policy *pol)
{
}
#endif

#endif /* _SECURITY_KPORTRESERVE_AUTOBIND_H */
