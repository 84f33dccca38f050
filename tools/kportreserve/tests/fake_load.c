// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's load file, faked for run.sh, whose securityfs is a
 * directory of plain files: preloaded (LD_PRELOAD) into kportreserve(8),
 * it makes a descriptor of the file $KPR_FAKE_LOAD opened for writing
 * behave as one of the kernel's load file:
 *
 * - each open file takes one write(); a zero-length write() returns 0
 *   and counts for nothing, and a second one fails with EINVAL;
 * - the text must end with a newline (else EINVAL), and may begin with
 *   the line "generation N", N decimal (else EINVAL);
 * - then the write() fails with EPERM when the lock file beside it holds
 *   "1", and with ESTALE when there is a generation line and the stats
 *   file beside it shows another generation;
 * - otherwise the text is written to the file $KPR_FAKE_LOAD itself, a
 *   regular file truncated first (so that it holds the last text loaded,
 *   generation line included) or a device such as /dev/full, whose error
 *   the write() returns; and then the text without its generation line
 *   replaces the policy file beside it, through a rename, so that readers
 *   see the old policy or the new one;
 * - with $KPR_FAKE_SHORT set, the write() takes half the text and loads
 *   nothing, which the kernel never does;
 * - close() changes nothing.
 *
 * The text is not parsed, and a load does not count a generation: the
 * tests set the stats file as they need it. What the kernel keeps per open
 * file is kept here per descriptor, dup2() and dup3() copying it, which
 * serves programs that do not write to both descriptors. Other files and
 * descriptors pass through untouched.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define FAKE_MAX_FD	1024

/* Per descriptor: a descriptor of the load file; its one write() done. */
static bool is_load[FAKE_MAX_FD], written[FAKE_MAX_FD];

/* The functions of libc that this file stands in front of. */
static int real_close(int fd)
{
	__typeof__(close) *fn = dlsym(RTLD_NEXT, "close");

	return fn(fd);
}

static ssize_t real_write(int fd, const void *buf, size_t count)
{
	__typeof__(write) *fn = dlsym(RTLD_NEXT, "write");

	return fn(fd, buf, count);
}

/* The file NAME beside the fake load file, in a static buffer. */
static const char *beside(const char *name)
{
	static char path[4096];
	const char *load = getenv("KPR_FAKE_LOAD");
	const char *slash = strrchr(load, '/');

	snprintf(path, sizeof(path), "%.*s/%s",
		 (int)(slash ? slash - load : 1), slash ? load : ".", name);
	return path;
}

static bool locked(void)
{
	FILE *f = fopen(beside("lock"), "r");
	int c = f ? fgetc(f) : EOF;

	if (f)
		fclose(f);
	return c == '1';
}

static long long generation(void)
{
	FILE *f = fopen(beside("stats"), "r");
	long long gen = -1, value;
	char name[64];

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &value) == 2)
		if (!strcmp(name, "generation"))
			gen = value;
	fclose(f);
	return gen;
}

static bool is_fake(int fd)
{
	return fd >= 0 && fd < FAKE_MAX_FD && is_load[fd];
}

/* open() and open64() of libc, as NAME says, and the fake's part. */
static int fake_open(const char *name, const char *path, int flags,
		     va_list ap)
{
	__typeof__(open) *fn = dlsym(RTLD_NEXT, name);
	const char *load = getenv("KPR_FAKE_LOAD");
	mode_t mode = 0;
	int fd;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	fd = fn(path, flags, mode);
	if (fd < 0 || fd >= FAKE_MAX_FD || !load || strcmp(path, load) ||
	    (flags & O_ACCMODE) == O_RDONLY)
		return fd;
	is_load[fd] = true;
	written[fd] = false;
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = fake_open("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = fake_open("open64", path, flags, ap);
	va_end(ap);
	return fd;
}

/*
 * The generation line at the start of @text, if any: its length (0 when
 * there is none) and in @base the generation; -1 when it is malformed.
 */
static ssize_t generation_line(const char *text, size_t len, long long *base)
{
	static const char word[] = "generation ";
	const char *p, *end;
	char *stop;

	if (len < sizeof(word) - 1 || memcmp(text, word, sizeof(word) - 1))
		return 0;
	p = text + sizeof(word) - 1;
	end = memchr(text, '\n', len);
	if (!end || p >= end || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	*base = strtoll(p, &stop, 10);
	if (errno || stop != end)
		return -1;
	return end + 1 - text;
}

/* Write the text to the file itself, then replace the policy with it. */
static int load_policy(int fd, const char *text, size_t len, size_t head)
{
	const char *policy = beside("policy");
	char tmp[4096 + 8];
	struct stat st;
	int out, err = 0;

	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && ftruncate(fd, 0))
		return -errno;
	errno = 0;
	if (real_write(fd, text, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	snprintf(tmp, sizeof(tmp), "%s.new", policy);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return -errno;
	errno = 0;
	if (real_write(out, text + head, len - head) != (ssize_t)(len - head))
		err = errno ? -errno : -EIO;
	if (real_close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, policy))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* The one write() of an open load file: what it returns, or -errno. */
static ssize_t fake_write(int fd, const char *text, size_t len)
{
	long long base = -1;
	ssize_t head;
	int err;

	if (!len)
		return 0;
	if (written[fd])
		return -EINVAL;
	written[fd] = true;
	if (text[len - 1] != '\n')
		return -EINVAL;
	head = generation_line(text, len, &base);
	if (head < 0)
		return -EINVAL;
	if (getenv("KPR_FAKE_SHORT"))
		return len / 2;
	if (locked())
		return -EPERM;
	if (head && generation() != base)
		return -ESTALE;
	err = load_policy(fd, text, len, head);
	return err ? err : (ssize_t)len;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t n;

	if (!is_fake(fd))
		return real_write(fd, buf, count);
	n = fake_write(fd, buf, count);
	if (n >= 0)
		return n;
	errno = -n;
	return -1;
}

int close(int fd)
{
	if (is_fake(fd))
		is_load[fd] = false;
	return real_close(fd);
}

/*
 * dup2() and dup3(), as dd and the shell put a file they open on standard
 * output: the new descriptor is one of the load file, in the state of the
 * old one.
 */
static int fake_dup(int oldfd, int newfd, int ret)
{
	if (ret < 0 || newfd >= FAKE_MAX_FD || oldfd == newfd)
		return ret;
	is_load[newfd] = is_fake(oldfd);
	written[newfd] = is_fake(oldfd) && written[oldfd];
	return ret;
}

int dup2(int oldfd, int newfd)
{
	__typeof__(dup2) *fn = dlsym(RTLD_NEXT, "dup2");

	return fake_dup(oldfd, newfd, fn(oldfd, newfd));
}

int dup3(int oldfd, int newfd, int flags)
{
	__typeof__(dup3) *fn = dlsym(RTLD_NEXT, "dup3");

	return fake_dup(oldfd, newfd, fn(oldfd, newfd, flags));
}
