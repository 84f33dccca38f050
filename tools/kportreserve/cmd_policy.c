// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "check" validates policy files offline with the
 * kernel's own parser, "load" puts one in force. Without a file, both
 * work on the policy files of the system: the drop-ins of
 * /usr/lib/kportreserve/policy.d and /etc/kportreserve/policy.d, then
 * /etc/kportreserve/policy, which "load" assembles into one policy.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

/* load_outcome_partial()'s word that the policy in force stayed. */
#define KPR_LOAD_KEPT	(-1)

/**
 * kpr_print_policy_error() - report a bad line of a policy being loaded
 * @ctx: its sources, when the policy was assembled from files
 * @what: the policy's name in messages
 * @line: the number of the bad line in the text loaded
 * @msg: what is wrong with it
 *
 * A line of an assembled policy is named by its file and its line there.
 */
void kpr_print_policy_error(const struct kpr_ctx *ctx, const char *what,
			    unsigned int line, const char *msg)
{
	const struct kpr_source *src;
	unsigned int file_line;

	src = kpr_sources_locate(ctx->sources, line, &file_line);
	if (src)
		kpr_print_parse_error(src->path, file_line, msg);
	else
		kpr_print_parse_error(what, line, msg);
}

/* The name of a file in messages. */
static const char *display_name(const char *path)
{
	return strcmp(path, "-") ? path : "<stdin>";
}

/**
 * check_text() - report every bad line of a policy
 * @ctx: says whether to --resolve
 * @file: the file's name, for messages
 * @text: the policy
 * @len: its length
 * @fixed: receives the policy with its programs resolved, to free(), when
 *         --resolve rewrote one (kpr_check_programs()); else NULL
 * @fixed_len: receives its length
 *
 * The parser stops at the first bad line, as the kernel does; to report
 * them all, as a compiler would, parsing starts again after each bad line.
 * Only a limit (E2BIG) or lack of memory ends the check early. unit=
 * fields are spelled as cgroup= first (kpr_spell_units()), line for line.
 * A policy that parses then has its programs checked on this machine.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_text(const struct kpr_ctx *ctx, const char *file,
		      const char *text, size_t len, char **fixed,
		      size_t *fixed_len)
{
	struct kpr_programs progs = { .resolve = ctx->resolve };
	unsigned int base = 0, line;
	size_t off = 0, skip, units_len;
	int ret = KPR_EXIT_OK;
	const char *msg;
	char *units;
	int err;

	kpr_spell_units(text, len, &units, &units_len);
	for (;;) {
		struct kpr_ruleset rs = { 0 };

		err = kpr_parse_policy(units ? units + off : text + off,
				       (units ? units_len : len) - off, &rs,
				       &line, &msg);
		kpr_ruleset_destroy(&rs);
		if (!err)
			break;
		kpr_print_parse_error(file, base + line, msg);
		ret = KPR_EXIT_POLICY;
		skip = kpr_skip_lines(units ? units + off : text + off,
				      (units ? units_len : len) - off, line);
		if (err != -EINVAL || !skip)
			break;
		off += skip;
		base += line;
	}
	free(units);
	*fixed = NULL;
	*fixed_len = 0;
	if (ret)
		return ret;
	ret = kpr_check_programs(&progs, file, text, len, fixed, fixed_len);
	free(progs.first_missing);
	return ret;
}

/**
 * rewrite_file() - replace a policy file with its programs resolved
 * @path: the file; "-" prints the policy on standard output instead
 * @text: the new contents
 * @len: their length
 *
 * The new file takes the old one's mode and owner (kpr_replace_file()).
 * A link to the file stays a link: the file it names is replaced.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
static int rewrite_file(const char *path, const char *text, size_t len)
{
	char *real;
	struct stat st;
	int ret;

	if (!strcmp(path, "-"))
		return fwrite(text, 1, len, stdout) == len ? KPR_EXIT_OK :
							     KPR_EXIT_IO;
	real = realpath(path, NULL);
	if (!real || stat(real, &st)) {
		kpr_err("%s: cannot rewrite: %s", path, strerror(errno));
		free(real);
		return KPR_EXIT_IO;
	}
	ret = kpr_replace_file(real, text, len, &st);
	free(real);
	return ret;
}

static int check_file(const struct kpr_ctx *ctx, const char *path)
{
	struct kpr_buf buf;
	size_t fixed_len;
	char *fixed;
	int err, ret;

	err = kpr_read_policy_file(path, &buf);
	if (err) {
		kpr_err("%s: %s", display_name(path), strerror(-err));
		return KPR_EXIT_IO;
	}
	ret = check_text(ctx, display_name(path), buf.text, buf.len, &fixed,
			 &fixed_len);
	/* "check -r -" is a filter: it prints the policy, changed or not. */
	if (!fixed && ctx->resolve && !strcmp(path, "-") && ret != KPR_EXIT_POLICY) {
		fixed = buf.text;
		fixed_len = buf.len;
		buf.text = NULL;
	}
	if (fixed && rewrite_file(path, fixed, fixed_len))
		ret = KPR_EXIT_IO;
	free(fixed);
	kpr_buf_free(&buf);
	return ret;
}

/**
 * read_sources() - read and check each file of an assembled policy
 * @ctx: says whether to --resolve
 * @s: the files; each one's text is read, and its lines counted
 * @rewrite: with --resolve, rewrite each file whose programs were resolved
 *           (check), rather than only use the new text (load)
 *
 * Every file is read and checked, so that every bad line of every file is
 * reported as FILE:LINE.
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_POLICY or KPR_EXIT_IO: the worst of the
 * files'.
 */
static int read_sources(const struct kpr_ctx *ctx, struct kpr_sources *s,
			bool rewrite)
{
	int ret = KPR_EXIT_OK, r, err;
	size_t i, fixed_len;

	for (i = 0; i < s->nr; i++) {
		struct kpr_source *src = &s->src[i];
		char *fixed = NULL;

		err = kpr_read_policy_file(src->path, &src->text);
		if (err) {
			kpr_err("%s: %s", src->path, strerror(-err));
			r = KPR_EXIT_IO;
		} else {
			r = check_text(ctx, src->path, src->text.text,
				       src->text.len, &fixed, &fixed_len);
		}
		if (fixed && rewrite && !src->admin) {
			kpr_log(KPR_PRIO_NOTICE,
				"%s: a package's file, not rewritten: dpkg would put it back (a file of the same name in %s overrides it)",
				src->path, KPR_ADMIN_DIR);
		} else if (fixed && rewrite &&
			   rewrite_file(src->path, fixed, fixed_len)) {
			r = KPR_EXIT_IO;
		}
		if (fixed) {
			kpr_buf_free(&src->text);
			src->text = (struct kpr_buf){ fixed, fixed_len };
		}
		kpr_buf_spell_units(&src->text);
		if (r > ret)
			ret = r;
	}
	kpr_sources_number(s);
	return ret;
}

/**
 * kpr_check_assembled() - check the policy of the files as a whole
 * @ctx: names the files in messages
 * @s: the files, read and checked one by one
 * @text: their assembled text
 * @len: its length
 *
 * Each file may be valid and the whole still over a limit.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
int kpr_check_assembled(struct kpr_ctx *ctx, const struct kpr_sources *s,
			const char *text, size_t len)
{
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg;
	int err;

	err = kpr_parse_policy(text, len, &rs, &line, &msg);
	kpr_ruleset_destroy(&rs);
	if (!err)
		return KPR_EXIT_OK;
	ctx->sources = s;
	kpr_print_policy_error(ctx, "the assembled policy", line, msg);
	ctx->sources = NULL;
	return KPR_EXIT_POLICY;
}

/**
 * gather_system() - find, read, assemble and check the policy files
 * @ctx: where errors are reported, and whether to --resolve
 * @s: receives the files; free with kpr_sources_free()
 * @rewrite: with --resolve, rewrite the files whose programs it resolved
 * @text: receives the assembled policy, or NULL; free() it
 * @len: receives its length
 *
 * Return: KPR_EXIT_OK when every file and the whole are valid, else the
 * worst exit code of the files or of the whole.
 */
static int gather_system(struct kpr_ctx *ctx, struct kpr_sources *s,
			 bool rewrite, char **text, size_t *len)
{
	int ret, r;

	*text = NULL;
	ret = kpr_sources_find(s);
	r = read_sources(ctx, s, rewrite);
	if (r > ret)
		ret = r;
	if (ret != KPR_EXIT_OK)
		return ret;
	*text = kpr_sources_assemble(s, len);
	return kpr_check_assembled(ctx, s, *text, *len);
}

/**
 * check_system() - kportreserve check, without a file
 * @ctx: says whether to --resolve
 *
 * Checks the policy files of the system, then notes each port that two
 * files reserve (kpr_origins_note_overlaps()), which is allowed.
 *
 * Return: as gather_system().
 */
static int check_system(struct kpr_ctx *ctx)
{
	struct kpr_origins origins;
	struct kpr_sources s;
	size_t len;
	char *text;
	int ret;

	ret = gather_system(ctx, &s, true, &text, &len);
	kpr_origins_build(&s, &origins);
	kpr_origins_note_overlaps(&origins);
	kpr_origins_free(&origins);
	free(text);
	kpr_sources_free(&s);
	return ret;
}

/**
 * kpr_cmd_check() - kportreserve check [FILE...]
 * @ctx: check needs no kernel
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Without a file, checks the policy files that "load" would assemble.
 *
 * Return: KPR_EXIT_OK when every file is a valid policy, KPR_EXIT_POLICY
 * when one is not, KPR_EXIT_IO when one could not be read.
 */
int kpr_cmd_check(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_resolve_options(ctx, argc, argv), i, r;

	if (ret >= 0)
		return ret;
	if (optind == argc)
		return check_system(ctx);
	ret = KPR_EXIT_OK;
	for (i = optind; i < argc; i++) {
		r = check_file(ctx, argv[i]);
		if (r > ret)
			ret = r;
	}
	return ret;
}

/*
 * Say what the kernel made of a policy it accepted; return its generation,
 * to free(), or NULL when the kernel does not say.
 */
static char *print_loaded(const struct kpr_ctx *ctx, const char *what)
{
	static const char *const names[] = { "generation", "rules", "ports" };
	const char *sep = ": ", *value;
	char *generation = NULL;
	struct kpr_stats st;
	size_t i;

	printf("loaded %s", what);
	if (!kpr_stats_read(ctx, &st)) {
		for (i = 0; i < ARRAY_SIZE(names); i++) {
			value = kpr_stats_get(&st, names[i]);
			if (!value)
				continue;
			printf("%s%s %s", sep, names[i], value);
			sep = ", ";
		}
		value = kpr_stats_get(&st, "generation");
		if (value)
			generation = kpr_xstrdup(value);
		kpr_stats_free(&st);
	}
	putchar('\n');
	return generation;
}

/*
 * After a load: the sockets that held a port of the new policy before it
 * came. The policy is in force all the same, so only KPR_EXIT_HELD is
 * passed on; a policy that cannot be read back was reported.
 */
static int holders_after_load(const struct kpr_ctx *ctx)
{
	return kpr_check_holders(ctx) == KPR_EXIT_HELD ? KPR_EXIT_HELD :
							 KPR_EXIT_OK;
}

/* Whether @text, a policy that parses, has a rule at all. */
static bool has_rules(const char *text, size_t len)
{
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg;
	bool some;

	some = !kpr_parse_policy(text, len, &rs, &line, &msg) && rs.nr_rules;
	kpr_ruleset_destroy(&rs);
	return some;
}

/**
 * keep_boot_policy() - tell whether an empty load would drop a boot policy
 * @ctx: names the securityfs directory
 *
 * A kernel may carry a policy of its own, in force before init runs
 * (CONFIG_SECURITY_KPORTRESERVE_BOOT_POLICY). Files that hold no rule,
 * such as the comments-only /etc/kportreserve/policy a package installs,
 * must not replace it with nothing. They replace a policy that came from
 * the files: this boot has loaded them before (KPR_SOURCES, in /run,
 * exists), so an administrator who deleted every rule gets what the
 * files say.
 *
 * Return: true when the policy in force has rules and no load of the
 * policy files happened since boot; it is then kept, and that is said.
 */
static bool keep_boot_policy(const struct kpr_ctx *ctx)
{
	char *record = kpr_root_path(KPR_SOURCES);
	struct kpr_ruleset rs;
	struct kpr_buf text;
	bool keep = false;
	struct stat st;

	if (lstat(record, &st) && errno == ENOENT &&
	    !kpr_read_policy(ctx, &text, &rs)) {
		keep = rs.nr_rules;
		kpr_ruleset_destroy(&rs);
		kpr_buf_free(&text);
	}
	if (keep)
		kpr_info("the policy files hold no rule: the policy in force, which they did not load (the kernel's boot policy), stays");
	free(record);
	return keep;
}

/**
 * kpr_keeps_boot_policy() - tell whether a load of the files keeps the
 *                           policy in force
 * @ctx: names the securityfs directory
 * @text: the assembled policy of the files, which parses
 * @len: its length
 *
 * "load" and "diff" decide alike: files without a rule leave a boot
 * policy in force (keep_boot_policy()).
 *
 * Return: true when the load would keep the policy in force, which is
 * then said.
 */
bool kpr_keeps_boot_policy(const struct kpr_ctx *ctx, const char *text,
			   size_t len)
{
	return !has_rules(text, len) && keep_boot_policy(ctx);
}

/**
 * load_outcome_partial() - say what was left out of a load, if anything
 * @progs: the figures of the load
 * @files: number of files left out whole
 * @ret: the outcome so far: KPR_EXIT_OK or KPR_EXIT_HELD, or KPR_LOAD_KEPT
 *       when the policy in force stayed (kpr_keeps_boot_policy())
 *
 * Return: KPR_EXIT_PARTIAL when something was left out, else @ret.
 */
static int load_outcome_partial(const struct kpr_programs *progs,
				unsigned int files, int ret)
{
	if (!progs->left_out && !files)
		return ret;
	kpr_warn("%s %u rule%s and %u file%s left out (named above); %s",
		 ret == KPR_LOAD_KEPT ? "nothing loaded:" : "loaded with",
		 progs->left_out, progs->left_out == 1 ? "" : "s", files,
		 files == 1 ? "" : "s",
		 ret == KPR_LOAD_KEPT ? "the files hold no other rule" :
					"every other rule is in force");
	return KPR_EXIT_PARTIAL;
}

/**
 * load_system() - kportreserve load, without a file
 * @ctx: names the securityfs directory
 *
 * Assembles the policy files of the system (kpr_sources_find()) and loads
 * the result in one write(); then records the files for "status" and
 * "who" (kpr_sources_record()). "diff" shows what it would do. This is
 * what boots run: one bad line or one unreadable file must not leave the
 * machine with no reservation at all, so what cannot be applied as
 * written is left out with a warning that names it (FILE:LINE), and every
 * other rule is loaded, as systemd-sysctl applies what it can. A program
 * named by a link is resolved now, at every load, so that a rule follows
 * upgrades. No file at all, or files without a rule, load the empty
 * policy, unless that would replace a policy the files did not load
 * (keep_boot_policy()). Nothing is loaded when the whole is over a limit
 * or the kernel refuses it.
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_PARTIAL when rules were left out,
 * KPR_EXIT_HELD when the policy is in force but a socket holds one of its
 * ports against it; or, with nothing loaded, KPR_EXIT_POLICY,
 * KPR_EXIT_REFUSED or KPR_EXIT_IO.
 */
static int load_system(struct kpr_ctx *ctx)
{
	struct kpr_programs progs = { .load = true, .lenient = true };
	char *text = NULL, *what = NULL, *generation;
	unsigned int files_left_out;
	struct kpr_sources s;
	size_t len, i;
	int ret;

	/* After an edit's change of the policy in force, or before it. */
	kpr_edit_lock(false);
	ret = kpr_sources_find(&s);
	if (ret != KPR_EXIT_OK)
		goto nothing;
	files_left_out = kpr_sources_read_for_load(&s, &progs);
	kpr_programs_summary(&progs);
	text = kpr_sources_assemble(&s, &len);
	ret = kpr_check_assembled(ctx, &s, text, len);
	if (ret != KPR_EXIT_OK)
		goto nothing;
	if (kpr_keeps_boot_policy(ctx, text, len)) {
		ret = load_outcome_partial(&progs, files_left_out, KPR_LOAD_KEPT);
		if (ret == KPR_LOAD_KEPT)
			ret = KPR_EXIT_OK;
		goto out;
	}
	if (s.nr)
		what = kpr_xasprintf("the policy of %zu file%s", s.nr,
				     s.nr == 1 ? "" : "s");
	else
		what = kpr_xstrdup("the empty policy (no policy files)");
	ctx->sources = &s;
	ret = kpr_write_policy(ctx, what, NULL, text, len);
	ctx->sources = NULL;
	if (ret)
		goto nothing;
	generation = print_loaded(ctx, what);
	for (i = 0; i < s.nr; i++)
		printf("  %s\n", s.src[i].path);
	if (generation)
		kpr_sources_record(&s, generation);
	else
		kpr_warn("the kernel reports no generation; the policy's files are not recorded");
	free(generation);
	ret = load_outcome_partial(&progs, files_left_out,
				   holders_after_load(ctx));
	goto out;
nothing:
	kpr_err("nothing was loaded; the policy in force is unchanged");
out:
	free(progs.first_missing);
	free(what);
	free(text);
	kpr_sources_free(&s);
	return ret;
}

/**
 * check_programs() - check the programs of a policy that parses
 * @ctx: says whether to --resolve
 * @file: the policy's name, for messages
 * @text: the policy
 * @fixed: receives the policy with its programs resolved, or nothing
 *
 * A policy that does not parse here goes to the kernel all the same,
 * which names its bad line, and may know more of the language than this
 * program.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_programs(const struct kpr_ctx *ctx, const char *file,
			  const struct kpr_buf *text, struct kpr_buf *fixed)
{
	struct kpr_programs progs = { .load = true, .resolve = ctx->resolve };
	struct kpr_ruleset rs = { 0 };
	struct kpr_buf units;
	unsigned int line;
	const char *msg;
	int err, ret;

	*fixed = (struct kpr_buf){ NULL, 0 };
	kpr_spell_units(text->text, text->len, &units.text, &units.len);
	err = units.text ?
	      kpr_parse_policy(units.text, units.len, &rs, &line, &msg) :
	      kpr_parse_policy(text->text, text->len, &rs, &line, &msg);
	free(units.text);
	kpr_ruleset_destroy(&rs);
	if (err)
		return KPR_EXIT_OK;
	ret = kpr_check_programs(&progs, file, text->text, text->len,
				 &fixed->text, &fixed->len);
	kpr_programs_summary(&progs);
	free(progs.first_missing);
	return ret;
}

/**
 * kpr_cmd_load() - kportreserve load [FILE]
 * @ctx: names the securityfs directory
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Without a file, loads the policy files of the system (load_system()).
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_POLICY, KPR_EXIT_REFUSED, KPR_EXIT_IO,
 * KPR_EXIT_USAGE, or KPR_EXIT_HELD as load_system().
 */
int kpr_cmd_load(struct kpr_ctx *ctx, int argc, char **argv)
{
	int ret = kpr_resolve_options(ctx, argc, argv), err;
	struct kpr_buf buf, fixed;
	const char *file;

	if (ret >= 0)
		return ret;
	if (optind == argc)
		return load_system(ctx);
	if (argc - optind != 1)
		return kpr_usage_error(argv[0], "expected at most one policy file");
	file = display_name(argv[optind]);
	err = kpr_read_policy_file(argv[optind], &buf);
	if (err) {
		kpr_err("%s: %s", file, strerror(-err));
		return KPR_EXIT_IO;
	}
	ret = check_programs(ctx, file, &buf, &fixed);
	if (fixed.text) {
		kpr_buf_free(&buf);
		buf = fixed;
		fixed = (struct kpr_buf){ NULL, 0 };
	}
	kpr_buf_spell_units(&buf);
	if (ret == KPR_EXIT_POLICY) {
		kpr_err("nothing was loaded; %s", "the policy in force is unchanged");
	} else {
		ret = kpr_write_policy(ctx, file, NULL, buf.text, buf.len);
		if (!ret) {
			free(print_loaded(ctx, file));
			ret = holders_after_load(ctx);
		}
	}
	free(fixed.text);
	kpr_buf_free(&buf);
	return ret;
}
