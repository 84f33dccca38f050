// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): reading the files of kportreserve's securityfs
 * directory (policy, stats, mode, lock, denials), loading a policy through
 * its load file, and telling why the kernel refused one.
 *
 * The command writes a policy to "load" only, never to "policy": "load"
 * takes the whole text in one write() and returns what the kernel made of
 * it, where "policy" commits when its last reference goes, too late for
 * an error to reach the writer.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

/**
 * kpr_fs_path() - the path of a file of the securityfs directory
 * @ctx: names the directory
 * @name: the file
 *
 * Return: the path, to free().
 */
char *kpr_fs_path(const struct kpr_ctx *ctx, const char *name)
{
	return kpr_xasprintf("%s/%s", ctx->dir, name);
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/**
 * kpr_read_fd() - read what is left of an open file into memory
 * @fd: the file
 * @buf: receives the contents, NUL-terminated; free with kpr_buf_free()
 *
 * Reading stops one byte past the largest policy the kernel takes, so
 * that the parser and the kernel report an oversized file as such and a
 * file without end (a device) does not exhaust memory.
 *
 * Return: 0 or a negative errno.
 */
int kpr_read_fd(int fd, struct kpr_buf *buf)
{
	size_t cap = 4096;
	int err = 0;

	buf->len = 0;
	buf->text = kpr_xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (cap - buf->len < 2) {
			cap *= 2;
			buf->text = kpr_xrealloc(buf->text, cap);
		}
		n = read(fd, buf->text + buf->len,
			 min_size(cap - buf->len - 1,
				  KPR_POLICY_MAX_BYTES + 1 - buf->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n ? -errno : 0;
			break;
		}
		buf->len += n;
	}
	buf->text[buf->len] = '\0';
	if (err)
		kpr_buf_free(buf);
	return err;
}

/**
 * kpr_read_path() - read a whole file into memory
 * @path: the file, or "-" for standard input
 * @buf: receives the contents, NUL-terminated; free with kpr_buf_free()
 *
 * Return: 0 or a negative errno.
 */
int kpr_read_path(const char *path, struct kpr_buf *buf)
{
	bool is_stdin = !strcmp(path, "-");
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	int err;

	buf->len = 0;
	buf->text = NULL;
	if (fd < 0)
		return -errno;
	err = kpr_read_fd(fd, buf);
	if (!is_stdin)
		close(fd);
	return err;
}

void kpr_buf_free(struct kpr_buf *buf)
{
	free(buf->text);
	buf->text = NULL;
	buf->len = 0;
}

/**
 * active_lsms() - the LSMs the running kernel has active
 *
 * Read from securityfs's "lsm" file (under $KPORTRESERVE_ROOT when set),
 * so that a kernel without kportreserve is named as such rather than
 * guessed at.
 *
 * Return: the comma-separated list, to free(), or NULL when unknown.
 */
static char *active_lsms(void)
{
	char *path = kpr_root_path("/sys/kernel/security/lsm");
	struct kpr_buf buf;

	if (kpr_read_path(path, &buf)) {
		free(path);
		return NULL;
	}
	free(path);
	buf.text[strcspn(buf.text, "\n")] = '\0';
	return buf.text;
}

/* Say why a file of the directory is missing, when the directory is. */
static void complain(const struct kpr_ctx *ctx, const char *path, int err)
{
	struct stat st;
	char *lsms;
	int why;

	if (err != -ENOENT || !stat(ctx->dir, &st)) {
		kpr_err("%s: %s", path, strerror(-err));
		return;
	}
	why = errno;
	lsms = active_lsms();
	if (lsms && !strstr(lsms, "kportreserve"))
		kpr_err("%s: %s: kportreserve is not active in this kernel (its LSMs: %s; boot with kportreserve in lsm=)",
			ctx->dir, strerror(why), lsms);
	else
		kpr_err("%s: %s (is kportreserve in lsm= and securityfs mounted?)",
			ctx->dir, strerror(why));
	free(lsms);
}

/**
 * kpr_read_file() - read a file of the securityfs directory
 * @ctx: names the directory
 * @name: the file
 * @buf: receives the contents; free with kpr_buf_free()
 * @quiet: do not print an error message
 *
 * Return: 0 or a negative errno.
 */
int kpr_read_file(const struct kpr_ctx *ctx, const char *name,
		  struct kpr_buf *buf, bool quiet)
{
	char *path = kpr_fs_path(ctx, name);
	int err = kpr_read_path(path, buf);

	if (err && !quiet)
		complain(ctx, path, err);
	free(path);
	return err;
}

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	return s;
}

static void add_stat(struct kpr_stats *st, char *line)
{
	char *name = trim(line), *value = name + strcspn(name, " \t");

	if (!*name)
		return;
	if (*value)
		*value++ = '\0';
	st->stat = kpr_xrealloc(st->stat, (st->nr + 1) * sizeof(*st->stat));
	st->stat[st->nr].name = kpr_xstrdup(name);
	st->stat[st->nr].value = kpr_xstrdup(trim(value));
	st->nr++;
}

/**
 * kpr_stats_read() - read the stats file
 * @ctx: names the directory
 * @st: receives the "name value" lines in the kernel's order; free with
 *      kpr_stats_free()
 *
 * Names this program does not know are kept, and missing ones are simply
 * absent: kernels differ in what they count.
 *
 * Return: 0 or a negative errno, after an error message.
 */
int kpr_stats_read(const struct kpr_ctx *ctx, struct kpr_stats *st)
{
	struct kpr_buf buf;
	char *line, *next;
	int err;

	st->stat = NULL;
	st->nr = 0;
	err = kpr_read_file(ctx, "stats", &buf, false);
	if (err)
		return err;
	for (line = buf.text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		add_stat(st, line);
	}
	kpr_buf_free(&buf);
	return 0;
}

const char *kpr_stats_get(const struct kpr_stats *st, const char *name)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		if (!strcmp(st->stat[i].name, name))
			return st->stat[i].value;
	}
	return NULL;
}

void kpr_stats_free(struct kpr_stats *st)
{
	size_t i;

	for (i = 0; i < st->nr; i++) {
		free(st->stat[i].name);
		free(st->stat[i].value);
	}
	free(st->stat);
	st->stat = NULL;
	st->nr = 0;
}

static bool policy_locked(const struct kpr_ctx *ctx)
{
	struct kpr_buf buf;
	bool locked;

	if (kpr_read_file(ctx, "lock", &buf, true))
		return false;
	locked = !strcmp(trim(buf.text), "1");
	kpr_buf_free(&buf);
	return locked;
}

/**
 * report_bad_line() - name the line of a refused policy that is wrong
 * @ctx: the policy's files, when it was assembled from them
 * @what: the policy's name in messages
 * @text: the policy as given, without the generation line of a
 *        conditional load
 * @len: its length
 *
 * The kernel logs the line it refused, but its log is no interface: its
 * text may change, and dmesg_restrict hides it. Nor is it needed: the
 * kernel parses a policy with security/kportreserve/parser.c, which is
 * built into this program too, so parsing the same text finds the line
 * the kernel refused and says the same about it, unless this program was
 * built from another version of the parser. The kernel counts the
 * generation line of a conditional load as line 1; the text parsed here
 * has none, so its line numbers are those of the file. A policy without a
 * bad line was refused for something else (a limit of the policy as
 * built, memory), which the errno tells.
 */
static void report_bad_line(const struct kpr_ctx *ctx, const char *what,
			    const char *text, size_t len)
{
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg;

	if (kpr_parse_policy(text, len, &rs, &line, &msg))
		kpr_print_policy_error(ctx, what, line, msg);
	kpr_ruleset_destroy(&rs);
}

/**
 * explain_refusal() - tell the user why the kernel refused a policy
 * @ctx: names the directory
 * @what: the policy's name in messages, such as its file name
 * @text: the policy as given
 * @len: its length
 * @err: the negative errno of open() or write() of the load file
 *
 * Whatever the errno, a text with a bad line could not have loaded, so
 * the line is named (report_bad_line()); but EPERM and EACCES come
 * before the kernel reads a line, and the text has nothing to do with
 * them.
 */
static void explain_refusal(const struct kpr_ctx *ctx, const char *what,
			    const char *text, size_t len, int err)
{
	if (err != -EPERM && err != -EACCES)
		report_bad_line(ctx, what, text, len);
	if (err == -EPERM && policy_locked(ctx))
		kpr_err("the kernel refused %s: the policy is locked until reboot",
			what);
	else if (err == -EPERM || err == -EACCES)
		kpr_err("the kernel refused %s: %s (loading a policy needs CAP_MAC_ADMIN)",
			what, strerror(-err));
	else
		kpr_err("the kernel refused %s: %s; the policy in force is unchanged",
			what, strerror(-err));
}

/*
 * What a load that failed with @err (a negative errno, or 0) means for
 * the exit code, explained on standard error. A directory without a load
 * file is that of a kernel older than the file, into which this program
 * cannot load.
 */
static int load_outcome(const struct kpr_ctx *ctx, const char *what,
			const char *text, size_t len, int err)
{
	struct stat st;
	char *path;

	if (!err)
		return KPR_EXIT_OK;
	if (err != -ENOENT && err != -ENOTDIR) {
		explain_refusal(ctx, what, text, len, err);
		return KPR_EXIT_REFUSED;
	}
	path = kpr_fs_path(ctx, "load");
	if (err == -ENOENT && !stat(ctx->dir, &st))
		kpr_err("%s: %s (is the kernel older than this program?)",
			path, strerror(-err));
	else
		complain(ctx, path, err);
	free(path);
	return KPR_EXIT_IO;
}

/**
 * load_text() - the bytes of the one write() of a load
 * @generation: for a conditional load, the generation that must still be
 *              in force, in decimal; NULL for none
 * @text: the policy
 * @len: its length
 * @out_len: receives the length of the result
 *
 * The kernel parses what one write() carries as a whole policy and
 * refuses it unless it ends with a newline, so the newline that a last
 * line lacks is added here; the empty policy becomes "\n", since a
 * write() of nothing loads nothing. A conditional load starts with the
 * line "generation N". It is all one buffer for one write(): writev() may
 * reach the file as one write() per piece, and the second would fail.
 *
 * Return: the bytes, to free().
 */
static char *load_text(const char *generation, const char *text, size_t len,
		       size_t *out_len)
{
	bool newline = !len || text[len - 1] != '\n';
	char *head = generation ? kpr_xasprintf("generation %s\n", generation) :
				  kpr_xstrdup("");
	size_t head_len = strlen(head);
	char *buf = kpr_xmalloc(head_len + len + 1);

	memcpy(buf, head, head_len);
	if (len)
		memcpy(buf + head_len, text, len);
	if (newline)
		buf[head_len + len] = '\n';
	*out_len = head_len + len + newline;
	free(head);
	return buf;
}

/*
 * Open the load file and write @buf to it in one write(): the number of
 * bytes the kernel took, or the negative errno of open() or write(). The
 * load is over when write() returns, and close() reports nothing.
 */
static ssize_t write_load(const struct kpr_ctx *ctx, const char *buf,
			  size_t len)
{
	char *path = kpr_fs_path(ctx, "load");
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	free(path);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/**
 * kpr_write_policy() - replace the policy in force through the load file
 * @ctx: names the directory
 * @what: the policy's name in messages, such as its file name
 * @generation: for a conditional load, the generation that must still be
 *              in force, as the stats file shows it; NULL to load
 *              whatever is in force
 * @text: the new policy
 * @len: its length
 *
 * The kernel parses, builds and puts in force the text of one write() to
 * "load" inside that write(), whose errno says why not: every outcome is
 * known when write() returns. The text goes in one write() (load_text());
 * a write() that takes less is an error, since the file takes no second
 * one. With @generation, the kernel loads the text only if the policy in
 * force still has that generation, and otherwise fails with ESTALE and
 * changes nothing.
 *
 * Return: KPR_EXIT_OK; -ESTALE, unreported, when @generation is no longer
 * in force; or KPR_EXIT_REFUSED, or KPR_EXIT_IO when there is no load file
 * or the write() was short, after an explanation on standard error.
 */
int kpr_write_policy(const struct kpr_ctx *ctx, const char *what,
		     const char *generation, const char *text, size_t len)
{
	size_t buf_len;
	char *buf = load_text(generation, text, len, &buf_len);
	ssize_t n = write_load(ctx, buf, buf_len);
	char *path;

	free(buf);
	if (n == -ESTALE && generation)
		return -ESTALE;
	if (n >= 0 && (size_t)n != buf_len) {
		path = kpr_fs_path(ctx, "load");
		kpr_err("%s: short write: %zd of %zu bytes of %s taken; check the policy in force with 'kportreserve status'",
			path, n, buf_len, what);
		free(path);
		return KPR_EXIT_IO;
	}
	return load_outcome(ctx, what, text, len, n < 0 ? (int)n : 0);
}
