/*
 * A deterministic allocation pattern with a known peak.  Under the shim it
 * prints what the shim counted against what the program computed itself
 * (sum of malloc_usable_size of its live blocks):
 *   baseline=B peak=P expected_peak=E end_live=L work_peak_requested=R
 * Without the shim (under valgrind massif) it prints the requested peak.
 * With an argument "pause", waits for a line on stdin at the peak.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "heap_self.h"

#define NBLOCKS 64

static void *blocks[NBLOCKS];
static long long live_usable, peak_usable, live_req, peak_req;

static void track(void *p, size_t req, int sign)
{
	live_usable += sign * (long long)malloc_usable_size(p);
	live_req += sign * (long long)req;
	if (live_usable > peak_usable)
		peak_usable = live_usable;
	if (live_req > peak_req)
		peak_req = live_req;
}

static size_t size_of(int i)
{
	return (size_t)(1000 + i * 37 * 1024); /* small ... ~2.3 MiB (mmapped) */
}

static void must(void *p)
{
	if (!p) {
		fprintf(stderr, "allocation failed\n");
		exit(1);
	}
}

static void odd_cases(void)
{
	/* realloc to and from zero, reallocarray, aligned and page-sized requests */
	void *p = realloc(NULL, 0);
	must(p);
	free(realloc(p, 0)); /* glibc frees P and returns NULL */
	void *q = calloc(10, 100);
	must(q);
	void *q2 = reallocarray(q, 20, 100);
	must(q2);
	free(q2);
	void *a = aligned_alloc(4096, 8192), *b = memalign(64, 100), *c = valloc(5000), *d = NULL;
	must(a), must(b), must(c);
	if (posix_memalign(&d, 1 << 16, 3 << 20))
		exit(1);
	free(a), free(b), free(c), free(d);
	volatile size_t huge = SIZE_MAX / 2;
	errno = 0;
	void *h1 = malloc(huge), *h2 = calloc(huge, 4);
	if (h1 || h2 || errno != ENOMEM)
		fprintf(stderr, "huge requests did not fail with ENOMEM\n");
	free(h1);
	free(h2);
}

int main(int argc, char **argv)
{
	struct self_counters c0, c1, c2;
	int shim = self_read(&c0) == 0;
	odd_cases();
	for (int i = 0; i < NBLOCKS; i++) {
		blocks[i] = i % 3 ? malloc(size_of(i)) : calloc(1, size_of(i));
		must(blocks[i]);
		track(blocks[i], size_of(i), 1);
		if (i % 4 == 3) { /* grow some by realloc, free every eighth */
			track(blocks[i], size_of(i), -1);
			blocks[i] = realloc(blocks[i], size_of(i) * 2);
			must(blocks[i]);
			track(blocks[i], size_of(i) * 2, 1);
		}
		if (i % 8 == 7) {
			track(blocks[i], size_of(i) * 2, -1);
			free(blocks[i]);
			blocks[i] = NULL;
		}
	}
	if (argc > 1 && !strcmp(argv[1], "pause")) {
		printf("ready\n");
		fflush(stdout);
		char line[16];
		if (!fgets(line, sizeof(line), stdin))
			line[0] = 0;
	}
	if (shim)
		self_read(&c1);
	for (int i = 0; i < NBLOCKS; i++)
		free(blocks[i]);
	if (!shim) {
		printf("work_peak_requested=%lld\n", peak_req);
		return 0;
	}
	self_read(&c2);
	printf("baseline=%lld peak=%lld expected_peak=%lld end_live=%lld "
	       "work_peak_requested=%lld allocs=%lld frees=%lld\n", /* allocs, frees: in main */
	       c0.live, c1.peak, c0.live + peak_usable, c2.live, peak_req, c2.allocs - c0.allocs,
	       c2.frees - c0.frees);
	return 0;
}
