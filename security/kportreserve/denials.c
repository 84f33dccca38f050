// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve per-port denial figures and the securityfs "denials" file.
 *
 * When a service fails to start with EADDRINUSE, the administrator's first
 * question is who holds, or tried to take, its port. For each port and
 * protocol that saw a denial since boot, this keeps how many binds were
 * refused (and, in permissive mode, would have been), and the pid and
 * executable of the last one. At most 3 * 65536 entries exist; an entry
 * that cannot be allocated is simply not kept.
 *
 * Locking: kpr_denials_lock (a mutex: both writers and the reader may
 * sleep) protects the entries; the xarray has its own lock.
 */

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "denials.h"

/**
 * struct kpr_denial - the denials of one port and protocol
 * @denied: binds refused
 * @would_deny: binds permissive mode allowed that enforce mode refuses
 * @pid: the process id of the last one
 * @exe: the executable of the last one, escaped as in a policy
 */
struct kpr_denial {
	u64 denied;
	u64 would_deny;
	pid_t pid;
	char *exe;
};

static DEFINE_XARRAY(kpr_denials);
static DEFINE_MUTEX(kpr_denials_lock);

/* Ordered by port first, so the file lists a port's protocols together. */
static unsigned long denial_index(enum kpr_proto proto, u16 port)
{
	return (unsigned long)port * KPR_NR_PROTOS + proto;
}

static char *exe_text(const struct kpr_exe *exe)
{
	size_t len;
	char *text;

	if (!exe->path)
		return kstrdup(exe->kernel ? KPR_KERNEL_NAME : "?", GFP_KERNEL);
	len = kpr_format_path(exe->path, exe->len, NULL, 0);
	text = kmalloc(len + 1, GFP_KERNEL);
	if (text) {
		kpr_format_path(exe->path, exe->len, text, len);
		text[len] = '\0';
	}
	return text;
}

static struct kpr_denial *find_or_add(unsigned long index)
{
	struct kpr_denial *d = xa_load(&kpr_denials, index);

	if (d)
		return d;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	if (xa_err(xa_store(&kpr_denials, index, d, GFP_KERNEL))) {
		kfree(d);
		return NULL;
	}
	return d;
}

/**
 * kpr_denials_record() - count a denial against its port
 * @b: the bind that was refused, or would have been
 * @exe: who asked for it
 * @permissive: the bind was let through by permissive mode
 *
 * Context: process context; takes kpr_denials_lock.
 */
void kpr_denials_record(const struct kpr_bind *b, const struct kpr_exe *exe,
			bool permissive)
{
	char *text = exe_text(exe);
	struct kpr_denial *d;

	mutex_lock(&kpr_denials_lock);
	d = find_or_add(denial_index(b->proto, b->port));
	if (d) {
		if (permissive)
			d->would_deny++;
		else
			d->denied++;
		d->pid = task_tgid_nr(current);
		if (text)
			swap(d->exe, text);
	}
	mutex_unlock(&kpr_denials_lock);
	kfree(text);
}

/**
 * kpr_denials_show() - print the "denials" file
 * @m: the seq_file
 * @v: unused
 *
 * One line per port and protocol that saw a denial:
 * "PORT/PROTO denied=N would_deny=N pid=PID exe=PATH".
 *
 * Context: process context; takes kpr_denials_lock.
 * Return: 0.
 */
int kpr_denials_show(struct seq_file *m, void *v)
{
	struct kpr_denial *d;
	unsigned long index;

	mutex_lock(&kpr_denials_lock);
	xa_for_each(&kpr_denials, index, d)
		seq_printf(m, "%lu/%s denied=%llu would_deny=%llu pid=%d exe=%s\n",
			   index / KPR_NR_PROTOS,
			   kpr_proto_name(index % KPR_NR_PROTOS),
			   d->denied, d->would_deny, d->pid,
			   d->exe ? d->exe : "?");
	mutex_unlock(&kpr_denials_lock);
	return 0;
}
