// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve logging and audit records.
 *
 * Denials go to the kernel log, rate-limited, and to audit as
 * AUDIT_KPORTRESERVE_ACCESS. Policy loads and changes of mode and lock go
 * to audit as AUDIT_KPORTRESERVE_POLICY_LOAD and
 * AUDIT_KPORTRESERVE_CONFIG_CHANGE, with the auid and session of who made
 * them, as IPE records its own.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/audit.h>
#include <linux/cred.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include "audit.h"
#include "control.h"

/* A record of TYPE, or NULL when audit is off or out of memory. */
static struct audit_buffer *record_start(int type)
{
	if (!audit_enabled)
		return NULL;
	return audit_log_start(audit_context(), GFP_KERNEL, type);
}

static const char *exe_name(const struct kpr_exe *exe)
{
	return exe->kernel ? KPR_KERNEL_NAME : "?";
}

static void log_denied(const struct kpr_bind *b, const struct kpr_exe *exe,
		       bool permissive)
{
	const char *verdict = permissive ? "would deny" : "denied";

	if (exe->path)
		pr_notice_ratelimited("%s bind to %u/%s: pid=%d comm=%s exe=%*pE\n",
				      verdict, b->port, kpr_proto_name(b->proto),
				      task_tgid_nr(current), current->comm,
				      (int)exe->len, exe->path);
	else
		pr_notice_ratelimited("%s bind to %u/%s: pid=%d comm=%s exe=%s\n",
				      verdict, b->port, kpr_proto_name(b->proto),
				      task_tgid_nr(current), current->comm,
				      exe_name(exe));
}

static void audit_laddr(struct audit_buffer *ab, const struct kpr_bind *b)
{
	if (b->family == AF_INET6)
		audit_log_format(ab, " laddr=%pI6c", b->addr);
	else
		audit_log_format(ab, " laddr=%pI4", b->addr);
}

/**
 * kpr_audit_denied() - report a bind refused, or that would be refused
 * @b: the bind
 * @exe: who tried it
 * @permissive: the bind was allowed because of permissive mode
 *
 * Writes a rate-limited kernel log line and, when audit is enabled, an
 * AUDIT_KPORTRESERVE_ACCESS record.
 *
 * Context: process context.
 */
void kpr_audit_denied(const struct kpr_bind *b, const struct kpr_exe *exe,
		      bool permissive)
{
	struct audit_buffer *ab;

	log_denied(b, exe, permissive);
	ab = record_start(AUDIT_KPORTRESERVE_ACCESS);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=kportreserve op=bind proto=%s port=%u",
			 kpr_proto_name(b->proto), b->port);
	audit_laddr(ab, b);
	audit_log_format(ab, " pid=%d uid=%u comm=", task_tgid_nr(current),
			 exe->uid);
	audit_log_untrustedstring(ab, current->comm);
	audit_log_format(ab, " exe=");
	if (exe->path)
		audit_log_n_untrustedstring(ab, exe->path, exe->len);
	else
		audit_log_format(ab, "%s", exe_name(exe));
	audit_log_format(ab, " permissive=%d res=%d", permissive, permissive);
	audit_log_end(ab);
}

/* Who made a change: the auid, session and pid, as IPE records them. */
static void audit_subject(struct audit_buffer *ab, int err)
{
	audit_log_format(ab, " pid=%d auid=%u ses=%u lsm=kportreserve res=%d",
			 task_tgid_nr(current),
			 from_kuid(&init_user_ns, audit_get_loginuid(current)),
			 audit_get_sessionid(current), !err);
	if (err)
		audit_log_format(ab, " errno=%d", err);
}

/**
 * kpr_audit_policy_load() - record a policy load, or its refusal
 * @pol: the policy
 * @err: 0 if it was put in force, else why not
 *
 * Context: process context.
 */
void kpr_audit_policy_load(const struct kpr_policy *pol, int err)
{
	struct audit_buffer *ab;

	ab = record_start(AUDIT_KPORTRESERVE_POLICY_LOAD);
	if (!ab)
		return;
	audit_log_format(ab, "op=load generation=%llu rules=%zu ports=%u",
			 err ? 0 : pol->generation, pol->rs.nr_rules,
			 pol->nr_ports);
	audit_subject(ab, err);
	audit_log_end(ab);
}

/**
 * kpr_audit_mode() - record a change of mode, or its refusal
 * @permissive: the mode asked for
 * @old_permissive: the mode before
 * @err: 0 if the mode was set, else why not
 *
 * Context: process context.
 */
void kpr_audit_mode(bool permissive, bool old_permissive, int err)
{
	struct audit_buffer *ab;

	ab = record_start(AUDIT_KPORTRESERVE_CONFIG_CHANGE);
	if (!ab)
		return;
	audit_log_format(ab, "op=setmode mode=%s old_mode=%s",
			 kpr_mode_name(permissive),
			 kpr_mode_name(old_permissive));
	audit_subject(ab, err);
	audit_log_end(ab);
}

/**
 * kpr_audit_lock() - record that policy and mode were locked
 * @err: 0 if the lock was set, else why not
 *
 * Context: process context.
 */
void kpr_audit_lock(int err)
{
	struct audit_buffer *ab;

	ab = record_start(AUDIT_KPORTRESERVE_CONFIG_CHANGE);
	if (!ab)
		return;
	audit_log_format(ab, "op=lock locked=1");
	audit_subject(ab, err);
	audit_log_end(ab);
}
