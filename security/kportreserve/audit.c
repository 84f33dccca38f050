// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve logging and audit records.
 *
 * Denials go to the kernel log, rate-limited, and to audit as
 * AUDIT_KPORTRESERVE_ACCESS, the one record type of kportreserve's own.
 * It carries what only kportreserve knows: the port, its protocol (by
 * number, as audit's tools read a proto field), the address and the mode.
 * Who made the call is in the SYSCALL record of the same event, as for
 * Landlock's records. Changes use the types that SELinux and IPE use for
 * theirs: AUDIT_MAC_POLICY_LOAD for a policy load, with the digest of the
 * policy, AUDIT_MAC_STATUS for a change of mode, AUDIT_MAC_CONFIG_CHANGE
 * for the lock; they name who made the change by auid and session, and
 * the load and the lock by pid as well, as a load can be committed after
 * its writer's last system call on the file (see fs.c).
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/audit.h>
#include <linux/cred.h>
#include <linux/in.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "audit.h"

/* A record of TYPE, or NULL when audit is off or out of memory. */
static struct audit_buffer *record_start(int type)
{
	if (!audit_enabled)
		return NULL;
	return audit_log_start(audit_context(), GFP_KERNEL, type);
}

/*
 * The caller's name, copied once: a sibling thread may rename it while a
 * report is written (see lsm_audit.c).
 */
static void snapshot_comm(char comm[TASK_COMM_LEN])
{
	memcpy(comm, current->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = '\0';
}

/*
 * The kernel log's lines of denials, rate-limited as pr_notice_ratelimited()
 * does, but with a name of our own: its "N callbacks suppressed" line says
 * "kportreserve: denials", not the name of a static function.
 */
static DEFINE_RATELIMIT_STATE(kpr_denial_log, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

static void log_denied(const struct kpr_bind *b, const char *text,
		       const char *comm, bool permissive)
{
	if (!___ratelimit(&kpr_denial_log, "kportreserve: denials"))
		return;
	pr_notice("%s bind to %u/%s: pid=%d comm=%s exe=%s\n",
		  permissive ? "would deny" : "denied", b->port,
		  kpr_proto_name(b->proto), task_tgid_nr(current), comm, text);
}

static void audit_laddr(struct audit_buffer *ab, const struct kpr_bind *b)
{
	if (b->family == AF_INET6)
		audit_log_format(ab, " laddr=%pI6c", b->addr);
	else
		audit_log_format(ab, " laddr=%pI4", b->addr);
}

/* The IANA number of a protocol of the policy, as audit's proto field. */
static unsigned int proto_number(enum kpr_proto proto)
{
	switch (proto) {
	case KPR_PROTO_UDP:
		return IPPROTO_UDP;
	case KPR_PROTO_SCTP:
		return IPPROTO_SCTP;
	default:
		return IPPROTO_TCP;
	}
}

/**
 * kpr_audit_denied() - report a bind refused, or that would be refused
 * @b: the bind
 * @text: the caller's executable as kpr_exe_text() spells it, for the
 *        kernel log
 * @permissive: the bind was allowed because of permissive mode
 *
 * Writes a rate-limited kernel log line and, when audit is enabled, an
 * AUDIT_KPORTRESERVE_ACCESS record. The record does not repeat the ids,
 * command and executable of the caller, which the SYSCALL record of the
 * same event carries; proto is the number of the protocol whose rules
 * refused the bind (6 for TCP, MPTCP and SMC, 17 for UDP, 132 for SCTP).
 *
 * Context: process context.
 */
void kpr_audit_denied(const struct kpr_bind *b, const char *text,
		      bool permissive)
{
	char comm[TASK_COMM_LEN];
	struct audit_buffer *ab;

	snapshot_comm(comm);
	log_denied(b, text, comm, permissive);
	ab = record_start(AUDIT_KPORTRESERVE_ACCESS);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=kportreserve op=bind proto=%u lport=%u",
			 proto_number(b->proto), b->port);
	audit_laddr(ab, b);
	audit_log_format(ab, " permissive=%d res=%d", permissive, permissive);
	audit_log_end(ab);
}

/**
 * kpr_subject_current() - name the current task as the maker of a change
 * @who: receives its pid, auid and session
 */
void kpr_subject_current(struct kpr_subject *who)
{
	who->pid = task_tgid_nr(current);
	who->auid = audit_get_loginuid(current);
	who->ses = audit_get_sessionid(current);
}

/* Who made a change: the pid, auid and session, as IPE records them. */
static void audit_subject(struct audit_buffer *ab,
			  const struct kpr_subject *who, int err)
{
	audit_log_format(ab, " pid=%d auid=%u ses=%u lsm=kportreserve res=%d",
			 who->pid, from_kuid(&init_user_ns, who->auid),
			 who->ses, !err);
	if (err)
		audit_log_format(ab, " errno=%d", err);
}

/**
 * kpr_audit_policy_load() - record a policy load, or its refusal
 * @pol: the policy
 * @who: who loaded it
 * @err: 0 if it was put in force, else why not
 *
 * An AUDIT_MAC_POLICY_LOAD record, the type SELinux gives its loads, with
 * the fields IPE gives its own (policy_digest=, errno= on failure).
 *
 * Context: process context.
 */
void kpr_audit_policy_load(const struct kpr_policy *pol,
			   const struct kpr_subject *who, int err)
{
	struct audit_buffer *ab;

	ab = record_start(AUDIT_MAC_POLICY_LOAD);
	if (!ab)
		return;
	audit_log_format(ab, "op=load generation=%llu rules=%zu ports=%u",
			 err ? 0 : pol->generation, pol->rs.nr_rules,
			 pol->nr_ports);
	audit_log_format(ab, " policy_digest=sha256:%*phN",
			 (int)sizeof(pol->digest), pol->digest);
	audit_subject(ab, who, err);
	audit_log_end(ab);
}

/**
 * kpr_audit_mode() - record a change of mode, or its refusal
 * @permissive: the mode asked for
 * @old_permissive: the mode before
 * @err: 0 if the mode was set, else why not
 *
 * An AUDIT_MAC_STATUS record, as SELinux and IPE write for their own
 * enforcing switch.
 *
 * Context: process context.
 */
void kpr_audit_mode(bool permissive, bool old_permissive, int err)
{
	struct audit_buffer *ab;

	ab = record_start(AUDIT_MAC_STATUS);
	if (!ab)
		return;
	audit_log_format(ab, "enforcing=%d old_enforcing=%d auid=%u ses=%u",
			 !permissive, !old_permissive,
			 from_kuid(&init_user_ns, audit_get_loginuid(current)),
			 audit_get_sessionid(current));
	audit_log_format(ab, " enabled=1 old-enabled=1 lsm=kportreserve res=%d",
			 !err);
	audit_log_end(ab);
}

/**
 * kpr_audit_lock() - record that policy and mode were locked
 * @err: 0 if the lock was set, else why not
 *
 * An AUDIT_MAC_CONFIG_CHANGE record, the type SELinux gives a change of a
 * boolean, with the old value and the new one as it gives them.
 *
 * Context: process context.
 */
void kpr_audit_lock(int err)
{
	struct kpr_subject who;
	struct audit_buffer *ab;

	ab = record_start(AUDIT_MAC_CONFIG_CHANGE);
	if (!ab)
		return;
	kpr_subject_current(&who);
	audit_log_format(ab, "op=lock locked=1 old_locked=0");
	audit_subject(ab, &who, err);
	audit_log_end(ab);
}
