/*
 * The round loop bench/attach's two programs share: malloc/free pairs over
 * a working set of 4096 blocks, a block chosen by a xorshift generator,
 * measured in rounds of ROUND_NS of this thread's CPU time; prints
 * "round N ns_per_pair X" after each (what run.sh and unwind.sh read).
 * ALLOC makes one block from a random word and ARG; it is a constant at each call,
 * so the compiler inlines it and the loop is the one measured before.
 */
#ifndef TM_BENCH_ATTACH_ROUNDS_H
#define TM_BENCH_ATTACH_ROUNDS_H

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

static inline __attribute__((always_inline)) void
run_rounds(int rounds, double round_ns, void *(*alloc)(uint64_t x, int arg), int arg)
{
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
				ws[i] = alloc(x, arg);
			}
			pairs += 10000;
		} while ((t = cpu_ns()) - t0 < round_ns);
		printf("round %d ns_per_pair %.2f\n", r, (t - t0) / (double)pairs);
		fflush(stdout);
	}
}

#endif
