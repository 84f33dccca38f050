// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve: reserve local ports for the programs that own them.
 *
 * Registration only; see hooks.c for the bind hooks, parser.c and policy.c
 * for the policy, control.c for modes and the lock, autobind.c for the
 * ports the kernel picks on its own, boot.c for the boot policy, fs.c for
 * the securityfs interface.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/init.h>
#include <linux/lsm_hooks.h>
#include <linux/moduleparam.h>

#include "control.h"
#include "hooks.h"
#include "identity.h"
#include "kportreserve.h"

/*
 * Boot parameters: kportreserve.mode= and kportreserve.lock=, named here
 * rather than after this file. Not writable at run time: the securityfs
 * files are.
 */
#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "kportreserve."

static int param_set_mode(const char *val, const struct kernel_param *kp)
{
	return kpr_param_mode(val);
}

static const struct kernel_param_ops param_ops_mode = {
	.set = param_set_mode,
};
module_param_cb(mode, &param_ops_mode, NULL, 0);
MODULE_PARM_DESC(mode, "enforce (default) or permissive");

static int param_set_lock(const char *val, const struct kernel_param *kp)
{
	return kpr_param_lock(val);
}

static const struct kernel_param_ops param_ops_lock = {
	.set = param_set_lock,
};
module_param_cb(lock, &param_ops_lock, NULL, 0);
MODULE_PARM_DESC(lock, "1: fix policy and mode until reboot, from the first policy in force");

static const struct lsm_id kpr_lsmid = {
	.name = "kportreserve",
	.id = LSM_ID_KPORTRESERVE,
};

static struct security_hook_list kpr_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(socket_bind, kpr_socket_bind),
	LSM_HOOK_INIT(sctp_bind_connect, kpr_sctp_bind_connect),
	LSM_HOOK_INIT(task_prctl, kpr_task_prctl),
};

/* Offsets into the blobs, set by the LSM framework before kpr_init(). */
struct lsm_blob_sizes kpr_blob_sizes __ro_after_init = {
	/* The id of the task's executable's path (identity.c). */
	.lbs_task = sizeof(struct kpr_kept_id),
};

static int __init kpr_init(void)
{
	security_add_hooks(kpr_hooks, ARRAY_SIZE(kpr_hooks), &kpr_lsmid);
	pr_info("initialized\n");
	return 0;
}

DEFINE_LSM(kportreserve) = {
	.id = &kpr_lsmid,
	.init = kpr_init,
	.blobs = &kpr_blob_sizes,
	.initcall_fs = kpr_init_securityfs,
	.initcall_late = kpr_boot,
};
