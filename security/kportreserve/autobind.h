/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve and automatic port assignment.
 */
#ifndef _SECURITY_KPORTRESERVE_AUTOBIND_H
#define _SECURITY_KPORTRESERVE_AUTOBIND_H

#include "policy.h"

void kpr_autobind_sync(const struct kpr_policy *pol);

#endif /* _SECURITY_KPORTRESERVE_AUTOBIND_H */
