/*
 * The usable size of a block, cheaply: glibc's chunk header, jemalloc's and
 * gperftools' size classes (nallocx, a table for small requests), jemalloc's
 * per-thread freed-bytes counter; each shortcut is checked at start-up
 * against the allocator's own malloc_usable_size and used only if they agree.
 */
#include <dlfcn.h>
#include <stdint.h>

#include "arch.h"
#include "shim.h"

int tmh_glibc_usable;
/* jemalloc: sallocx(p, 0) reads the size class from its radix tree only;
 * its malloc_usable_size also validates the extent (another cache line, a
 * remote one for a block of another thread).  Set when it agrees. */
size_t (*tmh_sallocx)(const void *, int);

/* jemalloc (and gperftools) say the usable size of malloc(N) without a
 * lookup: nallocx(N, 0), computed from the size class.  Used on the
 * allocation side only, when it agrees with malloc_usable_size (checked).
 * For small requests its answers are kept in a table (class boundaries are
 * multiples of 8, checked for every size): a load instead of a call. */
size_t (*tmh_nallocx)(size_t, int);
uint32_t tmh_class_table[TMH_TABLE_MAX / 8 + 1]; /* by (n + 7) / 8 */
int tmh_class_table_ok;

static void fill_class_table(void)
{
	for (size_t n = 0; n <= TMH_TABLE_MAX; n++) {
		size_t u = tmh_nallocx(n ? n : 1, 0);
		if (n % 8 == 1 || n == 0) /* the first size of its step */
			tmh_class_table[(n + 7) / 8] = (uint32_t)u;
		else if (tmh_class_table[(n + 7) / 8] != u)
			return; /* a boundary inside an 8-byte step: no table */
	}
	tmh_class_table_ok = 1;
}

/*
 * jemalloc counts, per thread, the usable bytes its frees take back
 * (mallctl "thread.deallocatedp": a pointer into its thread data).  The
 * counter's step across a free is that block's usable size, so the free
 * path needs no lookup in jemalloc's radix tree (sallocx).  Set per thread
 * when the slot is claimed; trusted only while the thread's slot is live,
 * which ends before jemalloc's own thread clean-up (see slot_claim).
 */
tmh_mallctl_fn tmh_je_mallctl;
TMH_TLS const uint64_t *tmh_tls_je_freed;

const uint64_t *tmh_je_thread_freed_counter(void)
{
	const uint64_t *ctr = NULL;
	size_t sz = sizeof(ctr);
	if (!tmh_je_mallctl || tmh_je_mallctl("thread.deallocatedp", &ctr, &sz, NULL, 0) != 0)
		return NULL;
	return ctr;
}

/* The next allocator's extensions, looked up at start-up (dlsym may
 * allocate: not from inside a counted call). */
static size_t (*found_nallocx)(size_t, int);
static size_t (*found_sallocx)(const void *, int);
static tmh_mallctl_fn found_mallctl;

static void find_extensions(void)
{
	found_mallctl = (tmh_mallctl_fn)dlsym(TMH_NEXT, "mallctl");
	size_t (*fn)(size_t, int) = (size_t(*)(size_t, int))dlsym(TMH_NEXT, "nallocx");
	Dl_info a, b;
	if (!fn || !dladdr((void *)fn, &a) || !dladdr((void *)tmh_real.malloc, &b) ||
	    a.dli_fbase != b.dli_fbase)
		return;
	found_nallocx = fn;
	found_sallocx = (size_t(*)(const void *, int))dlsym(TMH_NEXT, "sallocx");
	if (found_sallocx && (!dladdr((void *)found_sallocx, &a) || a.dli_fbase != b.dli_fbase))
		found_sallocx = NULL;
}

/* The counter moves by exactly the usable size of each free (checked). */
static void check_je_counter(void)
{
	tmh_je_mallctl = found_mallctl;
	const uint64_t *ctr = tmh_je_thread_freed_counter();
	for (size_t n = 1; ctr && n < (4u << 20); n = n * 3 + 5) {
		void *x = tmh_real.malloc(n);
		if (!x)
			break;
		uint64_t u = tmh_real.usable_size(x), before = TMH_LD(*ctr);
		tmh_real.free(x);
		if (TMH_LD(*ctr) - before != u)
			ctr = NULL;
	}
	if (!ctr)
		tmh_je_mallctl = NULL;
}

static void check_nallocx(void)
{
	size_t (*fn)(size_t, int) = found_nallocx;
	size_t (*salloc)(const void *, int) = found_sallocx;
	if (!fn)
		return;
	for (size_t n = 0; n < (1u << 16); n = n * 5 / 4 + 1) {
		void *x = tmh_real.malloc(n);
		int same = x && fn(n ? n : 1, 0) == tmh_real.usable_size(x);
		if (x && salloc && salloc(x, 0) != tmh_real.usable_size(x))
			salloc = NULL;
		tmh_real.free(x);
		if (!same)
			return;
	}
	static const size_t big[] = {100000, 1u << 20, (1u << 20) + 1, 3000000};
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		void *x = tmh_real.malloc(big[i]);
		int same = x && fn(big[i], 0) == tmh_real.usable_size(x);
		tmh_real.free(x);
		if (!same)
			return;
	}
	tmh_nallocx = fn;
	tmh_sallocx = salloc;
	fill_class_table();
}

static void check_glibc_usable(void)
{
	if (!tmh_arch_header_readable())
		return;
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!libc)
		return;
	void *libc_malloc = dlsym(libc, "malloc");
	dlclose(libc);
	if (libc_malloc != (void *)tmh_real.malloc)
		return;
	static const size_t sizes[] = {1, 24, 100, 1000, 5000, 200000, 4u << 20};
	int same = 1;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *a = tmh_real.malloc(sizes[i]);
		void *b = tmh_real.memalign(256, sizes[i]);
		if (!a || !b || tmh_glibc_usable_of(a) != tmh_real.usable_size(a) ||
		    tmh_glibc_usable_of(b) != tmh_real.usable_size(b))
			same = 0;
		tmh_real.free(a);
		tmh_real.free(b);
	}
	tmh_glibc_usable = same;
}

/*
 * An allocator that is not initialised yet can say 0 for the usable size of
 * a block it just handed out: tcmalloc does, when the shim starts inside
 * libstdc++'s constructor (its emergency pool), before tcmalloc's own.  Such
 * blocks are listed and counted at 0 bytes; the first allocation that gets a
 * real answer runs the size-class self-checks that were skipped and counts
 * the listed blocks still live at their true size.  A listed block freed
 * before that is uncounted at 0 bytes, as it was counted.
 */
int tmh_usable_pending;
#define TMH_PENDING 1024
static void *pending[TMH_PENDING];
static int npending, pending_lock;

static void pending_lock_take(void)
{
	while (__atomic_exchange_n(&pending_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void pending_lock_drop(void)
{
	__atomic_store_n(&pending_lock, 0, __ATOMIC_RELEASE);
}

void tmh_usable_ready(void)
{
	pending_lock_take();
	if (!__atomic_load_n(&tmh_usable_pending, __ATOMIC_ACQUIRE)) {
		pending_lock_drop();
		return;
	}
	check_nallocx();
	check_je_counter();
	int64_t late = 0;
	for (int i = 0; i < npending; i++)
		late += (int64_t)tmh_real.usable_size(pending[i]);
	npending = 0;
	tmh_count_shared_bytes(late);
	__atomic_store_n(&tmh_usable_pending, 0, __ATOMIC_RELEASE);
	pending_lock_drop();
}

int64_t tmh_usable_pending_new(void *p, size_t n)
{
	size_t u = tmh_real.usable_size(p);
	if (u >= (n ? n : 1)) {
		tmh_usable_ready();
		return (int64_t)u;
	}
	pending_lock_take();
	int listed = tmh_usable_pending && npending < TMH_PENDING;
	if (listed)
		pending[npending++] = p;
	pending_lock_drop();
	if (!listed && tmh_usable_pending)
		tmh_warn("too many blocks before the allocator was ready: counts are not exact");
	return listed ? 0 : (int64_t)u;
}

int64_t tmh_usable_pending_of(void *p)
{
	pending_lock_take();
	for (int i = 0; i < npending; i++) {
		if (pending[i] == p) {
			pending[i] = pending[--npending];
			pending_lock_drop();
			return 0;
		}
	}
	pending_lock_drop();
	return (int64_t)tmh_real.usable_size(p);
}

void tmh_usable_retry(void)
{
	if (!TMH_COUNTING || !__atomic_load_n(&tmh_usable_pending, __ATOMIC_ACQUIRE))
		return;
	void *x = tmh_real.malloc(24);
	size_t u = x ? tmh_real.usable_size(x) : 0;
	tmh_real.free(x);
	if (u >= 24)
		tmh_usable_ready();
}

void tmh_usable_init(void)
{
	check_glibc_usable();
	if (tmh_glibc_usable)
		return;
	find_extensions();
	void *x = tmh_real.malloc(24);
	size_t u = x ? tmh_real.usable_size(x) : 0;
	tmh_real.free(x);
	if (x && u < 24) { /* not initialised yet: check again when it answers */
		__atomic_store_n(&tmh_usable_pending, 1, __ATOMIC_RELEASE);
		return;
	}
	check_nallocx();
	check_je_counter();
}
