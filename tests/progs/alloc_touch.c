/*
 * Test workload: allocates MIB mebibytes with malloc, touches every page,
 * prints "ready", holds for HOLD_MS, then exits 0.  Used to check that the
 * recorder sees what a process really has.
 *
 *   alloc_touch MIB [HOLD_MS] [CHUNK_KIB] [PAUSE_MS]
 * PAUSE_MS: a pause after each chunk, for a process that grows slowly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long arg(int argc, char **argv, int i, long dflt)
{
	char *end;
	long v;
	if (argc <= i)
		return dflt;
	v = strtol(argv[i], &end, 10);
	if (*end || v < 0) {
		fprintf(stderr, "alloc_touch: bad argument '%s'\n", argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long mib = arg(argc, argv, 1, 64), hold_ms = arg(argc, argv, 2, 1000);
	long chunk = arg(argc, argv, 3, 1024) * 1024;
	long total = mib * 1024 * 1024;
	long pause_ms = arg(argc, argv, 4, 0);
	struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000};
	struct timespec pause = {pause_ms / 1000, (pause_ms % 1000) * 1000000};

	for (long done = 0; done < total; done += chunk) {
		char *p = malloc((size_t)chunk);
		if (!p)
			return 1;
		memset(p, 0x5a, (size_t)chunk); /* really resident, not just reserved */
		if (pause_ms)
			nanosleep(&pause, NULL);
	}
	printf("ready\n");
	fflush(stdout);
	nanosleep(&ts, NULL);
	return 0;
}
