/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kportreserve selftests: what the test programs share.
 *
 * Program identity is the executable's path, so a test copies its own
 * program to several paths and runs the copies, with "--bind ...", as the
 * programs a policy lists or does not list.
 */
#ifndef _KPR_SELFTEST_COMMON_H
#define _KPR_SELFTEST_COMMON_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
/* Before <sys/mount.h>, which takes over the block ioctls of <linux/fs.h>. */
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../kselftest_harness.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SOL_SCTP
#define SOL_SCTP 132
#endif
#ifndef IPPROTO_SMC
#define IPPROTO_SMC 256
#endif
/* From <linux/rxrpc.h>, which clashes with <netinet/in.h>. */
struct kpr_sockaddr_rxrpc {
	sa_family_t srx_family;
	unsigned short srx_service;
	unsigned short transport_type;
	unsigned short transport_len;
	union {
		sa_family_t family;
		struct sockaddr_in sin;
		struct sockaddr_in6 sin6;
	} transport;
};

/* IORING_OP_BIND, new in Linux 6.11: older headers lack it. */
#define KPR_IORING_OP_BIND 56
/* From <linux/sctp.h>, which clashes with <netinet/in.h>. */
#define SCTP_SOCKOPT_BINDX_ADD 100

#define POLICY		"/sys/kernel/security/kportreserve/policy"
#define KPR_FS		"/sys/kernel/security/kportreserve"
#define LOAD		KPR_FS "/load"
#define STATS		KPR_FS "/stats"
#define MODE		KPR_FS "/mode"
#define LOCK		KPR_FS "/lock"
#define DENIALS		KPR_FS "/denials"
#define WORKDIR		"/tmp/kpr-selftest"
#define OWNER		WORKDIR "/owner"
#define SECOND		WORKDIR "/second"
#define IMPOSTOR	WORKDIR "/impostor"
#define SIN6_LEN_RFC2133 24

/* Exit codes of "--bind" beside errno values: the socket could not be made. */
#define NO_SOCKET	200
#define USAGE		201

/*
 * The bounds of the functions kportreserve_test copies to anonymous memory
 * (section kpr_exe_blob), which the linker defines.
 */
extern char __start_kpr_exe_blob[], __stop_kpr_exe_blob[];

/* ---- the binder: what a copy of this program does with --bind ---- */

/*
 * TYPE is tcp, mptcp, udp, udplite, sctp, sctpseq, smc (an AF_SMC
 * socket), smcinet (an AF_INET or AF_INET6 socket of IPPROTO_SMC) or rxrpc
 * (an AF_RXRPC socket on a UDP transport of FAMILY), and may end with
 * "+uring", "+uring-async" or "+uring-sqpoll" (see bind_once()).
 */
static inline int type_is(const char *type, const char *name)
{
	size_t len = strcspn(type, "+");

	return len == strlen(name) && !strncmp(type, name, len);
}

static inline int make_socket(char family, const char *type)
{
	int domain = (family == '4' || family == 'u') ? AF_INET : AF_INET6;

	if (type_is(type, "tcp"))
		return socket(domain, SOCK_STREAM, IPPROTO_TCP);
	if (type_is(type, "mptcp"))
		return socket(domain, SOCK_STREAM, IPPROTO_MPTCP);
	if (type_is(type, "udp"))
		return socket(domain, SOCK_DGRAM, IPPROTO_UDP);
	if (type_is(type, "udplite"))
		return socket(domain, SOCK_DGRAM, IPPROTO_UDPLITE);
	if (type_is(type, "sctp"))
		return socket(domain, SOCK_STREAM, IPPROTO_SCTP);
	if (type_is(type, "sctpseq"))
		return socket(domain, SOCK_SEQPACKET, IPPROTO_SCTP);
	/* SMCPROTO_SMC is 0, SMCPROTO_SMC6 is 1. */
	if (type_is(type, "smc"))
		return socket(AF_SMC, SOCK_STREAM, domain == AF_INET6);
	if (type_is(type, "smcinet"))
		return socket(domain, SOCK_STREAM, IPPROTO_SMC);
	if (type_is(type, "rxrpc"))
		return socket(AF_RXRPC, SOCK_DGRAM, domain);
	return -1;
}

/* FAMILY as bind_once() takes it, as an address of PORT; returns its length. */
static inline socklen_t make_addr(char family, int port,
				  struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == '6' || family == 'm') {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (family == 'm')
			inet_pton(AF_INET6, "::ffff:0.0.0.0", &sin6->sin6_addr);
		return sizeof(*sin6);
	}
	sin->sin_family = family == 'u' ? AF_UNSPEC : AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = htonl(INADDR_ANY);
	return sizeof(*sin);
}

/*
 * The address a bind() of TYPE takes: make_addr()'s, or for rxrpc a
 * client address (service 0) whose UDP transport is make_addr()'s.
 */
static inline socklen_t make_bind_addr(char family, const char *type,
				       int port, struct sockaddr_storage *ss)
{
	struct kpr_sockaddr_rxrpc *srx = (struct kpr_sockaddr_rxrpc *)ss;
	struct sockaddr_storage inner;
	socklen_t len = make_addr(family, port, &inner);

	if (strncmp(type, "rxrpc", 5)) {
		memcpy(ss, &inner, sizeof(inner));
		return len;
	}
	memset(ss, 0, sizeof(*ss));
	srx->srx_family = AF_RXRPC;
	srx->transport_type = SOCK_DGRAM;
	srx->transport_len = len;
	memcpy(&srx->transport, &inner, len);
	return sizeof(*srx);
}

/* The little of io_uring that uring_bind() needs. */
struct kpr_ring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
};

static inline void ring_close(struct kpr_ring *r)
{
	if (r->sqes)
		munmap(r->sqes, r->p.sq_entries * sizeof(*r->sqes));
	if (r->cq)
		munmap(r->cq, r->cq_len);
	if (r->sq)
		munmap(r->sq, r->sq_len);
	close(r->fd);
}

/* Whether the ring knows IORING_OP_BIND (Linux 6.11 and later). */
static inline int ring_has_bind(int fd)
{
	size_t size = sizeof(struct io_uring_probe) +
		      256 * sizeof(struct io_uring_probe_op);
	struct io_uring_probe *probe = calloc(1, size);
	int ok;

	if (!probe)
		return 0;
	ok = !syscall(__NR_io_uring_register, fd, IORING_REGISTER_PROBE,
		      probe, 256) &&
	     probe->last_op >= KPR_IORING_OP_BIND &&
	     (probe->ops[KPR_IORING_OP_BIND].flags & IO_URING_OP_SUPPORTED);
	free(probe);
	return ok;
}

/* Map the rings of r->fd, whose parameters r->p holds. */
static inline int ring_map(struct kpr_ring *r)
{
	void *map;

	r->sq_len = r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned int);
	r->cq_len = r->p.cq_off.cqes +
		    r->p.cq_entries * sizeof(struct io_uring_cqe);
	map = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (map == MAP_FAILED)
		return -1;
	r->sq = map;
	map = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	if (map == MAP_FAILED)
		return -1;
	r->cq = map;
	map = mmap(NULL, r->p.sq_entries * sizeof(*r->sqes),
		   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		   IORING_OFF_SQES);
	if (map == MAP_FAILED)
		return -1;
	r->sqes = map;
	return 0;
}

static inline int ring_open(struct kpr_ring *r, int sqpoll)
{
	memset(r, 0, sizeof(*r));
	if (sqpoll) {
		r->p.flags = IORING_SETUP_SQPOLL;
		r->p.sq_thread_idle = 1000;
	}
	r->fd = syscall(__NR_io_uring_setup, 4, &r->p);
	if (r->fd < 0)
		return -1;
	if (!ring_has_bind(r->fd) || ring_map(r)) {
		ring_close(r);
		return -1;
	}
	return 0;
}

/* A field of the SQ or CQ ring mapped at BASE, OFFSET bytes in. */
static inline unsigned int *ring_field(void *base, __u32 offset)
{
	return (unsigned int *)((char *)base + offset);
}

/*
 * bind() through io_uring's IORING_OP_BIND on ring r: HOW is "uring"
 * (issued inline by the submitting task), "uring-async" (IOSQE_ASYNC: by
 * an io-wq worker) or "uring-sqpoll" (by the ring's SQPOLL thread), with
 * the credentials of PERSONALITY, or the submitter's own for 0; FD -1
 * names the ring's registered file 0. Returns 0, the errno of the bind,
 * or USAGE.
 */
static inline int ring_bind(struct kpr_ring *r, int fd,
			    const struct sockaddr *sa, socklen_t len,
			    const char *how, int personality)
{
	int sqpoll = !strcmp(how, "uring-sqpoll");
	unsigned int flags = IORING_ENTER_GETEVENTS, head, tail;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int res;

	tail = *ring_field(r->sq, r->p.sq_off.tail);
	sqe = &r->sqes[tail & *ring_field(r->sq, r->p.sq_off.ring_mask)];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = KPR_IORING_OP_BIND;
	sqe->fd = fd;
	sqe->addr = (unsigned long)sa;
	sqe->addr2 = len;
	sqe->personality = personality;
	if (!strcmp(how, "uring-async"))
		sqe->flags = IOSQE_ASYNC;
	/* -1: the ring's registered file 0. */
	if (fd < 0) {
		sqe->fd = 0;
		sqe->flags |= IOSQE_FIXED_FILE;
	}
	ring_field(r->sq, r->p.sq_off.array)[tail &
		*ring_field(r->sq, r->p.sq_off.ring_mask)] =
		tail & *ring_field(r->sq, r->p.sq_off.ring_mask);
	__atomic_store_n(ring_field(r->sq, r->p.sq_off.tail), tail + 1,
			 __ATOMIC_RELEASE);
	if (sqpoll && (__atomic_load_n(ring_field(r->sq, r->p.sq_off.flags),
				       __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP))
		flags |= IORING_ENTER_SQ_WAKEUP;
	if (syscall(__NR_io_uring_enter, r->fd, sqpoll ? 0 : 1, 1, flags,
		    NULL, 0) < 0)
		return USAGE;
	head = *ring_field(r->cq, r->p.cq_off.head);
	if (head == __atomic_load_n(ring_field(r->cq, r->p.cq_off.tail),
				    __ATOMIC_ACQUIRE))
		return USAGE;
	cqe = (struct io_uring_cqe *)((char *)r->cq + r->p.cq_off.cqes) +
	      (head & *ring_field(r->cq, r->p.cq_off.ring_mask));
	res = cqe->res;
	__atomic_store_n(ring_field(r->cq, r->p.cq_off.head), head + 1,
			 __ATOMIC_RELEASE);
	return res < 0 ? -res : 0;
}

/*
 * A ring this program did not open and a personality registered on it,
 * for "--uring-bind": bind_once() binds through it instead of a ring of
 * its own. Its SQPOLL thread, a thread of the ring's creator, reads the
 * address at borrowed_addr in the creator's memory, and the socket as a
 * file registered with the ring.
 */
static struct kpr_ring *borrowed_ring;
static int borrowed_personality;
static unsigned long borrowed_addr;

/* Register fd as the ring's file 0 for its SQPOLL thread; 0 or -1. */
static inline int ring_register_file(struct kpr_ring *r, int fd)
{
	return syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES,
		       &fd, 1) ? -1 : 0;
}

/* bind() through io_uring, as ring_bind() says, on a ring of its own. */
static inline int uring_bind(int fd, const struct sockaddr *sa,
			     socklen_t len, const char *how)
{
	struct kpr_ring r;
	int err;

	if (borrowed_ring && !strcmp(how, "uring-sqpoll"))
		return ring_register_file(borrowed_ring, fd) ? USAGE :
		       ring_bind(borrowed_ring, -1,
				 (const struct sockaddr *)borrowed_addr, len,
				 how, borrowed_personality);
	if (borrowed_ring)
		return ring_bind(borrowed_ring, fd, sa, len, how,
				 borrowed_personality);
	if (ring_open(&r, !strcmp(how, "uring-sqpoll")))
		return NO_SOCKET;
	err = ring_bind(&r, fd, sa, len, how, 0);
	ring_close(&r);
	return err;
}

/*
 * Before the bind, FLAGS may make an SMC socket fall back to TCP, which
 * hands the descriptor to SMC's own TCP socket (smc_switch_to_fallback()):
 * F, C, K and N set TCP_FASTOPEN, TCP_FASTOPEN_CONNECT, TCP_FASTOPEN_KEY
 * and TCP_FASTOPEN_NO_COOKIE, M sends with MSG_FASTOPEN. A converts an
 * IPv6 UDP socket to IPv4 with IPV6_ADDRFORM (which wants it connected to
 * an IPv4-mapped address) and disconnects it, which unbinds it. Returns 0
 * or USAGE.
 */
static inline int prepare_socket(int fd, const char *flags)
{
	static const struct {
		char flag;
		int optname;
	} options[] = {
		{ 'F', TCP_FASTOPEN }, { 'C', TCP_FASTOPEN_CONNECT },
		{ 'K', TCP_FASTOPEN_KEY }, { 'N', TCP_FASTOPEN_NO_COOKIE },
	};
	struct sockaddr_in unspec = { .sin_family = AF_UNSPEC };
	char value[16] = { 1 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(options); i++)
		if (strchr(flags, options[i].flag) &&
		    setsockopt(fd, IPPROTO_TCP, options[i].optname, value,
			       options[i].optname == TCP_FASTOPEN_KEY ?
			       16 : sizeof(int)))
			return USAGE;
	/* Refused by TCP for its AF_UNSPEC address, after SMC fell back. */
	if (strchr(flags, 'M') &&
	    sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&unspec,
		   sizeof(unspec)) != -1)
		return USAGE;
	if (strchr(flags, 'A')) {
		struct sockaddr_in6 peer = {
			.sin6_family = AF_INET6,
			.sin6_port = htons(9),
		};
		int v4 = AF_INET;

		inet_pton(AF_INET6, "::ffff:127.0.0.1", &peer.sin6_addr);
		if (connect(fd, (struct sockaddr *)&peer, sizeof(peer)) ||
		    setsockopt(fd, IPPROTO_IPV6, IPV6_ADDRFORM, &v4,
			       sizeof(v4)) ||
		    connect(fd, (struct sockaddr *)&unspec, sizeof(unspec)))
			return USAGE;
	}
	return 0;
}

/*
 * Bind a new socket: FAMILY is 4 (IPv4), 6 (IPv6), m (IPv4-mapped IPv6),
 * u (AF_UNSPEC with INADDR_ANY on an IPv4 socket) or x (an IPv4 address
 * on an IPv6 socket); FLAGS may hold s (short addrlen), x (SCTP: add the
 * address with sctp_bindx(), the SCTP_SOCKOPT_BINDX_ADD socket option, on
 * the unbound socket, so that it picks the port) and those of
 * prepare_socket(). Returns 0 or the errno of bind() or setsockopt().
 */
static inline int bind_once(char family, const char *type, int port,
			    const char *flags)
{
	struct sockaddr_storage ss;
	socklen_t len = make_bind_addr(family, type, port, &ss);
	const char *how = strchr(type, '+');
	int fd, err;

	fd = make_socket(family, type);
	if (fd < 0)
		return NO_SOCKET;
	if (prepare_socket(fd, flags)) {
		close(fd);
		return USAGE;
	}
	/* One byte short of what the family needs: the stack refuses it. */
	if (strchr(flags, 's') && !strncmp(type, "rxrpc", 5))
		len--;
	else if (strchr(flags, 's'))
		len = (family == '6' || family == 'm') ? SIN6_LEN_RFC2133 - 1 :
							 sizeof(struct sockaddr_in) - 1;
	if (strchr(flags, 'x'))
		err = setsockopt(fd, SOL_SCTP, SCTP_SOCKOPT_BINDX_ADD, &ss,
				 len) ? errno : 0;
	else if (how)
		err = uring_bind(fd, (struct sockaddr *)&ss, len, how + 1);
	else
		err = bind(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	close(fd);
	return err;
}

/* The local port of a socket, or -1. */
static inline int local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/*
 * Let the kernel pick a port, the way HOW says: bind0 (bind() to port 0),
 * listen (listen() unbound), connect (connect() unbound to PEER on
 * 127.0.0.1 or ::1) or sendto (sendto() unbound to PEER). Prints the
 * port it got on stdout; returns 0 or the errno of the call.
 */
static inline int autobind_once(char family, const char *type,
				const char *how, int peer)
{
	struct sockaddr_storage ss;
	socklen_t len = make_addr(family, 0, &ss);
	int fd, err;

	fd = make_socket(family, type);
	if (fd < 0)
		return NO_SOCKET;
	if (!strcmp(how, "bind0")) {
		err = bind(fd, (struct sockaddr *)&ss, len);
	} else if (!strcmp(how, "listen")) {
		err = listen(fd, 1);
	} else {
		len = make_addr(family, peer, &ss);
		if (family == '6')
			inet_pton(AF_INET6, "::1",
				  &((struct sockaddr_in6 *)&ss)->sin6_addr);
		else
			inet_pton(AF_INET, "127.0.0.1",
				  &((struct sockaddr_in *)&ss)->sin_addr);
		if (!strcmp(how, "connect"))
			err = connect(fd, (struct sockaddr *)&ss, len);
		else
			err = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss,
				     len) == 1 ? 0 : -1;
	}
	err = err ? errno : 0;
	if (!err)
		printf("%d\n", local_port(fd));
	close(fd);
	return err;
}

static inline long long stat_value(const char *name);

/*
 * --hammer: bind until told to stop, as binder_main() says; prints how
 * many binds it made and by how many generations the policy moved
 * meanwhile.
 */
static inline int hammer(char family, const char *type, int port, int want)
{
	struct pollfd stop = { .fd = 0, .events = POLLIN };
	long long first = stat_value("generation");
	long binds = 0;
	int err = 0;

	if (write(1, "r", 1) != 1)
		return USAGE;
	while (poll(&stop, 1, 0) == 0) {
		if (bind_once(family, type, port, "") != want)
			err = 1;
		binds++;
	}
	printf("%ld %lld\n", binds, stat_value("generation") - first);
	return err;
}

/*
 * --rxrpc-arm FAMILY PORT: bind() an AF_RXRPC socket to PORT, which must
 * fail with EADDRINUSE (the test holds the port); say "r" on stdout and
 * wait for a byte on stdin; then send on the still unbound socket, which
 * gives it a transport of its own (the send itself fails, for want of a
 * call id); say "s" and wait for stdin to end, keeping the socket.
 */
static inline int rxrpc_arm(char family, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = make_bind_addr(family, "rxrpc", port, &ss);
	struct iovec iov = { .iov_base = "x", .iov_len = 1 };
	struct msghdr msg = {
		.msg_name = &ss, .msg_namelen = len,
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	int fd = make_socket(family, "rxrpc");
	char c;

	if (fd < 0)
		return NO_SOCKET;
	if (!bind(fd, (struct sockaddr *)&ss, len) || errno != EADDRINUSE)
		return USAGE;
	if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
		return USAGE;
	((struct kpr_sockaddr_rxrpc *)&ss)->srx_service = 1;
	sendmsg(fd, &msg, 0);
	if (write(1, "s", 1) != 1)
		return USAGE;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

/*
 * --uring-bind RING PARAMS PERSONALITY ADDR FAMILY TYPE PORT FLAGS: bind
 * as --bind does, through the io_uring instance on descriptor RING, whose
 * struct io_uring_params can be read from descriptor PARAMS, with its
 * personality PERSONALITY: a ring and credentials this program inherited.
 * ADDR is where the ring's creator keeps the address, for its SQPOLL
 * thread.
 */
static inline int borrowed_ring_bind(char **argv)
{
	static struct kpr_ring r;

	r.fd = atoi(argv[2]);
	if (read(atoi(argv[3]), &r.p, sizeof(r.p)) != sizeof(r.p) ||
	    ring_map(&r))
		return USAGE;
	borrowed_ring = &r;
	borrowed_personality = atoi(argv[4]);
	borrowed_addr = strtoul(argv[5], NULL, 10);
	return bind_once(argv[6][0], argv[7], atoi(argv[8]), argv[9]);
}

/*
 * argv: --bind FAMILY TYPE PORT FLAGS, where FLAGS may also hold n (bind
 * in a new network namespace), w (say "r" on stdout, then wait for a
 * byte on stdin before binding) and f (make the kernel's fault injectors
 * fail this task's allocations from the socket() on); --hammer FAMILY TYPE PORT ERRNO says
 * "r" on stdout, binds until stdin reaches its end, prints how many
 * binds it made and how many policy loads happened meanwhile, and exits 0
 * only if every bind gave ERRNO; --uring-bind as borrowed_ring_bind();
 * --rxrpc-arm as rxrpc_arm();
 * --auto FAMILY TYPE HOW PEER as autobind_once(); --exec PATH ARGS... runs
 * another program; --bind-exec PORT PATH ARGS... runs it once a bind to
 * PORT/tcp over IPv4 succeeded (the socket closed); --setid UID GID PATH
 * ARGS... runs it with those ids; --cgroup PROCS FLAGS PATH ARGS... runs
 * it once moved into the cgroup whose cgroup.procs file is PROCS, and
 * with FLAGS "n" in a cgroup namespace of its own.
 */
static inline int write_file(const char *path, const char *text);

static inline int binder_main(int argc, char **argv)
{
	char c;

	if (!strcmp(argv[1], "--exec") && argc > 2) {
		execv(argv[2], argv + 2);
		return USAGE;
	}
	if (!strcmp(argv[1], "--bind-exec") && argc > 3) {
		if (bind_once('4', "tcp", atoi(argv[2]), ""))
			return USAGE;
		execv(argv[3], argv + 3);
		return USAGE;
	}
	if (!strcmp(argv[1], "--setid") && argc > 4) {
		gid_t gid = atoi(argv[3]);

		if (setgroups(1, &gid) || setresgid(gid, gid, gid) ||
		    setresuid(atoi(argv[2]), atoi(argv[2]), atoi(argv[2])))
			return USAGE;
		execv(argv[4], argv + 4);
		return USAGE;
	}
	if (!strcmp(argv[1], "--cgroup") && argc > 4) {
		if (write_file(argv[2], "0") ||
		    (strchr(argv[3], 'n') && unshare(CLONE_NEWCGROUP)))
			return USAGE;
		execv(argv[4], argv + 4);
		return USAGE;
	}
	if (!strcmp(argv[1], "--rxrpc-arm") && argc == 4)
		return rxrpc_arm(argv[2][0], atoi(argv[3]));
	if (!strcmp(argv[1], "--uring-bind") && argc == 10)
		return borrowed_ring_bind(argv);
	if (!strcmp(argv[1], "--hammer") && argc == 6)
		return hammer(argv[2][0], argv[3], atoi(argv[4]), atoi(argv[5]));
	if (!strcmp(argv[1], "--auto") && argc == 6)
		return autobind_once(argv[2][0], argv[3], argv[4],
				     atoi(argv[5]));
	if (strcmp(argv[1], "--bind") || argc != 6)
		return USAGE;
	if (strchr(argv[5], 'n') && unshare(CLONE_NEWNET))
		return USAGE;
	/* Fault injection (failslab, fail_page_alloc) from here on. */
	if (strchr(argv[5], 'f') && write_file("/proc/self/make-it-fail", "1"))
		return USAGE;
	if (strchr(argv[5], 'w')) {
		if (write(1, "r", 1) != 1 || read(0, &c, 1) != 1)
			return USAGE;
	}
	return bind_once(argv[2][0], argv[3], atoi(argv[4]), argv[5]);
}

static inline bool is_binder(int argc, char **argv)
{
	return argc > 1 && (!strcmp(argv[1], "--bind") ||
			    !strcmp(argv[1], "--hammer") ||
			    !strcmp(argv[1], "--uring-bind") ||
			    !strcmp(argv[1], "--rxrpc-arm") ||
			    !strcmp(argv[1], "--auto") ||
			    !strcmp(argv[1], "--setid") ||
			    !strcmp(argv[1], "--cgroup") ||
			    !strcmp(argv[1], "--bind-exec") ||
			    !strcmp(argv[1], "--exec"));
}

/* ---- helpers of the tests ---- */

static inline int wait_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static inline int run(const char *const argv[])
{
	pid_t pid = fork();

	if (!pid) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return wait_exit(pid);
}

/* Run PROG to bind PORT; returns 0 or the errno it got. */
static inline int bind_as(const char *prog, const char *family,
			  const char *type, int port, const char *flags)
{
	char portbuf[16];
	const char *const argv[] = { prog, "--bind", family, type,
			 portbuf, flags, NULL };

	snprintf(portbuf, sizeof(portbuf), "%d", port);
	return run(argv);
}

static inline int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	in = open(from, O_RDONLY);
	if (in < 0)
		return -1;
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	return close(out) || n < 0 ? -1 : 0;
}

/* Copies of this program that play the owner, a second owner, an impostor. */
static inline int make_programs(void)
{
	mkdir(WORKDIR, 0755);
	return copy_file("/proc/self/exe", OWNER) ||
	       copy_file("/proc/self/exe", SECOND) ||
	       copy_file("/proc/self/exe", IMPOSTOR) ? -1 : 0;
}

static inline int write_all(int fd, const char *text, size_t len)
{
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n < 0)
			return -errno;
		text += n;
		len -= n;
	}
	return 0;
}

/*
 * Replace the policy through "load": the whole text in one write(), which
 * puts it in force or says why not. An empty write() loads nothing, so
 * the empty policy goes as "\n". Returns 0 or the -errno of open() or
 * write(); -EIO for a close() that fails, which it never should.
 */
static inline int load_policy(const char *text)
{
	size_t len = strlen(text);
	int fd = open(LOAD, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	if (!len) {
		text = "\n";
		len = 1;
	}
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -EIO;
	return err;
}

/* What cat_policy() returns for a close() that failed. */
#define CLOSE_FAILED	1

/*
 * Write TEXT to the policy file as "cat FILE > policy" does: opened with
 * O_TRUNC, in write()s of CHUNK bytes (all at once for 0), stopping at
 * the first that fails, then closed. The policy is put in force when the
 * last reference to the open file goes, which close() is here, and which
 * has nothing to report. Returns 0, the -errno of open() or of the first
 * write() that failed, or CLOSE_FAILED when close() failed.
 */
static inline int cat_policy(const char *text, size_t chunk)
{
	size_t len = strlen(text), n;
	int fd = open(POLICY, O_WRONLY | O_TRUNC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (!chunk)
		chunk = len;
	for (; len && !err; text += n, len -= n) {
		n = len < chunk ? len : chunk;
		err = write_all(fd, text, n);
	}
	return close(fd) ? CLOSE_FAILED : err;
}

/* The whole content of a file, NUL-terminated; free() it. NULL if absent. */
static inline char *read_file(const char *path)
{
	size_t size = 1 << 16, len = 0;
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (size - len < 2) {
			size *= 2;
			buf = realloc(buf, size);
			if (!buf)
				abort();
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The policy in force, as read back; free() it. */
static inline char *read_policy(void)
{
	char *text = read_file(POLICY);

	if (!text)
		abort();
	return text;
}

/* Write TEXT to PATH in one write(); returns 0 or -errno. */
static inline int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/*
 * Run PROG --auto FAMILY TYPE HOW PEER: returns 0 with the port it got in
 * *port, or the errno of the call.
 */
static inline int auto_as(const char *prog, const char *family,
			  const char *type, const char *how, int peer,
			  int *port)
{
	char peerbuf[16], out[32] = "";
	const char *const argv[] = { prog, "--auto", family, type, how,
				     peerbuf, NULL };
	int fds[2], rc;
	ssize_t n;
	pid_t pid;

	snprintf(peerbuf, sizeof(peerbuf), "%d", peer);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	rc = wait_exit(pid);
	*port = n > 0 ? atoi(out) : -1;
	return rc;
}

/*
 * Drop CAP_MAC_ADMIN from this process's effective and permitted sets,
 * keeping uid 0 and every other capability; returns 0 or -1.
 */
static inline int drop_mac_admin(void)
{
	struct __user_cap_header_struct head = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	const unsigned int word = CAP_MAC_ADMIN / 32;
	const __u32 bit = 1U << (CAP_MAC_ADMIN % 32);

	if (syscall(SYS_capget, &head, data))
		return -1;
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit;
	return syscall(SYS_capset, &head, data) ? -1 : 0;
}

/*
 * Write TEXT to PATH as root without CAP_MAC_ADMIN, in a child; returns 0
 * if both open() and write() succeeded, else the errno of the one that
 * failed.
 */
static inline int write_without_mac_admin(const char *path, const char *text)
{
	pid_t pid = fork();

	if (!pid) {
		int fd;

		if (drop_mac_admin())
			_exit(USAGE);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(errno);
		_exit(write(fd, text, strlen(text)) < 0 ? errno : 0);
	}
	return wait_exit(pid);
}

/*
 * A reader of the kernel log from now on, past the records logged so far,
 * for kmsg_since(); -1 if there is none.
 */
static inline int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Whether a record logged since kmsg_mark() gave FD holds NEEDLE: what a
 * test caused, not what an earlier one did. Closes FD.
 */
static inline bool kmsg_since(int fd, const char *needle)
{
	char rec[2048];
	bool found = false;
	ssize_t n;

	if (fd < 0)
		return false;
	while (!found && (n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten records */
			break;			/* EAGAIN: no more */
		}
		rec[n] = '\0';
		found = !!strstr(rec, needle);
	}
	close(fd);
	return found;
}

static inline long long stat_value(const char *name)
{
	char key[64];
	long long value, found = -1;
	FILE *f = fopen(STATS, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &value) == 2)
		if (!strcmp(key, name))
			found = value;
	fclose(f);
	return found;
}

#endif /* _KPR_SELFTEST_COMMON_H */
