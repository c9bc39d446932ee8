/*
 * Reference point for the benchmark only: the cheapest possible LD_PRELOAD
 * interposer.  It counts nothing; each entry point forwards to the next
 * allocator through a pointer found with dlsym(RTLD_NEXT).  Its cost is the
 * floor under any shim that sees every malloc and free.
 */
#include <dlfcn.h>
#include <stddef.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);

/* dlsym may call calloc before next_calloc is known: a small static pool */
static char boot[4096] __attribute__((aligned(16)));
static size_t boot_used;

static void resolve(void)
{
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
}

__attribute__((visibility("default"))) void *malloc(size_t n)
{
	if (__builtin_expect(!next_malloc, 0))
		resolve();
	return next_malloc(n);
}

__attribute__((visibility("default"))) void free(void *p)
{
	if ((char *)p >= boot && (char *)p < boot + sizeof(boot))
		return;
	if (__builtin_expect(!next_free, 0))
		resolve();
	next_free(p);
}

__attribute__((visibility("default"))) void *calloc(size_t a, size_t b)
{
	if (__builtin_expect(!next_calloc, 0)) {
		static int resolving;
		if (resolving) { /* dlsym's own calloc */
			size_t n = (a * b + 15) & ~(size_t)15;
			if (boot_used + n > sizeof(boot))
				return NULL;
			boot_used += n;
			return boot + boot_used - n;
		}
		resolving = 1;
		resolve();
	}
	return next_calloc(a, b);
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t n)
{
	if (__builtin_expect(!next_realloc, 0))
		resolve();
	return next_realloc(p, n);
}
