// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "check" validates policy files offline with the
 * kernel's own parser, "load" puts one in force.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kportreserve.h"

/* The name of a file in messages. */
static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/**
 * skip_lines() - find where the line after line @n starts
 * @text: the text
 * @len: its length
 * @n: a line number, from 1
 *
 * Return: the offset of line @n + 1, or 0 when @text has no such line.
 */
static size_t skip_lines(const char *text, size_t len, unsigned int n)
{
	const char *p = text, *end = text + len;

	while (n--) {
		p = memchr(p, '\n', end - p);
		if (!p)
			return 0;
		p++;
	}
	return p - text;
}

/**
 * check_text() - report every bad line of a policy
 * @file: the file's name, for messages
 * @text: the policy
 * @len: its length
 *
 * The parser stops at the first bad line, as the kernel does; to report
 * them all, as a compiler would, parsing starts again after each bad line.
 * Only a limit (E2BIG) or lack of memory ends the check early.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_text(const char *file, const char *text, size_t len)
{
	unsigned int base = 0, line;
	int ret = KPR_EXIT_OK;
	size_t off = 0, skip;
	const char *msg;
	int err;

	for (;;) {
		struct kpr_ruleset rs = { 0 };

		err = kpr_parse_policy(text + off, len - off, &rs, &line, &msg);
		kpr_ruleset_destroy(&rs);
		if (!err)
			break;
		kpr_print_parse_error(file, base + line, msg);
		ret = KPR_EXIT_POLICY;
		skip = skip_lines(text + off, len - off, line);
		if (err != -EINVAL || !skip)
			break;
		off += skip;
		base += line;
	}
	return ret;
}

static int check_file(const char *path)
{
	struct kpr_buf buf;
	int err, ret;

	err = kpr_read_path(path, &buf);
	if (err) {
		kpr_err("%s: %s", display_name(path), strerror(-err));
		return KPR_EXIT_IO;
	}
	ret = check_text(display_name(path), buf.text, buf.len);
	kpr_buf_free(&buf);
	return ret;
}

/**
 * kpr_cmd_check() - kportreserve check FILE...
 * @ctx: unused: check needs no kernel
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: KPR_EXIT_OK when every file is a valid policy, KPR_EXIT_POLICY
 * when one is not, KPR_EXIT_IO when one could not be read.
 */
int kpr_cmd_check(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_simple_options(argc, argv), i, r;

	(void)ctx;
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return kpr_usage_error(argv[0], "no policy file given");
	ret = KPR_EXIT_OK;
	for (i = optind; i < argc; i++) {
		r = check_file(argv[i]);
		if (r > ret)
			ret = r;
	}
	return ret;
}

/* Say what the kernel made of a policy it accepted. */
static void print_loaded(const struct kpr_ctx *ctx, const char *file)
{
	static const char *const names[] = { "generation", "rules", "ports" };
	struct kpr_stats st;
	const char *sep = ": ", *value;
	size_t i;

	printf("loaded %s", file);
	if (!kpr_stats_read(ctx, &st)) {
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			value = kpr_stats_get(&st, names[i]);
			if (!value)
				continue;
			printf("%s%s %s", sep, names[i], value);
			sep = ", ";
		}
		kpr_stats_free(&st);
	}
	putchar('\n');
}

/**
 * kpr_cmd_load() - kportreserve load FILE
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_REFUSED, KPR_EXIT_IO or KPR_EXIT_USAGE.
 */
int kpr_cmd_load(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_simple_options(argc, argv), err;
	const char *file;
	struct kpr_buf buf;

	if (ret >= 0)
		return ret;
	if (argc - optind != 1)
		return kpr_usage_error(argv[0], "expected one policy file");
	file = display_name(argv[optind]);
	err = kpr_read_path(argv[optind], &buf);
	if (err) {
		kpr_err("%s: %s", file, strerror(-err));
		return KPR_EXIT_IO;
	}
	ret = kpr_write_policy(ctx, file, buf.text, buf.len);
	if (!ret)
		print_loaded(ctx, file);
	kpr_buf_free(&buf);
	return ret;
}
