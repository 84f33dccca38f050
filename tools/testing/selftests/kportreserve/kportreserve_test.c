// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve selftests: the bind hook and the files that load a policy
 * ("policy" and "load"), in a booted kernel with kportreserve enabled.
 *
 * Program identity is the executable's path, so the test copies itself to
 * several paths and runs the copies, with "--bind ...", as the programs a
 * policy lists or does not list.
 */

#include <limits.h>

#include "common.h"

/* ---- bind behaviour, over every address family and protocol ---- */

FIXTURE(bind) {
	char rule[256];
};

FIXTURE_VARIANT(bind) {
	const char *family;
	const char *type;
	const char *proto;
	const char *other;
	int port;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(bind, ipv4_tcp) {
	.family = "4", .type = "tcp", .proto = "tcp", .other = "udp", .port = 20100,
};

FIXTURE_VARIANT_ADD(bind, ipv6_tcp) {
	.family = "6", .type = "tcp", .proto = "tcp", .other = "udp", .port = 20200,
};

FIXTURE_VARIANT_ADD(bind, mapped_tcp) {
	.family = "m", .type = "tcp", .proto = "tcp", .other = "udp", .port = 20300,
};

FIXTURE_VARIANT_ADD(bind, ipv4_mptcp) {
	.family = "4", .type = "mptcp", .proto = "tcp", .other = "udp", .port = 20400,
};

FIXTURE_VARIANT_ADD(bind, ipv6_mptcp) {
	.family = "6", .type = "mptcp", .proto = "tcp", .other = "udp", .port = 20500,
};

FIXTURE_VARIANT_ADD(bind, ipv4_udp) {
	.family = "4", .type = "udp", .proto = "udp", .other = "tcp", .port = 20600,
};

FIXTURE_VARIANT_ADD(bind, ipv6_udp) {
	.family = "6", .type = "udp", .proto = "udp", .other = "tcp", .port = 20700,
};

FIXTURE_VARIANT_ADD(bind, mapped_udp) {
	.family = "m", .type = "udp", .proto = "udp", .other = "tcp", .port = 20800,
};

FIXTURE_VARIANT_ADD(bind, ipv4_udplite) {
	.family = "4", .type = "udplite", .proto = "udp", .other = "tcp", .port = 20900,
};

FIXTURE_VARIANT_ADD(bind, ipv6_udplite) {
	.family = "6", .type = "udplite", .proto = "udp", .other = "tcp", .port = 21000,
};

FIXTURE_VARIANT_ADD(bind, ipv4_sctp) {
	.family = "4", .type = "sctp", .proto = "sctp", .other = "tcp", .port = 21100,
};

FIXTURE_VARIANT_ADD(bind, ipv6_sctp) {
	.family = "6", .type = "sctp", .proto = "sctp", .other = "udp", .port = 21200,
};

FIXTURE_VARIANT_ADD(bind, mapped_sctp) {
	.family = "m", .type = "sctp", .proto = "sctp", .other = "tcp", .port = 21300,
};

FIXTURE_VARIANT_ADD(bind, ipv4_sctp_seqpacket) {
	.family = "4", .type = "sctpseq", .proto = "sctp", .other = "udp", .port = 21400,
};

/* clang-format on */

FIXTURE_SETUP(bind)
{
	ASSERT_EQ(0, make_programs());
	snprintf(self->rule, sizeof(self->rule), "%d/%s %s\n", variant->port,
		 variant->proto, OWNER);
	ASSERT_EQ(0, load_policy(self->rule));
	if (bind_as(IMPOSTOR, variant->family, variant->type, 0, "") == NO_SOCKET)
		SKIP(return, "no %s socket for family %s", variant->type,
		     variant->family);
}

FIXTURE_TEARDOWN(bind)
{
	load_policy("");
}

#define BIND(prog, port) bind_as(prog, variant->family, variant->type, port, "")

TEST_F(bind, owner_binds_impostor_does_not)
{
	EXPECT_EQ(0, BIND(OWNER, variant->port));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, variant->port));
	/* The test program itself is not listed either. */
	EXPECT_EQ(EADDRINUSE, bind_once(variant->family[0], variant->type,
					variant->port, ""));
}

TEST_F(bind, port_without_rule)
{
	EXPECT_EQ(0, BIND(IMPOSTOR, variant->port + 1));
	EXPECT_EQ(0, BIND(IMPOSTOR, variant->port - 1));
}

TEST_F(bind, other_protocol_is_free)
{
	char rule[256];

	snprintf(rule, sizeof(rule), "%d/%s %s\n", variant->port,
		 variant->other, OWNER);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(0, BIND(IMPOSTOR, variant->port));
	snprintf(rule, sizeof(rule), "%d %s\n", variant->port, OWNER);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, variant->port));
	EXPECT_EQ(0, BIND(OWNER, variant->port));
}

TEST_F(bind, range_edges)
{
	char rule[256];
	int first = variant->port, last = variant->port + 9;

	snprintf(rule, sizeof(rule), "%d-%d/%s %s\n", first, last,
		 variant->proto, OWNER);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(0, BIND(IMPOSTOR, first - 1));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, first));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, last));
	EXPECT_EQ(0, BIND(IMPOSTOR, last + 1));
	EXPECT_EQ(0, BIND(OWNER, first));
	EXPECT_EQ(0, BIND(OWNER, last));
}

TEST_F(bind, several_programs)
{
	char rule[512];

	snprintf(rule, sizeof(rule), "%d %s\n%d %s\n", variant->port, OWNER,
		 variant->port, SECOND);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(0, BIND(OWNER, variant->port));
	EXPECT_EQ(0, BIND(SECOND, variant->port));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, variant->port));
}

TEST_F(bind, kernel_rule_refuses_programs)
{
	char rule[256];

	snprintf(rule, sizeof(rule), "%d <kernel>\n", variant->port);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(EADDRINUSE, BIND(OWNER, variant->port));
	EXPECT_EQ(EADDRINUSE, BIND(IMPOSTOR, variant->port));
}

#define PORT_RANGE "/proc/sys/net/ipv4/ip_local_port_range"

/*
 * With the range of automatic assignment narrowed onto reserved ports,
 * bind() to port 0 is given one of the few ports of the range left free.
 */
TEST_F(bind, port_zero_binds_outside_reservations)
{
	char *range = read_file(PORT_RANGE);
	int port = -1, err;

	ASSERT_NE(NULL, range);
	ASSERT_EQ(0, load_policy("40000-40099 " OWNER "\n"));
	ASSERT_EQ(0, write_file(PORT_RANGE, "40000 40103"));
	err = auto_as(IMPOSTOR, variant->family, variant->type, "bind0", 0,
		      &port);
	EXPECT_EQ(0, write_file(PORT_RANGE, range));
	free(range);
	EXPECT_EQ(0, err);
	EXPECT_LE(40100, port);
	EXPECT_GE(40103, port);
}

TEST_F(bind, sctp_bindx_is_checked)
{
	if (strcmp(variant->proto, "sctp"))
		SKIP(return, "sctp_bindx() is for SCTP sockets");
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, variant->family, variant->type,
				      variant->port, "x"));
	EXPECT_EQ(0, bind_as(OWNER, variant->family, variant->type,
			     variant->port, "x"));
	EXPECT_EQ(0, bind_as(IMPOSTOR, variant->family, variant->type,
			     variant->port + 1, "x"));
}

TEST_F(bind, af_unspec_is_checked)
{
	if (variant->family[0] != '4' || !strcmp(variant->proto, "sctp"))
		SKIP(return, "AF_UNSPEC binds only on IPv4 TCP and UDP sockets");
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "u", variant->type,
				      variant->port, ""));
	EXPECT_EQ(0, bind_as(OWNER, "u", variant->type, variant->port, ""));
}

TEST_F(bind, short_addrlen_gets_stack_error)
{
	EXPECT_EQ(EINVAL, bind_as(IMPOSTOR, variant->family, variant->type,
				  variant->port, "s"));
}

TEST_F(bind, other_network_namespace_unchecked)
{
	EXPECT_EQ(0, bind_as(IMPOSTOR, variant->family, variant->type,
			     variant->port, "n"));
}

/*
 * ---- the ways in that bind for the caller ----
 *
 * SMC binds an internal TCP socket, and AF_RXRPC a UDP socket, with
 * kernel_bind(), which no hook sees; io_uring's IORING_OP_BIND binds from
 * the submitting task, an io-wq worker (IOSQE_ASYNC) or the ring's SQPOLL
 * thread. Once SMC falls back to TCP, which any of the TCP fast-open
 * options or MSG_FASTOPEN brings about before the socket is bound, the
 * caller's descriptor leads to SMC's internal TCP socket, which the kernel
 * made: bind() works on that socket directly. Each must be refused to the
 * impostor and allowed to the owner, so each is judged by the right
 * program. Every test skips on kernels without the way in (Linux 6.1 has
 * no IPPROTO_SMC and no IORING_OP_BIND); the lanes allow those skips by
 * name, for 6.1 only.
 */

FIXTURE(way_in) {};

FIXTURE_VARIANT(way_in) {
	const char *family;
	const char *type;
	const char *proto;
	int port;
	/* What bind_once() does to the socket first (prepare_socket()). */
	const char *setup;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(way_in, smc_ipv4) {
	.family = "4", .type = "smc", .proto = "tcp", .port = 23100,
};

FIXTURE_VARIANT_ADD(way_in, smc_ipv6) {
	.family = "6", .type = "smc", .proto = "tcp", .port = 23200,
};

FIXTURE_VARIANT_ADD(way_in, ipproto_smc_ipv4) {
	.family = "4", .type = "smcinet", .proto = "tcp", .port = 23300,
};

FIXTURE_VARIANT_ADD(way_in, ipproto_smc_ipv6) {
	.family = "6", .type = "smcinet", .proto = "tcp", .port = 23400,
};

FIXTURE_VARIANT_ADD(way_in, rxrpc_ipv4) {
	.family = "4", .type = "rxrpc", .proto = "udp", .port = 23500,
};

FIXTURE_VARIANT_ADD(way_in, rxrpc_ipv6) {
	.family = "6", .type = "rxrpc", .proto = "udp", .port = 23600,
};

FIXTURE_VARIANT_ADD(way_in, io_uring_tcp_ipv4) {
	.family = "4", .type = "tcp+uring", .proto = "tcp", .port = 23700,
};

FIXTURE_VARIANT_ADD(way_in, io_uring_async_udp_ipv6) {
	.family = "6", .type = "udp+uring-async", .proto = "udp", .port = 23800,
};

FIXTURE_VARIANT_ADD(way_in, io_uring_async_tcp_ipv4) {
	.family = "4", .type = "tcp+uring-async", .proto = "tcp", .port = 23900,
};

FIXTURE_VARIANT_ADD(way_in, io_uring_sqpoll_tcp_ipv6) {
	.family = "6", .type = "tcp+uring-sqpoll", .proto = "tcp", .port = 24000,
};

FIXTURE_VARIANT_ADD(way_in, io_uring_sqpoll_udp_ipv4) {
	.family = "4", .type = "udp+uring-sqpoll", .proto = "udp", .port = 24100,
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_fastopen_ipv4) {
	.family = "4", .type = "smc", .proto = "tcp", .port = 24200,
	.setup = "F",
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_fastopen_connect_ipv6) {
	.family = "6", .type = "smc", .proto = "tcp", .port = 24300,
	.setup = "C",
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_fastopen_key_ipv4) {
	.family = "4", .type = "smc", .proto = "tcp", .port = 24400,
	.setup = "K",
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_fastopen_no_cookie_ipv6) {
	.family = "6", .type = "smc", .proto = "tcp", .port = 24500,
	.setup = "N",
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_msg_fastopen_ipv4) {
	.family = "4", .type = "smc", .proto = "tcp", .port = 24600,
	.setup = "M",
};

FIXTURE_VARIANT_ADD(way_in, ipproto_smc_fallback_fastopen_ipv6) {
	.family = "6", .type = "smcinet", .proto = "tcp", .port = 24700,
	.setup = "F",
};

FIXTURE_VARIANT_ADD(way_in, ipproto_smc_fallback_msg_fastopen_ipv4) {
	.family = "4", .type = "smcinet", .proto = "tcp", .port = 24800,
	.setup = "M",
};

FIXTURE_VARIANT_ADD(way_in, smc_fallback_io_uring_async_ipv4) {
	.family = "4", .type = "smc+uring-async", .proto = "tcp", .port = 24900,
	.setup = "F",
};

/* clang-format on */

FIXTURE_SETUP(way_in)
{
	char rule[256];

	ASSERT_EQ(0, make_programs());
	snprintf(rule, sizeof(rule), "%d/%s %s\n", variant->port,
		 variant->proto, OWNER);
	ASSERT_EQ(0, load_policy(rule));
}

FIXTURE_TEARDOWN(way_in)
{
	load_policy("");
}

/*
 * Whether this kernel lacks the variant's way in: an unreserved port
 * binds unless it does. Asked in each test's body, because Linux 6.1's
 * harness runs the body of a test whose setup skipped.
 */
static bool way_in_missing(const char *family, const char *type, int port)
{
	return bind_as(IMPOSTOR, family, type, port + 1, "") == NO_SOCKET;
}

#define NO_WAY_IN "this kernel cannot bind this way"

/* Bind as PROG with FAMILY and TYPE, with FLAGS after SETUP. */
static int way(const char *family, const char *type, const char *setup,
	       const char *prog, int port, const char *flags)
{
	char all[16];

	snprintf(all, sizeof(all), "%s%s", setup ?: "", flags);
	return bind_as(prog, family, type, port, all);
}

#define WAY(prog, port, flags) \
	way(variant->family, variant->type, variant->setup, prog, port, flags)

TEST_F(way_in, owner_binds_impostor_does_not)
{
	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	EXPECT_EQ(EADDRINUSE, WAY(IMPOSTOR, variant->port, ""));
	EXPECT_EQ(0, WAY(OWNER, variant->port, ""));
	EXPECT_EQ(EADDRINUSE, bind_once(variant->family[0], variant->type,
					variant->port, variant->setup ?: ""));
}

TEST_F(way_in, port_without_rule)
{
	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	EXPECT_EQ(0, WAY(IMPOSTOR, variant->port - 1, ""));
}

TEST_F(way_in, kernel_rule_refuses_programs)
{
	char rule[256];

	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	snprintf(rule, sizeof(rule), "%d/%s <kernel>\n", variant->port,
		 variant->proto);
	ASSERT_EQ(0, load_policy(rule));
	EXPECT_EQ(EADDRINUSE, WAY(OWNER, variant->port, ""));
}

/* The denial names the program that asked, not a kernel thread. */
TEST_F(way_in, denial_names_the_impostor)
{
	char *denials;

	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	EXPECT_EQ(EADDRINUSE, WAY(IMPOSTOR, variant->port, ""));
	denials = read_file(DENIALS);
	ASSERT_NE(NULL, denials);
	EXPECT_NE(NULL, strstr(denials, IMPOSTOR)) {
		TH_LOG("%s", denials);
	}
	free(denials);
}

TEST_F(way_in, short_addrlen_gets_stack_error)
{
	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	EXPECT_EQ(EINVAL, WAY(IMPOSTOR, variant->port, "s"));
}

TEST_F(way_in, other_network_namespace_unchecked)
{
	if (way_in_missing(variant->family, variant->type, variant->port))
		SKIP(return, NO_WAY_IN);
	EXPECT_EQ(0, WAY(IMPOSTOR, variant->port, "n"));
}

/*
 * rxrpc kept the address of a bind() that failed, and the next sendmsg()
 * on the still unbound socket bound that port with kernel_bind(), out of
 * the bind hook's sight: armed while the port was held and not yet
 * reserved, the socket took it once its owner let it go. It must take a
 * port of its own instead.
 */
#define PORT_RXRPC 25100

static void rxrpc_armed_while_held(struct __test_metadata *_metadata,
				   const char *family)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family[0], PORT_RXRPC, &ss);
	int to[2], from[2], held, rc;
	char c = 0, port[16];
	pid_t pid;

	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy(""));
	held = socket(family[0] == '4' ? AF_INET : AF_INET6,
		      SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, held);
	ASSERT_EQ(0, bind(held, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, pipe(to));
	ASSERT_EQ(0, pipe(from));
	snprintf(port, sizeof(port), "%d", PORT_RXRPC);
	pid = fork();
	if (!pid) {
		const char *const argv[] = { IMPOSTOR, "--rxrpc-arm", family,
					     port, NULL };

		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	if (read(from[0], &c, 1) != 1) {
		rc = wait_exit(pid);
		if (rc == NO_SOCKET)
			SKIP(return, "no AF_RXRPC");
		ASSERT_EQ(0, rc);
	}
	ASSERT_EQ(0, load_policy("25100/udp " OWNER "\n"));
	close(held);
	ASSERT_EQ(1, write(to[1], "g", 1));
	ASSERT_EQ(1, read(from[0], &c, 1));
	EXPECT_EQ(0, bind_as(OWNER, family, "udp", PORT_RXRPC, ""));
	close(to[1]);
	EXPECT_EQ(0, wait_exit(pid));
	close(from[0]);
	load_policy("");
}

TEST(rxrpc_failed_bind_leaves_no_port_behind_ipv4)
{
	rxrpc_armed_while_held(_metadata, "4");
}

TEST(rxrpc_failed_bind_leaves_no_port_behind_ipv6)
{
	rxrpc_armed_while_held(_metadata, "6");
}

/*
 * ---- a socket whose family changes ----
 *
 * IPV6_ADDRFORM turns a connected IPv6 TCP or UDP socket of an
 * IPv4-mapped peer into an IPv4 one, and another thread may do that
 * between the bind hook and the bind. So the hook judges an address
 * whatever the socket's family at the time: an IPv4 address on an IPv6
 * socket is judged like any other, though the stack refuses it on a
 * socket that stays IPv6.
 */

#define PORT_FAMILY 24950

FIXTURE(family_change) {};

FIXTURE_SETUP(family_change)
{
	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy("24950/tcp " OWNER "\n24950/udp " OWNER "\n"));
}

FIXTURE_TEARDOWN(family_change)
{
	load_policy("");
}

TEST_F(family_change, ipv4_address_on_ipv6_socket_is_checked)
{
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "x", "udp", PORT_FAMILY, ""));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "x", "tcp", PORT_FAMILY, ""));
	/* The owner passes, and gets the stack's own error. */
	EXPECT_EQ(EINVAL, bind_as(OWNER, "x", "udp", PORT_FAMILY, ""));
	EXPECT_EQ(EINVAL, bind_as(OWNER, "x", "tcp", PORT_FAMILY, ""));
}

/* Converted, disconnected and so unbound, then bound over IPv4. */
TEST_F(family_change, socket_converted_to_ipv4_is_checked)
{
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "x", "udp", PORT_FAMILY, "A"));
	EXPECT_EQ(0, bind_as(OWNER, "x", "udp", PORT_FAMILY, "A"));
}

/*
 * ---- credentials borrowed from the initial user namespace ----
 *
 * An io_uring personality holds the credentials of whoever registered
 * it (IORING_REGISTER_PERSONALITY), and a request that names it runs with
 * them: a ring made and a personality registered in the initial user
 * namespace, passed to a process that then moved to a user and mount
 * namespace of its own and executed whatever it mounted at a listed path,
 * would bind with initial-namespace credentials from a faked path. Inline,
 * from an io-wq worker (started by the submitter, in its namespaces) and
 * from the ring's SQPOLL thread (a thread of the ring's creator, here the
 * test, which is listed nowhere). The SQPOLL thread works in its
 * creator's memory and descriptor table: the submitter names its socket
 * as a registered file, and the address by where the test keeps it.
 */

#define PORT_BORROWED 25000

FIXTURE(borrowed) {};

FIXTURE_VARIANT(borrowed) {
	const char *type;
	/* What the real owner gets through the test's ring. */
	int owner_gets;
};

/* clang-format off */
FIXTURE_VARIANT_ADD(borrowed, inline) {
	.type = "tcp+uring", .owner_gets = 0,
};

FIXTURE_VARIANT_ADD(borrowed, io_wq) {
	.type = "udp+uring-async", .owner_gets = 0,
};

FIXTURE_VARIANT_ADD(borrowed, sqpoll) {
	.type = "tcp+uring-sqpoll", .owner_gets = EADDRINUSE,
};

/* clang-format on */

FIXTURE_SETUP(borrowed)
{
	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy("25000 " OWNER "\n"));
}

FIXTURE_TEARDOWN(borrowed)
{
	load_policy("");
}

static int fake_owner_namespace(void);

/*
 * Open a ring and register a personality in this, the initial, user
 * namespace; run PROG with both, in a faked namespace if FAKE, to bind
 * PORT through them. Returns PROG's verdict, or NO_SOCKET without
 * IORING_OP_BIND.
 */
static int bind_with_personality(const char *prog, bool fake,
				 const char *type, int port)
{
	char ring[16], params[16], personality[16], portbuf[16], addr[32];
	const char *const argv[] = { prog, "--uring-bind", ring, params,
				     personality, addr, "4", type, portbuf, "",
				     NULL };
	struct sockaddr_storage ss;
	int pipefd[2], id, rc;
	struct kpr_ring r;
	pid_t pid;

	make_addr('4', port, &ss);
	snprintf(addr, sizeof(addr), "%lu", (unsigned long)&ss);
	if (ring_open(&r, !!strstr(type, "sqpoll")))
		return NO_SOCKET;
	id = syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_PERSONALITY,
		     NULL, 0);
	if (id < 0 || pipe(pipefd) ||
	    write(pipefd[1], &r.p, sizeof(r.p)) != sizeof(r.p)) {
		ring_close(&r);
		return USAGE;
	}
	snprintf(ring, sizeof(ring), "%d", r.fd);
	snprintf(params, sizeof(params), "%d", pipefd[0]);
	snprintf(personality, sizeof(personality), "%d", id);
	snprintf(portbuf, sizeof(portbuf), "%d", port);
	pid = fork();
	if (!pid) {
		/* io_uring_setup() makes its descriptor close-on-exec. */
		if (fcntl(r.fd, F_SETFD, 0) || (fake && fake_owner_namespace()))
			_exit(USAGE);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	rc = wait_exit(pid);
	close(pipefd[0]);
	close(pipefd[1]);
	ring_close(&r);
	return rc;
}

TEST_F(borrowed, faked_path_with_personality_is_unlisted)
{
	int rc = bind_with_personality(OWNER, true, variant->type,
				       PORT_BORROWED);

	if (rc == NO_SOCKET)
		SKIP(return, "no IORING_OP_BIND");
	EXPECT_EQ(EADDRINUSE, rc);
}

TEST_F(borrowed, owner_with_personality_binds)
{
	int rc = bind_with_personality(OWNER, false, variant->type,
				       PORT_BORROWED);

	if (rc == NO_SOCKET)
		SKIP(return, "no IORING_OP_BIND");
	EXPECT_EQ(variant->owner_gets, rc);
	EXPECT_EQ(EADDRINUSE, bind_with_personality(IMPOSTOR, false,
						    variant->type,
						    PORT_BORROWED));
}

/* ---- program identity ---- */

#define PORT_ID 22000

FIXTURE(identity) {};

FIXTURE_SETUP(identity)
{
	ASSERT_EQ(0, make_programs());
}

FIXTURE_TEARDOWN(identity)
{
	load_policy("");
}

TEST_F(identity, chroot_matches_full_path)
{
	pid_t pid;

	mkdir(WORKDIR "/root", 0755);
	mkdir(WORKDIR "/root/bin", 0755);
	ASSERT_EQ(0, copy_file(OWNER, WORKDIR "/root/bin/owner"));
	ASSERT_EQ(0, load_policy("22000 " WORKDIR "/root/bin/owner\n"));
	pid = fork();
	if (!pid) {
		const char *const argv[] = { "/bin/owner", "--bind", "4", "tcp", "22000",
				 "", NULL };

		if (chroot(WORKDIR "/root") || chdir("/"))
			_exit(USAGE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	EXPECT_EQ(0, wait_exit(pid));
	/* Inside the chroot the path "/bin/owner" names nothing listed. */
	ASSERT_EQ(0, load_policy("22000 /bin/owner\n"));
	pid = fork();
	if (!pid) {
		const char *const argv[] = { "/bin/owner", "--bind", "4", "tcp", "22000",
				 "", NULL };

		if (chroot(WORKDIR "/root") || chdir("/"))
			_exit(USAGE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	EXPECT_EQ(EADDRINUSE, wait_exit(pid));
}

/*
 * Start a listed program that waits; change its binary on disk with
 * @change; let it bind. Returns the program's verdict.
 */
static int bind_after(const char *path, int (*change)(const char *))
{
	int to_child[2], from_child[2];
	char c;
	pid_t pid;

	if (pipe(to_child) || pipe(from_child))
		return -1;
	pid = fork();
	if (!pid) {
		const char *const argv[] = { path, "--bind", "4", "tcp", "22001",
				 "w", NULL };

		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	if (read(from_child[0], &c, 1) != 1)
		return -1;
	if (change(path) || write(to_child[1], "g", 1) != 1)
		return -1;
	close(to_child[1]);
	close(from_child[0]);
	return wait_exit(pid);
}

/* The changes of bind_after(): 0, or -1 when the change failed. */
static int unlink_binary(const char *path)
{
	return unlink(path);
}

static int replace_binary(const char *path)
{
	return copy_file(IMPOSTOR, WORKDIR "/new") ||
	       rename(WORKDIR "/new", path) ? -1 : 0;
}

TEST_F(identity, unlinked_binary_keeps_port)
{
	ASSERT_EQ(0, copy_file(OWNER, WORKDIR "/upgraded"));
	ASSERT_EQ(0, load_policy("22001 " WORKDIR "/upgraded\n"));
	EXPECT_EQ(0, bind_after(WORKDIR "/upgraded", unlink_binary));
}

TEST_F(identity, replaced_binary_keeps_port)
{
	ASSERT_EQ(0, copy_file(OWNER, WORKDIR "/upgraded"));
	ASSERT_EQ(0, load_policy("22001 " WORKDIR "/upgraded\n"));
	EXPECT_EQ(0, bind_after(WORKDIR "/upgraded", replace_binary));
}

TEST_F(identity, exec_loses_port)
{
	const char *const argv[] = { OWNER, "--exec", IMPOSTOR, "--bind", "4", "tcp",
			 "22002", "", NULL };

	ASSERT_EQ(0, load_policy("22002 " OWNER "\n"));
	EXPECT_EQ(EADDRINUSE, run(argv));
}

/*
 * A task keeps the id of its executable for its next binds, but not
 * through execve(): the program it runs next is judged afresh, and so is
 * the one after another execve() in between.
 */
TEST_F(identity, kept_identity_ends_at_exec)
{
	const char *const once[] = { OWNER, "--bind-exec", "22005", IMPOSTOR,
				     "--bind", "4", "tcp", "22005", "", NULL };
	const char *const twice[] = { OWNER, "--bind-exec", "22005", IMPOSTOR,
				      "--exec", IMPOSTOR, "--bind", "4", "tcp",
				      "22005", "", NULL };
	const char *const owner[] = { OWNER, "--bind-exec", "22005", OWNER,
				      "--bind", "4", "tcp", "22005", "", NULL };

	ASSERT_EQ(0, load_policy("22005 " OWNER "\n"));
	EXPECT_EQ(EADDRINUSE, run(once));
	EXPECT_EQ(EADDRINUSE, run(twice));
	EXPECT_EQ(0, run(owner));
}

/*
 * A process that binds again reuses the id its executable's path has in
 * the policy in force; loading a policy forgets it.
 */
TEST_F(identity, kept_identity_follows_policy_loads)
{
	char exe[PATH_MAX], policy[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_LT(0, len);
	exe[len] = '\0';
	snprintf(policy, sizeof(policy), "22003/tcp %s\n22004/tcp " OWNER "\n",
		 exe);
	ASSERT_EQ(0, load_policy(policy));
	EXPECT_EQ(0, bind_once('4', "tcp", 22003, ""));
	EXPECT_EQ(0, bind_once('6', "tcp", 22003, ""));
	EXPECT_EQ(EADDRINUSE, bind_once('4', "tcp", 22004, ""));

	snprintf(policy, sizeof(policy), "22003/tcp " OWNER "\n22004/tcp %s\n",
		 exe);
	ASSERT_EQ(0, load_policy(policy));
	EXPECT_EQ(EADDRINUSE, bind_once('4', "tcp", 22003, ""));
	EXPECT_EQ(0, bind_once('4', "tcp", 22004, ""));

	ASSERT_EQ(0, load_policy("22003/tcp " OWNER "\n"));
	EXPECT_EQ(EADDRINUSE, bind_once('4', "tcp", 22003, ""));
	EXPECT_EQ(0, bind_once('4', "tcp", 22004, ""));
}

/*
 * prctl(PR_SET_MM, PR_SET_MM_MAP) sets the executable of the caller's
 * memory to any file it may execute, given CAP_CHECKPOINT_RESTORE in its
 * own user namespace, which anyone may create, and once the memory maps
 * the old executable no more. Shared with a process of the initial user
 * namespace (clone() with CLONE_VM), that memory would make the process
 * bind as the program it names. The code that runs once the executable
 * is unmapped is copied to anonymous memory: the functions of the section
 * kpr_exe_blob, which read nothing but their argument and make their
 * system calls themselves (the program is static: libc goes too).
 */
#ifdef __x86_64__
#include <linux/prctl.h>

#define EXE_BLOB __attribute__((section("kpr_exe_blob"), noipa, used, \
				no_stack_protector, \
				optimize("no-tree-loop-distribute-patterns")))

/*
 * stage: 1 the sharer is in its namespace, 2 unmapped, 3 prctl() done.
 * The ring's fields are for blob_alone_ring(), the child's for
 * blob_vfork_binder().
 */
struct exe_swap {
	int stage;
	int sock;
	long unshare_rc, prctl_rc, bind_rc;
	int nmaps;
	unsigned long maps[16][2];
	struct prctl_mm_map map;
	struct sockaddr_in addr;
	int ring_fd;
	unsigned int *sq_tail;
	struct io_uring_cqe *cqe;
	void (*child)(struct exe_swap *x);
	void *child_stack;
};

/* A system call of up to four arguments; the fifth, which prctl() checks, is 0. */
static __always_inline long blob_syscall(long nr, long a, long b, long c, long d)
{
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = 0;
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
		     : "rcx", "r11", "memory");
	return ret;
}

static __always_inline int blob_stage(struct exe_swap *x)
{
	return __atomic_load_n(&x->stage, __ATOMIC_ACQUIRE);
}

static __always_inline void blob_set_stage(struct exe_swap *x, int stage)
{
	__atomic_store_n(&x->stage, stage, __ATOMIC_RELEASE);
}

EXE_BLOB static void blob_unmap_exe(struct exe_swap *x)
{
	int i;

	for (i = 0; i < x->nmaps; i++)
		blob_syscall(__NR_munmap, x->maps[i][0],
			     x->maps[i][1] - x->maps[i][0], 0, 0);
}

EXE_BLOB static long blob_set_exe(struct exe_swap *x)
{
	return blob_syscall(__NR_prctl, PR_SET_MM, PR_SET_MM_MAP,
			    (long)&x->map, sizeof(x->map));
}

/* The sharer: in a user namespace of its own, sets the executable. */
EXE_BLOB static int blob_setter(void *arg)
{
	struct exe_swap *x = arg;

	x->unshare_rc = blob_syscall(__NR_unshare, CLONE_NEWUSER, 0, 0, 0);
	blob_set_stage(x, 1);
	while (blob_stage(x) < 2)
		blob_syscall(__NR_sched_yield, 0, 0, 0, 0);
	x->prctl_rc = blob_set_exe(x);
	blob_set_stage(x, 3);
	for (;;)
		blob_syscall(__NR_exit, 0, 0, 0, 0);
	return 0;
}

/* The process of the initial user namespace: unmaps, waits, binds. */
EXE_BLOB static void blob_binder(struct exe_swap *x)
{
	blob_unmap_exe(x);
	blob_set_stage(x, 2);
	while (blob_stage(x) < 3)
		blob_syscall(__NR_sched_yield, 0, 0, 0, 0);
	x->bind_rc = blob_syscall(__NR_bind, x->sock, (long)&x->addr,
				  sizeof(x->addr), 0);
	for (;;)
		blob_syscall(__NR_exit_group, 0, 0, 0, 0);
}

/* Alone in a user namespace of its own, as in a container's restore. */
EXE_BLOB static void blob_alone(struct exe_swap *x)
{
	x->unshare_rc = blob_syscall(__NR_unshare, CLONE_NEWUSER, 0, 0, 0);
	blob_unmap_exe(x);
	x->prctl_rc = blob_set_exe(x);
	for (;;)
		blob_syscall(__NR_exit_group, 0, 0, 0, 0);
}

/*
 * Alone in a user namespace of its own, with a bind prepared in a ring
 * whose personality was registered in the initial one.
 */
EXE_BLOB static void blob_alone_ring(struct exe_swap *x)
{
	x->unshare_rc = blob_syscall(__NR_unshare, CLONE_NEWUSER, 0, 0, 0);
	blob_unmap_exe(x);
	x->prctl_rc = blob_set_exe(x);
	__atomic_store_n(x->sq_tail, 1, __ATOMIC_RELEASE);
	if (blob_syscall(__NR_io_uring_enter, x->ring_fd, 1, 1,
			 IORING_ENTER_GETEVENTS) == 1)
		x->bind_rc = __atomic_load_n(&x->cqe->res, __ATOMIC_ACQUIRE);
	for (;;)
		blob_syscall(__NR_exit_group, 0, 0, 0, 0);
}

/*
 * clone(CLONE_VM | CLONE_VFORK), the child running x->child(x) on
 * x->child_stack: the caller sleeps until the child exits.
 */
static __always_inline void blob_vfork(struct exe_swap *x)
{
	register long r10 asm("r10") = 0;
	register long r8 asm("r8") = 0;
	long ret;

	asm volatile("syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov %[x], %%rdi\n\t"
		     "call *%[fn]\n\t"
		     "1:"
		     : "=a"(ret)
		     : "a"(__NR_clone), "D"(CLONE_VM | CLONE_VFORK | SIGCHLD),
		       "S"(x->child_stack), "d"(0), "r"(r10), "r"(r8),
		       [fn] "r"(x->child), [x] "r"(x)
		     : "rcx", "r11", "memory");
	(void)ret;
}

/* The vfork() child: sets the executable from its own user namespace. */
EXE_BLOB static void blob_vfork_child(struct exe_swap *x)
{
	x->unshare_rc = blob_syscall(__NR_unshare, CLONE_NEWUSER, 0, 0, 0);
	blob_unmap_exe(x);
	x->prctl_rc = blob_set_exe(x);
	for (;;)
		blob_syscall(__NR_exit, 0, 0, 0, 0);
}

/* The process of the initial user namespace: vfork()s, then binds. */
EXE_BLOB static void blob_vfork_binder(struct exe_swap *x)
{
	blob_vfork(x);
	x->bind_rc = blob_syscall(__NR_bind, x->sock, (long)&x->addr,
				  sizeof(x->addr), 0);
	for (;;)
		blob_syscall(__NR_exit_group, 0, 0, 0, 0);
}

#define BLOB_AT(blob, fn) \
	((void *)((char *)(blob) + ((char *)(fn) - __start_kpr_exe_blob)))

/* The mappings of the executable and the layout PR_SET_MM_MAP restates. */
static int exe_swap_prepare(struct exe_swap *x, const char *exe_file, int port)
{
	unsigned long v[64] = { 0 }, start, end;
	char exe[PATH_MAX], line[PATH_MAX + 128], path[PATH_MAX], *p;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;
	int i;

	if (len < 0)
		return -1;
	exe[len] = '\0';
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && x->nmaps < 16)
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %s", &start, &end,
			   path) == 3 && !strcmp(path, exe)) {
			x->maps[x->nmaps][0] = start;
			x->maps[x->nmaps++][1] = end;
		}
	fclose(f);
	/* /proc/self/stat: fields 26-28 and 45-51 (proc(5)), after comm. */
	f = fopen("/proc/self/stat", "r");
	if (!f || !fgets(line, sizeof(line), f))
		return -1;
	fclose(f);
	p = strrchr(line, ')');
	for (i = 3; p && i < 52; i++) {
		p = strchr(p, ' ');
		if (p)
			v[i] = strtoul(++p, NULL, 10);
	}
	x->map = (struct prctl_mm_map){
		.start_code = v[26], .end_code = v[27], .start_stack = v[28],
		.start_data = v[45], .end_data = v[46], .start_brk = v[47],
		.brk = syscall(SYS_brk, 0), .arg_start = v[48],
		.arg_end = v[49], .env_start = v[50], .env_end = v[51],
		.exe_fd = open(exe_file, O_RDONLY | O_CLOEXEC),
	};
	x->sock = socket(AF_INET, SOCK_STREAM, 0);
	x->addr = (struct sockaddr_in){
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	return x->nmaps && (int)x->map.exe_fd >= 0 && x->sock >= 0 ? 0 : -1;
}

/*
 * Who sets the executable: a clone(CLONE_VM) child, shared with the
 * process that binds; the process alone; a vfork() child of the process
 * that binds; the process alone, which then binds through io_uring with a
 * personality of the initial user namespace.
 */
enum exe_swap_how { SWAP_SHARED, SWAP_ALONE, SWAP_VFORK, SWAP_ALONE_RING };

/* A bind of x->addr with x->sock in ring r, with a new personality. */
static int exe_swap_prepare_ring(struct exe_swap *x, struct kpr_ring *r)
{
	struct io_uring_sqe *sqe;
	int id;

	if (ring_open(r, 0))
		return -1;
	id = syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_PERSONALITY,
		     NULL, 0);
	if (id < 0)
		return -1;
	sqe = &r->sqes[0];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = KPR_IORING_OP_BIND;
	sqe->fd = x->sock;
	sqe->addr = (unsigned long)&x->addr;
	sqe->addr2 = sizeof(x->addr);
	sqe->personality = id;
	ring_field(r->sq, r->p.sq_off.array)[0] = 0;
	x->ring_fd = r->fd;
	x->sq_tail = ring_field(r->sq, r->p.sq_off.tail);
	x->cqe = (struct io_uring_cqe *)((char *)r->cq + r->p.cq_off.cqes);
	x->bind_rc = 1;
	return 0;
}

/*
 * In a child, as nobody: sets the executable of its memory to exe_file,
 * from a user namespace of its own, as HOW says; the process of the
 * initial user namespace, or the one alone, then binds port. Results land
 * in *x.
 */
static int exe_swap(struct exe_swap *x, const char *exe_file, int port,
		    enum exe_swap_how how)
{
	size_t size = __stop_kpr_exe_blob - __start_kpr_exe_blob;
	void *blob, *stack;
	struct kpr_ring r;
	pid_t pid = fork();

	if (pid)
		return wait_exit(pid);
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534) ||
	    exe_swap_prepare(x, exe_file, port))
		_exit(USAGE);
	blob = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (blob == MAP_FAILED || stack == MAP_FAILED)
		_exit(USAGE);
	memcpy(blob, __start_kpr_exe_blob, size);
	switch (how) {
	case SWAP_ALONE:
		((void (*)(struct exe_swap *))BLOB_AT(blob, blob_alone))(x);
		break;
	case SWAP_ALONE_RING:
		if (exe_swap_prepare_ring(x, &r))
			_exit(NO_SOCKET);
		((void (*)(struct exe_swap *))BLOB_AT(blob, blob_alone_ring))(x);
		break;
	case SWAP_VFORK:
		x->child = BLOB_AT(blob, blob_vfork_child);
		x->child_stack = (char *)stack + 65536;
		((void (*)(struct exe_swap *))BLOB_AT(blob, blob_vfork_binder))(x);
		break;
	case SWAP_SHARED:
		if (clone(BLOB_AT(blob, blob_setter), (char *)stack + 65536,
			  CLONE_VM, x) < 0)
			_exit(USAGE);
		while (blob_stage(x) < 1)
			sched_yield();
		((void (*)(struct exe_swap *))BLOB_AT(blob, blob_binder))(x);
		break;
	}
	_exit(USAGE);
}

/*
 * exe_swap() to OWNER under a policy that reserves 22030 for it, into
 * memory the test shares with the child: its results.
 */
static struct exe_swap *exe_swap_to_owner(struct __test_metadata *_metadata,
					  enum exe_swap_how how)
{
	struct exe_swap *x = mmap(NULL, sizeof(*x), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int rc;

	ASSERT_NE(MAP_FAILED, x);
	ASSERT_EQ(0, load_policy("22030/tcp " OWNER "\n"));
	rc = exe_swap(x, OWNER, 22030, how);
	if (rc == NO_SOCKET)
		return NULL;
	ASSERT_EQ(0, rc);
	ASSERT_EQ(0, x->unshare_rc);
	return x;
}

TEST_F(identity, exe_set_from_user_namespace_on_shared_memory_is_refused)
{
	struct exe_swap *x = exe_swap_to_owner(_metadata, SWAP_SHARED);

	if (x->prctl_rc == -EINVAL)
		SKIP(return, "no PR_SET_MM_MAP (CONFIG_CHECKPOINT_RESTORE)");
	EXPECT_EQ(-EPERM, x->prctl_rc);
	EXPECT_EQ(-EADDRINUSE, x->bind_rc);
}

/* Checkpoint/restore in a container, alone in its user namespace, works. */
TEST_F(identity, exe_set_in_own_user_namespace_alone_is_allowed)
{
	struct exe_swap *x = exe_swap_to_owner(_metadata, SWAP_ALONE);

	if (x->prctl_rc == -EINVAL)
		SKIP(return, "no PR_SET_MM_MAP (CONFIG_CHECKPOINT_RESTORE)");
	EXPECT_EQ(0, x->prctl_rc);
}

/* A vfork() child shares its parent's memory too, until it exits. */
TEST_F(identity, exe_set_from_user_namespace_in_vfork_child_is_refused)
{
	struct exe_swap *x = exe_swap_to_owner(_metadata, SWAP_VFORK);

	if (x->prctl_rc == -EINVAL)
		SKIP(return, "no PR_SET_MM_MAP (CONFIG_CHECKPOINT_RESTORE)");
	EXPECT_EQ(-EPERM, x->prctl_rc);
	EXPECT_EQ(-EADDRINUSE, x->bind_rc);
}

/*
 * Alone in its user namespace, the process may set its executable to the
 * listed program; a personality of the initial user namespace does not
 * make it that program.
 */
TEST_F(identity, exe_set_in_own_user_namespace_with_borrowed_personality_is_unlisted)
{
	struct exe_swap *x = exe_swap_to_owner(_metadata, SWAP_ALONE_RING);

	if (!x)
		SKIP(return, "no IORING_OP_BIND");
	if (x->prctl_rc == -EINVAL)
		SKIP(return, "no PR_SET_MM_MAP (CONFIG_CHECKPOINT_RESTORE)");
	EXPECT_EQ(0, x->prctl_rc);
	EXPECT_EQ(-EADDRINUSE, x->bind_rc);
}
#endif /* __x86_64__ */

TEST_F(identity, escaped_paths)
{
	static const struct {
		const char *path, *encoded;
	} names[] = {
		{ WORKDIR "/with space", WORKDIR "/with\\040space" },
		{ WORKDIR "/caf\xc3\xa9", WORKDIR "/caf\\303\\251" },
		{ WORKDIR "/back\\slash", WORKDIR "/back\\\\slash" },
	};
	char policy[1024] = "", *back;
	size_t i, len = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ASSERT_EQ(0, copy_file(OWNER, names[i].path));
		len += snprintf(policy + len, sizeof(policy) - len, "%zu %s\n",
				22010 + i, names[i].encoded);
	}
	ASSERT_EQ(0, load_policy(policy));
	back = read_policy();
	EXPECT_STREQ(policy, back);
	free(back);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(0, bind_as(names[i].path, "4", "tcp", 22010 + i, ""));
		EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 22010 + i, ""));
	}
}

/*
 * In a user and mount namespace of its own, anyone can put any binary at
 * a listed path: such a process, and one that executes a file from such
 * a namespace, is not the listed program.
 */
static int fake_owner_namespace(void)
{
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	fd = open("/proc/self/uid_map", O_WRONLY);
	if (fd < 0 || write(fd, "0 0 1", 5) != 5 || close(fd))
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(IMPOSTOR, OWNER, NULL, MS_BIND, NULL))
		return -1;
	return 0;
}

TEST_F(identity, path_faked_in_user_namespace_is_unlisted)
{
	const char *const argv[] = { OWNER, "--bind", "4", "tcp", "22003", "",
				     NULL };
	pid_t pid;

	ASSERT_EQ(0, load_policy("22003 " OWNER "\n"));
	pid = fork();
	if (!pid) {
		if (fake_owner_namespace())
			_exit(USAGE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	EXPECT_EQ(EADDRINUSE, wait_exit(pid));
	EXPECT_EQ(0, bind_as(OWNER, "4", "tcp", 22003, ""));
}

/* The listed program itself, run in a user namespace of its own. */
TEST_F(identity, listed_program_in_user_namespace_is_unlisted)
{
	const char *const argv[] = { OWNER, "--bind", "4", "tcp", "22007", "",
				     NULL };
	pid_t pid;
	int fd;

	ASSERT_EQ(0, load_policy("22007 " OWNER "\n"));
	pid = fork();
	if (!pid) {
		if (unshare(CLONE_NEWUSER))
			_exit(USAGE);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, "0 0 1", 5) != 5 || close(fd))
			_exit(USAGE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	EXPECT_EQ(EADDRINUSE, wait_exit(pid));
	EXPECT_EQ(0, bind_as(OWNER, "4", "tcp", 22007, ""));
}

/*
 * A mount namespace that a user made, and filled, in a user namespace of
 * their own, entered with setns() by root, whose credentials are the
 * initial namespace's: its paths are still the user's.
 */
TEST_F(identity, user_mount_namespace_entered_by_root_is_unlisted)
{
	const char *const argv[] = { OWNER, "--bind", "4", "tcp", "22008", "",
				     NULL };
	int ready[2], done[2], ns;
	char path[64], c;
	pid_t holder, pid;

	ASSERT_EQ(0, load_policy("22008 " OWNER "\n"));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	holder = fork();
	if (!holder) {
		if (fake_owner_namespace() || write(ready[1], "r", 1) != 1)
			_exit(USAGE);
		_exit(read(done[0], &c, 1) == 1 ? 0 : USAGE);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", holder);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ns);
	pid = fork();
	if (!pid) {
		if (setns(ns, CLONE_NEWNS))
			_exit(USAGE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	EXPECT_EQ(EADDRINUSE, wait_exit(pid));
	close(ns);
	ASSERT_EQ(1, write(done[1], "d", 1));
	EXPECT_EQ(0, wait_exit(holder));
	EXPECT_EQ(0, bind_as(OWNER, "4", "tcp", 22008, ""));
}

TEST_F(identity, file_from_foreign_mount_namespace_is_unlisted)
{
	const char *const argv[] = { OWNER, "--bind", "4", "tcp", "22004", "",
				     NULL };
	int ready[2], done[2], fd;
	char path[64], c;
	pid_t holder, pid;

	ASSERT_EQ(0, load_policy("22004 " OWNER "\n"));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	holder = fork();
	if (!holder) {
		int exe;

		if (fake_owner_namespace())
			_exit(USAGE);
		exe = open(OWNER, O_RDONLY);
		if (exe < 0 || dup2(exe, 10) != 10 || write(ready[1], "r", 1) != 1)
			_exit(USAGE);
		_exit(read(done[0], &c, 1) == 1 ? 0 : USAGE);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	snprintf(path, sizeof(path), "/proc/%d/fd/10", holder);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	pid = fork();
	if (!pid) {
		fexecve(fd, (char *const *)argv, environ);
		_exit(127);
	}
	EXPECT_EQ(EADDRINUSE, wait_exit(pid));
	close(fd);
	ASSERT_EQ(1, write(done[1], "d", 1));
	EXPECT_EQ(0, wait_exit(holder));
}

/* ---- loading through the real files ---- */

#define GOOD_POLICY "23000/tcp " OWNER "\n"

FIXTURE(load) {};

FIXTURE_SETUP(load)
{
	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy(GOOD_POLICY));
}

FIXTURE_TEARDOWN(load)
{
	load_policy("");
}

/* The good policy is in force: it reads back and it refuses the impostor. */
static void assert_good_policy(struct __test_metadata *_metadata)
{
	char *back = read_policy();

	EXPECT_STREQ(GOOD_POLICY, back);
	free(back);
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23001, ""));
}

/*
 * Through "load", every bad policy fails its write(). Through "policy",
 * the write() that carries a bad line fails, and a text cut short in a
 * line fails no write() but is refused at the close all the same. Each of
 * the eleven policies runs the good policy's binds twice: in the debug
 * kernel under TCG, with a kernel build beside it, 8 of them took the
 * harness's default 30 s, so it gets the limit of the other long tests.
 */
TEST_F_TIMEOUT(load, every_error_class_keeps_policy, 300)
{
	static const char *const bad[] = {
		"0 /a\n", "65536 /a\n", "5-4 /a\n", "80/dccp /a\n",
		"80 relative\n", "80\n", "80 /a /b\n", "80 /a\\q\n",
		"80 /a\\000\n", "23001 /a\nbad\n", "23001 /a\n80 /a extra",
	};
	long long gen = stat_value("generation");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		bool whole = bad[i][strlen(bad[i]) - 1] == '\n';

		TH_LOG("policy %zu: %s", i, bad[i]);
		EXPECT_EQ(-EINVAL, load_policy(bad[i]));
		assert_good_policy(_metadata);
		EXPECT_EQ(whole ? -EINVAL : 0, cat_policy(bad[i], 0));
		assert_good_policy(_metadata);
	}
	EXPECT_EQ(gen, stat_value("generation"));
}

/* ---- loads and binds under fault injection ---- */

#define DEBUGFS		"/sys/kernel/debug"
#define FAULT_ROUNDS	40
#define FAULT_ROUNDS_LARGE	16

/* Set ATTR of the fault injector DIR (failslab, fail_page_alloc). */
static int fault_attr(const char *dir, const char *attr, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "/%s/%s", dir, attr);
	return write_file(path, value);
}

/*
 * Arm both injectors, for tasks that ask with /proc/self/make-it-fail
 * only, failing PERCENT% of every INTERVAL-th of the kernel's
 * allocations, those that may sleep too; not the pages of user memory
 * (highmem), which would only fail the test program's own page faults.
 */
static int arm_faults(const char *percent, const char *interval)
{
	static const char *const dirs[] = { "failslab", "fail_page_alloc" };
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		err = err ?: fault_attr(dirs[i], "task-filter", "Y") ?:
		      fault_attr(dirs[i], "ignore-gfp-wait", "N") ?:
		      fault_attr(dirs[i], "verbose", "0") ?:
		      fault_attr(dirs[i], "interval", interval) ?:
		      fault_attr(dirs[i], "times", "-1") ?:
		      fault_attr(dirs[i], "space", "0") ?:
		      fault_attr(dirs[i], "probability", percent);
	return err ?: fault_attr("fail_page_alloc", "ignore-gfp-highmem", "Y") ?:
	       fault_attr("fail_page_alloc", "min-order", "0");
}

/*
 * Load TEXT with faults injected into this task; 0 or -errno. The switch
 * is opened before the faults begin, and turned off through the same
 * descriptor, whose write allocates nothing: opening it again could fail.
 */
static int load_policy_failing(const char *text)
{
	int fd = open("/proc/self/make-it-fail", O_WRONLY);
	int err;

	if (fd < 0)
		return -EIO;
	if (pwrite(fd, "1", 1, 0) != 1) {
		close(fd);
		return -EIO;
	}
	err = load_policy(text);
	while (pwrite(fd, "0", 1, 0) != 1)
		;
	close(fd);
	return err;
}

/* A policy of RULES rules on ports 24000 up, for OWNER and SECOND. */
static char *many_rules(unsigned int rules)
{
	size_t size = rules * (strlen(SECOND) + 16) + 1, len = 0;
	char *text = malloc(size);
	unsigned int i;

	for (i = 0; text && i < rules; i++)
		len += snprintf(text + len, size - len, "%u/%s %s\n",
				24000 + i / 2, i % 2 ? "udp" : "tcp",
				i % 3 ? OWNER : SECOND);
	return text;
}

/*
 * One rule for 64 programs over every TCP port: 4,194,240 port and
 * program pairs, 64 short of the limit.
 */
static char *most_pairs(void)
{
	size_t size = 64 * 64, len = 0;
	char *text = malloc(size);
	unsigned int i;

	for (i = 0; text && i < 64; i++)
		len += snprintf(text + len, size - len,
				"1-65535/tcp /usr/lib/kpr-faults/p%u\n", i);
	return text;
}

/*
 * Load TEXT ROUNDS times under injection, alternating with the
 * good policy loaded cleanly: each load commits whole (the canonical text
 * of TEXT, one generation more) or fails and leaves the good policy in
 * force, same generation, with the file's error. Returns the failures.
 */
static int load_under_faults(struct __test_metadata *_metadata,
			     const char *name, const char *text, int rounds)
{
	char *want, *back;
	long long gen;
	int i, err, failed = 0, enomem = 0;

	/* What TEXT reads back as, loaded without faults. */
	ASSERT_EQ(0, load_policy(text)) TH_LOG("%s: clean load", name);
	want = read_policy();
	for (i = 0; i < rounds; i++) {
		ASSERT_EQ(0, load_policy(GOOD_POLICY));
		gen = stat_value("generation");
		err = load_policy_failing(text);
		back = read_policy();
		if (!err) {
			EXPECT_EQ(gen + 1, stat_value("generation"));
			EXPECT_STREQ(want, back) TH_LOG("%s: round %d", name, i);
		} else {
			failed++;
			enomem += err == -ENOMEM;
			EXPECT_EQ(gen, stat_value("generation"));
			EXPECT_STREQ(GOOD_POLICY, back)
				TH_LOG("%s: round %d failed with %d", name, i, err);
		}
		free(back);
	}
	free(want);
	TH_LOG("KPR-FAULTS %s: %d loads, %d failed (%d ENOMEM), %d committed whole",
	       name, rounds, failed, enomem, rounds - failed);
	return failed;
}

/* Loads of the large policies take seconds under KASAN and TCG. */
TEST_F_TIMEOUT(load, faults_lose_nothing, 300)
{
	char *many = many_rules(1024), *pairs = most_pairs();
	int i, rc, failed = 0, refused = 0, nomem = 0;
	bool mounted;

	mounted = !mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(DEBUGFS "/failslab/probability", W_OK) ||
	    access(DEBUGFS "/fail_page_alloc/probability", W_OK))
		SKIP(return, "no failslab and fail_page_alloc (CONFIG_FAULT_INJECTION_DEBUG_FS)");
	ASSERT_NE(NULL, many);
	ASSERT_NE(NULL, pairs);

	/*
	 * Rates at which some loads fail and some commit. At 10% of every
	 * allocation, 38 of 40 loads of 2 rules failed (some 30 allocations
	 * each), and at 1% every load of the large ones; at these rates 8
	 * of 40, 4 of 16 and 1 of 16 did (debug kernel, Linux 7.2).
	 */
	ASSERT_EQ(0, arm_faults("2", "1"));
	failed += load_under_faults(_metadata, "small", "23001/tcp " OWNER "\n"
				    "23002-23010 " SECOND " uid=0\n", FAULT_ROUNDS);
	ASSERT_EQ(0, arm_faults("1", "50"));
	failed += load_under_faults(_metadata, "1024 rules", many,
				    FAULT_ROUNDS_LARGE);
	failed += load_under_faults(_metadata, "4194240 pairs", pairs,
				    FAULT_ROUNDS_LARGE);
	free(many);
	free(pairs);
	EXPECT_LT(0, failed) TH_LOG("no load failed: nothing was injected");

	/* Binds under injection never succeed where the policy refuses. */
	ASSERT_EQ(0, arm_faults("10", "1"));
	ASSERT_EQ(0, load_policy(GOOD_POLICY));
	for (i = 0; i < FAULT_ROUNDS; i++) {
		/* "f": the impostor fails allocations from its socket() on. */
		rc = bind_as(IMPOSTOR, "4", "tcp", 23000, "f");
		EXPECT_NE(0, rc) TH_LOG("round %d: the impostor bound 23000", i);
		refused += rc == EADDRINUSE;
		nomem += rc != EADDRINUSE;
	}
	TH_LOG("KPR-FAULTS binds: %d tries, %d EADDRINUSE, %d failed otherwise (no memory)",
	       FAULT_ROUNDS, refused, nomem);
	ASSERT_EQ(0, arm_faults("0", "1"));
	assert_good_policy(_metadata);
	if (mounted)
		umount(DEBUGFS);
}

/* Through either file, a NUL byte fails the write() that carries it. */
TEST_F(load, nul_byte_keeps_policy)
{
	long long gen = stat_value("generation");
	int fd = open(POLICY, O_WRONLY | O_TRUNC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, write_all(fd, "23001 /a\0\n", 10));
	EXPECT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	fd = open(LOAD, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, write_all(fd, "23001 /a\0\n", 10));
	EXPECT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * A bad line fails the write() that carries it, and every later write()
 * to the same open file: a lost write would splice the lines around it.
 * The close() has nothing to say, and loads nothing, not even the lines
 * before the bad one.
 */
TEST_F(load, bad_line_in_later_write)
{
	long long gen = stat_value("generation");
	int fd = open(POLICY, O_WRONLY | O_TRUNC);
	int kmsg = kmsg_mark();

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, write_all(fd, "23001 /a\n", 9));
	EXPECT_EQ(-EINVAL, write_all(fd, "23002 b\n", 8));
	EXPECT_TRUE(kmsg_since(kmsg, "kportreserve: policy line 2: "));
	EXPECT_EQ(-EINVAL, write_all(fd, "23003 /c\n", 9));
	EXPECT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * A text that does not end with a newline was cut short: it is refused
 * at the close, whether its last line would parse or not, and close()
 * returns 0 all the same.
 */
TEST_F(load, unterminated_last_line_changes_nothing)
{
	static const char *const texts[] = {
		"23001 /a\n23002", "23001 /a\n23002/tcp /b",
	};
	static const char cut[] =
		"policy line 2 has no newline: its writer stopped in the middle of it";
	long long gen = stat_value("generation");
	size_t i;
	int kmsg;

	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		kmsg = kmsg_mark();
		EXPECT_EQ(0, cat_policy(texts[i], 0)) TH_LOG("%s", texts[i]);
		EXPECT_TRUE(kmsg_since(kmsg, cut));
		assert_good_policy(_metadata);
	}
	EXPECT_EQ(gen, stat_value("generation"));
}

TEST_F(load, old_policy_until_close)
{
	int fd = open(POLICY, O_WRONLY | O_TRUNC);
	char *back;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_all(fd, "23001/tcp " OWNER "\n", strlen(OWNER) + 11));
	assert_good_policy(_metadata);
	ASSERT_EQ(0, close(fd));
	back = read_policy();
	EXPECT_STREQ("23001/tcp " OWNER "\n", back);
	free(back);
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 23001, ""));
}

/* Lines in write()s of a few bytes load as the whole text in one does. */
TEST_F(load, lines_in_pieces_load_whole)
{
	const char *text = "23001/tcp " OWNER "\n# a comment\n"
			   "23002-23004/udp " SECOND " uid=0\n80 <kernel>\n";
	char *whole, *pieces;

	ASSERT_EQ(0, load_policy(text));
	whole = read_policy();
	ASSERT_EQ(0, load_policy(GOOD_POLICY));
	ASSERT_EQ(0, cat_policy(text, 3));
	pieces = read_policy();
	EXPECT_STREQ(whole, pieces);
	free(whole);
	free(pieces);
}

/*
 * A child opens the policy file and writes each of TEXTS (NULL-ended) in
 * write()s of its own; then, holding the file, it dies by SIG, or for SIG
 * 0 exits without close(). Its death is the last reference to go.
 */
static void writer_dies(struct __test_metadata *_metadata, int sig,
			const char *const *texts)
{
	int ready[2];
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	if (!pid) {
		int fd = open(POLICY, O_WRONLY | O_TRUNC);

		if (fd < 0)
			_exit(1);
		for (; *texts; texts++)
			if (write_all(fd, *texts, strlen(*texts)))
				_exit(1);
		if (!sig)
			_exit(0);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(1);
	}
	close(ready[1]);
	if (sig) {
		ASSERT_EQ(1, read(ready[0], &c, 1));
		kill(pid, sig);
		EXPECT_EQ(128 + sig, wait_exit(pid));
	} else {
		EXPECT_EQ(0, wait_exit(pid));
	}
	close(ready[0]);
}

/*
 * A writer killed in the middle of a line, between two write()s of it,
 * changes nothing: the kernel sees the text end without a newline, and
 * does not load the lines before.
 */
static void killed_mid_line(struct __test_metadata *_metadata, int sig)
{
	static const char *const texts[] = {
		"23001 /x\n", "23002/tcp /y", NULL,
	};
	long long gen = stat_value("generation");
	int kmsg = kmsg_mark();

	writer_dies(_metadata, sig, texts);
	EXPECT_TRUE(kmsg_since(kmsg,
			       "kportreserve: policy line 2 has no newline"));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

TEST_F(load, writer_killed_by_sigkill_mid_line_changes_nothing)
{
	killed_mid_line(_metadata, SIGKILL);
}

TEST_F(load, writer_killed_by_sigterm_mid_line_changes_nothing)
{
	killed_mid_line(_metadata, SIGTERM);
}

/*
 * A writer killed between two lines loads the lines it wrote, exactly
 * those: the kernel cannot tell that from a writer that meant the
 * shorter policy, since a signal says nothing about the writer's plans.
 */
static void killed_between_lines(struct __test_metadata *_metadata, int sig)
{
	static const char *const texts[] = {
		"23001 /x\n", "23002/tcp /y\n", NULL,
	};
	long long gen = stat_value("generation");
	char *back;

	writer_dies(_metadata, sig, texts);
	back = read_policy();
	EXPECT_STREQ("23001 /x\n23002/tcp /y\n", back);
	free(back);
	EXPECT_EQ(gen + 1, stat_value("generation"));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
}

TEST_F(load, writer_killed_by_sigkill_between_lines_loads_them)
{
	killed_between_lines(_metadata, SIGKILL);
}

TEST_F(load, writer_killed_by_sigterm_between_lines_loads_them)
{
	killed_between_lines(_metadata, SIGTERM);
}

TEST_F(load, writer_exiting_without_close_commits)
{
	static const char *const texts[] = { "23001 /x\n", NULL };
	char *back;

	writer_dies(_metadata, 0, texts);
	back = read_policy();
	EXPECT_STREQ("23001 /x\n", back);
	free(back);
}

/* Nothing is loaded at all: the generation stays where it was. */
TEST_F(load, touch_changes_nothing)
{
	long long gen = stat_value("generation");
	int fd = open(POLICY, O_WRONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

TEST_F(load, empty_write_changes_nothing)
{
	long long gen = stat_value("generation");
	int fd = open(POLICY, O_WRONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write(fd, "", 0));
	ASSERT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

TEST_F(load, ftruncate_starts_over)
{
	int fd = open(POLICY, O_WRONLY);
	char *back;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, write_all(fd, "23005 /a\n23006", 14));
	ASSERT_EQ(0, ftruncate(fd, 0));
	ASSERT_EQ(0, write_all(fd, "23007 /b\n", 9));
	ASSERT_EQ(0, close(fd));
	back = read_policy();
	EXPECT_STREQ("23007 /b\n", back);
	free(back);
}

TEST_F(load, truncate_empties_policy)
{
	int fd = open(POLICY, O_WRONLY | O_TRUNC);
	char *back;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, close(fd));
	back = read_policy();
	EXPECT_STREQ("", back);
	free(back);
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
	EXPECT_EQ(0, stat_value("rules"));
}

TEST_F(load, comments_only_empties_policy)
{
	ASSERT_EQ(0, load_policy("# nothing reserved\n\n"));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
}

TEST_F(load, read_back_round_trip)
{
	char *first, *second;

	ASSERT_EQ(0, load_policy("  9000-9010\t" OWNER "\n# c\n80/udp <kernel>\n"
				 "9000-9010 " OWNER "\n5/tcp /a\\040b\n"));
	first = read_policy();
	EXPECT_STREQ("5/tcp /a\\040b\n80/udp <kernel>\n9000-9010 " OWNER "\n",
		     first);
	ASSERT_EQ(0, load_policy(first));
	second = read_policy();
	EXPECT_STREQ(first, second);
	free(first);
	free(second);
}

/*
 * A 4 MiB policy: KASAN and lockdep under TCG parse it in well over the
 * harness's default 30 s, and a test killed there leaves its cat running
 * to load the policy into the tests after it.
 */
TEST_F_TIMEOUT(load, big_policy_with_busybox_cat, 300)
{
	const char *file = WORKDIR "/big.policy";
	FILE *f = fopen(file, "w");
	struct stat st;
	int port;

	ASSERT_NE(NULL, f);
	for (port = 1; port <= 32768; port++) {
		fprintf(f, "%d/tcp /opt/a/rather/long/path/to/make/four/mebibytes/tcp%05d\n",
			port, port);
		fprintf(f, "%d/udp /opt/a/rather/long/path/to/make/four/mebibytes/udp%05d\n",
			port, port);
	}
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, stat(file, &st));
	ASSERT_LE(4 << 20, st.st_size);
	ASSERT_EQ(0, system("cat " WORKDIR "/big.policy > " POLICY));
	EXPECT_EQ(65536, stat_value("rules"));
	EXPECT_EQ(32768, stat_value("ports"));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 32768, ""));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 32769, ""));
	unlink(file);
}

/* Open PATH with FLAGS as uid and gid 65534; returns 0 or the errno. */
static int open_as_nobody(const char *path, int flags)
{
	pid_t pid = fork();

	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(USAGE);
		_exit(open(path, flags) < 0 ? errno : 0);
	}
	return wait_exit(pid);
}

TEST_F(load, unprivileged_user_cannot_write)
{
	EXPECT_EQ(EACCES, open_as_nobody(POLICY, O_WRONLY | O_TRUNC));
	EXPECT_EQ(EACCES, open_as_nobody(LOAD, O_WRONLY));
	assert_good_policy(_metadata);
}

/*
 * Open PATH for writing as root in a user namespace of its own, whose
 * uid 0 is the real root: 0 when the open file took TEXT, else the errno
 * of the call that failed.
 */
static int write_in_user_namespace(const char *path, const char *text)
{
	pid_t pid = fork();

	if (!pid) {
		int fd;

		if (unshare(CLONE_NEWUSER))
			_exit(USAGE);
		fd = open("/proc/self/uid_map", O_WRONLY);
		if (fd < 0 || write(fd, "0 0 1", 5) != 5 || close(fd))
			_exit(USAGE);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(errno);
		_exit(write_all(fd, text, strlen(text)) ? errno : 0);
	}
	return wait_exit(pid);
}

TEST_F(load, root_in_user_namespace_cannot_write)
{
	EXPECT_EQ(EPERM, write_in_user_namespace(POLICY, "23001 /x\n"));
	EXPECT_EQ(EPERM, write_in_user_namespace(LOAD, "23001 /x\n"));
	assert_good_policy(_metadata);
}

/* The permission bits of PATH, or -1. */
static int mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (int)(st.st_mode & 07777);
}

TEST_F(load, policy_file_modes)
{
	EXPECT_EQ(0600, mode_of(POLICY));
	EXPECT_EQ(0200, mode_of(LOAD));
	EXPECT_EQ(0444, mode_of(STATS));
	/* The modes let root in; without CAP_MAC_ADMIN root is refused. */
	EXPECT_EQ(EPERM, write_without_mac_admin(POLICY, "23001 /x\n"));
	EXPECT_EQ(EPERM, write_without_mac_admin(LOAD, "23001 /x\n"));
	assert_good_policy(_metadata);
}

/* ---- the load file: a whole policy in one write() ---- */

#define NEW_POLICY	"23001/tcp " OWNER "\n"

/* The policy in force reads back as TEXT, and is of generation GEN. */
static void assert_policy_is(struct __test_metadata *_metadata,
			     const char *text, long long gen)
{
	char *back = read_policy();

	EXPECT_STREQ(text, back);
	free(back);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * The write() puts the policy in force before it returns, not the close.
 * A second write() on the same open file would be the rest of a policy
 * that did not fit in the first: it fails, and nothing changes.
 */
TEST_F(load, load_file_takes_one_write)
{
	static const char twice[] =
		"kportreserve: policy written to load in more than one write(); policy unchanged";
	long long gen = stat_value("generation");
	int fd = open(LOAD, O_WRONLY), kmsg;

	ASSERT_LE(0, fd);
	EXPECT_EQ((ssize_t)strlen(NEW_POLICY),
		  write(fd, NEW_POLICY, strlen(NEW_POLICY)));
	assert_policy_is(_metadata, NEW_POLICY, gen + 1);
	kmsg = kmsg_mark();
	EXPECT_EQ(-1, write(fd, GOOD_POLICY, strlen(GOOD_POLICY)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_TRUE(kmsg_since(kmsg, twice));
	EXPECT_EQ(0, close(fd));
	assert_policy_is(_metadata, NEW_POLICY, gen + 1);
}

/* A text that does not end with a newline may be cut short: refused. */
TEST_F(load, load_file_refuses_text_without_newline)
{
	static const char cut[] =
		"kportreserve: policy written to load does not end with a newline";
	long long gen = stat_value("generation");
	int kmsg = kmsg_mark();

	EXPECT_EQ(-EINVAL, load_policy("23001/tcp " OWNER));
	EXPECT_TRUE(kmsg_since(kmsg, cut));
	EXPECT_EQ(-EINVAL, load_policy(NEW_POLICY "23002/tcp " OWNER));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * An empty write() loads nothing; the empty policy is written as a
 * newline.
 */
TEST_F(load, load_file_empty_write_and_empty_policy)
{
	long long gen = stat_value("generation");
	int fd = open(LOAD, O_WRONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, write(fd, "", 0));
	EXPECT_EQ(0, close(fd));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));

	fd = open(LOAD, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "\n", 1));
	assert_policy_is(_metadata, "", gen + 1);
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0, stat_value("rules"));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 23000, ""));
}

/*
 * The file is written, once, from its start: it cannot be read, and
 * offsets are refused, not ignored. The refused calls took nothing: the
 * one write() is still to come.
 */
TEST_F(load, load_file_open_modes_and_offsets)
{
	long long gen = stat_value("generation");
	int fd;

	fd = open(LOAD, O_RDWR);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);
	fd = open(LOAD, O_RDONLY);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
	if (fd >= 0)
		close(fd);

	fd = open(LOAD, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	EXPECT_EQ(-1, pwrite(fd, NEW_POLICY, strlen(NEW_POLICY), 0));
	EXPECT_EQ(ESPIPE, errno);
	assert_policy_is(_metadata, GOOD_POLICY, gen);
	EXPECT_EQ((ssize_t)strlen(NEW_POLICY),
		  write(fd, NEW_POLICY, strlen(NEW_POLICY)));
	EXPECT_EQ(0, close(fd));
	assert_policy_is(_metadata, NEW_POLICY, gen + 1);
}

/*
 * A bad line is named by its number in the text written, the generation
 * line counted: the administrator finds it in the file that was loaded.
 */
TEST_F(load, load_file_names_the_bad_line)
{
	long long gen = stat_value("generation");
	char text[256];
	int kmsg;

	kmsg = kmsg_mark();
	EXPECT_EQ(-EINVAL, load_policy(NEW_POLICY "bad\n"));
	EXPECT_TRUE(kmsg_since(kmsg, "kportreserve: policy line 2: "));
	snprintf(text, sizeof(text), "generation %lld\n" NEW_POLICY "bad\n",
		 gen);
	kmsg = kmsg_mark();
	EXPECT_EQ(-EINVAL, load_policy(text));
	EXPECT_TRUE(kmsg_since(kmsg, "kportreserve: policy line 3: "));
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * "generation N" first: the policy replaces generation N only, and the
 * line is no rule of it.
 */
TEST_F(load, load_file_loads_for_its_generation)
{
	long long gen = stat_value("generation");
	char text[256];

	snprintf(text, sizeof(text), "generation %lld\n" NEW_POLICY, gen);
	EXPECT_EQ(0, load_policy(text));
	assert_policy_is(_metadata, NEW_POLICY, gen + 1);
	EXPECT_EQ(1, stat_value("rules"));
}

/*
 * Another load came first, or the generation named was never in force:
 * the write() fails with ESTALE, nothing changes, and the log says which
 * generation is in force.
 */
TEST_F(load, load_file_stale_generation_fails_estale)
{
	long long gen = stat_value("generation");
	char text[256], why[160];
	int kmsg;

	snprintf(text, sizeof(text), "generation %lld\n" NEW_POLICY, gen);
	ASSERT_EQ(0, load_policy(GOOD_POLICY));
	kmsg = kmsg_mark();
	EXPECT_EQ(-ESTALE, load_policy(text));
	snprintf(why, sizeof(why),
		 "kportreserve: load for generation %lld, but generation %lld is in force; policy unchanged",
		 gen, gen + 1);
	EXPECT_TRUE(kmsg_since(kmsg, why));
	assert_policy_is(_metadata, GOOD_POLICY, gen + 1);

	snprintf(text, sizeof(text), "generation %lld\n" NEW_POLICY, gen + 2);
	EXPECT_EQ(-ESTALE, load_policy(text));
	assert_policy_is(_metadata, GOOD_POLICY, gen + 1);
}

/* A generation line that is not one fails like a bad line. */
TEST_F(load, load_file_malformed_generation_fails)
{
	static const char *const bad[] = {
		/* \040: a space and no number, spelled so checkpatch sees it */
		"generation x\n", "generation\040\n", "generation -1\n",
		"generation 1 2\n", "generation 1x\n",
		"generation 99999999999999999999999\n",
	};
	long long gen = stat_value("generation");
	char text[256];
	size_t i;
	int kmsg;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), "%s" NEW_POLICY, bad[i]);
		kmsg = kmsg_mark();
		EXPECT_EQ(-EINVAL, load_policy(text)) TH_LOG("%s", bad[i]);
		EXPECT_TRUE(kmsg_since(kmsg, "kportreserve: policy line 1: "));
	}
	assert_good_policy(_metadata);
	EXPECT_EQ(gen, stat_value("generation"));
}

/*
 * What cannot be read (EFAULT) or is larger than 16 MiB (E2BIG, before
 * any byte is read) fails the write(), and nothing changes.
 */
TEST_F(load, load_file_refuses_what_it_cannot_take)
{
	const size_t big = (16 << 20) + 1;
	long long gen = stat_value("generation");
	void *bad, *huge;
	int fd;

	bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	fd = open(LOAD, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, bad, 10));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, close(fd));

	huge = mmap(NULL, big, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, huge);
	fd = open(LOAD, O_WRONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, huge, big));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, close(fd));
	munmap(huge, big);
	munmap(bad, 4096);
	assert_policy_is(_metadata, GOOD_POLICY, gen);
}

/* ---- counters ---- */

TEST(stats_count_exactly_what_happened)
{
	long long gen, checked, allowed, denied;

	ASSERT_EQ(0, make_programs());
	gen = stat_value("generation");
	checked = stat_value("checked");
	allowed = stat_value("allowed");
	denied = stat_value("denied");
	ASSERT_EQ(0, load_policy("24000-24009/tcp " OWNER "\n24000/udp " OWNER "\n"));
	EXPECT_EQ(gen + 1, stat_value("generation"));
	EXPECT_EQ(2, stat_value("rules"));
	EXPECT_EQ(10, stat_value("ports"));

	EXPECT_EQ(0, bind_as(OWNER, "4", "tcp", 24000, ""));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "4", "tcp", 24001, ""));
	EXPECT_EQ(EADDRINUSE, bind_as(IMPOSTOR, "6", "udp", 24000, ""));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "udp", 24001, ""));
	EXPECT_EQ(0, bind_as(IMPOSTOR, "4", "tcp", 0, ""));

	EXPECT_EQ(checked + 3, stat_value("checked"));
	EXPECT_EQ(allowed + 1, stat_value("allowed"));
	EXPECT_EQ(denied + 2, stat_value("denied"));
	EXPECT_EQ(0, load_policy(""));
	EXPECT_EQ(gen + 2, stat_value("generation"));
}

/* ---- concurrency ---- */

/*
 * A hammer: PROG binding port 25000 until its stdin is closed, each bind
 * to give WANT. Its stdin and stdout are *to and *from; it has said "r"
 * when this returns.
 */
static pid_t spawn_hammer(const char *prog, int want, int *to, int *from)
{
	char wantbuf[16], c;
	const char *const argv[] = { prog, "--hammer", "4", "tcp", "25000",
			 wantbuf, NULL };
	int in[2], out[2];
	pid_t pid;

	snprintf(wantbuf, sizeof(wantbuf), "%d", want);
	/* Close-on-exec: another hammer must not hold this one's stdin open. */
	if (pipe2(in, O_CLOEXEC))
		return -1;
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to = in[1];
	*from = out[0];
	return read(*from, &c, 1) == 1 ? pid : -1;
}

/*
 * Stop a hammer; returns how many binds it made, or -1, and in *loads
 * how many policy loads happened while it bound.
 */
static long stop_hammer(pid_t pid, int to, int from, int *rc,
			long long *loads)
{
	char buf[64] = "";
	long binds = -1;
	ssize_t n;

	close(to);
	n = read(from, buf, sizeof(buf) - 1);
	close(from);
	*rc = wait_exit(pid);
	*loads = -1;
	if (n <= 0 || sscanf(buf, "%ld %lld", &binds, loads) != 2)
		return -1;
	return binds;
}

/*
 * Two programs bind for as long as policies are swapped under them, and
 * every bind of theirs gets the answer both policies give it. 2,000 loads
 * take longer than the harness's default 30 s under KASAN and TCG.
 */
TEST_F_TIMEOUT(load, reload_while_binding, 300)
{
	static const char *const policies[] = {
		"25000/tcp " OWNER "\n",
		"25000/tcp " OWNER "\n25001 " SECOND "\n1-100 <kernel>\n",
	};
	int owner_to, owner_from, impostor_to, impostor_from, rc;
	long long owner_loads, impostor_loads;
	long owner_binds, impostor_binds;
	pid_t owner, impostor;
	int i;

	ASSERT_EQ(0, make_programs());
	ASSERT_EQ(0, load_policy(policies[0]));
	owner = spawn_hammer(OWNER, 0, &owner_to, &owner_from);
	ASSERT_LT(0, owner);
	impostor = spawn_hammer(IMPOSTOR, EADDRINUSE, &impostor_to,
				&impostor_from);
	ASSERT_LT(0, impostor);
	for (i = 0; i < 2000; i++)
		ASSERT_EQ(0, load_policy(policies[i % 2]));
	owner_binds = stop_hammer(owner, owner_to, owner_from, &rc,
				  &owner_loads);
	EXPECT_EQ(0, rc);
	impostor_binds = stop_hammer(impostor, impostor_to, impostor_from, &rc,
				     &impostor_loads);
	EXPECT_EQ(0, rc);
	load_policy("");
	ksft_print_msg("binds during reloads: owner %ld in %lld, impostor %ld in %lld\n",
		       owner_binds, owner_loads, impostor_binds,
		       impostor_loads);
	/* Both bound all along: far more than half the loads came meanwhile. */
	EXPECT_LT(0, owner_binds);
	EXPECT_LT(0, impostor_binds);
	EXPECT_LE(1000, owner_loads);
	EXPECT_LE(1000, impostor_loads);
}

int main(int argc, char **argv)
{
	if (is_binder(argc, argv))
		return binder_main(argc, argv);
	return test_harness_run(argc, argv);
}
