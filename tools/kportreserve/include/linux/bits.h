/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_BITS_H
#define _KPR_TOOLS_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif /* _KPR_TOOLS_LINUX_BITS_H */
