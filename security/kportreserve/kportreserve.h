/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve: what the parts of the module share.
 */
#ifndef _SECURITY_KPORTRESERVE_KPORTRESERVE_H
#define _SECURITY_KPORTRESERVE_KPORTRESERVE_H

#include <linux/cache.h>
#include <linux/types.h>

extern bool kpr_enabled;

#endif /* _SECURITY_KPORTRESERVE_KPORTRESERVE_H */
