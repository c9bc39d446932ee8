/*
 * For `heap attach` tests: the main thread adds 1.0 to a sum N times in a
 * loop with no call in it, so the compiler keeps both in vector registers
 * (xmm) all along; an attach stops this thread there and makes it call
 * dlopen, which uses those registers too.  Prints "sum kept" when the sum
 * came out N, as without an attach, else what it came out.
 * usage: heap_attach_fp N
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000000L;
	double one = argc > 2 ? atof(argv[2]) : 1.0, sum = 0.0;
	free(malloc(64)); /* malloc is this program's: the agent has something to count */
	for (long i = 0; i < n; i++)
		sum += one;
	if (sum == (double)n)
		printf("sum kept\n");
	else
		printf("sum changed: %.1f, not %ld\n", sum, n);
	return 0;
}
