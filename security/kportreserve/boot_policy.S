/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boot policy: the file CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY names,
 * built into the kernel's init data and loaded by boot.c before init runs.
 */
#include <linux/init.h>

	__INITRODATA

	.globl kpr_boot_policy
kpr_boot_policy:
#ifdef KPR_BOOT_POLICY_FILE
	.incbin KPR_BOOT_POLICY_FILE
#endif
	.globl kpr_boot_policy_end
kpr_boot_policy_end:
