/*
 * For bench/attach/run.sh: malloc/free pairs (mixed sizes 16..512 bytes, a
 * working set of 4096 blocks) measured in rounds of ROUND_MS ms of CPU
 * time; prints "round N ns_per_pair X" after each, so that rounds before,
 * during and after an attach can be told apart.
 * usage: attach_bench ROUNDS [ROUND_MS]
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

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	double round_ns = (argc > 2 ? atof(argv[2]) : 500) * 1e6;
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
				ws[i] = malloc(16 + (x >> 20) % 497);
			}
			pairs += 10000;
		} while ((t = cpu_ns()) - t0 < round_ns);
		printf("round %d ns_per_pair %.2f\n", r, (t - t0) / (double)pairs);
		fflush(stdout);
	}
	return 0;
}
