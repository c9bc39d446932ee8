/*
 * A program whose allocator is linked into it (tests/e2e/heap_static.sh):
 * jemalloc from Debian's libjemalloc.a, with RJEM its API renamed with the
 * _rjem_ prefix the way tikv-jemallocator builds it (malloc stays glibc's;
 * the program's big blocks go to _rjem_malloc); with TCMALLOC, gperftools'
 * libtcmalloc_minimal.a instead.  Holds MIB MiB (argv[1]) for SECONDS
 * (argv[2]), and prints what the allocator itself counts as allocated
 * while it holds them: "allocated=BYTES".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef RJEM
#define JE(f) _rjem_##f
#else
#define JE(f) f
#endif

void *JE(malloc)(size_t);
#ifdef TCMALLOC
int MallocExtension_GetNumericProperty(const char *, size_t *);
#else
int JE(mallctl)(const char *, void *, size_t *, void *, size_t);
#endif

/* What the allocator counts as allocated, or -1. */
static long long own_allocated(void)
{
	size_t allocated = 0;
#ifdef TCMALLOC
	if (!MallocExtension_GetNumericProperty("generic.current_allocated_bytes", &allocated))
		return -1;
#else
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), zs = sizeof(allocated);
	if (JE(mallctl)("epoch", &epoch, &sz, &epoch, sz) ||
	    JE(mallctl)("stats.allocated", &allocated, &zs, NULL, 0))
		return -1;
#endif
	return (long long)allocated;
}

int main(int argc, char **argv)
{
	int mib = argc > 1 ? atoi(argv[1]) : 40;
	int seconds = argc > 2 ? atoi(argv[2]) : 2;
	static char *held[4096];
	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer of stdio's allocated later */
	for (int i = 0; i < mib && i < 4096; i++) {
		held[i] = JE(malloc)(1 << 20);
		memset(held[i], 1, 1 << 20);
	}
	long long allocated = own_allocated();
	if (allocated < 0)
		return 1;
	printf("allocated=%lld\n", allocated);
	sleep((unsigned)seconds);
	return held[0] ? 0 : 1;
}
