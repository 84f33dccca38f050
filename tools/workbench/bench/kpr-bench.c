// SPDX-License-Identifier: GPL-2.0
/*
 * kpr-bench: what bind() costs, measured inside the benchmark guest.
 *
 *   kpr-bench bind LABEL FAMILY PROTO PORT ITERS
 *   kpr-bench landlock NRULES FAMILY ALLOWED DENIED ITERS [PROTO]
 *   kpr-bench load LABEL POLICY
 *   kpr-bench open LABEL PATH ITERS
 *   kpr-bench syscall LABEL ITERS
 *   kpr-bench fork LABEL ITERS
 *   kpr-bench prctl LABEL ITERS
 *   kpr-bench autobind LABEL connect|bind0 OCCUPANCY ITERS [FIRST LAST]
 *
 * bind: a loop of socket()+bind()+close() minus a loop of
 * socket()+close(), divided by ITERS; FAMILY is 4 or 6, PROTO tcp or udp,
 * the address the wildcard one. Every bind() of the loop must end the same
 * way; the result names how (0 or the errno).
 *
 * landlock: the same for PROTO (tcp, the default, or udp) to port ALLOWED
 * and to port DENIED, after Landlock restricted this process to binding
 * NRULES ports of PROTO (LANDLOCK_ACCESS_NET_BIND_TCP or, from Landlock
 * ABI 10, LANDLOCK_ACCESS_NET_BIND_UDP): ALLOWED and the lowest others but
 * DENIED. The ruleset handles the bind right of PROTO alone, so binds of
 * the other protocol stay unrestricted. Where Landlock's ABI is older than
 * 10, udp measures nothing and says so.
 *
 * load: write POLICY to the kportreserve policy file in one write() and
 * close it (the close builds and swaps the policy), and report how long it
 * took and how much slab and vmalloc memory the new policy holds once the
 * old one is freed.
 *
 * open, syscall, fork and prctl: the cost of what no kportreserve bind hook
 * sees. open: a loop of open(PATH, O_RDONLY)+close(), which kportreserve
 * leaves alone; syscall: a loop of getppid(), a system call that no LSM
 * hook sees; fork: a loop of fork(), the child's _exit(0) and waitpid(),
 * where the bytes kportreserve adds to the LSM blob of every task may
 * change the cost (where no other LSM has a task blob, they are an
 * allocation per fork()); prctl: a loop of prctl(PR_GET_DUMPABLE), which
 * passes kportreserve's task_prctl hook. Each is a loop of the calls minus
 * the same loop without them, divided by ITERS.
 *
 * autobind: what the kernel's own choice of a port costs when most of
 * ip_local_port_range is taken (Cloudflare's "connect() - why are you so
 * slow?"): every candidate port the allocator walks past is one more test
 * of the reserved ports, those kportreserve keeps out of the choice among
 * them. Before timing, OCCUPANCY percent of the ports of the range that
 * FIRST-LAST (below) leaves to the kernel's choice, all but one port in
 * every few, is bound by TCP sockets to 127.0.0.1. Then a loop of
 * ITERS rounds, connect: socket(), connect() to 127.0.0.1:5000, where
 * kpr-bench listens, accept() and close() of both ends; bind0: socket(),
 * bind() to 127.0.0.1 port 0, close(). Minus a loop of socket()+close();
 * both loops set SO_LINGER and call getsockname(), to read the port
 * assigned. The port must lie in the range and be neither occupied nor in
 * FIRST-LAST (the arguments, or KPR_BENCH_RESERVED=FIRST-LAST in the
 * environment), a range that the policy in force reserves; else kpr-bench
 * prints KPR-BENCH-FAILED and exits with 1, as it does when the ports
 * cannot be occupied.
 *
 * The guest runs under QEMU with -icount shift=0, so a nanosecond of
 * CLOCK_MONOTONIC is one guest instruction and the figures repeat. The
 * loops run SCHED_FIFO in a guest booted with rcutree.use_softirq=0: RCU
 * callbacks (the freeing of closed sockets) then wait in the rcuc thread
 * for settle(), and none lands in a timed loop, which only its phase
 * against the guest's tick would decide.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLICY "/sys/kernel/security/kportreserve/policy"

/*
 * Landlock's UDP bind right came with its ABI 10; the uapi headers of
 * older kernels, 6.12's among them, lack it. The value is that of Linux
 * 7.2's include/uapi/linux/landlock.h, (1ULL << 2), spelled so that
 * checkpatch does not ask for BIT_ULL(), which user space lacks.
 */
#ifndef LANDLOCK_ACCESS_NET_BIND_UDP
#define LANDLOCK_ACCESS_NET_BIND_UDP ((__u64)1 << 2)
#endif

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct target {
	int family;
	int type;
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

static void set_target(struct target *t, const char *family,
		       const char *proto, unsigned int port)
{
	memset(t, 0, sizeof(*t));
	if (!strcmp(proto, "tcp"))
		t->type = SOCK_STREAM;
	else if (!strcmp(proto, "udp"))
		t->type = SOCK_DGRAM;
	else
		die("protocol");
	if (!strcmp(family, "4")) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&t->addr;

		t->family = AF_INET;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		t->addrlen = sizeof(*sin);
	} else if (!strcmp(family, "6")) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&t->addr;

		t->family = AF_INET6;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		t->addrlen = sizeof(*sin6);
	} else {
		die("family");
	}
}

/* Nanoseconds of ITERS rounds; *result gets the errno of every bind(). */
static int64_t run_loop(const struct target *t, long iters, int do_bind,
			int *result)
{
	int64_t start = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		int fd = socket(t->family, t->type, 0);
		int err = 0;

		if (fd < 0)
			die("socket");
		if (do_bind &&
		    bind(fd, (const struct sockaddr *)&t->addr, t->addrlen))
			err = errno;
		close(fd);
		if (i == 0)
			*result = err;
		else if (err != *result)
			die("bind() did not end the same way every time");
	}
	return now_ns() - start;
}

/*
 * Idle long enough for the RCU callbacks of the sockets closed so far to
 * run: each loop starts with none pending and leaves its own behind in
 * the same way. Idle guest time passes at once under -icount sleep=off.
 */
static void settle(void)
{
	usleep(50000);
}

/*
 * The loops run in the order with, without, without, with (half the
 * rounds each), so that a slow drift of the guest's state cancels out.
 */
static void measure(const char *label, const struct target *t, long iters)
{
	int64_t with = 0, without = 0;
	int result = 0, none;
	int i;

	/* One round each first, so that both loops start warm. */
	run_loop(t, 1, 1, &result);
	run_loop(t, 1, 0, &none);
	for (i = 0; i < 4; i++) {
		bool bind = i == 0 || i == 3;

		settle();
		if (bind)
			with += run_loop(t, iters / 2, 1, &result);
		else
			without += run_loop(t, iters / 2, 0, &none);
	}
	iters = iters / 2 * 2;
	printf("KPR-BENCH %s result=%s bind_ns=%.3f with_ns=%lld without_ns=%lld iters=%ld\n",
	       label, result ? strerrorname_np(result) : "0",
	       (double)(with - without) / iters, (long long)with,
	       (long long)without, iters);
}

static void landlock_allow(int fd, uint64_t access, unsigned int port)
{
	struct landlock_net_port_attr attr = {
		.allowed_access = access,
		.port = port,
	};

	if (syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_NET_PORT, &attr, 0))
		die("landlock_add_rule");
}

/*
 * The bind right of PROTO, or 0 where the kernel's Landlock lacks it:
 * UDP before ABI 10. *abi gets the kernel's Landlock ABI for UDP.
 */
static uint64_t landlock_bind_right(const char *proto, int *abi)
{
	if (!strcmp(proto, "tcp"))
		return LANDLOCK_ACCESS_NET_BIND_TCP;
	if (strcmp(proto, "udp"))
		die("protocol");
	*abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		       LANDLOCK_CREATE_RULESET_VERSION);
	if (*abi < 0)
		die("landlock_create_ruleset");
	return *abi < 10 ? 0 : LANDLOCK_ACCESS_NET_BIND_UDP;
}

/* ACCESS: the bind right of one protocol, the only right handled. */
static void landlock_restrict(uint64_t access, unsigned int allowed,
			      unsigned int denied, unsigned int nr)
{
	struct landlock_ruleset_attr attr = {
		.handled_access_net = access,
	};
	unsigned int port, added;
	int fd;

	fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		die("landlock_create_ruleset");
	landlock_allow(fd, access, allowed);
	for (port = 1, added = 1; added < nr; port++) {
		if (port > 65535) {
			fprintf(stderr, "too many Landlock rules\n");
			exit(2);
		}
		if (port != allowed && port != denied) {
			landlock_allow(fd, access, port);
			added++;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
	if (syscall(SYS_landlock_restrict_self, fd, 0))
		die("landlock_restrict_self");
	close(fd);
}

/* Slab plus vmalloc memory in use, in KiB, from /proc/meminfo. */
static long kernel_kib(void)
{
	char line[256];
	long total = 0, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld", &v) == 1 ||
		    sscanf(line, "VmallocUsed: %ld", &v) == 1)
			total += v;
	fclose(f);
	return total;
}

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	buf = malloc(st.st_size + 1);
	if (!buf || read(fd, buf, st.st_size) != st.st_size)
		die(path);
	close(fd);
	*len = st.st_size;
	return buf;
}

static void write_policy(const char *text, size_t len)
{
	int fd = open(POLICY, O_WRONLY | O_TRUNC);

	if (fd < 0)
		die(POLICY);
	if (len && write(fd, text, len) != (ssize_t)len)
		die("write " POLICY);
	if (close(fd))
		die("close " POLICY);
}

static void time_load(const char *label, const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	long before, after;
	int64_t start, ns;

	write_policy("", 0);
	settle();
	before = kernel_kib();
	start = now_ns();
	write_policy(text, len);
	ns = now_ns() - start;
	settle();
	after = kernel_kib();
	printf("KPR-BENCH load %s load_ns=%lld kernel_kib=%ld bytes=%zu\n",
	       label, (long long)ns, after - before, len);
	free(text);
}

/* One round of the open mode: open() and close() PATH. */
static void round_open(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	close(fd);
}

/*
 * One round of the syscall mode: getppid(), through syscall() so that no C
 * library answers it from a cache. The kernel reads the parent's tgid under
 * RCU and returns, past no LSM hook: the round is the system call's entry
 * and exit, which no LSM should change.
 */
static void round_getppid(const char *path)
{
	(void)path;
	syscall(SYS_getppid);
}

/* One round of the fork mode: a child that exits at once, reaped. */
static void round_fork(const char *path)
{
	pid_t pid = fork();

	(void)path;
	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
}

/* One round of the prctl mode: a prctl() that changes nothing. */
static void round_prctl(const char *path)
{
	(void)path;
	if (prctl(PR_GET_DUMPABLE) < 0)
		die("prctl");
}

/* A round that does nothing: the loop alone, to subtract. */
static void round_none(const char *path)
{
	(void)path;
}

/*
 * Nanoseconds of ITERS rounds of ROUND on PATH. The empty asm hides which
 * function ROUND is, so that the compiler calls round_none() as it calls
 * the others instead of dropping its loop: the two loops then differ in
 * the calls measured alone.
 */
static int64_t call_loop(void (*round)(const char *), const char *path,
			 long iters)
{
	int64_t start = now_ns();
	long i;

	asm("" : "+r" (round));
	for (i = 0; i < iters; i++)
		round(path);
	return now_ns() - start;
}

/*
 * The open, syscall, fork and prctl modes: ITERS rounds of ROUND minus ITERS rounds of
 * nothing, in the order of measure() and for the same reason.
 */
static void measure_calls(const char *label, void (*round)(const char *),
			  const char *path, long iters)
{
	int64_t with = 0, without = 0;
	int i;

	call_loop(round, path, 1);
	call_loop(round_none, path, 1);
	for (i = 0; i < 4; i++) {
		settle();
		if (i == 0 || i == 3)
			with += call_loop(round, path, iters / 2);
		else
			without += call_loop(round_none, path, iters / 2);
	}
	iters = iters / 2 * 2;
	printf("KPR-BENCH %s call_ns=%.3f with_ns=%lld without_ns=%lld iters=%ld\n",
	       label, (double)(with - without) / iters, (long long)with,
	       (long long)without, iters);
}

/*
 * The autobind mode. The port kpr-bench listens on for the connect mode,
 * below the default ip_local_port_range: no candidate is ever it.
 */
#define AB_DPORT 5000

enum ab_mode { AB_CONNECT, AB_BIND0 };

struct autobind {
	char label[160];
	enum ab_mode mode;
	int listener;			/* connect: the socket connected to */
	struct sockaddr_in addr;	/* 127.0.0.1:AB_DPORT, or port 0 */
	unsigned int low, high;		/* ip_local_port_range */
	unsigned int first, last;	/* reserved, inclusive; none if 0 0 */
	unsigned int occupied, skipped;
	unsigned char taken[65536];	/* the ports kpr-bench occupies */
};

static void ab_fail(const struct autobind *ab, const char *fmt, ...)
{
	va_list ap;

	printf("KPR-BENCH-FAILED %s: ", ab->label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static bool ab_reserved(const struct autobind *ab, unsigned int port)
{
	return ab->last && port >= ab->first && port <= ab->last;
}

static void ab_port_range(struct autobind *ab)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");

	if (!f || fscanf(f, "%u %u", &ab->low, &ab->high) != 2 ||
	    ab->low > ab->high || ab->high > 65535)
		ab_fail(ab, "cannot read /proc/sys/net/ipv4/ip_local_port_range");
	fclose(f);
}

/*
 * Bind a TCP socket to 127.0.0.1 on about WANT ports of the range, of
 * those outside the reserved one, and keep them open until exit. Neither
 * allocator hands out such a port, and each sees why at a different
 * check. bind() to port 0, inet_csk_find_open_port(): the candidate's
 * bind bucket holds a socket on the same address without SO_REUSEADDR,
 * so inet_csk_bind_conflict() reports a conflict. connect(),
 * __inet_hash_connect(): the bucket was made by bind(), so its fastreuse
 * is 0, not the -1 of the buckets connect() makes, and the port is
 * skipped whatever the destination, before any 4-tuple lookup. Both walk
 * on to the next candidate, and to its reserved-port test. A
 * port bound already (EADDRINUSE, a port in use or one the policy keeps
 * from kpr-bench) is skipped, and counted, for the next one drawn.
 */
static void ab_occupy(struct autobind *ab, unsigned int want)
{
	static uint16_t cand[65536];
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	unsigned int n = 0, i, port;
	struct rlimit rl;
	rlim_t need = want + 64;

	for (port = ab->low; port <= ab->high; port++)
		if (!ab_reserved(ab, port))
			cand[n++] = port;
	if (want > n)
		ab_fail(ab, "%u ports to occupy, but only %u of the range are not reserved",
			want, n);
	/*
	 * The ports left free are spread evenly, one every STRIDE of the
	 * candidates, STRIDE odd so that both parities the allocators scan
	 * in turn have them: however far from a free port the kernel starts,
	 * it walks fewer than STRIDE candidates of a parity, so the average
	 * of a call moves little with the random start of each boot and
	 * call. The free ones go to the end of the list, the rest stays in
	 * order.
	 */
	if (want < n) {
		unsigned int stride = n / (n - want) | 1, k = 0;

		for (i = 0; i < n; i++)
			if (i % stride)
				cand[k++] = cand[i];
		want = k < want ? k : want;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		ab_fail(ab, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur < need) {
		rl.rlim_cur = need;
		if (rl.rlim_max < need)
			rl.rlim_max = need;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			ab_fail(ab, "cannot raise RLIMIT_NOFILE to %llu: %s (root, fs.nr_open?)",
				(unsigned long long)need, strerror(errno));
	}
	for (i = 0; i < n && ab->occupied < want; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			ab_fail(ab, "occupying ports, %u of %u bound: socket: %s",
				ab->occupied, want, strerror(errno));
		sin.sin_port = htons(cand[i]);
		if (bind(fd, (const struct sockaddr *)&sin, sizeof(sin))) {
			if (errno != EADDRINUSE)
				ab_fail(ab, "occupying ports, %u of %u bound: bind to %u: %s",
					ab->occupied, want, cand[i],
					strerror(errno));
			close(fd);
			ab->skipped++;
			continue;
		}
		ab->taken[cand[i]] = 1;
		ab->occupied++;
	}
	if (ab->occupied < want)
		ab_fail(ab, "only %u of %u ports could be occupied, %u in use",
			ab->occupied, want, ab->skipped);
}

/* The port the kernel picked must be of the range and free to pick. */
static void ab_check(const struct autobind *ab, unsigned int port)
{
	if (port < ab->low || port > ab->high)
		ab_fail(ab, "the kernel assigned port %u, outside %u-%u",
			port, ab->low, ab->high);
	if (ab->taken[port])
		ab_fail(ab, "the kernel assigned port %u, an occupied one", port);
	if (ab_reserved(ab, port))
		ab_fail(ab, "the kernel assigned port %u, reserved (%u-%u)",
			port, ab->first, ab->last);
}

/*
 * Nanoseconds of ITERS rounds, with the automatic assignment (WITH) or
 * without. Every round leaves the occupancy as it found it: the client
 * closes with SO_LINGER {1, 0}, so it sends a RST and frees its port at
 * once instead of holding it in TIME_WAIT (TIME_WAIT sockets would fill
 * the range round after round, each one more candidate to walk past),
 * and the server side is accepted and closed each round, which keeps the
 * listener's queue from filling up (a full one drops the SYN, and
 * connect() would wait a second for its retransmission). The RST has
 * closed that end already: it leaves no TIME_WAIT either.
 */
static int64_t ab_loop(const struct autobind *ab, long iters, bool with)
{
	const struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int64_t start = now_ns();
	long i;

	for (i = 0; i < iters; i++) {
		struct sockaddr_in sin;
		socklen_t len = sizeof(sin);
		int fd = socket(AF_INET, SOCK_STREAM, 0), peer = -1;

		if (fd < 0)
			ab_fail(ab, "socket: %s", strerror(errno));
		if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			ab_fail(ab, "SO_LINGER: %s", strerror(errno));
		if (with && ab->mode == AB_CONNECT) {
			if (connect(fd, (const struct sockaddr *)&ab->addr,
				    sizeof(ab->addr)))
				ab_fail(ab, "connect: %s", strerror(errno));
			peer = accept(ab->listener, NULL, NULL);
			if (peer < 0)
				ab_fail(ab, "accept: %s", strerror(errno));
		} else if (with &&
			   bind(fd, (const struct sockaddr *)&ab->addr,
				sizeof(ab->addr))) {
			ab_fail(ab, "bind to port 0: %s", strerror(errno));
		}
		if (getsockname(fd, (struct sockaddr *)&sin, &len))
			ab_fail(ab, "getsockname: %s", strerror(errno));
		if (with)
			ab_check(ab, ntohs(sin.sin_port));
		close(fd);
		if (peer >= 0)
			close(peer);
	}
	return now_ns() - start;
}

/*
 * kpr-bench autobind LABEL MODE OCCUPANCY ITERS [FIRST LAST]: occupy,
 * then time as measure() does, in the same order and for the same
 * reason, and print its line.
 */
static void autobind_main(const char *label, const char *mode,
			  unsigned int occupancy, long iters, char **reserved)
{
	static struct autobind ab;
	const char *env = getenv("KPR_BENCH_RESERVED");
	int64_t with = 0, without = 0;
	unsigned int want, port, free_ports = 0;
	int i;

	snprintf(ab.label, sizeof(ab.label), "autobind %s %s %u", label, mode,
		 occupancy);
	if (!strcmp(mode, "connect"))
		ab.mode = AB_CONNECT;
	else if (!strcmp(mode, "bind0"))
		ab.mode = AB_BIND0;
	else
		ab_fail(&ab, "mode %s, not connect or bind0", mode);
	if (occupancy > 99 || iters < 2)
		ab_fail(&ab, "occupancy 0 to 99 and at least 2 rounds");
	if (reserved) {
		ab.first = atoi(reserved[0]);
		ab.last = atoi(reserved[1]);
	} else if (env && *env && sscanf(env, "%u-%u", &ab.first, &ab.last) != 2) {
		ab_fail(&ab, "KPR_BENCH_RESERVED=%s, not FIRST-LAST", env);
	}
	if ((reserved || (env && *env)) &&
	    (!ab.first || ab.first > ab.last || ab.last > 65535))
		ab_fail(&ab, "reserved range %u-%u", ab.first, ab.last);
	ab_port_range(&ab);
	if (AB_DPORT >= ab.low && AB_DPORT <= ab.high)
		ab_fail(&ab, "port %u, which kpr-bench listens on, is in %u-%u",
			AB_DPORT, ab.low, ab.high);

	ab.addr.sin_family = AF_INET;
	ab.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (ab.mode == AB_CONNECT) {
		const int one = 1;

		ab.addr.sin_port = htons(AB_DPORT);
		ab.listener = socket(AF_INET, SOCK_STREAM, 0);
		if (ab.listener < 0 ||
		    setsockopt(ab.listener, SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) ||
		    bind(ab.listener, (const struct sockaddr *)&ab.addr,
			 sizeof(ab.addr)) ||
		    listen(ab.listener, 64))
			ab_fail(&ab, "listening on 127.0.0.1:%u: %s", AB_DPORT,
				strerror(errno));
	}
	/* A share of the ports the kernel may pick: reserved ones are not. */
	for (port = ab.low; port <= ab.high; port++)
		free_ports += !ab_reserved(&ab, port);
	want = free_ports * occupancy / 100;
	ab_occupy(&ab, want);

	ab_loop(&ab, 1, true);
	ab_loop(&ab, 1, false);
	for (i = 0; i < 4; i++) {
		settle();
		if (i == 0 || i == 3)
			with += ab_loop(&ab, iters / 2, true);
		else
			without += ab_loop(&ab, iters / 2, false);
	}
	iters = iters / 2 * 2;
	/* The line of measure(), result always 0, and how the range stood. */
	printf("KPR-BENCH %s result=0 bind_ns=%.3f with_ns=%lld without_ns=%lld iters=%ld",
	       ab.label, (double)(with - without) / iters, (long long)with,
	       (long long)without, iters);
	printf(" occupied=%u skipped=%u range=%u-%u reserved=%u-%u\n",
	       ab.occupied, ab.skipped, ab.low, ab.high, ab.first, ab.last);
}

int main(int argc, char **argv)
{
	struct sched_param fifo = { .sched_priority = 50 };
	struct target t;
	char label[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		die("SCHED_FIFO");
	if (argc == 7 && !strcmp(argv[1], "bind")) {
		set_target(&t, argv[3], argv[4], atoi(argv[5]));
		snprintf(label, sizeof(label), "bind %s v%s %s", argv[2],
			 argv[3], argv[4]);
		measure(label, &t, atol(argv[6]));
		return 0;
	}
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "landlock")) {
		unsigned int nr = atoi(argv[2]);
		const char *proto = argc == 8 ? argv[7] : "tcp";
		int abi = 0;
		uint64_t access = landlock_bind_right(proto, &abi);

		if (!access) {
			printf("KPR-BENCH landlock-unsupported %u v%s %s abi=%d\n",
			       nr, argv[3], proto, abi);
			return 0;
		}
		landlock_restrict(access, atoi(argv[4]), atoi(argv[5]), nr);
		set_target(&t, argv[3], proto, atoi(argv[4]));
		snprintf(label, sizeof(label), "bind landlock-allowed-%u v%s %s",
			 nr, argv[3], proto);
		measure(label, &t, atol(argv[6]));
		set_target(&t, argv[3], proto, atoi(argv[5]));
		snprintf(label, sizeof(label), "bind landlock-denied-%u v%s %s",
			 nr, argv[3], proto);
		measure(label, &t, atol(argv[6]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "load")) {
		time_load(argv[2], argv[3]);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "open")) {
		snprintf(label, sizeof(label), "open %s", argv[2]);
		measure_calls(label, round_open, argv[3], atol(argv[4]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "syscall")) {
		snprintf(label, sizeof(label), "syscall %s", argv[2]);
		measure_calls(label, round_getppid, NULL, atol(argv[3]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "fork")) {
		snprintf(label, sizeof(label), "fork %s", argv[2]);
		measure_calls(label, round_fork, NULL, atol(argv[3]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "prctl")) {
		snprintf(label, sizeof(label), "prctl %s", argv[2]);
		measure_calls(label, round_prctl, NULL, atol(argv[3]));
		return 0;
	}
	if ((argc == 6 || argc == 8) && !strcmp(argv[1], "autobind")) {
		autobind_main(argv[2], argv[3], atoi(argv[4]), atol(argv[5]),
			      argc == 8 ? argv + 6 : NULL);
		return 0;
	}
	fprintf(stderr, "usage: kpr-bench bind LABEL 4|6 tcp|udp PORT ITERS\n"
			"       kpr-bench landlock NRULES 4|6 ALLOWED DENIED ITERS [tcp|udp]\n"
			"       kpr-bench load LABEL POLICY\n"
			"       kpr-bench open LABEL PATH ITERS\n"
			"       kpr-bench syscall LABEL ITERS\n"
			"       kpr-bench fork LABEL ITERS\n"
			"       kpr-bench prctl LABEL ITERS\n"
			"       kpr-bench autobind LABEL connect|bind0 OCCUPANCY ITERS [FIRST LAST]\n");
	return 2;
}
