/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-ins for the kernel services the kportreserve parser
 * uses (security/kportreserve/parser_env.h), so that parser.c builds
 * unchanged in the admin command and the fuzzer.
 */
#ifndef _KPR_USER_ENV_H
#define _KPR_USER_ENV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BIT(nr) (1UL << (nr))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void *kpr_zalloc(size_t size)
{
	return calloc(1, size);
}

static inline void kpr_free(void *ptr)
{
	free(ptr);
}

static inline void kpr_yield(void)
{
}

static inline void kpr_sort(void *base, size_t num, size_t size,
			    int (*cmp)(const void *, const void *))
{
	qsort(base, num, size, cmp);
}

#endif /* _KPR_USER_ENV_H */
