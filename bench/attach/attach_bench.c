/*
 * For bench/attach/run.sh: malloc/free pairs (mixed sizes 16..512 bytes, a
 * working set of 4096 blocks) measured in rounds of ROUND_MS ms of CPU
 * time; prints "round N ns_per_pair X" after each, so that rounds before,
 * during and after an attach can be told apart.
 * usage: attach_bench ROUNDS [ROUND_MS]
 */
#include "rounds.h"

static inline void *mixed(uint64_t x, int unused)
{
	(void)unused;
	return malloc(16 + (x >> 20) % 497);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	double round_ns = (argc > 2 ? atof(argv[2]) : 500) * 1e6;
	run_rounds(rounds, round_ns, mixed, 0);
	return 0;
}
