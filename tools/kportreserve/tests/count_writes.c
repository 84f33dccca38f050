// SPDX-License-Identifier: GPL-2.0
/*
 * For run.sh: preloaded (LD_PRELOAD) into kportreserve(8), logs what the
 * command does to the file $KPR_COUNT_PATH, one line each to the file
 * $KPR_COUNT_LOG: "open" for each open(), "write N" for each write() of N
 * bytes and "close" for each close() of a descriptor of it. A policy
 * loaded in one write() logs "open", "write N", "close". Everything else
 * passes through untouched.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Log "WHAT", or "WHAT N" when @n is not negative. */
static void note(const char *what, long n)
{
	const char *log = getenv("KPR_COUNT_LOG");
	FILE *f = log ? fopen(log, "a") : NULL;

	if (!f)
		return;
	if (n < 0)
		fprintf(f, "%s\n", what);
	else
		fprintf(f, "%s %ld\n", what, n);
	fclose(f);
}

/* Whether @fd is a descriptor of the watched file. */
static bool watched(int fd)
{
	const char *want = getenv("KPR_COUNT_PATH");
	char link[64], path[PATH_MAX];
	ssize_t n;

	if (!want)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return false;
	path[n] = '\0';
	return !strcmp(path, want);
}

static int count_open(const char *name, const char *path, int flags,
		      va_list ap)
{
	__typeof__(open) *fn = dlsym(RTLD_NEXT, name);
	mode_t mode = 0;
	int fd;

	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	fd = fn(path, flags, mode);
	if (fd >= 0 && watched(fd))
		note("open", -1);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = count_open("open", path, flags, ap);
	va_end(ap);
	return fd;
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	int fd;

	va_start(ap, flags);
	fd = count_open("open64", path, flags, ap);
	va_end(ap);
	return fd;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	__typeof__(write) *fn = dlsym(RTLD_NEXT, __func__);

	if (watched(fd))
		note(__func__, (long)count);
	return fn(fd, buf, count);
}

int close(int fd)
{
	__typeof__(close) *fn = dlsym(RTLD_NEXT, __func__);

	if (watched(fd))
		note(__func__, -1);
	return fn(fd);
}
