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
 * with FREE released, every path must get FREE.
 */

#include "common.h"

#define FREE		40000
#define RESERVED	40001
#define PEER		27000
#define RANGE		"/proc/sys/net/ipv4/ip_local_port_range"
#define RESERVED_PORTS	"/proc/sys/net/ipv4/ip_local_reserved_ports"

FIXTURE(autobind) {
	char *old_range;
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
	free(self->old_range);
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

TEST(marks_follow_the_policy_and_spare_the_admins)
{
	char *old = read_file(RESERVED_PORTS);

	ASSERT_NE(NULL, old);
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "41005"));
	ASSERT_EQ(0, load_policy("41000-41002/udp /x\n41005 /x\n41010/sctp /x\n"));
	EXPECT_TRUE(sysctl_reserves(41000));
	EXPECT_TRUE(sysctl_reserves(41002));
	EXPECT_FALSE(sysctl_reserves(41003));
	EXPECT_TRUE(sysctl_reserves(41005));
	EXPECT_TRUE(sysctl_reserves(41010));

	/* A write to the sysctl drops the marks; the next load restores them. */
	ASSERT_EQ(0, write_file(RESERVED_PORTS, "41005"));
	EXPECT_FALSE(sysctl_reserves(41000));
	ASSERT_EQ(0, load_policy("41000-41002/udp /x\n41005 /x\n"));
	EXPECT_TRUE(sysctl_reserves(41000));
	EXPECT_FALSE(sysctl_reserves(41010));

	ASSERT_EQ(0, load_policy(""));
	EXPECT_FALSE(sysctl_reserves(41000));
	EXPECT_FALSE(sysctl_reserves(41002));
	/* The administrator's own reservation outlives the policy. */
	EXPECT_TRUE(sysctl_reserves(41005));
	write_file(RESERVED_PORTS, old);
	free(old);
}

int main(int argc, char **argv)
{
	if (is_binder(argc, argv))
		return binder_main(argc, argv);
	return test_harness_run(argc, argv);
}
