// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve bind hook: a port with a rule binds only for its programs.
 *
 * A port without a rule costs one bit test under RCU. Only for a reserved
 * port is the caller's executable looked up, before rcu_read_lock(), since
 * building a path may sleep.
 */

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/namei.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "audit.h"
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
 * follow /udp rules; raw sockets with the same protocol number have no
 * ports and are left alone.
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
	default:
		return false;
	}
}

/**
 * bind_port() - the port a bind() asks for
 * @sk: the socket
 * @address: the address from user space
 * @addrlen: its length
 *
 * Reads the address as the network stack will (see __inet_bind() and
 * inet6_bind_sk()). Anything the stack rejects on its own (short or
 * malformed addresses, a family that does not match the socket) yields 0,
 * so the caller gets the stack's own error unchanged.
 *
 * Return: the port in host order, or 0 when there is nothing to check.
 */
static u16 bind_port(const struct sock *sk, const struct sockaddr *address,
		     int addrlen)
{
	/* sk_family can change under us through IPV6_ADDRFORM. */
	unsigned short family = READ_ONCE(sk->sk_family);
	const struct sockaddr_in *sin = (const struct sockaddr_in *)address;

	if (addrlen < offsetofend(struct sockaddr, sa_family))
		return 0;
	switch (address->sa_family) {
	case AF_UNSPEC:
		/* IPv4 sockets take AF_UNSPEC with INADDR_ANY as AF_INET. */
		if (family != AF_INET || addrlen < sizeof(*sin) ||
		    sin->sin_addr.s_addr != htonl(INADDR_ANY))
			return 0;
		return ntohs(sin->sin_port);
	case AF_INET:
		if (family != AF_INET || addrlen < sizeof(*sin))
			return 0;
		return ntohs(sin->sin_port);
#if IS_ENABLED(CONFIG_IPV6)
	case AF_INET6:
		if (family != AF_INET6 || addrlen < SIN6_LEN_RFC2133)
			return 0;
		return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
#endif
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
 *
 * Context: process context; may sleep.
 */
static void current_exe(struct kpr_exe *exe, char *buf)
{
	struct file *file;
	char *path = ERR_PTR(-EPERM);

	*exe = (struct kpr_exe){};
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
 * check_reserved() - decide a bind to a reserved port
 * @proto: the protocol
 * @port: the port, in host order
 *
 * Context: process context; may sleep.
 * Return: 0, -EADDRINUSE when a rule reserves the port for others, or
 * -ENOMEM.
 */
static noinline int check_reserved(enum kpr_proto proto, u16 port)
{
	const struct kpr_policy *pol;
	struct kpr_exe exe;
	bool reserved, allowed;
	char *buf;

	buf = __getname();
	if (!buf)
		return -ENOMEM;
	current_exe(&exe, buf);

	rcu_read_lock();
	pol = rcu_dereference(kpr_active_policy);
	/* The policy may have changed since port_reserved(). */
	reserved = kpr_policy_reserves(pol, proto, port);
	allowed = kpr_policy_allows(pol, proto, port, &exe);
	rcu_read_unlock();

	if (reserved) {
		kpr_stat_inc(KPR_STAT_CHECKED);
		kpr_stat_inc(allowed ? KPR_STAT_ALLOWED : KPR_STAT_DENIED);
		if (!allowed)
			kpr_audit_denied(proto, port, &exe);
	}
	__putname(buf);
	return allowed ? 0 : -EADDRINUSE;
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
	enum kpr_proto proto;
	u16 port;

	if (!sock_proto(sock->sk, &proto))
		return 0;
	port = bind_port(sock->sk, address, addrlen);
	if (!port || !port_reserved(proto, port))
		return 0;
	return check_reserved(proto, port);
}
