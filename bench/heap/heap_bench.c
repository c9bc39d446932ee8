/*
 * Malloc-bound microbenchmark: ns per malloc/free pair.
 *   heap_bench THREADS PAIRS_PER_THREAD [BLOCKS [touch]]
 * Mixed sizes (mostly 16..512 bytes, some up to 64 KiB), a working set of
 * BLOCKS (default 4096) blocks per thread; with "touch" it writes the first
 * word of each block it gets, as a program does.  With 2 threads, half the blocks are handed to
 * the other thread (a single-producer single-consumer ring each way) and
 * freed there: cross-thread frees.  Prints "ns_per_pair=X" (each thread's
 * CPU time over its pairs, averaged: robust to other tenants of a shared
 * machine) and "wall_ns_per_pair=Y" (wall time over pairs per thread).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 1024

struct ring {
	void *slot[RING];
	_Alignas(64) uint64_t head;
	_Alignas(64) uint64_t tail;
};

static struct ring rings[2]; /* rings[i]: thread i produces, the other consumes */
static long pairs;
static int nthreads;
static size_t ws_blocks = 4096; /* working set per thread */
static int touch;               /* write each new block's first word, as programs do */

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static inline size_t pick(uint64_t *s)
{
	uint64_t r = rnd(s);
	if ((r & 63) == 0)
		return 512 + (r >> 8) % 65536;
	return 16 + (r >> 8) % 496;
}

/* Each side publishes its index every BATCH items, so the handoff costs one
 * shared cache line per BATCH blocks and the figure stays malloc-bound. */
#define BATCH 32

struct end {
	uint64_t mine;   /* local head or tail */
	uint64_t theirs; /* last seen tail or head of the other side */
};

static int push(struct ring *r, struct end *e, void *p)
{
	if (e->mine - e->theirs == RING) {
		e->theirs = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (e->mine - e->theirs == RING)
			return 0;
	}
	r->slot[e->mine % RING] = p;
	if (++e->mine % BATCH == 0)
		__atomic_store_n(&r->tail, e->mine, __ATOMIC_RELEASE);
	return 1;
}

static void *pop(struct ring *r, struct end *e)
{
	if (e->mine == e->theirs) {
		e->theirs = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (e->mine == e->theirs)
			return NULL;
	}
	void *p = r->slot[e->mine % RING];
	if (++e->mine % BATCH == 0)
		__atomic_store_n(&r->head, e->mine, __ATOMIC_RELEASE);
	return p;
}

static double cpu_ns[2];
static struct end prod[2], cons[2]; /* per thread: its ring's tail, the peer's head */

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
	void **ws = calloc(ws_blocks, sizeof(void *));
	struct end *out = &prod[me], *in = &cons[me];
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < pairs; i++) {
		size_t k = rnd(&s) % ws_blocks;
		void *old = ws[k];
		ws[k] = malloc(pick(&s));
		if (touch)
			*(volatile uint64_t *)ws[k] = i;
		if (!old)
			continue;
		/* with 2 threads: hand every other block to the peer, free what it handed us */
		if (nthreads == 2 && (i & 1) && push(&rings[me], out, old))
			old = pop(&rings[1 - me], in);
		free(old);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	cpu_ns[me] = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	__atomic_store_n(&rings[me].tail, out->mine, __ATOMIC_RELEASE);
	__atomic_store_n(&rings[1 - me].head, in->mine, __ATOMIC_RELEASE);
	for (size_t k = 0; k < ws_blocks; k++)
		free(ws[k]);
	free(ws);
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	pairs = argc > 2 ? atol(argv[2]) : 2000000;
	if (argc > 3)
		ws_blocks = (size_t)atol(argv[3]);
	touch = argc > 4 && !strcmp(argv[4], "touch");
	if (nthreads < 1 || nthreads > 2 || pairs < 1 || ws_blocks < 1) {
		fprintf(stderr, "usage: heap_bench 1|2 PAIRS [BLOCKS]\n");
		return 2;
	}
	struct timespec a, b;
	pthread_t t[2];
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) { /* what the peer did not take */
		for (uint64_t h = rings[i].head; h != rings[i].tail; h++)
			free(rings[i].slot[h % RING]);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	double cpu = (cpu_ns[0] + cpu_ns[1]) / nthreads;
	printf("ns_per_pair=%.2f wall_ns_per_pair=%.2f\n", cpu / (double)pairs, ns / (double)pairs);
	return 0;
}
