// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the kportreserve policy parser: every valid form, every
 * error class with its line number, the limits, and the canonical round
 * trip.
 */

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "parser.h"

/**
 * struct parse_case - one policy text and what parsing it must give
 * @desc: name of the case
 * @text: the policy
 * @len: length of @text, or 0 for strlen(@text)
 * @err: expected error, or 0
 * @line: expected error line
 * @canonical: expected canonical text when @err is 0
 */
struct parse_case {
	const char *desc;
	const char *text;
	size_t len;
	int err;
	unsigned int line;
	const char *canonical;
};

#define VALID(d, t, c) { .desc = d, .text = t, .canonical = c }
#define INVALID(d, t, l) { .desc = d, .text = t, .err = -EINVAL, .line = l }

static const struct parse_case parse_cases[] = {
	VALID("empty", "", ""),
	VALID("blank and comment lines", "# web\n\n\t\t\n\t# x 1 2\n", ""),
	VALID("tcp port", "80/tcp /usr/sbin/nginx\n", "80/tcp /usr/sbin/nginx\n"),
	VALID("udp port", "5353/udp /usr/sbin/avahi-daemon\n",
	      "5353/udp /usr/sbin/avahi-daemon\n"),
	VALID("both protocols", "53 /usr/sbin/named\n", "53 /usr/sbin/named\n"),
	VALID("range", "8000-8099 /opt/app/bin/server\n",
	      "8000-8099 /opt/app/bin/server\n"),
	VALID("range of one port", "80-80/tcp /a\n", "80/tcp /a\n"),
	VALID("whole port space", "1-65535 /a\n", "1-65535 /a\n"),
	VALID("edge ports", "65535/udp /a\n1/tcp /a\n",
	      "1/tcp /a\n65535/udp /a\n"),
	VALID("kernel", "2049 <kernel>\n", "2049 <kernel>\n"),
	VALID("no final newline", "80/tcp /a", "80/tcp /a\n"),
	VALID("tabs and spaces", "  \t443/tcp\t \t/a \t\n", "443/tcp /a\n"),
	VALID("CRLF line ends", "80 /a\r\n81 /b\r\n", "80 /a\n81 /b\n"),
	VALID("leading zeros", "0080/tcp /a\n", "80/tcp /a\n"),
	VALID("escaped space", "1 /opt/my\\040app\n", "1 /opt/my\\040app\n"),
	VALID("escaped backslash", "1 /opt/a\\\\b\n", "1 /opt/a\\\\b\n"),
	VALID("escaped UTF-8", "1 /opt/caf\\303\\251\n", "1 /opt/caf\\303\\251\n"),
	VALID("escaped printable byte", "1 /opt/\\101\n", "1 /opt/A\n"),
	VALID("duplicates", "80 /a\n80 /a\n80 /a\n", "80 /a\n"),
	VALID("several programs", "80 /b\n80 /a\n", "80 /a\n80 /b\n"),
	VALID("sctp port", "9899/sctp /usr/bin/sctp_test\n",
	      "9899/sctp /usr/bin/sctp_test\n"),
	VALID("uid qualifier", "8080/tcp /usr/bin/python3 uid=1000\n",
	      "8080/tcp /usr/bin/python3 uid=1000\n"),
	VALID("gid qualifier", "8080 /a gid=0\n", "8080 /a gid=0\n"),
	VALID("qualifiers in canonical order", "8080 /a  gid=7\tuid=5\n",
	      "8080 /a uid=5 gid=7\n"),
	VALID("largest id", "1 /a uid=4294967294\n", "1 /a uid=4294967294\n"),
	VALID("leading zeros in id", "1 /a uid=007\n", "1 /a uid=7\n"),
	VALID("qualified and not are different programs",
	      "1 /a uid=2\n1 /a\n1 /a uid=1\n1 /a gid=1\n1 /a uid=2\n",
	      "1 /a\n1 /a uid=1\n1 /a uid=2\n1 /a gid=1\n"),
	VALID("comment after a rule", "80/tcp /usr/sbin/nginx # web\n",
	      "80/tcp /usr/sbin/nginx\n"),
	VALID("comment after qualifiers", "80 /a uid=1 gid=2\t#x uid=3 y z\n",
	      "80 /a uid=1 gid=2\n"),
	VALID("comment with no blank inside", "80 /a #\n", "80 /a\n"),
	VALID("hash inside a path", "80 /opt/a#b\n", "80 /opt/a#b\n"),
	VALID("uid list", "80/tcp /usr/sbin/nginx uid=33,0\n",
	      "80/tcp /usr/sbin/nginx uid=0\n80/tcp /usr/sbin/nginx uid=33\n"),
	VALID("uid list of one", "80 /a uid=5\n", "80 /a uid=5\n"),
	VALID("repeated id in list", "80 /a uid=5,5,005\n", "80 /a uid=5\n"),
	VALID("uid and gid lists", "80 /a gid=2,1 uid=4,3\n",
	      "80 /a uid=3 gid=1\n80 /a uid=3 gid=2\n"
	      "80 /a uid=4 gid=1\n80 /a uid=4 gid=2\n"),
	VALID("longest uid list",
	      "80 /a uid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n",
	      "80 /a uid=1\n80 /a uid=2\n80 /a uid=3\n80 /a uid=4\n"
	      "80 /a uid=5\n80 /a uid=6\n80 /a uid=7\n80 /a uid=8\n"
	      "80 /a uid=9\n80 /a uid=10\n80 /a uid=11\n80 /a uid=12\n"
	      "80 /a uid=13\n80 /a uid=14\n80 /a uid=15\n80 /a uid=16\n"),
	VALID("cgroup qualifier",
	      "8080/tcp /usr/bin/python3.13 cgroup=/system.slice/myapp.service\n",
	      "8080/tcp /usr/bin/python3.13 cgroup=/system.slice/myapp.service\n"),
	VALID("qualifiers and comment in canonical order",
	      "80 /a cgroup=/s.service gid=2 uid=1 # x\n",
	      "80 /a uid=1 gid=2 cgroup=/s.service\n"),
	VALID("escaped cgroup", "80 /a cgroup=/my\\040app.slice\n",
	      "80 /a cgroup=/my\\040app.slice\n"),
	VALID("cgroup with a uid list", "80 /a uid=33,0 cgroup=/s\n",
	      "80 /a uid=0 cgroup=/s\n80 /a uid=33 cgroup=/s\n"),
	VALID("cgroups make different programs",
	      "80 /a cgroup=/b\n80 /a cgroup=/a\n80 /a\n80 /a cgroup=/a\n80 /b cgroup=/a\n",
	      "80 /a\n80 /a cgroup=/a\n80 /a cgroup=/b\n80 /b cgroup=/a\n"),
	VALID("canonical order",
	      "443/sctp /a\n443/udp /a\n443/tcp /a\n443 /a\n80-90 /a\n80 /a\n",
	      "80 /a\n80-90 /a\n443 /a\n443/tcp /a\n443/udp /a\n443/sctp /a\n"),
	INVALID("port 0", "0 /a\n", 1),
	INVALID("port 65536", "65536 /a\n", 1),
	INVALID("huge port", "99999999999999999999 /a\n", 1),
	INVALID("range to 0", "0-5 /a\n", 1),
	INVALID("reversed range", "5-4 /a\n", 1),
	INVALID("open range", "80- /a\n", 1),
	INVALID("negative port", "-80 /a\n", 1),
	INVALID("signed port", "+80 /a\n", 1),
	INVALID("hex port", "0x50 /a\n", 1),
	INVALID("two dashes", "1-2-3 /a\n", 1),
	INVALID("unknown protocol", "80/dccp /a\n", 1),
	INVALID("protocol prefix", "80/sct /a\n", 1),
	INVALID("protocol case", "80/TCP /a\n", 1),
	INVALID("empty protocol", "80/ /a\n", 1),
	INVALID("two protocols", "80/tcp/udp /a\n", 1),
	INVALID("relative path", "80 usr/sbin/nginx\n", 1),
	INVALID("missing program", "80\n", 1),
	INVALID("extra field", "80 /a /b\n", 1),
	INVALID("extra field after qualifiers", "80 /a uid=1 gid=1 x\n", 1),
	INVALID("uid twice", "80 /a uid=1 uid=1\n", 1),
	INVALID("empty uid", "80 /a uid=\n", 1),
	INVALID("negative uid", "80 /a uid=-1\n", 1),
	INVALID("uid 4294967295", "80 /a uid=4294967295\n", 1),
	INVALID("uid over 32 bits", "80 /a uid=99999999999\n", 1),
	INVALID("hex gid", "80 /a gid=0x10\n", 1),
	INVALID("qualifier case", "80 /a UID=1\n", 1),
	INVALID("qualifier before program", "80 uid=1 /a\n", 1),
	INVALID("kernel with uid", "80 <kernel> uid=0\n", 1),
	INVALID("uid list too long",
		"80 /a uid=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n", 1),
	INVALID("lists of over 16 pairs", "80 /a uid=1,2,3,4,5 gid=1,2,3,4\n", 1),
	INVALID("empty id in list", "80 /a uid=1,,2\n", 1),
	INVALID("trailing comma", "80 /a gid=1,\n", 1),
	INVALID("leading comma", "80 /a uid=,1\n", 1),
	INVALID("list with a bad id", "80 /a uid=1,4294967295\n", 1),
	INVALID("list twice", "80 /a uid=1,2 uid=3\n", 1),
	INVALID("kernel with uid list", "80 <kernel> uid=0,1\n", 1),
	INVALID("cgroup root", "80 /a cgroup=/\n", 1),
	INVALID("relative cgroup", "80 /a cgroup=system.slice\n", 1),
	INVALID("empty cgroup", "80 /a cgroup=\n", 1),
	INVALID("cgroup with trailing slash", "80 /a cgroup=/s/\n", 1),
	INVALID("cgroup with dot-dot", "80 /a cgroup=/s/..\n", 1),
	INVALID("cgroup with double slash", "80 /a cgroup=//s\n", 1),
	INVALID("cgroup twice", "80 /a cgroup=/a cgroup=/b\n", 1),
	INVALID("kernel with cgroup", "80 <kernel> cgroup=/a\n", 1),
	INVALID("cgroup with a bad escape", "80 /a cgroup=/a\\q\n", 1),
	INVALID("extra field after three qualifiers",
		"80 /a uid=1 gid=1 cgroup=/a x\n", 1),
	INVALID("comment glued to a qualifier", "80 /a uid=1#web\n", 1),
	INVALID("comment glued to the ports", "80#web /a\n", 1),
	INVALID("comment between ports and program", "80 # /a\n", 1),
	INVALID("malformed escape", "80 /a\\q\n", 1),
	INVALID("short escape", "80 /a\\04\n", 1),
	INVALID("escape at end", "80 /a\\\n", 1),
	INVALID("escape over 0377", "80 /a\\400\n", 1),
	INVALID("escaped NUL", "80 /a\\000\n", 1),
	INVALID("raw byte over 0x7e", "80 /caf\xc3\xa9\n", 1),
	INVALID("double slash", "80 //a\n", 1),
	INVALID("trailing slash", "80 /a/\n", 1),
	INVALID("dot component", "80 /a/./b\n", 1),
	INVALID("dot-dot component", "80 /a/..\n", 1),
	INVALID("root", "80 /\n", 1),
	INVALID("kernel spelled otherwise", "80 <Kernel>\n", 1),
	INVALID("error line number", "# ok\n80 /a\n\n\tbad line\n81 /b\n", 4),
	INVALID("bad last line without newline", "80 /a\n81", 2),
	{ .desc = "NUL byte", .text = "80 /a\n81 /b\0c\n", .len = 14,
	  .err = -EINVAL, .line = 2 },
};

static void parse_case_desc(const struct parse_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_case_desc);

static void ruleset_destroy_action(void *rs)
{
	kpr_ruleset_destroy(rs);
}

/* Parse @text, check the result against @c, return the canonical text. */
static char *parse_and_format(struct kunit *test, const char *text,
			      size_t len, const struct parse_case *c)
{
	struct kpr_ruleset *rs = kunit_kzalloc(test, sizeof(*rs), GFP_KERNEL);
	const char *msg = NULL;
	unsigned int line = 0;
	size_t out_len;
	char *out;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, rs);
	err = kpr_parse_policy(text, len, rs, &line, &msg);
	KUNIT_ASSERT_EQ_MSG(test, err, c->err, "line %u: %s", line, msg);
	if (err) {
		KUNIT_EXPECT_EQ(test, line, c->line);
		KUNIT_EXPECT_NOT_NULL(test, msg);
		return NULL;
	}
	KUNIT_ASSERT_EQ(test, 0,
			kunit_add_action_or_reset(test, ruleset_destroy_action,
						  rs));
	out_len = kpr_ruleset_format(rs, NULL, 0);
	out = kunit_kzalloc(test, out_len + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_EXPECT_EQ(test, kpr_ruleset_format(rs, out, out_len), out_len);
	return out;
}

/* Each case parses as expected, and its canonical text parses to itself. */
static void test_kpr_parse_policy_cases(struct kunit *test)
{
	const struct parse_case *c = test->param_value;
	size_t len = c->len ?: strlen(c->text);
	char *canonical, *again;

	canonical = parse_and_format(test, c->text, len, c);
	if (c->err)
		return;
	KUNIT_EXPECT_STREQ(test, canonical, c->canonical);
	again = parse_and_format(test, canonical, strlen(canonical), c);
	KUNIT_EXPECT_STREQ(test, again, canonical);
}

/* Feed @text in pieces of @step bytes; return the first error. */
static int feed_in_pieces(struct kpr_parser *p, const char *text, size_t step)
{
	size_t len = strlen(text), off;
	int err = 0;

	for (off = 0; off < len && !err; off += step)
		err = kpr_parser_feed(p, text + off, min(step, len - off));
	return err ?: kpr_parser_finish(p);
}

/* A policy split at every possible place parses as the whole text does. */
static void test_kpr_parser_feed_pieces(struct kunit *test)
{
	static const char text[] =
		"# web\n80/tcp /usr/sbin/nginx\n8000-8099 /opt/a\\040b\n2049 <kernel>";
	static const char canonical[] =
		"80/tcp /usr/sbin/nginx\n2049 <kernel>\n8000-8099 /opt/a\\040b\n";
	char out[sizeof(canonical)];
	struct kpr_parser p;
	size_t step;

	for (step = 1; step <= sizeof(text); step++) {
		kpr_parser_init(&p);
		KUNIT_ASSERT_EQ(test, feed_in_pieces(&p, text, step), 0);
		KUNIT_EXPECT_EQ(test, kpr_ruleset_format(&p.rs, out, sizeof(out)),
				sizeof(canonical) - 1);
		out[sizeof(canonical) - 1] = '\0';
		KUNIT_EXPECT_STREQ(test, out, canonical);
		kpr_parser_destroy(&p);
	}
}

/* A bad line fails the feed that completes it; later feeds fail too. */
static void test_kpr_parser_feed_error_sticks(struct kunit *test)
{
	struct kpr_parser p;

	kpr_parser_init(&p);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "80 /a\n8", 7), 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "1 relative\n", 11), -EINVAL);
	KUNIT_EXPECT_EQ(test, p.error_line, 2);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "82 /b\n", 6), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpr_parser_finish(&p), -EINVAL);
	kpr_parser_destroy(&p);
}

/* An unterminated bad last line is reported by finish, not by feed. */
static void test_kpr_parser_finish_reports_last_line(struct kunit *test)
{
	struct kpr_parser p;

	kpr_parser_init(&p);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "80 /a\n80 /b extra", 17), 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_finish(&p), -EINVAL);
	KUNIT_EXPECT_EQ(test, p.error_line, 2);
	kpr_parser_destroy(&p);
}

/* Lines up to KPR_LINE_MAX bytes parse; longer ones are refused. */
static void test_kpr_parser_line_limit(struct kunit *test)
{
	size_t len = KPR_LINE_MAX + 1;
	char *line = kunit_kzalloc(test, len + 1, GFP_KERNEL);
	struct kpr_parser p;

	KUNIT_ASSERT_NOT_NULL(test, line);
	memset(line, ' ', len);
	line[0] = '#';
	kpr_parser_init(&p);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, line, len - 1), 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, line, 1), -EINVAL);
	kpr_parser_destroy(&p);
}

/* A program path of PATH_MAX bytes or more cannot be an executable. */
static void test_kpr_parser_path_limit(struct kunit *test)
{
	char *line = kunit_kzalloc(test, KPR_PATH_MAX + 8, GFP_KERNEL);
	struct kpr_parser p;

	KUNIT_ASSERT_NOT_NULL(test, line);
	memcpy(line, "80 /", 4);
	memset(line + 4, 'a', KPR_PATH_MAX - 2);
	kpr_parser_init(&p);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, line, strlen(line)), 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_finish(&p), 0);
	kpr_parser_destroy(&p);

	line[strlen(line)] = 'a';
	kpr_parser_init(&p);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, line, strlen(line)), 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_finish(&p), -EINVAL);
	kpr_parser_destroy(&p);
}

/* KPR_POLICY_MAX_RULES rules load; one more is E2BIG. */
static void test_kpr_parser_rule_limit(struct kunit *test)
{
	struct kpr_parser p;
	unsigned int i;
	int err = 0;

	kpr_parser_init(&p);
	for (i = 0; i < KPR_POLICY_MAX_RULES && !err; i++)
		err = kpr_parser_feed(&p, "1 /a\n", 5);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "1 /a\n", 5), -E2BIG);
	KUNIT_EXPECT_EQ(test, p.error_line, KPR_POLICY_MAX_RULES + 1);
	kpr_parser_destroy(&p);
}

/* Text past KPR_POLICY_MAX_BYTES is E2BIG, even when it is all comments. */
static void test_kpr_parser_size_limit(struct kunit *test)
{
	const size_t chunk = 1 << 16;
	char *buf = kunit_kzalloc(test, chunk, GFP_KERNEL);
	struct kpr_parser p;
	size_t fed;
	int err = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (fed = 0; fed < chunk; fed++)
		buf[fed] = fed % 64 == 63 ? '\n' : '#';
	kpr_parser_init(&p);
	for (fed = 0; fed < KPR_POLICY_MAX_BYTES && !err; fed += chunk)
		err = kpr_parser_feed(&p, buf, chunk);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_EQ(test, kpr_parser_feed(&p, "\n", 1), -E2BIG);
	kpr_parser_destroy(&p);
}

/* Rules share one copy of each program, however many name it. */
static void test_kpr_parser_programs_shared(struct kunit *test)
{
	struct kpr_ruleset rs = {};
	const char *msg;
	unsigned int line;

	KUNIT_ASSERT_EQ(test, kpr_parse_policy("1 /a\n2 /b\n3 /a\n4 /a\n", 20,
					       &rs, &line, &msg), 0);
	KUNIT_EXPECT_EQ(test, rs.nr_rules, 4);
	KUNIT_EXPECT_EQ(test, rs.nr_progs, 2);
	KUNIT_EXPECT_PTR_EQ(test, rs.rules[0].prog, rs.rules[2].prog);
	KUNIT_EXPECT_PTR_EQ(test, rs.rules[0].prog, rs.rules[3].prog);
	kpr_ruleset_destroy(&rs);
}

static struct kunit_case kpr_parser_test_cases[] = {
	KUNIT_CASE_PARAM(test_kpr_parse_policy_cases, parse_gen_params),
	KUNIT_CASE(test_kpr_parser_feed_pieces),
	KUNIT_CASE(test_kpr_parser_feed_error_sticks),
	KUNIT_CASE(test_kpr_parser_finish_reports_last_line),
	KUNIT_CASE(test_kpr_parser_line_limit),
	KUNIT_CASE(test_kpr_parser_path_limit),
	KUNIT_CASE_SLOW(test_kpr_parser_rule_limit),
	KUNIT_CASE(test_kpr_parser_size_limit),
	KUNIT_CASE(test_kpr_parser_programs_shared),
	{}
};

static struct kunit_suite kpr_parser_test_suite = {
	.name = "kportreserve-parser",
	.test_cases = kpr_parser_test_cases,
};

kunit_test_suite(kpr_parser_test_suite);

MODULE_DESCRIPTION("KUnit tests of the kportreserve policy parser");
MODULE_LICENSE("GPL");
