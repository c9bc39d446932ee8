/*
 * The allocator's own statistics, read inside the process when a reader
 * asks (include/tidemark-heap.h: stats_req / stats_ans): never on the
 * malloc/free fast path, only on the slow paths that come anyway (a
 * thread's first call, a sample, a peak or flush step, or every
 * TMH_POLL_BYTES a thread asks for when sampling is off), at start-up and
 * at exit.  What the allocator holds from the system:
 *   glibc     mallinfo2(): arena + hblkhd (heaps and mmapped chunks)
 *   jemalloc  mallctl "stats.resident" after an "epoch" refresh
 *   tcmalloc  generic.heap_size - tcmalloc.pageheap_unmapped_bytes
 *   mimalloc  mi_process_info(): its committed bytes
 * An allocator linked into the executable is read the same way through
 * the entry points found in the executable's symbols (allocstats.c).
 *
 * A process that does not call the allocator reaches no slow path: under
 * the recorder (TIDEMARK_HEAP_KEEP=tag) the shim starts one thread at
 * start-up that sleeps on the request word (a futex the reader wakes) and
 * answers at once; it blocks every signal and allocates nothing itself.
 */
#include <dlfcn.h>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "allocstats.h"
#include "shim.h"

static int kind; /* enum tmh_allocator */
static struct mallinfo2 (*glibc_info)(void);
static struct tmh_allocstats as; /* the other allocators' entry points */
/* An allocator linked into the executable beside the shared malloc (Rust's
 * tikv-jemallocator: _rjem_malloc for Rust, malloc for C): its entry
 * points, 1 when it has one */
static struct tmh_allocstats beside;
static int beside_ok;
static int answer_lock;

/* FN is defined in the object that defines the real malloc. */
static int same_object(void *fn)
{
	Dl_info a, b;
	return fn && dladdr(fn, &a) && dladdr((void *)tmh_real.malloc, &b) &&
	       a.dli_fbase == b.dli_fbase;
}

/* The program's malloc is the executable's own (a static allocator): the
 * shim sees none of its calls; its allocator's entry points come from the
 * executable's symbols (allocstats.c), and the region says so. */
struct tmh_exe_info tmh_exe;

void tmh_stats_detect(void)
{
	struct tmh_allocstats x;
	int in = tmh_allocstats_in_exe("malloc", dlsym(RTLD_DEFAULT, "malloc"));
	int k = tmh_allocstats_find_exe(&x);
	if (!in && !k)
		return;
	tmh_exe.exe_allocator = (uint32_t)k;
	tmh_exe.exe_stats = x.mallctl || x.tc_prop || x.mi_info;
	tmh_exe.malloc_in_exe = in ? 1u : 2u;
	if (in) {
		as = x;
		kind = k;
	} else { /* the shared malloc is counted as usual; this one is added */
		beside = x;
		beside_ok = (int)tmh_exe.exe_stats;
	}
}

/* A shared library's allocator: the entry point next to the real malloc. */
static void init_lib(void)
{
	void *fn = dlsym(TMH_NEXT, "mallctl");
	if (same_object(fn)) {
		as.mallctl = (tmh_mallctl_fn)fn;
		kind = TMH_ALLOC_JEMALLOC;
		return;
	}
	fn = dlsym(TMH_NEXT, "MallocExtension_GetNumericProperty");
	if (same_object(fn)) {
		as.tc_prop = (int (*)(const char *, size_t *))fn;
		kind = TMH_ALLOC_TCMALLOC;
		return;
	}
	fn = dlsym(TMH_NEXT, "mi_process_info");
	if (same_object(fn)) {
		as.mi_info = (void (*)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *,
		                       size_t *, size_t *))fn;
		kind = TMH_ALLOC_MIMALLOC;
	}
}

void tmh_stats_init(void)
{
	if (tmh_exe.malloc_in_exe == 1)
		return;
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (libc) {
		if (dlsym(libc, "malloc") == (void *)tmh_real.malloc) {
			glibc_info = (struct mallinfo2(*)(void))dlsym(libc, "mallinfo2");
			kind = glibc_info ? TMH_ALLOC_GLIBC : TMH_ALLOC_UNKNOWN;
		}
		dlclose(libc);
	}
	if (kind)
		return;
	init_lib();
	as.kind = kind;
}

/* What the allocator holds from the system, what it has handed out and its
 * active pages (-1: it does not say). */
static void allocator_figures(int64_t *total, int64_t *inuse, int64_t *active)
{
	*total = *inuse = *active = -1;
	if (kind == TMH_ALLOC_GLIBC) {
		struct mallinfo2 m = glibc_info();
		*total = (int64_t)(m.arena + m.hblkhd);
		*inuse = (int64_t)(m.uordblks + m.hblkhd);
		return;
	}
	struct tmh_allocfig f;
	if (tmh_allocstats_read(&as, &f) < 0)
		return;
	*total = f.resident_bytes;
	*inuse = f.allocated_bytes;
	*active = f.active_bytes;
	/* the shim's own figure (under the shim): held from the system, or not at all */
	if (!as.in_exe && kind == TMH_ALLOC_TCMALLOC && f.resident_bytes < 0)
		*inuse = -1;
}

/* With an allocator beside the shared malloc: its figures added to those of
 * the shared one (TOTAL, INUSE), whose handed-out part is the shim's exact
 * LIVE; ACTIVE is its own.  Each -1 when either part is unknown. */
static void add_beside(int64_t *total, int64_t *inuse, int64_t *active, int64_t live)
{
	struct tmh_allocfig f = {-1, -1, -1};
	if (beside_ok)
		tmh_allocstats_read(&beside, &f);
	*inuse = f.allocated_bytes >= 0 ? live + f.allocated_bytes : -1;
	*total = *total >= 0 && f.resident_bytes >= 0 ? *total + f.resident_bytes : -1;
	*active = f.active_bytes;
}

int64_t tmh_stats_inuse(void)
{
	int64_t total, inuse, active;
	allocator_figures(&total, &inuse, &active);
	return inuse;
}

/* The process's live bytes and allocations + frees, summed like a reader
 * does (under the fold seqlock). */
void tmh_own_totals(int64_t *live, int64_t *ops)
{
	const struct tmh_region *r = tmh_region;
	for (;;) {
		uint64_t seq = __atomic_load_n(&r->fold_seq, __ATOMIC_ACQUIRE);
		int64_t l = 0, o = 0;
		for (int i = -2; i < TMH_SLOTS; i++) {
			const struct tmh_slot *s = i == -2   ? &r->retired
			                           : i == -1 ? &r->shared
			                                     : &r->slots[i];
			l += TMH_LD(s->alloc_bytes) - TMH_LD(s->freed_bytes);
			o += TMH_LD(s->frees);
			for (int c = 0; c < TMH_CLASSES; c++)
				o += TMH_LD(s->hist[c]);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&r->fold_seq, __ATOMIC_RELAXED) == seq) {
			*live = l;
			*ops = o;
			return;
		}
		sched_yield();
	}
}

static int64_t now_nsec(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * A reading can be slow: glibc's mallinfo2 walks every free chunk under
 * each arena's lock (150 ms with 500 000 of them, bench/heap/README.md), and
 * the program's threads wait on that lock meanwhile.  So after a reading
 * that took T the next one waits at least 100 T, and a request that comes
 * sooner is answered later (its sample then has no allocator-held figure).
 * T is the least of the last 4 readings' times: a reading also takes long
 * when its thread is preempted (a loaded machine, a vCPU under emulation),
 * and one preempted reading put 100 times its stall off the answers, so
 * that a program that went quiet had no current answer for seconds.  The
 * price: when the heap grows so that its readings become slower, up to 3
 * more readings come at the old pace before the put-off catches up; from
 * then on readings take at most 1 % of the time.  FORCE: at start-up, in a
 * forked child and at exit; such a reading (a first call's cost) puts off
 * no request.
 */
#define TOOK_KEPT 4
static int64_t next_ok_nsec, took_nsec[TOOK_KEPT];
static unsigned took_n;

/* 100 times the least of the last TOOK_KEPT readings' times, with TOOK. */
static int64_t put_off_nsec(int64_t took)
{
	took_nsec[took_n++ % TOOK_KEPT] = took;
	int64_t least = took;
	for (unsigned i = 0; i < TOOK_KEPT && i < took_n; i++)
		if (took_nsec[i] < least)
			least = took_nsec[i];
	return 100 * least;
}

void tmh_stats_answer(int force)
{
	struct tmh_region *r = tmh_region;
	if (!TMH_COUNTING || !r || __atomic_exchange_n(&answer_lock, 1, __ATOMIC_ACQUIRE))
		return;
	if (!force && now_nsec(CLOCK_MONOTONIC) < next_ok_nsec) {
		__atomic_store_n(&answer_lock, 0, __ATOMIC_RELEASE);
		return;
	}
	int busy = tmh_tls_busy;
	struct tmh_slot *slot = tmh_tls_slot;
	tmh_tls_busy = 1; /* whatever the allocator's statistics allocate is not counted here */
	tmh_tls_slot = NULL;
	uint64_t req = TMH_LD(r->stats_req);
	int64_t t0 = now_nsec(CLOCK_MONOTONIC), total, inuse, active, live, ops;
	tmh_usable_retry();
	allocator_figures(&total, &inuse, &active);
	tmh_own_totals(&live, &ops);
	if (tmh_exe.malloc_in_exe == 2)
		add_beside(&total, &inuse, &active, live);
	int64_t t1 = now_nsec(CLOCK_MONOTONIC), took = t1 - t0;
	if (!force)
		next_ok_nsec = t1 + put_off_nsec(took);
	TMH_ADD(r->stats_seq, 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	TMH_ST(r->stats_allocator, (uint32_t)kind);
	TMH_ST(r->stats_wall_usec, now_nsec(CLOCK_REALTIME) / 1000);
	TMH_ST(r->stats_ops, ops);
	TMH_ST(r->stats_live_bytes, live);
	TMH_ST(r->stats_total_bytes, total);
	TMH_ST(r->stats_inuse_bytes, inuse);
	TMH_ST(r->stats_active_bytes, active);
	TMH_ST(r->stats_nsec, took);
	TMH_ST(r->stats_ans, req);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	TMH_ADD(r->stats_seq, 1);
	tmh_tls_slot = slot;
	tmh_tls_busy = busy;
	__atomic_store_n(&answer_lock, 0, __ATOMIC_RELEASE);
}

/* The answering thread: sleeps until the request word changes (or a second
 * passes: the region may have been replaced by an exec'd image's). */
static void *answer_thread(void *unused)
{
	(void)unused;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	prctl(PR_SET_NAME, "tidemark-heap", 0, 0, 0);
	for (;;) {
		struct tmh_region *r = tmh_region;
		uint32_t req = (uint32_t)TMH_LD(r->stats_req);
		if (TMH_LD(r->stats_req) != TMH_LD(r->stats_ans))
			tmh_stats_answer(0);
		/* a second at most: the region may have been replaced (exec), or a
		 * request put off by the 1 % rule is due */
		struct timespec second = {1, 0};
		if (TMH_LD(r->stats_req) != TMH_LD(r->stats_ans))
			second = (struct timespec){0, 10 * 1000 * 1000};
		syscall(SYS_futex, (uint32_t *)&r->stats_req, FUTEX_WAIT, req, &second, NULL, 0);
	}
	return NULL;
}

void tmh_stats_thread_start(void)
{
	pthread_attr_t a;
	pthread_t t;
	if (!TMH_COUNTING || pthread_attr_init(&a) != 0)
		return;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (pthread_create(&t, &a, answer_thread, NULL) != 0)
		tmh_warn("no thread to answer statistics requests: answers on the slow path only");
	pthread_attr_destroy(&a);
}
