/*
 * A service that waits between units of work, for the throttle-limbo tests
 * (issue 25): holds HOLD MiB, then does UNITS units, each mapping UNIT MiB
 * of fresh pages, touching them and unmapping them again (the first WARM
 * units map 1 MiB only), printing "progress=N" after each and sleeping
 * SLEEP ms before the next, as a node waits on the network.
 *
 *   churn_idle [--hold-mib N] [--unit-mib N] [--units N] [--warm N] [--sleep-ms N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "churn_idle: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* Maps MIB MiB, writes every page, unmaps it. */
static void unit(long mib)
{
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("churn_idle: mmap");
		exit(1);
	}
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)(i >> 12);
	munmap(p, len);
}

int main(int argc, char **argv)
{
	long hold = 16, unit_mib = 16, units = 40, warm = 0, sleep = 300;

	for (int i = 1; i + 1 < argc; i += 2) {
		long v = arg_long(argv[i + 1]);
		if (!strcmp(argv[i], "--hold-mib"))
			hold = v;
		else if (!strcmp(argv[i], "--unit-mib"))
			unit_mib = v;
		else if (!strcmp(argv[i], "--units"))
			units = v;
		else if (!strcmp(argv[i], "--warm"))
			warm = v;
		else if (!strcmp(argv[i], "--sleep-ms"))
			sleep = v;
		else {
			fprintf(stderr, "churn_idle: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	/* volatile: a compiler may drop a malloc, memset and free it sees no read of */
	volatile char *held = malloc((size_t)hold << 20);
	if (hold && !held)
		return 1;
	for (size_t i = 0; i < ((size_t)hold << 20); i += 4096)
		held[i] = 1;
	for (long n = 1; n <= units; n++) {
		unit(n <= warm ? 1 : unit_mib);
		printf("progress=%ld\n", n);
		fflush(stdout);
		sleep_ms(sleep);
	}
	long sum = 0;
	for (size_t i = 0; i < ((size_t)hold << 20); i += 4096)
		sum += held[i];
	printf("held %ld pages\n", sum);
	free((void *)held);
	return 0;
}
