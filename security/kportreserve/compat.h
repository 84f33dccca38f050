/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve: what Linux 6.1 lacks of the 6.12 kernel API we use.
 *
 * Everything here is inside a LINUX_VERSION_CODE check, so on 6.12 this
 * header only includes <uapi/linux/lsm.h>. Each shim either does what
 * the newer kernel does, or says below exactly where it does less.
 *
 * Include it after the kernel headers of the file that needs it.
 */
#ifndef _SECURITY_KPORTRESERVE_COMPAT_H
#define _SECURITY_KPORTRESERVE_COMPAT_H

#include <linux/version.h>

/*
 * LSM ids (6.8). 6.1 has no struct lsm_id, no <uapi/linux/lsm.h> and no
 * lsm_list_modules() or lsm_get_self_attr() syscalls: security_add_hooks()
 * takes the LSM's name, which is all it records. The id below is read by
 * nothing on 6.1; it exists so that the one initializer compiles
 * unchanged. Keep its value equal to the 6.12 glue patch's.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#include <uapi/linux/lsm.h>
#else
#include <linux/lsm_hooks.h>
#include <linux/types.h>

/**
 * struct lsm_id - the 6.8 LSM identity, reduced to what 6.1 can use
 * @name: the LSM's name, which 6.1's security_add_hooks() takes
 * @id: LSM_ID_KPORTRESERVE; unused on 6.1
 */
struct lsm_id {
	const char *name;
	u64 id;
};

#define LSM_ID_KPORTRESERVE	114

/* Not recursive: the inner security_add_hooks is the 6.1 function. */
#define security_add_hooks(hooks, count, lsmid) \
	security_add_hooks(hooks, count, (lsmid)->name)
#endif

/*
 * Idmapped mounts (6.3): ->setattr() and simple_setattr() took the
 * mount's struct user_namespace before struct mnt_idmap replaced it
 * (6.1: include/linux/fs.h:2242 and :3477). kportreserve only passes the
 * pointer on to simple_setattr(), so renaming the type is enough.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#define mnt_idmap user_namespace
#endif

/*
 * securityfs_recursive_remove() is not in 6.1, whose securityfs_remove()
 * removes one entry (security/inode.c:294). simple_recursive_removal()
 * removes the tree the same way the newer helper does, but cannot drop
 * the pin each securityfs_create_*() took on securityfs' internal mount:
 * that counter is private to security/inode.c. The mount stays pinned
 * anyway by securityfs' own "lsm" file, so what is lost is a count, not
 * memory. The exact release that added the helper was not checked; it
 * is in 6.12 (security/inode.c:328).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#include <linux/fs.h>

static inline void securityfs_recursive_remove(struct dentry *dentry)
{
	if (!IS_ERR_OR_NULL(dentry))
		simple_recursive_removal(dentry, NULL);
}
#endif

#if IS_ENABLED(CONFIG_KUNIT) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#include <kunit/resource.h>
#include <kunit/test.h>

/*
 * Deferred actions (6.5), as lib/kunit/resource.c of 6.12 implements
 * them, on top of 6.1's test-managed resources. One difference: each
 * file that includes this header has its own kpr_kunit_action_free(), so
 * kunit_remove_action() finds only actions added by the same file.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
typedef void (kunit_action_t)(void *);

struct kpr_kunit_action {
	struct kunit_resource res;	/* first: KUnit kfree()s it */
	kunit_action_t *func;
	void *ctx;
};

static inline void kpr_kunit_action_free(struct kunit_resource *res)
{
	struct kpr_kunit_action *a = container_of(res, typeof(*a), res);

	a->func(a->ctx);
}

/**
 * kunit_add_action() - call @action(@ctx) when the test ends
 * @test: the test
 * @action: the function; actions run in reverse order of addition
 * @ctx: its argument
 *
 * Return: 0, or -ENOMEM and @action is not registered.
 */
static inline int kunit_add_action(struct kunit *test, kunit_action_t *action,
				   void *ctx)
{
	struct kpr_kunit_action *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!a)
		return -ENOMEM;
	a->func = action;
	a->ctx = ctx;
	a->res.should_kfree = true;
	/* Without an init function this cannot fail. */
	return __kunit_add_resource(test, NULL, kpr_kunit_action_free,
				    &a->res, a);
}

/**
 * kunit_add_action_or_reset() - kunit_add_action(), or call @action now
 * @test: the test
 * @action: the function
 * @ctx: its argument
 *
 * Return: 0, or -ENOMEM after @action(@ctx) was called.
 */
static inline int kunit_add_action_or_reset(struct kunit *test,
					    kunit_action_t *action, void *ctx)
{
	int err = kunit_add_action(test, action, ctx);

	if (err)
		action(ctx);
	return err;
}

static inline bool kpr_kunit_action_match(struct kunit *test,
					  struct kunit_resource *res,
					  void *match_data)
{
	const struct kpr_kunit_action *want = match_data;
	const struct kpr_kunit_action *a = container_of(res, typeof(*a), res);

	return res->free == kpr_kunit_action_free &&
	       a->func == want->func && a->ctx == want->ctx;
}

/**
 * kunit_remove_action() - forget an action without calling it
 * @test: the test
 * @action: the function given to kunit_add_action()
 * @ctx: its argument
 */
static inline void kunit_remove_action(struct kunit *test,
				       kunit_action_t *action, void *ctx)
{
	struct kpr_kunit_action want = { .func = action, .ctx = ctx };
	struct kunit_resource *res;

	res = kunit_find_resource(test, kpr_kunit_action_match, &want);
	if (res) {
		res->free = NULL;
		kunit_remove_resource(test, res);
		kunit_put_resource(res);
	}
}
#endif /* < 6.5 */

/*
 * Test attributes (6.6) cannot exist on 6.1: struct kunit_case has no
 * attributes and the executor knows kunit.filter_glob only, not
 * kunit.filter. Slow cases become plain cases that always run, and
 * "kunit.filter=speed>slow" is an unknown parameter there.
 */
#define KUNIT_CASE_SLOW(test_name)	KUNIT_CASE(test_name)
#define KUNIT_CASE_PARAM_ATTR(test_name, gen_params, attributes) \
	KUNIT_CASE_PARAM(test_name, gen_params)
#endif /* CONFIG_KUNIT && < 6.6 */

/*
 * IPPROTO_SMC (6.11): AF_INET and AF_INET6 sockets of SMC. 6.1 has only
 * AF_SMC, and no socket there has this protocol number.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define IPPROTO_SMC	256
#endif

#endif /* _SECURITY_KPORTRESERVE_COMPAT_H */
