// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve mode and lock: what an administrator may change, and when.
 *
 * In enforce mode (the default) a bind to a port reserved for other
 * programs fails; in permissive mode it is logged and counted as a
 * would-be denial, and allowed, so that a new policy can be tried on a
 * running system. The lock is a one-way switch: once set, neither the
 * policy nor the mode changes until reboot, even for root.
 *
 * Boot parameters (see kportreserve.c):
 *   kportreserve.mode=enforce|permissive   the mode at boot
 *   kportreserve.lock=1                    lock with the first policy in
 *                                          force: the boot policy, else
 *                                          the first one loaded
 *
 * A lock that would fix the empty policy (no boot policy is built in, or
 * it did not load) would reserve nothing until reboot, which nobody asks
 * for on purpose: so kportreserve.lock=1 waits for a policy, as IMA's
 * policy file takes one policy and no other without
 * CONFIG_IMA_WRITE_POLICY.
 *
 * Locking: kpr_control_lock serialises every change of policy, mode and
 * lock, so that no change slips in after the lock is set, and the first
 * load under kportreserve.lock=1 locks in the same critical section.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "audit.h"
#include "control.h"
#include "denials.h"

bool kpr_permissive __read_mostly;
static bool kpr_locked;
static bool kpr_lock_at_boot;
/* kportreserve.lock=1 and no policy in force yet: lock at the first load. */
static bool kpr_lock_armed;
/* Serialises every change of policy, mode and lock; see above. */
DEFINE_MUTEX(kpr_control_lock);

/**
 * kpr_parse_mode() - read the name of a mode
 * @word: "enforce" or "permissive"
 * @permissive: receives the mode
 *
 * Return: 0 or -EINVAL.
 */
int kpr_parse_mode(const char *word, bool *permissive)
{
	if (!strcmp(word, "permissive"))
		*permissive = true;
	else if (!strcmp(word, "enforce"))
		*permissive = false;
	else
		return -EINVAL;
	return 0;
}

/**
 * kpr_param_mode() - take kportreserve.mode= from the command line
 * @val: "enforce" or "permissive"
 *
 * Context: boot, before the LSM initialises.
 * Return: 0 or -EINVAL.
 */
int kpr_param_mode(const char *val)
{
	return kpr_parse_mode(val, &kpr_permissive);
}

/**
 * kpr_param_lock() - take kportreserve.lock= from the command line
 * @val: a boolean, as kstrtobool() reads it
 *
 * Context: boot, before the LSM initialises.
 * Return: 0 or -EINVAL.
 */
int kpr_param_lock(const char *val)
{
	return kstrtobool(val, &kpr_lock_at_boot);
}

/**
 * kpr_mode_name() - the name of a mode, as the "mode" file spells it
 * @permissive: the mode
 *
 * Return: "permissive" or "enforce".
 */
const char *kpr_mode_name(bool permissive)
{
	return permissive ? "permissive" : "enforce";
}

/**
 * kpr_is_locked() - tell whether policy and mode are fixed until reboot
 *
 * Return: true once locked.
 */
bool kpr_is_locked(void)
{
	return READ_ONCE(kpr_locked);
}

/*
 * Set the lock and say so. Called with kpr_control_lock held, so that no
 * change of policy or mode is made after it.
 */
static void lock_now(void)
{
	lockdep_assert_held(&kpr_control_lock);
	kpr_lock_armed = false;
	if (kpr_locked)
		return;
	WRITE_ONCE(kpr_locked, true);
	pr_notice("locked: policy and mode (%s) fixed until reboot\n",
		  kpr_mode_name(kpr_permissive));
	kpr_audit_lock(0);
}

/* Why a commit is refused, or 0: the lock, or a load that overtook it. */
static int may_commit(const u64 *base)
{
	u64 now;

	if (kpr_locked) {
		pr_warn("policy is locked until reboot (kportreserve.lock); policy unchanged\n");
		return -EPERM;
	}
	now = kpr_policy_generation();
	if (base && *base != now) {
		pr_warn("load for generation %llu, but generation %llu is in force; policy unchanged\n",
			*base, now);
		return -ESTALE;
	}
	return 0;
}

/**
 * commit_policy() - put a built policy in force, unless refused
 * @pol: the policy; on success it belongs to the module, on error it is
 *       still the caller's to free
 * @base: for a conditional load, the generation that must still be in
 *        force; NULL for none
 * @who: who loads it, for the audit record; NULL for the current task
 *
 * Under kportreserve.lock=1 with no policy in force before, the policy
 * put in force locks itself and the mode, before anything else can
 * change them.
 *
 * Context: process context; takes kpr_control_lock.
 * Return: 0, -EPERM when the policy is locked, or -ESTALE when the
 * generation in force is not @base.
 */
static int commit_policy(struct kpr_policy *pol, const u64 *base,
			 const struct kpr_subject *who)
{
	struct kpr_subject self;
	int err;

	if (!who) {
		kpr_subject_current(&self);
		who = &self;
	}
	mutex_lock(&kpr_control_lock);
	err = may_commit(base);
	if (!err) {
		kpr_policy_activate(pol);
		pr_info("policy generation %llu loaded: %zu rules, %u ports\n",
			pol->generation, pol->rs.nr_rules, pol->nr_ports);
		/* Still in force: only a later commit can replace it. */
		kpr_denials_prune(pol);
	}
	kpr_audit_policy_load(pol, who, err);
	if (!err && kpr_lock_armed)
		lock_now();
	mutex_unlock(&kpr_control_lock);
	return err;
}

/**
 * kpr_load_policy() - build parsed rules into a policy and put it in force
 * @rs: the rules, in canonical order (kpr_parser_finish()); they are moved
 *      into the policy, or freed
 * @base: for a conditional load, the generation that must still be in
 *        force; NULL for none
 * @who: who loads it, for the audit record; NULL for the current task
 *
 * The one way a policy comes into force: the "policy" and "load" files
 * and the boot policy all end here. Why a policy was refused is said in the
 * kernel log, and the policy in force stays.
 *
 * Context: process context; takes kpr_control_lock.
 * Return: 0; -E2BIG when the ranges overlap too much or -ENOMEM when the
 * policy does not fit in memory; or why the commit was refused
 * (commit_policy()).
 */
int kpr_load_policy(struct kpr_ruleset *rs, const u64 *base,
		    const struct kpr_subject *who)
{
	struct kpr_policy *pol;
	int err;

	pol = kpr_policy_build(rs);
	if (IS_ERR(pol)) {
		kpr_ruleset_destroy(rs);
		pr_err("policy %s; policy unchanged\n",
		       PTR_ERR(pol) == -E2BIG ?
		       "ranges overlap too much (limit 4194304 port-program pairs)" :
		       "does not fit in memory");
		return PTR_ERR(pol);
	}
	err = commit_policy(pol, base, who);
	if (err)
		kpr_policy_free(pol);
	return err;
}

/**
 * kpr_set_mode() - switch between enforce and permissive mode
 * @permissive: the new mode
 *
 * Context: process context; takes kpr_control_lock.
 * Return: 0, or -EPERM when locked.
 */
int kpr_set_mode(bool permissive)
{
	bool old;
	int err = 0;

	mutex_lock(&kpr_control_lock);
	old = kpr_permissive;
	if (kpr_locked) {
		pr_warn("mode is locked until reboot (kportreserve.lock); mode stays %s\n",
			kpr_mode_name(old));
		err = -EPERM;
	} else {
		WRITE_ONCE(kpr_permissive, permissive);
		if (old != permissive)
			pr_notice("mode: %s\n", kpr_mode_name(permissive));
	}
	kpr_audit_mode(permissive, old, err);
	mutex_unlock(&kpr_control_lock);
	return err;
}

/**
 * kpr_set_lock() - fix the policy and the mode until reboot
 *
 * Locking twice is not an error.
 *
 * Context: process context; takes kpr_control_lock.
 * Return: 0.
 */
int kpr_set_lock(void)
{
	mutex_lock(&kpr_control_lock);
	lock_now();
	mutex_unlock(&kpr_control_lock);
	return 0;
}

/**
 * kpr_control_boot() - apply kportreserve.lock=1, after the boot policy
 *
 * With a boot policy in force, the lock is set now, before init runs.
 * Without one (none is built in, or it did not load) it waits for the
 * first policy loaded through the policy file (commit_policy()).
 *
 * Context: late init, before user space runs.
 */
void __init kpr_control_boot(void)
{
	if (kpr_permissive)
		pr_notice("mode: permissive\n");
	if (!kpr_lock_at_boot)
		return;
	mutex_lock(&kpr_control_lock);
	if (kpr_policy_generation()) {
		lock_now();
	} else {
		kpr_lock_armed = true;
		pr_notice("kportreserve.lock=1 and no boot policy in force: policy and mode lock with the first policy loaded\n");
	}
	mutex_unlock(&kpr_control_lock);
}
