/*
 * For `heap attach` tests: holds HOLD_KIB KiB in blocks of 16..2048 bytes,
 * replaces one at random per step for STEPS steps (a short sleep every
 * 2000 steps, so that it is sometimes in a syscall), and prints a checksum
 * of everything it wrote and read (the same with and without an attach)
 * and its exit code is 0 unless a block's bytes came back wrong.  Every
 * half second it writes to STATE_FILE (when given) "LIVE STEPS N": LIVE the
 * sum of malloc_usable_size over every block it holds (its tables too):
 * the live heap the agent must show; N its blocks.
 * usage: heap_attach_loop HOLD_KIB STEPS [STATE_FILE]
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long hold = atol(argv[1]) * 1024;
	long long nsteps = atoll(argv[2]);
	double last = 0;
	const char *state = argc > 3 ? argv[3] : NULL;
	size_t n = (size_t)hold / 1032 + 1;
	unsigned char **b = calloc(n, sizeof(*b));
	size_t *len = calloc(n, sizeof(*len));
	uint64_t sum = 0, bad = 0;
	long long steps = 0;
	for (size_t i = 0; i < n; i++) {
		len[i] = 16 + next() % 2033;
		b[i] = malloc(len[i]);
		memset(b[i], (int)(i & 0xff), len[i]);
	}
	while (steps < nsteps) {
		size_t i = next() % n;
		for (size_t k = 0; k < len[i]; k += 64)
			bad += b[i][k] != (unsigned char)(i & 0xff);
		sum = sum * 31 + len[i] + b[i][len[i] - 1];
		free(b[i]);
		len[i] = 16 + next() % 2033;
		b[i] = (next() & 7) ? malloc(len[i]) : calloc(1, len[i]);
		memset(b[i], (int)(i & 0xff), len[i]);
		if (++steps % 2000 == 0) {
			struct timespec ms = {0, 200000};
			nanosleep(&ms, NULL);
		}
		if (state && now() - last > 0.5) {
			long long live =
			    (long long)(malloc_usable_size(b) + malloc_usable_size(len));
			for (size_t k = 0; k < n; k++)
				live += (long long)malloc_usable_size(b[k]);
			FILE *f = fopen(state, "w");
			if (f) {
				fprintf(f, "%lld %lld %zu\n", live, steps, n + 2);
				fclose(f);
			}
			last = now();
		}
	}
	printf("steps done, checksum %llu of %zu blocks, bad %llu\n",
	       (unsigned long long)(sum % 1000000007ull), n, (unsigned long long)bad);
	return bad ? 1 : 0;
}
