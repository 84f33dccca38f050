/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve per-port denial figures.
 */
#ifndef _SECURITY_KPORTRESERVE_DENIALS_H
#define _SECURITY_KPORTRESERVE_DENIALS_H

#include <linux/seq_file.h>

#include "hooks.h"
#include "policy.h"

void kpr_denials_record(const struct kpr_bind *b, const char *exe,
			bool permissive);
void kpr_denials_prune(const struct kpr_policy *pol);

extern const struct seq_operations kpr_denials_sops;

#endif /* _SECURITY_KPORTRESERVE_DENIALS_H */
