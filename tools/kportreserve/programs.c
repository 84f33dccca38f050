// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the programs a policy names, as this machine has them.
 *
 * The kernel matches a rule against the path of the binding task's
 * executable, as d_absolute_path() spells it: symbolic links resolved.
 * A rule that names a link (/usr/bin/python3 on Debian, an alternative)
 * or a path through one (/bin/... on a merged-/usr system) would match
 * nobody as written. Administrators know programs by those names, and the
 * file behind the name changes with upgrades (python3.11, then 3.13). So
 * the policy files keep the name, and the command resolves each program
 * here, on the machine the policy is for, at every load, before the
 * kernel sees it: the kernel only ever gets real paths. "check" says
 * where a link leads; "check --resolve" writes the resolved path into
 * the file instead, only when asked. A path that does not exist yet is a
 * warning: the rule allows nobody until it does.
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
 * @weak: the first path walked (a directory, a link or the program) that
 *        a user other than root may replace, to free(); NULL while none
 */
struct kpr_walk {
	const char *root;
	char *done;
	char *rest;
	unsigned int links;
	char *weak;
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

/*
 * Whether someone other than root may replace what @st describes (from
 * lstat()): its owner, or its group or everyone, when they may write it.
 * A directory with the sticky bit (/tmp) lets nobody replace another's
 * file; a link cannot be written, only replaced, by its owner in such a
 * directory or by whoever may write an ordinary one (checked as the
 * component before it).
 */
static bool others_may_write(const struct stat *st)
{
	if (st->st_uid != 0)
		return true;
	if (S_ISLNK(st->st_mode))
		return false;
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return false;
	return (st->st_mode & 0002) || ((st->st_mode & 0020) && st->st_gid != 0);
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
	if (lstat(path, &st)) {
		err = -errno;
	} else {
		/* Before a link replaces @w->done: the link is what is weak. */
		if (!w->weak && others_may_write(&st))
			w->weak = kpr_xstrdup(w->done);
		if (S_ISLNK(st.st_mode))
			err = follow_link(w, path);
	}
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
 * @weak: receives the first path on the way, links and the directories
 *        they lead through included, that a user other than root may
 *        replace, to free(); NULL when only root may change any; or NULL
 *        not to ask
 *
 * Whoever may replace a link or a directory on the way decides which
 * program the rule names at the next load, as surely as whoever may
 * replace the program itself.
 *
 * Return: 0 when the path exists, -ENOENT when some component does not,
 * another negative errno when it cannot be resolved.
 */
int kpr_resolve_program(const char *path, char **resolved, bool *is_link,
			char **weak)
{
	const char *root = getenv(KPR_ROOT_ENV);
	struct kpr_walk w = {
		.root = root ? root : "",
		.done = kpr_xstrdup(""),
		.rest = kpr_xstrdup(path),
	};
	char *top = kpr_root_path("/");
	int err = 0, step;
	struct stat st;

	*is_link = false;
	if (!stat(top, &st) && others_may_write(&st))
		w.weak = kpr_xstrdup("/");
	free(top);
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
	if (weak)
		*weak = w.weak;
	else
		free(w.weak);
	*resolved = w.done[0] ? w.done : kpr_xstrdup("/");
	if (!w.done[0])
		free(w.done);
	return err;
}

/*
 * A message about line @line of @file, or about the command line's rule,
 * unless @p is quiet.
 */
static void report(const struct kpr_programs *p, enum kpr_prio prio,
		   const char *file, unsigned int line, const char *msg)
{
	if (p->quiet)
		return;
	if (file)
		kpr_print_line(prio, file, line, msg);
	else
		kpr_log(prio, "kportreserve: %s", msg);
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
 * program_trouble() - what makes a program unusable in a rule
 * @path: the program as the rule names it
 * @real: the path it resolves to
 * @err: what kpr_resolve_program() returned
 *
 * Return: the message, to free(), or NULL when the rule can be applied.
 */
static char *program_trouble(const char *path, const char *real, int err)
{
	if (err == -ELOOP)
		return kpr_xasprintf("%s: %s", path,
				     "too many symbolic links (a loop): no program runs from it");
	if (!err && !regular_file(real))
		return kpr_xasprintf("%s is not a regular file, so no program runs from it",
				     path);
	return NULL;
}

/**
 * check_program() - judge the program of one rule
 * @p: how to judge, and the figures to add to
 * @file: the policy's name, for messages; NULL for the command line's
 * @line: the rule's line
 * @path: the decoded path
 * @resolved: receives the path to write instead, to free(), when the
 *            rule names a link and @p asks for resolved paths; else NULL
 *
 * Return: KPR_EXIT_OK (perhaps after a warning or a note), or
 * KPR_EXIT_POLICY after an error; with @p->lenient, an error is a
 * warning and the rule is counted in @p->left_out.
 */
static int check_program(struct kpr_programs *p, const char *file,
			 unsigned int line, const char *path, char **resolved)
{
	bool resolve = p->resolve || p->load, is_link;
	char *real, *msg, *writable = NULL;
	int ret = KPR_EXIT_OK, err;

	*resolved = NULL;
	err = kpr_resolve_program(path, &real, &is_link, &writable);
	msg = program_trouble(path, real, err);
	if (msg) {
		ret = p->lenient ? KPR_EXIT_OK : KPR_EXIT_POLICY;
		if (p->lenient) {
			char *more = kpr_xasprintf("%s; the rule is left out", msg);

			free(msg);
			msg = more;
			p->left_out++;
		}
		report(p, p->lenient ? KPR_PRIO_WARNING : KPR_PRIO_ERR, file,
		       line, msg);
		free(msg);
		free(real);
		free(writable);
		return ret;
	}
	if (is_link && p->load) {
		msg = kpr_xasprintf("%s resolves to %s", path, real);
		report(p, KPR_PRIO_INFO, file, line, msg);
		free(msg);
	} else if (is_link && p->resolve) {
		/* On standard error: "check -r -" prints the policy. */
		msg = kpr_xasprintf("%s is a symbolic link: writing %s", path,
				    real);
		report(p, KPR_PRIO_NOTICE, file, line, msg);
		free(msg);
	} else if (is_link) {
		msg = kpr_xasprintf("note: %s is a symbolic link to %s, %s",
				    path, real,
				    "which the kernel matches; every load resolves it again");
		report(p, KPR_PRIO_NOTICE, file, line, msg);
		free(msg);
	}
	if (err == -ENOENT) {
		p->missing++;
		if (!p->first_missing)
			p->first_missing = file ?
				kpr_xasprintf("%s:%u: %s", file, line, path) :
				kpr_xstrdup(path);
		if (!p->load) {
			msg = kpr_xasprintf("warning: %s does not exist (yet): %s",
					    path,
					    "the rule allows nobody until it does");
			report(p, KPR_PRIO_WARNING, file, line, msg);
			free(msg);
		}
	} else if (err) {
		msg = kpr_xasprintf("warning: %s cannot be resolved: %s", path,
				    strerror(-err));
		report(p, KPR_PRIO_WARNING, file, line, msg);
		free(msg);
	}
	if (writable) {
		msg = kpr_xasprintf("warning: %s can be replaced by a user other than root (%s %s",
				    path, writable,
				    "is not root's alone), who would then get its ports");
		report(p, KPR_PRIO_WARNING, file, line, msg);
		free(msg);
		free(writable);
	}
	/* A path that failed half-way is no path the kernel would see. */
	if (is_link && resolve && (!err || err == -ENOENT))
		*resolved = real;
	else
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

/* @line with its program field replaced by @path, to free(). */
static char *replace_program(const char *line, const char *path)
{
	size_t len = kpr_format_path(path, strlen(path), NULL, 0);
	char *field = kpr_xmalloc(len + 1), *out;
	const char *p;

	kpr_format_path(path, strlen(path), field, len);
	field[len] = '\0';
	p = program_field(line, &len);
	out = kpr_xasprintf("%.*s%s%s", (int)(p - line), line, field, p + len);
	free(field);
	return out;
}

/**
 * check_line() - check the program of one line of a policy
 * @p: how to judge, and the figures to add to
 * @file: the policy's name, for messages, or NULL
 * @nr: the line's number
 * @line: the line, NUL-terminated, without its newline
 * @out: receives the line to use instead, to free(): with the resolved
 *       path when the program is a link that @p resolves, empty when a
 *       lenient check leaves the rule out; else NULL
 *
 * The line is parsed alone, by the kernel's parser, for its program, its
 * unit= spelled as cgroup=; a line that does not parse was reported by
 * check_text() already.
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY.
 */
static int check_line(struct kpr_programs *p, const char *file,
		      unsigned int nr, const char *line, char **out)
{
	unsigned int err_line, left_out = p->left_out;
	struct kpr_ruleset rs = { 0 };
	char *resolved, *units;
	int ret = KPR_EXIT_OK, err;
	const char *msg;
	size_t len;

	*out = NULL;
	kpr_spell_units(line, strlen(line), &units, &len);
	err = kpr_parse_policy(units ? units : line, units ? len : strlen(line),
			       &rs, &err_line, &msg);
	free(units);
	if (err || !rs.nr_rules || rs.rules[0].prog->kernel)
		goto out;
	ret = check_program(p, file, nr, rs.rules[0].prog->path, &resolved);
	if (p->left_out != left_out)
		*out = kpr_xstrdup("");
	else if (resolved)
		*out = replace_program(line, resolved);
	free(resolved);
out:
	kpr_ruleset_destroy(&rs);
	return ret;
}

/**
 * kpr_check_programs() - check every program of a policy on this machine
 * @p: how to judge (struct kpr_programs), and the figures to add to
 * @file: the policy's name, for messages; NULL for the rules of the
 *        command line
 * @text: the policy, which the parser accepted
 * @len: its length
 * @fixed: receives, when a line changed (a link resolved, a rule left
 *         out), the policy with those lines changed, to free(); else NULL
 * @fixed_len: receives the length of *@fixed
 *
 * Every line is checked, so that every bad program is reported. Lines,
 * comments and blanks are kept as they are but for the program's field;
 * a rule left out becomes an empty line, so that the lines after it keep
 * their numbers.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_POLICY when a program names no regular
 * file and @p is not lenient.
 */
int kpr_check_programs(struct kpr_programs *p, const char *file,
		       const char *text, size_t len, char **fixed,
		       size_t *fixed_len)
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
		r = check_line(p, file, ++nr, copy + start, &newer);
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

/**
 * kpr_programs_summary() - say once how many programs do not exist yet
 * @p: the figures of a load
 *
 * At boot a policy may name programs of packages not installed: one line
 * says so, and "kportreserve check" lists them.
 */
void kpr_programs_summary(const struct kpr_programs *p)
{
	if (!p->missing)
		return;
	if (p->missing == 1)
		kpr_warn("%s does not exist (yet): its rule allows nobody until it does",
			 p->first_missing);
	else
		kpr_warn("%u rules name a program that does not exist (yet), the first %s: they allow nobody until it does; 'kportreserve check' lists them",
			 p->missing, p->first_missing);
}
