/*
 * Threads whose first call is pthread_getattr_np(pthread_self()), as every
 * thread of a JVM makes (HotSpot's thread_native_entry): glibc allocates the
 * attribute's CPU set while it holds the thread's own lock, so that
 * allocation is the thread's first, and with TIDEMARK_HEAP_SAMPLE=1 a
 * sampled one.  The shim must neither deadlock there (it used to ask
 * pthread_getattr_np for the thread's stack again, and the thread waited
 * for itself) nor lose the stack: an allocation made after it, two calls
 * deep, is sampled with both frames.  Live bytes return to the baseline.
 * Prints key=value and "ok", or what differed; exits 1 on a difference.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "heap_self.h"

#define THREADS 8

static __attribute__((noinline)) void *leaf_alloc(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" ::"r"(p) : "memory"); /* not a tail call */
	return p;
}

static void *warm_up(void *arg)
{
	return arg;
}

static void *thread_main(void *arg)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	int *bad = arg;
	if (pthread_getattr_np(pthread_self(), &attr) != 0 ||
	    pthread_attr_getstack(&attr, &addr, &size) != 0 || size == 0)
		*bad = 1;
	pthread_attr_destroy(&attr);
	void *p = leaf_alloc(4096);
	__asm__ volatile("" ::"r"(p) : "memory");
	free(p);
	return NULL;
}

/* Sampled stacks whose innermost frame is in leaf_alloc and that go on to
 * its caller: the thread's stack bounds were found after all. */
static int deep_leaf_stacks(void)
{
	char path[320];
	const char *dir = getenv(TMH_DIR_ENV); /* as the shim chose it */
	if (dir && *dir)
		snprintf(path, sizeof(path), "%.256s/%d", dir, (int)getpid());
	else
		snprintf(path, sizeof(path), TMH_PATH_FMT, (unsigned)geteuid(), (int)getpid());
	int fd = open(path, O_RDONLY), n = 0;
	if (fd < 0)
		return -1;
	const struct tmh_region *r =
	    (const struct tmh_region *)mmap(NULL, sizeof(*r), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		return -1;
	uintptr_t lo = (uintptr_t)&leaf_alloc;
	for (int i = 0; i < TMH_STACKS; i++) {
		const struct tmh_stack *st = &r->stacks[i];
		if (st->hash && st->depth >= 2 && st->pc[0] > lo && st->pc[0] < lo + 256)
			n++;
	}
	munmap((void *)r, sizeof(*r));
	return n;
}

int main(void)
{
	struct self_counters c0, c1;
	pthread_t w; /* glibc's first thread keeps a block for good (its TLS vector) */
	if (pthread_create(&w, NULL, warm_up, NULL) != 0 || pthread_join(w, NULL) != 0)
		return 2;
	if (self_read(&c0) < 0) {
		fprintf(stderr, "not running under the shim\n");
		return 2;
	}
	int bad = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, &bad) != 0 || pthread_join(t, NULL) != 0)
			return 2;
	}
	self_read(&c1);
	int deep = getenv("TIDEMARK_HEAP_SAMPLE") ? deep_leaf_stacks() : 0;
	printf("threads=%d baseline=%lld end_live=%lld deep_leaf_stacks=%d\n", THREADS, c0.live,
	       c1.live, deep);
	if (bad || c1.live != c0.live || deep < 0 ||
	    (getenv("TIDEMARK_HEAP_SAMPLE") && atoi(getenv("TIDEMARK_HEAP_SAMPLE")) == 1 &&
	     deep < 1)) {
		printf("differs: getattr %s, live %lld -> %lld, deep leaf stacks %d\n",
		       bad ? "failed" : "ok", c0.live, c1.live, deep);
		return 1;
	}
	printf("ok\n");
	return 0;
}
