/*
 * What one reading of the allocator's own statistics costs inside the
 * process (include/tidemark-heap.h: stats_req / stats_ans; the shim times
 * each answer into stats_nsec).  Run under the shim with
 * TIDEMARK_HEAP_KEEP=2 (its answering thread, as under the recorder):
 *   stats_bench BLOCKS READINGS
 * keeps BLOCKS live blocks of mixed sizes with every other one freed (free
 * chunks for the allocator to walk), then asks READINGS times, waiting for
 * each answer, and prints the median and the 90th percentile in ns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "tidemark-heap.h"

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long blocks = argc > 1 ? atol(argv[1]) : 100000;
	int readings = argc > 2 ? atoi(argv[2]) : 200;
	char path[64];
	snprintf(path, sizeof(path), TMH_PATH_FMT, (unsigned)geteuid(), (int)getpid());
	int fd = open(path, O_RDWR);
	struct tmh_region *r =
	    fd < 0 ? MAP_FAILED : mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		fprintf(stderr, "not running under the shim\n");
		return 2;
	}
	void **keep = calloc((size_t)blocks, sizeof(*keep));
	unsigned long long s = 88172645463325252ull;
	for (long i = 0; i < blocks; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		keep[i] = malloc(16 + s % 2000);
	}
	for (long i = 0; i < blocks; i += 2)
		free(keep[i]);
	long long *ns = calloc((size_t)readings, sizeof(*ns));
	for (int k = 0; k < readings; k++) {
		unsigned long long req = __atomic_add_fetch(&r->stats_req, 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, (unsigned *)&r->stats_req, FUTEX_WAKE, 1, NULL, NULL, 0);
		/* a slow reading puts the next one off by 100 times its cost */
		for (int w = 0; __atomic_load_n(&r->stats_ans, __ATOMIC_ACQUIRE) < req; w++) {
			if (w > 120000) {
				fprintf(stderr, "no answer in 2 minutes (TIDEMARK_HEAP_KEEP=2 "
				                "starts the thread)\n");
				return 1;
			}
			usleep(1000);
		}
		ns[k] = r->stats_nsec;
	}
	qsort(ns, (size_t)readings, sizeof(*ns), cmp);
	printf("allocator=%u blocks=%ld median_ns=%lld p90_ns=%lld\n", r->stats_allocator, blocks,
	       ns[readings / 2], ns[readings * 9 / 10]);
	return 0;
}
