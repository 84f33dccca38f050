// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "diff" shows what "load" without a file would change in
 * the policy in force, and loads nothing.
 *
 * The policy files are assembled as load_system() assembles them (bad
 * lines left out, links resolved, unit= and names spelled), with the same
 * warnings, and compared rule by rule with the policy in force, in the
 * parser's canonical text: a rule is the same rule however a file spells
 * it. As diff -u prints lines, "+RULE  (FILE:LINE)" is a rule the load
 * would add, "-RULE" one it would drop; a rule it keeps prints nothing.
 * A last line counts them, and the exit code is diff(1)'s, so that a
 * script can ask whether a load is due.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kportreserve.h"

/**
 * struct side - one policy of the comparison
 * @rs: its rules, in the parser's canonical order
 * @text: the canonical text of each rule, in that order
 * @sorted: the same texts sorted by strcmp(), to look one up
 */
struct side {
	struct kpr_ruleset rs;
	char **text;
	char **sorted;
};

/**
 * struct tally - what a load would do to the policy in force
 * @add: rules it would add
 * @drop: rules it would drop
 * @same: rules it would keep
 */
struct tally {
	size_t add;
	size_t drop;
	size_t same;
};

static int text_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Take @rs into @side, with the texts of its rules; @rs is left empty. */
static void side_init(struct side *side, struct kpr_ruleset *rs)
{
	size_t i, n = rs->nr_rules;

	side->rs = *rs;
	memset(rs, 0, sizeof(*rs));
	side->text = kpr_xmalloc(n * sizeof(*side->text));
	side->sorted = kpr_xmalloc(n * sizeof(*side->sorted));
	for (i = 0; i < n; i++)
		side->text[i] = kpr_format_rule(&side->rs.rules[i]);
	memcpy(side->sorted, side->text, n * sizeof(*side->text));
	if (n)
		qsort(side->sorted, n, sizeof(*side->sorted), text_cmp);
}

static void side_free(struct side *side)
{
	size_t i;

	for (i = 0; i < side->rs.nr_rules; i++)
		free(side->text[i]);
	free(side->text);
	free(side->sorted);
	kpr_ruleset_destroy(&side->rs);
}

static bool side_has(const struct side *side, const char *text)
{
	return bsearch(&text, side->sorted, side->rs.nr_rules,
		       sizeof(*side->sorted), text_cmp);
}

/* Whether rule @a's ports come before rule @b's, as the parser orders. */
static bool ports_before(const struct kpr_rule *a, const struct kpr_rule *b)
{
	return a->first < b->first ||
	       (a->first == b->first && a->last < b->last);
}

static void print_add(const char *text, const struct kpr_origins *o)
{
	const struct kpr_origin *origin = kpr_origins_find(o, text);
	char *name;

	if (!origin) {
		printf("+%s\n", text);
		return;
	}
	name = kpr_origin_name(origin);
	printf("+%s  (%s)\n", text, name);
	free(name);
}

/**
 * print_changes() - print what a load would change, in policy order
 * @old: the policy in force
 * @new: the policy of the files
 * @o: where the rules of the files come from
 * @t: receives the counts
 *
 * Both policies are in the parser's canonical order, without duplicates,
 * so walking them side by side meets the rules they share in step; of a
 * rule dropped and a rule added at the same place, the one with the
 * lower ports comes first, the dropped one on a tie.
 */
static void print_changes(const struct side *old, const struct side *new,
			  const struct kpr_origins *o, struct tally *t)
{
	size_t i = 0, j = 0, n_old = old->rs.nr_rules, n_new = new->rs.nr_rules;
	bool drop;

	while (i < n_old || j < n_new) {
		if (i < n_old && j < n_new &&
		    !strcmp(old->text[i], new->text[j])) {
			i++;
			j++;
			t->same++;
			continue;
		}
		if (i == n_old || j == n_new)
			drop = i < n_old;
		else if (side_has(new, old->text[i]))
			drop = false;
		else if (side_has(old, new->text[j]))
			drop = true;
		else
			drop = !ports_before(&new->rs.rules[j],
					     &old->rs.rules[i]);
		if (drop) {
			printf("-%s\n", old->text[i++]);
			t->drop++;
		} else {
			print_add(new->text[j++], o);
			t->add++;
		}
	}
}

/**
 * assemble_files() - the policy that "load" would put in force
 * @ctx: names the securityfs directory, and the files in messages
 * @s: receives the files, read as a load reads them; free with
 *     kpr_sources_free()
 * @rs: receives the policy of the files; free with kpr_ruleset_destroy()
 * @keep: receives true when the load would keep the policy in force (a
 *        boot policy, and files without a rule: kpr_keeps_boot_policy())
 *
 * As load_system(), with its warnings: what a file cannot apply is left
 * out, and said.
 *
 * Return: KPR_EXIT_OK; KPR_EXIT_IO when a directory of policy files
 * cannot be read, or KPR_EXIT_REFUSED when the files as a whole are over
 * a limit: the load would load nothing. Each after a message.
 */
static int assemble_files(struct kpr_ctx *ctx, struct kpr_sources *s,
			  struct kpr_ruleset *rs, bool *keep)
{
	struct kpr_programs progs = { .load = true, .lenient = true };
	unsigned int line;
	const char *msg;
	size_t len;
	char *text;
	int ret;

	memset(rs, 0, sizeof(*rs));
	*keep = false;
	ret = kpr_sources_find(s);
	if (ret != KPR_EXIT_OK)
		return ret;
	kpr_sources_read_for_load(s, &progs);
	kpr_programs_summary(&progs);
	free(progs.first_missing);
	text = kpr_sources_assemble(s, &len);
	if (kpr_check_assembled(ctx, s, text, len)) {
		kpr_err("a load would load nothing; the policy in force would stay");
		ret = KPR_EXIT_REFUSED;
	} else if (kpr_keeps_boot_policy(ctx, text, len)) {
		*keep = true;
	} else {
		/* It parsed as a whole just above. */
		kpr_parse_policy(text, len, rs, &line, &msg);
	}
	free(text);
	return ret;
}

/**
 * kpr_cmd_diff() - kportreserve diff
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * The ports that two files reserve are noted first, as "check" notes
 * them; then the changes and their counts are printed.
 *
 * Return: as diff(1), KPR_EXIT_OK when a load of the policy files would
 * change nothing, 1 when it would add or drop a rule; KPR_EXIT_IO when
 * the policy in force or a directory of policy files cannot be read,
 * KPR_EXIT_REFUSED when the load would load nothing, KPR_EXIT_USAGE.
 */
int kpr_cmd_diff(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_simple_options(argc, argv);
	struct kpr_ruleset in_force, files;
	struct side old, new = { 0 };
	struct kpr_origins origins;
	struct tally t = { 0 };
	struct kpr_sources s;
	struct kpr_buf text;
	bool keep;

	if (ret >= 0)
		return ret;
	if (optind != argc)
		return kpr_usage_error(argv[0], "takes no arguments");
	if (kpr_read_policy(ctx, &text, &in_force))
		return KPR_EXIT_IO;
	kpr_buf_free(&text);
	side_init(&old, &in_force);
	ret = assemble_files(ctx, &s, &files, &keep);
	if (ret == KPR_EXIT_OK) {
		side_init(&new, &files);
		kpr_origins_build(&s, &origins);
		kpr_origins_note_overlaps(&origins);
		print_changes(&old, keep ? &old : &new, &origins, &t);
		printf("%zu to add, %zu to drop, %zu unchanged\n", t.add,
		       t.drop, t.same);
		kpr_origins_free(&origins);
		side_free(&new);
		ret = t.add || t.drop ? 1 : KPR_EXIT_OK;
	}
	side_free(&old);
	kpr_sources_free(&s);
	return ret;
}
