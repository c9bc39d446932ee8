/*
 * For `heap attach` tests: the main thread adds 1.0 to a sum in a loop
 * with no call in it until SECONDS have passed (an alarm sets a flag), so
 * the compiler keeps the sum and the 1.0 in vector registers (x86_64 xmm,
 * aarch64 d) all along, and the count of additions in a general one; an
 * attach stops this thread there and makes it call dlopen, which uses the
 * vector registers too.  Prints "sum kept" when the sum came out equal to
 * the count, as without an attach, else both.  Time, not a count, ends
 * it, so that it runs as long on a TCG guest as on this host.
 * usage: heap_attach_fp SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t over;

static void on_alarm(int sig)
{
	(void)sig;
	over = 1;
}

int main(int argc, char **argv)
{
	unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	double one = argc > 2 ? atof(argv[2]) : 1.0, sum = 0.0;
	long n = 0;
	free(malloc(64)); /* malloc is this program's: the agent has something to count */
	signal(SIGALRM, on_alarm);
	alarm(secs);
	while (!over) {
		sum += one;
		n++;
	}
	if (sum == (double)n)
		printf("sum kept\n");
	else
		printf("sum changed: %.1f after %ld additions\n", sum, n);
	return 0;
}
