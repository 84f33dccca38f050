// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the programs a policy names, as this machine has them.
 *
 * The kernel matches a rule against the path of the binding task's
 * executable, as d_absolute_path() spells it: symbolic links resolved.
 * A rule that names a link (/usr/bin/python3 on Debian) or a path through
 * one (/bin/... on a merged-/usr system) therefore matches nobody. The
 * kernel cannot tell: the link may not exist when the policy loads, and
 * the language names paths, not files. So check, load and add resolve
 * each program here, on the machine the policy is for, before the kernel
 * sees it: a path through a link is an error that names the path it
 * resolves to (--resolve writes that one instead), a path that does not
 * exist yet a warning.
 *
 * Paths are resolved under $KPORTRESERVE_ROOT when it is set, as if it
 * were the root directory: an absolute link restarts there.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

/* As the kernel's MAXSYMLINKS: more links than this in one path is a loop. */
#define KPR_MAX_LINKS	40

/**
 * struct kpr_walk - a path being resolved
 * @root: the root directory's path, "" for the real one
 * @done: the resolved part, "" or "/a/b", without links
 * @rest: the part still to walk, components separated by '/'
 * @links: number of links followed
 */
struct kpr_walk {
	const char *root;
	char *done;
	char *rest;
	unsigned int links;
};

/* Take the first component off @w->rest; return it, to free(). */
static char *next_component(struct kpr_walk *w)
{
	char *rest = w->rest + strspn(w->rest, "/");
	size_t n = strcspn(rest, "/");
	char *comp = kpr_xmalloc(n + 1), *left;

	memcpy(comp, rest, n);
	comp[n] = '\0';
	left = kpr_xstrdup(rest + n);
	free(w->rest);
	w->rest = left;
	return comp;
}

/**
 * follow_link() - replace a link at the end of the resolved part
 * @w: the walk; @w->done ends with the link
 * @path: the link's path on this machine
 *
 * Return: 0, or a negative errno (ELOOP past KPR_MAX_LINKS).
 */
static int follow_link(struct kpr_walk *w, const char *path)
{
	char target[4096], *rest, *slash;
	ssize_t n;

	if (++w->links > KPR_MAX_LINKS)
		return -ELOOP;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	rest = kpr_xasprintf("%s/%s", target, w->rest);
	free(w->rest);
	w->rest = rest;
	slash = strrchr(w->done, '/');
	/* An absolute link starts again at the root, a relative one beside. */
	if (target[0] == '/' || !slash)
		w->done[0] = '\0';
	else
		*slash = '\0';
	return 0;
}

/**
 * walk_step() - resolve the next component of a path
 * @w: the walk
 * @is_link: set when the component was a link
 *
 * Return: 0, or a negative errno: -ENOENT when the component does not
 * exist (it is then part of @w->done all the same), another when it
 * cannot be examined.
 */
static int walk_step(struct kpr_walk *w, bool *is_link)
{
	char *comp = next_component(w), *done, *path;
	struct stat st;
	int err = 0;

	if (!*comp || !strcmp(comp, ".")) {
		free(comp);
		return 0;
	}
	if (!strcmp(comp, "..")) {
		char *slash = strrchr(w->done, '/');

		if (slash)
			*slash = '\0';
		free(comp);
		return 0;
	}
	done = kpr_xasprintf("%s/%s", w->done, comp);
	free(comp);
	free(w->done);
	w->done = done;
	path = kpr_xasprintf("%s%s", w->root, w->done);
	if (lstat(path, &st))
		err = -errno;
	else if (S_ISLNK(st.st_mode))
		err = follow_link(w, path);
	if (!err && S_ISLNK(st.st_mode))
		*is_link = true;
	free(path);
	return err;
}

/**
 * kpr_resolve_program() - the path the kernel would see for a program
 * @path: the program's path in the policy, decoded
 * @resolved: receives the path with every link resolved, to free(); a
 *            component that does not exist is kept as written
 * @is_link: receives whether a link was on the way
 *
 * Return: 0 when the path exists, -ENOENT when some component does not,
 * another negative errno when it cannot be resolved.
 */
int kpr_resolve_program(const char *path, char **resolved, bool *is_link)
{
	const char *root = getenv(KPR_ROOT_ENV);
	struct kpr_walk w = {
		.root = root ? root : "",
		.done = kpr_xstrdup(""),
		.rest = kpr_xstrdup(path),
	};
	int err = 0, step;

	*is_link = false;
	while (w.rest[strspn(w.rest, "/")]) {
		step = walk_step(&w, is_link);
		if (step == -ENOENT) {
			/* What follows does not exist either: keep it. */
			err = step;
			continue;
		}
		if (step) {
			err = step;
			break;
		}
	}
	free(w.rest);
	*resolved = w.done[0] ? w.done : kpr_xstrdup("/");
	if (!w.done[0])
		free(w.done);
	return err;
}

/* A message about line @line of @file, or about the command line's rule. */
static void report(const char *file, unsigned int line, const char *msg)
{
	if (file)
		kpr_print_parse_error(file, line, msg);
	else
		kpr_err("%s", msg);
}

/* Whether @path on this machine (under $KPORTRESERVE_ROOT) is a file. */
static bool regular_file(const char *path)
{
	char *real = kpr_root_path(path);
	struct stat st;
	bool reg = !stat(real, &st) && S_ISREG(st.st_mode);

	free(real);
	return reg;
}

/**
 * check_program() - judge the program of one rule
 * @file: the policy's name, for messages; NULL for the command line's
 * @line: the rule's line
 * @path: the decoded path
 * @resolve: write the resolved path instead of refusing a link
 * @resolved: receives the path to write instead, to free(), when the
 *            rule names a link and @resolve is set; else NULL
 *
 * Return: KPR_EXIT_OK (perhaps after a warning), or KPR_EXIT_POLICY after
 * an error.
 */
static int check_program(const char *file, unsigned int line,
			 const char *path, bool resolve, char **resolved)
{
	int ret = KPR_EXIT_OK, err;
	char *real, *msg = NULL;
	bool is_link;

	*resolved = NULL;
	err = kpr_resolve_program(path, &real, &is_link);
	if (err == -ELOOP) {
		msg = kpr_xasprintf("%s: too many symbolic links (a loop): no program runs from it",
				    path);
		ret = KPR_EXIT_POLICY;
	} else if (!err && !regular_file(real)) {
		msg = kpr_xasprintf("%s is not a regular file, so no program runs from it",
				    path);
		ret = KPR_EXIT_POLICY;
	} else if (is_link && resolve) {
		/* On standard error: "check -r -" prints the policy. */
		msg = kpr_xasprintf("%s is a symbolic link: writing %s", path,
				    real);
		*resolved = real;
		real = NULL;
	} else if (is_link) {
		msg = kpr_xasprintf("%s %s: %s %s; write %s (--resolve does)",
				    path,
				    "is a symbolic link, or in a directory that is one",
				    "the kernel sees that program as", real, real);
		ret = KPR_EXIT_POLICY;
	} else if (err == -ENOENT) {
		msg = kpr_xasprintf("warning: %s does not exist (yet): %s", path,
				    "the rule allows nobody until it does");
	} else if (err) {
		msg = kpr_xasprintf("warning: %s cannot be resolved: %s", path,
				    strerror(-err));
	}
	if (msg)
		report(file, line, msg);
	free(msg);
	free(real);
	return ret;
}

/* Where the PROGRAM field of a rule line starts, and its length. */
static const char *program_field(const char *line, size_t *len)
{
	static const char blanks[] = " \t\r\v\f";
	const char *p = line + strspn(line, blanks);

	p += strcspn(p, blanks);
	p += strspn(p, blanks);
	*len = strcspn(p, blanks);
	return p;
}

/**
 * check_line() - check the program of one line of a policy
 * @file: the policy's name, for messages, or NULL
 * @nr: the line's number
 * @line: the line, NUL-terminated, without its newline
 * @resolve: write the resolved path instead of refusing a link
 * @out: receives the line with the resolved path when @resolve is set and
 *       the program is a link, to free(); else NULL
 *
 * The line is parsed alone, by the kernel's parser, for its program, its
 * unit= spelled as cgroup=; a line that does not parse was reported by
 * check_text() already.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_line(const char *file, unsigned int nr, const char *line,
		      bool resolve, char **out)
{
	struct kpr_ruleset rs = { 0 };
	const struct kpr_program *prog;
	char *resolved, *field, *units;
	unsigned int err_line;
	const char *msg, *p;
	int ret = KPR_EXIT_OK, err;
	size_t len;

	*out = NULL;
	kpr_spell_units(line, strlen(line), &units, &len);
	err = kpr_parse_policy(units ? units : line, units ? len : strlen(line),
			       &rs, &err_line, &msg);
	free(units);
	if (err || !rs.nr_rules || rs.rules[0].prog->kernel)
		goto out;
	prog = rs.rules[0].prog;
	ret = check_program(file, nr, prog->path, resolve, &resolved);
	if (!resolved)
		goto out;
	len = kpr_format_path(resolved, strlen(resolved), NULL, 0);
	field = kpr_xmalloc(len + 1);
	kpr_format_path(resolved, strlen(resolved), field, len);
	field[len] = '\0';
	p = program_field(line, &len);
	*out = kpr_xasprintf("%.*s%s%s", (int)(p - line), line, field,
			     p + len);
	free(field);
	free(resolved);
out:
	kpr_ruleset_destroy(&rs);
	return ret;
}

/**
 * kpr_check_programs() - check every program of a policy on this machine
 * @file: the policy's name, for messages; NULL for the rules of the
 *        command line
 * @text: the policy, which the parser accepted
 * @len: its length
 * @resolve: write the resolved path instead of refusing a link
 * @fixed: receives, when @resolve is set and a program was a link, the
 *         policy with each such program replaced by its resolved path, to
 *         free(); else NULL
 * @fixed_len: receives the length of *@fixed
 *
 * Every line is checked, so that every bad program is reported. Lines,
 * comments and blanks are kept as they are but for the program's field.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY when a program names a link
 * (without @resolve) or no regular file.
 */
int kpr_check_programs(const char *file, const char *text, size_t len,
		       bool resolve, char **fixed, size_t *fixed_len)
{
	char *copy = kpr_xmalloc(len + 1), *out = NULL;
	size_t size = 0, start, end;
	bool changed = false;
	unsigned int nr = 0;
	int ret = KPR_EXIT_OK, r;
	FILE *f;

	memcpy(copy, text, len);
	copy[len] = '\0';
	f = open_memstream(&out, &size);
	if (!f)
		exit(KPR_EXIT_IO);
	for (start = 0; start < len; start = end + 1) {
		char *newer;

		/* The parser accepted @text: it has no NUL byte. */
		end = start + strcspn(copy + start, "\n");
		copy[end] = '\0';
		r = check_line(file, ++nr, copy + start, resolve, &newer);
		if (r > ret)
			ret = r;
		fputs(newer ? newer : copy + start, f);
		if (end < len)
			fputc('\n', f);
		changed |= !!newer;
		free(newer);
	}
	free(copy);
	if (fclose(f))
		exit(KPR_EXIT_IO);
	*fixed = NULL;
	*fixed_len = 0;
	if (changed) {
		*fixed = out;
		*fixed_len = size;
	} else {
		free(out);
	}
	return ret;
}
