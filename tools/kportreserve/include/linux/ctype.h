/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_CTYPE_H
#define _KPR_TOOLS_LINUX_CTYPE_H

/* isdigit() is '0' to '9' in every C locale, as in the kernel. */
#include <ctype.h>

static inline int isodigit(const char c)
{
	return c >= '0' && c <= '7';
}

#endif /* _KPR_TOOLS_LINUX_CTYPE_H */
