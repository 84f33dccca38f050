// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve policy parser: text in, rules out.
 *
 * The parser is pure: it takes no locks, keeps no global state and uses
 * only the helpers of parser_env.h, so the same file builds in user space
 * for the admin command and the fuzzer. The language is documented in
 * Documentation/admin-guide/LSM/kportreserve.rst.
 */

#include "parser.h"

/**
 * struct kpr_field - one white-space separated field of a line
 * @s: first byte of the field
 * @len: length of the field
 */
struct kpr_field {
	const char *s;
	size_t len;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/**
 * split_fields() - split a line into white-space separated fields
 * @line: the line, without its newline
 * @len: length of @line
 * @fields: where to store up to @max fields
 * @max: capacity of @fields
 *
 * Return: the number of fields found, counting at most @max + 1, so that
 * a caller can tell "exactly @max" from "more than @max".
 */
static size_t split_fields(const char *line, size_t len,
			   struct kpr_field *fields, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len && n <= max) {
		size_t start;

		while (i < len && is_blank(line[i]))
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !is_blank(line[i]))
			i++;
		if (n < max) {
			fields[n].s = line + start;
			fields[n].len = i - start;
		}
		n++;
	}
	return n;
}

/**
 * parse_port() - parse a decimal port number from 1 to 65535
 * @s: the digits
 * @len: number of digits
 * @port: where to store the port
 *
 * Return: 0, or -EINVAL when @s is empty, not decimal or out of range.
 */
static int parse_port(const char *s, size_t len, u16 *port)
{
	u32 value = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		value = value * 10 + (s[i] - '0');
		if (value > KPR_NR_PORTS - 1)
			return -EINVAL;
	}
	if (!value)
		return -EINVAL;
	*port = value;
	return 0;
}

/**
 * parse_ports() - parse the PORTS[/PROTO] field of a rule
 * @f: the field
 * @rule: rule whose @first, @last and @protos are set
 * @msg: where to store what is wrong
 *
 * Return: 0 or -EINVAL.
 */
static int parse_ports(const struct kpr_field *f, struct kpr_rule *rule,
		       const char **msg)
{
	const char *slash = memchr(f->s, '/', f->len);
	size_t ports_len = slash ? (size_t)(slash - f->s) : f->len;
	const char *dash = memchr(f->s, '-', ports_len);

	*msg = "port must be a number from 1 to 65535";
	if (dash) {
		if (parse_port(f->s, dash - f->s, &rule->first) ||
		    parse_port(dash + 1, ports_len - (dash + 1 - f->s),
			       &rule->last))
			return -EINVAL;
		if (rule->first > rule->last) {
			*msg = "reversed port range: FIRST must not exceed LAST";
			return -EINVAL;
		}
	} else {
		if (parse_port(f->s, ports_len, &rule->first))
			return -EINVAL;
		rule->last = rule->first;
	}

	rule->protos = KPR_PROTO_ALL;
	if (slash) {
		size_t proto_len = f->len - ports_len - 1;
		int proto;

		for (proto = 0; proto < KPR_NR_PROTOS; proto++) {
			const char *name = kpr_proto_name(proto);

			if (proto_len == strlen(name) &&
			    !memcmp(slash + 1, name, proto_len))
				break;
		}
		if (proto == KPR_NR_PROTOS) {
			*msg = "unknown protocol: expected tcp, udp or sctp";
			return -EINVAL;
		}
		rule->protos = BIT(proto);
	}
	return 0;
}

static bool is_octal(char c, char max)
{
	return c >= '0' && c <= max;
}

/**
 * decode_escape() - decode one backslash escape of a program path
 * @s: the escape, starting at its backslash
 * @len: bytes left in the field from @s on
 * @c: receives the decoded byte
 * @msg: where to store what is wrong
 *
 * Return: the length of the escape, or -EINVAL.
 */
static int decode_escape(const char *s, size_t len, unsigned char *c,
			 const char **msg)
{
	if (len >= 2 && s[1] == '\\') {
		*c = '\\';
		return 2;
	}
	if (len < 4 || !is_octal(s[1], '3') || !is_octal(s[2], '7') ||
	    !is_octal(s[3], '7')) {
		*msg = "malformed escape in program: expected \\\\ or \\ooo";
		return -EINVAL;
	}
	*c = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
	if (!*c) {
		*msg = "program contains an encoded NUL byte";
		return -EINVAL;
	}
	return 4;
}

/**
 * decode_path() - decode a TOMOYO-encoded program path
 * @s: the encoded field
 * @len: length of @s
 * @out: buffer of at least @len + 1 bytes for the decoded, NUL-terminated path
 * @out_len: where to store the decoded length
 * @msg: where to store what is wrong
 *
 * A backslash is written "\\" and any byte outside 0x21-0x7e as "\ooo"; a
 * raw byte outside that range, any other escape and an encoded NUL are
 * errors.
 *
 * Return: 0 or -EINVAL.
 */
static int decode_path(const char *s, size_t len, char *out, size_t *out_len,
		       const char **msg)
{
	size_t i = 0, o = 0;

	while (i < len) {
		unsigned char c = s[i];
		int n = 1;

		if (c <= 0x20 || c >= 0x7f) {
			*msg = "program byte outside 0x21-0x7e must be written as \\ooo";
			return -EINVAL;
		}
		if (c == '\\') {
			n = decode_escape(s + i, len - i, &c, msg);
			if (n < 0)
				return n;
		}
		i += n;
		out[o++] = c;
	}
	out[o] = '\0';
	*out_len = o;
	return 0;
}

/**
 * path_is_canonical() - tell whether a path is spelled as the kernel does
 * @path: NUL-terminated decoded path
 * @len: its length
 *
 * d_absolute_path() never yields "//", "." or ".." components or a
 * trailing slash, so a rule spelled that way could never match: reject it
 * rather than let it reserve a port for nobody.
 *
 * Return: true if @path is absolute and canonical.
 */
static bool path_is_canonical(const char *path, size_t len)
{
	size_t i;

	if (len < 2 || path[0] != '/' || path[len - 1] == '/')
		return false;
	for (i = 0; i < len; i++) {
		const char *c = path + i;
		size_t rest = len - i;

		if (*c != '/')
			continue;
		if (rest >= 2 && c[1] == '/')
			return false;
		if ((rest == 2 || (rest > 2 && c[2] == '/')) && c[1] == '.')
			return false;
		if ((rest == 3 || (rest > 3 && c[3] == '/')) && c[1] == '.' &&
		    c[2] == '.')
			return false;
	}
	return true;
}

/* FNV-1a: small, pure and good enough to intern program names. */
static u32 hash_bytes(u32 h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619U;
	}
	return h;
}

static u32 hash_program(const struct kpr_program *prog)
{
	u32 h = hash_bytes(2166136261U, prog->path, prog->len);

	h = hash_bytes(h, &prog->quals, sizeof(prog->quals));
	h = hash_bytes(h, &prog->uid, sizeof(prog->uid));
	return hash_bytes(h, &prog->gid, sizeof(prog->gid));
}

static bool same_program(const struct kpr_program *a,
			 const struct kpr_program *b)
{
	return a->hash == b->hash && a->len == b->len &&
	       a->quals == b->quals && a->uid == b->uid && a->gid == b->gid &&
	       !memcmp(a->path, b->path, a->len);
}

/**
 * grow_programs() - double the program hash table of a ruleset
 * @rs: the ruleset
 *
 * Return: 0 or -ENOMEM; on failure @rs is unchanged.
 */
static int grow_programs(struct kpr_ruleset *rs)
{
	size_t cap = rs->cap_progs ? rs->cap_progs * 2 : 16;
	struct kpr_program **progs = kpr_zalloc(cap * sizeof(*progs));
	size_t i;

	if (!progs)
		return -ENOMEM;
	for (i = 0; i < rs->cap_progs; i++) {
		struct kpr_program *prog = rs->progs[i];
		size_t slot;

		if (!prog)
			continue;
		slot = prog->hash & (cap - 1);
		while (progs[slot])
			slot = (slot + 1) & (cap - 1);
		progs[slot] = prog;
	}
	kpr_free(rs->progs);
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

	if ((rs->nr_progs + 1) * 2 > rs->cap_progs && grow_programs(rs)) {
		kpr_free(prog);
		return NULL;
	}
	slot = prog->hash & (rs->cap_progs - 1);
	while (rs->progs[slot]) {
		if (same_program(rs->progs[slot], prog)) {
			kpr_free(prog);
			return rs->progs[slot];
		}
		slot = (slot + 1) & (rs->cap_progs - 1);
	}
	prog->id = rs->nr_progs++;
	rs->progs[slot] = prog;
	return prog;
}

/**
 * parse_id() - parse the decimal value of a uid= or gid= qualifier
 * @s: the digits
 * @len: number of digits
 * @id: where to store the value
 *
 * Return: 0, or -EINVAL unless @s is a decimal number below 4294967295
 * ((uid_t)-1 names no user).
 */
static int parse_id(const char *s, size_t len, u32 *id)
{
	u64 value = 0;
	size_t i;

	if (!len || len > 10)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		value = value * 10 + (s[i] - '0');
	}
	if (value >= 0xffffffffULL)
		return -EINVAL;
	*id = value;
	return 0;
}

/**
 * parse_qualifier() - parse a uid=N or gid=N field after the program
 * @prog: the program being built, which receives the qualifier
 * @f: the field
 * @msg: where to store what is wrong
 *
 * Return: 0 or -EINVAL.
 */
static int parse_qualifier(struct kpr_program *prog, const struct kpr_field *f,
			   const char **msg)
{
	u8 qual;
	u32 *id;

	if (f->len >= 4 && !memcmp(f->s, "uid=", 4)) {
		qual = KPR_QUAL_UID;
		id = &prog->uid;
	} else if (f->len >= 4 && !memcmp(f->s, "gid=", 4)) {
		qual = KPR_QUAL_GID;
		id = &prog->gid;
	} else {
		*msg = "unknown field after the program: expected uid=N or gid=N";
		return -EINVAL;
	}
	if (prog->quals & qual) {
		*msg = "uid= or gid= given twice";
		return -EINVAL;
	}
	if (prog->kernel) {
		*msg = "<kernel> takes no uid= or gid=";
		return -EINVAL;
	}
	if (parse_id(f->s + 4, f->len - 4, id)) {
		*msg = "uid= and gid= take a number from 0 to 4294967294";
		return -EINVAL;
	}
	prog->quals |= qual;
	return 0;
}

/**
 * decode_program() - decode the PROGRAM field of a rule
 * @f: the field
 * @msg: where to store what is wrong
 * @err: receives the error when NULL is returned
 *
 * Return: a new program without qualifiers, to free with kpr_free(), or
 * NULL with @err set to -EINVAL or -ENOMEM.
 */
static struct kpr_program *decode_program(const struct kpr_field *f,
					  const char **msg, int *err)
{
	const size_t kernel_len = sizeof(KPR_KERNEL_NAME) - 1;
	struct kpr_program *prog;
	size_t len;

	*err = -ENOMEM;
	prog = kpr_zalloc(sizeof(*prog) + f->len + 1);
	if (!prog)
		return NULL;
	if (f->len == kernel_len && !memcmp(f->s, KPR_KERNEL_NAME, kernel_len)) {
		memcpy(prog->path, KPR_KERNEL_NAME, kernel_len + 1);
		prog->len = kernel_len;
		prog->kernel = true;
		return prog;
	}
	*err = decode_path(f->s, f->len, prog->path, &len, msg);
	if (!*err && len >= KPR_PATH_MAX) {
		*msg = "program path longer than PATH_MAX";
		*err = -EINVAL;
	} else if (!*err && prog->path[0] != '/') {
		*msg = "program must be an absolute path or <kernel>";
		*err = -EINVAL;
	} else if (!*err && !path_is_canonical(prog->path, len)) {
		*msg = "program path has a trailing '/', '//', '.' or '..'";
		*err = -EINVAL;
	}
	if (*err) {
		kpr_free(prog);
		return NULL;
	}
	prog->len = len;
	return prog;
}

/**
 * parse_program() - parse the PROGRAM field of a rule and its qualifiers
 * @rs: ruleset that owns the program
 * @f: the program field, followed by @nr_quals qualifier fields
 * @nr_quals: number of uid= and gid= fields
 * @rule: rule whose @prog is set
 * @msg: where to store what is wrong
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
static int parse_program(struct kpr_ruleset *rs, const struct kpr_field *f,
			 size_t nr_quals, struct kpr_rule *rule,
			 const char **msg)
{
	struct kpr_program *prog;
	size_t i;
	int err;

	prog = decode_program(f, msg, &err);
	if (!prog)
		return err;
	for (i = 1; i <= nr_quals; i++) {
		err = parse_qualifier(prog, &f[i], msg);
		if (err) {
			kpr_free(prog);
			return err;
		}
	}
	prog->hash = hash_program(prog);
	rule->prog = intern_program(rs, prog);
	return rule->prog ? 0 : -ENOMEM;
}

/**
 * append_rule() - add a rule to a ruleset
 * @rs: the ruleset
 * @rule: the rule to copy
 * @msg: where to store what is wrong
 *
 * Return: 0, -E2BIG past KPR_POLICY_MAX_RULES, or -ENOMEM.
 */
static int append_rule(struct kpr_ruleset *rs, const struct kpr_rule *rule,
		       const char **msg)
{
	if (rs->nr_rules == rs->cap_rules) {
		size_t cap = rs->cap_rules ? rs->cap_rules * 2 : 16;
		struct kpr_rule *rules;

		if (rs->nr_rules >= KPR_POLICY_MAX_RULES) {
			*msg = "too many rules (the limit is 1048576)";
			return -E2BIG;
		}
		if (cap > KPR_POLICY_MAX_RULES)
			cap = KPR_POLICY_MAX_RULES;
		rules = kpr_zalloc(cap * sizeof(*rules));
		if (!rules)
			return -ENOMEM;
		if (rs->nr_rules)
			memcpy(rules, rs->rules, rs->nr_rules * sizeof(*rules));
		kpr_free(rs->rules);
		rs->rules = rules;
		rs->cap_rules = cap;
	}
	rs->rules[rs->nr_rules++] = *rule;
	return 0;
}

/**
 * parse_line() - parse one line of a policy into @rs
 * @rs: the ruleset that receives the rule
 * @line: the line, without its newline; not NUL-terminated
 * @len: length of @line
 * @msg: where to store what is wrong
 *
 * Return: 0 (also for blank and comment lines), -EINVAL, -E2BIG or -ENOMEM.
 */
static int parse_line(struct kpr_ruleset *rs, const char *line, size_t len,
		      const char **msg)
{
	struct kpr_field fields[4];
	struct kpr_rule rule;
	size_t n;
	int err;

	/*
	 * Length first: a line fed in pieces is refused by its length before
	 * its bytes are seen (kpr_parser_feed()), and a line must get the
	 * same error however it was written.
	 */
	if (len > KPR_LINE_MAX) {
		*msg = "line too long";
		return -EINVAL;
	}
	if (memchr(line, '\0', len)) {
		*msg = "NUL byte in policy";
		return -EINVAL;
	}
	n = split_fields(line, len, fields, ARRAY_SIZE(fields));
	if (!n || fields[0].s[0] == '#')
		return 0;
	if (n == 1) {
		*msg = "missing program after the ports";
		return -EINVAL;
	}
	if (n > ARRAY_SIZE(fields)) {
		*msg = "extra field after the program and its uid= and gid=";
		return -EINVAL;
	}
	err = parse_ports(&fields[0], &rule, msg);
	if (!err)
		err = parse_program(rs, &fields[1], n - 2, &rule, msg);
	if (!err)
		err = append_rule(rs, &rule, msg);
	return err;
}

/**
 * kpr_parser_init() - prepare a parser for a policy that arrives in pieces
 * @p: the parser
 */
void kpr_parser_init(struct kpr_parser *p)
{
	memset(p, 0, sizeof(*p));
	p->line = 1;
}

static int parser_fail(struct kpr_parser *p, int err, const char *msg)
{
	p->error = err;
	p->error_line = p->line;
	p->error_msg = err == -ENOMEM ? "out of memory" : msg;
	return err;
}

static int parser_line(struct kpr_parser *p, const char *line, size_t len)
{
	const char *msg = NULL;
	int err = parse_line(&p->rs, line, len, &msg);

	if (err)
		return parser_fail(p, err, msg);
	p->line++;
	return 0;
}

/**
 * stash() - keep the start of a line whose newline has not arrived yet
 * @p: the parser
 * @s: bytes of the line
 * @len: number of bytes
 *
 * Return: 0, or an error when the line grows past KPR_LINE_MAX.
 */
static int stash(struct kpr_parser *p, const char *s, size_t len)
{
	if (len > KPR_LINE_MAX - p->pending_len)
		return parser_fail(p, -EINVAL, "line too long");
	if (!p->pending) {
		p->pending = kpr_zalloc(KPR_LINE_MAX);
		if (!p->pending)
			return parser_fail(p, -ENOMEM, NULL);
	}
	memcpy(p->pending + p->pending_len, s, len);
	p->pending_len += len;
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
		size_t chunk = nl ? (size_t)(nl - buf) : len;
		int err;

		if (!nl)
			return stash(p, buf, chunk);
		if (p->pending_len) {
			err = stash(p, buf, chunk);
			if (!err)
				err = parser_line(p, p->pending, p->pending_len);
			p->pending_len = 0;
		} else {
			err = parser_line(p, buf, chunk);
		}
		if (err)
			return err;
		buf += chunk + 1;
		len -= chunk + 1;
		/* One write may carry a million lines. */
		if (!(p->line % 1024))
			kpr_yield();
	}
	return 0;
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
	int err = p->error;

	if (err || p->finished)
		return err;
	if (p->pending_len) {
		err = parser_line(p, p->pending, p->pending_len);
		p->pending_len = 0;
		if (err)
			return err;
	}
	kpr_free(p->pending);
	p->pending = NULL;
	kpr_ruleset_canonicalize(&p->rs);
	p->finished = true;
	return 0;
}

/**
 * kpr_parser_check_pending() - judge the line whose newline has not come
 * @p: the parser
 *
 * For a writer that closes a policy file that others still hold: the line
 * may yet be continued, so it stays pending, but a line that is bad as it
 * stands fails the parser as kpr_parser_finish() would.
 *
 * Return: 0 or the first error, as kpr_parser_feed().
 */
int kpr_parser_check_pending(struct kpr_parser *p)
{
	struct kpr_ruleset scratch = {};
	const char *msg = NULL;
	int err;

	if (p->error || p->finished || !p->pending_len)
		return p->error;
	err = parse_line(&scratch, p->pending, p->pending_len, &msg);
	kpr_ruleset_destroy(&scratch);
	return err ? parser_fail(p, err, msg) : 0;
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
	kpr_free(p->pending);
	p->pending = NULL;
	p->pending_len = 0;
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
	err = kpr_parser_feed(&p, text, len);
	if (!err)
		err = kpr_parser_finish(&p);
	if (err) {
		*error_line = p.error_line;
		*error_msg = p.error_msg;
	} else {
		kpr_parser_take(&p, rs);
	}
	kpr_parser_destroy(&p);
	return err;
}

/* Canonical protocol order: all protocols, then tcp, udp and sctp. */
static unsigned int proto_rank(u8 protos)
{
	return protos == KPR_PROTO_ALL ? 0 : protos;
}

/* Canonical program order: by path, then unqualified before qualified. */
static int compare_programs(const struct kpr_program *x,
			    const struct kpr_program *y)
{
	size_t len;
	int diff;

	if (x == y)
		return 0;
	len = x->len < y->len ? x->len : y->len;
	diff = memcmp(x->path, y->path, len + 1);
	if (diff)
		return diff < 0 ? -1 : 1;
	if (x->quals != y->quals)
		return x->quals < y->quals ? -1 : 1;
	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	if (x->gid != y->gid)
		return x->gid < y->gid ? -1 : 1;
	return 0;
}

static int compare_rules(const void *a, const void *b)
{
	const struct kpr_rule *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	if (x->protos != y->protos)
		return proto_rank(x->protos) < proto_rank(y->protos) ? -1 : 1;
	return compare_programs(x->prog, y->prog);
}

/**
 * kpr_ruleset_canonicalize() - sort the rules and drop duplicates
 * @rs: the ruleset
 *
 * Programs are interned, so equal rules compare equal pointer for pointer.
 */
void kpr_ruleset_canonicalize(struct kpr_ruleset *rs)
{
	size_t i, out = 0;

	if (!rs->nr_rules)
		return;
	kpr_sort(rs->rules, rs->nr_rules, sizeof(*rs->rules), compare_rules);
	for (i = 1; i < rs->nr_rules; i++) {
		if (compare_rules(&rs->rules[out], &rs->rules[i]))
			rs->rules[++out] = rs->rules[i];
	}
	rs->nr_rules = out + 1;
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
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void out_char(struct kpr_out *o, char c)
{
	out_bytes(o, &c, 1);
}

static void out_number(struct kpr_out *o, u32 n)
{
	char digits[10];
	int i = 0;

	do {
		digits[i++] = '0' + n % 10;
		n /= 10;
	} while (n);
	while (i)
		out_char(o, digits[--i]);
}

static void out_path(struct kpr_out *o, const char *path, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = path[i];

		if (c == '\\') {
			out_bytes(o, "\\\\", 2);
		} else if (c > 0x20 && c < 0x7f) {
			out_char(o, c);
		} else {
			out_char(o, '\\');
			out_char(o, '0' + (c >> 6));
			out_char(o, '0' + ((c >> 3) & 7));
			out_char(o, '0' + (c & 7));
		}
	}
}

static void out_program(struct kpr_out *o, const struct kpr_program *prog)
{
	if (prog->kernel)
		out_bytes(o, prog->path, prog->len);
	else
		out_path(o, prog->path, prog->len);
	if (prog->quals & KPR_QUAL_UID) {
		out_bytes(o, " uid=", 5);
		out_number(o, prog->uid);
	}
	if (prog->quals & KPR_QUAL_GID) {
		out_bytes(o, " gid=", 5);
		out_number(o, prog->gid);
	}
}

/* The protocol of a rule that names one. */
static enum kpr_proto first_proto(u8 protos)
{
	enum kpr_proto proto = 0;

	while (!(protos & BIT(proto)))
		proto++;
	return proto;
}

static void out_rule(struct kpr_out *o, const struct kpr_rule *rule)
{
	out_number(o, rule->first);
	if (rule->last != rule->first) {
		out_char(o, '-');
		out_number(o, rule->last);
	}
	if (rule->protos != KPR_PROTO_ALL) {
		const char *name = kpr_proto_name(first_proto(rule->protos));

		out_char(o, '/');
		out_bytes(o, name, strlen(name));
	}
	out_char(o, ' ');
	out_program(o, rule->prog);
	out_char(o, '\n');
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
 * kpr_format_program() - write a program as a policy spells it
 * @prog: the program
 * @buf: the buffer, or NULL with @size 0 to measure
 * @size: size of @buf
 *
 * Writes the name and its qualifiers, if any.
 *
 * Return: the length of the text, which may exceed @size; not NUL-terminated.
 */
size_t kpr_format_program(const struct kpr_program *prog, char *buf,
			  size_t size)
{
	struct kpr_out o = { .buf = buf, .size = size };

	out_program(&o, prog);
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
	static const char *const names[KPR_NR_PROTOS] = {
		[KPR_PROTO_TCP] = "tcp",
		[KPR_PROTO_UDP] = "udp",
		[KPR_PROTO_SCTP] = "sctp",
	};

	return names[proto];
}

/**
 * kpr_ruleset_destroy() - free the rules and the programs of a ruleset
 * @rs: the ruleset; left empty
 */
void kpr_ruleset_destroy(struct kpr_ruleset *rs)
{
	size_t i;

	for (i = 0; i < rs->cap_progs; i++) {
		kpr_free(rs->progs[i]);
		if (!(i % 1024))
			kpr_yield();
	}
	kpr_free(rs->progs);
	kpr_free(rs->rules);
	memset(rs, 0, sizeof(*rs));
}
