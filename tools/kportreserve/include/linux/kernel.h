/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/kernel.h> of tools/include, and what parser.c needs beyond it.
 * The headers of tools/include that include <linux/kernel.h> get this
 * one, which is why it includes tools/include's first.
 */
#ifndef _KPR_TOOLS_LINUX_KERNEL_H
#define _KPR_TOOLS_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/types.h>

/* Of <vdso/limits.h>, which tools/include does not have. */
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif

/*
 * tools/include declares scnprintf() for tools/lib/vsprintf.c, which is
 * not built here (and returns -1 for a size of 0). parser.c gets the
 * kernel's, under a name of its own.
 */
static inline __printf(3, 4) int kpr_scnprintf(char *buf, size_t size,
					       const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(buf, size, fmt, args);
	va_end(args);
	if (n < 0)
		return 0;
	return (size_t)n < size ? n : (size ? (int)size - 1 : 0);
}

#define scnprintf kpr_scnprintf

#endif /* _KPR_TOOLS_LINUX_KERNEL_H */
