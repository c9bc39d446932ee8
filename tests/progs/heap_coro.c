/*
 * Allocations from a coroutine stack (makecontext) while every allocation is
 * sampled: the frame-pointer walk must not leave the known stack (it keeps
 * only the first frame there) and the counts must balance.
 */
#include <stdlib.h>
#include <ucontext.h>

#include "heap_self.h"

#define N 20000

static ucontext_t main_ctx, co_ctx;
static void *blocks[N];

static void co(void)
{
	for (int i = 0; i < N; i++)
		blocks[i] = malloc(1000);
	swapcontext(&co_ctx, &main_ctx);
}

int main(void)
{
	struct self_counters c0, c1;
	char *stack = malloc(1 << 16);
	if (!stack || self_read(&c0) < 0)
		return 2;
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = stack;
	co_ctx.uc_stack.ss_size = 1 << 16;
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co, 0);
	swapcontext(&main_ctx, &co_ctx);
	for (int i = 0; i < N; i++)
		free(blocks[i]);
	self_read(&c1);
	printf("before=%lld after=%lld\n", c0.live, c1.live);
	free(stack);
	return c0.live == c1.live ? 0 : 1;
}
