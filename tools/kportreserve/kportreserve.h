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
#define KPR_LOCAL_POLICY	KPR_ADMIN_DIR "/local.policy"
#define KPR_DROPIN_SUFFIX	".policy"
#define KPR_RUN_DIR		"/run/kportreserve"
#define KPR_SOURCES		KPR_RUN_DIR "/sources"
#define KPR_EDIT_LOCK		KPR_RUN_DIR "/edit.lock"

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
	KPR_EXIT_PARTIAL = 7,	/* loaded, with rules left out */
};

/* The syslog priorities of messages (sd-daemon(3)), for the journal. */
enum kpr_prio {
	KPR_PRIO_ERR = 3,
	KPR_PRIO_WARNING = 4,
	KPR_PRIO_NOTICE = 5,
	KPR_PRIO_INFO = 6,
};

struct kpr_sources;

/**
 * struct kpr_ctx - what every subcommand needs
 * @dir: the securityfs directory of kportreserve
 * @sources: while an assembled policy is loaded, its files, so that a line
 *           the kernel refused is named by file and line; else NULL
 * @resolve: --resolve: a program that is a symbolic link is written as the
 *           path it resolves to
 * @runtime: --runtime: add and del change the policy in force only
 */
struct kpr_ctx {
	const char *dir;
	const struct kpr_sources *sources;
	bool resolve;
	bool runtime;
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
__printf(2, 3) void kpr_log(enum kpr_prio prio, const char *fmt, ...);
/* Messages of the command itself, by priority; @fmt is a literal. */
#define kpr_err(fmt, ...) \
	kpr_log(KPR_PRIO_ERR, "kportreserve: " fmt, ##__VA_ARGS__)
#define kpr_warn(fmt, ...) \
	kpr_log(KPR_PRIO_WARNING, "kportreserve: warning: " fmt, ##__VA_ARGS__)
#define kpr_info(fmt, ...) \
	kpr_log(KPR_PRIO_INFO, "kportreserve: " fmt, ##__VA_ARGS__)
__printf(2, 3) int kpr_usage_error(const char *cmd, const char *fmt, ...);
int kpr_help(void);
int kpr_simple_options(int argc, char **argv);
#define KPR_OPT_RESOLVE		0x1	/* --resolve, -r */
#define KPR_OPT_RUNTIME		0x2	/* --runtime */
int kpr_options(struct kpr_ctx *ctx, int argc, char **argv,
		unsigned int which);
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

/**
 * struct kpr_source - one file of an assembled policy
 * @path: the file, as read
 * @name: its name in its directory, which orders the drop-ins
 * @admin: from /etc, which wins over /usr/lib on equal names
 * @text: its contents once read
 * @first: the number of its first line in the assembled text
 * @lines: its number of lines
 */
struct kpr_source {
	char *path;
	const char *name;
	bool admin;
	struct kpr_buf text;
	unsigned int first;
	unsigned int lines;
};

/**
 * struct kpr_sources - the files of an assembled policy, in load order
 * @src: the files
 * @nr: number of entries in @src
 */
struct kpr_sources {
	struct kpr_source *src;
	size_t nr;
};

struct kpr_programs;

/* sources.c: the policy files of the system, as load assembles them */
char *kpr_root_path(const char *path);
struct stat;
int kpr_replace_file(const char *path, const char *text, size_t len,
		     const struct stat *like);
int kpr_read_policy_file(const char *path, struct kpr_buf *buf);
size_t kpr_skip_lines(const char *text, size_t len, unsigned int n);
void kpr_buf_spell_units(struct kpr_buf *text);
int kpr_sources_find(struct kpr_sources *s);
unsigned int kpr_sources_read_for_load(struct kpr_sources *s,
				       struct kpr_programs *progs);
void kpr_sources_number(struct kpr_sources *s);
char *kpr_sources_assemble(const struct kpr_sources *s, size_t *len);
const struct kpr_source *kpr_sources_locate(const struct kpr_sources *s,
					    unsigned int line,
					    unsigned int *file_line);
void kpr_sources_free(struct kpr_sources *s);
char *kpr_escape_path(const char *path);
int kpr_sources_record(const struct kpr_sources *s, const char *generation);
bool kpr_sources_recorded(const char *generation, struct kpr_sources *s);

/**
 * struct kpr_origin - a rule of the policy files, and where it is
 * @rule: its canonical text (kpr_format_rule()), units and names spelled
 *        and programs resolved as a load does
 * @src: its file
 * @line: its line in @src
 * @order: its place in load order, which decides between equal rules
 * @first: the first port of the rule
 * @last: its last port
 * @protos: its protocols, as in struct kpr_rule
 */
struct kpr_origin {
	char *rule;
	const struct kpr_source *src;
	unsigned int line;
	size_t order;
	u16 first;
	u16 last;
	u8 protos;
};

/**
 * struct kpr_origins - the rules of the policy files, by canonical text
 * @o: the rules, sorted by @rule, then by @order
 * @nr: number of entries in @o
 */
struct kpr_origins {
	struct kpr_origin *o;
	size_t nr;
};

/* origins.c: the file and line of each rule */
void kpr_origins_build(const struct kpr_sources *s, struct kpr_origins *o);
const struct kpr_origin *kpr_origins_find(const struct kpr_origins *o,
					  const char *rule);
char *kpr_origin_name(const struct kpr_origin *origin);
void kpr_origins_note_overlaps(const struct kpr_origins *o);
bool kpr_origins_in_force(const char *generation, struct kpr_sources *s,
			  struct kpr_origins *o);
void kpr_origins_free(struct kpr_origins *o);

/* cmd_policy.c: check and load */
void kpr_print_policy_error(const struct kpr_ctx *ctx, const char *what,
			    unsigned int line, const char *msg);
int kpr_check_assembled(struct kpr_ctx *ctx, const struct kpr_sources *s,
			const char *text, size_t len);
bool kpr_keeps_boot_policy(const struct kpr_ctx *ctx, const char *text,
			   size_t len);

/**
 * struct kpr_programs - how to check the programs of a policy, and what
 *                       was found
 * @load: for a load: resolve every link, say what it resolved to, and
 *        count programs that do not exist rather than warn of each
 * @resolve: --resolve: write the resolved path of a link
 * @lenient: leave out, with a warning, a rule whose program cannot be
 *           applied, rather than fail
 * @quiet: say nothing (a comparison of rules, not a check)
 * @missing: number of rules whose program does not exist (yet)
 * @first_missing: the first of them, "FILE:LINE: PATH", to free()
 * @left_out: number of rules left out
 */
struct kpr_programs {
	bool load;
	bool resolve;
	bool lenient;
	bool quiet;
	unsigned int missing;
	char *first_missing;
	unsigned int left_out;
};

/* programs.c: the programs of a policy, on this machine */
int kpr_resolve_program(const char *path, char **resolved, bool *is_link,
			char **weak);
int kpr_check_programs(struct kpr_programs *p, const char *file,
		       const char *text, size_t len, char **fixed,
		       size_t *fixed_len);
void kpr_programs_summary(const struct kpr_programs *p);

/* holders.c: the sockets that hold reserved ports */
int kpr_print_holders(const struct kpr_ruleset *rs);
int kpr_check_holders(const struct kpr_ctx *ctx);

/* local.c: the policy file of add and del */
char *kpr_local_path(void);
int kpr_edit_lock(bool exclusive);
int kpr_local_add(const char *written, const char *rules, bool *added);
int kpr_local_del(const char *rules, const char *real, bool *deleted);

/* units.c: unit=NAME as cgroup=PATH */
void kpr_spell_units(const char *text, size_t len, char **out,
		     size_t *out_len);

/* rules.c: the kernel's parser, applied */
void kpr_print_parse_error(const char *file, unsigned int line,
			   const char *msg);
void kpr_print_line(enum kpr_prio prio, const char *file, unsigned int line,
		    const char *msg);
char *kpr_format_ruleset(const struct kpr_ruleset *rs, size_t *len);
char *kpr_format_rule(const struct kpr_rule *rule);
bool kpr_rules_have(const char *rules, const char *rule);
char *kpr_encode_arg(const char *arg);
char *kpr_join_args(int argc, char **argv, size_t *len);
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
int kpr_cmd_diff(struct kpr_ctx *ctx, int argc, char **argv);

#endif /* _KPORTRESERVE_H */
