/*
 * Malloc-bound microbenchmark: ns per malloc/free pair.
 *   heap_bench THREADS PAIRS_PER_THREAD
 * Mixed sizes (mostly 16..512 bytes, some up to 64 KiB), a working set of
 * 4096 blocks per thread.  With 2 threads, half the blocks are handed to
 * the other thread (a single-producer single-consumer ring each way) and
 * freed there: cross-thread frees.  Prints "ns_per_pair=X" (wall time × threads
 * / pairs).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WS   4096
#define RING 1024

struct ring {
	void *slot[RING];
	_Alignas(64) uint64_t head;
	_Alignas(64) uint64_t tail;
};

static struct ring rings[2]; /* rings[i]: thread i produces, the other consumes */
static long pairs;
static int nthreads;

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

static int push(struct ring *r, void *p)
{
	uint64_t t = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	if (t - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == RING)
		return 0;
	r->slot[t % RING] = p;
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
	return 1;
}

static void *pop(struct ring *r)
{
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	if (h == __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE))
		return NULL;
	void *p = r->slot[h % RING];
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
	return p;
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1);
	void **ws = calloc(WS, sizeof(void *));
	for (long i = 0; i < pairs; i++) {
		size_t k = rnd(&s) % WS;
		void *old = ws[k];
		ws[k] = malloc(pick(&s));
		if (!old)
			continue;
		/* with 2 threads: hand every other block to the peer, free what it handed us */
		if (nthreads == 2 && (i & 1) && push(&rings[me], old))
			old = pop(&rings[1 - me]);
		free(old);
	}
	for (size_t k = 0; k < WS; k++)
		free(ws[k]);
	free(ws);
	return NULL;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 1;
	pairs = argc > 2 ? atol(argv[2]) : 2000000;
	if (nthreads < 1 || nthreads > 2 || pairs < 1) {
		fprintf(stderr, "usage: heap_bench 1|2 PAIRS\n");
		return 2;
	}
	struct timespec a, b;
	pthread_t t[2];
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		void *p;
		while ((p = pop(&rings[i])))
			free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("ns_per_pair=%.2f\n", ns / (double)pairs); /* per thread: wall time over its pairs */
	return 0;
}
