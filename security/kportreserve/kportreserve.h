/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve: what the parts of the module share.
 */
#ifndef _SECURITY_KPORTRESERVE_KPORTRESERVE_H
#define _SECURITY_KPORTRESERVE_KPORTRESERVE_H

#include <linux/cache.h>
#include <linux/init.h>
#include <linux/types.h>

struct lsm_blob_sizes;

extern struct lsm_blob_sizes kpr_blob_sizes;

/* The LSM's initcalls, which the LSM framework runs only if it is enabled. */
int __init kpr_init_securityfs(void);
int __init kpr_boot(void);

/* The boot policy's text, in init data (boot_policy.S). */
extern const char kpr_boot_policy[];
extern const char kpr_boot_policy_end[];

#endif /* _SECURITY_KPORTRESERVE_KPORTRESERVE_H */
