// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): rules through the kernel's own parser.
 *
 * security/kportreserve/parser.c is built unchanged into this program.
 * Everything here goes through its interface only (parse, canonicalize,
 * format), so that new protocols and new rule qualifiers need no change
 * here: rules are compared and printed in the parser's canonical text.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kportreserve.h"

/**
 * kpr_print_line() - print a message about a line of a policy file
 * @prio: its priority: an error, a warning (a rule left out), a note
 * @file: the file's name
 * @line: the number of the line
 * @msg: what there is to say about it
 *
 * As compilers do, "FILE:LINE: MSG", so that editors can jump there.
 */
void kpr_print_line(enum kpr_prio prio, const char *file, unsigned int line,
		    const char *msg)
{
	kpr_log(prio, "%s:%u: %s", file, line, msg);
}

/**
 * kpr_print_parse_error() - print a policy error as compilers do
 * @file: the file's name
 * @line: the number of the bad line
 * @msg: what is wrong with it
 */
void kpr_print_parse_error(const char *file, unsigned int line,
			   const char *msg)
{
	kpr_print_line(KPR_PRIO_ERR, file, line, msg);
}

/**
 * kpr_format_ruleset() - the canonical text of a ruleset
 * @rs: the ruleset
 * @len: receives the length of the text
 *
 * Return: the text, NUL-terminated, to free().
 */
char *kpr_format_ruleset(const struct kpr_ruleset *rs, size_t *len)
{
	char *text;

	*len = kpr_ruleset_format(rs, NULL, 0);
	text = kpr_xmalloc(*len + 1);
	kpr_ruleset_format(rs, text, *len);
	text[*len] = '\0';
	return text;
}

/**
 * kpr_format_rule() - the canonical text of one rule
 * @rule: the rule
 *
 * Formats a one-rule copy of the ruleset, so that whatever the parser
 * prints for a rule (qualifiers included) is printed here too.
 *
 * Return: the rule without its newline, to free().
 */
char *kpr_format_rule(const struct kpr_rule *rule)
{
	struct kpr_rule copy = *rule;
	struct kpr_ruleset one = {
		.rules = &copy,
		.nr_rules = 1,
		.cap_rules = 1,
	};
	size_t len;
	char *text = kpr_format_ruleset(&one, &len);

	if (len && text[len - 1] == '\n')
		text[len - 1] = '\0';
	return text;
}

/**
 * kpr_rules_have() - tell whether a rule is one of a list
 * @rules: canonical rules, one a line
 * @rule: one canonical rule, without its newline
 *
 * Return: true when @rule is a whole line of @rules.
 */
bool kpr_rules_have(const char *rules, const char *rule)
{
	size_t len = strlen(rule);
	const char *p;

	for (p = rules; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		if (!strncmp(p, rule, len) && (p[len] == '\n' || !p[len]))
			return true;
	}
	return false;
}

/**
 * kpr_encode_arg() - make a command-line argument one policy field
 * @arg: the argument
 *
 * Bytes that cannot appear raw in a policy (white space, control bytes,
 * bytes above 0x7e) are written as \ooo; a backslash is left alone, as it
 * starts an escape that the user wrote.
 *
 * Return: the field, to free().
 */
char *kpr_encode_arg(const char *arg)
{
	char *field = kpr_xmalloc(4 * strlen(arg) + 1), *o = field;
	const unsigned char *s;

	for (s = (const unsigned char *)arg; *s; s++) {
		if (*s > 0x20 && *s < 0x7f)
			*o++ = *s;
		else
			o += sprintf(o, "\\%03o", *s);
	}
	*o = '\0';
	return field;
}

/**
 * kpr_join_args() - command-line arguments as one policy line
 * @argc: number of arguments
 * @argv: the arguments, each encoded as one field (kpr_encode_arg())
 * @len: receives the length of the line, or NULL
 *
 * Return: the fields joined by spaces, to free().
 */
char *kpr_join_args(int argc, char **argv, size_t *len)
{
	char *line = kpr_xstrdup(""), *field, *longer;
	int i;

	for (i = 0; i < argc; i++) {
		field = kpr_encode_arg(argv[i]);
		longer = kpr_xasprintf("%s%s%s", line, i ? " " : "", field);
		free(field);
		free(line);
		line = longer;
	}
	if (len)
		*len = strlen(line);
	return line;
}

/**
 * kpr_parse_rule_args() - parse a rule given as command-line arguments
 * @argc: number of arguments: PORTS[/PROTO] PROGRAM [QUALIFIER...], where
 *        unit=NAME is spelled as cgroup= (kpr_spell_units())
 * @argv: the arguments
 * @rs: receives the rules, one per id that a qualifier lists (uid=0,33);
 *      free with kpr_ruleset_destroy()
 * @line: receives their canonical text, one rule a line, without the
 *        last newline, to free()
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY after an error message.
 */
int kpr_parse_rule_args(int argc, char **argv, struct kpr_ruleset *rs,
			char **line)
{
	unsigned int err_line;
	const char *msg;
	size_t len, units_len;
	char *text = kpr_join_args(argc, argv, &len), *units;
	int ret = KPR_EXIT_OK;

	kpr_spell_units(text, len, &units, &units_len);
	if (units) {
		free(text);
		text = units;
		len = units_len;
	}
	memset(rs, 0, sizeof(*rs));
	if (kpr_parse_policy(text, len, rs, &err_line, &msg)) {
		kpr_err("rule '%s': %s", text, msg);
		ret = KPR_EXIT_POLICY;
	} else if (!rs->nr_rules) {
		kpr_err("'%s' is not a rule", text);
		ret = KPR_EXIT_POLICY;
	}
	if (ret) {
		kpr_ruleset_destroy(rs);
	} else {
		*line = kpr_format_ruleset(rs, &len);
		(*line)[len - 1] = '\0';
	}
	free(text);
	return ret;
}

/**
 * kpr_parse_port_spec() - parse PORT[/PROTO] or FIRST-LAST[/PROTO]
 * @spec: the argument
 * @query: receives @first, @last and @protos; @prog is set to NULL
 *
 * The spec is parsed as the ports of a rule, so that it accepts exactly
 * the protocols the policy language knows.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_USAGE after an error message.
 */
int kpr_parse_port_spec(const char *spec, struct kpr_rule *query)
{
	char *field = kpr_encode_arg(spec);
	char *text = kpr_xasprintf("%s %s", field, KPR_KERNEL_NAME);
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg = "not a port";
	int ret = KPR_EXIT_USAGE;

	if (!kpr_parse_policy(text, strlen(text), &rs, &line, &msg) &&
	    rs.nr_rules == 1) {
		*query = rs.rules[0];
		query->prog = NULL;
		ret = KPR_EXIT_OK;
	} else {
		kpr_usage_error(NULL, "'%s': %s", spec, msg);
	}
	kpr_ruleset_destroy(&rs);
	free(text);
	free(field);
	return ret;
}

/**
 * kpr_protos_name() - the protocols of a rule, for a table
 * @protos: bit mask of enum kpr_proto values
 * @buf: receives "all" or the names joined by commas
 * @size: size of @buf
 */
void kpr_protos_name(unsigned int protos, char *buf, size_t size)
{
	size_t len = 0;
	int p;

	buf[0] = '\0';
	if (protos == KPR_PROTO_ALL) {
		snprintf(buf, size, "all");
		return;
	}
	for (p = 0; p < KPR_NR_PROTOS && len < size; p++) {
		if (protos & BIT(p))
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", kpr_proto_name(p));
	}
}

/**
 * kpr_parse_in_force() - parse the text of the policy in force
 * @ctx: names the securityfs directory
 * @text: the text as the kernel gave it; freed on error
 * @rs: receives the rules; free with kpr_ruleset_destroy()
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY when it does not parse (a kernel
 * newer than this program); the error is reported.
 */
int kpr_parse_in_force(const struct kpr_ctx *ctx, struct kpr_buf *text,
		       struct kpr_ruleset *rs)
{
	unsigned int line;
	const char *msg;

	memset(rs, 0, sizeof(*rs));
	if (!kpr_parse_policy(text->text, text->len, rs, &line, &msg))
		return KPR_EXIT_OK;
	kpr_err("%s/policy:%u: %s (is this program older than the kernel?)",
		ctx->dir, line, msg);
	kpr_buf_free(text);
	kpr_ruleset_destroy(rs);
	return KPR_EXIT_POLICY;
}

/**
 * kpr_read_policy() - read and parse the policy in force
 * @ctx: names the securityfs directory
 * @text: receives the text as the kernel gave it; free with kpr_buf_free()
 * @rs: receives the rules; free with kpr_ruleset_destroy()
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_IO when the policy cannot be read, or
 * KPR_EXIT_POLICY when it does not parse (a kernel newer than this
 * program); the error is reported.
 */
int kpr_read_policy(const struct kpr_ctx *ctx, struct kpr_buf *text,
		    struct kpr_ruleset *rs)
{
	memset(rs, 0, sizeof(*rs));
	if (kpr_read_file(ctx, "policy", text, false))
		return KPR_EXIT_IO;
	return kpr_parse_in_force(ctx, text, rs);
}
