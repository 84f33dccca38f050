/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve logging and audit records.
 */
#ifndef _SECURITY_KPORTRESERVE_AUDIT_H
#define _SECURITY_KPORTRESERVE_AUDIT_H

#include "hooks.h"
#include "policy.h"

void kpr_audit_denied(const struct kpr_bind *b, const struct kpr_exe *exe,
		      bool permissive);
void kpr_audit_policy_load(const struct kpr_policy *pol, int err);
void kpr_audit_mode(bool permissive, bool old_permissive, int err);
void kpr_audit_lock(int err);

#endif /* _SECURITY_KPORTRESERVE_AUDIT_H */
