/*
 * A program whose allocator is linked into it (tests/e2e/heap_static.sh):
 * jemalloc from Debian's libjemalloc.a, with RJEM its API renamed with the
 * _rjem_ prefix the way tikv-jemallocator builds it (malloc stays glibc's;
 * the program's big blocks go to _rjem_malloc).  Holds MIB MiB (argv[1])
 * for SECONDS (argv[2]), and prints what jemalloc itself counts as
 * allocated while it holds them: "allocated=BYTES".
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
int JE(mallctl)(const char *, void *, size_t *, void *, size_t);

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
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), allocated = 0, zs = sizeof(allocated);
	if (JE(mallctl)("epoch", &epoch, &sz, &epoch, sz) ||
	    JE(mallctl)("stats.allocated", &allocated, &zs, NULL, 0))
		return 1;
	printf("allocated=%zu\n", allocated);
	sleep((unsigned)seconds);
	return held[0] ? 0 : 1;
}
