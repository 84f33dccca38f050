/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel services the kportreserve parser uses, and nothing more.
 *
 * User-space builds of parser.c (the admin command, the fuzzer) include
 * kpr_user_env.h instead, which maps the same helpers onto libc.
 */
#ifndef _SECURITY_KPORTRESERVE_PARSER_ENV_H
#define _SECURITY_KPORTRESERVE_PARSER_ENV_H

#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

/*
 * Policies can be megabytes large: let big arrays fall back to vmalloc.
 * The policy in force outlives its writer, so it is not charged to the
 * writer's memory cgroup.
 */
static inline void *kpr_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

static inline void kpr_free(void *ptr)
{
	kvfree(ptr);
}

/* Long loops over a big policy yield the CPU now and then. */
static inline void kpr_yield(void)
{
	cond_resched();
}

static inline void kpr_sort(void *base, size_t num, size_t size,
			    int (*cmp)(const void *, const void *))
{
	sort(base, num, size, cmp, NULL);
}

#endif /* _SECURITY_KPORTRESERVE_PARSER_ENV_H */
