// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's conditional load, faked for run.sh, whose securityfs is a
 * directory of plain files: preloaded (LD_PRELOAD) into kportreserve(8),
 * it makes an O_RDWR descriptor of the file $KPR_FAKE_POLICY behave as the
 * kernel's policy file does when opened O_RDWR:
 *
 * - open() fails with EPERM while the lock file beside it holds "1";
 * - the generation in the stats file beside it at open() is the base;
 * - writes are kept in memory; ftruncate() to 0 starts them over and to
 *   any other size fails with EINVAL; lseek() fails with ESPIPE;
 * - close() after a write fails with EPERM when the lock file holds "1",
 *   with ESTALE when the generation is no longer the base (another load
 *   came in between), and otherwise replaces the file with what was
 *   written. Like the kernel, it changes nothing when it fails.
 *
 * Reads go to the file itself, which the tests do not change between
 * open() and the read. A load of its own does not count a generation.
 * Other files and other descriptors pass through untouched.
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
#include <sys/types.h>
#include <unistd.h>

/**
 * struct fake - the one conditional descriptor open at a time
 * @fd: the descriptor, or -1
 * @base: the generation at open()
 * @dirty: written to or truncated
 * @text: what was written
 * @len: its length
 */
static struct fake {
	int fd;
	long long base;
	bool dirty;
	char *text;
	size_t len;
} fake = { .fd = -1 };

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

/* The file NAME beside the fake policy file, in a static buffer. */
static const char *beside(const char *name)
{
	static char path[4096];
	const char *policy = getenv("KPR_FAKE_POLICY");
	const char *slash = strrchr(policy, '/');

	snprintf(path, sizeof(path), "%.*s/%s",
		 (int)(slash ? slash - policy : 1), slash ? policy : ".",
		 name);
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

static bool is_policy(const char *path, int flags)
{
	const char *policy = getenv("KPR_FAKE_POLICY");

	return policy && !strcmp(path, policy) &&
	       (flags & O_ACCMODE) == O_RDWR;
}

static bool is_fake(int fd)
{
	return fake.fd >= 0 && fd == fake.fd;
}

/* open() and open64() of libc, as NAME says, and the fake's part. */
static int fake_open(const char *name, const char *path, int flags,
		     va_list ap)
{
	__typeof__(open) *fn = dlsym(RTLD_NEXT, name);
	mode_t mode = 0;
	int fd;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	fd = fn(path, flags, mode);
	if (fd < 0 || !is_policy(path, flags))
		return fd;
	if (locked()) {
		real_close(fd);
		errno = EPERM;
		return -1;
	}
	free(fake.text);
	fake = (struct fake){ .fd = fd, .base = generation() };
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

ssize_t write(int fd, const void *buf, size_t count)
{
	if (!is_fake(fd))
		return real_write(fd, buf, count);
	fake.text = realloc(fake.text, fake.len + count);
	if (!fake.text)
		abort();
	memcpy(fake.text + fake.len, buf, count);
	fake.len += count;
	fake.dirty = true;
	return count;
}

static int fake_truncate(off_t length)
{
	if (length) {
		errno = EINVAL;
		return -1;
	}
	fake.len = 0;
	fake.dirty = true;
	return 0;
}

int ftruncate(int fd, off_t length)
{
	__typeof__(ftruncate) *fn = dlsym(RTLD_NEXT, "ftruncate");

	return is_fake(fd) ? fake_truncate(length) : fn(fd, length);
}

int ftruncate64(int fd, off64_t length)
{
	__typeof__(ftruncate64) *fn = dlsym(RTLD_NEXT, "ftruncate64");

	return is_fake(fd) ? fake_truncate(length) : fn(fd, length);
}

off_t lseek(int fd, off_t offset, int whence)
{
	__typeof__(lseek) *fn = dlsym(RTLD_NEXT, "lseek");

	if (!is_fake(fd))
		return fn(fd, offset, whence);
	errno = ESPIPE;
	return -1;
}

off64_t lseek64(int fd, off64_t offset, int whence)
{
	__typeof__(lseek64) *fn = dlsym(RTLD_NEXT, "lseek64");

	if (!is_fake(fd))
		return fn(fd, offset, whence);
	errno = ESPIPE;
	return -1;
}

/* The commit of the kernel's last close: 0 or a negative errno. */
static int commit(void)
{
	int fd, err = 0;

	if (!fake.dirty)
		return 0;
	if (locked())
		return -EPERM;
	if (generation() != fake.base)
		return -ESTALE;
	fd = open(getenv("KPR_FAKE_POLICY"), O_WRONLY | O_TRUNC);
	if (fd < 0 ||
	    real_write(fd, fake.text, fake.len) != (ssize_t)fake.len)
		err = -errno;
	if (fd >= 0 && real_close(fd) && !err)
		err = -errno;
	return err;
}

int close(int fd)
{
	int err;

	if (!is_fake(fd))
		return real_close(fd);
	err = commit();
	fake.fd = -1;
	if (real_close(fd) && !err)
		err = -errno;
	if (!err)
		return 0;
	errno = -err;
	return -1;
}
