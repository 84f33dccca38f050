// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the kportreserve policy: building, matching a bind
 * against it, the ports the kernel must not pick on its own, swapping it
 * under RCU, and the prctl() calls that make tasks forget the ids they
 * kept under it.
 */

#include <kunit/test.h>
#include <linux/in.h>
#include <linux/mutex.h>
#include <linux/prctl.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "autobind.h"
#include "identity.h"
#include "policy.h"

static const char sample_policy[] =
	"80/tcp     /usr/sbin/nginx\n"
	"443/tcp    /usr/sbin/nginx\n"
	"5353/udp   /usr/sbin/avahi-daemon\n"
	"8000-8099  /opt/app/bin/server\n"
	"8050-8060  /opt/other\n"
	"2049       <kernel>\n"
	"9899/sctp  /usr/bin/sctpd\n"
	"8080/tcp   /usr/bin/python3 uid=1000\n"
	"8081/tcp   /usr/bin/python3 gid=50\n"
	"8082/tcp   /usr/bin/python3 uid=1000 gid=50\n"
	"8082/tcp   /usr/bin/python3 uid=0\n";

/**
 * struct match_case - one bind and the verdict the sample policy gives it
 * @desc: name of the case
 * @proto: protocol of the bind
 * @port: port of the bind
 * @exe: path of the binding program; NULL for an unknown executable,
 *       KPR_KERNEL_NAME for a kernel thread
 * @uid: the effective uid of the binding task
 * @gid: the effective gid of the binding task
 * @allowed: expected verdict
 */
struct match_case {
	const char *desc;
	enum kpr_proto proto;
	u16 port;
	const char *exe;
	bool allowed;
	u32 uid;
	u32 gid;
};

#define TCP KPR_PROTO_TCP
#define UDP KPR_PROTO_UDP
#define SCTP KPR_PROTO_SCTP
#define PY "/usr/bin/python3"
#define NGINX "/usr/sbin/nginx"
#define EVIL "/usr/bin/evil"
#define SERVER "/opt/app/bin/server"
#define OTHER "/opt/other"

static const struct match_case match_cases[] = {
	{ "listed program", TCP, 80, NGINX, true },
	{ "listed program, any ids", TCP, 80, NGINX, true, 1234, 5678 },
	{ "other program", TCP, 80, EVIL, false },
	{ "tcp rule leaves udp free", UDP, 80, EVIL, true },
	{ "udp rule leaves tcp free", TCP, 5353, EVIL, true },
	{ "udp rule", UDP, 5353, EVIL, false },
	{ "udp rule, listed program", UDP, 5353, "/usr/sbin/avahi-daemon", true },
	{ "port without rule", TCP, 81, EVIL, true },
	{ "unknown executable, port without rule", TCP, 81, NULL, true },
	{ "unknown executable, reserved port", TCP, 80, NULL, false },
	{ "longer name", TCP, 80, NGINX "2", false },
	{ "shorter name", TCP, 80, "/usr/sbin/ngin", false },
	{ "below range", TCP, 7999, EVIL, true },
	{ "range start", TCP, 8000, EVIL, false },
	{ "range start, listed", TCP, 8000, SERVER, true },
	{ "range end", UDP, 8099, EVIL, false },
	{ "range end, listed", UDP, 8099, SERVER, true },
	{ "above range", UDP, 8100, EVIL, true },
	{ "overlap, first program", TCP, 8050, SERVER, true },
	{ "overlap, second program", TCP, 8050, OTHER, true },
	{ "overlap end", TCP, 8060, OTHER, true },
	{ "before overlap", TCP, 8049, OTHER, false },
	{ "after overlap", TCP, 8061, OTHER, false },
	{ "after overlap, first program", TCP, 8061, SERVER, true },
	{ "kernel rule refuses every program", UDP, 2049, "/usr/sbin/rpc.nfsd", false },
	{ "kernel rule refuses on every protocol", TCP, 2049, NGINX, false },
	{ "kernel rule refuses an unknown executable", UDP, 2049, NULL, false },
	{ "kernel rule is not a path", UDP, 2049, KPR_KERNEL_NAME, false },
	{ "lowest port", TCP, 1, EVIL, true },
	{ "highest port", UDP, 65535, EVIL, true },
	{ "sctp rule", SCTP, 9899, EVIL, false },
	{ "sctp rule, listed program", SCTP, 9899, "/usr/bin/sctpd", true },
	{ "sctp rule leaves tcp free", TCP, 9899, EVIL, true },
	{ "rule for all protocols covers sctp", SCTP, 8000, EVIL, false },
	{ "rule for all protocols, sctp, listed", SCTP, 8000, SERVER, true },
	{ "uid matches", TCP, 8080, PY, true, 1000, 1 },
	{ "uid differs", TCP, 8080, PY, false, 1001, 1 },
	{ "uid matches, other program", TCP, 8080, EVIL, false, 1000, 1 },
	{ "gid matches", TCP, 8081, PY, true, 7, 50 },
	{ "gid differs", TCP, 8081, PY, false, 50, 7 },
	{ "uid and gid match", TCP, 8082, PY, true, 1000, 50 },
	{ "uid matches, gid differs", TCP, 8082, PY, false, 1000, 51 },
	{ "second rule's uid matches", TCP, 8082, PY, true, 0, 0 },
};

static void match_case_desc(const struct match_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(match, match_cases, match_case_desc);

/* The caller as the hook gives it to @pol: @path NULL when unknown. */
static struct kpr_exe exe_of(const struct kpr_policy *pol, const char *path)
{
	struct kpr_exe exe = { .path_id = KPR_NO_PATH };

	if (path) {
		exe.path = path;
		exe.len = strlen(path);
		if (pol)
			exe.path_id = kpr_policy_path_id(pol, path, exe.len);
	}
	return exe;
}

static void policy_free_action(void *pol)
{
	kpr_policy_free(pol);
}

static struct kpr_policy *build(struct kunit *test, const char *text)
{
	struct kpr_ruleset rs = {};
	struct kpr_policy *pol;
	const char *msg;
	unsigned int line;

	KUNIT_ASSERT_EQ(test, kpr_parse_policy(text, strlen(text), &rs, &line,
					       &msg), 0);
	pol = kpr_policy_build(&rs);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pol);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test,
							   policy_free_action,
							   pol));
	return pol;
}

static void test_kpr_policy_allows_cases(struct kunit *test)
{
	const struct match_case *c = test->param_value;
	struct kpr_policy *pol = build(test, sample_policy);
	struct kpr_exe exe = exe_of(pol, c->exe);

	exe.uid = c->uid;
	exe.gid = c->gid;
	KUNIT_EXPECT_EQ(test, kpr_policy_allows(pol, c->proto, c->port, &exe),
			c->allowed);
}

/* Only ports with a rule are reserved, per protocol. */
static void test_kpr_policy_reserves_sample(struct kunit *test)
{
	struct kpr_policy *pol = build(test, sample_policy);

	KUNIT_EXPECT_TRUE(test, kpr_policy_reserves(pol, TCP, 80));
	KUNIT_EXPECT_FALSE(test, kpr_policy_reserves(pol, UDP, 80));
	KUNIT_EXPECT_TRUE(test, kpr_policy_reserves(pol, UDP, 2049));
	KUNIT_EXPECT_FALSE(test, kpr_policy_reserves(pol, TCP, 0));
	KUNIT_EXPECT_FALSE(test, kpr_policy_reserves(NULL, TCP, 80));
	KUNIT_EXPECT_TRUE(test, kpr_policy_reserves(pol, SCTP, 9899));
	KUNIT_EXPECT_FALSE(test, kpr_policy_reserves(pol, TCP, 9899));
	KUNIT_EXPECT_TRUE(test, kpr_policy_reserves(pol, SCTP, 8000));
	/* 80, 443, 5353, 2049, 9899 and the hundred ports of 8000-8099 */
	KUNIT_EXPECT_EQ(test, pol->nr_ports, 105);
	KUNIT_EXPECT_EQ(test, pol->rs.nr_rules, 11);
}

/**
 * struct autobind_case - a port the kernel considers picking on its own
 * @desc: name of the case
 * @space: the port space of the socket (enum inet_port_space)
 * @port: the candidate port
 * @reserved: whether the sample policy keeps it out of the choice
 */
struct autobind_case {
	const char *desc;
	enum inet_port_space space;
	u16 port;
	bool reserved;
};

static const struct autobind_case autobind_cases[] = {
	{ "tcp port, tcp space", INET_PORT_SPACE_TCP, 80, true },
	{ "tcp port, udp space", INET_PORT_SPACE_UDP, 80, false },
	{ "tcp port, sctp space", INET_PORT_SPACE_SCTP, 80, false },
	{ "udp port, udp space", INET_PORT_SPACE_UDP, 5353, true },
	{ "udp port, tcp space", INET_PORT_SPACE_TCP, 5353, false },
	{ "sctp port, sctp space", INET_PORT_SPACE_SCTP, 9899, true },
	{ "sctp port, tcp space", INET_PORT_SPACE_TCP, 9899, false },
	{ "all protocols, udp space", INET_PORT_SPACE_UDP, 8099, true },
	{ "all protocols, sctp space", INET_PORT_SPACE_SCTP, 8000, true },
	{ "no rule, tcp space", INET_PORT_SPACE_TCP, 8100, false },
	{ "port 0", INET_PORT_SPACE_TCP, 0, false },
};

static void autobind_case_desc(const struct autobind_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(autobind, autobind_cases, autobind_case_desc);

/* A port is kept from the kernel's choice in the spaces of its rules. */
static void test_kpr_autobind_ports_cases(struct kunit *test)
{
	const struct autobind_case *c = test->param_value;
	struct kpr_policy *pol = build(test, sample_policy);
	const unsigned long *ports[INET_PORT_SPACES] = {};
	enum inet_port_space space;

	kpr_autobind_ports(pol, ports);
	for (space = 0; space < INET_PORT_SPACES; space++)
		KUNIT_ASSERT_NOT_NULL(test, ports[space]);
	KUNIT_EXPECT_EQ(test, test_bit(c->port, ports[c->space]), c->reserved);
}

/**
 * struct prctl_case - a prctl() call and whether it may replace the
 *                     caller's executable
 * @desc: name of the case
 * @option: the prctl() option
 * @arg2: its first argument
 * @may_change: whether kept ids must be forgotten before it runs
 */
struct prctl_case {
	const char *desc;
	int option;
	unsigned long arg2;
	bool may_change;
};

static const struct prctl_case prctl_cases[] = {
	{ "PR_SET_MM_EXE_FILE", PR_SET_MM, PR_SET_MM_EXE_FILE, true },
	{ "PR_SET_MM_MAP", PR_SET_MM, PR_SET_MM_MAP, true },
	{ "PR_SET_MM_MAP_SIZE", PR_SET_MM, PR_SET_MM_MAP_SIZE, false },
	{ "PR_SET_MM_START_CODE", PR_SET_MM, PR_SET_MM_START_CODE, false },
	{ "PR_SET_MM_AUXV", PR_SET_MM, PR_SET_MM_AUXV, false },
	{ "PR_SET_NAME", PR_SET_NAME, PR_SET_MM_EXE_FILE, false },
	{ "PR_GET_DUMPABLE", PR_GET_DUMPABLE, 0, false },
	{ "PR_SET_DUMPABLE", PR_SET_DUMPABLE, PR_SET_MM_MAP, false },
};

static void prctl_case_desc(const struct prctl_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(prctl, prctl_cases, prctl_case_desc);

/* Only the two ways besides execve() to set an executable forget ids. */
static void test_kpr_exe_may_change_cases(struct kunit *test)
{
	const struct prctl_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, kpr_exe_may_change(c->option, c->arg2),
			c->may_change);
}

/* No policy and the empty policy reserve nothing. */
static void test_kpr_policy_allows_empty(struct kunit *test)
{
	struct kpr_policy *pol = build(test, "# nothing\n");
	struct kpr_exe exe = exe_of(pol, EVIL);
	unsigned int port;

	for (port = 0; port < KPR_NR_PORTS; port += 257) {
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(NULL, TCP, port, &exe));
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(pol, UDP, port, &exe));
	}
	KUNIT_EXPECT_EQ(test, pol->nr_ports, 0);
	KUNIT_EXPECT_STREQ(test, pol->text, "");
}

/* The whole port space for 64 programs: every one may bind every port. */
static void test_kpr_policy_build_full_range(struct kunit *test)
{
	const size_t size = 64 * 32;
	char *text = kunit_kzalloc(test, size, GFP_KERNEL);
	struct kpr_policy *pol;
	char path[16];
	size_t len = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < 64; i++)
		len += scnprintf(text + len, size - len, "1-65535 /bin/p%d\n", i);
	pol = build(test, text);
	KUNIT_EXPECT_EQ(test, pol->nr_ports, 65535);
	for (i = 0; i < 64; i++) {
		struct kpr_exe exe;

		scnprintf(path, sizeof(path), "/bin/p%d", i);
		exe = exe_of(pol, path);
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(pol, TCP, 1, &exe));
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(pol, UDP, 65535, &exe));
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(pol, TCP, 31337 + i, &exe));
	}
	path[1] = 'X';
	{
		struct kpr_exe exe = exe_of(pol, path);

		KUNIT_EXPECT_FALSE(test, kpr_policy_allows(pol, TCP, 443, &exe));
	}
}

/*
 * Path ids: programs that differ in their qualifiers share their path's
 * id, other paths have ids of their own, a path no rule names has none.
 */
static void test_kpr_policy_path_ids(struct kunit *test)
{
	struct kpr_policy *pol = build(test, sample_policy);
	u32 py = exe_of(pol, PY).path_id;

	KUNIT_EXPECT_NE(test, py, KPR_NO_PATH);
	KUNIT_EXPECT_NE(test, exe_of(pol, NGINX).path_id, KPR_NO_PATH);
	KUNIT_EXPECT_NE(test, exe_of(pol, NGINX).path_id, py);
	KUNIT_EXPECT_NE(test, exe_of(pol, SERVER).path_id,
			exe_of(pol, OTHER).path_id);
	KUNIT_EXPECT_EQ(test, exe_of(pol, EVIL).path_id, KPR_NO_PATH);
	KUNIT_EXPECT_EQ(test, exe_of(pol, "/usr/sbin/ngin").path_id,
			KPR_NO_PATH);
	KUNIT_EXPECT_EQ(test, exe_of(pol, NGINX "x").path_id, KPR_NO_PATH);
	KUNIT_EXPECT_EQ(test, exe_of(pol, "").path_id, KPR_NO_PATH);
}

/* 4096 paths in one table: each finds its own id through the probing. */
static void test_kpr_policy_path_ids_many(struct kunit *test)
{
	const unsigned int n = 4096;
	size_t size = n * 32, len = 0;
	char *text = kunit_kzalloc(test, size, GFP_KERNEL);
	struct kpr_exe exe, last = { .path_id = KPR_NO_PATH };
	struct kpr_policy *pol;
	char path[32];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < n; i++)
		len += scnprintf(text + len, size - len, "%u /srv/p%u\n",
				 i + 1, i);
	pol = build(test, text);
	for (i = 0; i < n; i++) {
		scnprintf(path, sizeof(path), "/srv/p%u", i);
		exe = exe_of(pol, path);
		KUNIT_ASSERT_NE(test, exe.path_id, KPR_NO_PATH);
		KUNIT_EXPECT_NE(test, exe.path_id, last.path_id);
		KUNIT_EXPECT_TRUE(test, kpr_policy_allows(pol, TCP, i + 1, &exe));
		/* The next port is the next program's. */
		if (i + 1 < n)
			KUNIT_EXPECT_FALSE(test, kpr_policy_allows(pol, TCP, i + 2,
								   &exe));
		last = exe;
	}
	KUNIT_EXPECT_EQ(test, exe_of(pol, "/srv/p4096").path_id, KPR_NO_PATH);
}

/* Nested ranges of distinct programs past KPR_MAX_SET_ENTRIES are E2BIG. */
static void test_kpr_policy_build_overlap_limit(struct kunit *test)
{
	const unsigned int n = 8192;
	struct kpr_ruleset rs = {};
	struct kpr_policy *pol;
	const char *msg;
	unsigned int i, line;
	size_t size = n * 32, len = 0;
	char *text = kvzalloc(size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < n; i++)
		len += scnprintf(text + len, size - len, "%u-%u /p%u\n",
				 i + 1, 65535 - i, i);
	KUNIT_ASSERT_EQ(test, kpr_parse_policy(text, len, &rs, &line, &msg), 0);
	kvfree(text);
	pol = kpr_policy_build(&rs);
	KUNIT_EXPECT_EQ(test, PTR_ERR(pol), -E2BIG);
	/* On failure the rules stay with the caller. */
	KUNIT_EXPECT_EQ(test, rs.nr_rules, n);
	kpr_ruleset_destroy(&rs);
}

/* The canonical text of a policy is its rules, one a line, in order. */
static void test_kpr_policy_build_text(struct kunit *test)
{
	struct kpr_policy *pol = build(test, sample_policy);

	KUNIT_EXPECT_STREQ(test, pol->text,
			   "80/tcp /usr/sbin/nginx\n"
			   "443/tcp /usr/sbin/nginx\n"
			   "2049 <kernel>\n"
			   "5353/udp /usr/sbin/avahi-daemon\n"
			   "8000-8099 /opt/app/bin/server\n"
			   "8050-8060 /opt/other\n"
			   "8080/tcp /usr/bin/python3 uid=1000\n"
			   "8081/tcp /usr/bin/python3 gid=50\n"
			   "8082/tcp /usr/bin/python3 uid=0\n"
			   "8082/tcp /usr/bin/python3 uid=1000 gid=50\n"
			   "9899/sctp /usr/bin/sctpd\n");
	KUNIT_EXPECT_EQ(test, pol->text_len, strlen(pol->text));
}

/*
 * Replacing publishes a whole policy: readers before it see the old one,
 * readers after it the new one, and generations count up. The suite uses
 * a slot of its own: the policy in force, and the boot policy a kernel
 * built with these tests may have, are never touched. That a reader
 * inside rcu_read_lock() may keep using the old policy while it is
 * replaced is what the reload_while_binding selftest hammers under KASAN.
 */
static void test_kpr_policy_replace_publishes_whole(struct kunit *test)
{
	static DEFINE_MUTEX(slot_lock);
	struct kpr_policy __rcu *slot = NULL;
	struct kpr_policy *a, *b, *old;
	const struct kpr_policy *seen;
	struct kpr_exe exe = exe_of(NULL, EVIL);
	u64 live = kpr_policy_generation();

	a = build(test, "80 /a\n");
	b = build(test, "81 /b\n");

	mutex_lock(&slot_lock);
	old = kpr_policy_replace(&slot, a, &slot_lock);
	mutex_unlock(&slot_lock);
	KUNIT_EXPECT_NULL(test, old);
	KUNIT_EXPECT_EQ(test, a->generation, 1);
	rcu_read_lock();
	seen = rcu_dereference(slot);
	KUNIT_EXPECT_PTR_EQ(test, seen, a);
	KUNIT_EXPECT_FALSE(test, kpr_policy_allows(seen, TCP, 80, &exe));
	KUNIT_EXPECT_TRUE(test, kpr_policy_allows(seen, TCP, 81, &exe));
	KUNIT_EXPECT_STREQ(test, seen->text, "80 /a\n");
	rcu_read_unlock();

	mutex_lock(&slot_lock);
	old = kpr_policy_replace(&slot, b, &slot_lock);
	mutex_unlock(&slot_lock);
	KUNIT_EXPECT_PTR_EQ(test, old, a);
	KUNIT_EXPECT_EQ(test, b->generation, 2);
	rcu_read_lock();
	seen = rcu_dereference(slot);
	KUNIT_EXPECT_PTR_EQ(test, seen, b);
	KUNIT_EXPECT_TRUE(test, kpr_policy_allows(seen, TCP, 80, &exe));
	KUNIT_EXPECT_FALSE(test, kpr_policy_allows(seen, TCP, 81, &exe));
	rcu_read_unlock();

	/* Both are still freed by build()'s actions, after a grace period. */
	synchronize_rcu();
	KUNIT_EXPECT_EQ(test, kpr_policy_generation(), live);
}

/* A load is named in audit by the sha256 of its canonical text. */
static void test_kpr_policy_digest(struct kunit *test)
{
	static const u8 empty[SHA256_DIGEST_SIZE] = {
		0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14,
		0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
		0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c,
		0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
	};
	struct kpr_policy *pol = build(test, "# nothing\n");
	struct kpr_policy *same = build(test, "80/tcp   /a\n");
	struct kpr_policy *canon = build(test, "80/tcp /a\n");
	u8 want[SHA256_DIGEST_SIZE];

	KUNIT_EXPECT_EQ(test, memcmp(pol->digest, empty, sizeof(empty)), 0);
	sha256((const u8 *)"80/tcp /a\n", 10, want);
	KUNIT_EXPECT_EQ(test, memcmp(canon->digest, want, sizeof(want)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(same->digest, want, sizeof(want)), 0);
}

static struct kunit_case kpr_policy_test_cases[] = {
	KUNIT_CASE_PARAM(test_kpr_policy_allows_cases, match_gen_params),
	KUNIT_CASE(test_kpr_policy_reserves_sample),
	KUNIT_CASE_PARAM(test_kpr_autobind_ports_cases, autobind_gen_params),
	KUNIT_CASE_PARAM(test_kpr_exe_may_change_cases, prctl_gen_params),
	KUNIT_CASE(test_kpr_policy_allows_empty),
	KUNIT_CASE(test_kpr_policy_build_full_range),
	KUNIT_CASE(test_kpr_policy_path_ids),
	KUNIT_CASE(test_kpr_policy_path_ids_many),
	KUNIT_CASE(test_kpr_policy_build_overlap_limit),
	KUNIT_CASE(test_kpr_policy_build_text),
	KUNIT_CASE(test_kpr_policy_replace_publishes_whole),
	KUNIT_CASE(test_kpr_policy_digest),
	{}
};

static struct kunit_suite kpr_policy_test_suite = {
	.name = "kportreserve-policy",
	.test_cases = kpr_policy_test_cases,
};

kunit_test_suite(kpr_policy_test_suite);

MODULE_DESCRIPTION("KUnit tests of the kportreserve policy");
MODULE_LICENSE("GPL");
