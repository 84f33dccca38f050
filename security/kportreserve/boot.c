// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve boot policy: ports reserved before user space starts.
 *
 * A policy built into the kernel (CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY)
 * is put in force at late_initcall, before init runs, so no program
 * started from user space can take a reserved port first. A later write to
 * the policy file replaces it, unless kportreserve.lock=1 locks it in
 * force (control.c).
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/init.h>
#include <linux/printk.h>

#include "autobind.h"
#include "control.h"
#include "kportreserve.h"
#include "policy.h"

/**
 * load_boot_policy() - put the built-in policy in force
 *
 * Through the parser and the loader that a write to the policy file goes
 * through. A boot policy with an error is reported and not loaded: the
 * kernel still boots, with no port reserved, rather than not at all.
 *
 * Context: late init.
 */
static void __init load_boot_policy(void)
{
	size_t len = kpr_boot_policy_end - kpr_boot_policy;
	struct kpr_ruleset rs;
	const char *msg;
	unsigned int line;

	if (!len)
		return;
	if (kpr_parse_policy(kpr_boot_policy, len, &rs, &line, &msg)) {
		pr_err("policy line %u: %s; policy unchanged\n", line, msg);
		pr_err("boot policy not loaded\n");
		return;
	}
	if (kpr_load_policy(&rs, NULL, NULL))
		pr_err("boot policy not loaded\n");
}

/**
 * kpr_boot() - take part in the kernel's choice of ports, put the boot
 *              policy in force, then apply kportreserve.lock=
 *
 * The LSM's late initcall, which the LSM framework runs only when lsm=
 * enables kportreserve. At late_initcall audit and the workqueues that
 * retire policies are up, and neither init nor a root file system mounted
 * over the network (NFS root, in prepare_namespace()) has run, so no
 * program binds and no RPC client picks a port before the policy is in
 * force. The network stack's sysctls, beside which kportreserve keeps
 * reserved ports out of the kernel's choice (autobind.c), are up too.
 *
 * Return: 0; a boot policy that does not load is reported, not fatal.
 */
int __init kpr_boot(void)
{
	kpr_autobind_init();
	load_boot_policy();
	kpr_control_boot();
	return 0;
}
