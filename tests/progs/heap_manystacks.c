/*
 * More distinct allocation stacks than the region's table holds: a binary
 * recursion with two call sites per level, 2^13 leaves, each allocating.
 * Run with TIDEMARK_HEAP_SAMPLE=1 (every allocation sampled); the profile
 * must still be valid, with the overflow under "[stack not recorded]".
 */
#include <stdio.h>
#include <stdlib.h>

static void *keep[1 << 13];
static int nkeep;

__attribute__((noinline)) static void level(int depth);

__attribute__((noinline)) static void left(int depth)
{
	level(depth - 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void right(int depth)
{
	level(depth - 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void level(int depth)
{
	if (depth == 0) {
		keep[nkeep++] = malloc(100);
		return;
	}
	left(depth);
	right(depth);
}

int main(void)
{
	level(13);
	printf("allocated %d blocks\n", nkeep);
	for (int i = 0; i < nkeep; i++)
		free(keep[i]);
	return 0;
}
