/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve policy: the structure the bind hook reads, built from a
 * parsed ruleset and swapped in wholesale under RCU.
 */
#ifndef _SECURITY_KPORTRESERVE_POLICY_H
#define _SECURITY_KPORTRESERVE_POLICY_H

#include <crypto/sha2.h>
#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "parser.h"

#define KPR_CHUNK_PORTS		256U
#define KPR_NR_CHUNKS		(KPR_NR_PORTS / KPR_CHUNK_PORTS)
/* Bound on program references of all port sets of a policy (E2BIG). */
#define KPR_MAX_SET_ENTRIES	4194304U
/* The path id of an executable no rule of the policy names. */
#define KPR_NO_PATH		U32_MAX

/**
 * struct kpr_portset - the programs that may bind a run of ports
 * @next: next set of the same policy, to free them all
 * @nr: number of entries in @progs
 * @progs: the programs, owned by the policy's ruleset
 *
 * Ports whose programs are the same share one set, so a range costs one
 * pointer per port whatever the number and length of its programs.
 */
struct kpr_portset {
	struct kpr_portset *next;
	unsigned int nr;
	const struct kpr_program *progs[] __counted_by(nr);
};

/**
 * struct kpr_policy - a policy as the bind hook reads it
 * @any: one bit per port that has a rule for any protocol, the first and,
 *       for a port without a rule, only thing a bind looks at
 * @reserved: per protocol, one bit per port that has a rule
 * @chunks: per protocol, KPR_NR_CHUNKS tables of KPR_CHUNK_PORTS set
 *          pointers, allocated for the chunks that hold a reserved port
 * @sets: all port sets of the policy
 * @path_of: per program id, the id of its path: the id of the first
 *           program with the same path, whatever the qualifiers
 * @paths: open-addressing hash table of the first program of each path
 * @paths_mask: size of @paths minus one; the size is a power of two
 * @rs: the rules and programs, in canonical order
 * @text: the canonical text of @rs
 * @text_len: length of @text
 * @digest: sha256 of @text, for the audit record of its load
 * @nr_ports: number of port numbers reserved for any protocol
 * @generation: number of policies loaded since boot, this one included
 * @free_work: frees the policy once no reader can hold it
 *
 * Built privately by kpr_policy_build() and never written once published.
 */
struct kpr_policy {
	unsigned long any[BITS_TO_LONGS(KPR_NR_PORTS)];
	unsigned long reserved[KPR_NR_PROTOS][BITS_TO_LONGS(KPR_NR_PORTS)];
	const struct kpr_portset **chunks[KPR_NR_PROTOS][KPR_NR_CHUNKS];
	struct kpr_portset *sets;
	u32 *path_of;
	const struct kpr_program **paths;
	u32 paths_mask;
	struct kpr_ruleset rs;
	char *text;
	size_t text_len;
	u8 digest[SHA256_DIGEST_SIZE];
	unsigned int nr_ports;
	u64 generation;
	struct rcu_work free_work;
};

/**
 * struct kpr_exe - who is binding
 * @path_id: the id of the executable's path in the policy the bind is
 *           checked against (kpr_policy_path_id()), or KPR_NO_PATH when
 *           no rule names it or it cannot be trusted
 * @path: the absolute path of the executable, not NUL-terminated, for
 *        reports; NULL when it was not needed or cannot be determined
 * @len: length of @path
 * @uid: the caller's effective uid, as the initial user namespace sees it
 * @gid: the caller's effective gid, likewise
 */
struct kpr_exe {
	u32 path_id;
	const char *path;
	size_t len;
	u32 uid;
	u32 gid;
};

extern struct kpr_policy __rcu *kpr_active_policy;
extern unsigned long kpr_reserved_any[BITS_TO_LONGS(KPR_NR_PORTS)];
/* Serialises every change of policy, mode and lock (control.c). */
extern struct mutex kpr_control_lock;

struct kpr_policy *kpr_policy_build(struct kpr_ruleset *rs);
void kpr_policy_free(struct kpr_policy *pol);
u64 kpr_policy_activate(struct kpr_policy *pol);
u64 kpr_policy_generation(void);
char *kpr_policy_text(size_t *len);
u32 kpr_policy_path_id(const struct kpr_policy *pol, const char *path,
		       size_t len);
bool kpr_policy_allows(const struct kpr_policy *pol, enum kpr_proto proto,
		       u16 port, const struct kpr_exe *exe);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static without KUnit: only the suites call them from outside. */
struct kpr_policy *kpr_policy_replace(struct kpr_policy __rcu **slot,
				      struct kpr_policy *pol, struct mutex *lock);
#endif

/**
 * kpr_policy_reserves() - tell whether a port has a rule
 * @pol: the policy, or NULL when none was ever loaded
 * @proto: the protocol of the bind
 * @port: the port, in host order
 *
 * This is the whole cost of a bind to a port without a rule.
 *
 * Return: true if some rule covers @port for @proto.
 */
static inline bool kpr_policy_reserves(const struct kpr_policy *pol,
				       enum kpr_proto proto, u16 port)
{
	return pol && test_bit(port, pol->reserved[proto]);
}

/**
 * kpr_port_may_be_reserved() - the first test of every bind
 * @port: the port, in host order
 *
 * Tests one bit of a bitmap of the ports the policy in force reserves for
 * any protocol; while a new policy is put in force, of the ports of both.
 * It needs no RCU read-side section, so that a bind to a port without a
 * rule costs this bit test and nothing else. A clear bit is the answer; a
 * set bit sends the caller to the policy, under RCU.
 *
 * Context: any context.
 * Return: false if no rule in force covers @port.
 */
static __always_inline bool kpr_port_may_be_reserved(u16 port)
{
	return test_bit(port, kpr_reserved_any);
}

#endif /* _SECURITY_KPORTRESERVE_POLICY_H */
