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
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
	fprintf(stderr, "usage: kpr-bench bind LABEL 4|6 tcp|udp PORT ITERS\n"
			"       kpr-bench landlock NRULES 4|6 ALLOWED DENIED ITERS [tcp|udp]\n"
			"       kpr-bench load LABEL POLICY\n"
			"       kpr-bench open LABEL PATH ITERS\n"
			"       kpr-bench syscall LABEL ITERS\n"
			"       kpr-bench fork LABEL ITERS\n"
			"       kpr-bench prctl LABEL ITERS\n");
	return 2;
}
