/*
 * Allocation sites: sampling by bytes.  Each thread counts down an
 * exponentially distributed number of bytes (mean TIDEMARK_HEAP_SAMPLE);
 * the allocation that crosses zero is sampled.  An allocation of S bytes is
 * thus sampled with probability p = 1 - exp(-S/mean) and stands for 1/p
 * objects and S/p bytes, which makes the sampled totals unbiased.
 *
 * A sampled allocation records its stack (frame pointers, or libunwind with
 * TIDEMARK_HEAP_UNWIND=libunwind) in the region's stack table and its
 * pointer in the live table; freeing it takes its weight off its stack's
 * in-use totals.  All of it runs under one process-local spinlock, on the
 * sampled path only.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "arch.h"
#include "shim.h"

extern void *__libc_stack_end;

static int lock_word;
uint64_t tmh_filter_bits[TMH_FILTER_BITS / 64];
static uint16_t filter_count[TMH_FILTER_BITS];
static TMH_TLS uintptr_t tls_stack_lo, tls_stack_hi; /* walkable: [lo, hi) */
static TMH_TLS int tls_stack_known;                  /* stack_bounds ran for this thread */
static TMH_TLS int tls_in_getattr; /* inside pthread_getattr_np (for any thread) */
static int (*real_getattr)(pthread_t, pthread_attr_t *);
static int (*unw_backtrace_fn)(void **, int);
static uintptr_t self_lo, self_hi; /* this library's text, skipped in stacks */

/* ---- maths without libm ------------------------------------------------- */

static double ln_pos(double x)
{
	union {
		double d;
		uint64_t u;
	} v = {.d = x};
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	v.u = (v.u & ~(0x7ffull << 52)) | (1023ull << 52); /* mantissa in [1, 2) */
	double m = v.d;
	if (m > 1.41421356237) {
		m /= 2;
		e++;
	}
	double t = (m - 1) / (m + 1), t2 = t * t, sum = 0, pw = t;
	for (int k = 1; k <= 19; k += 2) {
		sum += pw / k;
		pw *= t2;
	}
	return 2 * sum + e * 0.6931471805599453;
}

static double exp_neg(double x)
{
	if (x > 700)
		return 0;
	int k = (int)(x / 0.6931471805599453);
	double r = x - k * 0.6931471805599453, term = 1, sum = 1;
	for (int i = 1; i < 18; i++) {
		term *= -r / i;
		sum += term;
	}
	union {
		double d;
		uint64_t u;
	} s = {.d = 1.0};
	s.u = (uint64_t)(1023 - k) << 52;
	return sum * s.d;
}

/* Probability that an allocation of X mean-intervals is sampled. */
static double sample_prob(double x)
{
	if (x < 1e-3)
		return x * (1 - x / 2 * (1 - x / 3 * (1 - x / 4)));
	return 1 - exp_neg(x);
}

static uint64_t rng_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static int64_t draw_interval(uint64_t *state)
{
	double u = (double)((rng_next(state) >> 11) + 1) * (1.0 / 9007199254740993.0);
	double v = -ln_pos(u) * (double)tmh_opt.sample_mean_bytes;
	return v < 1 ? 1 : v > 4e18 ? (int64_t)4e18 : (int64_t)v;
}

/* ---- set-up ------------------------------------------------------------- */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	uintptr_t want = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	if (want >= lo && want < hi) {
		self_lo = lo;
		self_hi = hi;
		return 1;
	}
	return 0;
}

/*
 * Attached, the program's own calls of pthread_getattr_np do not pass the
 * shim's wrapper (below: its entry is not rewritten), so tls_in_getattr
 * cannot say that a thread holds its own lock there.  Its range in libc is
 * found at attach (dladdr1 takes the loader's lock: the attaching thread
 * only); an allocation returning into it finds no stack bounds.
 */
#ifdef TMH_ATTACH
static uintptr_t getattr_lo, getattr_hi;
#endif

static void getattr_range(void)
{
#ifdef TMH_ATTACH
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (real_getattr && dladdr1((void *)real_getattr, &info, (void **)&sym, RTLD_DL_SYMENT) &&
	    sym && sym->st_size > 0) {
		getattr_lo = (uintptr_t)real_getattr;
		getattr_hi = getattr_lo + sym->st_size;
	} else {
		getattr_lo = 0;
		getattr_hi = UINTPTR_MAX; /* unknown: no bounds, callers only from the entry */
	}
#endif
}

void tmh_sample_init(void)
{
	if (!real_getattr)
		__atomic_store_n(
		    &real_getattr,
		    (int (*)(pthread_t, pthread_attr_t *))dlsym(TMH_NEXT, "pthread_getattr_np"),
		    __ATOMIC_RELEASE);
	if (tmh_opt.sample_mean_bytes <= 0)
		return;
	dl_iterate_phdr(find_self, (void *)(uintptr_t)&tmh_sample_init);
	if (!tmh_opt.unwinder_env && tmh_arch_libunwind_ok() && tmh_exe_frame_pointers() == 0) {
		/* a frame-pointer walk would give the leaf only: DWARF tables */
		tmh_opt.unwinder = 1;
		tmh_region->unwinder = 1;
		tmh_region->unwinder_auto = 1;
	}
	if (tmh_opt.unwinder && !tmh_arch_libunwind_ok()) {
		tmh_warn("libunwind gives wrong stacks on aarch64 (code built with "
		         "-mbranch-protection); using frame pointers");
		tmh_region->unwinder = 0;
	} else if (tmh_opt.unwinder) {
		/* attached: this runs in the thread tidemark stopped at a safe
		 * place, right after its dlopen of the agent, never inside malloc */
		void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
		if (h)
			unw_backtrace_fn = (int (*)(void **, int))dlsym(h, "unw_backtrace");
		if (!unw_backtrace_fn) {
			tmh_warn("libunwind.so.8 not found; using frame pointers");
			/* chosen because the executable keeps none: say that
			 * its callers are missing (2), not just "frame pointers" */
			uint32_t chosen = tmh_region->unwinder_auto;
			tmh_opt.unwinder = 0;
			tmh_region->unwinder = 0;
			tmh_region->unwinder_auto = chosen ? 2 : 0;
		}
	}
	getattr_range();
}

/*
 * glibc's pthread_getattr_np holds the thread's own lock while it allocates
 * (the attribute's CPU set, with realloc).  When that allocation is a
 * thread's first, or is sampled, the shim must not ask pthread_getattr_np
 * again: the lock is not recursive and the thread would wait for itself
 * for ever (a JVM's threads call it first thing, so java hung at start-up).
 * The shim's own wrapper says when a thread is inside it.
 */
TMH_EXPORT int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	tls_in_getattr++;
	int (*real)(pthread_t, pthread_attr_t *) = __atomic_load_n(&real_getattr, __ATOMIC_ACQUIRE);
	if (!real) {
		real = (int (*)(pthread_t, pthread_attr_t *))dlsym(TMH_NEXT, "pthread_getattr_np");
		__atomic_store_n(&real_getattr, real, __ATOMIC_RELEASE);
	}
	int rc = real ? real(thread, attr) : ENOSYS;
	tls_in_getattr--;
	return rc;
}

/*
 * This thread's stack, so that a frame-pointer walk never reads outside it.
 * A glibc thread has its descriptor at the top of its stack block: ask
 * pthread_getattr_np for the block (it may allocate: we are inside the shim,
 * nested calls are counted in `shared`).  Otherwise this is the main thread:
 * its stack ends at __libc_stack_end and may grow down to RLIMIT_STACK.
 */
static void stack_bounds(void)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t self = (uintptr_t)pthread_self(), top = (uintptr_t)__libc_stack_end;
	tls_stack_lo = tls_stack_hi = 0;
	pthread_attr_t attr;
	void *addr;
	size_t size;
	if (self > sp && self - sp < (256u << 20)) {
		if (pthread_getattr_np(pthread_self(), &attr) != 0)
			return;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0 && sp >= (uintptr_t)addr &&
		    sp < (uintptr_t)addr + size) {
			tls_stack_lo = (uintptr_t)addr;
			tls_stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&attr);
		return;
	}
	struct rlimit rl;
	uintptr_t limit = 8u << 20;
	if (getrlimit(RLIMIT_STACK, &rl) == 0)
		limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 30) ? (1u << 30)
		                                                                 : rl.rlim_cur;
	if (top > sp && top - sp < limit) {
		tls_stack_lo = top - limit;
		tls_stack_hi = top;
	}
}

void tmh_sample_stack_bounds(const void *frame)
{
	if (TMH_LIKELY(tls_stack_known) || tls_in_getattr)
		return; /* known, or not now: until then a walk keeps only the caller */
#ifdef TMH_ATTACH
	uintptr_t ret = frame ? ((const uintptr_t *)frame)[1] : 0;
	if (!frame || (ret >= getattr_lo && ret < getattr_hi))
		return; /* called from pthread_getattr_np (or unknown): not now */
#else
	(void)frame;
#endif
	stack_bounds();
	tls_stack_known = 1;
}

void tmh_sample_thread_init(struct tmh_slot *s)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t seed = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)s ^
	                ((uint64_t)syscall(SYS_gettid) << 32);
	s->rng = seed ? seed : 88172645463325252ull;
	if (tmh_opt.sample_mean_bytes <= 0) {
		s->sample_left_bytes = INT64_MAX;
		return;
	}
	s->sample_left_bytes = draw_interval(&s->rng);
	tmh_sample_stack_bounds(NULL); /* attached: at the first sample, whose caller is known */
}

/* ---- stacks -------------------------------------------------------------- */

/* Walks frame pointers from FRAME (an entry point's frame), staying within
 * this thread's stack.  Stops at the first frame that does not look like
 * one (code built without frame pointers ends the walk early). */
static int unwind_fp(uint64_t *pc, int max, void *frame)
{
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0), hi = tls_stack_hi;
	uintptr_t fp = (uintptr_t)frame;
	int n = 0;
	if (lo < tls_stack_lo || lo >= hi) {
		/* not on the thread's known stack (a coroutine's, a signal's
		 * alternate stack): only the entry point's own frame is safe */
		if (!frame)
			return 0;
		pc[0] = tmh_arch_strip_pc(((uintptr_t *)frame)[1]);
		return 1;
	}
	while (n < max && fp >= lo && fp + 16 <= hi && !(fp & 7)) {
		uintptr_t next = ((uintptr_t *)fp)[0],
		          ret = tmh_arch_strip_pc(((uintptr_t *)fp)[1]);
		if (ret < 4096)
			break;
		pc[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

static int unwind_lib(uint64_t *pc, int max)
{
	void *buf[TMH_MAX_DEPTH + 16];
	int got = unw_backtrace_fn(buf, TMH_MAX_DEPTH + 16), n = 0, i = 0;
	while (i < got && (uintptr_t)buf[i] >= self_lo && (uintptr_t)buf[i] < self_hi)
		i++;
	for (; i < got && n < max; i++)
		pc[n++] = (uint64_t)(uintptr_t)buf[i];
	return n;
}

static uint64_t hash_pcs(const uint64_t *pc, int n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++)
		h = (h ^ pc[i]) * 0x100000001b3ull, h ^= h >> 29;
	return h ? h : 1;
}

/* Index of the stack PC[0..N) in the table; 0 when the table is full. */
static uint32_t stack_find_or_add(struct tmh_region *r, const uint64_t *pc, int n)
{
	uint64_t h = hash_pcs(pc, n);
	uint32_t slots = TMH_STACKS - 1, i = (uint32_t)(h % slots);
	for (uint32_t probe = 0; probe < slots / 2; probe++, i = (i + 1) % slots) {
		struct tmh_stack *st = &r->stacks[1 + i];
		if (st->hash == 0) {
			st->depth = (uint32_t)n;
			memcpy(st->pc, pc, (size_t)n * sizeof(pc[0]));
			TMH_ST(st->hash, h);
			return 1 + i;
		}
		if (st->hash == h && st->depth == (uint32_t)n &&
		    !memcmp(st->pc, pc, (size_t)n * sizeof(pc[0])))
			return 1 + i;
	}
	return 0;
}

/* ---- live sampled allocations (linear probing, backward-shift delete) ---- */

static uint32_t live_home(uint64_t p)
{
	return (uint32_t)((p * 0x9E3779B97F4A7C15ull) >> 40) & (TMH_LIVE - 1);
}

static int live_add(struct tmh_region *r, uint64_t p, uint32_t stack, int64_t wobj, int64_t wb)
{
	if (r->live_samples >= TMH_LIVE * 3 / 4)
		return -1;
	uint32_t i = live_home(p);
	while (r->live[i].ptr != 0)
		i = (i + 1) & (TMH_LIVE - 1);
	r->live[i] = (struct tmh_live){
	    .ptr = p, .stack = stack, .weight_objects_milli = wobj, .weight_bytes = wb};
	unsigned f = tmh_filter_index((void *)(uintptr_t)p);
	if (filter_count[f]++ == 0)
		__atomic_or_fetch(&tmh_filter_bits[f >> 6], 1ull << (f & 63), __ATOMIC_RELEASE);
	r->live_samples++;
	return 0;
}

static void live_remove_at(struct tmh_region *r, uint32_t i)
{
	uint32_t j = i;
	for (;;) {
		j = (j + 1) & (TMH_LIVE - 1);
		if (r->live[j].ptr == 0)
			break;
		uint32_t k = live_home(r->live[j].ptr);
		/* move J back to I unless its home lies cyclically in (I, J] */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		r->live[i] = r->live[j];
		i = j;
	}
	r->live[i].ptr = 0;
}

static void lock(void)
{
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	TMH_ADD(tmh_region->sample_seq, 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void unlock(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	TMH_ADD(tmh_region->sample_seq, 1);
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

void tmh_sample_alloc(struct tmh_slot *s, void *p, size_t req, void *frame)
{
	s->sample_left_bytes = draw_interval(&s->rng);
	uint64_t pc[TMH_MAX_DEPTH];
	int n =
	    unw_backtrace_fn ? unwind_lib(pc, TMH_MAX_DEPTH) : unwind_fp(pc, TMH_MAX_DEPTH, frame);
	double prob = sample_prob((double)req / (double)tmh_opt.sample_mean_bytes);
	int64_t wobj = (int64_t)(1000.0 / prob + 0.5);
	int64_t wb = (int64_t)((double)req / prob + 0.5);
	struct tmh_region *r = tmh_region;
	lock();
	uint32_t si = stack_find_or_add(r, pc, n);
	struct tmh_stack *st = &r->stacks[si];
	TMH_ST(st->samples, st->samples + 1);
	TMH_ST(st->alloc_objects_milli, st->alloc_objects_milli + wobj);
	TMH_ST(st->alloc_bytes, st->alloc_bytes + wb);
	if (live_add(r, (uint64_t)(uintptr_t)p, si, wobj, wb) == 0) {
		TMH_ST(st->inuse_objects_milli, st->inuse_objects_milli + wobj);
		TMH_ST(st->inuse_bytes, st->inuse_bytes + wb);
	} else {
		TMH_ADD(r->samples_dropped, 1);
	}
	unlock();
}

void tmh_sample_free(void *p)
{
	struct tmh_region *r = tmh_region;
	uint64_t key = (uint64_t)(uintptr_t)p;
	lock();
	for (uint32_t i = live_home(key); r->live[i].ptr != 0; i = (i + 1) & (TMH_LIVE - 1)) {
		if (r->live[i].ptr != key)
			continue;
		struct tmh_stack *st = &r->stacks[r->live[i].stack];
		TMH_ST(st->inuse_objects_milli,
		       st->inuse_objects_milli - r->live[i].weight_objects_milli);
		TMH_ST(st->inuse_bytes, st->inuse_bytes - r->live[i].weight_bytes);
		live_remove_at(r, i);
		unsigned f = tmh_filter_index(p);
		if (--filter_count[f] == 0)
			__atomic_and_fetch(&tmh_filter_bits[f >> 6], ~(1ull << (f & 63)),
			                   __ATOMIC_RELEASE);
		r->live_samples--;
		break;
	}
	unlock();
}

/*
 * In a fork child: its profile covers what it allocates from now on (the
 * parent's sampled blocks stay in the parent's profile; copying the tables
 * would touch megabytes of shared memory on every fork).  Counting is not
 * affected: the child's totals start from the parent's.
 */
void tmh_sample_fork_reset(const struct tmh_region *parent)
{
	lock_word = 0; /* another thread of the parent may have held it */
	if (parent->live_samples == 0 && parent->sample_seq == 0)
		return;
	/* clear only what is set: untouched pages of the counts stay unbacked */
	for (unsigned w = 0; w < TMH_FILTER_BITS / 64; w++) {
		for (uint64_t bits = tmh_filter_bits[w]; bits; bits &= bits - 1)
			filter_count[w * 64 + (unsigned)__builtin_ctzll(bits)] = 0;
		if (tmh_filter_bits[w])
			tmh_filter_bits[w] = 0;
	}
	tmh_boot_repin();
}

/* Start-up blocks stay listed for good (one thread only: start-up, or a
 * fork child). */
void tmh_filter_pin(const void *p)
{
	unsigned f = tmh_filter_index(p);
	if (filter_count[f]++ == 0)
		__atomic_or_fetch(&tmh_filter_bits[f >> 6], 1ull << (f & 63), __ATOMIC_RELEASE);
}
