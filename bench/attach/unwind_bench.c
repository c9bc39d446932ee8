/*
 * For bench/attach/unwind.sh: what each unwinder costs per sampled
 * allocation.  malloc/free pairs of 256 bytes, each malloc made DEPTH calls
 * deep (a stack to unwind), a working set of 4096 blocks, measured in
 * rounds of ROUND_MS ms of CPU time; prints "round N ns_per_pair X" after
 * each.  Built twice: with frame pointers (unwind_bench_fp) and without
 * (unwind_bench_nofp, as distributions build).
 * usage: unwind_bench ROUNDS [ROUND_MS [DEPTH]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

__attribute__((noinline)) void *deep(int n)
{
	if (n <= 0)
		return malloc(256);
	void *p = deep(n - 1);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	double round_ns = (argc > 2 ? atof(argv[2]) : 300) * 1e6;
	int depth = argc > 3 ? atoi(argv[3]) : 10;
	static void *ws[4096];
	uint64_t x = 88172645463325252ull;
	for (int r = 1; r <= rounds; r++) {
		double t0 = cpu_ns(), t;
		long pairs = 0;
		do {
			for (int k = 0; k < 10000; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				size_t i = x % 4096;
				free(ws[i]);
				ws[i] = deep(depth);
			}
			pairs += 10000;
		} while ((t = cpu_ns()) - t0 < round_ns);
		printf("round %d ns_per_pair %.2f\n", r, (t - t0) / (double)pairs);
		fflush(stdout);
	}
	return 0;
}
