/*
 * For `heap attach` tests: holds HOLD_KIB KiB in blocks of 16..2048 bytes,
 * replaces one at random per step for STEPS steps (a short sleep every
 * 2000 steps, so that it is sometimes in a syscall), and prints a checksum
 * of everything it wrote and read (the same with and without an attach)
 * and its exit code is 0 unless a block's bytes came back wrong.  With
 * STATE_FILE it writes "LIVE STEPS N" there once started, and again
 * whenever STATE_FILE.req exists, then waits until that is removed: LIVE
 * the sum of malloc_usable_size over every block it holds (its tables
 * too), the live heap the agent must show; N its blocks.
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

/* Writes "LIVE STEPS BLOCKS" to STATE when STATE.req exists, then waits
 * (still) until it is removed: the reader sees the heap as written. */
static void answer(const char *state, unsigned char **b, size_t *len, size_t n, long long steps)
{
	char req[4096], tmp[4096];
	snprintf(req, sizeof(req), "%s.req", state);
	if (access(req, F_OK) != 0 && steps > 0)
		return;
	long long live = (long long)(malloc_usable_size(b) + malloc_usable_size(len));
	for (size_t k = 0; k < n; k++)
		live += (long long)malloc_usable_size(b[k]);
	snprintf(tmp, sizeof(tmp), "%s.tmp", state);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%lld %lld %zu\n", live, steps, n + 2);
	fclose(f);
	rename(tmp, state);
	struct timespec ms = {0, 1000000};
	while (steps > 0 && access(req, F_OK) == 0)
		nanosleep(&ms, NULL);
}

/* After the counted steps: the same replacements, outside the checksum, and
 * the answers, until STATE.end exists (at most 120 s), so that a test on a
 * fast or a slow machine alike finds the program running and allocating. */
static void churn_until_end(const char *state, unsigned char **b, size_t *len, size_t n)
{
	char end[4096];
	snprintf(end, sizeof(end), "%s.end", state);
	time_t give_up = time(NULL) + 120;
	for (long long steps = 1; access(end, F_OK) != 0 && time(NULL) < give_up; steps++) {
		size_t i = next() % n;
		free(b[i]);
		len[i] = 16 + next() % 2033;
		b[i] = malloc(len[i]);
		memset(b[i], (int)(i & 0xff), len[i]);
		if (steps % 2000 == 0) {
			struct timespec ms = {0, 200000};
			nanosleep(&ms, NULL);
		}
		if (steps % 1000 == 0)
			answer(state, b, len, n, steps);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long hold = atol(argv[1]) * 1024;
	long long nsteps = atoll(argv[2]);
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
	if (state)
		answer(state, b, len, n, 0);
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
		if (state && steps % 1000 == 0)
			answer(state, b, len, n, steps);
	}
	if (state) /* busy, answering, until the test is done with us (STATE.end) */
		churn_until_end(state, b, len, n);
	printf("steps done, checksum %llu of %zu blocks, bad %llu\n",
	       (unsigned long long)(sum % 1000000007ull), n, (unsigned long long)bad);
	return bad ? 1 : 0;
}
