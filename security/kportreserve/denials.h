/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve per-port denial figures.
 */
#ifndef _SECURITY_KPORTRESERVE_DENIALS_H
#define _SECURITY_KPORTRESERVE_DENIALS_H

#include <linux/seq_file.h>

#include "hooks.h"
#include "policy.h"

void kpr_denials_record(const struct kpr_bind *b, const struct kpr_exe *exe,
			bool permissive);
int kpr_denials_show(struct seq_file *m, void *v);

#endif /* _SECURITY_KPORTRESERVE_DENIALS_H */
