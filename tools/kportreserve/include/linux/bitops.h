/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_BITOPS_H
#define _KPR_TOOLS_LINUX_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

/* The index of the lowest set bit of @word, which must not be 0. */
static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

#endif /* _KPR_TOOLS_LINUX_BITOPS_H */
