/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KPR_TOOLS_LINUX_SCHED_H
#define _KPR_TOOLS_LINUX_SCHED_H

#include_next <linux/sched.h>

/* A process is preempted anyway: nothing to yield. */
static inline int cond_resched(void)
{
	return 0;
}

#endif /* _KPR_TOOLS_LINUX_SCHED_H */
