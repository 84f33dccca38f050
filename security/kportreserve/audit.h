/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve logging and audit records.
 */
#ifndef _SECURITY_KPORTRESERVE_AUDIT_H
#define _SECURITY_KPORTRESERVE_AUDIT_H

#include <linux/types.h>
#include <linux/uidgid.h>

#include "hooks.h"
#include "policy.h"

/**
 * struct kpr_subject - who changed the policy, for its audit record
 * @pid: the thread group id
 * @auid: the login uid
 * @ses: the audit session
 */
struct kpr_subject {
	pid_t pid;
	kuid_t auid;
	unsigned int ses;
};

void kpr_subject_current(struct kpr_subject *who);
void kpr_audit_denied(const struct kpr_bind *b, const char *text,
		      bool permissive);
void kpr_audit_policy_load(const struct kpr_policy *pol,
			   const struct kpr_subject *who, int err);
void kpr_audit_mode(bool permissive, bool old_permissive, int err);
void kpr_audit_lock(int err);

#endif /* _SECURITY_KPORTRESERVE_AUDIT_H */
