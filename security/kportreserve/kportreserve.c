// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve: reserve local ports for the programs that own them.
 *
 * Registration only; see hooks.c for the bind hook, parser.c and policy.c
 * for the policy, fs.c for the securityfs interface.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/init.h>
#include <linux/lsm_hooks.h>
#include <uapi/linux/lsm.h>

#include "hooks.h"
#include "kportreserve.h"

bool kpr_enabled __ro_after_init;

static const struct lsm_id kpr_lsmid = {
	.name = "kportreserve",
	.id = LSM_ID_KPORTRESERVE,
};

static struct security_hook_list kpr_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(socket_bind, kpr_socket_bind),
};

static int __init kpr_init(void)
{
	security_add_hooks(kpr_hooks, ARRAY_SIZE(kpr_hooks), &kpr_lsmid);
	kpr_enabled = true;
	pr_info("initialized\n");
	return 0;
}

DEFINE_LSM(kportreserve) = {
	.name = "kportreserve",
	.init = kpr_init,
};
