/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_SORT_H
#define _KPR_TOOLS_LINUX_SORT_H

#include <stdlib.h>

typedef int (*cmp_func_t)(const void *a, const void *b);
typedef void (*swap_func_t)(void *a, void *b, int size);

/*
 * qsort() is not stable either: a caller whose order depends on how equal
 * elements end up is wrong in the kernel too. Only the default swap.
 */
static inline void sort(void *base, size_t num, size_t size,
			cmp_func_t cmp_func, swap_func_t swap_func)
{
	(void)swap_func;
	qsort(base, num, size, cmp_func);
}

#endif /* _KPR_TOOLS_LINUX_SORT_H */
