// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve counters and the securityfs "stats" file.
 */

#include <linux/cpumask.h>

#include "policy.h"
#include "stats.h"

DEFINE_PER_CPU(struct kpr_stats, kpr_stats);

static const char *const kpr_stat_names[KPR_NR_STATS] = {
	[KPR_STAT_CHECKED] = "checked",
	[KPR_STAT_ALLOWED] = "allowed",
	[KPR_STAT_DENIED] = "denied",
	[KPR_STAT_WOULD_DENY] = "would_deny",
};

static u64 stat_sum(enum kpr_stat stat)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(kpr_stats, cpu).count[stat];
	return sum;
}

/**
 * kpr_stats_show() - print the "stats" file: one "name value" a line
 * @m: the seq_file
 * @v: unused
 *
 * Context: process context; takes rcu_read_lock() to read the policy.
 * Return: 0.
 */
int kpr_stats_show(struct seq_file *m, void *v)
{
	const struct kpr_policy *pol;
	u64 generation = 0, rules = 0, ports = 0;
	int stat;

	rcu_read_lock();
	pol = rcu_dereference(kpr_active_policy);
	if (pol) {
		generation = pol->generation;
		rules = pol->rs.nr_rules;
		ports = pol->nr_ports;
	}
	rcu_read_unlock();

	seq_printf(m, "generation %llu\n", generation);
	seq_printf(m, "rules %llu\n", rules);
	seq_printf(m, "ports %llu\n", ports);
	for (stat = 0; stat < KPR_NR_STATS; stat++)
		seq_printf(m, "%s %llu\n", kpr_stat_names[stat], stat_sum(stat));
	return 0;
}
