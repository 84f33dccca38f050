// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the policy files of the system, as "load" without a
 * file assembles them: the drop-ins of /usr/lib/kportreserve/policy.d and
 * /etc/kportreserve/policy.d sorted by name, then /etc/kportreserve/policy;
 * and the record of the files a load put in force, which "status" and
 * "who" read back.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kportreserve.h"

/**
 * kpr_root_path() - a path of the system, under $KPORTRESERVE_ROOT if set
 * @path: the absolute path
 *
 * Return: the path, to free().
 */
char *kpr_root_path(const char *path)
{
	const char *root = getenv(KPR_ROOT_ENV);

	return kpr_xasprintf("%s%s", root ? root : "", path);
}

/**
 * kpr_replace_file() - put new contents in place of a policy file
 * @path: the file, no link; its directory exists
 * @text: the new contents
 * @len: their length
 * @like: the file replaced, whose mode and owner the new one takes; NULL
 *        for a new file of root's, mode 0644
 *
 * A new file beside the old one (mkstemp()) is renamed over it, so that a
 * reader, a load among them, sees the old file or the new one, never a
 * part. Its name is hidden while it exists: loads read the drop-in
 * directories at any time and warn of names that are not drop-ins.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
int kpr_replace_file(const char *path, const char *text, size_t len,
		     const struct stat *like)
{
	const char *slash = strrchr(path, '/');
	char *tmp = kpr_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path,
				  slash + 1);
	int fd = mkstemp(tmp), err = 0;

	errno = 0;
	if (fd < 0 ||
	    fchmod(fd, like ? like->st_mode & 07777 : 0644) ||
	    (like && fchown(fd, like->st_uid, like->st_gid) && errno != EPERM) ||
	    write(fd, text, len) != (ssize_t)len || fsync(fd) ||
	    rename(tmp, path))
		err = errno ? errno : EIO;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	if (err) {
		if (fd >= 0)
			unlink(tmp);
		kpr_err("%s: cannot write: %s", path, strerror(err));
	}
	free(tmp);
	return err ? KPR_EXIT_IO : KPR_EXIT_OK;
}

/**
 * kpr_read_policy_file() - read a policy file
 * @path: the file, or "-" for standard input
 * @buf: receives the contents; free with kpr_buf_free()
 *
 * Editors on other systems start a UTF-8 file with a byte-order mark.
 * The kernel's language is ASCII and would call it a bad port; it means
 * nothing, so it is dropped here.
 *
 * Return: 0 or a negative errno.
 */
int kpr_read_policy_file(const char *path, struct kpr_buf *buf)
{
	static const char bom[] = "\xef\xbb\xbf";
	int err = kpr_read_path(path, buf);

	if (!err && buf->len >= 3 && !memcmp(buf->text, bom, 3)) {
		buf->len -= 3;
		memmove(buf->text, buf->text + 3, buf->len + 1);
	}
	return err;
}

/**
 * kpr_skip_lines() - find where the line after line @n starts
 * @text: the text
 * @len: its length
 * @n: a line number, from 1
 *
 * Return: the offset of line @n + 1, or 0 when @text has no such line.
 */
size_t kpr_skip_lines(const char *text, size_t len, unsigned int n)
{
	const char *p = text, *end = text + len;

	while (n--) {
		p = memchr(p, '\n', end - p);
		if (!p)
			return 0;
		p++;
	}
	return p - text;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static void add_source(struct kpr_sources *s, char *path, size_t name_off,
		       bool admin)
{
	struct kpr_source *src;

	s->src = kpr_xrealloc(s->src, (s->nr + 1) * sizeof(*s->src));
	src = &s->src[s->nr++];
	*src = (struct kpr_source){
		.path = path,
		.name = path + name_off,
		.admin = admin,
	};
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * warn_not_dropins() - warn of the files of a drop-in directory not read
 * @dir: the directory
 * @names: the names of its files that are not drop-ins; freed
 * @nr: their number
 *
 * In name order, so that the warnings are the same on every file system.
 */
static void warn_not_dropins(const char *dir, char **names, size_t nr)
{
	size_t i;

	if (nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	for (i = 0; i < nr; i++) {
		kpr_warn("%s/%s is not read: only *%s files are drop-ins", dir,
			 names[i], KPR_DROPIN_SUFFIX);
		free(names[i]);
	}
	free(names);
}

/**
 * add_dropins() - add the drop-ins of a directory
 * @s: the list
 * @dir: the directory, as documented
 * @admin: true for the administrator's directory in /etc
 *
 * A drop-in is a file whose name ends in ".policy" and does not start
 * with a dot. Any other name but a hidden one is warned about: a rule
 * in "nginx.conf" or "web.policy.dpkg-dist" would otherwise be silently
 * missing. A directory that does not exist has none.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO after a message.
 */
static int add_dropins(struct kpr_sources *s, const char *dir, bool admin)
{
	char *path = kpr_root_path(dir);
	size_t nr_others = 0;
	char **others = NULL;
	struct dirent *de;
	DIR *d = opendir(path);
	int ret = KPR_EXIT_OK;

	if (!d) {
		if (errno != ENOENT) {
			kpr_err("%s: %s", path, strerror(errno));
			ret = KPR_EXIT_IO;
		}
		free(path);
		return ret;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		if (de->d_name[0] == '.')
			continue;
		if (!has_suffix(de->d_name, KPR_DROPIN_SUFFIX)) {
			others = kpr_xrealloc(others, (nr_others + 1) *
					      sizeof(*others));
			others[nr_others++] = kpr_xstrdup(de->d_name);
			continue;
		}
		add_source(s, kpr_xasprintf("%s/%s", path, de->d_name),
			   strlen(path) + 1, admin);
	}
	if (errno) {
		kpr_err("%s: %s", path, strerror(errno));
		ret = KPR_EXIT_IO;
	}
	closedir(d);
	warn_not_dropins(path, others, nr_others);
	free(path);
	return ret;
}

/* By name; on equal names the administrator's file comes first. */
static int source_cmp(const void *a, const void *b)
{
	const struct kpr_source *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)y->admin - (int)x->admin;
}

/* A file masked as systemd masks one: a link to /dev/null. */
static bool masked(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISCHR(st.st_mode) &&
	       major(st.st_rdev) == 1 && minor(st.st_rdev) == 3;
}

/**
 * kpr_sources_free() - free the files of a policy
 * @s: the files; left empty
 */
void kpr_sources_free(struct kpr_sources *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		free(s->src[i].path);
		kpr_buf_free(&s->src[i].text);
	}
	free(s->src);
	s->src = NULL;
	s->nr = 0;
}

/* Keep the entries of @s for which @keep[i] is true. */
static void sources_filter(struct kpr_sources *s, const bool *keep)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++) {
		if (keep[i])
			s->src[n++] = s->src[i];
		else
			free(s->src[i].path);
	}
	s->nr = n;
}

/**
 * kpr_sources_find() - the policy files of the system, in load order
 * @s: receives the files; free with kpr_sources_free()
 *
 * The drop-ins of KPR_VENDOR_DIR (from packages) and KPR_ADMIN_DIR (from
 * the administrator), sorted together by name in the C locale; of two with
 * the same name only the one in /etc counts, and a drop-in linked to
 * /dev/null counts as none. KPR_MAIN_POLICY comes last, if it exists.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_IO when a directory cannot be read.
 */
int kpr_sources_find(struct kpr_sources *s)
{
	char *main_policy = kpr_root_path(KPR_MAIN_POLICY);
	int ret = KPR_EXIT_OK, r;
	struct stat st;
	bool *keep;
	size_t i;

	s->src = NULL;
	s->nr = 0;
	ret = add_dropins(s, KPR_VENDOR_DIR, false);
	r = add_dropins(s, KPR_ADMIN_DIR, true);
	if (r > ret)
		ret = r;
	if (s->nr)
		qsort(s->src, s->nr, sizeof(*s->src), source_cmp);
	keep = kpr_xmalloc(s->nr * sizeof(*keep));
	for (i = 0; i < s->nr; i++)
		keep[i] = (!i || strcmp(s->src[i - 1].name, s->src[i].name)) &&
			  !masked(s->src[i].path);
	sources_filter(s, keep);
	free(keep);
	if (lstat(main_policy, &st) && errno == ENOENT)
		free(main_policy);
	else
		add_source(s, main_policy, 0, true);
	return ret;
}

/* The number of lines of a text, the last one perhaps without newline. */
static unsigned int count_lines(const char *text, size_t len)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/**
 * kpr_sources_number() - number the lines of the files as assembled
 * @s: the files, read; the @first and @lines of each are set
 *
 * kpr_sources_assemble() joins the files in order, each on whole lines,
 * so a file starts on the line after the last line of the one before.
 */
void kpr_sources_number(struct kpr_sources *s)
{
	unsigned int line = 1;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		struct kpr_source *src = &s->src[i];

		src->first = line;
		src->lines = count_lines(src->text.text, src->text.len);
		line += src->lines;
	}
}

/**
 * kpr_sources_locate() - the file and line of a line of the assembled text
 * @s: the files, numbered (kpr_sources_number()), or NULL
 * @line: the number of a line of the assembled text, from 1
 * @file_line: receives the number of that line in its file
 *
 * Return: the file, or NULL when none has that line.
 */
const struct kpr_source *kpr_sources_locate(const struct kpr_sources *s,
					    unsigned int line,
					    unsigned int *file_line)
{
	size_t i;

	for (i = 0; s && i < s->nr; i++) {
		const struct kpr_source *src = &s->src[i];

		if (line >= src->first && line - src->first < src->lines) {
			*file_line = line - src->first + 1;
			return src;
		}
	}
	return NULL;
}

/**
 * kpr_buf_spell_units() - spell unit= and names as the kernel takes them
 * @text: the policy, replaced by its text with unit= written as cgroup=
 *        and user and group names as numbers (kpr_spell_units())
 */
void kpr_buf_spell_units(struct kpr_buf *text)
{
	struct kpr_buf units;

	if (!text->text)
		return;
	kpr_spell_units(text->text, text->len, &units.text, &units.len);
	if (!units.text)
		return;
	kpr_buf_free(text);
	*text = units;
}

/**
 * leave_out_bad_lines() - empty each line of a policy that does not parse
 * @file: the file's name, for messages
 * @text: the policy, its unit= spelled as cgroup=; changed in place
 * @progs: counts the rules left out
 *
 * Each bad line is named at warning priority and emptied, so that the
 * lines after it keep their numbers and the rest of the file loads.
 *
 * Return: true, or false when the file as a whole cannot be loaded (over
 * a limit of the language), which was said.
 */
static bool leave_out_bad_lines(const char *file, struct kpr_buf *text,
				struct kpr_programs *progs)
{
	size_t off = 0, skip, start, end;
	unsigned int base = 0, line;
	const char *msg;
	char *nl;
	int err;

	/* Each parse starts after the last bad line, as check_text()'s. */
	for (;;) {
		struct kpr_ruleset rs = { 0 };

		err = kpr_parse_policy(text->text + off, text->len - off, &rs,
				       &line, &msg);
		kpr_ruleset_destroy(&rs);
		if (!err)
			return true;
		skip = line > 1 ? kpr_skip_lines(text->text + off,
						 text->len - off, line - 1) : 0;
		start = off + skip;
		nl = memchr(text->text + start, '\n', text->len - start);
		end = nl ? (size_t)(nl - text->text) : text->len;
		if (err != -EINVAL || (line > 1 && !skip) || end == start) {
			kpr_log(KPR_PRIO_WARNING,
				"%s:%u: %s; the whole file is left out",
				file, base + line, msg);
			return false;
		}
		kpr_log(KPR_PRIO_WARNING, "%s:%u: %s; the rule is left out",
			file, base + line, msg);
		memmove(text->text + start, text->text + end,
			text->len - end + 1);
		text->len -= end - start;
		progs->left_out++;
		/* Past the line, now empty, and its newline. */
		off = start + (start < text->len);
		base += line;
	}
}

/**
 * read_source_for_load() - read one file of the policy as a load uses it
 * @src: the file; its text is read and made loadable
 * @progs: how to check its programs, and the figures to add to
 *
 * What can be applied of a file is applied: a line that does not parse,
 * or names a program that cannot run, is left out with a warning that
 * names it (FILE:LINE); a link is resolved to the path the kernel
 * matches.
 *
 * Return: true, or false when the file is left out whole (it cannot be
 * read, or is over a limit); its text is then empty.
 */
static bool read_source_for_load(struct kpr_source *src,
				 struct kpr_programs *progs)
{
	size_t fixed_len;
	char *fixed;
	int err;

	err = kpr_read_policy_file(src->path, &src->text);
	if (err) {
		kpr_warn("%s: %s; the whole file is left out", src->path,
			 strerror(-err));
		src->text = (struct kpr_buf){ kpr_xstrdup(""), 0 };
		return false;
	}
	kpr_buf_spell_units(&src->text);
	if (!leave_out_bad_lines(src->path, &src->text, progs)) {
		kpr_buf_free(&src->text);
		src->text = (struct kpr_buf){ kpr_xstrdup(""), 0 };
		return false;
	}
	kpr_check_programs(progs, src->path, src->text.text, src->text.len,
			   &fixed, &fixed_len);
	if (fixed) {
		kpr_buf_free(&src->text);
		src->text = (struct kpr_buf){ fixed, fixed_len };
	}
	return true;
}

/**
 * kpr_sources_read_for_load() - read the files of the policy as a load does
 * @s: the files
 * @progs: the figures of the load: rules left out, programs missing
 *
 * Return: the number of files left out whole.
 */
unsigned int kpr_sources_read_for_load(struct kpr_sources *s,
				       struct kpr_programs *progs)
{
	unsigned int files_left_out = 0;
	size_t i;

	for (i = 0; i < s->nr; i++)
		files_left_out += !read_source_for_load(&s->src[i], progs);
	kpr_sources_number(s);
	return files_left_out;
}

/**
 * kpr_sources_assemble() - the policy of the files, in order
 * @s: the files, read
 * @len: receives the length of the text
 *
 * A file whose last line has no newline gets one, so that it does not run
 * into the first line of the next file.
 *
 * Return: the text, to free().
 */
char *kpr_sources_assemble(const struct kpr_sources *s, size_t *len)
{
	size_t i, n = 0;
	char *text, *p;

	for (i = 0; i < s->nr; i++)
		n += s->src[i].text.len + 1;
	text = kpr_xmalloc(n + 1);
	p = text;
	for (i = 0; i < s->nr; i++) {
		const struct kpr_buf *b = &s->src[i].text;

		memcpy(p, b->text, b->len);
		p += b->len;
		if (b->len && b->text[b->len - 1] != '\n')
			*p++ = '\n';
	}
	*p = '\0';
	*len = p - text;
	return text;
}

/**
 * kpr_escape_path() - a path as a field of one line of text
 * @path: the path
 *
 * Bytes that would end the line or the field (white space, control
 * bytes), bytes above 0x7e and the backslash itself are written as \ooo,
 * as a policy writes them, so that any path prints as one field.
 *
 * Return: the text, to free().
 */
char *kpr_escape_path(const char *path)
{
	char *text = kpr_xmalloc(4 * strlen(path) + 1), *o = text;
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '\\')
			*o++ = *p;
		else
			o += sprintf(o, "\\%03o", *p);
	}
	*o = '\0';
	return text;
}

/* A path as one line of the record: kpr_escape_path() and a newline. */
static void put_path(FILE *f, const char *path)
{
	char *line = kpr_escape_path(path);

	fprintf(f, "%s\n", line);
	free(line);
}

/**
 * kpr_sources_record() - write down which files the policy in force came from
 * @s: the files, in load order
 * @generation: the generation the kernel gave the policy
 *
 * The kernel keeps the policy's rules, not its comments or files, so
 * "status" and "who" learn them from KPR_SOURCES: "generation N", then
 * one file a line (kpr_escape_path()). It is written after the load
 * succeeded, to a new file renamed over the old one. It is trusted only
 * while the policy in force has that generation (kpr_sources_recorded()).
 *
 * Return: 0, or -1 after a warning: the policy is loaded all the same.
 */
int kpr_sources_record(const struct kpr_sources *s, const char *generation)
{
	char *dir = kpr_root_path(KPR_RUN_DIR);
	char *path = kpr_root_path(KPR_SOURCES);
	char *tmp = kpr_xasprintf("%s.new", path);
	const char *fail = dir;
	FILE *f = NULL;
	size_t i;
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		goto out;
	fail = tmp;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	fprintf(f, "generation %s\n", generation);
	for (i = 0; i < s->nr; i++)
		put_path(f, s->src[i].path);
	if (fflush(f) || ferror(f)) {
		fclose(f);
		f = NULL;
		unlink(tmp);
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		unlink(tmp);
		goto out;
	}
	fail = path;
	if (rename(tmp, path)) {
		unlink(tmp);
		goto out;
	}
	fail = NULL;
out:
	if (fail)
		kpr_warn("cannot record the policy's files in %s: %s", fail,
			 strerror(errno));
	free(dir);
	free(path);
	free(tmp);
	return fail ? -1 : 0;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* Undo kpr_escape_path() in place: each \ooo becomes its byte again. */
static void unescape_path(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && is_octal(s[1]) && is_octal(s[2]) &&
		    is_octal(s[3])) {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

/* Add the files of the record's lines from @line on to @s, in order. */
static void add_recorded(struct kpr_sources *s, char *line)
{
	const char *slash;
	char *next;

	for (; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!*line)
			continue;
		unescape_path(line);
		slash = strrchr(line, '/');
		add_source(s, kpr_xstrdup(line), slash ? slash + 1 - line : 0,
			   true);
	}
}

/**
 * kpr_sources_recorded() - the files that made the policy in force
 * @generation: the generation of the policy in force, or NULL if unknown
 * @s: receives the files of the record in load order, not read yet; free
 *     with kpr_sources_free()
 *
 * The record (kpr_sources_record()) is trusted only while the generation
 * it names is in force: any other load since ("load FILE", "add", "del",
 * a write to the kernel's files) made a policy those files did not.
 *
 * Return: true when the record is that of @generation; else @s is empty.
 */
bool kpr_sources_recorded(const char *generation, struct kpr_sources *s)
{
	static const char prefix[] = "generation ";
	char *path = kpr_root_path(KPR_SOURCES), *next;
	struct kpr_buf rec;
	bool match = false;

	s->src = NULL;
	s->nr = 0;
	if (generation && !kpr_read_path(path, &rec)) {
		next = strchr(rec.text, '\n');
		if (next && !strncmp(rec.text, prefix, strlen(prefix))) {
			*next++ = '\0';
			match = !strcmp(rec.text + strlen(prefix), generation);
		}
		if (match)
			add_recorded(s, next);
		kpr_buf_free(&rec);
	}
	free(path);
	return match;
}
