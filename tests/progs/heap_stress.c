/*
 * Multi-threaded stress under the shim: mixed sizes, frees by other
 * threads, threads that exit, a fork from a worker.  Every block is freed in
 * the end, so the shim's live bytes must return exactly to the baseline.
 * Exit status 0 when balanced (prints the figures), 1 when not.
 *   heap_stress [ROUNDS [ITERS]]
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "heap_self.h"

#define THREADS 4
#define LOCAL   128
#define RING    4096

static void *ring[RING];
static size_t ring_head, ring_tail;
static pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;
static int iters = 20000;
static int fork_status = -1;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static size_t pick_size(uint64_t *s)
{
	uint64_t r = rnd(s) % 100;
	if (r < 70)
		return 1 + rnd(s) % 256;
	if (r < 95)
		return 256 + rnd(s) % 8192;
	return 8192 + rnd(s) % (512 * 1024);
}

/* Hands P to whichever thread pops it next; returns one to free, or NULL. */
static void *exchange(void *p)
{
	void *out = NULL;
	pthread_mutex_lock(&ring_lock);
	if (ring_tail - ring_head == RING || (ring_tail > ring_head && (ring_tail & 1)))
		out = ring[ring_head++ % RING];
	if (p)
		ring[ring_tail++ % RING] = p;
	pthread_mutex_unlock(&ring_lock);
	return out;
}

static int child_work(void **mine)
{
	struct self_counters c0, c1;
	if (self_read(&c0) < 0)
		return 2;
	long long inherited = 0;
	for (int i = 0; i < LOCAL; i++) {
		if (mine[i]) {
			inherited += (long long)malloc_usable_size(mine[i]);
			free(mine[i]);
		}
	}
	uint64_t s = 99;
	for (int i = 0; i < 1000; i++)
		free(realloc(malloc(pick_size(&s)), pick_size(&s)));
	self_read(&c1);
	return c1.live == c0.live - inherited ? 0 : 1;
}

static void *worker(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 2654435761u + 1;
	void *mine[LOCAL] = {0};
	for (int i = 0; i < iters; i++) {
		int k = (int)(rnd(&s) % LOCAL);
		if (mine[k]) {
			if (rnd(&s) & 1)
				free(mine[k]);
			else
				free(exchange(mine[k]));
		}
		mine[k] = rnd(&s) % 5 ? malloc(pick_size(&s)) : calloc(1, pick_size(&s));
		if (i == iters / 2 && (uintptr_t)arg == 1) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(child_work(mine));
			int st;
			waitpid(pid, &st, 0);
			fork_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		}
	}
	for (int k = 0; k < LOCAL; k++)
		free(mine[k]);
	return NULL;
}

static void run_round(int round)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(round * THREADS + i));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	if (argc > 2)
		iters = atoi(argv[2]);
	int saved = iters;
	iters = 10; /* warm glibc's thread-stack cache (its TLS blocks stay allocated) */
	run_round(100);
	while (ring_tail > ring_head)
		free(ring[ring_head++ % RING]);
	iters = saved;
	struct self_counters c0, c1;
	if (self_read(&c0) < 0) {
		fprintf(stderr, "not running under the shim\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++)
		run_round(r);
	while (ring_tail > ring_head)
		free(ring[ring_head++ % RING]);
	self_read(&c1);
	printf("baseline=%lld end=%lld allocs=%lld frees=%lld fork_child=%d\n", c0.live, c1.live,
	       c1.allocs - c0.allocs, c1.frees - c0.frees, fork_status);
	return c1.live == c0.live && c1.allocs - c0.allocs == c1.frees - c0.frees &&
	               fork_status == 0
	           ? 0
	           : 1;
}
