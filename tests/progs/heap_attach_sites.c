/*
 * For tests/e2e/heap_attach_sites.sh: sites after an attach.  Built twice:
 * heap_attach_sites with frame pointers, nofp_attach_sites without (as
 * distributions build).  Churns from pre_site until STATE.go exists (the
 * test attaches meanwhile), then makes ROUNDS rounds of one allocation of
 * 3072 bytes at site_big (called by caller_big) and one of 1024 bytes at
 * site_small (called by caller_small), each kept in a ring of 256 blocks:
 * 3/4 of the bytes allocated after the attach come from site_big.  Then
 * it writes STATE.done1 and waits; STATE.more makes it allocate ROUNDS more
 * times at site_after (the test has detached by then), then STATE.done2;
 * STATE.end makes it print a checksum of the rounds and exit 0 (1 when a
 * block's bytes came back wrong).
 * usage: heap_attach_sites ROUNDS STATE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING 256

static int exists(const char *state, const char *suffix)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s.%s", state, suffix);
	return access(path, F_OK) == 0;
}

static void touch(const char *state, const char *suffix)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s.%s", state, suffix);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

static void nap(void)
{
	struct timespec ms = {0, 1000000};
	nanosleep(&ms, NULL);
}

__attribute__((noinline)) void *pre_site(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *site_big(void)
{
	void *p = malloc(3072);
	__asm__ volatile("" ::: "memory"); /* no tail call */
	return p;
}

__attribute__((noinline)) void *caller_big(void)
{
	void *p = site_big();
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *site_small(void)
{
	void *p = malloc(1024);
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *caller_small(void)
{
	void *p = site_small();
	__asm__ volatile("" ::: "memory");
	return p;
}

__attribute__((noinline)) void *site_after(void)
{
	void *p = malloc(2048);
	__asm__ volatile("" ::: "memory");
	return p;
}

/* Replaces ring[i] by FRESH (N bytes, filled with TAG): the old block's
 * first byte must still be its tag. */
static unsigned long put(unsigned char **ring, size_t i, unsigned char *fresh, size_t n, int tag,
                         unsigned long *bad)
{
	if (ring[i] && ring[i][0] != (unsigned char)(i & 0x7f))
		++*bad;
	free(ring[i]);
	if (!fresh)
		return 0;
	memset(fresh, (int)(i & 0x7f), 64);
	fresh[n - 1] = (unsigned char)tag;
	ring[i] = fresh;
	return fresh[n - 1] + n;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long rounds = atol(argv[1]);
	const char *state = argv[2];
	static unsigned char *big[RING], *small[RING];
	unsigned long sum = 0, bad = 0;
	touch(state, "ready");
	for (long k = 0; !exists(state, "go"); k++) {
		free(pre_site(100 + (size_t)(k % 4000)));
		if (k % 100 == 0)
			nap();
	}
	for (long r = 0; r < rounds; r++) {
		size_t i = (size_t)r % RING;
		sum = sum * 31 + put(big, i, caller_big(), 3072, 1, &bad);
		sum = sum * 31 + put(small, i, caller_small(), 1024, 2, &bad);
	}
	touch(state, "done1");
	while (!exists(state, "end")) {
		if (exists(state, "more") && !exists(state, "done2")) {
			for (long r = 0; r < rounds; r++)
				put(small, (size_t)r % RING, site_after(), 2048, 3, &bad);
			touch(state, "done2");
		}
		nap();
	}
	printf("sites: %ld rounds, checksum %lu, bad %lu\n", rounds, sum % 1000000007ul, bad);
	return bad ? 1 : 0;
}
