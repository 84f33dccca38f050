/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve: what the parts of the module share.
 */
#ifndef _SECURITY_KPORTRESERVE_KPORTRESERVE_H
#define _SECURITY_KPORTRESERVE_KPORTRESERVE_H

#include <linux/cache.h>
#include <linux/types.h>

struct lsm_blob_sizes;

extern bool kpr_enabled;
extern struct lsm_blob_sizes kpr_blob_sizes;

/* The boot policy's text, in init data (boot_policy.S). */
extern const char kpr_boot_policy[];
extern const char kpr_boot_policy_end[];

#endif /* _SECURITY_KPORTRESERVE_KPORTRESERVE_H */
