/*
 * Anon that no allocator holds: maps and touches 200 MiB itself, keeps
 * 10 MiB through malloc (in 10 000-byte blocks), prints "ready" and waits
 * for a line on stdin (or ARGV[1] ms when given).  Under `record --heap` it
 * must show about 10 MiB live heap, a small allocator-held figure and about
 * 200 MiB other anon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#define OWN_BYTES  (200u << 20)
#define HEAP_BYTES (10u << 20)
#define BLOCK      10000

int main(int argc, char **argv)
{
	char *own =
	    mmap(NULL, OWN_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED)
		return 1;
	memset(own, 1, OWN_BYTES);
	static char *keep[HEAP_BYTES / BLOCK];
	for (size_t i = 0; i < HEAP_BYTES / BLOCK; i++) {
		keep[i] = malloc(BLOCK);
		if (!keep[i])
			return 1;
		memset(keep[i], 2, BLOCK);
	}
	printf("ready\n");
	fflush(stdout);
	if (argc > 1) {
		usleep((useconds_t)atoi(argv[1]) * 1000);
	} else {
		char line[16];
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (size_t i = 0; i < HEAP_BYTES / BLOCK; i++)
		free(keep[i]);
	munmap(own, OWN_BYTES);
	return 0;
}
