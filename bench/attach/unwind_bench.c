/*
 * For bench/attach/unwind.sh: what each unwinder costs per sampled
 * allocation.  malloc/free pairs of 256 bytes, each malloc made DEPTH calls
 * deep (a stack to unwind), a working set of 4096 blocks, measured in
 * rounds of ROUND_MS ms of CPU time; prints "round N ns_per_pair X" after
 * each.  Built twice: with frame pointers (unwind_bench_fp) and without
 * (unwind_bench_nofp, as distributions build).
 * usage: unwind_bench ROUNDS [ROUND_MS [DEPTH]]
 */
#include "rounds.h"

__attribute__((noinline)) void *deep(int n)
{
	if (n <= 0)
		return malloc(256);
	void *p = deep(n - 1);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

static void *deep_block(uint64_t x, int depth)
{
	(void)x;
	return deep(depth);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	double round_ns = (argc > 2 ? atof(argv[2]) : 300) * 1e6;
	int depth = argc > 3 ? atoi(argv[3]) : 10;
	run_rounds(rounds, round_ns, deep_block, depth);
	return 0;
}
