/*
 * dlopen of a library whose constructor runs a thread to completion
 * (ctor_thread_lib.c, built as libctor_thread.so next to this program, or
 * the path in argv[1]): returns, the thread's allocations are counted and
 * freed, and live bytes return to the baseline.  Prints key=value and "ok",
 * or what differed; exits 1 on a difference.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "heap_self.h"

static void *warm_up(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	char lib[PATH_MAX];
	if (argc > 1) {
		snprintf(lib, sizeof(lib), "%s", argv[1]);
	} else {
		const char *slash = strrchr(argv[0], '/');
		int dir = slash ? (int)(slash - argv[0]) : 1;
		snprintf(lib, sizeof(lib), "%.*s/libctor_thread.so", dir, slash ? argv[0] : ".");
	}
	pthread_t w; /* glibc's first thread keeps a block for good (its TLS vector) */
	if (pthread_create(&w, NULL, warm_up, NULL) != 0 || pthread_join(w, NULL) != 0)
		return 2;
	struct self_counters c0, c1;
	if (self_read(&c0) < 0) {
		fprintf(stderr, "not running under the shim\n");
		return 2;
	}
	void *h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
		return 2;
	}
	const int *done = (const int *)dlsym(h, "ctor_thread_done");
	self_read(&c1);
	/* dlopen's own blocks (the link map, its scope) stay while loaded */
	long long thread_allocs = c1.allocs - c0.allocs;
	printf("ctor_thread_done=%d allocs_during_dlopen=%lld frees_during_dlopen=%lld\n",
	       done ? *done : -1, thread_allocs, c1.frees - c0.frees);
	if (!done || !*done || c1.frees - c0.frees < 2) {
		printf("differs: the constructor's thread did not run its allocations\n");
		return 1;
	}
	printf("ok\n");
	return 0;
}
