/*
 * A client that holds N idle connections to a server on loopback, for the
 * bench --param test of a real server (tests/e2e/bench_param_redis.sh):
 * connects N TCP sockets to 127.0.0.1:PORT (retrying while the server
 * starts, for at most 10 s), then asks the server over one more connection
 * with the Redis inline command INFO clients until it reports
 * connected_clients >= N + 1 (at most 10 s), prints "connected=N", holds
 * everything open for HOLD ms and exits (closing them all).  It allocates
 * nothing per connection but an int, so what grows with N in the bench's
 * cgroup is the server's.  Exit 1 when the server never accepts them.
 *
 *   param_conns --port PORT --conns N [--hold-ms MS]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "param_conns: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

/* A connected socket, retrying a refused connection for up to 10 s; -1. */
static int dial(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int tries = 0; tries < 200; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		int e = errno;
		close(fd);
		if (e != ECONNREFUSED)
			return -1;
		sleep_ms(50);
	}
	return -1;
}

/* connected_clients from INFO clients over FD, or -1. */
static long connected(int fd)
{
	static const char cmd[] = "INFO clients\r\n";
	char buf[4096];
	size_t len = 0;

	if (write(fd, cmd, sizeof(cmd) - 1) != (ssize_t)(sizeof(cmd) - 1))
		return -1;
	/* $LEN\r\n then the text: read until the field is in */
	while (len < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		char *p = strstr(buf, "connected_clients:");
		if (p && strchr(p, '\n')) {
			long v = strtol(p + 18, NULL, 10);
			/* the rest of the reply, so the next one starts clean */
			while (!strstr(buf, "\r\n\r\n") && len < sizeof(buf) - 1 &&
			       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
				len += (size_t)n;
				buf[len] = '\0';
			}
			return v;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	long port = 0, n = 0, hold_ms = 1000, got = -1;
	struct rlimit rl;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port"))
			port = arg_long(argv[i + 1]);
		else if (!strcmp(argv[i], "--conns"))
			n = arg_long(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold-ms"))
			hold_ms = arg_long(argv[i + 1]);
		else {
			fprintf(stderr, "param_conns: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n + 64) {
		rl.rlim_cur = rl.rlim_max < (rlim_t)n + 64 ? rl.rlim_max : (rlim_t)n + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	int *fds = calloc((size_t)n + 1, sizeof(int));
	if (!fds || port <= 0)
		return 2;
	for (long i = 0; i <= n; i++)
		if ((fds[i] = dial((int)port)) < 0) {
			fprintf(stderr, "param_conns: connection %ld of %ld: %s\n", i + 1, n + 1,
			        strerror(errno));
			return 1;
		}
	for (int tries = 0; tries < 200 && got < n + 1; tries++) {
		got = connected(fds[n]);
		if (got < n + 1)
			sleep_ms(50);
	}
	if (got < n + 1) {
		fprintf(stderr, "param_conns: the server has %ld clients, not %ld\n", got, n + 1);
		return 1;
	}
	printf("connected=%ld\n", n);
	fflush(stdout);
	sleep_ms(hold_ms);
	for (long i = 0; i <= n; i++)
		close(fds[i]);
	free(fds);
	return 0;
}
