// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve bind hooks: a port with a rule binds only for its programs.
 *
 * bind() on TCP, MPTCP, UDP, UDP-Lite and SCTP sockets comes through
 * socket_bind; the extra addresses of sctp_bindx() come through
 * sctp_bind_connect. So does bind() on the two families that bind a TCP
 * or UDP socket of their own for the caller with kernel_bind(), which no
 * hook sees: SMC (AF_SMC, and AF_INET sockets of IPPROTO_SMC), whose TCP
 * socket serves plain TCP clients by fallback, and AF_RXRPC, whose
 * transport is a UDP socket on the port its address names. io_uring's
 * IORING_OP_BIND reaches socket_bind too, in the submitter's task, one
 * of its io-wq workers or its SQPOLL thread: threads of the submitting
 * process, with its executable. A socket is judged by whether user space
 * drives it, not by who made it: once SMC falls back to TCP, the caller's
 * file leads to SMC's own TCP socket (sock_reached_by_user()). A port
 * without a rule costs one bit test, outside RCU. Only for a reserved port
 * is the caller's executable looked up (identity.c).
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/rxrpc.h>
#include <linux/sctp.h>
#include <linux/socket.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "audit.h"
#include "control.h"
#include "denials.h"
#include "hooks.h"
#include "identity.h"
#include "policy.h"
#include "stats.h"

/**
 * sock_reached_by_user() - tell whether user space drives a socket
 * @sk: the socket
 *
 * What matters is who may call bind() on the socket, not who created it.
 * SMC creates its TCP socket with sock_create_kern(), and when it falls
 * back to plain TCP before the socket is bound (smc_switch_to_fallback():
 * the TCP fast-open options, MSG_FASTOPEN) it hands that socket the
 * caller's file: every later bind() and listen() on the caller's
 * descriptor works on the kernel-made socket. A socket that a file leads
 * to is one user space can reach; the kernel's own sockets have none.
 * Those that pass a hook all the same (the later addresses of DLM's
 * multi-homed SCTP, through sctp_bind_add()) bind for the kernel.
 *
 * Return: true if a file leads to @sk.
 */
static bool sock_reached_by_user(const struct sock *sk)
{
	const struct socket *sock = READ_ONCE(sk->sk_socket);

	return sock && READ_ONCE(sock->file);
}

/**
 * sock_proto() - which rules apply to a socket
 * @sk: the socket
 * @proto: receives the policy's protocol
 *
 * Reservations hold in the initial network namespace; containers have
 * their own port space. Sockets that only the kernel reaches are never
 * checked (sock_reached_by_user()). TCP, MPTCP and SMC follow /tcp rules,
 * UDP, UDP-Lite and AF_RXRPC follow /udp rules, SCTP (one-to-one and
 * one-to-many) /sctp rules; raw sockets with the same protocol number have
 * no ports and are left alone.
 *
 * Return: true if the socket's binds are checked.
 */
static bool sock_proto(const struct sock *sk, enum kpr_proto *proto)
{
	if (!net_eq(sock_net(sk), &init_net) || !sock_reached_by_user(sk))
		return false;
	/* READ_ONCE(): IPV6_ADDRFORM may change it, though never to these. */
	switch (READ_ONCE(sk->sk_family)) {
	case AF_SMC:
		*proto = KPR_PROTO_TCP;
		return true;
	case AF_RXRPC:
		*proto = KPR_PROTO_UDP;
		return true;
	}
	if (!kpr_ip_proto(sk->sk_protocol, proto))
		return false;
	switch (*proto) {
	case KPR_PROTO_TCP:
		return sk->sk_type == SOCK_STREAM;
	case KPR_PROTO_UDP:
		return sk->sk_type == SOCK_DGRAM;
	default:
		return sk->sk_type == SOCK_STREAM ||
		       sk->sk_type == SOCK_SEQPACKET;
	}
}

/**
 * kpr_ip_proto() - which rules apply to an IP protocol
 * @protocol: the socket's protocol (IPPROTO_*)
 * @proto: receives the policy's protocol
 *
 * TCP, MPTCP and SMC follow /tcp rules, UDP /udp rules, SCTP /sctp rules.
 *
 * Return: false for a protocol that no rule names.
 */
bool kpr_ip_proto(int protocol, enum kpr_proto *proto)
{
	switch (protocol) {
	case IPPROTO_TCP:
	case IPPROTO_MPTCP:
	case IPPROTO_SMC:
		*proto = KPR_PROTO_TCP;
		return true;
	case IPPROTO_UDP:
		*proto = KPR_PROTO_UDP;
		return true;
	case IPPROTO_SCTP:
		*proto = KPR_PROTO_SCTP;
		return true;
	default:
		return false;
	}
}

static void set_v4(struct kpr_bind *b, const struct sockaddr_in *sin)
{
	b->family = AF_INET;
	b->port = ntohs(sin->sin_port);
	b->addr = &sin->sin_addr;
}

static void set_v6(struct kpr_bind *b, const struct sockaddr_in6 *sin6)
{
	b->family = AF_INET6;
	b->port = ntohs(sin6->sin6_port);
	b->addr = &sin6->sin6_addr;
}

/**
 * read_inet_bind() - the address a bind() on a TCP, UDP or SMC socket
 *                    asks for
 * @address: the address from user space
 * @addrlen: its length
 * @b: receives the port and address
 *
 * Reads the address as the network stack will (see __inet_bind() and
 * inet6_bind_sk()), but whatever the socket's family: the family can
 * change between this hook and the bind, when another thread converts an
 * IPv6 socket to IPv4 with IPV6_ADDRFORM, and SMC hands the address to a
 * TCP socket whose family cannot be told from here. So an IPv4 address
 * (and AF_UNSPEC with INADDR_ANY, which IPv4 sockets take as AF_INET) is
 * checked on an IPv6 socket too, and the other way round: such a bind to
 * a reserved port gets EADDRINUSE instead of the stack's EINVAL or
 * EAFNOSUPPORT. Short and malformed addresses are left to the stack,
 * which refuses them with its own error.
 *
 * Return: true if @b holds a port to check.
 */
static bool read_inet_bind(const struct sockaddr *address, int addrlen,
			   struct kpr_bind *b)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)address;

	if (addrlen < offsetofend(struct sockaddr, sa_family))
		return false;
	switch (address->sa_family) {
	case AF_UNSPEC:
		if (addrlen < sizeof(*sin) ||
		    sin->sin_addr.s_addr != htonl(INADDR_ANY))
			return false;
		set_v4(b, sin);
		return true;
	case AF_INET:
		if (addrlen < sizeof(*sin))
			return false;
		set_v4(b, sin);
		return true;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		if (addrlen < SIN6_LEN_RFC2133)
			return false;
		set_v6(b, (const struct sockaddr_in6 *)address);
		return true;
#endif
	default:
		return false;
	}
}

/**
 * read_sctp_addr() - one address of an SCTP bind() or sctp_bindx()
 * @address: the address
 * @addrlen: the bytes left from @address on
 * @b: receives the port and address
 *
 * SCTP sockets of either family take IPv4 addresses (sctp_sockaddr_af()),
 * so the family of the socket is not compared here. An address the stack
 * will reject anyway may be checked; that only changes which error a
 * malformed bind() to a reserved port gets.
 *
 * Return: the length of the address, or 0 when it is neither a complete
 * IPv4 nor IPv6 address.
 */
static int read_sctp_addr(const struct sockaddr *address, int addrlen,
			  struct kpr_bind *b)
{
	if (addrlen < offsetofend(struct sockaddr, sa_family))
		return 0;
	switch (address->sa_family) {
	case AF_INET:
		if (addrlen < sizeof(struct sockaddr_in))
			return 0;
		set_v4(b, (const struct sockaddr_in *)address);
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		if (addrlen < sizeof(struct sockaddr_in6))
			return 0;
		set_v6(b, (const struct sockaddr_in6 *)address);
		return sizeof(struct sockaddr_in6);
	default:
		return 0;
	}
}

/**
 * read_rxrpc_bind() - the UDP port a bind() on an AF_RXRPC socket asks for
 * @address: the address from user space, a struct sockaddr_rxrpc
 * @addrlen: its length
 * @b: receives the port and address of its transport
 *
 * rxrpc_bind() opens, or shares, a UDP socket on the transport address
 * (rxrpc_validate_address(), rxrpc_lookup_local()). Addresses it refuses
 * for their length or transport type are left to it.
 *
 * Return: true if @b holds a port to check.
 */
static bool read_rxrpc_bind(const struct sockaddr *address, int addrlen,
			    struct kpr_bind *b)
{
	const struct sockaddr_rxrpc *srx =
		(const struct sockaddr_rxrpc *)address;
	int room = addrlen - offsetof(struct sockaddr_rxrpc, transport);

	if (addrlen < sizeof(*srx) || srx->transport_type != SOCK_DGRAM ||
	    srx->transport_len > room)
		return false;
	switch (srx->transport.family) {
	case AF_INET:
		if (srx->transport_len < sizeof(srx->transport.sin))
			return false;
		set_v4(b, &srx->transport.sin);
		return true;
	case AF_INET6:
		if (srx->transport_len < sizeof(srx->transport.sin6))
			return false;
		set_v6(b, &srx->transport.sin6);
		return true;
	default:
		return false;
	}
}

/**
 * read_bind() - the port and address a bind() asks for, as its socket
 *               reads it
 * @sk: the socket
 * @proto: the policy's protocol for @sk (sock_proto())
 * @address: the address from user space
 * @addrlen: its length
 * @b: receives the port and address
 *
 * Return: true if @b holds a port to check.
 */
static bool read_bind(const struct sock *sk, enum kpr_proto proto,
		      const struct sockaddr *address, int addrlen,
		      struct kpr_bind *b)
{
	if (READ_ONCE(sk->sk_family) == AF_RXRPC)
		return read_rxrpc_bind(address, addrlen, b);
	if (proto == KPR_PROTO_SCTP)
		return read_sctp_addr(address, addrlen, b) != 0;
	return read_inet_bind(address, addrlen, b);
}

static bool port_reserved(enum kpr_proto proto, u16 port)
{
	bool reserved;

	rcu_read_lock();
	reserved = kpr_policy_reserves(rcu_dereference(kpr_active_policy),
				       proto, port);
	rcu_read_unlock();
	return reserved;
}

/**
 * deny() - handle a bind the policy refuses
 * @b: the bind
 * @c: who asked for it
 *
 * Context: process context; may sleep.
 * Return: -EADDRINUSE in enforce mode, 0 in permissive mode.
 */
static int deny(const struct kpr_bind *b, struct kpr_caller *c)
{
	bool permissive = kpr_is_permissive();
	char text[KPR_EXE_TEXT_SIZE];

	kpr_stat_inc(permissive ? KPR_STAT_WOULD_DENY : KPR_STAT_DENIED);
	/* The reports name the program; out of memory, "(null)". */
	kpr_caller_spell(c);
	kpr_exe_text(&c->exe, text);
	kpr_denials_record(b, text, permissive);
	kpr_audit_denied(b, text, permissive);
	return permissive ? 0 : -EADDRINUSE;
}

/**
 * check_reserved() - decide a bind to a reserved port
 * @b: the bind
 *
 * The caller's path is spelled only for the first bind of its executable
 * under the policy in force (see identity.c); later ones reuse its id.
 *
 * Context: process context; may sleep.
 * Return: 0, -EADDRINUSE when a rule reserves the port for others, or
 * -ENOMEM.
 */
static noinline int check_reserved(const struct kpr_bind *b)
{
	const struct kpr_policy *pol;
	struct kpr_caller caller;
	bool reserved, allowed;
	int err;

	kpr_caller_init(&caller);
	rcu_read_lock();
	pol = rcu_dereference(kpr_active_policy);
	if (!kpr_caller_resolve(&caller, pol)) {
		rcu_read_unlock();
		err = kpr_caller_spell(&caller);
		if (err)
			goto out;
		rcu_read_lock();
		pol = rcu_dereference(kpr_active_policy);
		kpr_caller_resolve(&caller, pol);
	}
	/* The policy may have changed since port_reserved(). */
	reserved = kpr_policy_reserves(pol, b->proto, b->port);
	allowed = kpr_policy_allows(pol, b->proto, b->port, &caller.exe);
	rcu_read_unlock();

	err = 0;
	if (reserved) {
		kpr_stat_inc(KPR_STAT_CHECKED);
		if (allowed)
			kpr_stat_inc(KPR_STAT_ALLOWED);
		else
			err = deny(b, &caller);
	}
out:
	kpr_caller_release(&caller);
	return err;
}

/**
 * check_bind() - check a bind() whose port may have a rule
 * @sock: the socket
 * @address: the address from user space
 * @addrlen: its length
 *
 * Return: 0, or -EADDRINUSE when the port is reserved for other programs.
 */
static noinline int check_bind(struct socket *sock, struct sockaddr *address,
			       int addrlen)
{
	struct kpr_bind b;

	if (!sock_proto(sock->sk, &b.proto) ||
	    !read_bind(sock->sk, b.proto, address, addrlen, &b))
		return 0;
	if (!port_reserved(b.proto, b.port))
		return 0;
	return check_reserved(&b);
}

/**
 * kpr_socket_bind() - the socket_bind hook
 * @sock: the socket
 * @address: the address from user space
 * @addrlen: its length
 *
 * Every address kportreserve checks but AF_RXRPC's keeps its port where
 * struct sockaddr_in does, so that port's bit is tested before anything
 * else (kpr_port_may_be_reserved()): for a port without a rule, this is
 * the whole cost, with no RCU read-side section. A bind of another kind
 * whose bytes there happen to name a reserved port only takes the longer
 * way to the same answer. AF_RXRPC's port lies deeper, in its transport
 * address: such binds always take the longer way.
 *
 * Return: 0, or -EADDRINUSE when the port is reserved for other programs.
 */
int kpr_socket_bind(struct socket *sock, struct sockaddr *address,
		    int addrlen)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)address;

	BUILD_BUG_ON(offsetof(struct sockaddr_in, sin_port) !=
		     offsetof(struct sockaddr_in6, sin6_port));
	if (addrlen < offsetofend(struct sockaddr_in, sin_port))
		return 0;
	if (unlikely(address->sa_family == AF_RXRPC))
		return check_bind(sock, address, addrlen);
	if (!kpr_port_may_be_reserved(ntohs(sin->sin_port)))
		return 0;
	return check_bind(sock, address, addrlen);
}

/**
 * kpr_sctp_bind_connect() - the sctp_bind_connect hook
 * @sk: the SCTP socket
 * @optname: what the addresses are for
 * @address: a packed array of IPv4 and IPv6 addresses
 * @addrlen: the length of the array
 *
 * Checks the addresses that sctp_bindx(SCTP_BINDX_ADD_ADDR) binds; the
 * stack has already walked the array (sctp_setsockopt_bindx()). Primary
 * address changes and connects bind no port and pass, and so do the
 * addresses a peer adds or makes primary with an ASCONF chunk.
 *
 * Context: process context, socket locked, for the socket options; softirq
 * for a peer's ASCONF chunk (sctp_process_asconf_param()), which returns
 * before anything that may sleep.
 * Return: 0, or -EADDRINUSE when a port is reserved for other programs.
 */
int kpr_sctp_bind_connect(struct sock *sk, int optname,
			  struct sockaddr *address, int addrlen)
{
	struct kpr_bind b;
	int len, err;

	if (optname != SCTP_SOCKOPT_BINDX_ADD || !sock_proto(sk, &b.proto))
		return 0;
	while (addrlen > 0) {
		len = read_sctp_addr(address, addrlen, &b);
		if (!len)
			return 0;
		if (kpr_port_may_be_reserved(b.port) &&
		    port_reserved(b.proto, b.port)) {
			err = check_reserved(&b);
			if (err)
				return err;
		}
		address = (struct sockaddr *)((u8 *)address + len);
		addrlen -= len;
	}
	return 0;
}
