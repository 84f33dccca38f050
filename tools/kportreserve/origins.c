// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the file and line of the policy files each rule comes
 * from.
 *
 * The kernel keeps the rules of a policy in canonical order, without the
 * files, lines and comments they came from, and "load" records only which
 * files it assembled (sources.c). To name the FILE:LINE of a rule, "diff",
 * "status" and "who" take the files as a load reads them (unit= and names
 * spelled, links resolved) and parse each line alone: a rule is then
 * known by its canonical text, which is what the kernel prints. The same
 * index finds the ports that two files reserve.
 */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kportreserve.h"

/* Blanks as the policy language has them. */
static const char blanks[] = " \t\r\v\f";

/**
 * add_rules() - add the rules of one line of a file to the index
 * @o: the index
 * @cap: the allocated entries of @o->o, grown here
 * @src: the file
 * @nr: the number of the line in @src
 * @line: the line, without its newline
 * @len: its length
 *
 * The line is parsed alone, by the kernel's parser: a line with a uid=
 * list makes a rule per id, and a line that does not parse, which a load
 * leaves out, makes none.
 */
static void add_rules(struct kpr_origins *o, size_t *cap,
		      const struct kpr_source *src, unsigned int nr,
		      const char *line, size_t len)
{
	struct kpr_ruleset rs = { 0 };
	struct kpr_origin *origin;
	unsigned int err_line;
	const char *msg;
	size_t i;

	if (!kpr_parse_policy(line, len, &rs, &err_line, &msg)) {
		for (i = 0; i < rs.nr_rules; i++) {
			if (o->nr == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				o->o = kpr_xrealloc(o->o, *cap * sizeof(*o->o));
			}
			origin = &o->o[o->nr];
			*origin = (struct kpr_origin){
				.rule = kpr_format_rule(&rs.rules[i]),
				.src = src,
				.line = nr,
				.order = o->nr,
				.first = rs.rules[i].first,
				.last = rs.rules[i].last,
				.protos = rs.rules[i].protos,
			};
			o->nr++;
		}
	}
	kpr_ruleset_destroy(&rs);
}

/* Whether a line holds no rule: blank, or a comment. */
static bool no_rule(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(blanks, line[i]))
		i++;
	return i == len || line[i] == '#';
}

/* By canonical text, then in load order: the first of equal rules first. */
static int origin_cmp(const void *a, const void *b)
{
	const struct kpr_origin *x = a, *y = b;
	int c = strcmp(x->rule, y->rule);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/**
 * kpr_origins_build() - index the rules of the policy files
 * @s: the files, read (kpr_sources_read_for_load(), or as check reads
 *     them); they must outlive the index, which points into them
 * @o: receives the rules; free with kpr_origins_free()
 *
 * Each line of each file is parsed alone, so that every rule keeps its
 * line; a file that could not be read has none.
 */
void kpr_origins_build(const struct kpr_sources *s, struct kpr_origins *o)
{
	size_t i, start, end, cap = 0;
	const struct kpr_buf *b;
	unsigned int nr;

	o->o = NULL;
	o->nr = 0;
	for (i = 0; i < s->nr; i++) {
		b = &s->src[i].text;
		nr = 0;
		for (start = 0; b->text && start < b->len; start = end + 1) {
			const char *nl = memchr(b->text + start, '\n',
						b->len - start);

			end = nl ? (size_t)(nl - b->text) : b->len;
			nr++;
			if (!no_rule(b->text + start, end - start))
				add_rules(o, &cap, &s->src[i], nr,
					  b->text + start, end - start);
		}
	}
	if (o->nr)
		qsort(o->o, o->nr, sizeof(*o->o), origin_cmp);
}

/**
 * kpr_origins_find() - where a rule comes from
 * @o: the index
 * @rule: the canonical text of the rule (kpr_format_rule())
 *
 * Return: the first line of the files, in load order, that makes @rule,
 * or NULL when none does.
 */
const struct kpr_origin *kpr_origins_find(const struct kpr_origins *o,
					  const char *rule)
{
	size_t lo = 0, hi = o->nr, mid;

	/* The lowest index whose rule is not before @rule. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(o->o[mid].rule, rule) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->nr && !strcmp(o->o[lo].rule, rule) ? &o->o[lo] : NULL;
}

/**
 * kpr_origin_name() - "FILE:LINE" of a rule, for the output
 * @origin: where the rule is
 *
 * The file is written as the record and "status" write it
 * (kpr_escape_path()), so that it is one field on one line.
 *
 * Return: the text, to free().
 */
char *kpr_origin_name(const struct kpr_origin *origin)
{
	char *path = kpr_escape_path(origin->src->path);
	char *name = kpr_xasprintf("%s:%u", path, origin->line);

	free(path);
	return name;
}

/**
 * kpr_origins_free() - free an index of rules
 * @o: the index; left empty
 */
void kpr_origins_free(struct kpr_origins *o)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		free(o->o[i].rule);
	free(o->o);
	o->o = NULL;
	o->nr = 0;
}

/* By first port, then in load order. */
static int first_port_cmp(const void *a, const void *b)
{
	const struct kpr_origin *x = *(const struct kpr_origin *const *)a;
	const struct kpr_origin *y = *(const struct kpr_origin *const *)b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/**
 * struct reach - the rules of one protocol that reach the highest ports
 * @far: of the rules swept so far, one whose last port is the highest
 * @other: the same among the rules of other files than @far's
 *
 * With both, the rule of another file than any given one that reaches
 * furthest is known at once: @far, or @other when @far is of that file.
 */
struct reach {
	const struct kpr_origin *far;
	const struct kpr_origin *other;
};

/* Count @r in @reach; of equal last ports, the rule swept first stays. */
static void reach_add(struct reach *reach, const struct kpr_origin *r)
{
	if (!reach->far || r->last > reach->far->last) {
		if (reach->far && reach->far->src != r->src)
			reach->other = reach->far;
		reach->far = r;
	} else if (r->src != reach->far->src &&
		   (!reach->other || r->last > reach->other->last)) {
		reach->other = r;
	}
}

/* A rule of another file than @r's, swept before it, that overlaps it. */
static const struct kpr_origin *overlapping(const struct reach *reach,
					    const struct kpr_origin *r)
{
	const struct kpr_origin *c = reach->far;

	if (c && c->src == r->src)
		c = reach->other;
	return c && c->last >= r->first ? c : NULL;
}

/* Say that two rules of different files reserve the same ports. */
static void note_overlap(const struct kpr_origin *a, const struct kpr_origin *b)
{
	const struct kpr_origin *x = a->order < b->order ? a : b;
	const struct kpr_origin *y = x == a ? b : a;
	unsigned int first = x->first > y->first ? x->first : y->first;
	unsigned int last = x->last < y->last ? x->last : y->last;
	unsigned int protos = x->protos & y->protos;
	char ports[16], names[64] = "";

	if (first == last)
		snprintf(ports, sizeof(ports), "%u", first);
	else
		snprintf(ports, sizeof(ports), "%u-%u", first, last);
	if (protos != KPR_PROTO_ALL) {
		names[0] = '/';
		kpr_protos_name(protos, names + 1, sizeof(names) - 1);
	}
	kpr_log(KPR_PRIO_NOTICE,
		"kportreserve: note: %s%s is reserved in %s:%u and in %s:%u",
		ports, names, x->src->path, x->line, y->src->path, y->line);
}

/**
 * kpr_origins_note_overlaps() - name the ports that two files reserve
 * @o: the rules of the policy files
 *
 * A port may be reserved for several programs, and a package and the
 * administrator may both name one: that is allowed, and said, since it
 * may as well be a mistake. Rules of one file are not compared. The
 * rules are swept by first port, keeping per protocol the rules that
 * reach furthest (struct reach), so that a generated policy of many
 * rules costs O(n log n) and not a comparison of every pair: each rule
 * that overlaps a rule of another file before it is named once per
 * protocol at most, with the one of those that reaches furthest, rather
 * than with each of them.
 */
void kpr_origins_note_overlaps(const struct kpr_origins *o)
{
	const struct kpr_origin **by_port, *r, *c, *seen[KPR_NR_PROTOS];
	struct reach reach[KPR_NR_PROTOS] = { 0 };
	size_t i, k, n;
	int p;

	by_port = kpr_xmalloc(o->nr * sizeof(*by_port));
	for (i = 0; i < o->nr; i++)
		by_port[i] = &o->o[i];
	if (o->nr)
		qsort(by_port, o->nr, sizeof(*by_port), first_port_cmp);
	for (i = 0; i < o->nr; i++) {
		r = by_port[i];
		n = 0;
		for (p = 0; p < KPR_NR_PROTOS; p++) {
			c = r->protos & BIT(p) ? overlapping(&reach[p], r) :
						 NULL;
			for (k = 0; c && k < n; k++)
				if (seen[k] == c)
					c = NULL;
			if (c) {
				seen[n++] = c;
				note_overlap(c, r);
			}
		}
		for (p = 0; p < KPR_NR_PROTOS; p++)
			if (r->protos & BIT(p))
				reach_add(&reach[p], r);
	}
	free(by_port);
}

/**
 * silence_stderr() - send standard error to /dev/null for a while
 *
 * Return: a copy of the real standard error, for restore_stderr(), or -1
 * when it cannot be done.
 */
static int silence_stderr(void)
{
	int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (null >= 0)
		close(null);
	return saved;
}

static void restore_stderr(int saved)
{
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/**
 * kpr_origins_in_force() - where the rules of the policy in force come from
 * @generation: the generation of the policy in force, or NULL if unknown
 * @s: receives the files of the record; free with kpr_sources_free()
 * @o: receives their rules; free with kpr_origins_free()
 *
 * When the record of the last load of the policy files is that of the
 * generation in force (kpr_sources_recorded()), those files made the
 * policy in force: they are read again as that load read them, in
 * silence, since what it had to say about them it said then. A file
 * changed since gives the rules it has now; a rule no longer in any file
 * has no origin.
 *
 * Return: true when the record is that of @generation; else @s and @o
 * are empty.
 */
bool kpr_origins_in_force(const char *generation, struct kpr_sources *s,
			  struct kpr_origins *o)
{
	struct kpr_programs progs = { .load = true, .lenient = true };
	int saved;

	o->o = NULL;
	o->nr = 0;
	if (!kpr_sources_recorded(generation, s))
		return false;
	saved = silence_stderr();
	if (saved < 0)
		return true;
	kpr_sources_read_for_load(s, &progs);
	restore_stderr(saved);
	free(progs.first_missing);
	kpr_origins_build(s, o);
	return true;
}
