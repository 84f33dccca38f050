// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): unit=NAME, the spelling of a cgroup= qualifier that
 * names a systemd unit.
 *
 * The kernel's language names the cgroup (v2) a program must run in by
 * its path, cgroup=/system.slice/myapp.service. An administrator thinks
 * of the service, so the command also takes unit=myapp.service and writes
 * it as that path before the kernel's parser sees the rule. systemd puts
 * a system service, socket, mount or scope in system.slice unless its
 * Slice= says otherwise, an instance of a template (foo@bar.service) in
 * system-foo.slice below it, init.scope at the root, and a slice where
 * its name says (a-b.slice is /a.slice/a-b.slice): the command does the
 * same, and needs no running systemd. A unit that sets Slice= must be
 * named by its cgroup= path; "systemctl show -P ControlGroup UNIT"
 * prints it. The name is systemd's spelling, "\x2d" included; the path
 * is written as the policy spells paths (kpr_format_path()).
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kportreserve.h"

#define KPR_UNIT_PREFIX		"unit="
#define KPR_UNIT_MAX		255

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

/* The characters systemd allows in a unit name. */
static bool valid_unit(const char *name, size_t len)
{
	size_t i;

	if (!len || len > KPR_UNIT_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (!isalnum(c) && !strchr(":-_.\\@", c))
			return false;
	}
	return true;
}

/**
 * slice_path() - the cgroup path of a slice unit
 * @name: "a-b.slice"
 * @len: its length, suffix included
 * @out: receives "/a.slice/a-b.slice"
 *
 * Each dash opens a level, as systemd's slice names do.
 */
static void slice_path(const char *name, size_t len, FILE *out)
{
	size_t base = len - strlen(".slice"), i;

	for (i = 0; i <= base; i++) {
		if (i == base || name[i] == '-')
			fprintf(out, "/%.*s.slice", (int)i, name);
	}
}

/*
 * The slice systemd makes for the instances of template @prefix
 * ("foo-bar" of foo-bar@x.service): "/system-foo\x2dbar.slice", a dash
 * of the prefix escaped, since a slice's dashes are its levels.
 */
static void template_slice(const char *prefix, size_t len, FILE *out)
{
	size_t i;

	fputs("/system-", out);
	for (i = 0; i < len; i++) {
		if (prefix[i] == '-')
			fputs("\\x2d", out);
		else
			fputc(prefix[i], out);
	}
	fputs(".slice", out);
}

/* Write @len bytes of @path as a policy spells a path. */
static void put_path(const char *path, size_t len, FILE *out)
{
	size_t n = kpr_format_path(path, len, NULL, 0);
	char *text = kpr_xmalloc(n);

	kpr_format_path(path, len, text, n);
	fwrite(text, 1, n, out);
	free(text);
}

/**
 * unit_cgroup() - write the cgroup= field of a unit= field
 * @field: the unit's name, after "unit="
 * @len: its length
 * @out: receives "cgroup=PATH"
 *
 * A name without a suffix is a service, as systemctl takes it.
 *
 * Return: true, or false when @field is no unit name.
 */
static bool unit_cgroup(const char *field, size_t len, FILE *out)
{
	const char *dot = memchr(field, '.', len);
	const char *at = memchr(field, '@', len);
	char *path = NULL;
	size_t size = 0;
	FILE *p;

	if (!valid_unit(field, len))
		return false;
	p = open_memstream(&path, &size);
	if (!p)
		exit(KPR_EXIT_IO);
	/* valid_unit() refused "-.slice", the root. */
	if (has_suffix(field, len, ".slice")) {
		slice_path(field, len, p);
	} else if (len == strlen("init.scope") && !memcmp(field, "init.scope", len)) {
		fputs("/init.scope", p);
	} else {
		fputs("/system.slice", p);
		/* An instance: its template's slice, where "-" is "\x2d". */
		if (at && at > field && (!dot || at < dot))
			template_slice(field, at - field, p);
		fprintf(p, "/%.*s%s", (int)len, field, dot ? "" : ".service");
	}
	if (fclose(p))
		exit(KPR_EXIT_IO);
	fputs("cgroup=", out);
	put_path(path, size, out);
	free(path);
	return true;
}

/* The length of the field at @s: up to a blank, a newline or a NUL. */
static size_t field_len(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] && s[n] != '\n' && !strchr(" \t\r\v\f", s[n]))
		n++;
	return n;
}

/**
 * kpr_spell_units() - write each unit= field of a policy as cgroup=
 * @text: the policy
 * @len: its length
 * @out: receives the new text, to free(), or NULL when @text has no
 *       unit= field
 * @out_len: receives its length
 *
 * Only a whole field that starts with "unit=" changes, so that lines and
 * their numbers stay; comments are left alone. A unit= field that names
 * no unit is left as it is, for the parser to refuse.
 */
void kpr_spell_units(const char *text, size_t len, char **out,
		     size_t *out_len)
{
	static const char blanks[] = " \t\r\v\f";
	bool changed = false, comment = false;
	size_t i = 0, n, size = 0;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		exit(KPR_EXIT_IO);
	while (i < len) {
		if (text[i] == '\n' || strchr(blanks, text[i]) || !text[i]) {
			comment &= text[i] != '\n';
			fputc(text[i++], f);
			continue;
		}
		n = field_len(text + i, len - i);
		comment |= text[i] == '#';
		if (!comment && n > strlen(KPR_UNIT_PREFIX) &&
		    !memcmp(text + i, KPR_UNIT_PREFIX, strlen(KPR_UNIT_PREFIX)) &&
		    unit_cgroup(text + i + strlen(KPR_UNIT_PREFIX),
				n - strlen(KPR_UNIT_PREFIX), f))
			changed = true;
		else
			fwrite(text + i, 1, n, f);
		i += n;
	}
	if (fclose(f))
		exit(KPR_EXIT_IO);
	if (!changed) {
		free(buf);
		buf = NULL;
		size = 0;
	}
	*out = buf;
	*out_len = size;
}
