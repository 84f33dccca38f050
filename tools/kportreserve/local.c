// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the policy file of "add" and "del".
 *
 * An edit that is gone after the next boot, reload or package trigger is
 * a trap: semanage writes what it changes, and firewalld makes the choice
 * explicit. So add and del change the running policy and then this file,
 * KPR_LOCAL_POLICY in the administrator's drop-in directory, which every
 * load reads like any other drop-in; "--runtime" (systemctl's word)
 * leaves it alone. The file keeps each rule as the administrator wrote
 * it, a link, a unit= or a user's name included, so that it follows the
 * machine as the other policy files do. Every other line (comments, rules
 * added by hand) is kept byte for byte; a line that del takes some of the
 * rules of ("uid=0,33") is written again as the canonical rules it keeps.
 *
 * The file is replaced, never written in place: a new file beside it is
 * renamed over it, so that a load that reads it at the same time (a
 * package's trigger) sees the old file or the new one. Two edits at once
 * would each read the file, change it and rename their copy over the
 * other's, and a load of the files between an edit's change of the policy
 * in force and its write of the file would undo it; so an edit holds
 * kpr_edit_lock() exclusively from its read of the policy in force to its
 * write of the file, and a load of the files holds it shared.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

static const char local_header[] =
"# Written by \"kportreserve add\" and \"kportreserve del\"; edits by hand\n"
"# are kept. See kportreserve.policy(5).\n";

/**
 * kpr_local_path() - the path of the file of add and del
 *
 * Return: the path, under $KPORTRESERVE_ROOT if set, to free().
 */
char *kpr_local_path(void)
{
	return kpr_root_path(KPR_LOCAL_POLICY);
}

/* mkdir -p of @dir; return 0, or -1, after a message if @loud. */
static int make_dirs(const char *dir, bool loud)
{
	char *path = kpr_xstrdup(dir), *p, saved;
	int ret = 0;

	/* Each prefix that ends before a slash, then the whole. */
	for (p = path + 1; !ret; p++) {
		if (*p && *p != '/')
			continue;
		saved = *p;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			if (loud)
				kpr_err("%s: %s", path, strerror(errno));
			ret = -1;
		}
		*p = saved;
		if (!saved)
			break;
	}
	free(path);
	return ret;
}

/**
 * kpr_edit_lock() - serialise edits of the policy with loads of its files
 * @exclusive: for add and del; a load of the files takes it shared
 *
 * An flock() of KPR_EDIT_LOCK, a file only root may open (mode 0600, in
 * a directory only root may write), so that nobody else can hold it and
 * stall root's edits. It is held until the command exits.
 *
 * flock() of a descriptor just opened fails only where the kernel cannot
 * lock at all: one built without CONFIG_FILE_LOCKING (which only small
 * embedded kernels leave out) has no flock() system call. There the
 * command goes on without the lock, as nothing else could serialise it.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message (none for a shared
 * lock: a load goes on without it, as the lock only orders it with edits).
 */
int kpr_edit_lock(bool exclusive)
{
	char *dir = kpr_root_path(KPR_RUN_DIR), *path = kpr_root_path(KPR_EDIT_LOCK);
	int fd = -1, ret = KPR_EXIT_IO;

	if (!make_dirs(dir, exclusive))
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (exclusive)
			kpr_err("%s: cannot open: %s", path, strerror(errno));
	} else {
		/* Held until exit: @fd stays open. */
		(void)flock(fd, exclusive ? LOCK_EX : LOCK_SH);
		ret = KPR_EXIT_OK;
	}
	free(path);
	free(dir);
	return ret;
}

/* The line at *@p, without its newline, to free(); *@p moves past it. */
static char *take_line(const char **p)
{
	size_t n = strcspn(*p, "\n");
	char *line = kpr_xasprintf("%.*s", (int)n, *p);

	*p += n + ((*p)[n] == '\n');
	return line;
}

/* Append @more to the string *@s, which is replaced. */
static void append(char **s, const char *more)
{
	char *longer = kpr_xasprintf("%s%s", *s, more);

	free(*s);
	*s = longer;
}

/**
 * line_rules() - the canonical rules of one line of the file
 * @line: the line, NUL-terminated, without its newline
 *
 * Return: the rules, one a line with a newline each, as the parser prints
 * them after unit= and names are spelled; "" for a comment or a line that
 * does not parse (a load names it); to free().
 */
static char *line_rules(const char *line)
{
	struct kpr_ruleset rs = { 0 };
	size_t len, spelled_len;
	unsigned int err_line;
	char *spelled, *text;
	const char *msg;
	int err;

	kpr_spell_units(line, strlen(line), &spelled, &spelled_len);
	err = kpr_parse_policy(spelled ? spelled : line,
			       spelled ? spelled_len : strlen(line), &rs,
			       &err_line, &msg);
	free(spelled);
	text = err ? kpr_xstrdup("") : kpr_format_ruleset(&rs, &len);
	kpr_ruleset_destroy(&rs);
	return text;
}

/* @rules (one a line) with their programs as a load resolves them. */
static char *resolved(const char *rules)
{
	struct kpr_programs progs = { .load = true, .quiet = true };
	size_t len;
	char *fixed;

	kpr_check_programs(&progs, NULL, rules, strlen(rules), &fixed, &len);
	free(progs.first_missing);
	return fixed ? fixed : kpr_xstrdup(rules);
}

/*
 * Of the rules of @have (one a line), those not in @drop, one a line; ""
 * when none is left.
 */
static char *rules_without(const char *have, const char *drop)
{
	char *out = kpr_xstrdup(""), *line;
	const char *p = have;

	while (*p) {
		line = take_line(&p);
		if (!kpr_rules_have(drop, line)) {
			append(&out, line);
			append(&out, "\n");
		}
		free(line);
	}
	return out;
}

/* Write @text to the file @path, its directories made first if missing. */
static int replace_file(const char *path, const char *text)
{
	char *dir = kpr_xstrdup(path);
	int ret = KPR_EXIT_IO;

	/* /etc/kportreserve may be new. */
	*strrchr(dir, '/') = '\0';
	if (!make_dirs(dir, true))
		ret = kpr_replace_file(path, text, strlen(text), NULL);
	free(dir);
	return ret;
}

/* Read the file; a file that does not exist yet is empty. */
static int read_local(const char *path, struct kpr_buf *buf)
{
	int err = kpr_read_path(path, buf);

	if (err == -ENOENT) {
		buf->text = kpr_xstrdup("");
		buf->len = 0;
		return KPR_EXIT_OK;
	}
	if (err) {
		kpr_err("%s: %s", path, strerror(-err));
		return KPR_EXIT_IO;
	}
	return KPR_EXIT_OK;
}

/**
 * kpr_local_add() - write a rule into the file of add and del
 * @written: the rule as the administrator wrote it, one policy line
 * @rules: its canonical rules, one a line (uid=0,33 gives two)
 * @added: receives whether the file changed
 *
 * The line is appended unless every rule of it is in the file already.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
int kpr_local_add(const char *written, const char *rules, bool *added)
{
	char *path = kpr_local_path(), *have = kpr_xstrdup(""), *text;
	char *line, *more;
	struct kpr_buf buf;
	const char *p;
	int ret;

	*added = false;
	ret = read_local(path, &buf);
	if (ret)
		goto out;
	for (p = buf.text; *p; free(line), free(more)) {
		line = take_line(&p);
		more = line_rules(line);
		append(&have, more);
	}
	more = rules_without(rules, have);
	if (*more) {
		text = kpr_xasprintf("%s%s%s%s\n", buf.len ? "" : local_header,
				     buf.text,
				     buf.len && buf.text[buf.len - 1] != '\n' ?
				     "\n" : "", written);
		ret = replace_file(path, text);
		*added = !ret;
		free(text);
	}
	free(more);
	kpr_buf_free(&buf);
out:
	free(have);
	free(path);
	return ret;
}

/*
 * Of the rules of @have, those that are neither in @drop nor, once
 * resolved, in @drop_real: a rule added as a link and deleted by its real
 * path goes, and so does one added --resolve'd and deleted as the link.
 */
static char *rules_kept(const char *have, const char *drop,
			const char *drop_real)
{
	char *real = resolved(have), *out = kpr_xstrdup(""), *line, *line_real;
	const char *p = have, *q = real;

	while (*p) {
		line = take_line(&p);
		line_real = take_line(&q);
		if (!kpr_rules_have(drop, line) && !kpr_rules_have(drop_real, line_real)) {
			append(&out, line);
			append(&out, "\n");
		}
		free(line_real);
		free(line);
	}
	free(real);
	return out;
}

/**
 * kpr_local_del() - take rules out of the file of add and del
 * @rules: the canonical rules to take out, one a line
 * @real: the same with their programs resolved
 * @deleted: receives whether the file changed
 *
 * A line all of whose rules go is dropped; a line that keeps some (one
 * id of "uid=0,33") is written again as the canonical rules it keeps.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
int kpr_local_del(const char *rules, const char *real, bool *deleted)
{
	char *path = kpr_local_path(), *out = kpr_xstrdup("");
	char *line, *have, *kept;
	struct kpr_buf buf;
	const char *p;
	int ret;

	*deleted = false;
	ret = read_local(path, &buf);
	if (ret)
		goto out;
	for (p = buf.text; *p; free(kept), free(have), free(line)) {
		line = take_line(&p);
		have = line_rules(line);
		kept = rules_kept(have, rules, real);
		if (!strcmp(kept, have)) {
			append(&out, line);
			append(&out, "\n");
		} else {
			append(&out, kept);
			*deleted = true;
		}
	}
	if (*deleted)
		ret = replace_file(path, out);
	kpr_buf_free(&buf);
out:
	free(out);
	free(path);
	return ret;
}
