/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve mode and lock.
 */
#ifndef _SECURITY_KPORTRESERVE_CONTROL_H
#define _SECURITY_KPORTRESERVE_CONTROL_H

#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/types.h>

#include "policy.h"

extern bool kpr_permissive;

/**
 * kpr_is_permissive() - tell whether denials are only logged
 *
 * Return: true in permissive mode, false in enforce mode.
 */
static inline bool kpr_is_permissive(void)
{
	return READ_ONCE(kpr_permissive);
}

bool kpr_is_locked(void);
const char *kpr_mode_name(bool permissive);
struct kpr_subject;

int kpr_load_policy(struct kpr_ruleset *rs, const u64 *base,
		    const struct kpr_subject *who);
int kpr_set_mode(bool permissive);
int kpr_set_lock(void);
void __init kpr_control_boot(void);
int kpr_parse_mode(const char *word, bool *permissive);
int kpr_param_mode(const char *val);
int kpr_param_lock(const char *val);

#endif /* _SECURITY_KPORTRESERVE_CONTROL_H */
