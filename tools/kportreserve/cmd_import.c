// SPDX-License-Identifier: GPL-2.0
/*
 * kportreserve(8): "import-portreserve" turns the service files of the
 * portreserve daemon into kportreserve rules.
 *
 * portreserve reads each file of /etc/portreserve whose name has no '.'
 * and no '~'. Each line of a file names a service of /etc/services or a
 * port number, optionally followed by "/tcp" or "/udp"; without one, the
 * service is reserved over TCP and over UDP. portreserve holds the ports
 * for no program in particular, so the program of each file comes from
 * the command line: --map NAME=PROGRAM for the file NAME, else --program.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kportreserve.h"

#define KPR_PORTRESERVE_DIR	"/etc/portreserve"
#define KPR_SERVICES		"/etc/services"

/**
 * struct map_entry - a --map NAME=PROGRAM option
 * @name: the service file's name
 * @prog: the program, encoded as a policy field
 * @used: a file of that name was found
 */
struct map_entry {
	char *name;
	char *prog;
	bool used;
};

/**
 * struct import - an import-portreserve run
 * @dir: the directory of service files
 * @services_path: the services database
 * @services: its contents
 * @prog: the --program, encoded, or NULL
 * @map: the --map options
 * @nr_map: number of entries in @map
 */
struct import {
	const char *dir;
	const char *services_path;
	struct kpr_buf services;
	char *prog;
	struct map_entry *map;
	size_t nr_map;
};

static const char import_usage[] =
	"[-p PROGRAM] [-m NAME=PROGRAM]... [-S SERVICES] [DIR]";

/**
 * check_program() - encode a program given in an option and check it
 * @opt: the option, for messages
 * @arg: the program
 * @prog: receives the encoded program, to free()
 *
 * Return: 0, or KPR_EXIT_USAGE after an error message.
 */
static int check_program(const char *opt, const char *arg, char **prog)
{
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg;
	char *text;
	int ret = 0;

	*prog = kpr_encode_arg(arg);
	text = kpr_xasprintf("1 %s", *prog);
	if (kpr_parse_policy(text, strlen(text), &rs, &line, &msg)) {
		ret = kpr_usage_error("import-portreserve", "%s: %s", opt, msg);
		free(*prog);
		*prog = NULL;
	}
	kpr_ruleset_destroy(&rs);
	free(text);
	return ret;
}

static int add_map(struct import *im, const char *arg)
{
	const char *eq = strchr(arg, '='), *slash = strchr(arg, '/');
	struct map_entry *m;
	char *opt;
	size_t i;
	int ret;

	if (!eq || eq == arg || (slash && slash < eq))
		return kpr_usage_error("import-portreserve",
				       "--map '%s': expected NAME=PROGRAM", arg);
	for (i = 0; i < im->nr_map; i++) {
		if (strlen(im->map[i].name) == (size_t)(eq - arg) &&
		    !strncmp(im->map[i].name, arg, eq - arg))
			return kpr_usage_error("import-portreserve",
					       "--map '%s': %s mapped twice",
					       arg, im->map[i].name);
	}
	im->map = kpr_xrealloc(im->map, (im->nr_map + 1) * sizeof(*im->map));
	m = &im->map[im->nr_map];
	m->name = kpr_xasprintf("%.*s", (int)(eq - arg), arg);
	m->used = false;
	opt = kpr_xasprintf("--map %s", arg);
	ret = check_program(opt, eq + 1, &m->prog);
	free(opt);
	if (ret) {
		free(m->name);
		return ret;
	}
	im->nr_map++;
	return 0;
}

/**
 * import_options() - parse the options and operand of import-portreserve
 * @im: receives the settings
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: -1 to go on, or the exit code to return at once.
 */
static int import_options(struct import *im, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "program", required_argument, NULL, 'p' },
		{ "map", required_argument, NULL, 'm' },
		{ "services", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *opt;
	int c, ret;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:m:S:h", opts, NULL)) != -1) {
		ret = 0;
		if (c == 'p') {
			free(im->prog);
			opt = kpr_xasprintf("--program %s", optarg);
			ret = check_program(opt, optarg, &im->prog);
			free(opt);
		} else if (c == 'm') {
			ret = add_map(im, optarg);
		} else if (c == 'S') {
			im->services_path = optarg;
		} else if (c == 'h') {
			return kpr_help();
		} else {
			return kpr_bad_option(argv[0], c, argv[optind - 1]);
		}
		if (ret)
			return ret;
	}
	if (argc - optind > 1)
		return kpr_usage_error(argv[0], "expected %s", import_usage);
	if (optind < argc)
		im->dir = argv[optind];
	if (!im->prog && !im->nr_map)
		return kpr_usage_error(argv[0],
				       "give --program PROGRAM or --map NAME=PROGRAM: portreserve names no programs");
	return -1;
}

/**
 * parse_services_line() - split a line of the services database
 * @line: the line; modified
 * @port: receives the port
 * @proto: receives the protocol's name
 * @names: receives the service's name and aliases, NULL-terminated
 * @max: capacity of @names, the NULL included
 *
 * Return: true if @line holds an entry.
 */
static bool parse_services_line(char *line, unsigned long *port, char **proto,
				char **names, size_t max)
{
	char *save = NULL, *f, *slash, *end;
	size_t n = 0;

	line[strcspn(line, "#")] = '\0';
	names[n++] = strtok_r(line, " \t\r", &save);
	f = strtok_r(NULL, " \t\r", &save);
	if (!names[0] || !f)
		return false;
	slash = strchr(f, '/');
	if (!slash)
		return false;
	*slash = '\0';
	*proto = slash + 1;
	*port = strtoul(f, &end, 10);
	if (*end || end == f)
		return false;
	while (n + 1 < max && (f = strtok_r(NULL, " \t\r", &save)))
		names[n++] = f;
	names[n] = NULL;
	return true;
}

/**
 * lookup_service() - find a service's port, as getservbyname(3) does
 * @im: holds the services database
 * @name: the service's name or an alias
 * @proto: the protocol
 *
 * Return: the port, or 0 when the database has no such entry.
 */
static unsigned long lookup_service(const struct import *im, const char *name,
				    const char *proto)
{
	char *copy = kpr_xstrdup(im->services.text), *line, *next, *p;
	unsigned long port, found = 0;
	char *names[32];
	size_t i;

	for (line = copy; line && !found; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_services_line(line, &port, &p, names,
					 ARRAY_SIZE(names)) || strcmp(p, proto))
			continue;
		for (i = 0; names[i] && !found; i++) {
			if (!strcmp(names[i], name))
				found = port;
		}
	}
	free(copy);
	return found;
}

/**
 * resolve() - the port of a service file entry over one protocol
 * @im: holds the services database
 * @name: a service name or a decimal port
 * @proto: the protocol
 *
 * Return: the port, 0 when @name is not a service over @proto, or
 * KPR_NR_PORTS when @name is a number outside 1..65535.
 */
static unsigned long resolve(const struct import *im, const char *name,
			     const char *proto)
{
	unsigned long port;
	char *end;

	if (strspn(name, "0123456789") != strlen(name))
		return lookup_service(im, name, proto);
	errno = 0;
	port = strtoul(name, &end, 10);
	if (errno || !port || port >= KPR_NR_PORTS)
		return KPR_NR_PORTS;
	return port;
}

/* Print the canonical rule for @port/@proto @prog, checked by the parser. */
static int print_rule(unsigned long port, const char *proto, const char *prog)
{
	char *text = kpr_xasprintf("%lu/%s %s", port, proto, prog), *rule;
	struct kpr_ruleset rs = { 0 };
	unsigned int line;
	const char *msg;
	int ret = KPR_EXIT_OK;

	if (kpr_parse_policy(text, strlen(text), &rs, &line, &msg)) {
		kpr_err("'%s': %s", text, msg);
		ret = KPR_EXIT_POLICY;
	} else {
		rule = kpr_format_rule(&rs.rules[0]);
		puts(rule);
		free(rule);
	}
	kpr_ruleset_destroy(&rs);
	free(text);
	return ret;
}

/**
 * import_error() - report a bad line of a service file, as a compiler would
 * @file: the file
 * @nr: the line's number
 * @fmt: printf format of the message
 *
 * Return: KPR_EXIT_POLICY.
 */
static __printf(3, 4) int import_error(const char *file, unsigned int nr,
				       const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s:%u: ", file, nr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KPR_EXIT_POLICY;
}

/* Whether @proto is a protocol of the policy language. */
static bool known_proto(const char *proto)
{
	int p;

	for (p = 0; p < KPR_NR_PROTOS; p++) {
		if (!strcmp(kpr_proto_name(p), proto))
			return true;
	}
	return false;
}

/**
 * import_line() - turn one line of a service file into rules
 * @im: the run
 * @file: the file's path, for messages
 * @nr: the line's number
 * @line: the line; modified
 * @prog: the program of the file, encoded
 *
 * Return: KPR_EXIT_OK or KPR_EXIT_POLICY after a FILE:LINE: message.
 */
static int import_line(const struct import *im, const char *file,
		       unsigned int nr, char *line, const char *prog)
{
	static const char *const portreserve_protos[] = { "tcp", "udp" };
	const char *const *protos = portreserve_protos;
	size_t nr_protos = ARRAY_SIZE(portreserve_protos), i;
	char *name = line + strspn(line, " \t"), *slash;
	const char *given;
	unsigned long port;
	int ret = KPR_EXIT_OK, found = 0;

	name[strcspn(name, " \t\r")] = '\0';
	if (!*name || *name == '#')
		return KPR_EXIT_OK;
	slash = strchr(name, '/');
	if (slash) {
		*slash++ = '\0';
		if (!known_proto(slash))
			return import_error(file, nr, "unknown protocol '%s'",
					    slash);
		given = slash;
		protos = &given;
		nr_protos = 1;
	}
	for (i = 0; i < nr_protos && !ret; i++) {
		port = resolve(im, name, protos[i]);
		if (port == KPR_NR_PORTS)
			return import_error(file, nr,
					    "port must be a number from 1 to 65535");
		if (!port)
			continue;
		ret = print_rule(port, protos[i], prog);
		found++;
	}
	if (!found && !ret)
		ret = import_error(file, nr, "unknown service '%s' (not in %s)",
				   name, im->services_path);
	return ret;
}

/* The program for the service file @name, or NULL. */
static const char *program_for(struct import *im, const char *name)
{
	size_t i;

	for (i = 0; i < im->nr_map; i++) {
		if (!strcmp(im->map[i].name, name)) {
			im->map[i].used = true;
			return im->map[i].prog;
		}
	}
	return im->prog;
}

/**
 * import_file() - turn a service file into rules on standard output
 * @im: the run
 * @name: the file's name in @im->dir
 *
 * Return: the exit code for this file.
 */
static int import_file(struct import *im, const char *name)
{
	char *path = kpr_xasprintf("%s/%s", im->dir, name), *line, *next;
	const char *prog = program_for(im, name);
	int ret = KPR_EXIT_OK, r, err;
	unsigned int nr = 1;
	struct kpr_buf buf;

	if (!prog) {
		kpr_err("%s: no program for '%s': give --map %s=PROGRAM or --program PROGRAM",
			path, name, name);
		free(path);
		return KPR_EXIT_POLICY;
	}
	err = kpr_read_path(path, &buf);
	if (err) {
		kpr_err("%s: %s", path, strerror(-err));
		free(path);
		return KPR_EXIT_IO;
	}
	printf("# %s\n", path);
	for (line = buf.text; line && *line; line = next, nr++) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = import_line(im, path, nr, line, prog);
		if (r > ret)
			ret = r;
	}
	kpr_buf_free(&buf);
	free(path);
	return ret;
}

/* portreserve's rule: files with '.' or '~' in their name are not read. */
static int is_service_file(const struct dirent *d)
{
	return !strchr(d->d_name, '.') && !strchr(d->d_name, '~');
}

/* Whether @name in @dir is a regular file (or a link to one). */
static bool is_regular(const char *dir, const char *name)
{
	char *path = kpr_xasprintf("%s/%s", dir, name);
	struct stat st;
	bool regular = !stat(path, &st) && S_ISREG(st.st_mode);

	free(path);
	return regular;
}

/**
 * import_dir() - import every service file of the directory, by name
 * @im: the run
 *
 * Return: the exit code.
 */
static int import_dir(struct import *im)
{
	struct dirent **names;
	int n, i, ret = KPR_EXIT_OK, r;
	size_t m;

	n = scandir(im->dir, &names, is_service_file, alphasort);
	if (n < 0) {
		kpr_err("%s: %s", im->dir, strerror(errno));
		return KPR_EXIT_IO;
	}
	for (i = 0; i < n; i++) {
		if (is_regular(im->dir, names[i]->d_name)) {
			r = import_file(im, names[i]->d_name);
			if (r > ret)
				ret = r;
		}
		free(names[i]);
	}
	free(names);
	for (m = 0; m < im->nr_map; m++) {
		if (im->map[m].used)
			continue;
		kpr_err("--map %s: no service file %s/%s", im->map[m].name,
			im->dir, im->map[m].name);
		if (ret < KPR_EXIT_POLICY)
			ret = KPR_EXIT_POLICY;
	}
	return ret;
}

static void import_free(struct import *im)
{
	size_t i;

	for (i = 0; i < im->nr_map; i++) {
		free(im->map[i].name);
		free(im->map[i].prog);
	}
	free(im->map);
	free(im->prog);
	kpr_buf_free(&im->services);
}

/**
 * kpr_cmd_import() - kportreserve import-portreserve [DIR]
 * @ctx: unused: the import needs no kernel
 * @argc: number of arguments, the subcommand's name included
 * @argv: the arguments
 *
 * Return: the exit code.
 */
int kpr_cmd_import(struct kpr_ctx *ctx, int argc, char **argv)
{
	struct import im = {
		.dir = KPR_PORTRESERVE_DIR,
		.services_path = KPR_SERVICES,
	};
	int ret, err;

	(void)ctx;
	ret = import_options(&im, argc, argv);
	if (ret < 0) {
		err = kpr_read_path(im.services_path, &im.services);
		if (err) {
			kpr_err("%s: %s", im.services_path, strerror(-err));
			ret = KPR_EXIT_IO;
		} else {
			ret = import_dir(&im);
		}
	}
	import_free(&im);
	return ret;
}
