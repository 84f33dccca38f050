// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve caller identity: which program is binding, as the policy
 * in force knows it.
 *
 * A program is named by its executable's path. Checking that the path can
 * be trusted and spelling it on every bind to a reserved port would cost
 * a 4 KiB buffer, the mount lock and two walks up the dentry tree, about
 * as much as the bind itself. So each task keeps, in its LSM blob, the id
 * the path of its executable has in the policy in force (KPR_NO_PATH for
 * a path that cannot be trusted), tagged with the policy's generation:
 * its later binds compare a few numbers. Loading a policy changes the
 * generation, which forgets every kept id at once.
 *
 * The blob is a task's, not its executable's struct file's, because a
 * file blob is an allocation on every open() of every file where no other
 * LSM has one, and binds to reserved ports are rare beside opens; a task
 * blob costs one allocation per fork(). Only its own task reads or writes
 * it. A kept id is good for as long as the task runs the executable it
 * was judged for: the same struct file (compared, never dereferenced), in
 * the same execve() (self_exec_id, which every execve() moves on, so that
 * a struct file freed with an old image and reused for a new one is not
 * taken for the old one), and no prctl() that may have replaced the
 * executable since (kpr_exe_epoch).
 *
 * So the path is judged once per task, execve() and policy, and a rename
 * of the file after that changes nothing until the next load. Trust
 * depends on the caller's namespaces: ids are kept and used only by
 * callers in the initial mount namespace (may_keep_id()), and moving to
 * another user namespace, which anyone may do, is checked on every bind.
 * Which user namespace the caller is in is read from its own, objective,
 * credentials as well as from those it acts with, which may be borrowed
 * (in_initial_user_ns()).
 */

#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs_struct.h>
#include <linux/lsm_hooks.h>
#include <linux/mm.h>
#include <linux/mnt_namespace.h>
#include <linux/namei.h>
#include <linux/nsproxy.h>
#include <linux/path.h>
#include <linux/proc_ns.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/string.h>
#include <linux/user_namespace.h>

#include "identity.h"
#include "kportreserve.h"

/*
 * A kept id: the policy generation above KPR_ID_BITS, the path id below,
 * with KPR_ID_MASK for KPR_NO_PATH. Generation 0 is never in force, so a
 * zeroed blob holds nothing.
 */
#define KPR_ID_BITS	21
#define KPR_ID_MASK	(BIT_ULL(KPR_ID_BITS) - 1)

/*
 * Moved on by every prctl() that may replace a process's executable
 * without an execve() in the initial user namespace (kpr_task_prctl()):
 * kept ids older than that are forgotten.
 */
static atomic64_t kpr_exe_epoch = ATOMIC64_INIT(0);

/**
 * in_initial_user_ns() - tell whether current is, and acts, in the initial
 *                        user namespace
 *
 * The credentials current acts with may be borrowed: io_uring runs a
 * request under a personality registered earlier
 * (IORING_REGISTER_PERSONALITY), maybe before the task moved to a user
 * and mount namespace of its own, where it may mount anything on a listed
 * path; any request run under override_creds() has the same shape. The
 * task's own, objective, credentials leave the initial user namespace with
 * unshare() or setns() and never come back to it, and io_uring's io-wq
 * and SQPOLL threads take theirs from the task that started them. So both
 * are asked.
 *
 * Return: true if both credentials are of the initial user namespace.
 */
static bool in_initial_user_ns(void)
{
	return current_user_ns() == &init_user_ns &&
	       current_real_cred()->user_ns == &init_user_ns;
}

static struct kpr_kept_id *kept_id(void)
{
	return current->security + kpr_blob_sizes.lbs_task;
}

/*
 * Whether the path of an executable can be trusted depends on the mount
 * namespace of the caller (exe_path_trusted()), so a kept id is only good
 * for callers in one namespace: the initial one, which never goes away.
 * Callers in others (systemd's PrivateTmp=, ProtectSystem=) judge and spell
 * the path on every bind to a reserved port.
 */
static bool may_keep_id(void)
{
	return current->nsproxy &&
	       current->nsproxy->mnt_ns == init_nsproxy.mnt_ns;
}

static bool id_load(const struct file *exe, u64 generation, u32 *id)
{
	const struct kpr_kept_id *kept = kept_id();
	u64 path_id;

	if (!may_keep_id() || kept->exe != exe ||
	    kept->exec_id != current->self_exec_id ||
	    kept->epoch != atomic64_read(&kpr_exe_epoch) ||
	    kept->id >> KPR_ID_BITS != generation)
		return false;
	path_id = kept->id & KPR_ID_MASK;
	*id = path_id == KPR_ID_MASK ? KPR_NO_PATH : path_id;
	return true;
}

static void id_store(const struct file *exe, u64 generation, u32 id)
{
	struct kpr_kept_id *kept = kept_id();

	/* Program ids, and so path ids, stay below the rule limit. */
	BUILD_BUG_ON(KPR_POLICY_MAX_RULES >= KPR_ID_MASK);
	if (!may_keep_id())
		return;
	kept->exe = exe;
	kept->exec_id = current->self_exec_id;
	kept->epoch = atomic64_read(&kpr_exe_epoch);
	kept->id = generation << KPR_ID_BITS |
		   (id == KPR_NO_PATH ? KPR_ID_MASK : id);
}

/**
 * kpr_exe_may_change() - tell whether a prctl() may replace an executable
 * @option: the prctl() option
 * @arg2: its first argument
 *
 * Besides execve(), only prctl(PR_SET_MM, PR_SET_MM_EXE_FILE) and
 * prctl(PR_SET_MM, PR_SET_MM_MAP), with which checkpoint/restore tools
 * rebuild a process, set the executable of a process.
 *
 * Return: true for those two.
 */
VISIBLE_IF_KUNIT bool kpr_exe_may_change(int option, unsigned long arg2)
{
	return option == PR_SET_MM &&
	       (arg2 == PR_SET_MM_EXE_FILE || arg2 == PR_SET_MM_MAP);
}

/**
 * mm_shared_with_another_process() - tell whether a task outside current's
 *                                     thread group may share its memory
 *
 * A process that clone()s with CLONE_VM but not CLONE_THREAD, or that
 * vfork()s, shares its memory, and so its executable (mm->exe_file), with
 * a child that may then unshare() a user namespace of its own, where it
 * holds CAP_CHECKPOINT_RESTORE, and start threads there. Every task that
 * uses the memory holds a reference to it (mm_users); the threads of
 * current's group that have not begun to exit are counted in
 * signal->live. More references than that means another process, or a
 * transient reference (/proc, ptrace): the answer errs towards sharing,
 * never away from it. Two reads, whatever the size of the system: the
 * caller may be anyone.
 *
 * Context: process context.
 * Return: true if the memory may be shared with another process.
 */
static bool mm_shared_with_another_process(void)
{
	struct mm_struct *mm = current->mm;

	return mm && atomic_read(&mm->mm_users) >
		     atomic_read(&current->signal->live);
}

/**
 * may_set_exe() - tell whether prctl() will let current set its executable
 * @arg2: PR_SET_MM_EXE_FILE or PR_SET_MM_MAP
 *
 * The capabilities prctl_set_mm() and prctl_set_mm_map() ask for, in the
 * initial user namespace, where the caller is: CAP_SYS_RESOURCE for
 * PR_SET_MM_EXE_FILE, CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN for
 * PR_SET_MM_MAP. Asked without audit and without marking the task as
 * having used a privilege: prctl() asks again, and decides.
 *
 * Return: true if the call may succeed.
 */
static bool may_set_exe(unsigned long arg2)
{
	const struct cred *cred = current_cred();

	if (arg2 == PR_SET_MM_EXE_FILE)
		return !security_capable(cred, &init_user_ns, CAP_SYS_RESOURCE,
					 CAP_OPT_NOAUDIT);
	return !security_capable(cred, &init_user_ns, CAP_CHECKPOINT_RESTORE,
				 CAP_OPT_NOAUDIT) ||
	       !security_capable(cred, &init_user_ns, CAP_SYS_ADMIN,
				 CAP_OPT_NOAUDIT);
}

/**
 * kpr_task_prctl() - the task_prctl hook: guard and forget executables
 *                    that prctl() replaces
 * @option: the prctl() option
 * @arg2: its first argument
 * @arg3: unused
 * @arg4: unused
 * @arg5: unused
 *
 * prctl(PR_SET_MM, PR_SET_MM_MAP) lets a task that holds
 * CAP_CHECKPOINT_RESTORE in its own user namespace, which anyone may
 * create, set the executable of its memory. Shared with a process of the
 * initial user namespace, that memory would make that process bind as any
 * program it names, listed or not. So the call is refused to a task
 * outside the initial user namespace whose memory another process may
 * share (mm_shared_with_another_process()); checkpoint/restore of a
 * process alone with its memory, in a container or elsewhere, goes on.
 *
 * The replaced executable's struct file may be freed and its memory reused
 * for another executable while the tasks of the process keep their ids
 * (kpr_kept_id), so a call that may succeed in the initial user namespace
 * forgets every kept id: such calls are rare, and made by privileged
 * checkpoint/restore tools. Tasks outside it keep no ids, and their
 * memory is their own, so their calls forget nothing.
 *
 * This hook runs before prctl() checks anything, for any caller: it does
 * a constant amount of work, and moves the epoch only for a caller that
 * holds the capability the call asks for.
 *
 * Context: process context.
 * Return: -EPERM for a call refused as above; otherwise -ENOSYS, which
 *         lets prctl() go on as if no LSM had looked.
 */
int kpr_task_prctl(int option, unsigned long arg2, unsigned long arg3,
		   unsigned long arg4, unsigned long arg5)
{
	if (!kpr_exe_may_change(option, arg2))
		return -ENOSYS;
	if (!in_initial_user_ns())
		return mm_shared_with_another_process() ? -EPERM : -ENOSYS;
	if (may_set_exe(arg2))
		atomic64_inc(&kpr_exe_epoch);
	return -ENOSYS;
}

/**
 * mnt_ns_of_initial_user_ns() - tell whether current's mount namespace
 *                               belongs to the initial user namespace
 *
 * Only a task privileged there creates or enters such a namespace; one
 * that an unprivileged user created, and filled, belongs to that user's
 * namespace, and a privileged task may still enter it (setns()).
 *
 * Return: true if the initial user namespace owns current's mount
 * namespace.
 */
static bool mnt_ns_of_initial_user_ns(void)
{
	struct ns_common *ns;

	if (!current->nsproxy)
		return false;
	ns = from_mnt_ns(current->nsproxy->mnt_ns);
	return ns->ops->owner(ns) == &init_user_ns;
}

/**
 * exe_path_trusted() - tell whether the executable's path names it
 * @exe: the path of the executable
 *
 * The path of a file is spelled from the root of its mount namespace, and
 * whoever owns that namespace decides what its paths name. An unprivileged
 * user who unshares a user and a mount namespace can mount anything on
 * /usr/sbin and run it, or pass a file from there to another process that
 * executes it. So a path is trusted only when the caller runs in the
 * initial user namespace (the callers check that, in_initial_user_ns()),
 * its mount namespace belongs to that namespace, and the executable lives
 * in that mount namespace (this function checks the last two).
 * Services in private mount namespaces (systemd's PrivateTmp= and
 * ProtectSystem=) and chrooted programs pass.
 *
 * Context: process context; may sleep.
 * Return: true if the path of @exe identifies the program.
 */
static bool exe_path_trusted(const struct path *exe)
{
	struct path root;
	bool trusted;

	if (!current->fs || !mnt_ns_of_initial_user_ns())
		return false;
	get_fs_root(current->fs, &root);
	/* Climb from the (maybe chrooted) root to the namespace's root. */
	while (follow_up(&root))
		;
	dput(root.dentry);
	root.dentry = dget(root.mnt->mnt_root);
	trusted = path_is_under(exe, &root);
	path_put(&root);
	return trusted;
}

/**
 * kpr_caller_init() - find who is binding
 * @c: receives the caller; release with kpr_caller_release()
 *
 * The executable is the file of current->mm. Its dentry keeps its name
 * after the file is unlinked or replaced on disk, so a running program
 * keeps its ports through a package upgrade. The effective ids are those
 * uid= and gid= qualifiers match; the initial user namespace maps every
 * id to itself. The path id is left to kpr_caller_resolve().
 *
 * Context: process context.
 */
void kpr_caller_init(struct kpr_caller *c)
{
	*c = (struct kpr_caller){
		.exe = {
			.path_id = KPR_NO_PATH,
			.uid = __kuid_val(current_euid()),
			.gid = __kgid_val(current_egid()),
		},
	};
	/* A kernel thread has no executable, and so matches no rule. */
	if (!(current->flags & PF_KTHREAD))
		c->file = get_mm_exe_file(current->mm);
}

/**
 * kpr_caller_resolve() - give the caller the path id a policy knows it by
 * @c: the caller
 * @pol: the policy, or NULL
 *
 * Uses the id that the task kept for its executable under @pol or, once
 * kpr_caller_spell() ran, the spelled path, and then keeps its id for the
 * task's next bind. A caller outside the initial user namespace, or acting
 * with credentials of another (in_initial_user_ns()), or whose path cannot
 * be trusted, gets KPR_NO_PATH: it is listed nowhere.
 *
 * Context: rcu_read_lock() held, @pol read under it.
 * Return: false when the path must be spelled first (kpr_caller_spell()).
 */
bool kpr_caller_resolve(struct kpr_caller *c, const struct kpr_policy *pol)
{
	c->exe.path_id = KPR_NO_PATH;
	if (!pol || !c->file || !in_initial_user_ns())
		return true;
	if (!c->spelled)
		return id_load(c->file, pol->generation, &c->exe.path_id);
	if (c->exe.path)
		c->exe.path_id = kpr_policy_path_id(pol, c->exe.path,
						    c->exe.len);
	id_store(c->file, pol->generation, c->exe.path_id);
	return true;
}

/**
 * kpr_caller_spell() - judge and spell the path of the caller's executable
 * @c: the caller
 *
 * A path that can be trusted (exe_path_trusted()) is spelled from the root
 * of its mount namespace, chroot ignored, as d_absolute_path() does; one
 * that cannot is left NULL.
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM when no buffer is free.
 */
int kpr_caller_spell(struct kpr_caller *c)
{
	char *path;

	if (c->spelled || !c->file)
		return 0;
	if (!in_initial_user_ns() || !exe_path_trusted(&c->file->f_path)) {
		c->spelled = true;
		return 0;
	}
	c->buf = __getname();
	if (!c->buf)
		return -ENOMEM;
	c->spelled = true;
	path = d_absolute_path(&c->file->f_path, c->buf, PATH_MAX);
	/* An error: not reachable from a namespace root, no path names it. */
	if (IS_ERR(path))
		return 0;
	c->exe.path = path;
	c->exe.len = c->buf + PATH_MAX - 1 - path;
	return 0;
}

/**
 * kpr_caller_in_cgroup() - tell whether the binding task is in a cgroup
 * @path: the cgroup, as a path from the root of the unified hierarchy
 *        ("/system.slice/foo.service"), canonical and not "/"
 * @len: the length of @path
 *
 * Compares @path, one component at a time, with the names of the
 * ancestors of the task's cgroup in the unified hierarchy, from its first
 * level down: no path is built, and the cost is a few short compares, paid
 * only for rules with cgroup= on the port being bound. The names are the
 * hierarchy's own, whatever cgroup namespace the task is in, and a cgroup
 * of the unified hierarchy cannot be renamed. A task in a cgroup below
 * @path is in it too, so that a service may make cgroups of its own.
 *
 * Context: rcu_read_lock() held, which keeps the task's cgroups.
 * Return: true if the task's cgroup is @path or a descendant of it.
 */
bool kpr_caller_in_cgroup(const char *path, size_t len)
{
#ifdef CONFIG_CGROUPS
	struct cgroup *cgrp = task_dfl_cgroup(current), *ancestor;
	const char *comp = path, *end = path + len, *next;
	char name[NAME_MAX + 1];
	int level = 0, n;

	while (comp < end) {
		comp++;
		next = memchr(comp, '/', end - comp) ?: end;
		ancestor = cgroup_ancestor(cgrp, ++level);
		if (!ancestor)
			return false;
		n = cgroup_name(ancestor, name, sizeof(name));
		if (n != next - comp || memcmp(name, comp, n))
			return false;
		comp = next;
	}
	return true;
#else
	/* Without cgroups no task is below the root. */
	return false;
#endif
}

/**
 * kpr_exe_text() - spell an executable for the reports
 * @exe: the executable
 * @text: receives the text, NUL-terminated
 *
 * The one spelling of the kernel log and the denials file: escaped as a
 * policy spells a program (kpr_format_path()), so that it can be copied
 * into one, or "(null)" when no path names it. A path whose escaped form
 * is longer than KPR_EXE_TEXT_LEN loses its beginning to
 * KPR_EXE_TEXT_CUT: the end names the program. Audit records keep
 * audit's own encoding of the whole path (audit.c).
 */
void kpr_exe_text(const struct kpr_exe *exe, char text[KPR_EXE_TEXT_SIZE])
{
	size_t start = exe->len, width = 0, len;
	char *out = text;

	if (!exe->path) {
		strscpy(text, "(null)", KPR_EXE_TEXT_SIZE);
		return;
	}
	/* Escaping is byte by byte: find the longest tail that fits. */
	while (start) {
		len = kpr_format_path(exe->path + start - 1, 1, NULL, 0);
		if (width + len > KPR_EXE_TEXT_LEN)
			break;
		width += len;
		start--;
	}
	if (start) {
		memcpy(out, KPR_EXE_TEXT_CUT, sizeof(KPR_EXE_TEXT_CUT) - 1);
		out += sizeof(KPR_EXE_TEXT_CUT) - 1;
	}
	kpr_format_path(exe->path + start, exe->len - start, out, width);
	out[width] = '\0';
}

/**
 * kpr_caller_release() - drop what kpr_caller_init() and
 *                        kpr_caller_spell() took
 * @c: the caller
 */
void kpr_caller_release(struct kpr_caller *c)
{
	if (c->buf)
		__putname(c->buf);
	if (c->file)
		fput(c->file);
}
