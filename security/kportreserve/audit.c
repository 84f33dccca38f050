// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve logging and audit records.
 */

#define pr_fmt(fmt) "kportreserve: " fmt

#include <linux/audit.h>
#include <linux/printk.h>
#include <linux/sched.h>

#include "audit.h"

static const char *exe_name(const struct kpr_exe *exe)
{
	return exe->kernel ? KPR_KERNEL_NAME : "?";
}

/**
 * kpr_audit_denied() - report a refused bind
 * @proto: the protocol
 * @port: the port, in host order
 * @exe: who tried to bind it
 *
 * Writes a rate-limited kernel log line and, when audit is enabled, an
 * AUDIT_KPORTRESERVE_ACCESS record.
 *
 * Context: process context.
 */
void kpr_audit_denied(enum kpr_proto proto, u16 port,
		      const struct kpr_exe *exe)
{
	struct audit_buffer *ab;

	if (exe->path)
		pr_notice_ratelimited("denied bind to %u/%s: pid=%d comm=%s exe=%*pE\n",
				      port, kpr_proto_name(proto),
				      task_pid_nr(current), current->comm,
				      (int)exe->len, exe->path);
	else
		pr_notice_ratelimited("denied bind to %u/%s: pid=%d comm=%s exe=%s\n",
				      port, kpr_proto_name(proto),
				      task_pid_nr(current), current->comm,
				      exe_name(exe));

	if (!audit_enabled)
		return;
	ab = audit_log_start(audit_context(), GFP_KERNEL,
			     AUDIT_KPORTRESERVE_ACCESS);
	if (!ab)
		return;
	audit_log_format(ab, "lsm=kportreserve op=bind port=%u proto=%s pid=%d comm=",
			 port, kpr_proto_name(proto), task_pid_nr(current));
	audit_log_untrustedstring(ab, current->comm);
	audit_log_format(ab, " exe=");
	if (exe->path)
		audit_log_n_untrustedstring(ab, exe->path, exe->len);
	else
		audit_log_format(ab, "%s", exe_name(exe));
	audit_log_format(ab, " res=0");
	audit_log_end(ab);
}
