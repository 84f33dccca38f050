/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve counters of binds to reserved ports.
 */
#ifndef _SECURITY_KPORTRESERVE_STATS_H
#define _SECURITY_KPORTRESERVE_STATS_H

#include <linux/percpu.h>
#include <linux/seq_file.h>

/*
 * Counters of binds to reserved ports; binds to other ports are not
 * counted. checked = allowed + denied + would_deny, where would_deny counts
 * the binds permissive mode let through that enforce mode would refuse.
 */
enum kpr_stat {
	KPR_STAT_CHECKED,
	KPR_STAT_ALLOWED,
	KPR_STAT_DENIED,
	KPR_STAT_WOULD_DENY,
	KPR_NR_STATS,
};

/**
 * struct kpr_stats - one CPU's share of the counters
 * @count: indexed by enum kpr_stat
 */
struct kpr_stats {
	u64 count[KPR_NR_STATS];
};

DECLARE_PER_CPU(struct kpr_stats, kpr_stats);

/**
 * kpr_stat_inc() - count an event on this CPU
 * @stat: the counter
 *
 * Per-CPU, so the bind path shares no cache line between CPUs.
 */
static inline void kpr_stat_inc(enum kpr_stat stat)
{
	this_cpu_inc(kpr_stats.count[stat]);
}

int kpr_stats_show(struct seq_file *m, void *v);

#endif /* _SECURITY_KPORTRESERVE_STATS_H */
