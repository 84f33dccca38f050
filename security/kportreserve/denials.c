// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve per-port denial figures and the securityfs "denials" file.
 *
 * When a service fails to start with EADDRINUSE, the administrator's first
 * question is who holds, or tried to take, its port. For each reserved
 * port and protocol that saw a denial, this keeps how many binds were
 * refused (and, in permissive mode, would have been), and the pid and
 * executable of the last one.
 *
 * Any user can cause denials, so what they cost is bounded: an entry is a
 * small fixed size, with the executable cut to its last
 * KPR_EXE_TEXT_LEN bytes (kpr_exe_text()), charged to the memory cgroup of the task that
 * was denied; a port has at most one entry per protocol, and a policy load
 * drops the entries of ports it no longer reserves. The file names other
 * users' processes, so only root reads it.
 *
 * Locking: the xarray's own lock orders insertions, which refused binds
 * make, and removals, which only a policy load makes (under
 * kpr_control_lock); readers find entries under RCU and entries are freed
 * after a grace period. kpr_denials_lock,
 * a spinlock held for a few stores or loads, keeps each entry's figures
 * consistent, so that reading the file never holds up a bind.
 */

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "denials.h"
#include "identity.h"

/**
 * struct kpr_denial - the denials of one port and protocol
 * @denied: binds refused
 * @would_deny: binds permissive mode allowed that enforce mode refuses
 * @pid: the process id of the last one
 * @port: the port
 * @proto: the protocol
 * @exe: the executable of the last one, as kpr_exe_text() spells it
 * @rcu: frees the entry after readers are done
 */
struct kpr_denial {
	u64 denied;
	u64 would_deny;
	pid_t pid;
	u16 port;
	u8 proto;
	char exe[KPR_EXE_TEXT_SIZE];
	struct rcu_head rcu;
};

static DEFINE_XARRAY(kpr_denials);
static DEFINE_SPINLOCK(kpr_denials_lock);

/* Ordered by port first, so the file lists a port's protocols together. */
static unsigned long denial_index(enum kpr_proto proto, u16 port)
{
	return (unsigned long)port * KPR_NR_PROTOS + proto;
}

static void count(struct kpr_denial *d, bool permissive, const char *exe)
{
	if (permissive)
		d->would_deny++;
	else
		d->denied++;
	d->pid = task_tgid_nr(current);
	strscpy(d->exe, exe, sizeof(d->exe));
}

/* Count the denial in the entry of @index, if there is one. */
static bool count_existing(unsigned long index, bool permissive,
			   const char *exe)
{
	struct kpr_denial *d;

	rcu_read_lock();
	d = xa_load(&kpr_denials, index);
	if (d) {
		spin_lock(&kpr_denials_lock);
		count(d, permissive, exe);
		spin_unlock(&kpr_denials_lock);
	}
	rcu_read_unlock();
	return d;
}

/**
 * kpr_denials_record() - count a denial against its port
 * @b: the bind that was refused, or would have been
 * @exe: who asked for it, as kpr_exe_text() spells it
 * @permissive: the bind was let through by permissive mode
 *
 * A denial that finds no memory for its entry is not kept.
 *
 * Context: process context; may sleep.
 */
void kpr_denials_record(const struct kpr_bind *b, const char *exe,
			bool permissive)
{
	unsigned long index = denial_index(b->proto, b->port);
	struct kpr_denial *d, *old;

	if (count_existing(index, permissive, exe))
		return;
	d = kzalloc_obj(*d, GFP_KERNEL_ACCOUNT);
	if (!d)
		return;
	d->port = b->port;
	d->proto = b->proto;
	count(d, permissive, exe);
	old = xa_cmpxchg(&kpr_denials, index, NULL, d, GFP_KERNEL_ACCOUNT);
	if (!old)
		return;
	kfree(d);
	/* Another denial of the same port was first. */
	if (!xa_is_err(old))
		count_existing(index, permissive, exe);
}

/**
 * kpr_denials_prune() - forget the ports a new policy does not reserve
 * @pol: the policy now in force
 *
 * A denial decided under the old policy may still add an entry for such
 * a port; the next load drops it.
 *
 * Context: process context; kpr_control_lock held, which keeps @pol in
 * force.
 */
void kpr_denials_prune(const struct kpr_policy *pol)
{
	struct kpr_denial *d;
	unsigned long index;

	xa_for_each(&kpr_denials, index, d) {
		if (kpr_policy_reserves(pol, d->proto, d->port))
			continue;
		xa_erase(&kpr_denials, index);
		kfree_rcu(d, rcu);
		cond_resched();
	}
}

static void *denials_find(loff_t *pos)
{
	unsigned long index = *pos;
	void *d;

	if (*pos < 0 || *pos >= KPR_NR_PORTS * KPR_NR_PROTOS)
		return NULL;
	d = xa_find(&kpr_denials, &index, ULONG_MAX, XA_PRESENT);
	if (d)
		*pos = index;
	return d;
}

static void *denials_start(struct seq_file *m, loff_t *pos)
	__acquires(RCU)
{
	rcu_read_lock();
	return denials_find(pos);
}

static void *denials_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return denials_find(pos);
}

static void denials_stop(struct seq_file *m, void *v)
	__releases(RCU)
{
	rcu_read_unlock();
}

/* "PORT/PROTO denied=N would_deny=N pid=PID exe=PATH" */
static int denials_show(struct seq_file *m, void *v)
{
	const struct kpr_denial *d = v;
	struct kpr_denial copy;

	spin_lock(&kpr_denials_lock);
	copy = *d;
	spin_unlock(&kpr_denials_lock);
	seq_printf(m, "%u/%s denied=%llu would_deny=%llu pid=%d exe=%s\n",
		   copy.port, kpr_proto_name(copy.proto), copy.denied,
		   copy.would_deny, copy.pid, copy.exe);
	return 0;
}

/* The "denials" file, one line per port and protocol, in port order. */
const struct seq_operations kpr_denials_sops = {
	.start = denials_start,
	.next = denials_next,
	.stop = denials_stop,
	.show = denials_show,
};
