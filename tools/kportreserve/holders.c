// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the sockets that hold reserved ports.
 *
 * The kernel checks bind(), and a policy only decides binds that come
 * after it: a socket that held a port before the policy reserved it keeps
 * it. So "status", and "load" once it loaded, name each socket of the
 * initial network namespace bound to a reserved port whose holders are
 * none of the programs the policy reserves it for, the way "ss -ltnup"
 * finds them: the socket tables of /proc/1/net (TCP, UDP, UDP-Lite and
 * SCTP endpoints, IPv4 and IPv6), and the processes whose descriptors
 * name each socket's inode, with their executable and effective ids.
 *
 * A socket is in order when one of the processes that hold it is a
 * program a rule of its port names, with the ids and cgroup the rule asks
 * for (the socket's owner for uid=, /proc/PID/status and /proc/PID/cgroup
 * for the others): the
 * root master of a daemon holds its listening socket along with the
 * workers it passed it to. A socket no process holds is the kernel's,
 * in order when a rule names <kernel>; when the descriptors of some
 * process could not be read, it may be theirs, and its holder is shown
 * as unknown. Paths are read under $KPORTRESERVE_ROOT when it is set,
 * /proc included.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kportreserve.h"

/**
 * struct kpr_holder - a process that holds a socket
 * @pid: its pid
 * @exe: its executable, as /proc/PID/exe names it
 * @uid: its effective uid
 * @gid: its effective gid
 * @cgroup: its cgroup (v2), as /proc/PID/cgroup names it, or NULL
 */
struct kpr_holder {
	long pid;
	char *exe;
	unsigned long uid;
	unsigned long gid;
	char *cgroup;
};

/**
 * struct kpr_sock - a socket bound to a port that a rule covers
 * @proto: its protocol
 * @port: its local port
 * @inode: its inode number, which its holders' descriptors name
 * @uid: its owner, as the table shows it: the uid of the task that made
 *       it, which is the one that bound it but for a socket passed on
 * @holders: the processes that hold it
 * @nr: number of entries in @holders
 */
struct kpr_sock {
	enum kpr_proto proto;
	unsigned int port;
	unsigned long inode;
	unsigned long uid;
	struct kpr_holder *holders;
	size_t nr;
};

/**
 * struct kpr_socks - the sockets on reserved ports
 * @sock: the sockets
 * @nr: number of entries in @sock
 * @unreadable: processes whose descriptors could not be read
 */
struct kpr_socks {
	struct kpr_sock *sock;
	size_t nr;
	size_t unreadable;
};

/* Whether some rule of @rs covers @port for @proto. */
static bool reserved(const struct kpr_ruleset *rs, enum kpr_proto proto,
		     unsigned int port)
{
	size_t i;

	for (i = 0; i < rs->nr_rules; i++) {
		const struct kpr_rule *r = &rs->rules[i];

		if (r->first <= port && port <= r->last &&
		    (r->protos & BIT(proto)))
			return true;
	}
	return false;
}

static void add_sock(struct kpr_socks *s, enum kpr_proto proto,
		     unsigned int port, unsigned long inode, unsigned long uid)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->sock[i].inode == inode)
			return;
	s->sock = kpr_xrealloc(s->sock, (s->nr + 1) * sizeof(*s->sock));
	s->sock[s->nr++] = (struct kpr_sock){
		.proto = proto, .port = port, .inode = inode, .uid = uid,
	};
}

/**
 * read_inet_table() - the sockets of a /proc/net table of TCP or UDP
 * @rs: the policy, whose ports are wanted
 * @s: receives the sockets bound to its ports
 * @name: the table, "tcp", "udp6" ...
 * @proto: its protocol
 *
 * Each line is "sl local_address rem_address st ... uid timeout inode",
 * the port in hexadecimal after the address. Of TCP, only the sockets
 * that hold a port themselves count: listening (0A) and bound but not
 * connected (07). A connection holds its listener's port, or one it was
 * given; one in TIME_WAIT has inode 0 and no holder.
 */
static void read_inet_table(const struct kpr_ruleset *rs,
			    struct kpr_socks *s, const char *name,
			    enum kpr_proto proto)
{
	char *path = kpr_xasprintf("/proc/1/net/%s", name);
	char *real = kpr_root_path(path), line[512];
	FILE *f = fopen(real, "re");

	free(path);
	free(real);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned int port, state;
		unsigned long inode, uid;
		char *colon;

		colon = strchr(line, ':');
		colon = colon ? strchr(colon + 1, ':') : NULL;
		/* sl: local: rem st tx:rx tr:when retr uid timeout inode */
		if (!colon ||
		    sscanf(colon + 1, "%x %*s %x %*s %*s %*s %lu %*s %lu",
			   &port, &state, &uid, &inode) != 4 || !inode)
			continue;
		if (proto == KPR_PROTO_TCP && state != 0x0a && state != 0x07)
			continue;
		if (reserved(rs, proto, port))
			add_sock(s, proto, port, inode, uid);
	}
	fclose(f);
}

/**
 * read_sctp_table() - the SCTP endpoints, from /proc/net/sctp/eps
 * @rs: the policy, whose ports are wanted
 * @s: receives the endpoints bound to its ports
 *
 * Each line is "ENDPT SOCK STY SST HBKT LPORT UID INODE LADDRS", the
 * port in decimal; the file exists once the sctp module is loaded.
 */
static void read_sctp_table(const struct kpr_ruleset *rs,
			    struct kpr_socks *s)
{
	char *real = kpr_root_path("/proc/1/net/sctp/eps"), line[512];
	FILE *f = fopen(real, "re");

	free(real);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long inode, uid;
		unsigned int port;

		if (sscanf(line, "%*s %*s %*s %*s %*s %u %lu %lu", &port, &uid,
			   &inode) != 3 || !inode)
			continue;
		if (reserved(rs, KPR_PROTO_SCTP, port))
			add_sock(s, KPR_PROTO_SCTP, port, inode, uid);
	}
	fclose(f);
}

/* The "Uid:" or "Gid:" line of /proc/PID/status: its effective id. */
static unsigned long effective_id(const char *status, const char *key)
{
	const char *p = strstr(status, key);
	unsigned long real, eff;

	if (!p || sscanf(p + strlen(key), "%lu %lu", &real, &eff) != 2)
		return (unsigned long)-1;
	return eff;
}

/*
 * The cgroup of process @pid in the unified hierarchy, from the "0::PATH"
 * line of /proc/PID/cgroup, or NULL; to free().
 */
static char *read_cgroup(long pid)
{
	char *path = kpr_xasprintf("/proc/%ld/cgroup", pid);
	char *real = kpr_root_path(path), *cgroup = NULL, *line, *end;
	struct kpr_buf buf;

	if (!kpr_read_path(real, &buf)) {
		line = strstr(buf.text, "0::/");
		if (line == buf.text || (line && line[-1] == '\n')) {
			line += strlen("0::");
			end = line + strcspn(line, "\n");
			cgroup = kpr_xasprintf("%.*s", (int)(end - line), line);
		}
		kpr_buf_free(&buf);
	}
	free(path);
	free(real);
	return cgroup;
}

/**
 * read_process() - what a process is, for the sockets it holds
 * @pid: its pid
 * @h: receives its pid, executable and effective ids
 *
 * An executable replaced on disk shows as "PATH (deleted)"; the kernel
 * still knows it by PATH (identity.c), and so does this.
 */
static void read_process(long pid, struct kpr_holder *h)
{
	char *path = kpr_xasprintf("/proc/%ld/exe", pid);
	char *real = kpr_root_path(path), exe[4096];
	struct kpr_buf status;
	ssize_t n;
	char *p;

	h->pid = pid;
	n = readlink(real, exe, sizeof(exe) - 1);
	exe[n < 0 ? 0 : n] = '\0';
	p = strstr(exe, " (deleted)");
	if (p && !p[strlen(" (deleted)")])
		*p = '\0';
	h->exe = kpr_xstrdup(n < 0 ? "?" : exe);
	free(path);
	free(real);
	path = kpr_xasprintf("/proc/%ld/status", pid);
	real = kpr_root_path(path);
	h->uid = (unsigned long)-1;
	h->gid = (unsigned long)-1;
	if (!kpr_read_path(real, &status)) {
		h->uid = effective_id(status.text, "\nUid:");
		h->gid = effective_id(status.text, "\nGid:");
		kpr_buf_free(&status);
	}
	free(path);
	free(real);
	h->cgroup = read_cgroup(pid);
}

/* Record process @pid as a holder of the socket of @inode, if wanted. */
static void add_holder(struct kpr_socks *s, unsigned long inode, long pid)
{
	size_t i, j;

	for (i = 0; i < s->nr; i++) {
		struct kpr_sock *k = &s->sock[i];

		if (k->inode != inode)
			continue;
		for (j = 0; j < k->nr; j++)
			if (k->holders[j].pid == pid)
				return;
		k->holders = kpr_xrealloc(k->holders,
					  (k->nr + 1) * sizeof(*k->holders));
		read_process(pid, &k->holders[k->nr++]);
		return;
	}
}

/* Find the holders of the sockets among the descriptors of process @pid. */
static void scan_process(struct kpr_socks *s, long pid)
{
	char *path = kpr_xasprintf("/proc/%ld/fd", pid);
	char *dir = kpr_root_path(path), link[64];
	struct dirent *de;
	DIR *d = opendir(dir);

	free(path);
	if (!d) {
		/* A process that exited meanwhile holds nothing. */
		if (errno != ENOENT)
			s->unreadable++;
		free(dir);
		return;
	}
	while ((de = readdir(d))) {
		unsigned long inode;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		path = kpr_xasprintf("%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		free(path);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (sscanf(link, "socket:[%lu]", &inode) == 1)
			add_holder(s, inode, pid);
	}
	closedir(d);
	free(dir);
}

/* Find the holders of the sockets among every process's descriptors. */
static void scan_processes(struct kpr_socks *s)
{
	char *dir = kpr_root_path("/proc");
	struct dirent *de;
	DIR *d = opendir(dir);

	free(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (isdigit((unsigned char)de->d_name[0]))
			scan_process(s, strtol(de->d_name, NULL, 10));
	}
	closedir(d);
}

/* Whether cgroup @cgroup is @rule's cgroup or below it, as the kernel has it. */
static bool in_cgroup(const char *cgroup, const char *rule, size_t len)
{
	return cgroup && !strncmp(cgroup, rule, len) &&
	       (!cgroup[len] || cgroup[len] == '/');
}

/*
 * Whether @h, holding @k, is what program @prog of a rule names. uid= is
 * compared with the socket's owner, who bound it, rather than with the
 * holder's uid now: a daemon binds as root and then drops to an account
 * of its own. gid= has no such record, and is the holder's now.
 */
static bool holder_matches(const struct kpr_program *prog,
			   const struct kpr_sock *k, const struct kpr_holder *h)
{
	if ((prog->quals & KPR_QUAL_UID) && prog->uid != k->uid)
		return false;
	if ((prog->quals & KPR_QUAL_GID) && prog->gid != h->gid)
		return false;
	if (prog->cgroup && !in_cgroup(h->cgroup, prog->cgroup, prog->cgroup_len))
		return false;
	return !prog->kernel && !strcmp(prog->path, h->exe);
}

/**
 * in_order() - whether a socket is held by a program its port is for
 * @rs: the policy
 * @k: the socket
 *
 * Return: true if one of its holders, or the kernel when none, is named
 * by a rule of its port.
 */
static bool in_order(const struct kpr_ruleset *rs, const struct kpr_sock *k)
{
	size_t i, j;

	for (i = 0; i < rs->nr_rules; i++) {
		const struct kpr_rule *r = &rs->rules[i];

		if (r->first > k->port || k->port > r->last ||
		    !(r->protos & BIT(k->proto)))
			continue;
		if (!k->nr && r->prog->kernel)
			return true;
		for (j = 0; j < k->nr; j++)
			if (holder_matches(r->prog, k, &k->holders[j]))
				return true;
	}
	return false;
}

static void socks_free(struct kpr_socks *s)
{
	size_t i, j;

	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < s->sock[i].nr; j++) {
			free(s->sock[i].holders[j].exe);
			free(s->sock[i].holders[j].cgroup);
		}
		free(s->sock[i].holders);
	}
	free(s->sock);
}

static int sock_cmp(const void *a, const void *b)
{
	const struct kpr_sock *x = a, *y = b;

	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	if (x->proto != y->proto)
		return x->proto < y->proto ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* The programs the rules of a socket's port name, as the rules spell them. */
static void print_owners(const struct kpr_ruleset *rs, const struct kpr_sock *k)
{
	const char *sep = "    reserved for: ";
	size_t i;

	for (i = 0; i < rs->nr_rules; i++) {
		const struct kpr_rule *r = &rs->rules[i];
		char *text;

		if (r->first > k->port || k->port > r->last ||
		    !(r->protos & BIT(k->proto)))
			continue;
		text = kpr_format_rule(r);
		printf("%s%s", sep, text + strcspn(text, " ") + 1);
		sep = ", ";
		free(text);
	}
	putchar('\n');
}

/**
 * enum kpr_held_by - who holds a socket out of order, as far as is known
 * @KPR_HELD_BY_PROCESS: processes, none of them a program its port is for
 * @KPR_HELD_BY_KERNEL: no process, and every process's descriptors were
 *                      read: a socket of the kernel's own
 * @KPR_HELD_BY_UNKNOWN: no process found, but the descriptors of some
 *                       could not be read: any of them may hold it
 * @KPR_HELD_BY_NR: number of kinds
 *
 * Each kind is printed under a header of its own: how the socket came to
 * hold its port, and what to do about it, differ.
 */
enum kpr_held_by {
	KPR_HELD_BY_PROCESS,
	KPR_HELD_BY_KERNEL,
	KPR_HELD_BY_UNKNOWN,
	KPR_HELD_BY_NR,
};

static enum kpr_held_by held_by(const struct kpr_socks *s,
				const struct kpr_sock *k)
{
	if (k->nr)
		return KPR_HELD_BY_PROCESS;
	return s->unreadable ? KPR_HELD_BY_UNKNOWN : KPR_HELD_BY_KERNEL;
}

/* "process" or "processes", after a count of @n. */
static const char *processes(size_t n)
{
	return n == 1 ? "process" : "processes";
}

/**
 * print_header() - say what the sockets of one kind are, and what to do
 * @kind: who holds them
 * @unreadable: number of processes whose descriptors could not be read
 *
 * The LSM judges a bind when it is made, against the policy then in
 * force, in enforce mode. A process holds a port against the policy when
 * it bound it before (or in permissive mode), or when the program that
 * bound it passed the socket on. The kernel's own sockets (an L2TP
 * tunnel's, an NFS client's) are never judged, whenever they were bound:
 * the way out is the service that asked for them, or a <kernel> rule.
 * Root normally reads every process's descriptors, so running as root is
 * advice only to others.
 */
static void print_header(enum kpr_held_by kind, size_t unreadable)
{
	printf("\nsockets on ports reserved for other programs, ");
	switch (kind) {
	case KPR_HELD_BY_PROCESS:
		printf("held by processes the rules do not name\n"
		       "(bound before the policy or in permissive mode, or passed on since by the program that bound\n"
		       "them; stop them and start the program the port is for):\n");
		break;
	case KPR_HELD_BY_KERNEL:
		printf("held by no process: kernel sockets\n"
		       "(the kernel binds them itself for the service that configured them, \"ip l2tp\" or an NFS\n"
		       "mount, before or after the policy; remove them there, or reserve the port for <kernel>):\n");
		break;
	default:
		printf("holder unknown\n(the descriptors of %zu %s could not be read",
		       unreadable, processes(unreadable));
		if (geteuid())
			printf("; run as root to read them):\n");
		else
			printf(", even as root: %s exiting,\n"
			       "or a security module or a missing capability denied it):\n",
			       unreadable == 1 ? "it was" : "they were");
		break;
	}
}

/* One line per holder of a socket out of order, or one for the socket. */
static void print_sock(const struct kpr_ruleset *rs, const struct kpr_sock *k,
		       enum kpr_held_by kind)
{
	const char *proto = kpr_proto_name(k->proto);
	size_t j;

	if (kind == KPR_HELD_BY_KERNEL)
		printf("  %u/%s: socket %lu, held by no process (a kernel socket)\n",
		       k->port, proto, k->inode);
	else if (kind == KPR_HELD_BY_UNKNOWN)
		printf("  %u/%s: socket %lu, holder unknown\n", k->port, proto,
		       k->inode);
	for (j = 0; j < k->nr; j++) {
		const struct kpr_holder *h = &k->holders[j];

		printf("  %u/%s: pid %ld %s uid=%ld gid=%ld%s%s\n", k->port,
		       proto, h->pid, h->exe, (long)h->uid, (long)h->gid,
		       h->cgroup ? " cgroup=" : "", h->cgroup ? h->cgroup : "");
	}
	print_owners(rs, k);
}

/**
 * kpr_print_holders() - name the sockets that hold reserved ports
 * @rs: the policy in force
 *
 * Prints nothing when no socket holds a port of @rs against it; else the
 * sockets of each kind (enum kpr_held_by) under a header of their own,
 * in port order within it. When the descriptors of some processes could
 * not be read, the holders named may not be all: a note says so, unless
 * the header of the sockets whose holder is unknown already counts them.
 *
 * Return: KPR_EXIT_OK, or KPR_EXIT_HELD when a socket does.
 */
int kpr_print_holders(const struct kpr_ruleset *rs)
{
	static const char *const tables[] = { "tcp", "tcp6", "udp", "udp6",
					      "udplite", "udplite6" };
	size_t nr[KPR_HELD_BY_NR] = { 0 }, i, held = 0;
	struct kpr_socks s = { 0 };
	enum kpr_held_by kind;
	bool *out;

	for (i = 0; i < ARRAY_SIZE(tables); i++)
		read_inet_table(rs, &s, tables[i],
				tables[i][0] == 't' ? KPR_PROTO_TCP :
						      KPR_PROTO_UDP);
	read_sctp_table(rs, &s);
	if (s.nr)
		scan_processes(&s);
	if (s.nr)
		qsort(s.sock, s.nr, sizeof(*s.sock), sock_cmp);
	/* Whether each socket is out of order; one more, never malloc(0). */
	out = kpr_xmalloc((s.nr + 1) * sizeof(*out));
	for (i = 0; i < s.nr; i++) {
		out[i] = !in_order(rs, &s.sock[i]);
		if (out[i])
			nr[held_by(&s, &s.sock[i])]++;
	}
	for (kind = 0; kind < KPR_HELD_BY_NR; kind++) {
		if (!nr[kind])
			continue;
		held += nr[kind];
		print_header(kind, s.unreadable);
		for (i = 0; i < s.nr; i++)
			if (out[i] && held_by(&s, &s.sock[i]) == kind)
				print_sock(rs, &s.sock[i], kind);
	}
	if (nr[KPR_HELD_BY_PROCESS] && s.unreadable &&
	    !nr[KPR_HELD_BY_UNKNOWN])
		printf("  (other holders may be among the %zu %s %s%s)\n",
		       s.unreadable, processes(s.unreadable),
		       "whose descriptors could not be read",
		       geteuid() ? "; run as root" : ", even as root");
	free(out);
	socks_free(&s);
	return held ? KPR_EXIT_HELD : KPR_EXIT_OK;
}

/**
 * kpr_check_holders() - name the sockets that hold ports of the policy
 *                       in force against it
 * @ctx: names the securityfs directory
 *
 * Return: KPR_EXIT_OK, KPR_EXIT_HELD, or the exit code of a policy that
 * cannot be read.
 */
int kpr_check_holders(const struct kpr_ctx *ctx)
{
	struct kpr_ruleset rs;
	struct kpr_buf text;
	int ret;

	ret = kpr_read_policy(ctx, &text, &rs);
	if (ret)
		return ret;
	ret = kpr_print_holders(&rs);
	kpr_ruleset_destroy(&rs);
	kpr_buf_free(&text);
	return ret;
}
