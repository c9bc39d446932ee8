// What the shim counts at start-up and per thread, under any allocator:
//  - libstdc++'s emergency pool (allocated in its constructor, before
//    tcmalloc is initialised) counts at its true size, not 0;
//  - a thread's first allocation counts only its own block: nothing glibc
//    allocates on the shim's behalf is counted as the program's;
//  - live bytes return exactly to the baseline once everything is freed.
// Prints key=value lines and "ok" or what differed; exits 1 on a difference.
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <pthread.h>
#include <string>
#include <vector>

#include "heap_self.h"

static struct self_counters now()
{
	struct self_counters c;
	if (self_read(&c) != 0) {
		std::fprintf(stderr, "not running under the shim\n");
		std::exit(2);
	}
	return c;
}

struct first_alloc {
	long long delta, usable;
};

static void *thread_main(void *arg)
{
	struct first_alloc *fa = static_cast<struct first_alloc *>(arg);
	struct self_counters a = now();
	void *volatile p = std::malloc(100);
	struct self_counters b = now();
	fa->delta = b.alloc_bytes - a.alloc_bytes;
	fa->usable = (long long)malloc_usable_size(p);
	std::free(p);
	return nullptr;
}

int main()
{
	void *volatile warm = std::malloc(24); // the allocator answers from now on
	std::free(warm);
	struct self_counters start = now();
	std::printf("start_live=%lld start_alloc_bytes=%lld start_allocs=%lld\n", start.live,
	            start.alloc_bytes, start.allocs);
	int bad = 0;
	// libstdc++'s emergency pool for exceptions (72 KiB on 64-bit) is live
	if (start.live < 64 * 1024) {
		std::printf("start-up blocks counted short: live %lld at main\n", start.live);
		bad = 1;
	}
	long long baseline = start.live;
	for (int i = 0; i < 8; i++) {
		pthread_t t;
		struct first_alloc fa = {0, 0};
		pthread_create(&t, nullptr, thread_main, &fa);
		pthread_join(t, nullptr);
		if (fa.delta != fa.usable) {
			std::printf(
			    "thread %d: first malloc(100) counted %lld bytes, usable %lld\n", i,
			    fa.delta, fa.usable);
			bad = 1;
		}
	}
	// threads' own start-up (stacks, TLS) is glibc's, freed when they are
	// joined or reused: count what is live now as the new baseline
	baseline = now().live;
	{
		std::vector<std::string> v;
		for (int i = 0; i < 10000; i++)
			v.push_back(std::string(static_cast<size_t>(i % 300), 'x'));
		void *big = std::malloc(10 << 20);
		std::free(big);
	}
	long long end = now().live;
	std::printf("baseline=%lld end_live=%lld\n", baseline, end);
	if (end != baseline) {
		std::printf("live did not return to its baseline\n");
		bad = 1;
	}
	if (!bad)
		std::printf("ok\n");
	return bad;
}
