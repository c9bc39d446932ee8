/*
 * A library whose constructor starts a thread and waits for it (a thread
 * pool that is ready before dlopen returns).  The dynamic loader holds its
 * lock while constructors run, so the thread must not need that lock for
 * its first allocation: under the heap shim it did (registering a C++-style
 * thread-exit hook), and dlopen never returned.  Loaded by heap_dlopen_ctor.
 */
#include <pthread.h>
#include <stdlib.h>

int ctor_thread_done;

static void *worker(void *arg)
{
	void *volatile p = malloc(100); /* the thread's first allocation */
	free(p);
	p = malloc(5000);
	free(p);
	return arg;
}

__attribute__((constructor)) static void start_pool(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) == 0 && pthread_join(t, NULL) == 0)
		ctor_thread_done = 1;
}
