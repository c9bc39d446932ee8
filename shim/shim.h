/*
 * Internals of libtidemark-heap.so.  Nothing here allocates: no stdio, no
 * malloc; the only writers of the region are the functions below.
 */
#ifndef TMH_SHIM_H
#define TMH_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "tidemark-heap.h"

/* libtidemark-heap-attach.so (TMH_ATTACH) is loaded into a running
 * process (RTLD_LOCAL): its entry points are reached through the
 * relocation entries it rewrites (got.c), never by name, and the next
 * allocator is the program's own (the global scope's).  Only its
 * tmh_attach_start is exported (TMH_API). */
#ifdef TMH_ATTACH
#define TMH_EXPORT __attribute__((visibility("hidden")))
#define TMH_NEXT   RTLD_DEFAULT
#else
#define TMH_EXPORT __attribute__((visibility("default")))
#define TMH_NEXT   RTLD_NEXT
#endif
#define TMH_API         __attribute__((visibility("default")))
#define TMH_LIKELY(x)   __builtin_expect(!!(x), 1)
#define TMH_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TMH_TLS         __thread __attribute__((tls_model("initial-exec")))

/* libtidemark-heap-sites.so is built with TMH_SITES_ONLY: allocation sites
 * are sampled as usual, the exact counters are not kept (docs/heap.md). */
#ifdef TMH_SITES_ONLY
#define TMH_COUNTING 0
#else
#define TMH_COUNTING 1
#endif

/* A thread flushes its live-bytes delta to region.flushed_bytes when it
 * passes this many bytes either way; bounds the peak's error (docs/heap.md). */
#define TMH_FLUSH_BYTES (256 * 1024)

/* Relaxed single-writer store and atomic add on region words. */
#define TMH_ST(lv, v)  __atomic_store_n(&(lv), (v), __ATOMIC_RELAXED)
#define TMH_ADD(lv, v) __atomic_add_fetch(&(lv), (v), __ATOMIC_RELAXED)
#define TMH_LD(lv)     __atomic_load_n(&(lv), __ATOMIC_RELAXED)

struct tmh_real {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*usable_size)(void *);
};

struct tmh_options {
	int64_t sample_mean_bytes; /* 0: off */
	int keep;                  /* leave the region file at exit */
	uint64_t keep_tag;         /* TIDEMARK_HEAP_KEEP=N: N (the recorder's tag), else 0 */
	int stats_thread;          /* TIDEMARK_HEAP_THREAD=0: no answering thread */
	int unwinder;              /* 0 frame pointers, 1 libunwind */
	int unwinder_env;          /* TIDEMARK_HEAP_UNWIND was set: no choice of the shim's */
	int quiet;
	int bad_sample; /* TIDEMARK_HEAP_SAMPLE was not a size: warned at start-up */
};

/* shim.c */
extern struct tmh_real tmh_real;
extern struct tmh_region *tmh_region;
extern struct tmh_options tmh_opt;
extern TMH_TLS struct tmh_slot *tmh_tls_slot;
extern TMH_TLS int64_t tmh_tls_left;
extern TMH_TLS int tmh_tls_busy;
void tmh_warn(const char *msg);
void tmh_count_shared_alloc(int64_t usable, size_t req);
void tmh_count_shared_free(int64_t usable);
void tmh_peak_update(int64_t flushed_now, int64_t delta);
void tmh_count_shared_bytes(int64_t usable);

/* For C++ operator new and delete (cxx.c): a counted block (ALIGN 0:
 * malloc's path, else memalign's) sampled at FRAME, and the free path. */
void *tmh_alloc_at(size_t n, size_t align, void *frame);
void tmh_free(void *p);

/* stats.c: which malloc the program has, found at start-up before the
 * region exists (region_fill copies it, so a reader never sees a region
 * without it): malloc_in_exe 0, 1 (the executable's own) or 2 (an allocator
 * in the executable beside the shared malloc), as in include/tidemark-heap.h */
struct tmh_exe_info {
	uint32_t malloc_in_exe, exe_allocator, exe_stats;
};
extern struct tmh_exe_info tmh_exe;
void tmh_stats_detect(void);
/* stats.c: the allocator's own statistics, on a reader's request */
void tmh_stats_init(void);
void tmh_stats_answer(int force);
/* Starts the thread that answers requests at once (under the recorder). */
void tmh_stats_thread_start(void);
/* On a slow path: answers when a reader asked since the last answer. */
static inline void tmh_stats_poll(void)
{
	const struct tmh_region *r = tmh_region;
	if (TMH_COUNTING && TMH_UNLIKELY(r && TMH_LD(r->stats_req) != TMH_LD(r->stats_ans)))
		tmh_stats_answer(0);
}

/* region.c */
struct tmh_region *tmh_region_create(int gc);
void tmh_region_fork_child(void);
void tmh_region_exit(void);
void tmh_env_options(struct tmh_options *o);

/* fpcheck.c: 1 when at least a quarter of the executable's functions (those
 * its DWARF unwind tables list) keep a frame pointer, else 0, -1 when it
 * cannot tell (no .eh_frame_hdr, too few functions).  Reads memory only. */
int tmh_exe_frame_pointers(void);

/* sample.c */
void tmh_sample_init(void);
void tmh_sample_thread_init(struct tmh_slot *s);
/* This thread's stack bounds for the frame-pointer walk, found once per
 * thread; deferred while the thread is inside pthread_getattr_np, which
 * holds a lock the finding needs (sample.c), and in the attached agent
 * while FRAME (an entry point's frame) is NULL or returns into it.  Nested
 * allocations are the shim's own. */
void tmh_sample_stack_bounds(const void *frame);
void tmh_sample_alloc(struct tmh_slot *s, void *p, size_t req, void *frame);
void tmh_sample_free(void *p);
void tmh_sample_fork_reset(const struct tmh_region *parent);
void tmh_filter_pin(const void *p);
/* shim.c: pins the start-up blocks again after a fork child's reset */
void tmh_boot_repin(void);

/*
 * Which pointers may be sampled: a private bit per pointer hash (2^18 bits,
 * 32 KiB), set while a live sampled allocation has that hash, and for good
 * for the start-up blocks, so that free's one test also sends those aside.  The free
 * path reads one bit (with 20 000 live samples 7.6 % of frees look further,
 * under the sample lock); the exact count per hash is kept next to it and
 * touched only on sampled paths.  Private memory: a fork child inherits it.
 */
#define TMH_FILTER_BITS (1u << 18)
extern uint64_t tmh_filter_bits[TMH_FILTER_BITS / 64];
static inline unsigned tmh_filter_index(const void *p)
{
	return (unsigned)((((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) >> 46);
}
static inline int tmh_maybe_sampled(const void *p)
{
	unsigned i = tmh_filter_index(p);
	return (int)((tmh_filter_bits[i >> 6] >> (i & 63)) & 1);
}

/* Size class of a requested size: 0 for <= 16, c for (2^(c+3), 2^(c+4)]. */
static inline int tmh_class(uint64_t req)
{
	if (req <= 16)
		return 0;
	int c = 64 - __builtin_clzll(req - 1) - 4;
	return c < TMH_CLASSES ? c : TMH_CLASSES - 1;
}

/* usable.c: the usable size of a block (see tmh_usable_of below) */
extern int tmh_glibc_usable; /* read glibc's chunk header instead of calling */
extern size_t (*tmh_sallocx)(const void *, int);
extern size_t (*tmh_nallocx)(size_t, int);
#define TMH_TABLE_MAX 4096
extern uint32_t tmh_class_table[TMH_TABLE_MAX / 8 + 1];
extern int tmh_class_table_ok;
typedef int (*tmh_mallctl_fn)(const char *, void *, size_t *, void *, size_t);
extern tmh_mallctl_fn tmh_je_mallctl;
extern TMH_TLS const uint64_t *tmh_tls_je_freed;
/* Set while the allocator says 0 bytes for fresh blocks (tcmalloc before its
 * own initialisation): such blocks are listed and counted at their true
 * size once it answers (tmh_usable_ready). */
extern int tmh_usable_pending;
const uint64_t *tmh_je_thread_freed_counter(void);
void tmh_usable_init(void);
int64_t tmh_usable_pending_new(void *p, size_t n);
int64_t tmh_usable_pending_of(void *p);
void tmh_usable_ready(void);
/* Asks the allocator again (at start-up and exit): ready when it answers. */
void tmh_usable_retry(void);

/* boot.c: start-up blocks, before the real allocator is known */
#define TMH_BOOT_BYTES (64 * 1024)
extern char tmh_boot_buf[TMH_BOOT_BYTES];
void *tmh_boot_alloc(size_t n, size_t align);
size_t tmh_boot_size(const void *p);
static inline int tmh_is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)tmh_boot_buf < sizeof(tmh_boot_buf); /* one compare */
}

/* glibc's malloc_usable_size without the check of the next chunk's in-use
 * bit (a pointer we are given is in use): chunk size minus the header word,
 * minus one more word for mmapped chunks.  Checked against the real
 * function at start-up (see check_glibc_usable). */
static inline size_t tmh_glibc_usable_of(const void *p)
{
	size_t sz = ((const size_t *)p)[-1];
	return (sz & ~(size_t)7) - ((sz & 2) ? 16 : 8);
}

static inline int64_t tmh_usable_of(void *p)
{
	if (!TMH_COUNTING)
		return 0;
	if (TMH_LIKELY(tmh_glibc_usable))
		return (int64_t)tmh_glibc_usable_of(p);
	if (tmh_sallocx)
		return (int64_t)tmh_sallocx(p, 0);
	if (TMH_UNLIKELY(tmh_usable_pending))
		return tmh_usable_pending_of(p);
	return (int64_t)tmh_real.usable_size(p);
}

static inline int64_t tmh_usable_new(void *p, size_t n)
{
	if (!TMH_COUNTING)
		return 0;
	if (TMH_LIKELY(tmh_glibc_usable))
		return (int64_t)tmh_glibc_usable_of(p);
	if (TMH_LIKELY(tmh_class_table_ok && n <= TMH_TABLE_MAX))
		return tmh_class_table[(n + 7) / 8];
	if (tmh_nallocx)
		return (int64_t)tmh_nallocx(n ? n : 1, 0);
	if (TMH_UNLIKELY(tmh_usable_pending))
		return tmh_usable_pending_new(p, n);
	return (int64_t)tmh_real.usable_size(p);
}

/* attach.c (TMH_ATTACH): the options of an attached agent, set before
 * its region is made; shim.c: the start-up a preloaded shim does in its
 * constructor, for the agent (1 when done). */
void tmh_attach_options(struct tmh_options *o);
/* attach.c: in a fork child, the entries put back; counting stops there. */
void tmh_attach_fork_child(void);
int tmh_init_attach(void);
/* stats.c: the process's live bytes and allocations + frees (a reader's sum) */
void tmh_own_totals(int64_t *live, int64_t *ops);
/* stats.c: what the allocator counts as handed out (-1: it does not say) */
int64_t tmh_stats_inuse(void);

/* got.c: points every loaded object's relocation entries for the
 * allocation functions at the agent's (tmh_got_hook: their number, and
 * *OBJECTS the objects touched), and back (tmh_got_restore). */
int64_t tmh_got_hook(int64_t *objects);
/* NAME as defined by the first loaded library that defines it, in load
 * order (not the executable, whose PLT entries a non-PIE program exports as
 * its functions' addresses: they lead back through the rewritten entries). */
void *tmh_got_resolve(const char *name);
void tmh_got_restore(void);

/* Small helpers without libc formatting. */
size_t tmh_fmt_u64(char *buf, uint64_t v);

#endif
