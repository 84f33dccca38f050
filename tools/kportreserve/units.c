// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the spellings of a rule that only the command takes,
 * written as the kernel's parser takes them before it sees the rule:
 * unit=NAME for a cgroup= qualifier, and names in uid= and gid=.
 *
 * The kernel's language names the cgroup (v2) a program must run in by
 * its path, cgroup=/system.slice/myapp.service. An administrator thinks
 * of the service, so the command also takes unit=myapp.service and writes
 * it as that path. systemd puts a system service or scope in system.slice
 * unless its Slice= says otherwise, an instance of a template
 * (foo@bar.service) in system-foo.slice below it, a user's service
 * manager (user@1000.service) in that user's slice, init.scope at the
 * root, and a slice where its name says (a-b.slice is /a.slice/a-b.slice):
 * the command does the same, and needs no running systemd. A unit that
 * sets Slice= must be named by its cgroup= path; "systemctl show -P
 * ControlGroup UNIT" prints it. So must a session's scope, which is in
 * its user's slice, and the name does not tell the user. The other types
 * of unit (socket, timer, mount...) run no program in a cgroup of their
 * own and are refused. The name is systemd's spelling, "\x2d" included;
 * the path is written as the policy spells paths (kpr_format_path()).
 *
 * The kernel knows users and groups by number; uid=www-data and
 * gid=adm,4 name them as the machine does, and are written with the
 * numbers that the user and group database gives the names now.
 */

#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kportreserve.h"

#define KPR_UNIT_PREFIX		"unit="
#define KPR_UNIT_MAX		255
#define KPR_USER_MANAGER	"user@"
#define KPR_SESSION_SCOPE	"session-"
/* LOGIN_NAME_MAX: a longer "name" is left for the parser to refuse. */
#define KPR_NAME_MAX		256

/* A unit whose type runs no program: what to name instead. */
#define KPR_NAME_SERVICE	"name its service"
#define KPR_NAME_OTHER		"only services, scopes and slices run programs in a cgroup of their own"
/* Why a session's scope is refused. */
#define KPR_SESSION_WHY		"a session's scope is in its user's slice, which its name does not tell"

/**
 * struct unit_type - a type of systemd unit, known by its name's suffix
 * @suffix: ".service"
 * @refusal: NULL for a type whose units run programs in a cgroup of
 *           their own; else what to name instead
 */
struct unit_type {
	const char *suffix;
	const char *refusal;
};

static const struct unit_type unit_types[] = {
	{ ".service", NULL },
	{ ".scope", NULL },
	{ ".slice", NULL },
	{ ".socket", KPR_NAME_SERVICE },
	{ ".timer", KPR_NAME_SERVICE },
	{ ".path", KPR_NAME_SERVICE },
	{ ".mount", KPR_NAME_OTHER },
	{ ".automount", KPR_NAME_OTHER },
	{ ".swap", KPR_NAME_OTHER },
	{ ".target", KPR_NAME_OTHER },
	{ ".device", KPR_NAME_OTHER },
};

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len > n && !memcmp(s + len - n, suffix, n);
}

/* Whether @s, of @len bytes, is @prefix and something more. */
static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len > n && !memcmp(s, prefix, n);
}

/**
 * report() - say why a field is left for the parser to refuse
 * @msg: the message, to free(): this function takes it
 *
 * The parser then refuses the field's line, and its caller names the line
 * as FILE:LINE, which this file does not know. A caller may spell a text
 * twice, to check it and then to load it: each message is said once a
 * run, the first time, before the parser's.
 */
static void report(char *msg)
{
	static char **said;
	static size_t nr;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!strcmp(said[i], msg)) {
			free(msg);
			return;
		}
	}
	/* The line it spoils says next, at its priority, what that means. */
	kpr_log(KPR_PRIO_NOTICE, "kportreserve: %s", msg);
	said = kpr_xrealloc(said, (nr + 1) * sizeof(*said));
	said[nr++] = msg;
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

/*
 * The type of unit @name, of @len bytes, by its suffix; NULL for a name
 * without the suffix of a type, which is a service, as systemctl takes
 * it: "myapp" and "my.app" are myapp.service and my.app.service.
 */
static const struct unit_type *unit_type(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(unit_types); i++) {
		if (has_suffix(name, len, unit_types[i].suffix))
			return &unit_types[i];
	}
	return NULL;
}

/**
 * refuse_unit() - refuse a unit whose cgroup the command cannot tell
 * @name: the unit's name
 * @len: its length
 * @type: its type, or NULL for a service
 *
 * A type that runs no program has no cgroup a port's program runs in; a
 * session's scope (session-3.scope) is in its user's slice, user-UID.slice,
 * and its name does not tell the user.
 *
 * Return: true, after saying why, when @name is refused.
 */
static bool refuse_unit(const char *name, size_t len,
			const struct unit_type *type)
{
	if (type && type->refusal) {
		report(kpr_xasprintf("unit=%.*s: %s %s unit runs no program; %s",
				     (int)len, name,
				     strchr("aeiou", type->suffix[1]) ? "an" : "a",
				     type->suffix + 1, type->refusal));
		return true;
	}
	if (type && !strcmp(type->suffix, ".scope") &&
	    has_prefix(name, len, KPR_SESSION_SCOPE)) {
		report(kpr_xasprintf("unit=%.*s: %s; write cgroup=/user.slice/user-UID.slice/%.*s",
				     (int)len, name, KPR_SESSION_WHY, (int)len,
				     name));
		return true;
	}
	return false;
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

/*
 * Whether @base, a service's name without its suffix, is "user@UID":
 * the user's service manager, whose unit (user@.service) sets
 * Slice=user-%i.slice, a slice of user.slice.
 */
static bool user_manager(const char *base, size_t len)
{
	size_t i = strlen(KPR_USER_MANAGER);

	if (!has_prefix(base, len, KPR_USER_MANAGER))
		return false;
	for (; i < len; i++) {
		if (!isdigit((unsigned char)base[i]))
			return false;
	}
	return true;
}

/**
 * service_path() - the cgroup path of a service or a scope
 * @name: the unit's name
 * @len: its length
 * @type: its type, or NULL for a name that takes ".service"
 * @out: receives the path
 */
static void service_path(const char *name, size_t len,
			 const struct unit_type *type, FILE *out)
{
	size_t base = type ? len - strlen(type->suffix) : len;
	const char *at = memchr(name, '@', base);
	bool service = !type || !strcmp(type->suffix, ".service");

	if (service && user_manager(name, base)) {
		fprintf(out, "/user.slice/user-%.*s.slice",
			(int)(base - strlen(KPR_USER_MANAGER)),
			name + strlen(KPR_USER_MANAGER));
	} else {
		fputs("/system.slice", out);
		/* An instance: its template's slice, where "-" is "\x2d". */
		if (at && at > name)
			template_slice(name, at - name, out);
	}
	fprintf(out, "/%.*s%s", (int)len, name, type ? "" : ".service");
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
 * Return: true, or false when @field is no unit name, or names a unit
 * whose cgroup the command cannot tell (said, by refuse_unit()).
 */
static bool unit_cgroup(const char *field, size_t len, FILE *out)
{
	const struct unit_type *type;
	char *path = NULL;
	size_t size = 0;
	FILE *p;

	if (!valid_unit(field, len))
		return false;
	type = unit_type(field, len);
	if (refuse_unit(field, len, type))
		return false;
	p = open_memstream(&path, &size);
	if (!p)
		exit(KPR_EXIT_IO);
	/* valid_unit() refused "-.slice", the root. */
	if (type && !strcmp(type->suffix, ".slice"))
		slice_path(field, len, p);
	else if (len == strlen("init.scope") && !memcmp(field, "init.scope", len))
		fputs("/init.scope", p);
	else
		service_path(field, len, type, p);
	if (fclose(p))
		exit(KPR_EXIT_IO);
	fputs("cgroup=", out);
	put_path(path, size, out);
	free(path);
	return true;
}

/*
 * Whether @s, of @len bytes, is a user's or a group's name:
 * [a-z_][a-z0-9_-]*\$? (Debian's NAME_REGEX, a leading "_" allowed). A
 * number is not one, and stays as written.
 */
static bool is_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= KPR_NAME_MAX || (!islower(*s) && *s != '_'))
		return false;
	for (i = 1; i < len; i++) {
		unsigned char c = s[i];

		if (!islower(c) && !isdigit(c) && c != '_' && c != '-' &&
		    (c != '$' || i != len - 1))
			return false;
	}
	return true;
}

/**
 * lookup_in_file() - look a name up in a passwd or group file
 * @path: the file
 * @group: @path is a group file
 * @name: the name
 * @id: receives its uid or gid
 *
 * Return: true when the file has the name.
 */
static bool lookup_in_file(const char *path, bool group, const char *name,
			   unsigned int *id)
{
	FILE *f = fopen(path, "re");
	struct passwd *pw;
	struct group *gr;
	bool found = false;

	while (f && !found) {
		if (group) {
			gr = fgetgrent(f);
			if (!gr)
				break;
			found = !strcmp(gr->gr_name, name);
			if (found)
				*id = gr->gr_gid;
		} else {
			pw = fgetpwent(f);
			if (!pw)
				break;
			found = !strcmp(pw->pw_name, name);
			if (found)
				*id = pw->pw_uid;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/**
 * lookup_id() - the number of a user's or a group's name
 * @group: look up a group, not a user
 * @name: the name
 * @len: its length
 * @id: receives its uid or gid
 *
 * The database is that of the machine the policy is for: its NSS, or,
 * under $KPORTRESERVE_ROOT, that root's etc/passwd and etc/group, so that
 * tests and a policy made for another root do not read this machine's.
 *
 * Return: true when the name resolves.
 */
static bool lookup_id(bool group, const char *name, size_t len,
		      unsigned int *id)
{
	const char *root = getenv(KPR_ROOT_ENV);
	char *s = kpr_xasprintf("%.*s", (int)len, name), *path;
	struct passwd *pw;
	struct group *gr;
	bool found;

	if (root && *root) {
		path = kpr_root_path(group ? "/etc/group" : "/etc/passwd");
		found = lookup_in_file(path, group, s, id);
		free(path);
	} else if (group) {
		gr = getgrnam(s);
		found = gr;
		if (gr)
			*id = gr->gr_gid;
	} else {
		pw = getpwnam(s);
		found = pw;
		if (pw)
			*id = pw->pw_uid;
	}
	free(s);
	return found;
}

/**
 * write_ids() - write a uid= or gid= field, its names as numbers
 * @field: the field: "uid=" or "gid=", then ids separated by commas
 * @len: its length
 * @out: receives the field
 *
 * An id that is not a name (a number, or what the parser will refuse) is
 * written as it is. Each name that does not resolve is said.
 *
 * Return: the number of names, or -1 when one does not resolve.
 */
static int write_ids(const char *field, size_t len, FILE *out)
{
	const char *s = field + strlen("uid="), *end = field + len, *comma;
	bool group = field[0] == 'g', bad = false;
	unsigned int id;
	int names = 0;
	size_t n;

	fwrite(field, 1, s - field, out);
	for (;; s = comma + 1) {
		comma = memchr(s, ',', end - s);
		n = (comma ? comma : end) - s;
		if (!is_name(s, n)) {
			fwrite(s, 1, n, out);
		} else if (lookup_id(group, s, n, &id)) {
			fprintf(out, "%u", id);
			names++;
		} else {
			report(kpr_xasprintf("%.*s: no %s %.*s", (int)len,
					     field, group ? "group" : "user",
					     (int)n, s));
			bad = true;
		}
		if (!comma)
			break;
		fputc(',', out);
	}
	return bad ? -1 : names;
}

/**
 * spell_ids() - write a uid= or gid= field that names users or groups
 * @field: the field
 * @len: its length
 * @out: receives the field with numbers for names
 *
 * Return: true, or false when the field has no name, or one that does not
 * resolve: it is left as written, for the parser to refuse its line.
 */
static bool spell_ids(const char *field, size_t len, FILE *out)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int names;

	if (!f)
		exit(KPR_EXIT_IO);
	names = write_ids(field, len, f);
	if (fclose(f))
		exit(KPR_EXIT_IO);
	if (names > 0)
		fwrite(text, 1, size, out);
	free(text);
	return names > 0;
}

/*
 * Write the field at @s, of @n bytes, as the parser takes it; return
 * false, having written nothing, for a field that stays as written.
 */
static bool spell_field(const char *s, size_t n, FILE *out)
{
	if (has_prefix(s, n, KPR_UNIT_PREFIX))
		return unit_cgroup(s + strlen(KPR_UNIT_PREFIX),
				   n - strlen(KPR_UNIT_PREFIX), out);
	if (has_prefix(s, n, "uid=") || has_prefix(s, n, "gid="))
		return spell_ids(s, n, out);
	return false;
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
 * kpr_spell_units() - write unit= and the names of uid= and gid= as the
 *                     kernel's parser takes them
 * @text: the policy
 * @len: its length
 * @out: receives the new text, to free(), or NULL when @text has nothing
 *       to spell
 * @out_len: receives its length
 *
 * Each unit= field becomes the cgroup= of its unit (unit_cgroup()), and
 * each user or group name of a uid= or gid= field its number
 * (write_ids()). Only whole fields change, so that lines and their
 * numbers stay; comments are left alone. A field that cannot be spelled
 * (no unit name, a unit of no cgroup of its own, a name that does not
 * resolve) is left as it is, for the parser to refuse its line as
 * FILE:LINE; why is said on standard error first, once a run.
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
		if (!comment && spell_field(text + i, n, f))
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
