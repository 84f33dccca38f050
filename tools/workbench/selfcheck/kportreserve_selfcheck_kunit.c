// SPDX-License-Identifier: GPL-2.0
/*
 * The workbench's proof that its VM lanes see the kernel's reports: a
 * KUnit suite grafted into the test kernels only (graft.sh; it is no part
 * of the series), each of whose cases provokes one report on request.
 *
 * Boot with kunit.enable=1 kunit.filter_glob=kportreserve-selfcheck and
 * kpr_selfcheck.trigger=warn or kpr_selfcheck.trigger=rcu_sleep; a case
 * whose trigger was not asked for skips, so that a plain run of every
 * suite provokes nothing.
 */

#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#undef MODULE_PARAM_PREFIX
#define MODULE_PARAM_PREFIX "kpr_selfcheck."

static char *trigger = "";
module_param(trigger, charp, 0);
MODULE_PARM_DESC(trigger, "warn or rcu_sleep: the report to provoke");

static void skip_unless_asked(struct kunit *test, const char *name)
{
	if (strcmp(trigger, name))
		kunit_skip(test, "boot with kpr_selfcheck.trigger=%s", name);
}

/* A WARNING, as any WARN_ON() in our code would print it. */
static void selfcheck_warn(struct kunit *test)
{
	skip_unless_asked(test, "warn");
	WARN_ON_ONCE(1);
}

/*
 * A sleep inside an RCU read-side critical section. With preemptible RCU
 * the scheduler warns of it; the debug flavour's might_sleep() checks
 * report it as well.
 */
static void selfcheck_rcu_sleep(struct kunit *test)
{
	skip_unless_asked(test, "rcu_sleep");
	rcu_read_lock();
	msleep(20);
	rcu_read_unlock();
}

static struct kunit_case selfcheck_cases[] = {
	KUNIT_CASE(selfcheck_warn),
	KUNIT_CASE(selfcheck_rcu_sleep),
	{}
};

static struct kunit_suite selfcheck_suite = {
	.name = "kportreserve-selfcheck",
	.test_cases = selfcheck_cases,
};

kunit_test_suite(selfcheck_suite);

MODULE_DESCRIPTION("kportreserve workbench: provoke a kernel report on request");
MODULE_LICENSE("GPL");
