/*
 * A small workload for the bench tests: allocates MIB MiB in STEPS steps
 * (touching every page), printing "progress=N" after each step, then
 * optionally frees it all and holds for a while.
 *
 *   bench_alloc [--mib N] [--steps N] [--step-ms N] [--free] [--hold-ms N]
 *               [--threads N] [--ignore-term]
 *
 * With --threads N the steps are spread over N threads (each allocating
 * its share), so glibc's per-thread arenas come into play.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (64 * 1024)

struct opts {
	long mib, steps, step_ms, hold_ms, threads;
	int do_free;
};

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
		fprintf(stderr, "bench_alloc: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

struct share {
	long chunks;
	char **ptrs;
};

static void *alloc_share(void *arg)
{
	struct share *sh = arg;
	for (long i = 0; i < sh->chunks; i++) {
		sh->ptrs[i] = malloc(CHUNK);
		if (!sh->ptrs[i])
			abort();
		memset(sh->ptrs[i], (int)(i & 0x7f) + 1, CHUNK);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct opts o = {.mib = 64, .steps = 8, .step_ms = 50, .hold_ms = 0, .threads = 1};
	long chunks_per_step;
	char ***all;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mib") && i + 1 < argc)
			o.mib = arg_long(argv[++i]);
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			o.steps = arg_long(argv[++i]);
		else if (!strcmp(argv[i], "--step-ms") && i + 1 < argc)
			o.step_ms = arg_long(argv[++i]);
		else if (!strcmp(argv[i], "--hold-ms") && i + 1 < argc)
			o.hold_ms = arg_long(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			o.threads = arg_long(argv[++i]);
		else if (!strcmp(argv[i], "--free"))
			o.do_free = 1;
		else if (!strcmp(argv[i], "--ignore-term"))
			signal(SIGTERM, SIG_IGN);
		else {
			fprintf(stderr, "usage: bench_alloc [--mib N] [--steps N] [--step-ms N] "
			                "[--free] [--hold-ms N] [--threads N] [--ignore-term]\n");
			return 2;
		}
	}
	if (o.steps < 1 || o.threads < 1)
		return 2;
	chunks_per_step = o.mib * 1024 * 1024 / CHUNK / o.steps;
	all = calloc((size_t)o.steps, sizeof(*all));
	for (long s = 0; s < o.steps; s++) {
		long per = chunks_per_step / o.threads;
		pthread_t th[64];
		struct share sh[64];
		long n = o.threads > 64 ? 64 : o.threads;
		all[s] = calloc((size_t)(per * n + 1), sizeof(char *));
		for (long t = 0; t < n; t++) {
			sh[t].chunks = per;
			sh[t].ptrs = all[s] + t * per;
			pthread_create(&th[t], NULL, alloc_share, &sh[t]);
		}
		for (long t = 0; t < n; t++)
			pthread_join(th[t], NULL);
		printf("progress=%ld\n", s + 1);
		fflush(stdout);
		sleep_ms(o.step_ms);
	}
	if (o.do_free) {
		for (long s = 0; s < o.steps; s++) {
			for (long i = 0; all[s][i]; i++)
				free(all[s][i]);
			free(all[s]);
		}
		printf("freed\n");
		fflush(stdout);
	}
	sleep_ms(o.hold_ms);
	return 0;
}
