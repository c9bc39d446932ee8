/*
 * Test workload: grows without end, 256 KiB a block allocated in
 * grow_into_the_limit() and touched, 2 ms apart, beside 1 MiB kept by
 * keep_a_little() at start, until the kernel OOM-kills it under a memory
 * limit.  tests/e2e/oom_heap_profile.sh records it under the heap shim and
 * checks that the profile taken at the kill names the growing site.
 *
 *   heap_oomgrow
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *volatile sink;

__attribute__((noinline)) static void *grow_into_the_limit(void)
{
	char *p = malloc(256 * 1024);
	if (p)
		memset(p, 1, 256 * 1024);
	return p;
}

__attribute__((noinline)) static void *keep_a_little(void)
{
	char *p = malloc(4096);
	if (p)
		memset(p, 2, 4096);
	return p;
}

int main(void)
{
	struct timespec pause = {0, 2 * 1000 * 1000};

	for (int i = 0; i < 256; i++)
		sink = keep_a_little();
	for (;;) {
		sink = grow_into_the_limit();
		nanosleep(&pause, NULL);
	}
}
