// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "add" and "del" edit the policy in force, as the add
 * and delete lines of the 2013 interface did.
 *
 * The kernel only replaces whole policies, so an edit reads the policy in
 * force, changes it through the parser and writes the result back. To
 * avoid undoing a concurrent load, the generation in the stats file is
 * read before the policy and again just before the write; if it changed,
 * the edit starts over, a few times at most.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kportreserve.h"

#define KPR_EDIT_ATTEMPTS	3
#define KPR_EDIT_RETRY		(-1)
#define KPR_EDIT_NOTHING	(-2)

static bool has_rule(const struct kpr_ruleset *rs, size_t i, const char *rule)
{
	char *text = kpr_format_rule(&rs->rules[i]);
	bool same = !strcmp(text, rule);

	free(text);
	return same;
}

/**
 * add_rule() - the policy with one more rule
 * @text: the policy in force
 * @rs: its rules
 * @rule: canonical text of the rule
 * @out: receives the new policy, to free()
 * @out_len: receives its length
 *
 * The rule is appended to the text and the whole parsed again, which puts
 * it in canonical order.
 *
 * Return: KPR_EXIT_OK, KPR_EDIT_NOTHING if the rule is there already, or
 * KPR_EXIT_POLICY if the result does not parse (a limit).
 */
static int add_rule(const struct kpr_buf *text, const struct kpr_ruleset *rs,
		    const char *rule, char **out, size_t *out_len)
{
	bool newline = text->len && text->text[text->len - 1] != '\n';
	struct kpr_ruleset new = { 0 };
	unsigned int line;
	const char *msg;
	char *joined;
	size_t i;
	int ret = KPR_EXIT_OK;

	for (i = 0; i < rs->nr_rules; i++) {
		if (has_rule(rs, i, rule))
			return KPR_EDIT_NOTHING;
	}
	joined = kpr_xasprintf("%s%s%s\n", text->text, newline ? "\n" : "",
			       rule);
	if (kpr_parse_policy(joined, strlen(joined), &new, &line, &msg)) {
		kpr_err("cannot add '%s': %s", rule, msg);
		ret = KPR_EXIT_POLICY;
	} else {
		*out = kpr_format_ruleset(&new, out_len);
	}
	kpr_ruleset_destroy(&new);
	free(joined);
	return ret;
}

/**
 * del_rule() - the policy without a rule
 * @rs: the rules of the policy in force; the rule is removed from them
 * @rule: canonical text of the rule
 * @out: receives the new policy, to free()
 * @out_len: receives its length
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY if no rule is exactly @rule.
 */
static int del_rule(struct kpr_ruleset *rs, const char *rule, char **out,
		    size_t *out_len)
{
	size_t i, kept = 0;

	for (i = 0; i < rs->nr_rules; i++) {
		if (!has_rule(rs, i, rule))
			rs->rules[kept++] = rs->rules[i];
	}
	if (kept == rs->nr_rules) {
		kpr_err("no rule '%s' in the policy in force", rule);
		return KPR_EXIT_POLICY;
	}
	rs->nr_rules = kept;
	*out = kpr_format_ruleset(rs, out_len);
	return KPR_EXIT_OK;
}

/* The test aid of kportreserve(8): a command run just before the write. */
static void run_test_hook(void)
{
	const char *cmd = getenv(KPR_HOOK_ENV);

	if (!cmd || !*cmd)
		return;
	fflush(stdout);
	if (system(cmd) == -1)
		kpr_err("%s: cannot run the command", KPR_HOOK_ENV);
}

/* Whether the generation is still @gen; @now receives the current one. */
static int same_generation(const struct kpr_ctx *ctx, unsigned long long gen,
			   unsigned long long *now)
{
	if (kpr_read_generation(ctx, now))
		return KPR_EXIT_IO;
	return *now == gen ? KPR_EXIT_OK : KPR_EDIT_RETRY;
}

/**
 * try_edit() - one attempt at an edit of the policy in force
 * @ctx: names the securityfs directory
 * @rule: canonical text of the rule to add or delete
 * @add: add the rule, else delete it
 * @gen: receives the generation the edit started from
 * @now: receives the generation found when it changed
 *
 * Return: an exit code, KPR_EDIT_NOTHING when the rule is there already,
 * or KPR_EDIT_RETRY when the policy changed under the edit.
 */
static int try_edit(const struct kpr_ctx *ctx, const char *rule, bool add,
		    unsigned long long *gen, unsigned long long *now)
{
	struct kpr_ruleset rs;
	struct kpr_buf text;
	char *out = NULL;
	size_t len;
	int ret;

	if (kpr_read_generation(ctx, gen))
		return KPR_EXIT_IO;
	ret = kpr_read_policy(ctx, &text, &rs);
	if (ret)
		return ret;
	ret = same_generation(ctx, *gen, now);
	if (!ret) {
		if (add)
			ret = add_rule(&text, &rs, rule, &out, &len);
		else
			ret = del_rule(&rs, rule, &out, &len);
	}
	if (!ret) {
		run_test_hook();
		ret = same_generation(ctx, *gen, now);
	}
	if (!ret)
		ret = kpr_write_policy(ctx, "the new policy", out, len);
	free(out);
	kpr_ruleset_destroy(&rs);
	kpr_buf_free(&text);
	return ret;
}

/**
 * edit_rule() - add or delete a rule given on the command line
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 * @add: add the rule, else delete it
 *
 * Return: the exit code.
 */
static int edit_rule(struct kpr_ctx *ctx, int argc, char **argv, bool add)
{
	unsigned long long gen = 0, now = 0;
	int ret = kpr_simple_options(argc, argv), attempt;
	struct kpr_ruleset rs;
	char *rule;

	if (ret >= 0)
		return ret;
	if (argc - optind < 2)
		return kpr_usage_error(argv[0],
				       "expected PORTS[/PROTO] PROGRAM [QUALIFIER...]");
	ret = kpr_parse_rule_args(argc - optind, argv + optind, &rs, &rule);
	if (ret)
		return ret;
	for (attempt = 1; attempt <= KPR_EDIT_ATTEMPTS; attempt++) {
		ret = try_edit(ctx, rule, add, &gen, &now);
		if (ret != KPR_EDIT_RETRY)
			break;
		kpr_err("the policy changed during the edit (generation %llu, now %llu)%s",
			gen, now,
			attempt < KPR_EDIT_ATTEMPTS ? "; trying again" : "");
	}
	if (ret == KPR_EDIT_RETRY) {
		kpr_err("gave up after %d attempts; nothing was written",
			KPR_EDIT_ATTEMPTS);
		ret = KPR_EXIT_RACE;
	} else if (ret == KPR_EDIT_NOTHING) {
		printf("already in the policy: %s\n", rule);
		ret = KPR_EXIT_OK;
	} else if (!ret) {
		printf("%s: %s\n", add ? "added" : "deleted", rule);
	}
	free(rule);
	kpr_ruleset_destroy(&rs);
	return ret;
}

int kpr_cmd_add(struct kpr_ctx *ctx, int argc, char **argv)
{
	return edit_rule(ctx, argc, argv, true);
}

int kpr_cmd_del(struct kpr_ctx *ctx, int argc, char **argv)
{
	return edit_rule(ctx, argc, argv, false);
}
