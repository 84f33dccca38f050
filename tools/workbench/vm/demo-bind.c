// SPDX-License-Identifier: GPL-2.0
/*
 * demo-bind: bind a port and say what happened, for "make demo".
 *
 *   demo-bind PORT [tcp|udp]
 *
 * The demo copies this program to the paths a policy names (and to paths
 * it does not), since kportreserve tells programs apart by executable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *proto = argc > 2 ? argv[2] : "tcp";
	int udp = !strcmp(proto, "udp");
	char exe[256] = "?";
	ssize_t n;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PORT [tcp|udp]\n", argv[0]);
		return 2;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	sin.sin_port = htons(atoi(argv[1]));
	fd = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		printf("    %-28s bind %s/%s: %s\n", exe, argv[1], proto,
		       strerror(errno));
		return 1;
	}
	printf("    %-28s bind %s/%s: ok\n", exe, argv[1], proto);
	close(fd);
	return 0;
}
