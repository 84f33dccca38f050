// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve policy: build the lookup structure from a ruleset, swap it
 * in under RCU, answer "may this program bind this port".
 *
 * Locking: kpr_control_lock (control.c), which also serialises changes of
 * mode and lock, serialises writers; readers hold rcu_read_lock() and
 * never write to the policy. A replaced policy is freed after a grace
 * period from a workqueue, because freeing vmalloc'd memory may sleep.
 */

#include <crypto/sha2.h>
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "autobind.h"
#include "identity.h"
#include "policy.h"

struct kpr_policy __rcu *kpr_active_policy;
/*
 * The ports of the policy in force for any protocol, outside RCU: see
 * kpr_port_may_be_reserved(). Written under kpr_control_lock.
 */
unsigned long kpr_reserved_any[BITS_TO_LONGS(KPR_NR_PORTS)];

/**
 * struct kpr_event - a rule's range opening or closing during the sweep
 * @port: first port the change applies to; KPR_NR_PORTS past the end
 * @prog: id of the rule's program
 * @delta: +1 where the range opens, -1 where it closes
 */
struct kpr_event {
	u32 port;
	u32 prog;
	int delta;
};

/**
 * struct kpr_sweep - the programs whose ranges cover the current port
 * @count: per program id, number of its open ranges
 * @active: ids of the programs with an open range, in no order
 * @pos: per program id, its index in @active
 * @nr_active: number of entries in @active
 * @entries: program references in all sets built so far
 */
struct kpr_sweep {
	u32 *count;
	u32 *active;
	u32 *pos;
	u32 nr_active;
	size_t entries;
};

static int compare_events(const void *a, const void *b)
{
	const struct kpr_event *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return 0;
}

static void sweep_apply(struct kpr_sweep *sw, const struct kpr_event *ev)
{
	u32 id = ev->prog;

	if (ev->delta > 0) {
		if (!sw->count[id]++) {
			sw->pos[id] = sw->nr_active;
			sw->active[sw->nr_active++] = id;
		}
	} else if (!--sw->count[id]) {
		u32 last = sw->active[--sw->nr_active];

		sw->active[sw->pos[id]] = last;
		sw->pos[last] = sw->pos[id];
	}
}

/**
 * new_portset() - make a port set of the programs active in a sweep
 * @pol: the policy that will own the set
 * @sw: the sweep
 * @progs: the ruleset's programs indexed by id
 *
 * Return: the set, ERR_PTR(-E2BIG) past KPR_MAX_SET_ENTRIES or
 * ERR_PTR(-ENOMEM).
 */
static struct kpr_portset *new_portset(struct kpr_policy *pol,
				       struct kpr_sweep *sw,
				       const struct kpr_program **progs)
{
	struct kpr_portset *set;
	u32 i;

	sw->entries += sw->nr_active;
	if (sw->entries > KPR_MAX_SET_ENTRIES)
		return ERR_PTR(-E2BIG);
	set = kmalloc(struct_size(set, progs, sw->nr_active),
		      GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->nr = sw->nr_active;
	for (i = 0; i < sw->nr_active; i++)
		set->progs[i] = progs[sw->active[i]];
	set->next = pol->sets;
	pol->sets = set;
	return set;
}

/**
 * reserve_ports() - point a run of ports at a port set
 * @pol: the policy being built
 * @proto: the protocol
 * @first: first port of the run
 * @end: one past the last port of the run
 * @set: the programs that may bind them
 *
 * Return: 0 or -ENOMEM.
 */
static int reserve_ports(struct kpr_policy *pol, enum kpr_proto proto,
			 u32 first, u32 end, const struct kpr_portset *set)
{
	u32 port;

	for (port = first; port < end; port++) {
		const struct kpr_portset ***chunk =
			&pol->chunks[proto][port / KPR_CHUNK_PORTS];

		if (!*chunk) {
			*chunk = kcalloc(KPR_CHUNK_PORTS, sizeof(**chunk),
					 GFP_KERNEL);
			if (!*chunk)
				return -ENOMEM;
		}
		(*chunk)[port % KPR_CHUNK_PORTS] = set;
		__set_bit(port, pol->reserved[proto]);
		if (!(port % KPR_CHUNK_PORTS))
			cond_resched();
	}
	return 0;
}

static u32 path_slot(const struct kpr_policy *pol, u32 hash,
		     const char *path, size_t len)
{
	u32 slot = hash & pol->paths_mask;

	while (pol->paths[slot] && (pol->paths[slot]->len != len ||
				    memcmp(pol->paths[slot]->path, path, len)))
		slot = (slot + 1) & pol->paths_mask;
	return slot;
}

/**
 * build_paths() - number the executable paths of a policy
 * @pol: the policy, whose @rs holds the programs
 *
 * Programs that differ only in their qualifiers share a path. The bind
 * hook looks the caller's path up once per executable and policy
 * (kpr_policy_path_id()) and compares numbers from then on. The table is
 * keyed by the hash the parser gave each program's path.
 *
 * Return: 0 or -ENOMEM.
 */
static int build_paths(struct kpr_policy *pol)
{
	const struct kpr_ruleset *rs = &pol->rs;
	size_t i, size = roundup_pow_of_two(2 * rs->nr_progs + 1);

	pol->path_of = kvmalloc_array(rs->nr_progs + 1, sizeof(u32),
				      GFP_KERNEL);
	pol->paths = kvcalloc(size, sizeof(*pol->paths), GFP_KERNEL);
	if (!pol->path_of || !pol->paths)
		return -ENOMEM;
	pol->paths_mask = size - 1;
	for (i = 0; i < rs->cap_progs; i++) {
		const struct kpr_program *prog = rs->progs[i];
		u32 slot;

		if (!prog)
			continue;
		slot = path_slot(pol, prog->hash, prog->path, prog->len);
		if (!pol->paths[slot])
			pol->paths[slot] = prog;
		pol->path_of[prog->id] = pol->paths[slot]->id;
	}
	return 0;
}

/**
 * kpr_policy_path_id() - find an executable's path in a policy
 * @pol: the policy
 * @path: the absolute path of the executable, not NUL-terminated
 * @len: length of @path
 *
 * Context: rcu_read_lock() held by the caller, or @pol private to it.
 * Return: the id of @path in @pol, or KPR_NO_PATH when no rule names it.
 */
u32 kpr_policy_path_id(const struct kpr_policy *pol, const char *path,
		       size_t len)
{
	u32 slot = path_slot(pol, kpr_path_hash(path, len), path, len);

	return pol->paths[slot] ? pol->paths[slot]->id : KPR_NO_PATH;
}

static size_t collect_events(const struct kpr_ruleset *rs,
			     enum kpr_proto proto, struct kpr_event *ev)
{
	size_t i, n = 0;

	for (i = 0; i < rs->nr_rules; i++) {
		const struct kpr_rule *r = &rs->rules[i];

		if (!(r->protos & BIT(proto)))
			continue;
		ev[n++] = (struct kpr_event){ r->first, r->prog->id, 1 };
		ev[n++] = (struct kpr_event){ r->last + 1U, r->prog->id, -1 };
	}
	return n;
}

/**
 * build_proto() - fill in the ports of one protocol
 * @pol: the policy being built, whose @rs holds the rules
 * @proto: the protocol
 * @ev: scratch array of 2 * nr_rules events
 * @sw: scratch sweep state, zeroed
 * @progs: the ruleset's programs indexed by id
 *
 * Sweeps the ports in order: between two range edges the programs are the
 * same, so each such run of ports shares one set.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
static int build_proto(struct kpr_policy *pol, enum kpr_proto proto,
		       struct kpr_event *ev, struct kpr_sweep *sw,
		       const struct kpr_program **progs)
{
	size_t i = 0, n = collect_events(&pol->rs, proto, ev);

	sort(ev, n, sizeof(*ev), compare_events, NULL);
	while (i < n) {
		u32 first = ev[i].port;
		struct kpr_portset *set;
		int err;

		while (i < n && ev[i].port == first)
			sweep_apply(sw, &ev[i++]);
		cond_resched();
		/* Every open range has a closing event, so i < n here. */
		if (!sw->nr_active)
			continue;
		set = new_portset(pol, sw, progs);
		if (IS_ERR(set))
			return PTR_ERR(set);
		err = reserve_ports(pol, proto, first, ev[i].port, set);
		if (err)
			return err;
	}
	return 0;
}

/**
 * build_ports() - build the bitmaps and port tables of a policy
 * @pol: the policy, whose @rs holds the rules
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
static int build_ports(struct kpr_policy *pol)
{
	const struct kpr_ruleset *rs = &pol->rs;
	const struct kpr_program **progs;
	struct kpr_event *ev;
	struct kpr_sweep sw = {};
	int proto, err = -ENOMEM;
	size_t i;

	ev = kvmalloc_array(2 * rs->nr_rules + 1, sizeof(*ev), GFP_KERNEL);
	progs = kvcalloc(rs->nr_progs + 1, sizeof(*progs), GFP_KERNEL);
	sw.count = kvcalloc(rs->nr_progs + 1, sizeof(u32), GFP_KERNEL);
	sw.active = kvcalloc(rs->nr_progs + 1, sizeof(u32), GFP_KERNEL);
	sw.pos = kvcalloc(rs->nr_progs + 1, sizeof(u32), GFP_KERNEL);
	if (!ev || !progs || !sw.count || !sw.active || !sw.pos)
		goto out;
	for (i = 0; i < rs->cap_progs; i++)
		if (rs->progs[i])
			progs[rs->progs[i]->id] = rs->progs[i];
	for (proto = 0; proto < KPR_NR_PROTOS; proto++) {
		err = build_proto(pol, proto, ev, &sw, progs);
		if (err)
			break;
	}
out:
	kvfree(sw.pos);
	kvfree(sw.active);
	kvfree(sw.count);
	kvfree(progs);
	kvfree(ev);
	return err;
}

/* The ports with a rule for any protocol, and how many they are. */
static void build_any(struct kpr_policy *pol)
{
	int proto;

	for (proto = 0; proto < KPR_NR_PROTOS; proto++)
		bitmap_or(pol->any, pol->any, pol->reserved[proto],
			  KPR_NR_PORTS);
	pol->nr_ports = bitmap_weight(pol->any, KPR_NR_PORTS);
}

/* The audit record of a load names the policy by this digest, as IPE's. */
static void build_digest(struct kpr_policy *pol)
{
	const size_t step = SZ_1M;
	struct sha256_ctx sctx;
	size_t done;

	sha256_init(&sctx);
	for (done = 0; done < pol->text_len; done += step) {
		sha256_update(&sctx, (const u8 *)pol->text + done,
			      min(step, pol->text_len - done));
		cond_resched();
	}
	sha256_final(&sctx, pol->digest);
}

static int build_text(struct kpr_policy *pol)
{
	size_t len = kpr_ruleset_format(&pol->rs, NULL, 0);

	pol->text = kvmalloc(len + 1, GFP_KERNEL);
	if (!pol->text)
		return -ENOMEM;
	kpr_ruleset_format(&pol->rs, pol->text, len);
	pol->text[len] = '\0';
	pol->text_len = len;
	build_digest(pol);
	return 0;
}

/**
 * kpr_policy_build() - build a policy from parsed rules
 * @rs: the rules, canonicalized; moved into the policy on success
 *
 * Context: process context; may sleep.
 * Return: the new policy, not yet published; ERR_PTR(-E2BIG) when the
 * ranges overlap too much, or ERR_PTR(-ENOMEM). On error @rs is untouched.
 */
struct kpr_policy *kpr_policy_build(struct kpr_ruleset *rs)
{
	struct kpr_policy *pol;
	int err;

	pol = kvzalloc_obj(*pol);
	if (!pol)
		return ERR_PTR(-ENOMEM);
	pol->rs = *rs;
	err = build_ports(pol);
	if (!err)
		err = build_paths(pol);
	if (!err)
		err = build_text(pol);
	if (err) {
		memset(&pol->rs, 0, sizeof(pol->rs));
		kpr_policy_free(pol);
		return ERR_PTR(err);
	}
	memset(rs, 0, sizeof(*rs));
	build_any(pol);
	return pol;
}

/**
 * kpr_policy_free() - free a policy that no reader can hold
 * @pol: the policy, or NULL
 *
 * Context: process context; may sleep.
 */
void kpr_policy_free(struct kpr_policy *pol)
{
	int proto, chunk;

	if (!pol)
		return;
	while (pol->sets) {
		struct kpr_portset *set = pol->sets;

		pol->sets = set->next;
		kfree(set);
		cond_resched();
	}
	for (proto = 0; proto < KPR_NR_PROTOS; proto++)
		for (chunk = 0; chunk < KPR_NR_CHUNKS; chunk++)
			kfree(pol->chunks[proto][chunk]);
	kvfree(pol->paths);
	kvfree(pol->path_of);
	kpr_ruleset_destroy(&pol->rs);
	kvfree(pol->text);
	kvfree(pol);
}

static void free_policy_work(struct work_struct *work)
{
	kpr_policy_free(container_of(to_rcu_work(work), struct kpr_policy,
				     free_work));
}

/**
 * kpr_policy_replace() - publish a policy in a slot readers look in
 * @slot: the slot
 * @pol: a policy from kpr_policy_build(); its generation is set to one
 *       more than the replaced policy's
 * @lock: the mutex that serialises the writers of @slot, held
 *
 * Context: process context; @lock held.
 * Return: the replaced policy, or NULL; readers may still hold it.
 */
VISIBLE_IF_KUNIT struct kpr_policy *
kpr_policy_replace(struct kpr_policy __rcu **slot, struct kpr_policy *pol,
		   struct mutex *lock)
{
	struct kpr_policy *old;

	old = rcu_dereference_protected(*slot, lockdep_is_held(lock));
	pol->generation = old ? old->generation + 1 : 1;
	rcu_assign_pointer(*slot, pol);
	return old;
}

/**
 * retire_policy() - free a replaced policy once no reader holds it
 * @pol: the policy, or NULL
 *
 * Context: any context.
 */
static void retire_policy(struct kpr_policy *pol)
{
	if (!pol)
		return;
	INIT_RCU_WORK(&pol->free_work, free_policy_work);
	queue_rcu_work(system_unbound_wq, &pol->free_work);
}

/**
 * publish_reserved_any() - update the bitmap that binds test first
 * @any: the ports of the policy being put in force
 * @add: true to add them to the bitmap, false to make it @any
 *
 * Word by word: a bind reads one word, never the whole bitmap.
 *
 * Context: kpr_control_lock held.
 */
static void publish_reserved_any(const unsigned long *any, bool add)
{
	unsigned int i;

	lockdep_assert_held(&kpr_control_lock);
	for (i = 0; i < BITS_TO_LONGS(KPR_NR_PORTS); i++)
		WRITE_ONCE(kpr_reserved_any[i],
			   add ? kpr_reserved_any[i] | any[i] : any[i]);
}

/**
 * kpr_policy_activate() - put a policy in force
 * @pol: a policy from kpr_policy_build(); owned by the module from now on,
 *       so the caller must not touch it after this returns
 *
 * Binds and automatic port assignments that start after this returns
 * see @pol; the replaced policy is freed once every reader that may hold
 * it is gone.
 *
 * Context: process context; kpr_control_lock held.
 * Return: the generation of @pol.
 */
u64 kpr_policy_activate(struct kpr_policy *pol)
{
	struct kpr_policy *old;
	u64 generation;

	lockdep_assert_held(&kpr_control_lock);
	/*
	 * The new policy's ports are in the bitmap before the policy can be
	 * read (rcu_assign_pointer() orders the stores), and the old one's
	 * leave it after. A bind that runs meanwhile is judged by either
	 * policy; one that starts after this returns, by @pol alone.
	 */
	publish_reserved_any(pol->any, true);
	old = kpr_policy_replace(&kpr_active_policy, pol, &kpr_control_lock);
	publish_reserved_any(pol->any, false);
	kpr_autobind_reserve(pol);
	generation = pol->generation;
	retire_policy(old);
	return generation;
}

/**
 * kpr_policy_generation() - the generation of the policy in force
 *
 * Context: any context.
 * Return: the generation, 0 when no policy was ever loaded.
 */
u64 kpr_policy_generation(void)
{
	const struct kpr_policy *pol;
	u64 generation;

	rcu_read_lock();
	pol = rcu_dereference(kpr_active_policy);
	generation = pol ? pol->generation : 0;
	rcu_read_unlock();
	return generation;
}

/**
 * kpr_policy_text() - copy the canonical text of the policy in force
 * @len: receives the length of the text
 *
 * Context: process context; takes kpr_control_lock, which keeps the policy
 * in force from being replaced, and so freed, while it is copied.
 * Return: a NUL-terminated copy to kvfree(), or NULL when out of memory.
 */
char *kpr_policy_text(size_t *len)
{
	const struct kpr_policy *pol;
	char *text;

	mutex_lock(&kpr_control_lock);
	pol = rcu_dereference_protected(kpr_active_policy,
					lockdep_is_held(&kpr_control_lock));
	*len = pol ? pol->text_len : 0;
	text = kvmalloc(*len + 1, GFP_KERNEL);
	if (text) {
		if (pol)
			memcpy(text, pol->text, *len);
		text[*len] = '\0';
	}
	mutex_unlock(&kpr_control_lock);
	return text;
}

static bool program_matches(const struct kpr_policy *pol,
			    const struct kpr_program *prog,
			    const struct kpr_exe *exe)
{
	/* <kernel>: kernel sockets are never checked, so nobody else may. */
	if (prog->kernel)
		return false;
	if ((prog->quals & KPR_QUAL_UID) && prog->uid != exe->uid)
		return false;
	if ((prog->quals & KPR_QUAL_GID) && prog->gid != exe->gid)
		return false;
	if (exe->path_id == KPR_NO_PATH ||
	    pol->path_of[prog->id] != exe->path_id)
		return false;
	/* Last: the only test that is more than a compare. */
	return !prog->cgroup ||
	       kpr_caller_in_cgroup(prog->cgroup, prog->cgroup_len);
}

/**
 * kpr_policy_allows() - may a program bind a port
 * @pol: the policy, or NULL
 * @proto: the protocol of the bind
 * @port: the port, in host order
 * @exe: who is binding, with the path id @pol gave the executable
 *
 * Context: rcu_read_lock() held by the caller, for @pol (unless private
 * to it) and for the cgroups of current that cgroup= rules read.
 * Return: true if @port has no rule for @proto or a rule lists @exe.
 */
bool kpr_policy_allows(const struct kpr_policy *pol, enum kpr_proto proto,
		       u16 port, const struct kpr_exe *exe)
{
	const struct kpr_portset *set;
	unsigned int i;

	if (!kpr_policy_reserves(pol, proto, port))
		return true;
	set = pol->chunks[proto][port / KPR_CHUNK_PORTS][port % KPR_CHUNK_PORTS];
	for (i = 0; i < set->nr; i++)
		if (program_matches(pol, set->progs[i], exe))
			return true;
	return false;
}
