/*
 * The attached agent (libtidemark-heap-attach.so: the shim's sources built
 * with TMH_ATTACH, without cxx.c), loaded into a running process by
 * `tidemark heap attach` (src/heap/attach.c) and started by its call of
 * tmh_attach_start().  It counts from then on with the shim's own fast
 * path, reached through the relocation entries got.c rewrites, and samples
 * sites by bytes (the first attach's sample_kib; the unwinder chosen for
 * the executable, libunwind dlopen'ed here, in the attaching thread); the
 * live heap starts from the allocator's own in-use figure.  When the
 * allocator is linked into the executable (no entry to rewrite), it only
 * reads that allocator's own statistics when asked (allocstats.c).  A thread of the
 * agent's answers statistics requests and lets go (puts every entry back,
 * state TMH_DETACHED) when a reader asks (detach_req) or when the watched
 * recorder is gone, within one interval.  The agent is never unloaded: a
 * function pointer the program copied from a rewritten entry stays valid.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "shim.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int attached; /* 1 from a successful start to the detach */
static int watch_fd = -1;
static int32_t watch_pid;
static uint32_t watch_msec;
static int64_t sample_bytes; /* the first attach's sample mean (0: no sites) */

void tmh_attach_options(struct tmh_options *o)
{
	/* sites by bytes as the preloaded shim samples, from the attach on;
	 * the unwinder is the shim's choice for the executable (sample.c);
	 * the program's environment and stderr are not the agent's */
	o->sample_mean_bytes = sample_bytes;
	o->unwinder = 0;
	o->unwinder_env = 0;
	o->quiet = 1;
	o->bad_sample = 0;
	o->keep = 0;
	o->keep_tag = 0;
	o->stats_thread = 0;
}

static int64_t wall_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The watched recorder has ended (its pidfd is readable). */
static int recorder_gone(void)
{
	if (watch_fd < 0)
		return 0;
	struct pollfd p = {.fd = watch_fd, .events = POLLIN};
	return poll(&p, 1, 0) > 0;
}

static void detach_now(struct tmh_region *r)
{
	tmh_got_restore();
	__atomic_store_n(&r->state, TMH_DETACHED, __ATOMIC_RELEASE);
	if (watch_fd >= 0)
		close(watch_fd);
	watch_fd = -1;
	__atomic_store_n(&attached, 0, __ATOMIC_RELEASE);
}

static void *watch_thread(void *unused)
{
	(void)unused;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	prctl(PR_SET_NAME, "tidemark-attach", 0, 0, 0);
	struct tmh_region *r = tmh_region;
	uint32_t me = TMH_LD(r->attach_count);
	while (TMH_LD(r->detach_req) != me && !recorder_gone()) {
		uint32_t req = (uint32_t)TMH_LD(r->stats_req);
		if (TMH_LD(r->stats_req) != TMH_LD(r->stats_ans))
			tmh_stats_answer(0);
		struct timespec t = {watch_msec / 1000, (long)(watch_msec % 1000) * 1000000};
		syscall(SYS_futex, (uint32_t *)&r->stats_req, FUTEX_WAIT, req, &t, NULL, 0);
	}
	detach_now(r);
	return NULL;
}

static int start_thread(void)
{
	pthread_attr_t a;
	pthread_t t;
	if (pthread_attr_init(&a) != 0)
		return -1;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	int rc = pthread_create(&t, &a, watch_thread, NULL);
	pthread_attr_destroy(&a);
	return rc == 0 ? 0 : -1;
}

void tmh_attach_fork_child(void)
{
	tmh_got_restore();
	if (watch_fd >= 0)
		close(watch_fd);
	watch_fd = -1;
	tmh_tls_slot = NULL;
	tmh_tls_left = INT64_MAX; /* a call through a copied pointer: counted nowhere private */
	__atomic_store_n(&attached, 0, __ATOMIC_RELEASE);
}

/* The region's live bytes become BASE (the allocator's in-use figure). */
static void set_base(struct tmh_region *r, int64_t base)
{
	int64_t live, ops;
	tmh_own_totals(&live, &ops);
	int64_t adj = base - live;
	TMH_ADD(r->shared.alloc_bytes, adj);
	TMH_ADD(r->fork_alloc_bytes, adj);
	tmh_peak_update(TMH_ADD(r->flushed_bytes, adj), 0);
	TMH_ST(r->attach_base_bytes, base);
	TMH_ST(r->attach_wall_usec, wall_usec());
}

/* The allocator is linked into the executable (malloc_in_exe 1): its
 * calls reach no relocation entry, so none is rewritten; the thread reads
 * the allocator's own statistics when a reader asks (allocstats.c).  Its
 * "in use" at attach is that allocator's allocated figure (-1 when it has
 * none: mimalloc).  TMH_ATTACH_NO_STATS when no entry point was found. */
static int start_linked(struct tmh_region *r)
{
	if (!tmh_exe.exe_stats)
		return TMH_ATTACH_NO_STATS;
	int64_t base = tmh_stats_inuse();
	TMH_ST(r->attach_base_bytes, base);
	TMH_ST(r->attach_wall_usec, wall_usec());
	return start_thread() ? TMH_ATTACH_NO_THREAD : TMH_ATTACH_OK;
}

/* malloc from a shared library: every loaded object's entries for the
 * allocation functions point at the shim's, from the allocator's in-use
 * figure (BASE); with an allocator linked in beside it (Rust's _rjem_), its
 * figures are added in each answer (stats.c). */
static int start_hooked(struct tmh_region *r, int64_t base)
{
	int64_t objects = 0;
	set_base(r, base);
	int64_t hooks = tmh_got_hook(&objects);
	TMH_ST(r->attach_hooks, hooks);
	TMH_ST(r->attach_objects, objects);
	return hooks == 0 ? TMH_ATTACH_NO_HOOK : start_thread() ? TMH_ATTACH_NO_THREAD : 0;
}

/*
 * Starts counting (struct tmh_attach_args in include/tidemark-heap.h):
 * TMH_ATTACH_OK, or a negative enum tmh_attach_rc with nothing rewritten.
 * Called by tidemark in the thread it stopped; returns within
 * milliseconds (one reading of the allocator's statistics, one walk of
 * the loaded objects).
 */
TMH_API int tmh_attach_start(const struct tmh_attach_args *a)
{
	if (!a || a->size != sizeof(*a) || a->interval_msec < 10 || a->interval_msec > 600000 ||
	    a->recorder_pid < 0)
		return TMH_ATTACH_BAD_ARGS;
	if (__atomic_load_n(&attached, __ATOMIC_ACQUIRE))
		return TMH_ATTACH_ALREADY;
	int fd = a->recorder_pid ? (int)syscall(SYS_pidfd_open, a->recorder_pid, 0) : -1;
	if (a->recorder_pid && fd < 0)
		return TMH_ATTACH_NO_WATCH;
	if (!tmh_region) /* the first attach decides: sampling is set up once */
		sample_bytes = (int64_t)a->sample_kib * 1024;
	if (!tmh_init_attach()) {
		if (fd >= 0)
			close(fd);
		return TMH_ATTACH_NO_MALLOC;
	}
	struct tmh_region *r = tmh_region;
	int busy = tmh_tls_busy;
	tmh_tls_busy = 1;
	int linked = tmh_exe.malloc_in_exe == 1;
	int64_t base = linked ? 0 : tmh_stats_inuse();
	int rc = base < 0 ? TMH_ATTACH_NO_BASE : TMH_ATTACH_OK;
	if (rc == TMH_ATTACH_OK) {
		watch_fd = fd;
		watch_pid = a->recorder_pid;
		watch_msec = a->interval_msec;
		TMH_ST(r->attach_recorder, watch_pid);
		TMH_ST(r->attach_interval_msec, watch_msec);
		__atomic_store_n(&r->state, TMH_RUNNING, __ATOMIC_RELEASE);
		TMH_ADD(r->attach_count, 1);
		rc = linked ? start_linked(r) : start_hooked(r, base);
		if (rc == TMH_ATTACH_OK)
			__atomic_store_n(&attached, 1, __ATOMIC_RELEASE);
		else
			detach_now(r);
	} else if (fd >= 0) {
		close(fd);
	}
	tmh_stats_answer(1);
	tmh_tls_busy = busy;
	return rc;
}
