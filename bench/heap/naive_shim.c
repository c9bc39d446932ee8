/*
 * Reference point for the benchmark only: the naive counting shim the issue
 * compares against (per-thread counters plus a malloc_usable_size call
 * through the PLT on every malloc and free; glibc only, forwards to
 * __libc_malloc & co.).  Not a tidemark product.
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread int64_t live, allocs, frees;

__attribute__((visibility("default"))) void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	if (p) {
		live += (int64_t)malloc_usable_size(p);
		allocs++;
	}
	return p;
}

__attribute__((visibility("default"))) void free(void *p)
{
	if (!p)
		return;
	live -= (int64_t)malloc_usable_size(p);
	frees++;
	__libc_free(p);
}

__attribute__((visibility("default"))) void *calloc(size_t a, size_t b)
{
	void *p = __libc_calloc(a, b);
	if (p) {
		live += (int64_t)malloc_usable_size(p);
		allocs++;
	}
	return p;
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t n)
{
	int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
	void *q = __libc_realloc(p, n);
	if (q || !n) {
		live -= old;
		live += q ? (int64_t)malloc_usable_size(q) : 0;
	}
	return q;
}
