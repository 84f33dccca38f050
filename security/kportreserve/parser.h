/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve policy language: the parser's interface.
 *
 * This header and parser.c also build in user space, for kportreserve(8)
 * and the fuzzer, against the kernel's tools/include/ and, for what it
 * lacks, the stand-ins in tools/kportreserve/include/.
 */
#ifndef _SECURITY_KPORTRESERVE_PARSER_H
#define _SECURITY_KPORTRESERVE_PARSER_H

#include <linux/bits.h>
#include <linux/types.h>

/* Protocols a rule can name; a rule without one covers all of them. */
enum kpr_proto {
	KPR_PROTO_TCP,
	KPR_PROTO_UDP,
	KPR_PROTO_SCTP,
	KPR_NR_PROTOS,
};

#define KPR_PROTO_ALL		(BIT(KPR_NR_PROTOS) - 1)
#define KPR_NR_PORTS		65536U
#define KPR_PATH_MAX		4096U

/* Documented limits: a policy over them fails with E2BIG. */
#define KPR_POLICY_MAX_BYTES	(16U << 20)
#define KPR_POLICY_MAX_RULES	1048576U
/* The ids one uid= or gid= qualifier may list, and the pairs of both. */
#define KPR_MAX_IDS		16
/* The programs of a policy, one copy per id of a list (E2BIG past it). */
#define KPR_POLICY_MAX_PROG_BYTES	(32U << 20)
/* One encoded line: a path of KPR_PATH_MAX bytes, all escaped, and a port. */
#define KPR_LINE_MAX		(4 * KPR_PATH_MAX + 64)

/*
 * The program of a rule that no caller of bind() matches: the kernel's own
 * sockets, which no hook sees, are the only ones left to bind its ports.
 */
#define KPR_KERNEL_NAME		"<kernel>"

/* Qualifiers a rule may add after its program (struct kpr_program.quals). */
#define KPR_QUAL_UID		BIT(0)
#define KPR_QUAL_GID		BIT(1)
#define KPR_QUAL_CGROUP		BIT(2)

/**
 * struct kpr_program - who a rule lets bind, shared by the rules that
 *                      name the same program with the same qualifiers
 * @hash: kpr_path_hash() of @path, by which the parser interns programs
 *        and the policy numbers paths
 * @id: index of the program in its ruleset, in order of first appearance
 * @len: length of @path, without the terminating NUL
 * @uid: with KPR_QUAL_UID, the effective uid the binding task must have
 * @gid: with KPR_QUAL_GID, the effective gid the binding task must have
 * @cgroup_len: length of @cgroup
 * @size: bytes after the structure that copies need: @path and @cgroup,
 *        each NUL-terminated
 * @cgroup: with KPR_QUAL_CGROUP, the cgroup (v2) the binding task must be
 *          in or below, as a path from the root of the hierarchy, kept
 *          after @path; NULL otherwise
 * @quals: KPR_QUAL_* bits: which of @uid, @gid and @cgroup apply
 * @kernel: true for KPR_KERNEL_NAME, which matches no caller of bind()
 * @path: the decoded absolute path as d_absolute_path() spells it
 */
struct kpr_program {
	u32 hash;
	u32 id;
	u32 len;
	u32 uid;
	u32 gid;
	u32 cgroup_len;
	size_t size;
	const char *cgroup;
	u8 quals;
	bool kernel;
	char path[];
};

/**
 * struct kpr_rule - one line of a policy
 * @first: first port of the range
 * @last: last port of the range, >= @first
 * @protos: bit mask of enum kpr_proto values the rule covers
 * @prog: the program allowed to bind the ports; owned by the ruleset
 */
struct kpr_rule {
	u16 first;
	u16 last;
	u8 protos;
	const struct kpr_program *prog;
};

/**
 * struct kpr_ruleset - a parsed policy: rules and the programs they share
 * @rules: the rules, in canonical order once kpr_parser_finish() ran
 * @nr_rules: number of entries in @rules
 * @cap_rules: allocated entries in @rules
 * @progs: open-addressing hash table of interned programs
 * @nr_progs: number of programs in @progs
 * @cap_progs: size of @progs, a power of two (or 0)
 * @prog_bytes: memory of the programs, held under
 *              KPR_POLICY_MAX_PROG_BYTES
 */
struct kpr_ruleset {
	struct kpr_rule *rules;
	size_t nr_rules;
	size_t cap_rules;
	struct kpr_program **progs;
	size_t nr_progs;
	size_t cap_progs;
	size_t prog_bytes;
};

/**
 * struct kpr_parser - state of a policy arriving in pieces
 * @rs: the rules parsed so far
 * @pending: the line being collected until its newline arrives,
 *           NUL-terminated
 * @pending_len: bytes in @pending, without the NUL
 * @pending_size: allocated size of @pending, at most KPR_LINE_MAX + 1
 * @bytes: policy bytes fed so far
 * @line: number of the line being parsed (1-based)
 * @error: 0, or the negative errno of the first error; sticky
 * @error_line: line number of the first error
 * @error_msg: what was wrong with that line
 * @finished: kpr_parser_finish() ran
 */
struct kpr_parser {
	struct kpr_ruleset rs;
	char *pending;
	size_t pending_len;
	size_t pending_size;
	size_t bytes;
	unsigned int line;
	int error;
	unsigned int error_line;
	const char *error_msg;
	bool finished;
};

void kpr_parser_init(struct kpr_parser *p);
int kpr_parser_feed(struct kpr_parser *p, const char *buf, size_t len);
int kpr_parser_finish(struct kpr_parser *p);
void kpr_parser_take(struct kpr_parser *p, struct kpr_ruleset *rs);
void kpr_parser_destroy(struct kpr_parser *p);

int kpr_parse_policy(const char *text, size_t len, struct kpr_ruleset *rs,
		     unsigned int *error_line, const char **error_msg);

size_t kpr_ruleset_format(const struct kpr_ruleset *rs, char *buf,
			  size_t size);
void kpr_ruleset_destroy(struct kpr_ruleset *rs);

size_t kpr_format_path(const char *path, size_t len, char *buf, size_t size);
const char *kpr_proto_name(enum kpr_proto proto);
u32 kpr_path_hash(const char *path, size_t len);

#endif /* _SECURITY_KPORTRESERVE_PARSER_H */
