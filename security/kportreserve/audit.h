/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve logging and audit records.
 */
#ifndef _SECURITY_KPORTRESERVE_AUDIT_H
#define _SECURITY_KPORTRESERVE_AUDIT_H

#include "policy.h"

void kpr_audit_denied(enum kpr_proto proto, u16 port,
		      const struct kpr_exe *exe);

#endif /* _SECURITY_KPORTRESERVE_AUDIT_H */
