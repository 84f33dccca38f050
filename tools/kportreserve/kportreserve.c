// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): the admin command of the kportreserve LSM.
 *
 * This file holds main(), the global options, the dispatch to the
 * subcommands and the help text. See kportreserve.8 for the manual.
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kportreserve.h"

/* The Makefile passes the version of debian/changelog. */
#ifndef KPR_VERSION
#define KPR_VERSION		"unknown"
#endif

static const char usage_text[] =
"Usage: kportreserve [-s DIR] COMMAND [ARGS]\n"
"\n"
"Reserve local ports for programs with the kportreserve LSM.\n"
"\n"
"Commands:\n"
"  check [-r] [FILE...]          check policy files offline, print FILE:LINE:\n"
"                                for each bad line; without FILE, the files\n"
"                                that load assembles; a program named by a\n"
"                                link is fine: a note says where it leads\n"
"                                (-r, --resolve: write the resolved paths in\n"
"                                the files instead, which then no longer\n"
"                                follow the link)\n"
"  load [FILE]                   replace the policy in force with FILE (- for\n"
"                                standard input); without FILE, with the\n"
"                                policy files, in this order: the *.policy\n"
"                                of " KPR_VENDOR_DIR "\n"
"                                and " KPR_ADMIN_DIR " by\n"
"                                name (/etc wins on equal names), then\n"
"                                " KPR_MAIN_POLICY ";\n"
"                                a bad rule there is left out with a warning\n"
"                                and the others loaded (exit 7); every load\n"
"                                resolves links again\n"
"  diff                          show what load without FILE would change,\n"
"                                loading nothing: +RULE  (FILE:LINE) for each\n"
"                                rule it would add, -RULE for each it would\n"
"                                drop, then the counts; exit status as diff(1)\n"
"                                (see below)\n"
"  status                        show mode, lock, counters, the files the\n"
"                                policy came from, reserved ports, denials\n"
"                                and the sockets that hold reserved ports\n"
"                                against the policy (load shows these too)\n"
"  add [-r] [--runtime] PORTS[/PROTO] PROGRAM [QUALIFIER...]\n"
"                                add a rule to the policy in force and save\n"
"                                it as written in\n"
"                                " KPR_LOCAL_POLICY "\n"
"                                (-r: save the resolved path, not the link;\n"
"                                --runtime: do not save it); a\n"
"                                QUALIFIER is uid=N[,N...], gid=N[,N...],\n"
"                                cgroup=PATH or unit=NAME (its cgroup)\n"
"  del [--runtime] PORTS[/PROTO] PROGRAM [QUALIFIER...]\n"
"                                delete exactly that rule from the policy in\n"
"                                force and from that file (--runtime: from\n"
"                                the policy in force only)\n"
"  who PORT[/PROTO]              list the programs that may bind a port\n"
"  import-portreserve [-p PROGRAM] [-m NAME=PROGRAM]... [-S SERVICES] [DIR]\n"
"                                print rules for portreserve's files in DIR\n"
"                                (default /etc/portreserve)\n"
"\n"
"Options:\n"
"  -s, --securityfs DIR          kportreserve's securityfs directory (default:\n"
"                                $" KPR_SECURITYFS_ENV ", else\n"
"                                " KPR_SECURITYFS_DEFAULT ")\n"
"  -h, --help                    show this help and exit\n"
"      --version                 show the version and exit\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  a policy or rule is invalid, del found no such rule, or\n"
"     import-portreserve could not translate a file\n"
"  2  usage error\n"
"  3  the kernel refused the new policy; the old one stays in force\n"
"  4  the policy kept changing during add or del; nothing was loaded\n"
"  5  I/O error, or kportreserve is not available\n"
"  6  status, or load after loading: a socket holds a reserved port for\n"
"     a program the policy does not reserve it for\n"
"  7  loaded with rules or files left out (load without FILE), each named\n"
"     with FILE:LINE; every other rule is in force\n"
"diff exits as diff(1) does: 0 when load would change nothing, 1 when it\n"
"would add or drop a rule; 3 when load would load nothing (the files as a\n"
"whole are over a limit), 5 when the policy in force cannot be read.\n"
"\n"
"See kportreserve(8).\n";

/**
 * struct kpr_command - a subcommand
 * @name: what the user types
 * @run: the implementation; returns an exit code
 */
struct kpr_command {
	const char *name;
	int (*run)(struct kpr_ctx *ctx, int argc, char **argv);
};

static const struct kpr_command commands[] = {
	{ "check", kpr_cmd_check },
	{ "load", kpr_cmd_load },
	{ "diff", kpr_cmd_diff },
	{ "status", kpr_cmd_status },
	{ "add", kpr_cmd_add },
	{ "del", kpr_cmd_del },
	{ "who", kpr_cmd_who },
	{ "import-portreserve", kpr_cmd_import },
};

/**
 * to_journal() - tell whether standard error is systemd's journal
 *
 * systemd sets JOURNAL_STREAM to "DEVICE:INODE" of the stream it connects
 * a service's output to. Only when standard error is that stream does a
 * line start with its priority (sd-daemon(3)'s "<N>" prefixes), which the
 * journal strips; on a terminal or in a file they would be noise, and a
 * child of the service whose standard error went elsewhere must not add
 * them either.
 *
 * Return: true when lines written to standard error reach the journal.
 */
static bool to_journal(void)
{
	static int cached = -1;
	unsigned long long dev, ino;
	const char *env;
	struct stat st;

	if (cached >= 0)
		return cached;
	env = getenv("JOURNAL_STREAM");
	cached = env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 &&
		 !fstat(STDERR_FILENO, &st) && st.st_dev == dev &&
		 st.st_ino == ino;
	return cached;
}

/**
 * kpr_log() - print a message on standard error, at a priority
 * @prio: its syslog priority; under systemd, the journal keeps it
 * @fmt: printf format of the message, without the trailing newline
 *
 * kpr_err(), kpr_warn() and kpr_info() prefix the command's name; lines
 * that name themselves, such as FILE:LINE: messages, come here directly.
 */
void kpr_log(enum kpr_prio prio, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (to_journal())
		fprintf(stderr, "<%d>", prio);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Out of memory: nothing sensible is left to do. */
static void *check_alloc(void *ptr)
{
	if (!ptr) {
		kpr_err("out of memory");
		exit(KPR_EXIT_IO);
	}
	return ptr;
}

void *kpr_xmalloc(size_t size)
{
	return check_alloc(malloc(size ? size : 1));
}

void *kpr_xrealloc(void *ptr, size_t size)
{
	return check_alloc(realloc(ptr, size ? size : 1));
}

char *kpr_xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

/**
 * kpr_xasprintf() - format into a new string
 * @fmt: printf format
 *
 * Return: the string, to free(); exits when out of memory.
 */
char *kpr_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(n < 0 ? NULL : s);
}

/**
 * kpr_usage_error() - complain about the command line
 * @cmd: the subcommand, or NULL for the global options
 * @fmt: printf format of the message
 *
 * Return: KPR_EXIT_USAGE, for the caller to return.
 */
int kpr_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (to_journal())
		fprintf(stderr, "<%d>", KPR_PRIO_ERR);
	fputs("kportreserve: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'kportreserve --help'.\n", stderr);
	return KPR_EXIT_USAGE;
}

/**
 * kpr_simple_options() - parse the options of a subcommand that has none
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments; argv[0] is the subcommand's name
 *
 * Only --help (-h) and "--" are understood. On return optind indexes the
 * first operand.
 *
 * Return: -1 to go on, or the exit code to return at once.
 */
int kpr_simple_options(int argc, char **argv)
{
	return kpr_resolve_options(NULL, argc, argv);
}

/**
 * kpr_options() - parse the options of a subcommand
 * @ctx: receives --resolve (-r) and --runtime; NULL when @which is 0
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments; argv[0] is the subcommand's name
 * @which: the options the subcommand takes besides --help (-h): a mask
 *         of KPR_OPT_RESOLVE and KPR_OPT_RUNTIME
 *
 * On return optind indexes the first operand.
 *
 * Return: -1 to go on, or the exit code to return at once.
 */
int kpr_options(struct kpr_ctx *ctx, int argc, char **argv,
		unsigned int which)
{
	struct option opts[4] = { { "help", no_argument, NULL, 'h' } };
	char letters[4] = "+h";
	int c, n = 1;

	if (which & KPR_OPT_RESOLVE) {
		opts[n++] = (struct option){ "resolve", no_argument, NULL, 'r' };
		strcat(letters, "r");
	}
	if (which & KPR_OPT_RUNTIME)
		opts[n++] = (struct option){ "runtime", no_argument, NULL, 'R' };
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, letters, opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return kpr_help();
		case 'r':
			ctx->resolve = true;
			break;
		case 'R':
			ctx->runtime = true;
			break;
		default:
			return kpr_bad_option(argv[0], c, argv[optind - 1]);
		}
	}
	return -1;
}

/**
 * kpr_resolve_options() - parse the options of check and load
 * @ctx: receives --resolve (-r); NULL for a subcommand without it
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments; argv[0] is the subcommand's name
 *
 * Return: -1 to go on, or the exit code to return at once.
 */
int kpr_resolve_options(struct kpr_ctx *ctx, int argc, char **argv)
{
	return kpr_options(ctx, argc, argv, ctx ? KPR_OPT_RESOLVE : 0);
}

/**
 * kpr_bad_option() - complain about an option getopt_long() refused
 * @cmd: the subcommand, or NULL for the global options
 * @c: what getopt_long() returned: ':' for a missing argument, else '?'
 * @arg: the argument that held the option
 *
 * Return: KPR_EXIT_USAGE.
 */
int kpr_bad_option(const char *cmd, int c, const char *arg)
{
	char opt[3] = { '-', (char)optopt, '\0' };

	if (c == ':')
		return kpr_usage_error(cmd, "option '%s' needs an argument",
				       arg);
	return kpr_usage_error(cmd, "unknown option '%s'",
			       optopt ? opt : arg);
}

/**
 * kpr_help() - print the help text
 *
 * Return: KPR_EXIT_OK.
 */
int kpr_help(void)
{
	fputs(usage_text, stdout);
	return KPR_EXIT_OK;
}

/* --version: one line, as the GNU coding standards have it. */
static int print_version(void)
{
	printf("kportreserve %s\n", KPR_VERSION);
	return KPR_EXIT_OK;
}

/**
 * global_options() - parse the options before the subcommand
 * @ctx: receives the securityfs directory
 * @argc: number of arguments
 * @argv: the arguments
 *
 * Return: -1 to go on with argv[optind] as the subcommand, or the exit
 * code to return at once.
 */
static int global_options(struct kpr_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "securityfs", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv(KPR_SECURITYFS_ENV);
	int c;

	ctx->dir = env && *env ? env : KPR_SECURITYFS_DEFAULT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			ctx->dir = optarg;
			break;
		case 'h':
			return kpr_help();
		case 'V':
			return print_version();
		default:
			return kpr_bad_option(NULL, c, argv[optind - 1]);
		}
	}
	if (!*ctx->dir)
		return kpr_usage_error(NULL, "empty securityfs directory");
	if (optind == argc)
		return kpr_usage_error(NULL, "no command given");
	return -1;
}

static const struct kpr_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	}
	return NULL;
}

/* Output that could not be written is an error, as in cat(1). */
static int flush_output(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		kpr_err("cannot write the output: %s", strerror(errno));
		return KPR_EXIT_IO;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const struct kpr_command *cmd;
	struct kpr_ctx ctx = { 0 };
	int ret;

	/* Before any redirection: status silences standard error a while. */
	to_journal();
	ret = global_options(&ctx, argc, argv);
	if (ret >= 0)
		return flush_output(ret);
	cmd = find_command(argv[optind]);
	if (!cmd)
		return kpr_usage_error(NULL, "unknown command '%s'",
				       argv[optind]);
	ret = cmd->run(&ctx, argc - optind, argv + optind);
	return flush_output(ret);
}
