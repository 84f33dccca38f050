// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): reading and writing the files of kportreserve's
 * securityfs directory (policy, stats, mode, lock, denials), and telling
 * why the kernel refused a policy.
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

/* Say why a file of the directory is missing, when the directory is. */
static void complain(const struct kpr_ctx *ctx, const char *path, int err)
{
	struct stat st;

	if (err == -ENOENT && stat(ctx->dir, &st)) {
		kpr_err("%s: %s (is kportreserve in lsm= and securityfs mounted?)",
			ctx->dir, strerror(errno));
		return;
	}
	kpr_err("%s: %s", path, strerror(-err));
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
 * @text: the policy as written
 * @len: its length
 *
 * The kernel logs the line it refused, but its log is no interface: its
 * text may change, and dmesg_restrict hides it. Nor is it needed: the
 * kernel parses a policy with security/kportreserve/parser.c, which is
 * built into this program too, and the parser's verdict does not depend
 * on how the text was cut into writes, so parsing the same text finds
 * the line the kernel refused and says the same about it, unless this
 * program was built from another version of the parser. A policy
 * without a bad line was refused for something else (a limit of the
 * policy as built, memory), which the errno tells.
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
 * @text: the policy, or NULL when none was written
 * @len: its length
 * @err: the negative errno of open(), write() or close()
 *
 * Whatever the errno, a text with a bad line could not have loaded, so
 * the line is named (report_bad_line()); but EPERM and EACCES come
 * before the kernel reads a line, and the text has nothing to do with
 * them.
 */
static void explain_refusal(const struct kpr_ctx *ctx, const char *what,
			    const char *text, size_t len, int err)
{
	if (text && err != -EPERM && err != -EACCES)
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

static int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		text += n;
		len -= n;
	}
	return 0;
}

/*
 * What a load that failed with @err (a negative errno, or 0) means for
 * the exit code, explained on standard error.
 */
static int load_outcome(const struct kpr_ctx *ctx, const char *what,
			const char *text, size_t len, int err)
{
	char *path;

	if (!err)
		return KPR_EXIT_OK;
	if (err != -ENOENT && err != -ENOTDIR) {
		explain_refusal(ctx, what, text, len, err);
		return KPR_EXIT_REFUSED;
	}
	path = kpr_fs_path(ctx, "policy");
	complain(ctx, path, err);
	free(path);
	return KPR_EXIT_IO;
}

/* Write @text through @fd and close it: 0 or the first negative errno. */
static int write_and_close(int fd, const char *text, size_t len)
{
	int err = write_all(fd, text, len);

	if (close(fd) && !err)
		err = -errno;
	return err;
}

/**
 * kpr_write_policy() - replace the policy in force
 * @ctx: names the directory
 * @what: the policy's name in messages, such as its file name
 * @text: the new policy
 * @len: its length
 *
 * Opens the policy file with O_TRUNC (so that an empty text loads the
 * empty policy), writes the text in one write() and checks close(), where
 * the kernel reports a bad last line and puts the policy in force.
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_REFUSED, or KPR_EXIT_IO when there is no
 * policy file; errors are explained on standard error.
 */
int kpr_write_policy(const struct kpr_ctx *ctx, const char *what,
		     const char *text, size_t len)
{
	char *path = kpr_fs_path(ctx, "policy");
	int fd, ret;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ret = load_outcome(ctx, what, text, len,
			   fd < 0 ? -errno : write_and_close(fd, text, len));
	free(path);
	return ret;
}

/**
 * kpr_open_policy_rdwr() - open the policy file for a conditional load
 * @ctx: names the directory
 * @text: receives the policy in force, read through the descriptor; free
 *        with kpr_buf_free()
 *
 * Opened O_RDWR, the kernel's policy file is a conditional load: a read
 * gives the policy in force at open(), and the last close() puts what was
 * written in force only if no other load came in between; otherwise it
 * fails with ESTALE and changes nothing (kpr_commit_policy_fd()). Closing
 * the descriptor without writing changes nothing.
 *
 * Return: the descriptor, or the negative errno of open() or of the read;
 * nothing is reported (kpr_load_refused()).
 */
int kpr_open_policy_rdwr(const struct kpr_ctx *ctx, struct kpr_buf *text)
{
	char *path = kpr_fs_path(ctx, "policy");
	int fd = open(path, O_RDWR | O_CLOEXEC), err;

	free(path);
	if (fd < 0)
		return -errno;
	err = kpr_read_fd(fd, text);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/**
 * kpr_load_refused() - explain why the policy file could not be opened
 * @ctx: names the directory
 * @what: the policy's name in messages
 * @err: the negative errno of kpr_open_policy_rdwr()
 *
 * Return: KPR_EXIT_IO when there is no policy file, else KPR_EXIT_REFUSED.
 */
int kpr_load_refused(const struct kpr_ctx *ctx, const char *what, int err)
{
	return load_outcome(ctx, what, NULL, 0, err);
}

/**
 * kpr_commit_policy_fd() - load a policy through a conditional descriptor
 * @ctx: names the directory
 * @fd: from kpr_open_policy_rdwr(); closed on return
 * @what: the policy's name in messages
 * @text: the new policy
 * @len: its length
 *
 * Truncates to 0 first, which starts the written policy over and makes an
 * empty @text load the empty policy, and rewinds where the file has an
 * offset (the kernel's writers are streams, where lseek() fails with
 * ESPIPE); then writes @text and closes @fd, where the kernel commits.
 *
 * Return: KPR_EXIT_OK; -ESTALE, unreported, when another load came in
 * between and nothing changed; or KPR_EXIT_REFUSED or KPR_EXIT_IO, after
 * an explanation on standard error.
 */
int kpr_commit_policy_fd(const struct kpr_ctx *ctx, int fd, const char *what,
			 const char *text, size_t len)
{
	int err = 0;

	if (ftruncate(fd, 0) ||
	    (lseek(fd, 0, SEEK_SET) < 0 && errno != ESPIPE))
		err = -errno;
	if (err)
		close(fd);
	else
		err = write_and_close(fd, text, len);
	return err == -ESTALE ? err : load_outcome(ctx, what, text, len, err);
}
