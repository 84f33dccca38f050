// SPDX-License-Identifier: GPL-2.0
/*
 * The workbench's, not the series': graft.sh puts it into the test
 * kernels' lib/kunit-tests/ (see selfcheck/Kbuild).
 *
 * A microbenchmark of the lookup alone: the kportreserve policy against
 * the design of the 2013 KPortReserve RFC, which kept one list of (port,
 * program) entries and walked it, comparing path strings, for every bind
 * to a reserved port. Both designs test a bitmap first, so only reserved
 * ports are timed. The cases are slow and print their figures
 * ("KPR-MICRO ..."); make bench runs them in a guest whose clock counts
 * instructions.
 */

#include <kunit/test.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "policy.h"

#define EVIL		"/usr/bin/evil"
#define PROGRAM_FMT	"/usr/lib/kpr-bench/prog-%u"
#define NR_PROGRAMS	64

/* The list entry of the 2013 RFC, as it was. */
struct rfc2013_entry {
	struct list_head list;
	u16 port;
	const char *exe;
};

/**
 * rfc2013_check() - the 2013 RFC's decision for a reserved port
 * @head: the list of entries
 * @port: the port
 * @exe: the caller's path, built for this bind
 *
 * The loop of kpr_socket_bind() in the RFC: a denied bind walks the whole
 * list, since another entry for the port may still list the caller.
 *
 * Return: 0 or -EADDRINUSE.
 */
static int rfc2013_check(struct list_head *head, u16 port, const char *exe)
{
	struct rfc2013_entry *ptr;
	int ret = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(ptr, head, list) {
		if (port != ptr->port)
			continue;
		if (strcmp(exe, ptr->exe)) {
			ret = -EADDRINUSE;
			continue;
		}
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}

static const unsigned int bench_entries[] = { 1, 1000, 65536 };

static void entries_desc(const unsigned int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u entries", *n);
}

KUNIT_ARRAY_PARAM(entries, bench_entries, entries_desc);

/* Entry i: port 1 + i % 65535 for program i % NR_PROGRAMS. */
static u16 entry_port(unsigned int i)
{
	return 1 + i % 65535;
}

static void report(struct kunit *test, unsigned int n, const char *design,
		   const char *verdict, u64 ns, unsigned int iters)
{
	u64 milli = div_u64(ns * 1000, iters);

	kunit_info(test, "KPR-MICRO entries=%u design=%s verdict=%s ns=%llu.%03llu\n",
		   n, design, verdict, div_u64(milli, 1000), milli % 1000);
}

/* Returns the nanoseconds of @iters lookups with the RFC's list. */
static u64 time_rfc2013(struct list_head *head, u16 port, const char *exe,
			unsigned int iters, int *ret)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < iters; i++) {
		OPTIMIZER_HIDE_VAR(exe);
		*ret = rfc2013_check(head, port, exe);
	}
	return ktime_get_ns() - start;
}

/* Returns the nanoseconds of @iters lookups in a kportreserve policy. */
static u64 time_policy(const struct kpr_policy *pol, u16 port,
		       const struct kpr_exe *exe, unsigned int iters,
		       bool *allowed)
{
	u64 start = ktime_get_ns();
	unsigned int i;

	for (i = 0; i < iters; i++) {
		OPTIMIZER_HIDE_VAR(exe);
		*allowed = kpr_policy_allows(pol, KPR_PROTO_TCP, port, exe);
	}
	return ktime_get_ns() - start;
}

static void policy_free_action(void *pol)
{
	kpr_policy_free(pol);
}

/* The same entries as a kportreserve policy of n rules. */
static struct kpr_policy *build_policy(struct kunit *test, unsigned int n)
{
	const size_t size = (size_t)n * 48;
	struct kpr_ruleset rs = {};
	struct kpr_policy *pol;
	const char *msg;
	unsigned int i, line;
	size_t len = 0;
	char *text = kvmalloc(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < n; i++)
		len += scnprintf(text + len, size - len, "%u/tcp " PROGRAM_FMT "\n",
				 entry_port(i), i % NR_PROGRAMS);
	KUNIT_ASSERT_EQ(test, kpr_parse_policy(text, len, &rs, &line, &msg), 0);
	kvfree(text);
	pol = kpr_policy_build(&rs);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pol);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   policy_free_action,
							   pol));
	return pol;
}

/* The same entries as the 2013 RFC's list, in the order they were written. */
static void build_list(struct kunit *test, struct list_head *head,
		       unsigned int n, char (*programs)[40])
{
	unsigned int i;

	for (i = 0; i < NR_PROGRAMS; i++)
		snprintf(programs[i], sizeof(programs[i]), PROGRAM_FMT, i);
	for (i = 0; i < n; i++) {
		struct rfc2013_entry *e = kunit_kzalloc(test, sizeof(*e),
							GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, e);
		e->port = entry_port(i);
		e->exe = programs[i % NR_PROGRAMS];
		list_add_tail_rcu(&e->list, head);
	}
}

/*
 * The entry in the middle of the list, allowed (the RFC walks half of the
 * list on average) and denied (the RFC walks all of it).
 */
static void test_kpr_bench_lookup(struct kunit *test)
{
	const unsigned int n = *(const unsigned int *)test->param_value;
	const unsigned int policy_iters = 1000000;
	const unsigned int list_iters = max(64U, 4000000U / n);
	char (*programs)[40];
	struct kpr_policy *pol = build_policy(test, n);
	struct kpr_exe exe = {}, evil = { .path_id = KPR_NO_PATH };
	unsigned int mid = n / 2;
	u16 port = entry_port(mid);
	LIST_HEAD(list);
	bool allowed;
	int ret;
	u64 ns;

	programs = kunit_kcalloc(test, NR_PROGRAMS, sizeof(*programs),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, programs);
	build_list(test, &list, n, programs);
	exe.path = programs[mid % NR_PROGRAMS];
	exe.len = strlen(exe.path);
	exe.path_id = kpr_policy_path_id(pol, exe.path, exe.len);

	ns = time_rfc2013(&list, port, exe.path, list_iters, &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	report(test, n, "rfc2013", "allowed", ns, list_iters);
	ns = time_rfc2013(&list, port, EVIL, list_iters, &ret);
	KUNIT_EXPECT_EQ(test, ret, -EADDRINUSE);
	report(test, n, "rfc2013", "denied", ns, list_iters);

	ns = time_policy(pol, port, &exe, policy_iters, &allowed);
	KUNIT_EXPECT_TRUE(test, allowed);
	report(test, n, "kportreserve", "allowed", ns, policy_iters);
	ns = time_policy(pol, port, &evil, policy_iters, &allowed);
	KUNIT_EXPECT_FALSE(test, allowed);
	report(test, n, "kportreserve", "denied", ns, policy_iters);
}

static struct kunit_case kpr_bench_test_cases[] = {
	KUNIT_CASE_PARAM_ATTR(test_kpr_bench_lookup, entries_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite kpr_bench_test_suite = {
	.name = "kportreserve-bench",
	.test_cases = kpr_bench_test_cases,
};

kunit_test_suite(kpr_bench_test_suite);

MODULE_DESCRIPTION("Microbenchmark of the kportreserve policy lookup");
MODULE_LICENSE("GPL");
