/*
 * Under LD_PRELOAD="libtidemark-heap.so libjemalloc.so.2": allocates a mixed
 * workload, keeps part of it, then compares the shim's live bytes with
 * jemalloc's own stats.allocated (read through mallctl in this process).
 * Prints "shim_live=N jemalloc_allocated=N" and exits 0 when they are equal.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include "heap_self.h"

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static size_t jemalloc_allocated(mallctl_fn mallctl)
{
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), allocated = 0;
	mallctl("epoch", &epoch, &sz, &epoch, sz);
	sz = sizeof(allocated);
	if (mallctl("stats.allocated", &allocated, &sz, NULL, 0) != 0)
		return 0;
	return allocated;
}

int main(void)
{
	mallctl_fn mallctl = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	if (!mallctl) {
		fprintf(stderr, "jemalloc is not loaded\n");
		return 2;
	}
	static void *keep[20000];
	uint64_t s = 12345;
	for (int i = 0; i < 200000; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		int k = (int)(s % 20000);
		size_t n =
		    (s >> 20) % 100 == 0 ? 20000 + (s >> 32) % (4 << 20) : 8 + (s >> 32) % 3000;
		free(keep[k]);
		keep[k] = (i & 7) ? malloc(n) : realloc(keep[(k + 1) % 20000], n);
		if (!(i & 7))
			keep[(k + 1) % 20000] = NULL;
	}
	struct self_counters c;
	if (self_read(&c) < 0) {
		fprintf(stderr, "not running under the shim\n");
		return 2;
	}
	size_t je = jemalloc_allocated(mallctl);
	/* jemalloc also counts what was allocated for the shim itself, kept
	 * apart in own_bytes: the program's live is the rest (own is not 0 when
	 * the sampler unwinds with libunwind, whose caches stay) */
	printf("shim_live=%lld shim_own=%lld jemalloc_allocated=%zu\n", c.live, c.own, je);
	return c.live + c.own == (long long)je ? 0 : 1;
}
