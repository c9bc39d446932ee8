/*
 * Calls malloc before any constructor runs (from .preinit_array, which runs
 * before the constructors of every shared library, the shim's included) and
 * from a constructor, then checks the shim counted them exactly.
 */
#include <malloc.h>
#include <stdlib.h>

#include "heap_self.h"

static void *early, *ctor_block;

static void preinit(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	early = malloc(1000);
	void *tmp = calloc(3, 333);
	free(tmp);
}
__attribute__((section(".preinit_array"), used)) static void (*preinit_fn)(int, char **,
                                                                           char **) = preinit;

__attribute__((constructor(101))) static void ctor(void)
{
	ctor_block = malloc(5000);
}

int main(void)
{
	struct self_counters c0, c1;
	if (!early || !ctor_block || self_read(&c0) < 0) {
		fprintf(stderr, "not running under the shim, or early malloc failed\n");
		return 2;
	}
	size_t both = malloc_usable_size(early) + malloc_usable_size(ctor_block);
	free(early);
	free(ctor_block);
	self_read(&c1);
	printf("before=%lld after=%lld freed=%zu\n", c0.live, c1.live, both);
	return c0.live - c1.live == (long long)both && c1.live >= 0 ? 0 : 1;
}
