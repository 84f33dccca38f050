/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve caller identity: which program is binding, as the policy
 * in force knows it.
 */
#ifndef _SECURITY_KPORTRESERVE_IDENTITY_H
#define _SECURITY_KPORTRESERVE_IDENTITY_H

#include <linux/fs.h>

#include "policy.h"

/**
 * struct kpr_caller - the task that is binding
 * @exe: its identity as policies match it
 * @file: its executable, referenced; NULL for kernel threads
 * @buf: a PATH_MAX buffer holding @exe.path, once spelled
 * @spelled: kpr_caller_spell() judged the path; @exe.path is set if it
 *           can be trusted
 */
struct kpr_caller {
	struct kpr_exe exe;
	struct file *file;
	char *buf;
	bool spelled;
};

/**
 * struct kpr_kept_id - the id a task's executable has in the policy in
 *                      force, in the task's LSM blob (identity.c)
 * @exe: the executable it was judged for; compared, never dereferenced
 * @exec_id: the task's self_exec_id then
 * @epoch: kpr_exe_epoch then
 * @id: the policy's generation and the path's id in it
 */
struct kpr_kept_id {
	const struct file *exe;
	u64 exec_id;
	u64 epoch;
	u64 id;
};

/*
 * An executable as the reports spell it (kpr_exe_text()): its last
 * KPR_EXE_TEXT_LEN bytes at most, after KPR_EXE_TEXT_CUT when cut.
 */
#define KPR_EXE_TEXT_LEN	60
#define KPR_EXE_TEXT_CUT	"..."
#define KPR_EXE_TEXT_SIZE	(sizeof(KPR_EXE_TEXT_CUT) + KPR_EXE_TEXT_LEN)

void kpr_caller_init(struct kpr_caller *c);
bool kpr_caller_resolve(struct kpr_caller *c, const struct kpr_policy *pol);
int kpr_caller_spell(struct kpr_caller *c);
void kpr_caller_release(struct kpr_caller *c);
void kpr_exe_text(const struct kpr_exe *exe, char text[KPR_EXE_TEXT_SIZE]);
bool kpr_caller_in_cgroup(const char *path, size_t len);
int kpr_task_prctl(int option, unsigned long arg2, unsigned long arg3,
		   unsigned long arg4, unsigned long arg5);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static without KUnit: only the suites call it from outside. */
bool kpr_exe_may_change(int option, unsigned long arg2);
#endif

#endif /* _SECURITY_KPORTRESERVE_IDENTITY_H */
