// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "check" validates policy files offline with the
 * kernel's own parser, "load" puts one in force. Without a file, both
 * work on the policy files of the system: the drop-ins of
 * /usr/lib/kportreserve/policy.d and /etc/kportreserve/policy.d, then
 * /etc/kportreserve/policy, which "load" assembles into one policy.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kportreserve.h"

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

/**
 * kpr_root_path() - a path of the system, under $KPORTRESERVE_ROOT if set
 * @path: the absolute path
 *
 * Return: the path, to free().
 */
char *kpr_root_path(const char *path)
{
	const char *root = getenv(KPR_ROOT_ENV);

	return kpr_xasprintf("%s%s", root ? root : "", path);
}

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
	const struct kpr_sources *s = ctx->sources;
	size_t i;

	for (i = 0; s && i < s->nr; i++) {
		const struct kpr_source *src = &s->src[i];

		if (line >= src->first && line - src->first < src->lines) {
			kpr_print_parse_error(src->path, line - src->first + 1,
					      msg);
			return;
		}
	}
	kpr_print_parse_error(what, line, msg);
}

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
		skip = skip_lines(units ? units + off : text + off,
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
	return kpr_check_programs(file, text, len, ctx->resolve, fixed,
				  fixed_len);
}

/**
 * rewrite_file() - replace a policy file with its programs resolved
 * @path: the file; "-" prints the policy on standard output instead
 * @text: the new contents
 * @len: their length
 *
 * A new file beside the old one (mkstemp()) takes its mode and owner and
 * is renamed over it, so that a reader sees the old policy or the new
 * one, never a part. A link to the file stays a link: the file it names
 * is replaced.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
static int rewrite_file(const char *path, const char *text, size_t len)
{
	char *real = NULL, *tmp = NULL;
	int fd = -1, ret = KPR_EXIT_IO, err = 0;
	struct stat st;

	if (!strcmp(path, "-"))
		return fwrite(text, 1, len, stdout) == len ? KPR_EXIT_OK :
							     KPR_EXIT_IO;
	real = realpath(path, NULL);
	if (!real || stat(real, &st)) {
		err = errno;
		goto out;
	}
	tmp = kpr_xasprintf("%s.XXXXXX", real);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	errno = 0;
	if (fchmod(fd, st.st_mode & 07777) ||
	    (fchown(fd, st.st_uid, st.st_gid) && errno != EPERM) ||
	    write(fd, text, len) != (ssize_t)len || fsync(fd) ||
	    rename(tmp, real)) {
		err = errno ? errno : EIO;
		unlink(tmp);
		goto out;
	}
	ret = KPR_EXIT_OK;
out:
	if (ret)
		kpr_err("%s: cannot rewrite: %s", path, strerror(err));
	if (fd >= 0)
		close(fd);
	free(tmp);
	free(real);
	return ret;
}

static int check_file(const struct kpr_ctx *ctx, const char *path)
{
	struct kpr_buf buf;
	size_t fixed_len;
	char *fixed;
	int err, ret;

	err = kpr_read_path(path, &buf);
	if (err) {
		kpr_err("%s: %s", display_name(path), strerror(-err));
		return KPR_EXIT_IO;
	}
	ret = check_text(ctx, display_name(path), buf.text, buf.len, &fixed,
			 &fixed_len);
	if (fixed && rewrite_file(path, fixed, fixed_len))
		ret = KPR_EXIT_IO;
	free(fixed);
	kpr_buf_free(&buf);
	return ret;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static void add_source(struct kpr_sources *s, char *path, size_t name_off,
		       bool admin)
{
	struct kpr_source *src;

	s->src = kpr_xrealloc(s->src, (s->nr + 1) * sizeof(*s->src));
	src = &s->src[s->nr++];
	*src = (struct kpr_source){
		.path = path,
		.name = path + name_off,
		.admin = admin,
	};
}

/**
 * add_dropins() - add the drop-ins of a directory
 * @s: the list
 * @dir: the directory, as documented
 * @admin: true for the administrator's directory in /etc
 *
 * A drop-in is a file whose name ends in ".policy" and does not start
 * with a dot. A directory that does not exist has none.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
static int add_dropins(struct kpr_sources *s, const char *dir, bool admin)
{
	char *path = kpr_root_path(dir);
	struct dirent *de;
	DIR *d = opendir(path);
	int ret = KPR_EXIT_OK;

	if (!d) {
		if (errno != ENOENT) {
			kpr_err("%s: %s", path, strerror(errno));
			ret = KPR_EXIT_IO;
		}
		free(path);
		return ret;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		if (de->d_name[0] == '.' ||
		    !has_suffix(de->d_name, KPR_DROPIN_SUFFIX))
			continue;
		add_source(s, kpr_xasprintf("%s/%s", path, de->d_name),
			   strlen(path) + 1, admin);
	}
	if (errno) {
		kpr_err("%s: %s", path, strerror(errno));
		ret = KPR_EXIT_IO;
	}
	closedir(d);
	free(path);
	return ret;
}

/* By name; on equal names the administrator's file comes first. */
static int source_cmp(const void *a, const void *b)
{
	const struct kpr_source *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)y->admin - (int)x->admin;
}

/* A file masked as systemd masks one: a link to /dev/null. */
static bool masked(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

static void sources_free(struct kpr_sources *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->src[i].path);
		kpr_buf_free(&s->src[i].text);
	}
	free(s->src);
	s->src = NULL;
	s->nr = 0;
}

/* Keep the entries of @s for which @keep[i] is true. */
static void sources_filter(struct kpr_sources *s, const bool *keep)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (keep[i])
			s->src[n++] = s->src[i];
		else
			free(s->src[i].path);
	}
	s->nr = n;
}

/**
 * find_sources() - the policy files of the system, in load order
 * @s: receives the files; free with sources_free()
 *
 * The drop-ins of KPR_VENDOR_DIR (from packages) and KPR_ADMIN_DIR (from
 * the administrator), sorted together by name in the C locale; of two with
 * the same name only the one in /etc counts, and a drop-in linked to
 * /dev/null counts as none. KPR_MAIN_POLICY comes last, if it exists.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO when a directory cannot be read.
 */
static int find_sources(struct kpr_sources *s)
{
	char *main_policy = kpr_root_path(KPR_MAIN_POLICY);
	int ret = KPR_EXIT_OK, r;
	struct stat st;
	bool *keep;
	size_t i;

	s->src = NULL;
	s->nr = 0;
	ret = add_dropins(s, KPR_VENDOR_DIR, false);
	r = add_dropins(s, KPR_ADMIN_DIR, true);
	if (r > ret)
		ret = r;
	if (s->nr)
		qsort(s->src, s->nr, sizeof(*s->src), source_cmp);
	keep = kpr_xmalloc(s->nr * sizeof(*keep));
	for (i = 0; i < s->nr; i++)
		keep[i] = (!i || strcmp(s->src[i - 1].name, s->src[i].name)) &&
			  !masked(s->src[i].path);
	sources_filter(s, keep);
	free(keep);
	if (lstat(main_policy, &st) && errno == ENOENT)
		free(main_policy);
	else
		add_source(s, main_policy, 0, true);
	return ret;
}

/* The number of lines of a text, the last one perhaps without newline. */
static unsigned int count_lines(const char *text, size_t len)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/* Spell the unit= fields of a text as the kernel takes them: cgroup=. */
static void spell_units(struct kpr_buf *text)
{
	struct kpr_buf units;

	if (!text->text)
		return;
	kpr_spell_units(text->text, text->len, &units.text, &units.len);
	if (!units.text)
		return;
	kpr_buf_free(text);
	*text = units;
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
	unsigned int line = 1;
	size_t i, fixed_len;

	for (i = 0; i < s->nr; i++) {
		struct kpr_source *src = &s->src[i];
		char *fixed = NULL;

		err = kpr_read_path(src->path, &src->text);
		if (err) {
			kpr_err("%s: %s", src->path, strerror(-err));
			r = KPR_EXIT_IO;
		} else {
			r = check_text(ctx, src->path, src->text.text,
				       src->text.len, &fixed, &fixed_len);
		}
		if (fixed && rewrite && rewrite_file(src->path, fixed, fixed_len))
			r = KPR_EXIT_IO;
		if (fixed) {
			kpr_buf_free(&src->text);
			src->text = (struct kpr_buf){ fixed, fixed_len };
		}
		spell_units(&src->text);
		if (r > ret)
			ret = r;
		src->first = line;
		src->lines = count_lines(src->text.text, src->text.len);
		line += src->lines;
	}
	return ret;
}

/**
 * assemble() - the policy of the files, in order
 * @s: the files, read
 * @len: receives the length of the text
 *
 * A file whose last line has no newline gets one, so that it does not run
 * into the first line of the next file.
 *
 * Return: the text, to free().
 */
static char *assemble(const struct kpr_sources *s, size_t *len)
{
	size_t i, n = 0;
	char *text, *p;

	for (i = 0; i < s->nr; i++)
		n += s->src[i].text.len + 1;
	text = kpr_xmalloc(n + 1);
	p = text;
	for (i = 0; i < s->nr; i++) {
		const struct kpr_buf *b = &s->src[i].text;

		memcpy(p, b->text, b->len);
		p += b->len;
		if (b->len && b->text[b->len - 1] != '\n')
			*p++ = '\n';
	}
	*p = '\0';
	*len = p - text;
	return text;
}

/**
 * check_assembled() - check the policy of the files as a whole
 * @ctx: names the files in messages
 * @s: the files, read and checked one by one
 * @text: their assembled text
 * @len: its length
 *
 * Each file may be valid and the whole still over a limit.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_assembled(struct kpr_ctx *ctx, const struct kpr_sources *s,
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
 * @s: receives the files; free with sources_free()
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
	ret = find_sources(s);
	r = read_sources(ctx, s, rewrite);
	if (r > ret)
		ret = r;
	if (ret != KPR_EXIT_OK)
		return ret;
	*text = assemble(s, len);
	return check_assembled(ctx, s, *text, *len);
}

/* kportreserve check, without a file: the policy files of the system. */
static int check_system(struct kpr_ctx *ctx)
{
	struct kpr_sources s;
	size_t len;
	char *text;
	int ret;

	ret = gather_system(ctx, &s, true, &text, &len);
	free(text);
	sources_free(&s);
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

/* A path as one line of the record: bytes that would break it as \ooo. */
static void put_path(FILE *f, const char *path)
{
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '\\')
			fputc(*p, f);
		else
			fprintf(f, "\\%03o", *p);
	}
	fputc('\n', f);
}

/**
 * record_sources() - write down which files the policy in force came from
 * @s: the files, in load order
 * @generation: the generation the kernel gave the policy
 *
 * The kernel keeps the policy's rules, not its comments or files, so
 * "status" learns them from KPR_SOURCES: "generation N", then one file a
 * line. It is written after the load succeeded, to a new file renamed
 * over the old one. "status" trusts it only while the policy in force
 * has that generation.
 *
 * Return: 0, or -1 after a warning: the policy is loaded all the same.
 */
static int record_sources(const struct kpr_sources *s, const char *generation)
{
	char *dir = kpr_root_path(KPR_RUN_DIR);
	char *path = kpr_root_path(KPR_SOURCES);
	char *tmp = kpr_xasprintf("%s.new", path);
	const char *fail = dir;
	FILE *f = NULL;
	size_t i;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		goto out;
	fail = tmp;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f, "generation %s\n", generation);
	for (i = 0; i < s->nr; i++)
		put_path(f, s->src[i].path);
	if (fflush(f) || ferror(f)) {
		fclose(f);
		f = NULL;
		unlink(tmp);
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		unlink(tmp);
		goto out;
	}
	fail = path;
	if (rename(tmp, path)) {
		unlink(tmp);
		goto out;
	}
	fail = NULL;
out:
	if (fail)
		kpr_err("warning: cannot record the policy's files in %s: %s",
			fail, strerror(errno));
	free(dir);
	free(path);
	free(tmp);
	return fail ? -1 : 0;
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

/**
 * load_system() - kportreserve load, without a file
 * @ctx: names the securityfs directory
 *
 * Assembles the policy files of the system (find_sources()), checks each
 * and the whole, and loads the result in one write(); then records the
 * files for "status". No file at all loads the empty policy: the policy
 * in force is always what the files say. Nothing is loaded when a file
 * cannot be read or has a bad line.
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_POLICY, KPR_EXIT_REFUSED, KPR_EXIT_IO, or
 * KPR_EXIT_HELD when the policy is in force but a socket holds one of its
 * ports against it.
 */
static int load_system(struct kpr_ctx *ctx)
{
	char *text, *what = NULL, *generation;
	struct kpr_sources s;
	size_t len, i;
	int ret;

	ret = gather_system(ctx, &s, false, &text, &len);
	if (ret != KPR_EXIT_OK) {
		kpr_err("nothing was loaded; the policy in force is unchanged");
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
		goto out;
	generation = print_loaded(ctx, what);
	for (i = 0; i < s.nr; i++)
		printf("  %s\n", s.src[i].path);
	if (generation)
		record_sources(&s, generation);
	else
		kpr_err("warning: the kernel reports no generation; the policy's files are not recorded");
	free(generation);
	ret = holders_after_load(ctx);
out:
	free(what);
	free(text);
	sources_free(&s);
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
	struct kpr_ruleset rs = { 0 };
	struct kpr_buf units;
	unsigned int line;
	const char *msg;
	int err;

	*fixed = (struct kpr_buf){ NULL, 0 };
	kpr_spell_units(text->text, text->len, &units.text, &units.len);
	err = units.text ?
	      kpr_parse_policy(units.text, units.len, &rs, &line, &msg) :
	      kpr_parse_policy(text->text, text->len, &rs, &line, &msg);
	free(units.text);
	kpr_ruleset_destroy(&rs);
	if (err)
		return KPR_EXIT_OK;
	return kpr_check_programs(file, text->text, text->len, ctx->resolve,
				  &fixed->text, &fixed->len);
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
	err = kpr_read_path(argv[optind], &buf);
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
	spell_units(&buf);
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
