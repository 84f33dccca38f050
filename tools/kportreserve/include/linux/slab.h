/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_SLAB_H
#define _KPR_TOOLS_LINUX_SLAB_H

#include <stdlib.h>
#include <linux/types.h>	/* gfp_t and GFP_KERNEL */

/*
 * Not tools/include's <linux/slab.h>: that one declares kmalloc() and
 * kfree() for the allocator of the kernel's user-space test harnesses,
 * and no kv*() functions.
 *
 * Every allocation is calloc() and every free free(): the fuzzer renames
 * both to give the parser an arena of its own (tools/kportreserve/fuzz).
 */
static inline void *kvzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(n, size);
}

static inline void *kvmalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size);
}

static inline void kvfree(const void *addr)
{
	free((void *)addr);
}

static inline void kfree(const void *addr)
{
	free((void *)addr);
}

#endif /* _KPR_TOOLS_LINUX_SLAB_H */
