/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_KERNEL_H
#define _KPR_TOOLS_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define U32_MAX		((u32)~0U)
#define min(x, y)	({ typeof(x) _x = (x); typeof(y) _y = (y); \
			   _x < _y ? _x : _y; })
#define min_t(t, x, y)	({ t _x = (x), _y = (y); _x < _y ? _x : _y; })
#define max_t(t, x, y)	({ t _x = (x), _y = (y); _x > _y ? _x : _y; })
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* snprintf() that returns what it wrote, not what it would have. */
static inline __printf(3, 4) int scnprintf(char *buf, size_t size,
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

#endif /* _KPR_TOOLS_LINUX_KERNEL_H */
