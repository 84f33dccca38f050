// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve policy parser: text in, rules out, and the canonical text
 * of the rules back. Documentation/admin-guide/LSM/kportreserve.rst
 * describes the language.
 *
 * The parser takes no locks and keeps no global state. kportreserve(8) and
 * the fuzzer build this file unchanged in user space, against the
 * kernel's tools/include/ and, for what it lacks, the stand-ins in
 * tools/kportreserve/include/.
 */

#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/string_helpers.h>

#include "parser.h"

/* What separates fields. A NUL byte is refused before a line is split. */
#define KPR_BLANKS	" \t\r\v\f"

/* The ports, the program, three qualifiers, and one field too many. */
#define KPR_MAX_FIELDS	6

static const char *const proto_names[KPR_NR_PROTOS] = {
	[KPR_PROTO_TCP] = "tcp",
	[KPR_PROTO_UDP] = "udp",
	[KPR_PROTO_SCTP] = "sctp",
};

/* Decimal digits only: kstrtox takes a '+' that the policy does not. */
static int parse_port(const char *s, u16 *port)
{
	if (!isdigit(*s) || kstrtou16(s, 10, port) || !*port)
		return -EINVAL;
	return 0;
}

/**
 * parse_ports() - parse the PORTS[/PROTO] field of a rule
 * @field: the field; split in place
 * @rule: receives the ports and protocols
 *
 * Return: NULL, or what is wrong with @field.
 */
static const char *parse_ports(char *field, struct kpr_rule *rule)
{
	char *proto = field, *last, *first;
	int i;

	last = strsep(&proto, "/");
	first = strsep(&last, "-");
	if (parse_port(first, &rule->first) ||
	    parse_port(last ?: first, &rule->last))
		return "port must be a number from 1 to 65535";
	if (rule->first > rule->last)
		return "reversed port range: FIRST must not exceed LAST";
	rule->protos = KPR_PROTO_ALL;
	if (!proto)
		return NULL;
	i = match_string(proto_names, ARRAY_SIZE(proto_names), proto);
	if (i < 0)
		return "unknown protocol: expected tcp, udp or sctp";
	rule->protos = BIT(i);
	return NULL;
}

/**
 * check_escapes() - check how a path is spelled
 * @s: the PROGRAM field, or the path of a cgroup= qualifier
 *
 * A backslash is written "\\" and a byte outside 0x21-0x7e "\ooo", so
 * that a path is one field and reads back the same. string_unescape()
 * takes anything, so the spelling is checked first: a raw byte outside
 * 0x21-0x7e, any other escape and an encoded NUL are errors.
 *
 * Return: NULL, or what is wrong with @s.
 */
static const char *check_escapes(const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c > '~')
			return "path byte outside 0x21-0x7e must be written as \\ooo";
		if (c != '\\')
			continue;
		if (s[1] == '\\') {
			s++;
			continue;
		}
		/* Three octal digits, at most \377: one byte. */
		if (s[1] < '0' || s[1] > '3' || !isodigit(s[2]) ||
		    !isodigit(s[3]))
			return "malformed escape in path: expected \\\\ or \\ooo";
		if (!memcmp(s + 1, "000", 3))
			return "path contains an encoded NUL byte";
		s += 3;
	}
	return NULL;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/*
 * d_absolute_path() never yields a "//", "." or ".." component or a
 * trailing slash, so a rule spelled that way could never match: refuse it
 * rather than reserve a port for nobody.
 */
static bool path_is_canonical(const char *path, size_t len)
{
	return path[len - 1] != '/' && !strstr(path, "//") &&
	       !strstr(path, "/./") && !strstr(path, "/../") &&
	       !ends_with(path, len, "/.") && !ends_with(path, len, "/..");
}

/**
 * decode_path() - decode the PROGRAM field of a rule
 * @prog: receives the path, whose buffer holds strlen(@field) + 1 bytes
 * @field: the field
 *
 * Return: NULL, or what is wrong with @field.
 */
static const char *decode_path(struct kpr_program *prog, char *field)
{
	const char *msg;

	if (!strcmp(field, KPR_KERNEL_NAME)) {
		prog->len = strlen(KPR_KERNEL_NAME);
		memcpy(prog->path, KPR_KERNEL_NAME, prog->len + 1);
		prog->kernel = true;
		return NULL;
	}
	msg = check_escapes(field);
	if (msg)
		return msg;
	prog->len = string_unescape(field, prog->path, 0,
				    UNESCAPE_OCTAL | UNESCAPE_SPECIAL);
	if (prog->len >= KPR_PATH_MAX)
		return "program path longer than PATH_MAX";
	if (prog->path[0] != '/')
		return "program must be an absolute path or <kernel>";
	if (!path_is_canonical(prog->path, prog->len))
		return "program path has a trailing '/', '//', '.' or '..'";
	return NULL;
}

/**
 * decode_cgroup() - decode the path of a cgroup= qualifier
 * @prog: the program; the path is stored after its own, in the space
 *        parse_program() allocated
 * @s: the path, as written after "cgroup="
 *
 * The path of a cgroup of the unified hierarchy from its root, as
 * /proc/PID/cgroup shows it in the initial cgroup namespace, spelled as
 * program paths are. The root itself is refused: every task is in it.
 *
 * Return: NULL, or what is wrong with @s.
 */
static const char *decode_cgroup(struct kpr_program *prog, char *s)
{
	char *path = prog->path + prog->len + 1;
	const char *msg = check_escapes(s);
	size_t len;

	if (msg)
		return msg;
	len = string_unescape(s, path, 0,
			      UNESCAPE_OCTAL | UNESCAPE_SPECIAL);
	if (len >= KPR_PATH_MAX)
		return "cgroup path longer than PATH_MAX";
	if (path[0] != '/')
		return "cgroup= takes an absolute path, such as /system.slice/foo.service";
	if (len == 1)
		return "cgroup=/ is every task: leave the qualifier out";
	if (!path_is_canonical(path, len))
		return "cgroup path has a trailing '/', '//', '.' or '..'";
	prog->cgroup = path;
	prog->cgroup_len = len;
	return NULL;
}

/*
 * At most ten digits, leading zeros included, and not 4294967295:
 * (uid_t)-1 names no user.
 */
static int parse_id(const char *s, u32 *id)
{
	if (!isdigit(*s) || strlen(s) > 10 || kstrtou32(s, 10, id) ||
	    *id == U32_MAX)
		return -EINVAL;
	return 0;
}

/**
 * struct kpr_ids - the ids one uid= or gid= qualifier lists
 * @id: the ids, in the order given
 * @nr: number of entries in @id; 0 when the qualifier is absent
 */
struct kpr_ids {
	u32 id[KPR_MAX_IDS];
	unsigned int nr;
};

/**
 * parse_ids() - parse the comma-separated ids of a uid= or gid= field
 * @s: the ids; split in place
 * @ids: receives them
 *
 * Return: NULL, or what is wrong with @s.
 */
static const char *parse_ids(char *s, struct kpr_ids *ids)
{
	char *id;

	while ((id = strsep(&s, ","))) {
		if (ids->nr == KPR_MAX_IDS)
			return "uid= and gid= list at most 16 ids each";
		if (parse_id(id, &ids->id[ids->nr++]))
			return "uid= and gid= take numbers 0 to 4294967294, separated by commas";
	}
	return NULL;
}

/**
 * parse_qualifier() - parse a uid=N[,N...], gid=N[,N...] or cgroup=PATH field
 * @prog: the program, which receives the qualifier's bit and the cgroup
 * @field: the field; split in place
 * @uids: receives the ids of uid=
 * @gids: receives the ids of gid=
 *
 * Return: NULL, or what is wrong with @field.
 */
static const char *parse_qualifier(struct kpr_program *prog, char *field,
				   struct kpr_ids *uids, struct kpr_ids *gids)
{
	struct kpr_ids *ids;
	u8 qual;

	if (str_has_prefix(field, "uid=")) {
		qual = KPR_QUAL_UID;
		ids = uids;
	} else if (str_has_prefix(field, "gid=")) {
		qual = KPR_QUAL_GID;
		ids = gids;
	} else if (str_has_prefix(field, "cgroup=")) {
		qual = KPR_QUAL_CGROUP;
		ids = NULL;
	} else {
		return "unknown field after the program: expected uid=, gid=, cgroup= or #";
	}
	if (prog->quals & qual)
		return "uid=, gid= or cgroup= given twice";
	if (prog->kernel)
		return "<kernel> takes no uid=, gid= or cgroup=";
	prog->quals |= qual;
	if (!ids)
		return decode_cgroup(prog, field + strlen("cgroup="));
	return parse_ids(field + strlen("uid="), ids);
}

/**
 * kpr_path_hash() - hash a program path
 * @path: the path; need not be NUL-terminated
 * @len: its length
 *
 * The one hash over paths: the parser interns programs by it, and the
 * policy finds the path of a binding executable by it.
 *
 * Return: the hash of @path.
 */
u32 kpr_path_hash(const char *path, size_t len)
{
	return jhash(path, len, 0);
}

static bool same_program(const struct kpr_program *a,
			 const struct kpr_program *b)
{
	return a->hash == b->hash && a->len == b->len &&
	       a->quals == b->quals && a->uid == b->uid && a->gid == b->gid &&
	       !memcmp(a->path, b->path, a->len) &&
	       a->cgroup_len == b->cgroup_len &&
	       (!a->cgroup || !memcmp(a->cgroup, b->cgroup, a->cgroup_len));
}

/* The slot of @prog in a table of @cap slots, or the free one for it. */
static size_t find_slot(struct kpr_program *const *progs, size_t cap,
			const struct kpr_program *prog)
{
	u32 hash = prog->hash;
	size_t slot;

	/* Not in @prog->hash, which numbers paths (kpr_path_hash()). */
	if (prog->cgroup)
		hash ^= jhash(prog->cgroup, prog->cgroup_len, 1);
	slot = jhash_3words(prog->uid, prog->gid, prog->quals, hash) &
	       (cap - 1);

	while (progs[slot] && !same_program(progs[slot], prog))
		slot = (slot + 1) & (cap - 1);
	return slot;
}

/**
 * grow_programs() - double the program table of a ruleset
 * @rs: the ruleset; unchanged on failure
 *
 * Return: 0 or -ENOMEM.
 */
static int grow_programs(struct kpr_ruleset *rs)
{
	size_t i, cap = rs->cap_progs ? 2 * rs->cap_progs : 16;
	struct kpr_program **progs = kvcalloc(cap, sizeof(*progs), GFP_KERNEL);

	if (!progs)
		return -ENOMEM;
	for (i = 0; i < rs->cap_progs; i++)
		if (rs->progs[i])
			progs[find_slot(progs, cap, rs->progs[i])] = rs->progs[i];
	kvfree(rs->progs);
	rs->progs = progs;
	rs->cap_progs = cap;
	return 0;
}

/**
 * intern_program() - share one copy of each program among the rules
 * @rs: the ruleset that owns the programs
 * @prog: a freshly decoded program, consumed by this call
 *
 * Return: the ruleset's copy of @prog, or NULL when out of memory.
 */
static const struct kpr_program *intern_program(struct kpr_ruleset *rs,
						struct kpr_program *prog)
{
	size_t slot;

	if (2 * (rs->nr_progs + 1) > rs->cap_progs && grow_programs(rs)) {
		kvfree(prog);
		return NULL;
	}
	slot = find_slot(rs->progs, rs->cap_progs, prog);
	if (rs->progs[slot]) {
		kvfree(prog);
		return rs->progs[slot];
	}
	prog->id = rs->nr_progs++;
	rs->progs[slot] = prog;
	return prog;
}

/**
 * append_rule() - add a rule to a ruleset
 * @rs: the ruleset
 * @rule: the rule to copy
 * @msg: receives what is wrong
 *
 * Return: 0, -E2BIG past KPR_POLICY_MAX_RULES, or -ENOMEM.
 */
static int append_rule(struct kpr_ruleset *rs, const struct kpr_rule *rule,
		       const char **msg)
{
	if (rs->nr_rules == rs->cap_rules) {
		size_t cap = rs->cap_rules ? 2 * rs->cap_rules : 16;
		struct kpr_rule *rules;

		if (rs->nr_rules >= KPR_POLICY_MAX_RULES) {
			*msg = "too many rules (the limit is 1048576)";
			return -E2BIG;
		}
		cap = min(cap, (size_t)KPR_POLICY_MAX_RULES);
		rules = kvcalloc(cap, sizeof(*rules), GFP_KERNEL);
		if (!rules)
			return -ENOMEM;
		if (rs->nr_rules)
			memcpy(rules, rs->rules, rs->nr_rules * sizeof(*rules));
		kvfree(rs->rules);
		rs->rules = rules;
		rs->cap_rules = cap;
	}
	rs->rules[rs->nr_rules++] = *rule;
	return 0;
}

/**
 * copy_program() - a copy of a decoded program with one uid and one gid
 * @tmpl: the decoded program
 * @uid: the uid, when @tmpl has KPR_QUAL_UID
 * @gid: the gid, when @tmpl has KPR_QUAL_GID
 *
 * Return: the copy to intern, or NULL when out of memory.
 */
static struct kpr_program *copy_program(const struct kpr_program *tmpl,
					u32 uid, u32 gid)
{
	struct kpr_program *prog;

	prog = kvmalloc(sizeof(*prog) + tmpl->size, GFP_KERNEL);
	if (!prog)
		return NULL;
	memcpy(prog, tmpl, sizeof(*prog) + tmpl->size);
	if (tmpl->cgroup)
		prog->cgroup = prog->path + (tmpl->cgroup - tmpl->path);
	prog->uid = tmpl->quals & KPR_QUAL_UID ? uid : 0;
	prog->gid = tmpl->quals & KPR_QUAL_GID ? gid : 0;
	return prog;
}

/**
 * add_rules() - add a rule for each uid and gid a rule's qualifiers list
 * @rs: the ruleset that receives the rules
 * @rule: the ports and protocols of the rules
 * @tmpl: the decoded program
 * @uids: the ids of its uid= qualifier, if any
 * @gids: the ids of its gid= qualifier, if any
 * @msg: receives what is wrong
 *
 * "uid=0,33" is a shorthand: the ruleset holds one rule per id, as if
 * each had its own line, and its canonical text spells them so. Each
 * program is a copy, so that a line gives at most KPR_MAX_IDS of them and
 * a policy at most KPR_POLICY_MAX_PROG_BYTES.
 *
 * Return: 0, -EINVAL for lists of more than KPR_MAX_IDS pairs, -E2BIG
 * past KPR_POLICY_MAX_RULES or KPR_POLICY_MAX_PROG_BYTES, or -ENOMEM.
 */
static int add_rules(struct kpr_ruleset *rs, struct kpr_rule *rule,
		     const struct kpr_program *tmpl,
		     const struct kpr_ids *uids, const struct kpr_ids *gids,
		     const char **msg)
{
	unsigned int u, g;
	size_t nr_progs;
	int err;

	if (max(uids->nr, 1U) * max(gids->nr, 1U) > KPR_MAX_IDS) {
		*msg = "uid= and gid= lists give at most 16 rules a line";
		return -EINVAL;
	}
	for (u = 0; u < max(uids->nr, 1U); u++) {
		for (g = 0; g < max(gids->nr, 1U); g++) {
			struct kpr_program *prog;

			prog = copy_program(tmpl, uids->id[u], gids->id[g]);
			if (!prog)
				return -ENOMEM;
			nr_progs = rs->nr_progs;
			rule->prog = intern_program(rs, prog);
			if (!rule->prog)
				return -ENOMEM;
			if (rs->nr_progs != nr_progs)
				rs->prog_bytes += sizeof(*prog) + tmpl->size;
			if (rs->prog_bytes > KPR_POLICY_MAX_PROG_BYTES) {
				*msg = "programs take more than 32 MiB";
				return -E2BIG;
			}
			err = append_rule(rs, rule, msg);
			if (err)
				return err;
		}
	}
	return 0;
}

/**
 * parse_program() - parse the PROGRAM field of a rule and its qualifiers
 * @rs: the ruleset that receives the rules
 * @field: the program field and its qualifier fields
 * @n: number of entries in @field
 * @rule: the ports and protocols of the rule
 * @msg: receives what is wrong
 *
 * Return: 0, -EINVAL, -E2BIG or -ENOMEM.
 */
static int parse_program(struct kpr_ruleset *rs, char **field,
			 unsigned int n, struct kpr_rule *rule,
			 const char **msg)
{
	struct kpr_ids uids = {}, gids = {};
	struct kpr_program *tmpl;
	size_t size = 0;
	unsigned int i;
	int err;

	/* Room for the decoded path and cgroup path, never longer. */
	for (i = 0; i < n; i++)
		size += strlen(field[i]) + 1;
	tmpl = kvzalloc(sizeof(*tmpl) + size, GFP_KERNEL);
	if (!tmpl)
		return -ENOMEM;
	*msg = decode_path(tmpl, field[0]);
	for (i = 1; i < n && !*msg; i++)
		*msg = parse_qualifier(tmpl, field[i], &uids, &gids);
	if (*msg) {
		kvfree(tmpl);
		return -EINVAL;
	}
	tmpl->hash = kpr_path_hash(tmpl->path, tmpl->len);
	/* What copies need: the path and the cgroup's path, which follows. */
	tmpl->size = tmpl->cgroup ?
		     tmpl->cgroup - tmpl->path + tmpl->cgroup_len + 1 :
		     tmpl->len + 1;
	err = add_rules(rs, rule, tmpl, &uids, &gids, msg);
	kvfree(tmpl);
	return err;
}

/*
 * Split @line at blanks into at most @max fields; return how many. A
 * field that starts with '#' starts a comment, which ends the line: no
 * path or qualifier starts with one.
 */
static unsigned int split_fields(char *line, char **field, unsigned int max)
{
	unsigned int n = 0;

	while (line && n < max) {
		field[n] = strsep(&line, KPR_BLANKS);
		if (field[n][0] == '#')
			break;
		if (*field[n])
			n++;
	}
	return n;
}

/**
 * parse_line() - parse one line of a policy into a ruleset
 * @rs: the ruleset that receives the rule
 * @line: the line without its newline, NUL-terminated; split in place
 * @len: length of @line
 * @msg: receives what is wrong
 *
 * Return: 0 (also for blank and comment lines), -EINVAL, -E2BIG or -ENOMEM.
 */
static int parse_line(struct kpr_ruleset *rs, char *line, size_t len,
		      const char **msg)
{
	char *field[KPR_MAX_FIELDS];
	struct kpr_rule rule;
	unsigned int n;

	if (strlen(line) != len) {
		*msg = "NUL byte in policy";
		return -EINVAL;
	}
	n = split_fields(line, field, ARRAY_SIZE(field));
	if (!n)
		return 0;
	if (n == 1)
		*msg = "missing program after the ports";
	else if (n == ARRAY_SIZE(field))
		*msg = "extra field after the program and qualifiers; a comment starts with '#'";
	else
		*msg = parse_ports(field[0], &rule);
	if (*msg)
		return -EINVAL;
	return parse_program(rs, field + 1, n - 1, &rule, msg);
}

/**
 * kpr_parser_init() - prepare a parser for a policy that arrives in pieces
 * @p: the parser
 */
void kpr_parser_init(struct kpr_parser *p)
{
	*p = (struct kpr_parser){ .line = 1 };
}

static int parser_fail(struct kpr_parser *p, int err, const char *msg)
{
	p->error = err;
	p->error_line = p->line;
	p->error_msg = err == -ENOMEM ? "out of memory" : msg;
	return err;
}

/**
 * stash() - add bytes to the line being collected
 * @p: the parser
 * @s: the bytes
 * @len: number of bytes
 *
 * Lines are parsed from a buffer of the parser's own, which strsep() may
 * write to, whether or not they arrived in one piece; a line is refused by
 * its length as soon as it grows too long. The buffer grows with the
 * longest line, as most are short.
 *
 * Return: 0, or an error when the line grows past KPR_LINE_MAX.
 */
static int stash(struct kpr_parser *p, const char *s, size_t len)
{
	size_t size, need = p->pending_len + len + 1;
	char *buf;

	if (len > KPR_LINE_MAX - p->pending_len)
		return parser_fail(p, -EINVAL, "line too long");
	if (need > p->pending_size) {
		size = max_t(size_t, need, 2 * p->pending_size + 256);
		size = min_t(size_t, size, KPR_LINE_MAX + 1);
		buf = kvmalloc(size, GFP_KERNEL);
		if (!buf)
			return parser_fail(p, -ENOMEM, NULL);
		if (p->pending_len)
			memcpy(buf, p->pending, p->pending_len);
		kvfree(p->pending);
		p->pending = buf;
		p->pending_size = size;
	}
	memcpy(p->pending + p->pending_len, s, len);
	p->pending_len += len;
	p->pending[p->pending_len] = '\0';
	return 0;
}

/* Parse the collected line, then start the next one. */
static int parse_pending(struct kpr_parser *p)
{
	const char *msg = NULL;
	int err = parse_line(&p->rs, p->pending, p->pending_len, &msg);

	p->pending_len = 0;
	if (err)
		return parser_fail(p, err, msg);
	p->line++;
	return 0;
}

/**
 * kpr_parser_feed() - parse the next piece of a policy
 * @p: the parser
 * @buf: the bytes; a line may span several calls
 * @len: number of bytes
 *
 * Complete lines are parsed at once, so an error is reported by the call
 * that carries the bad line. Errors are sticky.
 *
 * Return: 0, or the first error: -EINVAL for a bad line, -E2BIG past the
 * documented limits, -ENOMEM; @p->error_line and @p->error_msg say more.
 */
int kpr_parser_feed(struct kpr_parser *p, const char *buf, size_t len)
{
	if (p->error)
		return p->error;
	if (p->finished)
		return parser_fail(p, -EINVAL, "policy already complete");
	if (len > KPR_POLICY_MAX_BYTES - p->bytes)
		return parser_fail(p, -E2BIG,
				   "policy larger than 16 MiB of text");
	p->bytes += len;

	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		int err = stash(p, buf, n);

		if (err || !nl)
			return err;
		err = parse_pending(p);
		if (err)
			return err;
		buf += n + 1;
		len -= n + 1;
		/* One write may carry a million lines. */
		if (!(p->line % 1024))
			cond_resched();
	}
	return 0;
}

/* Canonical protocol order: all protocols, then tcp, udp and sctp. */
static int proto_rank(u8 protos)
{
	return protos == KPR_PROTO_ALL ? 0 : protos;
}

/* Canonical program order: by path, then unqualified before qualified. */
static int compare_programs(const struct kpr_program *x,
			    const struct kpr_program *y)
{
	if (x == y)
		return 0;
	if (strcmp(x->path, y->path))
		return strcmp(x->path, y->path);
	if (x->quals != y->quals)
		return x->quals < y->quals ? -1 : 1;
	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	/* Equal quals: both have a cgroup, or neither has. */
	return x->cgroup ? strcmp(x->cgroup, y->cgroup) : 0;
}

static int compare_rules(const void *a, const void *b)
{
	const struct kpr_rule *x = a, *y = b;

	if (x->first != y->first)
		return x->first - y->first;
	if (x->last != y->last)
		return x->last - y->last;
	if (x->protos != y->protos)
		return proto_rank(x->protos) - proto_rank(y->protos);
	return compare_programs(x->prog, y->prog);
}

/**
 * ruleset_canonicalize() - sort the rules and drop duplicates
 * @rs: the ruleset
 *
 * Programs are interned, so equal rules compare equal pointer for pointer.
 */
static void ruleset_canonicalize(struct kpr_ruleset *rs)
{
	size_t i, out = 0;

	if (!rs->nr_rules)
		return;
	sort(rs->rules, rs->nr_rules, sizeof(*rs->rules), compare_rules, NULL);
	for (i = 1; i < rs->nr_rules; i++)
		if (compare_rules(&rs->rules[out], &rs->rules[i]))
			rs->rules[++out] = rs->rules[i];
	rs->nr_rules = out + 1;
}

/**
 * kpr_parser_finish() - parse the last line and put the rules in order
 * @p: the parser
 *
 * A last line without a newline is parsed here. Calling this again
 * returns the same result.
 *
 * Return: 0 or the first error, as kpr_parser_feed().
 */
int kpr_parser_finish(struct kpr_parser *p)
{
	if (p->error || p->finished)
		return p->error;
	if (p->pending_len && parse_pending(p))
		return p->error;
	kvfree(p->pending);
	p->pending = NULL;
	p->pending_size = 0;
	ruleset_canonicalize(&p->rs);
	p->finished = true;
	return 0;
}

/**
 * kpr_parser_take() - move the parsed rules out of a parser
 * @p: a parser on which kpr_parser_finish() succeeded
 * @rs: receives the rules; free with kpr_ruleset_destroy()
 */
void kpr_parser_take(struct kpr_parser *p, struct kpr_ruleset *rs)
{
	*rs = p->rs;
	memset(&p->rs, 0, sizeof(p->rs));
}

/**
 * kpr_parser_destroy() - free what a parser still holds
 * @p: the parser
 */
void kpr_parser_destroy(struct kpr_parser *p)
{
	kpr_ruleset_destroy(&p->rs);
	kvfree(p->pending);
	p->pending = NULL;
	p->pending_len = 0;
	p->pending_size = 0;
}

/**
 * kpr_parse_policy() - parse a whole policy held in memory
 * @text: the policy text
 * @len: its length
 * @rs: receives the rules in canonical order on success
 * @error_line: receives the number of the bad line on failure
 * @error_msg: receives what is wrong with it on failure
 *
 * Return: 0 or an error, as kpr_parser_feed().
 */
int kpr_parse_policy(const char *text, size_t len, struct kpr_ruleset *rs,
		     unsigned int *error_line, const char **error_msg)
{
	struct kpr_parser p;
	int err;

	kpr_parser_init(&p);
	err = kpr_parser_feed(&p, text, len) ?: kpr_parser_finish(&p);
	if (err) {
		*error_line = p.error_line;
		*error_msg = p.error_msg;
	} else {
		kpr_parser_take(&p, rs);
	}
	kpr_parser_destroy(&p);
	return err;
}

/**
 * struct kpr_out - a bounded output buffer that counts what did not fit
 * @buf: the buffer, or NULL to only count
 * @size: its size
 * @len: bytes produced so far, including those that did not fit
 */
struct kpr_out {
	char *buf;
	size_t size;
	size_t len;
};

static void out_bytes(struct kpr_out *o, const char *s, size_t n)
{
	if (o->len < o->size)
		memcpy(o->buf + o->len, s, min(n, o->size - o->len));
	o->len += n;
}

/*
 * The spelling check_escapes() accepts. string_escape_mem() cannot write
 * a backslash as "\\" and every other byte as "\ooo" at the same time.
 */
static void out_path(struct kpr_out *o, const char *path, size_t len)
{
	char esc[sizeof("\\ooo")];
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = path[i];

		if (c == '\\')
			out_bytes(o, "\\\\", 2);
		else if (c > ' ' && c <= '~')
			out_bytes(o, &path[i], 1);
		else
			out_bytes(o, esc, scnprintf(esc, sizeof(esc), "\\%03o", c));
	}
}

static void out_program(struct kpr_out *o, const struct kpr_program *prog)
{
	char quals[sizeof(" uid=4294967295 gid=4294967295")];
	int n = 0;

	out_path(o, prog->path, prog->len);
	if (prog->quals & KPR_QUAL_UID)
		n += scnprintf(quals + n, sizeof(quals) - n, " uid=%u", prog->uid);
	if (prog->quals & KPR_QUAL_GID)
		n += scnprintf(quals + n, sizeof(quals) - n, " gid=%u", prog->gid);
	out_bytes(o, quals, n);
	if (prog->cgroup) {
		out_bytes(o, " cgroup=", strlen(" cgroup="));
		out_path(o, prog->cgroup, prog->cgroup_len);
	}
}

static void out_rule(struct kpr_out *o, const struct kpr_rule *rule)
{
	char ports[sizeof("65535-65535/sctp")];
	int n = scnprintf(ports, sizeof(ports), "%u", rule->first);

	if (rule->last != rule->first)
		n += scnprintf(ports + n, sizeof(ports) - n, "-%u", rule->last);
	if (rule->protos != KPR_PROTO_ALL)
		n += scnprintf(ports + n, sizeof(ports) - n, "/%s",
			       proto_names[__ffs(rule->protos)]);
	out_bytes(o, ports, n);
	out_bytes(o, " ", 1);
	out_program(o, rule->prog);
	out_bytes(o, "\n", 1);
}

/**
 * kpr_ruleset_format() - write a ruleset in canonical form
 * @rs: the ruleset, canonicalized
 * @buf: the buffer, or NULL with @size 0 to measure
 * @size: size of @buf
 *
 * Writes one rule a line; parsing the text gives back the same ruleset.
 * The text is not NUL-terminated.
 *
 * Return: the length of the whole text, which may exceed @size.
 */
size_t kpr_ruleset_format(const struct kpr_ruleset *rs, char *buf, size_t size)
{
	struct kpr_out o = { .buf = buf, .size = size };
	size_t i;

	for (i = 0; i < rs->nr_rules; i++)
		out_rule(&o, &rs->rules[i]);
	return o.len;
}

/**
 * kpr_format_path() - escape a path as a policy spells program names
 * @path: the path; need not be NUL-terminated
 * @len: its length
 * @buf: the buffer, or NULL with @size 0 to measure
 * @size: size of @buf
 *
 * Bytes outside printable ASCII and white space become \ooo, a backslash
 * becomes two, so the text is one field that parses back to @path.
 *
 * Return: the length of the text, which may exceed @size; not NUL-terminated.
 */
size_t kpr_format_path(const char *path, size_t len, char *buf, size_t size)
{
	struct kpr_out o = { .buf = buf, .size = size };

	out_path(&o, path, len);
	return o.len;
}

/**
 * kpr_proto_name() - the policy's name of a protocol
 * @proto: the protocol, below KPR_NR_PROTOS
 *
 * Return: "tcp", "udp" or "sctp".
 */
const char *kpr_proto_name(enum kpr_proto proto)
{
	return proto_names[proto];
}

/**
 * kpr_ruleset_destroy() - free the rules and the programs of a ruleset
 * @rs: the ruleset; left empty
 */
void kpr_ruleset_destroy(struct kpr_ruleset *rs)
{
	size_t i;

	for (i = 0; i < rs->cap_progs; i++) {
		kvfree(rs->progs[i]);
		if (!(i % 1024))
			cond_resched();
	}
	kvfree(rs->progs);
	kvfree(rs->rules);
	memset(rs, 0, sizeof(*rs));
}
