// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve selftests: automatic port assignment.
 *
 * socket_bind never sees the port the kernel picks for bind() to port 0,
 * listen() or connect() on an unbound socket, or sendto() on an unbound
 * UDP socket. The test narrows ip_local_port_range to two ports: RESERVED,
 * which the policy reserves for another program, and FREE, which a socket
 * of the test holds (the allocator would otherwise take FREE and the test
 * could not fail). Every path must then fail, and never hand out RESERVED;
 * with FREE released, every path must get FREE. The administrator's
 * ip_local_reserved_ports is neither written by kportreserve nor able to
 * reopen a reserved port.
 *
 * The kernel's own clients choose privileged source ports themselves:
 * 9p's privport walks down from 1023, the RPC client (NFS) starts at a
 * random port of sunrpc.min_resvport-max_resvport. A listener of the test
 * stands in for the server and reads the port each client came from.
 */

#include "common.h"

#define FREE		40000
#define RESERVED	40001
#define PEER		27000
#define RANGE		"/proc/sys/net/ipv4/ip_local_port_range"
#define RESERVED_PORTS	"/proc/sys/net/ipv4/ip_local_reserved_ports"

FIXTURE(autobind) {
	char *old_range;
	char *old_reserved;
	int held[2];
	int peer;
};

FIXTURE_VARIANT(autobind) {
	const char *family;
	const char *type;
	const char *how;
	bool needs_peer;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(autobind, tcp4_bind0) {
	.family = "4", .type = "tcp", .how = "bind0",
};

FIXTURE_VARIANT_ADD(autobind, tcp6_bind0) {
	.family = "6", .type = "tcp", .how = "bind0",
};

FIXTURE_VARIANT_ADD(autobind, tcp4_listen) {
	.family = "4", .type = "tcp", .how = "listen",
};

FIXTURE_VARIANT_ADD(autobind, tcp4_connect) {
	.family = "4", .type = "tcp", .how = "connect", .needs_peer = true,
};

FIXTURE_VARIANT_ADD(autobind, tcp6_connect) {
	.family = "6", .type = "tcp", .how = "connect", .needs_peer = true,
};

FIXTURE_VARIANT_ADD(autobind, udp4_bind0) {
	.family = "4", .type = "udp", .how = "bind0",
};

FIXTURE_VARIANT_ADD(autobind, udp6_bind0) {
	.family = "6", .type = "udp", .how = "bind0",
};

FIXTURE_VARIANT_ADD(autobind, udp4_connect) {
	.family = "4", .type = "udp", .how = "connect",
};

FIXTURE_VARIANT_ADD(autobind, udp4_sendto) {
	.family = "4", .type = "udp", .how = "sendto",
};

FIXTURE_VARIANT_ADD(autobind, udp6_sendto) {
	.family = "6", .type = "udp", .how = "sendto",
};

FIXTURE_VARIANT_ADD(autobind, sctp4_bind0) {
	.family = "4", .type = "sctp", .how = "bind0",
};

/* clang-format on */

/* Bind a socket of FAMILY and TYPE to PORT on the wildcard address. */
static int hold(char family, const char *type, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, port, &ss);
	int fd = make_socket(family, type);

	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

FIXTURE_SETUP(autobind)
{
	const char *other = strcmp(variant->type, "tcp") ? "tcp" : "udp";

	self->held[0] = -1;
	self->held[1] = -1;
	self->peer = -1;
	ASSERT_EQ(0, make_programs());
	self->old_range = read_file(RANGE);
	ASSERT_NE(NULL, self->old_range);
	self->old_reserved = read_file(RESERVED_PORTS);
	ASSERT_NE(NULL, self->old_reserved);
	ASSERT_EQ(0, write_file(RANGE, "40000 40001"));
	ASSERT_EQ(0, load_policy("40001 " OWNER "\n"));
	/* FREE is taken for the protocol under test, and for another. */
	self->held[0] = hold(variant->family[0], variant->type, FREE);
	self->held[1] = hold('4', other, FREE);
	ASSERT_LE(0, self->held[0]);
	if (variant->needs_peer) {
		self->peer = hold(variant->family[0], "tcp", PEER);
		ASSERT_LE(0, self->peer);
		ASSERT_EQ(0, listen(self->peer, 8));
	}
}

FIXTURE_TEARDOWN(autobind)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->held[i] >= 0)
			close(self->held[i]);
	if (self->peer >= 0)
		close(self->peer);
	load_policy("");
	if (self->old_range)
		write_file(RANGE, self->old_range);
	if (self->old_reserved)
		write_file(RESERVED_PORTS, self->old_reserved);
	free(self->old_range);
	free(self->old_reserved);
}

#define AUTO(prog, port) auto_as(prog, variant->family, variant->type, \
				 variant->how, PEER, port)

TEST_F(autobind, reserved_port_is_never_assigned)
{
	int port = -1;

	/* FREE held, RESERVED reserved: nothing left to assign. */
	EXPECT_NE(0, AUTO(IMPOSTOR, &port));
	EXPECT_NE(RESERVED, port);
	/* Nor to the program the port is reserved for: it binds it by number. */
	EXPECT_NE(0, AUTO(OWNER, &port));
	EXPECT_NE(RESERVED, port);
	EXPECT_EQ(0, bind_as(OWNER, variant->family, variant->type, RESERVED, ""));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, variant->family, variant->type,
				      RESERVED, ""));

	/* FREE released: that is the port every path gets. */
	close(self->held[0]);
	self->held[0] = -1;
	EXPECT_EQ(0, AUTO(IMPOSTOR, &port));
	EXPECT_EQ(FREE, port);
}

TEST_F(autobind, without_policy_reserved_port_is_assigned)
{
	int port = -1;

	/* The control: the same set-up without the rule hands out RESERVED. */
	ASSERT_EQ(0, load_policy(""));
	EXPECT_EQ(0, AUTO(IMPOSTOR, &port));
	EXPECT_EQ(RESERVED, port);
}

TEST_F(autobind, sysctl_writes_reopen_nothing)
{
	int port = -1;

	/*
	 * What sysctl --system, kubelet or an administrator may write: an
	 * empty list, and one that names other ports. Neither hands
	 * RESERVED out.
	 */
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "\n"));
	EXPECT_NE(0, AUTO(IMPOSTOR, &port));
	EXPECT_NE(RESERVED, port);
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "50000-50010"));
	EXPECT_NE(0, AUTO(IMPOSTOR, &port));
	EXPECT_NE(RESERVED, port);
	/* A policy loaded after the write holds as well. */
	ASSERT_EQ(0, load_policy("40001 " OWNER "\n"));
	EXPECT_NE(0, AUTO(IMPOSTOR, &port));
	EXPECT_NE(RESERVED, port);
}

TEST_F(autobind, another_protocols_reservation_is_assigned)
{
	const char *other = strcmp(variant->type, "tcp") ? "tcp" : "udp";
	char policy[128];
	int port = -1;

	/* RESERVED is reserved, but for another protocol than this one. */
	snprintf(policy, sizeof(policy), "40001/%s " OWNER "\n", other);
	ASSERT_EQ(0, load_policy(policy));
	EXPECT_EQ(0, AUTO(IMPOSTOR, &port));
	EXPECT_EQ(RESERVED, port);
}

/*
 * A load replaces the reserved ports while the kernel picks ports: a port
 * that the old and the new policy both reserve is never handed out in
 * between. A child loads two such policies in turn, 400 times, while
 * the test binds to port 0 with RESERVED the only port the allocator
 * could give (FREE is held). It catches a load that leaves the port open
 * for long; a window of a few words' copy (a fold through "neither")
 * went unseen in 23,445 binds during 2,000 loads on QEMU's TCG, so that
 * one rests on the fold's one store a word.
 */
TEST(reserved_in_both_policies_stays_reserved_during_loads)
{
	static const char *const policies[] = {
		"40001 " OWNER "\n41000-41999 " OWNER "\n",
		"40001 " OWNER "\n42000/udp " OWNER "\n50000-59999 " OWNER "\n",
	};
	char *old_range = read_file(RANGE);
	int status, held, rounds = 0, handed_out = 0;
	struct sockaddr_storage ss;
	pid_t pid;

	ASSERT_NE(NULL, old_range);
	ASSERT_EQ(0, write_file(RANGE, "40000 40001"));
	ASSERT_EQ(0, load_policy(policies[0]));
	held = hold('4', "tcp", FREE);
	ASSERT_LE(0, held);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int i;

		for (i = 1; i <= 400; i++)
			if (load_policy(policies[i % 2]))
				_exit(1);
		_exit(0);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		socklen_t len = make_addr('4', 0, &ss);
		int fd = make_socket('4', "tcp");

		ASSERT_LE(0, fd);
		if (!bind(fd, (struct sockaddr *)&ss, len) &&
		    local_port(fd) == RESERVED)
			handed_out++;
		close(fd);
		rounds++;
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, handed_out);
	TH_LOG("%d binds to port 0 during 400 loads", rounds);
	close(held);
	load_policy("");
	write_file(RANGE, old_range);
	free(old_range);
}

/* Whether ip_local_reserved_ports lists PORT, alone or in a range. */
static bool sysctl_reserves(int port)
{
	char *text = read_file(RESERVED_PORTS), *tok, *save = NULL;
	bool found = false;

	for (tok = strtok_r(text, ",\n", &save); tok && !found;
	     tok = strtok_r(NULL, ",\n", &save)) {
		int first, last;
		int n = sscanf(tok, "%d-%d", &first, &last);

		if (n == 1)
			last = first;
		found = n >= 1 && first <= port && port <= last;
	}
	free(text);
	return found;
}

TEST(sysctl_reads_back_what_the_admin_wrote)
{
	char *old = read_file(RESERVED_PORTS), *now;

	ASSERT_NE(NULL, old);
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "41005"));
	ASSERT_EQ(0, load_policy("41000-41002/udp /x\n41005 /x\n41010/sctp /x\n"));
	now = read_file(RESERVED_PORTS);
	EXPECT_STREQ("41005\n", now);
	free(now);
	EXPECT_FALSE(sysctl_reserves(41000));
	EXPECT_FALSE(sysctl_reserves(41010));

	/* The administrator's own reservation is theirs to drop. */
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "\n"));
	ASSERT_EQ(0, load_policy("41005 /x\n"));
	EXPECT_FALSE(sysctl_reserves(41005));
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "41005"));
	ASSERT_EQ(0, load_policy(""));
	EXPECT_TRUE(sysctl_reserves(41005));
	write_file(RESERVED_PORTS, old);
	free(old);
}

#define KCLIENT_MNT	WORKDIR "/mnt"
#define KCLIENT_SERVER	5640

/*
 * Mount FSTYPE with OPTIONS in a child, against a listener on 127.0.0.1
 * that accepts the kernel client's first connection and closes it at once
 * (the server closes first, so that the client's port is not left in
 * TIME_WAIT). Returns the client's source port, or -1 when none came in
 * TIMEOUT_MS.
 */
static int kernel_client_port(const char *fstype, const char *source,
			      const char *options, int timeout_ms)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(KCLIENT_SERVER),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(sin);
	struct pollfd pfd;
	int one = 1, lfd, cfd, port = -1;
	pid_t pid;

	mkdir(WORKDIR, 0755);
	mkdir(KCLIENT_MNT, 0755);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 8)) {
		if (lfd >= 0)
			close(lfd);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		alarm(60);
		/* It fails: the server hangs up. Success is unmounted. */
		if (!mount(source, KCLIENT_MNT, fstype, 0, options))
			umount2(KCLIENT_MNT, MNT_DETACH);
		_exit(0);
	}
	pfd.fd = lfd;
	pfd.events = POLLIN;
	if (pid > 0 && poll(&pfd, 1, timeout_ms) == 1) {
		cfd = accept(lfd, (struct sockaddr *)&sin, &len);
		if (cfd >= 0) {
			port = ntohs(sin.sin_port);
			close(cfd);
		}
	}
	close(lfd);
	if (pid > 0) {
		/* The RPC client retries; its waits are killable. */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return port;
}

/* Whether the kernel has file system NAME (nodev or not). */
static bool has_fs(const char *name)
{
	char *list = read_file("/proc/filesystems"), want[32];
	bool found;

	snprintf(want, sizeof(want), "\t%s\n", name);
	found = list && strstr(list, want);
	free(list);
	return found;
}

/* 9p over TCP with privport, which walks down from 1023. */
static int privport_9p(void)
{
	return kernel_client_port("9p", "127.0.0.1",
				  "trans=tcp,port=5640,privport", 30000);
}

TEST(privport_9p_skips_reserved_ports)
{
	if (!has_fs("9p"))
		SKIP(return, "no 9p in this kernel");
	/* The control: with no rule, 9p takes 1023. */
	ASSERT_EQ(0, load_policy(""));
	EXPECT_EQ(1023, privport_9p());
	/* Reserved for a program, 1023 is skipped as if it were in use. */
	ASSERT_EQ(0, load_policy("1023/tcp " OWNER "\n"));
	EXPECT_EQ(1022, privport_9p());
	/* For another protocol, it is not. */
	ASSERT_EQ(0, load_policy("1023/udp " OWNER "\n"));
	EXPECT_EQ(1023, privport_9p());
	load_policy("");
}

TEST(privport_9p_skips_the_sysctls_ports)
{
	char *old = read_file(RESERVED_PORTS);

	if (!has_fs("9p"))
		SKIP(free(old); return, "no 9p in this kernel");
	ASSERT_NE(NULL, old);
	/* The administrator's ip_local_reserved_ports alone, no policy. */
	ASSERT_EQ(0, load_policy(""));
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "1023"));
	EXPECT_EQ(1022, privport_9p());
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "\n"));
	EXPECT_EQ(1023, privport_9p());
	write_file(RESERVED_PORTS, old);
	free(old);
}

#define RESVPORT_MIN	"/proc/sys/sunrpc/min_resvport"
#define RESVPORT_MAX	"/proc/sys/sunrpc/max_resvport"

/* An NFSv4 mount, whose RPC client starts at a random privileged port. */
static int rpc_client_port(int timeout_ms)
{
	char options[128];

	snprintf(options, sizeof(options), "%s,%s,%s", "vers=4.0,proto=tcp,port=5640",
		 "addr=127.0.0.1,clientaddr=127.0.0.1", "soft,timeo=50,retrans=1");
	return kernel_client_port("nfs4", "127.0.0.1:/", options, timeout_ms);
}

TEST(rpc_client_skips_reserved_ports)
{
	char *old_min, *old_max;
	int i;

	if (!has_fs("nfs4"))
		SKIP(return, "no NFSv4 client in this kernel");
	old_min = read_file(RESVPORT_MIN);
	old_max = read_file(RESVPORT_MAX);
	ASSERT_NE(NULL, old_min);
	ASSERT_NE(NULL, old_max);
	/*
	 * Two privileged ports, one reserved: a client that ignored the
	 * reservation would take it half of the time, so try a few times.
	 */
	ASSERT_EQ(0, write_file(RESVPORT_MAX, "1001"));
	ASSERT_EQ(0, write_file(RESVPORT_MIN, "1000"));
	ASSERT_EQ(0, load_policy("1001/tcp " OWNER "\n"));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(1000, rpc_client_port(30000));
	ASSERT_EQ(0, load_policy("1000/tcp " OWNER "\n"));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(1001, rpc_client_port(30000));
	load_policy("");
	write_file(RESVPORT_MIN, old_min);
	write_file(RESVPORT_MAX, old_max);
	free(old_min);
	free(old_max);
}

TEST(rpc_client_skips_the_sysctls_ports)
{
	char *old_min, *old_max, *old_reserved;
	int i;

	if (!has_fs("nfs4"))
		SKIP(return, "no NFSv4 client in this kernel");
	old_min = read_file(RESVPORT_MIN);
	old_max = read_file(RESVPORT_MAX);
	old_reserved = read_file(RESERVED_PORTS);
	ASSERT_NE(NULL, old_min);
	ASSERT_NE(NULL, old_max);
	ASSERT_NE(NULL, old_reserved);
	/* The administrator's ip_local_reserved_ports alone, no policy. */
	ASSERT_EQ(0, load_policy(""));
	ASSERT_EQ(0, write_file(RESVPORT_MAX, "1001"));
	ASSERT_EQ(0, write_file(RESVPORT_MIN, "1000"));
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "1001"));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(1000, rpc_client_port(30000));
	write_file(RESERVED_PORTS, old_reserved);
	write_file(RESVPORT_MIN, old_min);
	write_file(RESVPORT_MAX, old_max);
	free(old_min);
	free(old_max);
	free(old_reserved);
}

/* The system time of all CPUs, in clock ticks, from /proc/stat. */
static long long system_ticks(void)
{
	char *text = read_file("/proc/stat");
	long long user, nice, system = -1;

	if (text)
		sscanf(text, "cpu %lld %lld %lld", &user, &nice, &system);
	free(text);
	return system;
}

TEST(rpc_client_gives_up_on_a_busy_one_port_range)
{
	char *old_min, *old_max;
	long long before, after;
	int held;

	if (!has_fs("nfs4"))
		SKIP(return, "no NFSv4 client in this kernel");
	old_min = read_file(RESVPORT_MIN);
	old_max = read_file(RESVPORT_MAX);
	ASSERT_NE(NULL, old_min);
	ASSERT_NE(NULL, old_max);
	/*
	 * A range of one privileged port, which a socket of the test holds:
	 * xs_bind() must give up after its two rounds, not retry the port
	 * for ever in the transport's connect worker.
	 */
	ASSERT_EQ(0, load_policy(""));
	ASSERT_EQ(0, write_file(RESVPORT_MAX, "1000"));
	ASSERT_EQ(0, write_file(RESVPORT_MIN, "1000"));
	held = hold('4', "tcp", 1000);
	ASSERT_LE(0, held);
	EXPECT_EQ(-1, rpc_client_port(5000));
	/* The mount is gone: a worker left spinning would use a CPU. */
	before = system_ticks();
	sleep(2);
	after = system_ticks();
	ASSERT_LE(0, before);
	EXPECT_GT(sysconf(_SC_CLK_TCK), after - before);
	close(held);
	write_file(RESVPORT_MIN, old_min);
	write_file(RESVPORT_MAX, old_max);
	free(old_min);
	free(old_max);
}

int main(int argc, char **argv)
{
	if (is_binder(argc, argv))
		return binder_main(argc, argv);
	return test_harness_run(argc, argv);
}
