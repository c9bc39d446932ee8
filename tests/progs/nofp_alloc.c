/*
 * Built with -fomit-frame-pointer, as distributions build their packages
 * (tests/e2e/heap_unwind.sh): its allocations come from leaf_alloc, called
 * by middle_caller, called by outer_caller.  Holds 200 blocks of 100 000
 * bytes, prints "ready", and exits after a second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) void *leaf_alloc(size_t n)
{
	void *p = malloc(n);
	if (p)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void *middle_caller(size_t n)
{
	void *p = leaf_alloc(n);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

__attribute__((noinline)) void *outer_caller(size_t n)
{
	void *p = middle_caller(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

int main(void)
{
	static void *kept[200];
	for (int i = 0; i < 200; i++)
		kept[i] = outer_caller(100000);
	printf("ready\n");
	fflush(stdout);
	sleep(1);
	return kept[0] ? 0 : 1;
}
