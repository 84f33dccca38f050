// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "status" shows the state of kportreserve, "who" the
 * programs that may bind a port. Both name the FILE:LINE of each rule
 * while the files that made the policy in force are known (origins.c).
 *
 * Older kernels lack the mode, lock and denials files and some counters:
 * what is missing is shown as unknown, and counters this program does not
 * know are shown as they are.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

#define KPR_MAX_COLS	5

/**
 * struct table - a table of text, printed in aligned columns
 * @cols: number of columns
 * @rows: number of rows, the header included
 * @cell: @rows * @cols strings, to free()
 */
struct table {
	size_t cols;
	size_t rows;
	char **cell;
};

static void table_add(struct table *t, char *const *cells)
{
	size_t i;

	t->cell = kpr_xrealloc(t->cell,
			       (t->rows + 1) * t->cols * sizeof(*t->cell));
	for (i = 0; i < t->cols; i++)
		t->cell[t->rows * t->cols + i] = kpr_xstrdup(cells[i]);
	t->rows++;
}

static void table_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->rows * t->cols; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->rows = 0;
}

/**
 * table_print() - print a table and free it
 * @t: the table
 * @show: which of its columns to print: bit N for column N, from 0
 *
 * Columns are two spaces apart; no line ends in white space.
 */
static void table_print(struct table *t, unsigned int show)
{
	size_t width[KPR_MAX_COLS] = { 0 }, col[KPR_MAX_COLS];
	size_t cols = 0, r, c, len;

	for (c = 0; c < t->cols; c++) {
		if (show & (1U << c))
			col[cols++] = c;
	}
	for (r = 0; r < t->rows; r++) {
		for (c = 0; c < cols; c++) {
			len = strlen(t->cell[r * t->cols + col[c]]);
			if (len > width[c])
				width[c] = len;
		}
	}
	for (r = 0; r < t->rows && cols; r++) {
		char **row = &t->cell[r * t->cols];
		size_t last = cols - 1;

		while (last && !row[col[last]][0])
			last--;
		for (c = 0; c < last; c++)
			printf("%-*s  ", (int)width[c], row[col[c]]);
		printf("%s\n", row[col[last]]);
	}
	table_free(t);
}

/* The trimmed first line of a file, or NULL when it cannot be read. */
static char *read_setting(const struct kpr_ctx *ctx, const char *name)
{
	struct kpr_buf buf;
	char *value;

	if (kpr_read_file(ctx, name, &buf, true))
		return NULL;
	buf.text[strcspn(buf.text, "\r\n")] = '\0';
	value = kpr_xstrdup(buf.text);
	kpr_buf_free(&buf);
	return value;
}

static const char *lock_name(const char *value)
{
	if (!value)
		return "unknown";
	if (!strcmp(value, "0"))
		return "unlocked";
	if (!strcmp(value, "1"))
		return "locked";
	return value;
}

/**
 * print_settings() - the mode, the lock and the counters
 * @ctx: names the securityfs directory
 * @generation: receives the policy's generation, to free(), or NULL when
 *              the kernel does not say
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO when the stats cannot be read.
 */
static int print_settings(const struct kpr_ctx *ctx, char **generation)
{
	char *mode = read_setting(ctx, "mode");
	char *lock = read_setting(ctx, "lock");
	size_t width = strlen("mode:");
	int ret = KPR_EXIT_OK;
	struct kpr_stats st;
	size_t i;

	if (kpr_stats_read(ctx, &st))
		ret = KPR_EXIT_IO;
	for (i = 0; i < st.nr; i++) {
		if (strlen(st.stat[i].name) + 1 > width)
			width = strlen(st.stat[i].name) + 1;
	}
	width += 2;
	printf("%-*s%s\n", (int)width, "mode:",
	       mode && *mode ? mode : "unknown");
	printf("%-*s%s\n", (int)width, "lock:", lock_name(lock));
	for (i = 0; i < st.nr; i++) {
		char *label = kpr_xasprintf("%s:", st.stat[i].name);

		printf("%-*s%s\n", (int)width, label, st.stat[i].value);
		free(label);
	}
	*generation = kpr_stats_get(&st, "generation") ?
		      kpr_xstrdup(kpr_stats_get(&st, "generation")) : NULL;
	kpr_stats_free(&st);
	free(mode);
	free(lock);
	return ret;
}

/**
 * rule_row() - the cells of a rule in the status table
 * @rule: the rule
 * @origins: the rules of the files that made the policy in force, if known
 * @cells: receives PORTS, PROTO, PROGRAM, QUALIFIERS and SOURCE; to free()
 *
 * PROGRAM and QUALIFIERS come from the parser's text of the rule, so new
 * qualifiers show without a change here. SOURCE is the FILE:LINE that
 * makes the rule (kpr_origins_find()), or empty.
 *
 * Return: true if the rule has qualifiers.
 */
static bool rule_row(const struct kpr_rule *rule,
		     const struct kpr_origins *origins, char *cells[5])
{
	char protos[64], *text = kpr_format_rule(rule);
	const struct kpr_origin *origin = kpr_origins_find(origins, text);
	char *prog = text + strcspn(text, " ");
	char *quals;

	prog += strspn(prog, " ");
	quals = prog + strcspn(prog, " ");
	if (*quals)
		*quals++ = '\0';
	kpr_protos_name(rule->protos, protos, sizeof(protos));
	if (rule->first == rule->last)
		cells[0] = kpr_xasprintf("%u", rule->first);
	else
		cells[0] = kpr_xasprintf("%u-%u", rule->first, rule->last);
	cells[1] = kpr_xstrdup(protos);
	cells[2] = kpr_xstrdup(prog);
	cells[3] = kpr_xstrdup(quals);
	cells[4] = origin ? kpr_origin_name(origin) : kpr_xstrdup("");
	free(text);
	return cells[3][0];
}

/**
 * print_sources() - the files the policy in force came from
 * @generation: the generation of the policy in force, or NULL
 *
 * The kernel keeps no file names: "kportreserve load" records them in
 * KPR_SOURCES with the generation it loaded, and they are shown only
 * while that generation is still in force. After any other load ("load
 * FILE", "add", "del", a write to the kernel's load or policy file) they
 * are unknown.
 */
static void print_sources(const char *generation)
{
	char *path = kpr_root_path(KPR_SOURCES), *line, *next;
	const char *prefix = "generation ";
	struct kpr_buf rec;
	size_t n = strlen(prefix);
	int err;

	putchar('\n');
	err = kpr_read_path(path, &rec);
	if (err) {
		printf("policy files: unknown (%s: %s)\n", path,
		       err == -ENOENT ? "no kportreserve load recorded" :
		       strerror(-err));
		goto out;
	}
	line = rec.text;
	next = strchr(line, '\n');
	if (!next || strncmp(line, prefix, n)) {
		printf("policy files: unknown (%s: not a record of kportreserve load)\n",
		       path);
		goto out_rec;
	}
	*next++ = '\0';
	line += n;
	if (!generation || strcmp(line, generation)) {
		printf("policy files: unknown (%s: those of generation %s; ",
		       path, line);
		printf("generation %s is in force)\n",
		       generation ? generation : "unknown");
		goto out_rec;
	}
	printf("policy files of generation %s:%s\n", line,
	       *next ? "" : " none, the empty policy");
	for (line = next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		printf("  %s\n", line);
	}
out_rec:
	kpr_buf_free(&rec);
out:
	free(path);
}

/**
 * print_rules() - the reserved ports, one rule a row
 * @ctx: names the securityfs directory
 * @generation: the generation in force, or NULL if unknown
 *
 * QUALIFIERS shows when a rule has some, SOURCE when the files that made
 * the policy in force are known (kpr_origins_in_force()) and a rule is in
 * one of them.
 *
 * Return: KPR_EXIT_OK, or as kpr_read_policy().
 */
static int print_rules(const struct kpr_ctx *ctx, const char *generation)
{
	static char *const header[] = { "PORTS", "PROTO", "PROGRAM",
					"QUALIFIERS", "SOURCE" };
	struct table t = { .cols = 5 };
	bool quals = false, sources = false;
	struct kpr_origins origins;
	struct kpr_sources s;
	struct kpr_ruleset rs;
	struct kpr_buf text;
	char *cells[5];
	size_t i, c;
	int ret;

	ret = kpr_read_policy(ctx, &text, &rs);
	if (ret)
		return ret;
	kpr_origins_in_force(generation, &s, &origins);
	putchar('\n');
	if (!rs.nr_rules)
		puts("no reserved ports");
	table_add(&t, header);
	for (i = 0; i < rs.nr_rules; i++) {
		quals |= rule_row(&rs.rules[i], &origins, cells);
		sources |= cells[4][0] != '\0';
		table_add(&t, cells);
		for (c = 0; c < 5; c++)
			free(cells[c]);
	}
	/* PORTS, PROTO and PROGRAM always; the others when a rule has one. */
	if (rs.nr_rules)
		table_print(&t, 0x7 | (quals ? 0x8 : 0) | (sources ? 0x10 : 0));
	table_free(&t);
	kpr_origins_free(&origins);
	kpr_sources_free(&s);
	kpr_ruleset_destroy(&rs);
	kpr_buf_free(&text);
	return KPR_EXIT_OK;
}

/* A "key=value" field of a denials line, or "-". */
static char *denial_field(char *const *fields, size_t n, const char *key)
{
	size_t i, len = strlen(key);

	for (i = 1; i < n; i++) {
		if (!strncmp(fields[i], key, len) && fields[i][len] == '=')
			return fields[i] + len + 1;
	}
	return "-";
}

static void add_denial(struct table *t, char *line)
{
	static const char *const keys[] = { "denied", "would_deny", "pid",
					    "exe" };
	char *fields[16], *cells[KPR_MAX_COLS], *save = NULL, *f;
	size_t n = 0, i;

	for (f = strtok_r(line, " \t", &save); f && n < ARRAY_SIZE(fields);
	     f = strtok_r(NULL, " \t", &save))
		fields[n++] = f;
	if (!n)
		return;
	cells[0] = fields[0];
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		cells[i + 1] = denial_field(fields, n, keys[i]);
	table_add(t, cells);
}

/* The denials file as a table; "unknown" on kernels without it. */
static void print_denials(const struct kpr_ctx *ctx)
{
	static char *const header[] = { "PORT", "DENIED", "WOULD_DENY",
					"LAST_PID", "LAST_EXE" };
	struct table t = { .cols = 5 };
	struct kpr_buf buf;
	char *line, *next;

	putchar('\n');
	if (kpr_read_file(ctx, "denials", &buf, true)) {
		puts("denials: unknown");
		return;
	}
	table_add(&t, header);
	for (line = buf.text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		add_denial(&t, line);
	}
	if (t.rows > 1)
		table_print(&t, 0x1f);
	else
		puts("no denials");
	table_free(&t);
	kpr_buf_free(&buf);
}

/**
 * kpr_cmd_status() - kportreserve status
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_HELD when a socket holds a reserved port
 * against the policy (kpr_check_holders()), KPR_EXIT_IO when kportreserve
 * is not there or its stats or policy cannot be read, or KPR_EXIT_USAGE.
 */
int kpr_cmd_status(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_simple_options(argc, argv), r;
	char *generation;
	struct stat st;

	if (ret >= 0)
		return ret;
	if (optind != argc)
		return kpr_usage_error(argv[0], "takes no arguments");
	if (stat(ctx->dir, &st)) {
		kpr_err("%s: %s (is kportreserve in lsm= and securityfs mounted?)",
			ctx->dir, strerror(errno));
		return KPR_EXIT_IO;
	}
	ret = print_settings(ctx, &generation);
	print_sources(generation);
	r = print_rules(ctx, generation);
	free(generation);
	if (r > ret)
		ret = r;
	print_denials(ctx);
	if (!ret)
		ret = kpr_check_holders(ctx);
	return ret;
}

/**
 * who_proto() - list the rules that let programs bind ports over a protocol
 * @rs: the policy in force
 * @origins: the rules of the files that made it, if known
 * @query: the ports asked about
 * @proto: the protocol
 *
 * A rule that a policy file makes is followed by its FILE:LINE.
 */
static void who_proto(const struct kpr_ruleset *rs,
		      const struct kpr_origins *origins,
		      const struct kpr_rule *query, int proto)
{
	const char *name = kpr_proto_name(proto);
	char *spec, *text, *prog, *where;
	const struct kpr_origin *origin;
	bool found = false;
	size_t i;

	if (query->first == query->last)
		spec = kpr_xasprintf("%u/%s", query->first, name);
	else
		spec = kpr_xasprintf("%u-%u/%s", query->first, query->last,
				     name);
	for (i = 0; i < rs->nr_rules; i++) {
		const struct kpr_rule *r = &rs->rules[i];

		if (r->first > query->last || r->last < query->first ||
		    !(r->protos & BIT(proto)))
			continue;
		text = kpr_format_rule(r);
		origin = kpr_origins_find(origins, text);
		where = origin ? kpr_origin_name(origin) : NULL;
		prog = text + strcspn(text, " ");
		*prog++ = '\0';
		if (strcmp(text, spec))
			printf("%s: %s (rule %s)", spec, prog, text);
		else
			printf("%s: %s", spec, prog);
		if (where)
			printf(" (%s)", where);
		putchar('\n');
		free(where);
		free(text);
		found = true;
	}
	if (!found)
		printf("%s: not reserved (any program may bind it)\n", spec);
	free(spec);
}

/**
 * who_generation() - the generation in force, for the sources of rules
 * @ctx: names the securityfs directory
 *
 * The stats are read only when a load of the policy files left a record:
 * without one no source is known, and "who" needs no stats.
 *
 * Return: the generation, to free(), or NULL.
 */
static char *who_generation(const struct kpr_ctx *ctx)
{
	char *record = kpr_root_path(KPR_SOURCES), *generation = NULL;
	struct kpr_stats st;

	if (!access(record, F_OK) && !kpr_stats_read(ctx, &st)) {
		if (kpr_stats_get(&st, "generation"))
			generation = kpr_xstrdup(kpr_stats_get(&st,
							       "generation"));
		kpr_stats_free(&st);
	}
	free(record);
	return generation;
}

/**
 * kpr_cmd_who() - kportreserve who PORT[/PROTO]
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_USAGE, KPR_EXIT_IO or KPR_EXIT_POLICY.
 */
int kpr_cmd_who(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_simple_options(argc, argv), p;
	struct kpr_origins origins;
	struct kpr_sources s;
	struct kpr_ruleset rs;
	struct kpr_rule query;
	struct kpr_buf text;
	char *generation;

	if (ret >= 0)
		return ret;
	if (argc - optind != 1)
		return kpr_usage_error(argv[0], "expected one PORT[/PROTO]");
	ret = kpr_parse_port_spec(argv[optind], &query);
	if (ret)
		return ret;
	ret = kpr_read_policy(ctx, &text, &rs);
	if (ret)
		return ret;
	generation = who_generation(ctx);
	kpr_origins_in_force(generation, &s, &origins);
	free(generation);
	for (p = 0; p < KPR_NR_PROTOS; p++) {
		if (query.protos & BIT(p))
			who_proto(&rs, &origins, &query, p);
	}
	kpr_origins_free(&origins);
	kpr_sources_free(&s);
	kpr_ruleset_destroy(&rs);
	kpr_buf_free(&text);
	return KPR_EXIT_OK;
}
