/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve(8): the admin command of the kportreserve LSM. Shared
 * declarations of the command's files.
 */
#ifndef _KPORTRESERVE_H
#define _KPORTRESERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "parser.h"

#define KPR_SECURITYFS_DEFAULT	"/sys/kernel/security/kportreserve"
#define KPR_SECURITYFS_ENV	"KPORTRESERVE_SECURITYFS"
#define KPR_HOOK_ENV		"KPORTRESERVE_TEST_BEFORE_WRITE"

/*
 * The policy files that "kportreserve load" assembles, and where it
 * records them; each path is under $KPORTRESERVE_ROOT when that is set.
 */
#define KPR_ROOT_ENV		"KPORTRESERVE_ROOT"
#define KPR_VENDOR_DIR		"/usr/lib/kportreserve/policy.d"
#define KPR_ADMIN_DIR		"/etc/kportreserve/policy.d"
#define KPR_MAIN_POLICY		"/etc/kportreserve/policy"
#define KPR_DROPIN_SUFFIX	".policy"
#define KPR_RUN_DIR		"/run/kportreserve"
#define KPR_SOURCES		KPR_RUN_DIR "/sources"

#ifndef __printf
#define __printf(a, b)		__attribute__((format(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

/* Exit codes, documented in --help and kportreserve(8). */
enum kpr_exit {
	KPR_EXIT_OK = 0,
	KPR_EXIT_POLICY = 1,	/* a policy or rule is wrong, or no such rule */
	KPR_EXIT_USAGE = 2,	/* bad command line */
	KPR_EXIT_REFUSED = 3,	/* the kernel refused the new policy */
	KPR_EXIT_RACE = 4,	/* someone else kept changing the policy */
	KPR_EXIT_IO = 5,	/* I/O error, or kportreserve is not there */
	KPR_EXIT_HELD = 6,	/* a socket holds a port reserved for others */
};

struct kpr_sources;

/**
 * struct kpr_ctx - what every subcommand needs
 * @dir: the securityfs directory of kportreserve
 * @sources: while an assembled policy is loaded, its files, so that a line
 *           the kernel refused is named by file and line; else NULL
 * @resolve: --resolve: a program that is a symbolic link is written as the
 *           path it resolves to, instead of being refused
 */
struct kpr_ctx {
	const char *dir;
	const struct kpr_sources *sources;
	bool resolve;
};

/**
 * struct kpr_buf - a file's contents, NUL-terminated for convenience
 * @text: the bytes, followed by a NUL not counted in @len
 * @len: number of bytes
 */
struct kpr_buf {
	char *text;
	size_t len;
};

/**
 * struct kpr_stat - one "name value" line of the stats file
 * @name: the counter's name
 * @value: its value, as the kernel wrote it
 */
struct kpr_stat {
	char *name;
	char *value;
};

/**
 * struct kpr_stats - the stats file, in the kernel's order
 * @stat: the lines
 * @nr: number of entries in @stat
 */
struct kpr_stats {
	struct kpr_stat *stat;
	size_t nr;
};

/* kportreserve.c: messages and memory */
void *kpr_xmalloc(size_t size);
void *kpr_xrealloc(void *ptr, size_t size);
char *kpr_xstrdup(const char *s);
__printf(1, 2) char *kpr_xasprintf(const char *fmt, ...);
__printf(1, 2) void kpr_err(const char *fmt, ...);
__printf(2, 3) int kpr_usage_error(const char *cmd, const char *fmt, ...);
int kpr_help(void);
int kpr_simple_options(int argc, char **argv);
int kpr_resolve_options(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_bad_option(const char *cmd, int c, const char *arg);

/* securityfs.c: files */
int kpr_read_fd(int fd, struct kpr_buf *buf);
int kpr_read_path(const char *path, struct kpr_buf *buf);
int kpr_read_file(const struct kpr_ctx *ctx, const char *name,
		  struct kpr_buf *buf, bool quiet);
void kpr_buf_free(struct kpr_buf *buf);
char *kpr_fs_path(const struct kpr_ctx *ctx, const char *name);
int kpr_stats_read(const struct kpr_ctx *ctx, struct kpr_stats *st);
const char *kpr_stats_get(const struct kpr_stats *st, const char *name);
void kpr_stats_free(struct kpr_stats *st);
int kpr_write_policy(const struct kpr_ctx *ctx, const char *what,
		     const char *generation, const char *text, size_t len);

/* cmd_policy.c: the policy files */
char *kpr_root_path(const char *path);
void kpr_print_policy_error(const struct kpr_ctx *ctx, const char *what,
			    unsigned int line, const char *msg);

/* programs.c: the programs of a policy, on this machine */
int kpr_resolve_program(const char *path, char **resolved, bool *is_link);
int kpr_check_programs(const char *file, const char *text, size_t len,
		       bool resolve, char **fixed, size_t *fixed_len);

/* holders.c: the sockets that hold reserved ports */
int kpr_print_holders(const struct kpr_ruleset *rs);
int kpr_check_holders(const struct kpr_ctx *ctx);

/* units.c: unit=NAME as cgroup=PATH */
void kpr_spell_units(const char *text, size_t len, char **out,
		     size_t *out_len);

/* rules.c: the kernel's parser, applied */
void kpr_print_parse_error(const char *file, unsigned int line,
			   const char *msg);
char *kpr_format_ruleset(const struct kpr_ruleset *rs, size_t *len);
char *kpr_format_rule(const struct kpr_rule *rule);
char *kpr_encode_arg(const char *arg);
int kpr_parse_rule_args(int argc, char **argv, struct kpr_ruleset *rs,
			char **line);
int kpr_parse_port_spec(const char *spec, struct kpr_rule *query);
void kpr_protos_name(unsigned int protos, char *buf, size_t size);
int kpr_parse_in_force(const struct kpr_ctx *ctx, struct kpr_buf *text,
		       struct kpr_ruleset *rs);
int kpr_read_policy(const struct kpr_ctx *ctx, struct kpr_buf *text,
		    struct kpr_ruleset *rs);

/* The subcommands: each returns an exit code. */
int kpr_cmd_check(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_load(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_add(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_del(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_status(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_who(struct kpr_ctx *ctx, int argc, char **argv);
int kpr_cmd_import(struct kpr_ctx *ctx, int argc, char **argv);

#endif /* _KPORTRESERVE_H */
