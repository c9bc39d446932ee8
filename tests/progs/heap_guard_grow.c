/*
 * A service that grows, for tests/e2e/guard.sh.
 *   heap_guard_grow WAIT_MS STEP_MS MAX_MIB HOLD_MS COUNTFILE
 * Waits WAIT_MS, then keeps 1 MiB more live every STEP_MS (in 64 KiB
 * blocks, touched, from grow_leak_site) up to MAX_MIB, holds HOLD_MS and
 * exits 0.  Counts each SIGUSR1 it receives and writes the count to
 * COUNTFILE at each one (from the main loop, not the handler).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

__attribute__((noinline)) static void *grow_leak_site(size_t n)
{
	void *p = malloc(n);
	if (p)
		memset(p, 7, n);
	return p;
}

static void nap_ms(long ms, const char *countfile)
{
	static sig_atomic_t written;
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
	if (usr1 != written) {
		FILE *f = fopen(countfile, "w");
		written = usr1;
		if (f) {
			fprintf(f, "%d\n", (int)written);
			fclose(f);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr,
		        "usage: heap_guard_grow WAIT_MS STEP_MS MAX_MIB HOLD_MS COUNTFILE\n");
		return 2;
	}
	long wait_ms = atol(argv[1]), step_ms = atol(argv[2]), max_mib = atol(argv[3]);
	long hold_ms = atol(argv[4]);
	struct sigaction sa = {.sa_handler = on_usr1};
	sigaction(SIGUSR1, &sa, NULL);
	for (long t = 0; t < wait_ms; t += 10)
		nap_ms(10, argv[5]);
	for (long mib = 0; mib < max_mib; mib++) {
		for (int i = 0; i < 16; i++)
			if (!grow_leak_site(64 * 1024))
				return 1;
		nap_ms(step_ms, argv[5]);
	}
	for (long t = 0; t < hold_ms; t += 10)
		nap_ms(10, argv[5]);
	return 0;
}
