// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve bind hooks: a port with a rule binds only for its programs.
 *
 * bind() on TCP, MPTCP, UDP, UDP-Lite and SCTP sockets comes through
 * socket_bind; the extra addresses of sctp_bindx() come through
 * sctp_bind_connect. A port without a rule costs one bit test under RCU.
 * Only for a reserved port is the caller's executable looked up, before
 * rcu_read_lock(), since building a path may sleep.
 */

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/namei.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/sctp.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "audit.h"
#include "control.h"
#include "denials.h"
#include "hooks.h"
#include "policy.h"
#include "stats.h"

/**
 * sock_proto() - which rules apply to a socket
 * @sk: the socket
 * @proto: receives the policy's protocol
 *
 * Reservations hold in the initial network namespace; containers have
 * their own port space. TCP and MPTCP follow /tcp rules, UDP and UDP-Lite
 * follow /udp rules, SCTP (one-to-one and one-to-many) /sctp rules; raw
 * sockets with the same protocol number have no ports and are left alone.
 *
 * Return: true if the socket's binds are checked.
 */
static bool sock_proto(const struct sock *sk, enum kpr_proto *proto)
{
	if (!net_eq(sock_net(sk), &init_net))
		return false;
	switch (sk->sk_protocol) {
	case IPPROTO_TCP:
	case IPPROTO_MPTCP:
		*proto = KPR_PROTO_TCP;
		return sk->sk_type == SOCK_STREAM;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		*proto = KPR_PROTO_UDP;
		return sk->sk_type == SOCK_DGRAM;
	case IPPROTO_SCTP:
		*proto = KPR_PROTO_SCTP;
		return sk->sk_type == SOCK_STREAM ||
		       sk->sk_type == SOCK_SEQPACKET;
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
 * read_inet_bind() - the address a bind() on a TCP or UDP socket asks for
 * @sk: the socket
 * @address: the address from user space
 * @addrlen: its length
 * @b: receives the port and address
 *
 * Reads the address as the network stack will (see __inet_bind() and
 * inet6_bind_sk()). Anything the stack rejects on its own (short or
 * malformed addresses, a family that does not match the socket) is left
 * alone, so the caller gets the stack's own error unchanged.
 *
 * Return: true if @b holds a port to check.
 */
static bool read_inet_bind(const struct sock *sk,
			   const struct sockaddr *address, int addrlen,
			   struct kpr_bind *b)
{
	/* sk_family can change under us through IPV6_ADDRFORM. */
	unsigned short family = READ_ONCE(sk->sk_family);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)address;

	if (addrlen < offsetofend(struct sockaddr, sa_family))
		return false;
	switch (address->sa_family) {
	case AF_UNSPEC:
		/* IPv4 sockets take AF_UNSPEC with INADDR_ANY as AF_INET. */
		if (family != AF_INET || addrlen < sizeof(*sin) ||
		    sin->sin_addr.s_addr != htonl(INADDR_ANY))
			return false;
		set_v4(b, sin);
		return true;
	case AF_INET:
		if (family != AF_INET || addrlen < sizeof(*sin))
			return false;
		set_v4(b, sin);
		return true;
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		if (family != AF_INET6 || addrlen < SIN6_LEN_RFC2133)
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
 * exe_path_trusted() - tell whether the executable's path names it
 * @exe: the path of the executable
 *
 * The path of a file is spelled from the root of its mount namespace, and
 * whoever owns that namespace decides what its paths name. An unprivileged
 * user who unshares a user and a mount namespace can mount anything on
 * /usr/sbin and run it, or pass a file from there to another process that
 * executes it. So a path is trusted only when the caller runs in the
 * initial user namespace, whose mount namespaces only privileged tasks
 * create, and the executable lives in the caller's own mount namespace.
 * Services in private mount namespaces (systemd's PrivateTmp= and
 * ProtectSystem=) and chrooted programs pass.
 *
 * Context: process context; may sleep.
 * Return: true if the path of @exe identifies the program.
 */
static bool exe_path_trusted(const struct path *exe)
{
	struct path root;
	bool trusted;

	if (current_user_ns() != &init_user_ns || !current->fs)
		return false;
	get_fs_root(current->fs, &root);
	/* Climb from the (maybe chrooted) root to the namespace's root. */
	while (follow_up(&root))
		;
	dput(root.dentry);
	root.dentry = dget(root.mnt->mnt_root);
	trusted = path_is_under(exe, &root);
	path_put(&root);
	return trusted;
}

/**
 * current_exe() - find who is binding
 * @exe: receives the identity
 * @buf: a buffer of PATH_MAX bytes for the path
 *
 * The executable is the file of current->mm as seen from the root of the
 * mount namespace (chroot ignored). Its dentry keeps its name after the
 * file is unlinked or replaced on disk, so a running program keeps its
 * ports through a package upgrade. An executable whose path cannot be
 * trusted (see exe_path_trusted()) leaves @exe without a path: unlisted.
 * The effective ids are those uid= and gid= qualifiers match.
 *
 * Context: process context; may sleep.
 */
static void current_exe(struct kpr_exe *exe, char *buf)
{
	struct file *file;
	char *path = ERR_PTR(-EPERM);

	*exe = (struct kpr_exe){
		.uid = from_kuid(&init_user_ns, current_euid()),
		.gid = from_kgid(&init_user_ns, current_egid()),
	};
	if (current->flags & PF_KTHREAD) {
		exe->kernel = true;
		return;
	}
	file = get_mm_exe_file(current->mm);
	if (!file)
		return;
	if (exe_path_trusted(&file->f_path))
		path = d_absolute_path(&file->f_path, buf, PATH_MAX);
	fput(file);
	if (IS_ERR(path))
		return;
	exe->path = path;
	exe->len = buf + PATH_MAX - 1 - path;
}

/**
 * deny() - handle a bind the policy refuses
 * @b: the bind
 * @exe: who asked for it
 *
 * Context: process context; may sleep.
 * Return: -EADDRINUSE in enforce mode, 0 in permissive mode.
 */
static int deny(const struct kpr_bind *b, const struct kpr_exe *exe)
{
	bool permissive = kpr_is_permissive();

	kpr_stat_inc(permissive ? KPR_STAT_WOULD_DENY : KPR_STAT_DENIED);
	kpr_denials_record(b, exe, permissive);
	kpr_audit_denied(b, exe, permissive);
	return permissive ? 0 : -EADDRINUSE;
}

/**
 * check_reserved() - decide a bind to a reserved port
 * @b: the bind
 *
 * Context: process context; may sleep.
 * Return: 0, -EADDRINUSE when a rule reserves the port for others, or
 * -ENOMEM.
 */
static noinline int check_reserved(const struct kpr_bind *b)
{
	const struct kpr_policy *pol;
	struct kpr_exe exe;
	bool reserved, allowed;
	char *buf;
	int err = 0;

	buf = __getname();
	if (!buf)
		return -ENOMEM;
	current_exe(&exe, buf);

	rcu_read_lock();
	pol = rcu_dereference(kpr_active_policy);
	/* The policy may have changed since port_reserved(). */
	reserved = kpr_policy_reserves(pol, b->proto, b->port);
	allowed = kpr_policy_allows(pol, b->proto, b->port, &exe);
	rcu_read_unlock();

	if (reserved) {
		kpr_stat_inc(KPR_STAT_CHECKED);
		if (allowed)
			kpr_stat_inc(KPR_STAT_ALLOWED);
		else
			err = deny(b, &exe);
	}
	__putname(buf);
	return err;
}

/**
 * kpr_socket_bind() - the socket_bind hook
 * @sock: the socket
 * @address: the address from user space
 * @addrlen: its length
 *
 * Return: 0, or -EADDRINUSE when the port is reserved for other programs.
 */
int kpr_socket_bind(struct socket *sock, struct sockaddr *address,
		    int addrlen)
{
	struct kpr_bind b;

	if (!sock_proto(sock->sk, &b.proto))
		return 0;
	if (b.proto == KPR_PROTO_SCTP) {
		if (!read_sctp_addr(address, addrlen, &b))
			return 0;
	} else if (!read_inet_bind(sock->sk, address, addrlen, &b)) {
		return 0;
	}
	if (!b.port || !port_reserved(b.proto, b.port))
		return 0;
	return check_reserved(&b);
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
 * address changes and connects bind no port and pass.
 *
 * Context: process context, socket locked; may sleep.
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
		if (b.port && port_reserved(b.proto, b.port)) {
			err = check_reserved(&b);
			if (err)
				return err;
		}
		address = (struct sockaddr *)((u8 *)address + len);
		addrlen -= len;
	}
	return 0;
}
