/*
 * libtidemark-heap.so: counts every allocation made through malloc & co. and
 * forwards it to the next allocator (glibc, or jemalloc/mimalloc/tcmalloc
 * preloaded after this library).
 *
 * Fast path: one initial-exec TLS load (the thread's slot in the shared
 * region), the real call, the usable size, and plain stores into the
 * thread's own cache lines.  Everything else (start-up, a thread's first
 * call, the peak, sampling, thread exit) is a slow path.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "shim.h"

struct tmh_real tmh_real;
struct tmh_region *tmh_region;
struct tmh_options tmh_opt;
TMH_TLS struct tmh_slot *tmh_tls_slot;
/* bytes until this thread's next sample; below zero the entry points take
 * their slow path (a sample is due, or the thread has no slot yet) */
TMH_TLS int64_t tmh_tls_left = -1;
TMH_TLS int tmh_tls_busy;    /* inside the shim: nested calls go to `shared` */
static TMH_TLS int tls_dead; /* this thread's slot was folded at its exit */
/* What glibc allocates on the shim's behalf while a thread claims its slot
 * or finds its stack (pthread_getattr_np's CPU set), and the answering
 * thread's start-up blocks, are not the program's: not counted, and not
 * uncounted when freed.  A fork child inherits the list. */
#define TMH_OWN_BLOCKS 4
static TMH_TLS int tls_own;
static TMH_TLS void *tls_own_blocks[TMH_OWN_BLOCKS];

static int own_add(void *p, int64_t u)
{
	for (int i = 0; i < TMH_OWN_BLOCKS; i++)
		if (!tls_own_blocks[i]) {
			tls_own_blocks[i] = p;
			TMH_ADD(tmh_region->own_bytes, u);
			return 1;
		}
	return 0;
}

/* P (U usable bytes) leaves: 1 when it was one of the shim's own. */
static int own_remove(const void *p, int64_t u)
{
	for (int i = 0; i < TMH_OWN_BLOCKS; i++)
		if (tls_own_blocks[i] == p) {
			tls_own_blocks[i] = NULL;
			TMH_ADD(tmh_region->own_bytes, -u);
			return 1;
		}
	return 0;
}

enum { INIT_NONE, INIT_RUNNING, INIT_DONE };
static int init_state;
static pthread_key_t slot_key;
static int sampling; /* tmh_opt.sample_mean_bytes > 0 */

/* Without sampling no pointer is ever listed: skip the filter (a cache line
 * of its own, which a program with a large working set keeps evicting). */
static inline int maybe_sampled(const void *p)
{
	return sampling && tmh_maybe_sampled(p);
}

void tmh_warn(const char *msg)
{
	static int warned;
	if (tmh_opt.quiet || __atomic_fetch_add(&warned, 1, __ATOMIC_RELAXED) >= 5)
		return;
	static const char pre[] = "tidemark-heap: ";
	ssize_t r = write(2, pre, sizeof(pre) - 1);
	r += write(2, msg, strlen(msg));
	r += write(2, "\n", 1);
	(void)r;
}

/* ---- counting ----------------------------------------------------------- */

void tmh_peak_update(int64_t flushed_now, int64_t delta)
{
	int64_t cand = flushed_now + delta;
	int64_t peak = TMH_LD(tmh_region->peak_bytes);
	while (cand > peak && !__atomic_compare_exchange_n(&tmh_region->peak_bytes, &peak, cand, 1,
	                                                   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* The slot's live bytes (alloc - freed) are published to
 * region.flushed_bytes in steps: LIVE - mark_bytes is the unpublished part.
 * The fast path compares live bytes with two precomputed limits. */
static void set_limits(struct tmh_slot *s, int64_t flushed_now)
{
	int64_t room = TMH_LD(tmh_region->peak_bytes) - flushed_now;
	s->hi_bytes = s->mark_bytes + (room < TMH_FLUSH_BYTES ? room : TMH_FLUSH_BYTES);
	s->lo_bytes = s->mark_bytes - TMH_FLUSH_BYTES;
}

/* Live bytes went above hi_bytes: publish them or raise the process peak
 * (process live = flushed + unpublished part).  Exact for a single
 * allocating thread. */
static __attribute__((noinline)) void peak_slow(struct tmh_slot *s)
{
	int64_t live = s->alloc_bytes - s->freed_bytes, d = live - s->mark_bytes, g;
	if (d >= TMH_FLUSH_BYTES) {
		g = TMH_ADD(tmh_region->flushed_bytes, d);
		s->mark_bytes = live;
		d = 0;
	} else {
		g = TMH_LD(tmh_region->flushed_bytes);
	}
	tmh_peak_update(g, d);
	set_limits(s, g);
	tmh_stats_poll();
}

static __attribute__((noinline)) void flush_down(struct tmh_slot *s)
{
	int64_t live = s->alloc_bytes - s->freed_bytes;
	int64_t g = TMH_ADD(tmh_region->flushed_bytes, live - s->mark_bytes);
	s->mark_bytes = live;
	set_limits(s, g);
	tmh_stats_poll();
}

/* U usable bytes for a request of N bytes.  The histogram is by requested
 * size: N is known before the allocator returns, so the class is not one
 * more step in the chain that waits for the usable size. */
static inline void count_alloc(struct tmh_slot *s, int64_t u, size_t n)
{
	if (!TMH_COUNTING)
		return;
	int64_t a = s->alloc_bytes + u;
	TMH_ST(s->alloc_bytes, a);
	int c = tmh_class(n);
	TMH_ST(s->hist[c], s->hist[c] + 1);
	if (TMH_UNLIKELY(a - s->freed_bytes > s->hi_bytes))
		peak_slow(s);
}

static inline void count_free(struct tmh_slot *s, int64_t u)
{
	if (!TMH_COUNTING)
		return;
	int64_t f = s->freed_bytes + u;
	TMH_ST(s->freed_bytes, f);
	TMH_ST(s->frees, s->frees + 1);
	if (TMH_UNLIKELY(s->alloc_bytes - f < s->lo_bytes))
		flush_down(s);
}

/* Nested calls, threads past their exit and threads without a slot. */
void tmh_count_shared_alloc(int64_t u, size_t n)
{
	if (!TMH_COUNTING)
		return;
	struct tmh_slot *s = &tmh_region->shared;
	TMH_ADD(s->alloc_bytes, u);
	TMH_ADD(s->hist[tmh_class(n)], 1);
	tmh_peak_update(TMH_ADD(tmh_region->flushed_bytes, u), 0);
}

/* Bytes without an allocation: blocks counted at 0 before the allocator
 * could say their size (usable.c). */
void tmh_count_shared_bytes(int64_t u)
{
	if (!TMH_COUNTING || u == 0)
		return;
	TMH_ADD(tmh_region->shared.alloc_bytes, u);
	tmh_peak_update(TMH_ADD(tmh_region->flushed_bytes, u), 0);
}

void tmh_count_shared_free(int64_t u)
{
	if (!TMH_COUNTING)
		return;
	struct tmh_slot *s = &tmh_region->shared;
	TMH_ADD(s->freed_bytes, u);
	TMH_ADD(s->frees, 1);
	TMH_ADD(tmh_region->flushed_bytes, -u);
}

/* ---- threads ---------------------------------------------------------- */

static int fold_lock; /* one thread folds at a time */

/* A thread exits: add its counters into `retired` and free the slot. */
static void slot_release(struct tmh_slot *s)
{
	if (!s || !tmh_region)
		return;
	while (__atomic_exchange_n(&fold_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	TMH_ADD(tmh_region->fold_seq, 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	struct tmh_slot *r = &tmh_region->retired;
#define TMH_X_FOLD(n, c) TMH_ST(r->n, r->n + s->n);
	TMH_COUNTER_LIST(TMH_X_FOLD)
#undef TMH_X_FOLD
	for (int i = 0; i < TMH_CLASSES; i++)
		TMH_ST(r->hist[i], r->hist[i] + s->hist[i]);
	TMH_ADD(tmh_region->flushed_bytes, s->alloc_bytes - s->freed_bytes - s->mark_bytes);
	memset((char *)s + sizeof(s->owner), 0, sizeof(*s) - sizeof(s->owner));
	__atomic_thread_fence(__ATOMIC_RELEASE);
	TMH_ADD(tmh_region->fold_seq, 1);
	__atomic_store_n(&s->owner, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&fold_lock, 0, __ATOMIC_RELEASE);
	tmh_tls_slot = NULL;
	tmh_tls_je_freed = NULL;
	tmh_tls_left = INT64_MAX; /* no more samples from this thread, and no slow path */
	tls_dead = 1;
}

/*
 * A thread's slot is folded by the destructor of the shim's pthread key.
 * glibc runs key destructors in the order the keys were made, and the shim
 * makes its key first thing at start-up, before it calls into the allocator
 * (jemalloc makes its own there): the slot is folded before jemalloc's
 * thread clean-up (after which its counters are no longer the shim's to
 * trust); what the thread frees later counts in `shared`.  Not a C++
 * thread_local destructor (__cxa_thread_atexit_impl): registering one takes
 * the dynamic loader's lock, and a thread's first allocation then waited for
 * a dlopen whose library constructor was waiting for that thread.
 */
static void key_destructor(void *arg)
{
	if (arg && arg == tmh_tls_slot)
		slot_release(arg);
}

static struct tmh_slot *slot_claim(void)
{
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	TMH_ADD(tmh_region->threads_seen, 1);
	for (int i = 0; i < TMH_SLOTS; i++) {
		struct tmh_slot *s = &tmh_region->slots[(tid + (uint64_t)i) % TMH_SLOTS];
		uint64_t zero = 0;
		if (TMH_LD(s->owner) == 0 &&
		    __atomic_compare_exchange_n(&s->owner, &zero, tid, 0, __ATOMIC_ACQUIRE,
		                                __ATOMIC_RELAXED)) {
			s->mark_bytes = 0;
			set_limits(s, TMH_LD(tmh_region->flushed_bytes));
			tmh_sample_thread_init(s);
			return s;
		}
	}
	TMH_ADD(tmh_region->slot_overflows, 1);
	return NULL;
}

static void init_once(void);

/*
 * Every entry point lands here when the thread has no slot: start-up,
 * nested calls, a thread's first call, a thread past its exit.  Returns the
 * slot to count into, or NULL to count into `shared`; *BOOT is set while the
 * real allocator is not known yet.
 */
static struct tmh_slot *slow_slot(int *boot)
{
	*boot = 0;
	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_DONE) {
		if (tmh_tls_busy) {
			*boot = 1;
			return NULL;
		}
		init_once();
		if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_DONE) {
			*boot = 1;
			return NULL;
		}
	}
	if (tmh_tls_busy || tls_dead || tmh_tls_slot)
		return tmh_tls_slot && !tmh_tls_busy ? tmh_tls_slot : NULL;
	tmh_tls_busy = 1;
	tls_own = 1;
	struct tmh_slot *s = slot_claim();
	if (s) {
		pthread_setspecific(slot_key, s);
		tmh_tls_je_freed = TMH_COUNTING ? tmh_je_thread_freed_counter() : NULL;
		/* without sampling the countdown only brings the thread to
		 * sample_slow now and then, to answer a statistics request */
		tmh_tls_left = sampling || !TMH_COUNTING ? s->sample_left_bytes : TMH_POLL_BYTES;
		tmh_tls_slot = s;
	} else {
		tls_dead = 1; /* no slot: count this thread in `shared`, unsampled */
		tmh_tls_left = INT64_MAX;
	}
	tls_own = 0;
	tmh_tls_busy = 0;
	return s;
}

static void atfork_child(void)
{
#ifdef TMH_ATTACH
	/* a fork child of an attached process was not attached: its entries
	 * are put back at once (no watching thread follows it), no region */
	tmh_attach_fork_child();
	return;
#endif
	fold_lock = 0; /* a thread of the parent may have held it */
	tmh_tls_busy = 1;
	tmh_region_fork_child();
	tmh_tls_slot = NULL;
	tmh_tls_left = -1;
	tls_dead = 0;
	pthread_setspecific(slot_key, NULL);
	tmh_tls_busy = 0;
	tmh_stats_answer(1); /* the child's own first answer */
}

static void resolve(void)
{
#ifdef TMH_ATTACH
#define TMH_RESOLVE(f, name) tmh_real.f = (__typeof__(tmh_real.f))tmh_got_resolve(name)
#else
#define TMH_RESOLVE(f, name) tmh_real.f = (__typeof__(tmh_real.f))dlsym(TMH_NEXT, name)
#endif
	TMH_RESOLVE(malloc, "malloc");
	TMH_RESOLVE(free, "free");
	TMH_RESOLVE(calloc, "calloc");
	TMH_RESOLVE(realloc, "realloc");
	TMH_RESOLVE(memalign, "memalign");
	TMH_RESOLVE(posix_memalign, "posix_memalign");
	TMH_RESOLVE(aligned_alloc, "aligned_alloc");
	TMH_RESOLVE(valloc, "valloc");
	TMH_RESOLVE(pvalloc, "pvalloc");
	TMH_RESOLVE(usable_size, "malloc_usable_size");
#undef TMH_RESOLVE
}

static void init_once(void)
{
	int expect = INIT_NONE;
	if (!__atomic_compare_exchange_n(&init_state, &expect, INIT_RUNNING, 0, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_DONE)
			sched_yield();
		return;
	}
	tmh_tls_busy = 1;
	pthread_key_create(&slot_key, key_destructor); /* before the allocator's own */
	tmh_env_options(&tmh_opt);
#ifdef TMH_ATTACH
	tmh_attach_options(&tmh_opt);
#endif
	if (tmh_opt.bad_sample)
		tmh_warn("TIDEMARK_HEAP_SAMPLE is not a size (e.g. 512K, 1.5M, 0); sampling every "
		         "512K on average");
	resolve();
	if (!tmh_real.malloc || !tmh_real.free || !tmh_real.realloc || !tmh_real.usable_size ||
	    !tmh_real.calloc || !tmh_real.memalign) {
#ifdef TMH_ATTACH
		tmh_tls_busy = 0; /* attached: refuse (attach.c), never end the program */
		return;
#endif
		static const char msg[] = "tidemark-heap: cannot find the next malloc\n";
		ssize_t r = write(2, msg, sizeof(msg) - 1);
		(void)r;
		_exit(127);
	}
	tmh_usable_init();
	tmh_stats_detect();
	tmh_region = tmh_region_create(1);
	tmh_stats_init();
	sampling = tmh_opt.sample_mean_bytes > 0;
	tmh_sample_init();
	pthread_atfork(NULL, NULL, atfork_child);
	tmh_tls_busy = 0;
	__atomic_store_n(&init_state, INIT_DONE, __ATOMIC_RELEASE);
}

#ifdef TMH_ATTACH
int tmh_init_attach(void)
{
	int boot;
	slow_slot(&boot);
	return __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == INIT_DONE;
}
#else
__attribute__((constructor)) static void tmh_ctor(void)
{
	int boot;
	slow_slot(&boot);
	tmh_usable_retry();
	tmh_stats_answer(1); /* the first answer: still current while nothing moves */
	if (tmh_opt.keep_tag > 1 && tmh_opt.stats_thread && TMH_COUNTING) {
		/* the thread's start-up blocks (its TLS) are glibc's for the shim */
		struct tmh_slot *s = tmh_tls_slot;
		tmh_tls_slot = NULL;
		tmh_tls_busy = tls_own = 1;
		tmh_stats_thread_start();
		tmh_tls_busy = tls_own = 0;
		tmh_tls_slot = s;
	}
}
#endif

__attribute__((destructor)) static void tmh_dtor(void)
{
	if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != INIT_DONE)
		return;
	tmh_tls_busy = 1;
	tmh_usable_retry();
	tmh_stats_answer(1); /* what the allocator holds at exit */
	tmh_region_exit();
	tmh_tls_busy = 0;
}

/* ---- entry points ------------------------------------------------------- */

static __attribute__((noinline, cold)) void sample_slow(struct tmh_slot *s, void *p, size_t req,
                                                        void *frame)
{
	if (!sampling) {
		s->sample_left_bytes = INT64_MAX;
		tmh_tls_left = TMH_COUNTING ? TMH_POLL_BYTES : INT64_MAX;
		tmh_stats_poll();
		return;
	}
	tmh_tls_busy = 1;
	tmh_tls_slot = NULL;
	/* what these allocate is the shim's own, not the program's:
	 * pthread_getattr_np's CPU set, when the stack was not known yet, and
	 * libunwind's caches, when it unwinds (TIDEMARK_HEAP_UNWIND, or chosen
	 * for an executable without frame pointers) */
	tls_own = 1;
	tmh_sample_stack_bounds(frame);
	tmh_sample_alloc(s, p, req, frame);
	tls_own = 0;
	tmh_tls_left = s->sample_left_bytes; /* the next draw */
	tmh_tls_slot = s;
	tmh_tls_busy = 0;
	tmh_stats_poll();
}

static __attribute__((noinline, cold)) void sample_free_slow(void *p)
{
	int busy = tmh_tls_busy;
	if (busy)
		return; /* a free nested in the sampled path (a signal handler): the
		         * sample stays listed rather than deadlock on its lock */
	tmh_tls_busy = 1;
	tmh_sample_free(p);
	tmh_tls_busy = busy;
}

/* Counts a fresh block P of REQ requested bytes; FRAME is the entry point's
 * frame for the sampled path. */
static inline void after_alloc(struct tmh_slot *s, void *p, size_t req, void *frame)
{
	int64_t u =
	    TMH_UNLIKELY(tmh_usable_pending) ? tmh_usable_pending_new(p, req) : tmh_usable_of(p);
	if (TMH_LIKELY(s != NULL)) {
		count_alloc(s, u, req);
		int64_t left = tmh_tls_left - (int64_t)req;
		tmh_tls_left = left;
		if (TMH_UNLIKELY(left < 0))
			sample_slow(s, p, req, frame);
	} else if (!TMH_UNLIKELY(tls_own && own_add(p, u))) {
		tmh_count_shared_alloc(u, req);
	}
}

/* Before P goes back to the real allocator: uncount it. */
static inline void before_free(struct tmh_slot *s, void *p)
{
	int64_t u = tmh_usable_of(p);
	if (TMH_UNLIKELY(maybe_sampled(p)))
		sample_free_slow(p);
	if (TMH_LIKELY(s != NULL))
		count_free(s, u);
	else
		tmh_count_shared_free(u);
}

#define TMH_FRAME __builtin_frame_address(0)

static __attribute__((noinline, cold)) void *malloc_slow(size_t n, void *frame)
{
	int boot;
	struct tmh_slot *s = slow_slot(&boot);
	if (boot)
		return tmh_boot_alloc(n, 16);
	void *p = tmh_real.malloc(n);
	if (p)
		after_alloc(s, p, n, frame);
	return p;
}

/* Sites only: a sample is due, or the thread has no slot yet. */
static __attribute__((noinline, cold, unused)) void *malloc_sampled(size_t n, void *frame)
{
	struct tmh_slot *s = tmh_tls_slot;
	if (!s)
		return malloc_slow(n, frame);
	void *p = tmh_real.malloc(n);
	if (p)
		sample_slow(s, p, n, frame);
	return p;
}

static inline __attribute__((always_inline)) void *malloc_at(size_t n, void *frame)
{
	if (!TMH_COUNTING) { /* count down first, so the common case is a tail call */
		int64_t left = tmh_tls_left - (int64_t)n;
		tmh_tls_left = left;
		if (TMH_LIKELY(left >= 0))
			return tmh_real.malloc(n);
		return malloc_sampled(n, frame);
	}
	struct tmh_slot *s = tmh_tls_slot;
	if (TMH_UNLIKELY(!s))
		return malloc_slow(n, frame);
	void *p = tmh_real.malloc(n);
	if (TMH_UNLIKELY(!p))
		return p;
	count_alloc(s, tmh_usable_new(p, n), n);
	int64_t left = tmh_tls_left - (int64_t)n;
	tmh_tls_left = left;
	if (TMH_UNLIKELY(left < 0))
		sample_slow(s, p, n, frame);
	return p;
}

TMH_EXPORT void *malloc(size_t n)
{
	return malloc_at(n, TMH_FRAME);
}

static __attribute__((noinline, cold)) void free_slow(void *p)
{
	if (!p || tmh_is_boot(p))
		return;
	if (TMH_UNLIKELY(own_remove(p, tmh_usable_of(p)))) {
		tmh_real.free(p);
		return;
	}
	int boot;
	struct tmh_slot *s = slow_slot(&boot);
	if (boot) { /* not ours to count: start-up is still running */
		if (tmh_real.free)
			tmh_real.free(p);
		return;
	}
	before_free(s, p);
	tmh_real.free(p);
}

TMH_EXPORT void free(void *p)
{
	if (!TMH_COUNTING) {
		/* no slot needed: a pointer from the real allocator means the
		 * start-up that found it is done */
		if (TMH_UNLIKELY(!p))
			return;
		if (TMH_UNLIKELY(tmh_maybe_sampled(p))) { /* start-up blocks are pinned */
			if (tmh_is_boot(p))
				return;
			sample_free_slow(p);
		}
		tmh_real.free(p);
		return;
	}
	struct tmh_slot *s = tmh_tls_slot;
	if (TMH_UNLIKELY(!s || !p)) {
		free_slow(p);
		return;
	}
	/* one test for sampled and start-up blocks (pinned in the filter); without
	 * sampling the filter's cache line is not worth it */
	if (TMH_UNLIKELY(sampling ? tmh_maybe_sampled(p) : tmh_is_boot(p))) {
		if (tmh_is_boot(p))
			return;
		sample_free_slow(p);
	}
	const uint64_t *ctr = tmh_tls_je_freed;
	if (!TMH_COUNTING || TMH_LIKELY(tmh_glibc_usable) || !ctr) {
		count_free(s, tmh_usable_of(p));
		tmh_real.free(p);
		return;
	}
	uint64_t before = TMH_LD(*ctr);
	tmh_real.free(p);
	count_free(s, (int64_t)(TMH_LD(*ctr) - before));
}

TMH_EXPORT void *calloc(size_t nmemb, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(nmemb, size, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	struct tmh_slot *s = tmh_tls_slot;
	int boot = 0;
	if (TMH_UNLIKELY(!s)) {
		s = slow_slot(&boot);
		if (boot)
			return tmh_boot_alloc(n, 16);
	}
	void *p = tmh_real.calloc(nmemb, size);
	if (TMH_LIKELY(p != NULL))
		after_alloc(s, p, n, TMH_FRAME);
	return p;
}

static void *realloc_boot(void *p, size_t n, struct tmh_slot *s, int boot)
{
	size_t old = tmh_boot_size(p);
	void *q = boot ? tmh_boot_alloc(n, 16) : tmh_real.malloc(n ? n : 1);
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	if (!boot)
		after_alloc(s, q, n, NULL);
	return q;
}

static inline void *realloc_impl(void *p, size_t n, void *frame)
{
	struct tmh_slot *s = tmh_tls_slot;
	int boot = 0;
	if (TMH_UNLIKELY(!s)) {
		s = slow_slot(&boot);
		if (boot && !p)
			return tmh_boot_alloc(n, 16);
		if (boot && !tmh_is_boot(p))
			return tmh_real.realloc ? tmh_real.realloc(p, n) : NULL;
	}
	if (TMH_UNLIKELY(p && tmh_is_boot(p)))
		return realloc_boot(p, n, s, boot);
	if (!p) {
		void *q = tmh_real.malloc(n);
		if (q)
			after_alloc(s, q, n, frame);
		return q;
	}
	int64_t old = tmh_usable_of(p);
	/* uncount a sample first: after realloc, P may belong to another thread */
	if (TMH_UNLIKELY(maybe_sampled(p)))
		sample_free_slow(p);
	void *q = tmh_real.realloc(p, n);
	if (!q && n != 0)
		return NULL; /* failed: P is untouched (its sample, if any, is lost) */
	if (s)
		count_free(s, old);
	else if (!own_remove(p, old)) /* P is not read: only compared */
		tmh_count_shared_free(old);
	if (q)
		after_alloc(s, q, n, frame);
	return q;
}

TMH_EXPORT void *realloc(void *p, size_t n)
{
	return realloc_impl(p, n, TMH_FRAME);
}

TMH_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
	size_t n;
	if (__builtin_mul_overflow(nmemb, size, &n)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_impl(p, n, TMH_FRAME);
}

static void *aligned_common(size_t align, size_t n, int kind, void *frame)
{
	struct tmh_slot *s = tmh_tls_slot;
	int boot = 0;
	if (TMH_UNLIKELY(!s)) {
		s = slow_slot(&boot);
		if (boot)
			return tmh_boot_alloc(n, align);
	}
	void *p;
	switch (kind) {
	case 0:
		p = tmh_real.memalign(align, n);
		break;
	case 1:
		p = tmh_real.aligned_alloc ? tmh_real.aligned_alloc(align, n)
		                           : tmh_real.memalign(align, n);
		break;
	default:
		p = tmh_real.valloc ? tmh_real.valloc(n) : tmh_real.memalign(align, n);
		break;
	}
	if (TMH_LIKELY(p != NULL))
		after_alloc(s, p, n, frame);
	return p;
}

TMH_EXPORT void *memalign(size_t align, size_t n)
{
	return aligned_common(align, n, 0, TMH_FRAME);
}

TMH_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned_common(align, n, 1, TMH_FRAME);
}

TMH_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	int saved = errno;
	void *p = aligned_common(align, n, 0, TMH_FRAME);
	if (!p)
		return ENOMEM;
	errno = saved;
	*out = p;
	return 0;
}

TMH_EXPORT void *valloc(size_t n)
{
	return aligned_common((size_t)sysconf(_SC_PAGESIZE), n, 2, TMH_FRAME);
}

TMH_EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t rounded;
	if (__builtin_add_overflow(n, page - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	rounded &= ~(page - 1);
	return aligned_common(page, rounded ? rounded : page, 0, TMH_FRAME);
}

TMH_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (tmh_is_boot(p))
		return tmh_boot_size(p);
	if (TMH_UNLIKELY(!tmh_real.usable_size)) {
		int boot;
		slow_slot(&boot);
	}
	return tmh_real.usable_size(p);
}

/* ---- for C++ operator new and delete (cxx.c) --------------------------- */

void *tmh_alloc_at(size_t n, size_t align, void *frame)
{
	return align ? aligned_common(align, n, 0, frame) : malloc_at(n, frame);
}

void tmh_free(void *p)
{
	free(p);
}
