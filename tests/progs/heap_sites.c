/*
 * Known allocation sites for the sampling tests.
 *   heap_sites [MiB]   (default 40)
 * keep_known_site() keeps MiB MiB live in 4000-byte blocks; keep_other_site()
 * keeps 8 MiB in 64 KiB blocks; churn_site() allocates and frees 64 MiB.
 * Prints "ready known_bytes=N other_bytes=N" and waits for a line on stdin,
 * then frees everything and exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KNOWN_SIZE 4000
#define OTHER_SIZE 65536

static void **known, **other;

__attribute__((noinline)) static void *keep_known_site(void)
{
	void *p = malloc(KNOWN_SIZE);
	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

__attribute__((noinline)) static void *keep_other_site(void)
{
	void *p = malloc(OTHER_SIZE);
	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

__attribute__((noinline)) static void churn_site(void)
{
	for (int i = 0; i < 64 * 16; i++) {
		char *p = malloc(OTHER_SIZE);
		if (p)
			p[0] = 1;
		__asm__ volatile("" ::"r"(p) : "memory");
		free(p);
	}
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 40;
	long nknown = mib * 1024 * 1024 / KNOWN_SIZE, nother = 8 * 16;
	known = calloc((size_t)nknown, sizeof(void *));
	other = calloc((size_t)nother, sizeof(void *));
	if (!known || !other)
		return 1;
	for (long i = 0; i < nknown; i++)
		known[i] = keep_known_site();
	for (long i = 0; i < nother; i++)
		other[i] = keep_other_site();
	churn_site();
	printf("ready known_bytes=%ld other_bytes=%ld\n", nknown * KNOWN_SIZE, nother * OTHER_SIZE);
	fflush(stdout);
	char line[16];
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	for (long i = 0; i < nknown; i++)
		free(known[i]);
	for (long i = 0; i < nother; i++)
		free(other[i]);
	free(known);
	free(other);
	return 0;
}
