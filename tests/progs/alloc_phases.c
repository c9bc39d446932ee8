/*
 * Test workload for report --phases: for each MIB argument, sends a mark
 * "phase-I" to $TIDEMARK_MARK (when set), waits GAP_MS, allocates MIB
 * mebibytes in UNITS steps, touching every page and printing "progress=N"
 * after each step (N counts every step so far), STEP_MS apart, then waits
 * GAP_MS again: a sample falls between each mark and the work around it,
 * so each phase's figures are its own.  At the end prints "done" and holds
 * HOLD_MS.  A negative MIB frees that much of what the
 * earlier phases allocated (whole chunks), so a phase can shrink too.
 *
 *   alloc_phases UNITS STEP_MS GAP_MS HOLD_MS MIB...
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1024 * 1024 / 4) /* 256 KiB: above the mmap threshold, so frees return */

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s) {
		fprintf(stderr, "alloc_phases: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

static void mark(const char *text)
{
	const char *path = getenv("TIDEMARK_MARK");
	int fd;
	if (!path || (fd = open(path, O_WRONLY | O_NONBLOCK)) < 0)
		return;
	if (write(fd, text, strlen(text)) < 0)
		perror("alloc_phases: mark");
	close(fd);
}

int main(int argc, char **argv)
{
	static char *chunks[1 << 16];
	long n_chunks = 0, done = 0;

	if (argc < 6) {
		fprintf(stderr, "usage: alloc_phases UNITS STEP_MS GAP_MS HOLD_MS MIB...\n");
		return 2;
	}
	long units = arg(argv[1]), step_ms = arg(argv[2]), gap_ms = arg(argv[3]);
	long hold_ms = arg(argv[4]);
	for (int p = 5; p < argc; p++) {
		long mib = arg(argv[p]);
		long per_step = (labs(mib) * 4) / (units > 0 ? units : 1); /* chunks a step */
		char text[32];
		snprintf(text, sizeof(text), "phase-%d\n", p - 4);
		mark(text);
		sleep_ms(gap_ms);
		for (long u = 0; u < units; u++) {
			long k = u + 1 < units ? per_step : labs(mib) * 4 - per_step * (units - 1);
			for (long c = 0; c < k; c++) {
				if (mib >= 0 &&
				    n_chunks < (long)(sizeof(chunks) / sizeof(chunks[0]))) {
					chunks[n_chunks] = malloc(CHUNK);
					if (!chunks[n_chunks])
						return 1;
					memset(chunks[n_chunks++], 0x5a, CHUNK);
				} else if (mib < 0 && n_chunks > 0) {
					free(chunks[--n_chunks]);
				}
			}
			printf("progress=%ld\n", ++done);
			fflush(stdout);
			sleep_ms(step_ms);
		}
		sleep_ms(gap_ms);
	}
	printf("done\n");
	fflush(stdout);
	sleep_ms(hold_ms);
	return 0;
}
