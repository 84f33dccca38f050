// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve selftests: what an administrator lives with. Permissive
 * mode, the lock, the boot policy, audit records, per-port denial figures
 * and uid=/gid= qualifiers, in a booted kernel with kportreserve enabled.
 *
 * The lock cannot be undone, and the boot policy and boot parameters are
 * seen only right after boot, so their tests run only when the VM that
 * boots for them says so in the environment (see selftest.sh):
 *   KPR_BOOT_POLICY_PORT=N   the boot policy reserves N/tcp, and init
 *                            tried to bind it with busybox nc
 *   KPR_BOOT_LOG=FILE        the kernel log saved right after that
 *   KPR_BOOT_MODE=M          booted with kportreserve.mode=M
 *   KPR_LOCK_TEST=1          this boot may be locked by the tests
 *   KPR_LOCKED_AT_BOOT=1     booted with kportreserve.lock=1
 */

#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/time.h>

#include "common.h"

/* Until the system's headers know them. */
#ifndef AUDIT_KPORTRESERVE_ACCESS
#define AUDIT_KPORTRESERVE_ACCESS		1430
#define AUDIT_KPORTRESERVE_POLICY_LOAD		1431
#define AUDIT_KPORTRESERVE_CONFIG_CHANGE	1432
#ifndef AUDIT_MAC_STATUS
#define AUDIT_MAC_STATUS			1404
#endif
#endif
#ifndef MAX_AUDIT_MESSAGE_LENGTH
#define MAX_AUDIT_MESSAGE_LENGTH 8970
#endif

#define PORT_MODE	26000
#define PORT_DENIALS	26100
#define PORT_AUDIT	26200
#define PORT_IDS	26300

static char *mode_now(void)
{
	return read_file(MODE);
}

/* ---- permissive mode ---- */

FIXTURE(mode) {};

FIXTURE_SETUP(mode)
{
	ASSERT_EQ(0, make_programs());
	if (getenv("KPR_LOCK_TEST") || getenv("KPR_LOCKED_AT_BOOT"))
		SKIP(return, "a boot for the lock tests");
}

FIXTURE_TEARDOWN(mode)
{
	write_file(MODE, "enforce\n");
	load_policy("");
}

TEST_F(mode, permissive_allows_and_counts)
{
	long long denied = stat_value("denied");
	long long would = stat_value("would_deny");
	long long allowed = stat_value("allowed");
	char *mode;

	ASSERT_EQ(0, load_policy("26000/tcp " OWNER "\n"));
	mode = mode_now();
	EXPECT_STREQ("enforce\n", mode);
	free(mode);
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", PORT_MODE, ""));

	ASSERT_EQ(0, write_file(MODE, "permissive\n"));
	mode = mode_now();
	EXPECT_STREQ("permissive\n", mode);
	free(mode);
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", PORT_MODE, ""));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "6", "tcp", PORT_MODE, ""));
	EXPECT_EQ(0, bind_as(OWNER, "4", "tcp", PORT_MODE, ""));

	ASSERT_EQ(0, write_file(MODE, "enforce"));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", PORT_MODE, ""));

	EXPECT_EQ(denied + 2, stat_value("denied"));
	EXPECT_EQ(would + 2, stat_value("would_deny"));
	EXPECT_EQ(allowed + 1, stat_value("allowed"));
}

TEST_F(mode, bad_words_are_refused)
{
	static const char *const bad[] = {
		"", "enforcing", "Permissive", "permissive\n\n", "1", "0",
		"permissive enforce",
	};
	size_t i;
	char *mode;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		TH_LOG("mode %zu: \"%s\"", i, bad[i]);
		EXPECT_EQ(-EINVAL, write_file(MODE, bad[i]));
	}
	mode = mode_now();
	EXPECT_STREQ("enforce\n", mode);
	free(mode);
}

TEST_F(mode, unprivileged_user_cannot_switch)
{
	pid_t pid = fork();

	if (!pid) {
		if (setresuid(1000, 1000, 1000))
			_exit(1);
		_exit(write_file(MODE, "permissive") == -EACCES &&
		      write_file(LOCK, "1") == -EACCES ? 0 : 2);
	}
	EXPECT_EQ(0, wait_exit(pid));
	pid = fork();
	if (!pid) {
		/* Root of a user namespace lacks CAP_MAC_ADMIN over init's. */
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		_exit(write_file(MODE, "permissive") == -EPERM ? 0 : 2);
	}
	EXPECT_EQ(0, wait_exit(pid));
}

TEST_F(mode, file_modes)
{
	struct stat st;
	char *mode;

	ASSERT_EQ(0, stat(MODE, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	ASSERT_EQ(0, stat(LOCK, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
	/* It names other users' processes: root only. */
	ASSERT_EQ(0, stat(DENIALS, &st));
	EXPECT_EQ(0400, st.st_mode & 07777);
	/* The modes let root in; without CAP_MAC_ADMIN root is refused. */
	EXPECT_EQ(EPERM, write_without_mac_admin(MODE, "permissive"));
	mode = read_file(MODE);
	EXPECT_STREQ("enforce\n", mode);
	free(mode);
	/* "0" is refused anyway: a broken check must not lock this boot. */
	EXPECT_EQ(EPERM, write_without_mac_admin(LOCK, "0"));
}

/* ---- per-port denial figures ---- */

/* The line of the denials file for PORT/PROTO, or "" if none. */
static char *denials_line(int port, const char *proto)
{
	char *text = read_file(DENIALS), *line, *end, key[32];
	char *found = strdup("");

	snprintf(key, sizeof(key), "%d/%s ", port, proto);
	for (line = text; line && *line; line = end + 1) {
		end = strchrnul(line, '\n');
		if (!strncmp(line, key, strlen(key))) {
			free(found);
			found = strndup(line, end - line);
		}
		if (!*end)
			break;
	}
	free(text);
	return found;
}

TEST(denials_name_the_last_offender)
{
	char want[256], *line;
	const char *const argv[] = { IMPOSTOR, "--bind", "4", "udp", "26100",
				     "", NULL };
	pid_t pid;

	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy("26100 " OWNER "\n"));
	line = denials_line(PORT_DENIALS, "udp");
	EXPECT_STREQ("", line);
	free(line);

	EXPECT_EQ(EADDRINUSE, bind_as(SECOND, "4", "udp", PORT_DENIALS, ""));
	EXPECT_EQ(0, bind_as(OWNER, "4", "udp", PORT_DENIALS, ""));
	pid = fork();
	if (!pid) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(EADDRINUSE, wait_exit(pid));

	snprintf(want, sizeof(want),
		 "26100/udp denied=2 would_deny=0 pid=%d exe=%s", pid, IMPOSTOR);
	line = denials_line(PORT_DENIALS, "udp");
	EXPECT_STREQ(want, line);
	free(line);
	line = denials_line(PORT_DENIALS, "tcp");
	EXPECT_STREQ("", line);
	free(line);
	load_policy("");
}

/* ---- uid= and gid= ---- */

/* Run PROG as UID:GID to bind PORT/tcp; returns 0 or the errno it got. */
static int bind_with_ids(const char *prog, int uid, int gid, int port)
{
	char ubuf[16], gbuf[16], pbuf[16];
	const char *const argv[] = { prog, "--setid", ubuf, gbuf, prog,
				     "--bind", "4", "tcp", pbuf, "", NULL };

	snprintf(ubuf, sizeof(ubuf), "%d", uid);
	snprintf(gbuf, sizeof(gbuf), "%d", gid);
	snprintf(pbuf, sizeof(pbuf), "%d", port);
	return run(argv);
}

TEST(uid_and_gid_qualify_the_program)
{
	ASSERT_EQ(0, make_programs());
	/* Unprivileged ports: the ids, not capabilities, decide. */
	ASSERT_EQ(0, load_policy("26300/tcp " OWNER " uid=1000\n"
				 "26301/tcp " OWNER " gid=2000\n"
				 "26302/tcp " OWNER " uid=1000 gid=2000\n"
				 "26302/tcp " SECOND "\n"));
	EXPECT_EQ(0, bind_with_ids(OWNER, 1000, 100, PORT_IDS));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(OWNER, 1001, 100, PORT_IDS));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(OWNER, 0, 0, PORT_IDS));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(IMPOSTOR, 1000, 100, PORT_IDS));

	EXPECT_EQ(0, bind_with_ids(OWNER, 1001, 2000, PORT_IDS + 1));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(OWNER, 2000, 1000, PORT_IDS + 1));

	EXPECT_EQ(0, bind_with_ids(OWNER, 1000, 2000, PORT_IDS + 2));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(OWNER, 1000, 2001, PORT_IDS + 2));
	EXPECT_EQ(EADDRINUSE, bind_with_ids(OWNER, 1001, 2000, PORT_IDS + 2));
	EXPECT_EQ(0, bind_with_ids(SECOND, 1234, 1234, PORT_IDS + 2));
	load_policy("");
}

TEST(qualifiers_read_back_canonical)
{
	char *back;

	ASSERT_EQ(0, load_policy("26310/sctp /usr/bin/x gid=7 uid=5\n"
				 "26310/sctp /usr/bin/x\n"));
	back = read_policy();
	EXPECT_STREQ("26310/sctp /usr/bin/x\n26310/sctp /usr/bin/x uid=5 gid=7\n",
		     back);
	free(back);
	EXPECT_EQ(-EINVAL, load_policy("26310 /usr/bin/x uid=-1\n"));
	EXPECT_EQ(-EINVAL, load_policy("26310 /usr/bin/x uid=1 uid=2\n"));
	EXPECT_EQ(-EINVAL, load_policy("26310 <kernel> uid=0\n"));
	load_policy("");
}

/* ---- audit records, read from the audit netlink socket ---- */

struct audit_reader {
	int fd;
};

/* Become the audit daemon, so records come to this socket. */
static int audit_open(struct audit_reader *ar, bool on)
{
	struct {
		struct nlmsghdr nh;
		struct audit_status s;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = AUDIT_SET,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.s = { .mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID,
		       .enabled = 1, .pid = on ? getpid() : 0 },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };

	if (on) {
		ar->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				NETLINK_AUDIT);
		if (ar->fd < 0)
			return -errno;
		setsockopt(ar->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (sendto(ar->fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	if (!on)
		close(ar->fd);
	return 0;
}

/*
 * Wait for a record of TYPE whose text holds every string of WANT (a
 * NULL-terminated list); returns it (free() it) or NULL after 2 s quiet.
 */
static char *audit_find(struct audit_reader *ar, int type,
			const char *const *want)
{
	char buf[MAX_AUDIT_MESSAGE_LENGTH + NLMSG_HDRLEN + 1];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;

	for (;;) {
		ssize_t n = recv(ar->fd, buf, sizeof(buf) - 1, 0);
		const char *const *w;
		char *text;

		if (n < 0)
			return NULL;
		if (n < NLMSG_HDRLEN || nh->nlmsg_type != type)
			continue;
		buf[n] = '\0';
		text = (char *)NLMSG_DATA(nh);
		for (w = want; *w && strstr(text, *w); w++)
			;
		if (!*w)
			return strdup(text);
	}
}

TEST(audit_records_denials_loads_and_modes)
{
	struct audit_reader ar;
	char pidbuf[32], *rec;
	const char *const load[] = { "op=load", "rules=1", "ports=1",
				     " policy_digest=sha256:",
				     "lsm=kportreserve", "auid=", "ses=",
				     "res=1", NULL };
	const char *const deny[] = { "lsm=kportreserve", "op=bind",
				     "proto=tcp", " lport=26200 ",
				     "laddr=0.0.0.0", pidbuf, " uid=0 euid=0 ",
				     "auid=", "ses=", "comm=",
				     "exe=\"" IMPOSTOR "\"", "permissive=0",
				     "res=0", NULL };
	const char *const deny6[] = { " lport=26200 ", "laddr=::", NULL };
	const char *const mode[] = { "enforcing=0 old_enforcing=1 auid=",
				     " enabled=1 old-enabled=1 lsm=kportreserve res=1",
				     NULL };
	const char *const would[] = { " lport=26200 ", "permissive=1",
				      "res=1", NULL };
	const char *const argv[] = { IMPOSTOR, "--bind", "4", "tcp", "26200",
				     "", NULL };
	pid_t pid;

	if (getenv("KPR_LOCK_TEST") || getenv("KPR_LOCKED_AT_BOOT"))
		SKIP(return, "a boot for the lock tests");
	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, audit_open(&ar, true));

	ASSERT_EQ(0, load_policy("26200/tcp " OWNER "\n"));
	rec = audit_find(&ar, AUDIT_KPORTRESERVE_POLICY_LOAD, load);
	EXPECT_NE(NULL, rec) TH_LOG("no policy load record");
	free(rec);

	pid = fork();
	if (!pid) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(EADDRINUSE, wait_exit(pid));
	snprintf(pidbuf, sizeof(pidbuf), " pid=%d ", pid);
	rec = audit_find(&ar, AUDIT_KPORTRESERVE_ACCESS, deny);
	EXPECT_NE(NULL, rec) TH_LOG("no denial record");
	free(rec);
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "6", "tcp", PORT_AUDIT, ""));
	rec = audit_find(&ar, AUDIT_KPORTRESERVE_ACCESS, deny6);
	EXPECT_NE(NULL, rec) TH_LOG("no IPv6 denial record");
	free(rec);

	ASSERT_EQ(0, write_file(MODE, "permissive"));
	rec = audit_find(&ar, AUDIT_MAC_STATUS, mode);
	EXPECT_NE(NULL, rec) TH_LOG("no mode change record");
	free(rec);
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", PORT_AUDIT, ""));
	rec = audit_find(&ar, AUDIT_KPORTRESERVE_ACCESS, would);
	EXPECT_NE(NULL, rec) TH_LOG("no permissive denial record");
	free(rec);

	write_file(MODE, "enforce");
	load_policy("");
	audit_open(&ar, false);
}

/* ---- the boot policy and the boot parameters ---- */

/* Index of the first kernel log line holding NEEDLE, or -1. */
static int kmsg_find(const char *needle)
{
	char rec[2048];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	int i = 0, found = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (found < 0 && (n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten records */
			break;
		}
		rec[n] = '\0';
		if (strstr(rec, needle))
			found = i;
		i++;
	}
	close(fd);
	return found;
}

/* Index of the first line of the saved log FILE holding NEEDLE, or -1. */
static int log_find(const char *file, const char *needle)
{
	char *text = read_file(file), *line, *end;
	int i = 0, found = -1;

	for (line = text; line && *line && found < 0; line = end + 1, i++) {
		end = strchrnul(line, '\n');
		if (memmem(line, end - line, needle, strlen(needle)))
			found = i;
		if (!*end)
			break;
	}
	free(text);
	return found;
}

TEST(boot_policy_in_force_before_init)
{
	const char *port = getenv("KPR_BOOT_POLICY_PORT");
	const char *log = getenv("KPR_BOOT_LOG");
	char denied[64];
	int loaded, init;

	if (!port || !log)
		SKIP(return, "not booted with a boot policy probe");
	loaded = log_find(log, "kportreserve: policy generation 1 loaded");
	init = log_find(log, "Run /init as init process");
	ASSERT_LE(0, loaded);
	ASSERT_LE(0, init);
	EXPECT_LT(loaded, init);
	/* init's first program was refused the port before any test ran. */
	snprintf(denied, sizeof(denied), "denied bind to %s/tcp: ", port);
	EXPECT_LT(init, log_find(log, denied));
}

FIXTURE(lock) {};

FIXTURE_SETUP(lock)
{
	ASSERT_EQ(0, make_programs());
}

FIXTURE_TEARDOWN(lock)
{
}

/* Run in a boot with kportreserve.mode=permissive; locks it. */
TEST_F(lock, lock_is_one_way)
{
	struct audit_reader ar;
	const char *const locked[] = { "op=lock", "locked=1", "res=1", NULL };
	char *text;
	int fd;

	/* Here, not in the setup: 6.1's harness runs a test that skipped there. */
	if (!getenv("KPR_LOCK_TEST"))
		SKIP(return, "the lock cannot be undone: set KPR_LOCK_TEST=1");
	text = mode_now();
	EXPECT_STREQ("permissive\n", text) TH_LOG("kportreserve.mode= ignored");
	free(text);
	ASSERT_EQ(0, write_file(MODE, "enforce"));
	ASSERT_EQ(0, load_policy("26400/tcp " OWNER "\n"));
	text = read_file(LOCK);
	EXPECT_STREQ("0\n", text);
	free(text);
	EXPECT_EQ(-EINVAL, write_file(LOCK, "0"));
	EXPECT_EQ(-EINVAL, write_file(LOCK, "2"));

	/* A load begun before the lock and closed after it fails at close. */
	fd = open(POLICY, O_WRONLY | O_TRUNC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_all(fd, "26401/tcp /x\n", 13));

	ASSERT_EQ(0, audit_open(&ar, true));
	ASSERT_EQ(0, write_file(LOCK, "1\n"));
	text = audit_find(&ar, AUDIT_KPORTRESERVE_CONFIG_CHANGE, locked);
	EXPECT_NE(NULL, text) TH_LOG("no lock record");
	free(text);
	audit_open(&ar, false);

	text = read_file(LOCK);
	EXPECT_STREQ("1\n", text);
	free(text);
	EXPECT_EQ(-1, close(fd));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, write_file(LOCK, "1"));
	EXPECT_EQ(-EPERM, write_file(LOCK, "0"));
	EXPECT_EQ(-EPERM, load_policy(""));
	EXPECT_EQ(-EPERM, write_file(MODE, "permissive"));
	EXPECT_LE(0, kmsg_find("policy is locked until reboot"));
	EXPECT_LE(0, kmsg_find("mode is locked until reboot"));

	text = read_policy();
	EXPECT_STREQ("26400/tcp " OWNER "\n", text);
	free(text);
	text = mode_now();
	EXPECT_STREQ("enforce\n", text);
	free(text);
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 26400, ""));
}

TEST(locked_at_boot_keeps_boot_policy)
{
	char *text;

	if (!getenv("KPR_LOCKED_AT_BOOT"))
		SKIP(return, "not booted with kportreserve.lock=1");
	text = read_file(LOCK);
	EXPECT_STREQ("1\n", text);
	free(text);
	EXPECT_EQ(1, stat_value("generation"));
	EXPECT_EQ(-EPERM, load_policy(""));
	EXPECT_EQ(-EPERM, write_file(MODE, "permissive"));
	EXPECT_EQ(1, stat_value("generation"));
	EXPECT_LT(0, stat_value("rules"));
}

int main(int argc, char **argv)
{
	if (is_binder(argc, argv))
		return binder_main(argc, argv);
	return test_harness_run(argc, argv);
}
