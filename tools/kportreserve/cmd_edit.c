// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "add" and "del" edit the policy in force, as the add
 * and delete lines of the 2013 interface did.
 *
 * The kernel only replaces whole policies, so an edit reads the policy in
 * force, changes it through the parser and loads the result in one
 * write() to the load file, as a conditional load: the text starts with
 * the line "generation N", N being the generation of the policy that was
 * read, and the kernel puts it in force only if that policy is still in
 * force; otherwise the write() fails with ESTALE and nothing changes. The
 * generation comes from the stats file, read before and after the policy
 * file so that text and generation belong together. When another load
 * came in between (the two generations differ, or ESTALE), the edit
 * starts over from the policy now in force, after a short random pause,
 * a few times at most, so that a concurrent load is never undone and two
 * edits at once both land.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kportreserve.h"

#define KPR_EDIT_ATTEMPTS	10
#define KPR_EDIT_RETRY		(-1)
#define KPR_EDIT_NOTHING	(-2)
#define KPR_EDIT_ABSENT		(-3)

/* Whether rule @i of @rs is one of @rules, one canonical rule a line. */
static bool has_rule(const struct kpr_ruleset *rs, size_t i, const char *rules)
{
	char *text = kpr_format_rule(&rs->rules[i]);
	bool same = kpr_rules_have(rules, text);

	free(text);
	return same;
}

/* How many rules of @rs are among @rules: as many as its lines, or fewer. */
static size_t count_rules(const struct kpr_ruleset *rs, const char *rules)
{
	size_t i, n = 0;

	for (i = 0; i < rs->nr_rules; i++)
		n += has_rule(rs, i, rules);
	return n;
}

static size_t count_lines(const char *rules)
{
	size_t n = 1;

	for (; *rules; rules++)
		n += *rules == '\n';
	return n;
}

/**
 * add_rule() - the policy with more rules
 * @text: the policy in force
 * @rs: its rules
 * @rule: canonical text of the rules, one a line (uid=0,33 gives two)
 * @out: receives the new policy, to free()
 * @out_len: receives its length
 *
 * The rule is appended to the text and the whole parsed again, which puts
 * it in canonical order.
 *
 * Return: KPR_EXIT_OK, KPR_EDIT_NOTHING if each rule is there already, or
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
	int ret = KPR_EXIT_OK;

	if (count_rules(rs, rule) == count_lines(rule))
		return KPR_EDIT_NOTHING;
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
 * del_rule() - the policy without some rules
 * @rs: the rules of the policy in force; the rules are removed from them
 * @rule: canonical text of the rules, one a line
 * @out: receives the new policy, to free()
 * @out_len: receives its length
 *
 * Return: KPR_EXIT_OK; KPR_EDIT_ABSENT if none of the rules is in the
 * policy, KPR_EXIT_POLICY after a message if only some are.
 */
static int del_rule(struct kpr_ruleset *rs, const char *rule, char **out,
		    size_t *out_len)
{
	size_t i, kept = 0;

	kept = count_rules(rs, rule);
	if (!kept)
		return KPR_EDIT_ABSENT;
	if (kept != count_lines(rule)) {
		kpr_err("no rule '%s' in the policy in force", rule);
		return KPR_EXIT_POLICY;
	}
	kept = 0;
	for (i = 0; i < rs->nr_rules; i++) {
		if (!has_rule(rs, i, rule))
			rs->rules[kept++] = rs->rules[i];
	}
	rs->nr_rules = kept;
	*out = kpr_format_ruleset(rs, out_len);
	return KPR_EXIT_OK;
}

/* The edit of the rules @rs of @text: add_rule() or del_rule(). */
static int edit(const struct kpr_buf *text, struct kpr_ruleset *rs,
		const char *rule, bool add, char **out, size_t *out_len)
{
	if (add)
		return add_rule(text, rs, rule, out, out_len);
	return del_rule(rs, rule, out, out_len);
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

/**
 * read_generation() - the generation of the policy in force
 * @ctx: names the securityfs directory
 * @generation: receives it, in decimal as the stats file shows it, to
 *              free()
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after an error message when the
 * stats file cannot be read or shows no generation: without one, an edit
 * could not be a conditional load and might undo another.
 */
static int read_generation(const struct kpr_ctx *ctx, char **generation)
{
	struct kpr_stats st;
	const char *value;
	int ret = KPR_EXIT_OK;

	*generation = NULL;
	if (kpr_stats_read(ctx, &st))
		return KPR_EXIT_IO;
	value = kpr_stats_get(&st, "generation");
	if (value && *value && !value[strspn(value, "0123456789")]) {
		*generation = kpr_xstrdup(value);
	} else {
		kpr_err("%s/stats: no generation, which add and del need",
			ctx->dir);
		ret = KPR_EXIT_IO;
	}
	kpr_stats_free(&st);
	return ret;
}

/**
 * read_in_force() - read the policy in force and its generation together
 * @ctx: names the securityfs directory
 * @generation: receives the generation of @text, to free()
 * @text: receives the policy in force; free with kpr_buf_free()
 * @rs: receives its rules; free with kpr_ruleset_destroy()
 *
 * The policy file gives the policy in force and the stats file its
 * generation, each in a read of its own, so the generation is read before
 * and after the policy: generations only grow, so when both reads give the
 * same one, no policy was loaded in between and @text is the policy of
 * that generation. A conditional load of the edited text with it then
 * replaces exactly the policy that was edited.
 *
 * Return: KPR_EXIT_OK; KPR_EDIT_RETRY when another load came in between
 * the reads; or an exit code, after an error message. Nothing is left to
 * free unless KPR_EXIT_OK.
 */
static int read_in_force(const struct kpr_ctx *ctx, char **generation,
			 struct kpr_buf *text, struct kpr_ruleset *rs)
{
	char *again = NULL;
	int ret;

	ret = read_generation(ctx, generation);
	if (ret)
		return ret;
	if (kpr_read_file(ctx, "policy", text, false)) {
		ret = KPR_EXIT_IO;
		goto out;
	}
	ret = read_generation(ctx, &again);
	if (!ret && strcmp(*generation, again))
		ret = KPR_EDIT_RETRY;
	if (ret)
		kpr_buf_free(text);
	else
		ret = kpr_parse_in_force(ctx, text, rs);
out:
	free(again);
	if (ret) {
		free(*generation);
		*generation = NULL;
	}
	return ret;
}

/**
 * try_edit() - one attempt at an edit of the policy in force
 * @ctx: names the securityfs directory
 * @rule: canonical text of the rule to add or delete
 * @add: add the rule, else delete it
 *
 * Reads the policy in force and its generation (read_in_force()), edits
 * it, and loads the result on the condition that the generation is still
 * in force (kpr_write_policy()). An edit that would change nothing, or
 * that is wrong, loads nothing and says so, locked policy or not.
 *
 * Return: an exit code; KPR_EDIT_NOTHING when the rule is there already,
 * KPR_EDIT_ABSENT when a rule to delete is not, or KPR_EDIT_RETRY when
 * another load came in between; nothing changed then.
 */
static int try_edit(const struct kpr_ctx *ctx, const char *rule, bool add)
{
	struct kpr_ruleset rs;
	struct kpr_buf text;
	char *generation, *out = NULL;
	size_t len;
	int ret;

	ret = read_in_force(ctx, &generation, &text, &rs);
	if (ret)
		return ret;
	ret = edit(&text, &rs, rule, add, &out, &len);
	if (!ret) {
		run_test_hook();
		ret = kpr_write_policy(ctx, "the new policy", generation, out,
				       len);
		if (ret == -ESTALE)
			ret = KPR_EDIT_RETRY;
	}
	free(out);
	free(generation);
	kpr_ruleset_destroy(&rs);
	kpr_buf_free(&text);
	return ret;
}

/*
 * Wait up to 10 ms per attempt made, at random, so that edits that keep
 * overtaking each other fall out of step.
 */
static void back_off(int attempt)
{
	struct timespec ts = {
		.tv_nsec = (rand() % (attempt * 10000) + 1) * 1000L,
	};

	nanosleep(&ts, NULL);
}

/* "WHAT: RULE", a line per rule. */
static void print_rules(const char *what, const char *rules)
{
	const char *p;
	int n;

	for (p = rules; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		printf("%s: %.*s\n", what, n, p);
	}
}

/**
 * resolve_programs() - the rules as the kernel gets them
 * @ctx: says whether to --resolve
 * @rule: canonical text of the rules
 * @resolved: receives the text with the program's resolved path, or a
 *            copy of @rule; to free()
 *
 * The running policy holds real paths only (programs.c), so an edit of it
 * names the program as a load would resolve it.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY when the program is not a
 * regular file.
 */
static int resolve_programs(const struct kpr_ctx *ctx, const char *rule,
			    char **resolved)
{
	struct kpr_programs progs = { .load = true, .resolve = ctx->resolve };
	size_t fixed_len;
	char *fixed;
	int ret;

	ret = kpr_check_programs(&progs, NULL, rule, strlen(rule), &fixed,
				 &fixed_len);
	kpr_programs_summary(&progs);
	free(progs.first_missing);
	*resolved = fixed ? fixed : kpr_xstrdup(rule);
	return ret;
}

/**
 * edit_running() - add or delete rules in the policy in force
 * @ctx: names the securityfs directory
 * @rule: canonical text of the rules, programs resolved
 * @add: add the rules, else delete them
 *
 * Return: an exit code, or KPR_EDIT_NOTHING when add found every rule in
 * force already.
 */
static int edit_running(const struct kpr_ctx *ctx, const char *rule, bool add)
{
	int ret = KPR_EDIT_RETRY, attempt;

	srand(getpid());
	for (attempt = 1; attempt <= KPR_EDIT_ATTEMPTS; attempt++) {
		ret = try_edit(ctx, rule, add);
		if (ret != KPR_EDIT_RETRY)
			break;
		kpr_err("another policy was loaded during the edit%s",
			attempt < KPR_EDIT_ATTEMPTS ? "; trying again" : "");
		if (attempt < KPR_EDIT_ATTEMPTS)
			back_off(attempt);
	}
	if (ret == KPR_EDIT_RETRY) {
		kpr_err("gave up after %d attempts; nothing was loaded",
			KPR_EDIT_ATTEMPTS);
		ret = KPR_EXIT_RACE;
	}
	return ret;
}

/**
 * save_edit() - make an edit of the policy in force last
 * @ctx: says whether the edit is --runtime
 * @written: the rule as written on the command line
 * @rule: its canonical rules, programs as written
 * @real: the same, programs resolved
 * @add: add the rules, else delete them
 * @in_force: whether the rules were in force before a delete
 *
 * Return: KPR_EXIT_OK; KPR_EXIT_POLICY when del found the rules neither
 * in force nor in the file; KPR_EXIT_IO when the file cannot be written.
 */
static int save_edit(const struct kpr_ctx *ctx, const char *written,
		     const char *rule, const char *real, bool add,
		     bool in_force)
{
	char *path = kpr_local_path();
	bool changed;
	int ret;

	if (ctx->runtime) {
		printf("not saved (--runtime): the next load of the policy files drops it\n");
		free(path);
		return KPR_EXIT_OK;
	}
	ret = add ? kpr_local_add(written, rule, &changed) :
		    kpr_local_del(rule, real, &changed);
	if (ret) {
		kpr_err("the edit is in force, but not saved: the next load of the policy files undoes it");
	} else if (changed) {
		printf("saved in %s\n", path);
	} else if (!add && in_force) {
		kpr_log(KPR_PRIO_NOTICE,
			"kportreserve: note: '%s' was not in %s; if another policy file has it, the next load brings it back",
			rule, path);
	} else if (!add) {
		kpr_err("no rule '%s' in the policy in force or in %s", rule,
			path);
		ret = KPR_EXIT_POLICY;
	}
	free(path);
	return ret;
}

/**
 * edit_rule() - add or delete a rule given on the command line
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 * @add: add the rule, else delete it
 *
 * The policy in force changes first, as a conditional load; then, unless
 * --runtime, the file of add and del (local.c), so that the next boot has
 * the same policy. A rule that del finds only in that file is taken out
 * of it all the same.
 *
 * Return: the exit code.
 */
static int edit_rule(struct kpr_ctx *ctx, int argc, char **argv, bool add)
{
	char *rule = NULL, *resolved = NULL, *written = NULL;
	struct kpr_ruleset rs;
	bool in_force = true;
	int ret;

	ret = kpr_options(ctx, argc, argv, KPR_OPT_RUNTIME |
			  (add ? KPR_OPT_RESOLVE : 0));
	if (ret >= 0)
		return ret;
	if (argc - optind < 2)
		return kpr_usage_error(argv[0],
				       "expected PORTS[/PROTO] PROGRAM [QUALIFIER...]");
	ret = kpr_parse_rule_args(argc - optind, argv + optind, &rs, &rule);
	if (ret)
		return ret;
	ret = resolve_programs(ctx, rule, &resolved);
	if (ret)
		goto out;
	written = ctx->resolve ? kpr_xstrdup(resolved) :
				 kpr_join_args(argc - optind, argv + optind, NULL);
	if (!ctx->runtime) {
		ret = kpr_edit_lock(true);
		if (ret)
			goto out;
	}
	ret = edit_running(ctx, resolved, add);
	if (ret == KPR_EDIT_NOTHING) {
		print_rules("already in the policy", resolved);
		ret = KPR_EXIT_OK;
	} else if (ret == KPR_EDIT_ABSENT && ctx->runtime) {
		kpr_err("no rule '%s' in the policy in force", resolved);
		ret = KPR_EXIT_POLICY;
	} else if (ret == KPR_EDIT_ABSENT) {
		/* Not in force: it may still be in the file. */
		in_force = false;
		ret = KPR_EXIT_OK;
	} else if (!ret) {
		print_rules(add ? "added" : "deleted", resolved);
	}
	if (!ret)
		ret = save_edit(ctx, written, ctx->resolve ? resolved : rule,
				resolved, add, in_force);
out:
	free(written);
	free(resolved);
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
