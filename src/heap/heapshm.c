/* The recorder's side: sum the shim counters of a process tree. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/heapenv.h"
#include "heap/heapprof.h"
#include "heap/heapregion.h"
#include "heap/heapshm.h"
#include "heap/heaptree.h"
#include "base/banned.h"

struct mapped {
	pid_t pid;
	const struct tmh_region *r;
	int seen;
	int writable;   /* may publish peaks and ask for the allocator's statistics */
	uint64_t asked; /* the statistics request posted at the previous sample */
	/* with profiles: the next one, how many so far, the last look at the
	 * process's memory map (for the final profile of one that gets killed) */
	int64_t next_usec;
	int nprofiles;
	char *maps;
	size_t maps_len;
	int64_t maps_usec;
	/* the counters last read (what it leaves with when its final ones
	 * cannot be read), and whether any were */
	struct tm_heap_counters last;
	int have_last;
	int marked;          /* tm_heap_reader_mark read it just before this sample */
	int64_t before_live; /* the live bytes it read then */
};

/* A process whose final counters are in a sample already. */
struct finished {
	pid_t pid;
	int64_t start_wall_usec;
};

struct tm_heap_reader {
	struct mapped *m;
	size_t n, cap;
	struct tm_heap_profiles prof; /* prefix NULL: none */
	uint64_t tag;                 /* TIDEMARK_HEAP_KEEP of our children */
	struct finished *done;
	size_t ndone, capdone;
	struct tm_heap_tree tree; /* what processes that left contributed */
	int counting;             /* a region with exact counters was read */
};

/* How often a live process's memory map is read again for profiles: new
 * libraries are rare after start-up, and a read costs tens of µs. */
#define MAPS_REFRESH_USEC (10 * 1000000LL)

/* PID is gone, or a zombie: it will run no more. */
static int gone(pid_t pid)
{
	char path[64], *stat;
	size_t len;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(stat = tm_read_file(path, &len)))
		return 1;
	const char *paren = memrchr(stat, ')', len);
	int dead = paren && paren + 2 < stat + len && (paren[2] == 'Z' || paren[2] == 'X');
	free(stat);
	return dead;
}

/* PID runs no code any more, so its region can change no more: reaped, or
 * a zombie whose other threads have all exited too (a leader that called
 * pthread_exit is a zombie while they run; a thread that exits leaves
 * /proc/PID/task at once). */
static bool runs_no_more(pid_t pid)
{
	char path[64];
	struct dirent *d;
	int threads = 0;

	if (!gone(pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *dir = opendir(path);
	if (!dir)
		return true;
	while ((d = readdir(dir)) && threads < 2)
		threads += d->d_name[0] != '.';
	closedir(dir);
	return threads <= 1;
}

/* Writes E's profile at PATH; KIND for on_write (0 periodic, 1 final,
 * 2 at a kill); quiet when the process does not sample (nothing to write). */
static void write_at(struct tm_heap_reader *rd, struct mapped *e, const char *path, int kind)
{
	if (__atomic_load_n(&e->r->sample_mean_bytes, __ATOMIC_RELAXED) <= 0)
		return;
	struct tm_heap_snapshot snap;
	bool ended = kind != 0 && runs_no_more(e->pid);
	if (tm_heap_snapshot_region(e->r, e->pid, e->maps, e->maps_len, ended, &snap) < 0) {
		tm_warn("no heap profile of pid %d (see above)", (int)e->pid);
		return;
	}
	if (snap.torn)
		tm_warn("pid %d was killed while it updated a sampled site: one site of its "
		        "profile may be a sample off",
		        (int)e->pid);
	if (snap.nsites == 0) { /* a small helper process that never got sampled */
		tm_heap_snapshot_release(&snap);
		return;
	}
	int rc = tm_heap_write_pprof(&snap, path);
	if (rc == 0 && rd->prof.on_write)
		rd->prof.on_write(rd->prof.ctx, e->pid, path, kind, snap.unwinder);
	tm_heap_snapshot_release(&snap);
}

/* Writes PREFIX.PID.SEQ.pb.gz (SEQ 0: PREFIX.PID.final.pb.gz) from E's
 * region. */
static void write_profile(struct tm_heap_reader *rd, struct mapped *e, int seq)
{
	char path[4096];
	int n =
	    seq ? snprintf(path, sizeof(path), "%s.%d.%d.pb.gz", rd->prof.prefix, (int)e->pid, seq)
	        : snprintf(path, sizeof(path), "%s.%d.final.pb.gz", rd->prof.prefix, (int)e->pid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		tm_warn("heap profile path too long for prefix '%s'", rd->prof.prefix);
		return;
	}
	write_at(rd, e, path, seq == 0);
}

/* E's last profile as it leaves: at the path ON_KILLED gives when it was
 * killed (it never ran its exit), else PREFIX's final one. */
static void write_final(struct tm_heap_reader *rd, struct mapped *e)
{
	char path[4096];
	int state = (int)__atomic_load_n(&e->r->state, __ATOMIC_ACQUIRE);

	if (rd->prof.on_killed && state != TMH_EXITED && gone(e->pid) &&
	    rd->prof.on_killed(rd->prof.ctx, e->pid, path, sizeof(path)) == 1) {
		write_at(rd, e, path, 2);
		return;
	}
	if (rd->prof.prefix)
		write_profile(rd, e, 0);
}

static void refresh_maps(struct mapped *e, int64_t now)
{
	if (e->maps && now - e->maps_usec < MAPS_REFRESH_USEC)
		return;
	char path[64];
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)e->pid);
	char *m = tm_read_file(path, &len);
	if (!m || len == 0) { /* gone, a zombie, or not ours to read: keep the last one */
		free(m);
		return;
	}
	free(e->maps);
	e->maps = m;
	e->maps_len = len;
	e->maps_usec = now;
}

static void profile_tick(struct tm_heap_reader *rd, struct mapped *e)
{
	int64_t now = tm_now_mono_usec();
	refresh_maps(e, now);
	if (rd->prof.every_usec <= 0)
		return;
	if (e->next_usec == 0)
		e->next_usec = now + rd->prof.every_usec;
	if (now < e->next_usec)
		return;
	write_profile(rd, e, ++e->nprofiles);
	e->next_usec = now + rd->prof.every_usec;
}

void tm_heap_reader_set_profiles(struct tm_heap_reader *rd, const struct tm_heap_profiles *p)
{
	rd->prof = *p;
}

uint64_t tm_heap_keep_tag(void)
{
	/* this process's pid and start time (field 22 of /proc/self/stat):
	 * unique while it lives, and the same in every call */
	unsigned long long start = 0;
	size_t len;
	char *st = tm_read_file("/proc/self/stat", &len);
	const char *p = st ? strrchr(st, ')') : NULL;
	for (int field = 2; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (p)
		start = strtoull(p, NULL, 10);
	free(st);
	return ((uint64_t)getpid() << 32 | (start & 0xffffffffu)) | 2; /* never 0 or 1 */
}

struct tm_heap_reader *tm_heap_reader_new(void)
{
	struct tm_heap_reader *r = calloc(1, sizeof(struct tm_heap_reader));
	if (r)
		r->tag = tm_heap_keep_tag();
	return r;
}

static int is_done(const struct tm_heap_reader *rd, pid_t pid, int64_t start)
{
	for (size_t i = 0; i < rd->ndone; i++)
		if (rd->done[i].pid == pid && rd->done[i].start_wall_usec == start)
			return 1;
	return 0;
}

static void mark_done(struct tm_heap_reader *rd, pid_t pid, int64_t start)
{
	if (rd->ndone == rd->capdone) {
		size_t cap = rd->capdone ? rd->capdone * 2 : 16;
		struct finished *d = realloc(rd->done, cap * sizeof(*d));
		if (!d)
			return; /* at worst, counted again by a later scan: none is */
		rd->done = d;
		rd->capdone = cap;
	}
	rd->done[rd->ndone++] = (struct finished){pid, start};
}

/* One sample's processes alive in it: their live bytes, own counts and
 * spans, and what their allocators hold, summed (held known only when
 * every counting process had a current answer). */
struct alive_sum {
	int64_t live_bytes;
	struct tm_heap_counts counts;
	struct tm_heap_span *spans;
	size_t nspans, cap;
	int64_t held_bytes;
	int held_missing;
	int64_t procs;
	int64_t now_usec;
	int64_t skew_bytes; /* how far the live bytes moved since tm_heap_reader_mark */
	int any_marked;
	/* processes whose malloc is the executable's own, those of them whose
	 * allocator gave no allocated figure, and how long this sample may
	 * still wait for their answers */
	int64_t exe_procs;
	int live_missing;
	int64_t exe_wait_usec;
	/* processes still listed whose region says they exited: mid-exit, the
	 * kernel still tearing down what anon counts of them */
	int exiting;
};

/* What C's process did itself: its counts without those its region started
 * from as a fork child. */
static struct tm_heap_counts own_counts(const struct tm_heap_counters *c)
{
	return (struct tm_heap_counts){c->alloc_bytes - c->fork_alloc_bytes,
	                               c->allocs - c->fork_allocs, c->frees - c->fork_frees};
}

/* The span of C's process: from its start to its exit, or to END_USEC. */
static struct tm_heap_span span_of(const struct tm_heap_counters *c, int64_t end_usec)
{
	int64_t end = c->exit_wall_usec > 0 ? c->exit_wall_usec : end_usec;
	return (struct tm_heap_span){c->start_wall_usec, end, c->peak_bytes};
}

/* A process that left the tree: its final counters C (its span ending at
 * its exit, else at END_USEC) into the reader's tree, once. */
static void leave(struct tm_heap_reader *rd, const struct tm_heap_counters *c, int64_t end_usec)
{
	if (c->sites_only || c->malloc_in_exe)
		return;
	struct tm_heap_span sp = span_of(c, end_usec);
	struct tm_heap_counts own = own_counts(c);
	rd->counting = 1;
	tm_heap_tree_leave(&rd->tree, &sp, &own);
}

/* How long one sample waits, in all, for the answers of processes whose
 * malloc is the executable's own (their allocator's figures are read when
 * asked: the answering thread wakes at once and a reading takes µs). */
#define EXE_WAIT_USEC (50 * 1000)

/* E's process runs an allocator linked into its executable (C): its live
 * heap and what the allocator holds beyond it from the allocator's own
 * statistics, asked for now and waited for (within A's budget); missing
 * when it has no statistics entry point, gives no allocated figure, or
 * does not answer in time. */
static void add_exe(struct mapped *e, const struct tm_heap_counters *c, struct alive_sum *a)
{
	a->exe_procs++;
	if (c->state == TMH_EXITED) {
		a->exiting++; /* mid-exit: no figure of this sample describes its anon */
		return;
	}
	int64_t allocated = -1, held = -1;
	if (e->writable && c->exe_stats) {
		uint64_t req = tm_heap_region_ask_stats(e->r);
		while (tm_heap_region_exe_figures(e->r, req, &allocated, &held) < 0 &&
		       a->exe_wait_usec > 0) {
			usleep(500);
			a->exe_wait_usec -= 500;
		}
	}
	if (allocated < 0)
		a->live_missing++;
	else
		a->live_bytes += allocated;
	if (held < 0)
		a->held_missing++;
	else
		a->held_bytes += held;
}

/* Reads the counters of E's process, alive in this sample, into A: 0, or
 * -1 when they could not be read.  A writable mapping publishes the live
 * bytes into the peak and posts the next statistics request. */
static int add_alive(struct tm_heap_reader *rd, struct mapped *e, struct alive_sum *a)
{
	struct tm_heap_counters c;
	if (tm_heap_region_counters(e->r, &c) < 0)
		return -1;
	a->procs++;
	if (c.sites_only)
		return 0; /* no exact counters: the series stay absent */
	if (c.malloc_in_exe) {
		add_exe(e, &c, a);
		return 0;
	}
	rd->counting = 1;
	e->last = c;
	e->have_last = 1;
	int64_t held;
	if (c.state == TMH_EXITED) {
		a->exiting++; /* exited, still listed: the sample's split is withheld */
	} else if (tm_heap_region_held(e->r, &c, e->asked, &held) == 0) {
		a->held_bytes += held;
	} else {
		a->held_missing++;
	}
	if (e->writable) {
		tm_heap_region_publish_peak(e->r, c.live_bytes);
		e->asked = tm_heap_region_ask_stats(e->r);
	}
	int64_t live = c.state != TMH_EXITED ? c.live_bytes : 0;
	a->live_bytes += live;
	if (e->marked) {
		a->skew_bytes +=
		    live > e->before_live ? live - e->before_live : e->before_live - live;
		a->any_marked = 1;
		e->marked = 0;
	}
	struct tm_heap_counts own = own_counts(&c);
	a->counts.alloc_bytes += own.alloc_bytes;
	a->counts.allocs += own.allocs;
	a->counts.frees += own.frees;
	if (tm_grow(&a->spans, &a->cap, a->nspans, sizeof(*a->spans), 16) == 0)
		a->spans[a->nspans++] = span_of(&c, a->now_usec);
	return 0;
}

/* Unlinks PID's region file (mappings of it stay valid). */
static void remove_region(pid_t pid)
{
	tm_heap_region_unlink(pid);
}

/* E's final counters (or the last read when they cannot be) into the
 * tree, as a process that left at its exit or by END_USEC. */
static void leave_entry(struct tm_heap_reader *rd, struct mapped *e, int64_t end_usec)
{
	struct tm_heap_counters c;
	if (tm_heap_region_counters(e->r, &c) == 0)
		leave(rd, &c, end_usec);
	else if (e->have_last)
		leave(rd, &e->last, end_usec);
	else
		return;
	mark_done(rd, e->pid, e->r->start_wall_usec);
}

/* Drops entry I; unlinks the region when its process is gone.  With
 * END_USEC > 0, its final counters go into the tree first (what it did
 * since the last sample). */
static void drop(struct tm_heap_reader *rd, size_t i, int64_t end_usec)
{
	struct mapped *e = &rd->m[i];
	if (end_usec > 0)
		leave_entry(rd, e, end_usec);
	write_final(rd, e);
	free(e->maps);
	int state = (int)__atomic_load_n(&e->r->state, __ATOMIC_ACQUIRE);
	if (state == TMH_EXITED && kill(e->pid, 0) < 0 && errno == ESRCH)
		remove_region(e->pid);
	tm_heap_region_unmap(e->r);
	rd->m[i] = rd->m[--rd->n];
}

static void forget_kept(struct tm_heap_reader *rd);

void tm_heap_reader_free(struct tm_heap_reader *rd)
{
	if (!rd)
		return;
	/* the run is over: a region that says its process exited is final even
	 * while the process is a zombie not yet reaped, and must not be found
	 * by the next reader of this process (the next run of a bench) */
	for (size_t i = 0; i < rd->n; i++)
		if (__atomic_load_n(&rd->m[i].r->state, __ATOMIC_ACQUIRE) == TMH_EXITED)
			remove_region(rd->m[i].pid);
	while (rd->n)
		drop(rd, rd->n - 1, 0);
	forget_kept(rd);
	free(rd->m);
	free(rd->done);
	tm_heap_tree_release(&rd->tree);
	free(rd);
}

static struct mapped *find_or_map(struct tm_heap_reader *rd, pid_t pid)
{
	for (size_t i = 0; i < rd->n; i++) {
		if (rd->m[i].pid != pid)
			continue;
		if (__atomic_load_n(&rd->m[i].r->state, __ATOMIC_ACQUIRE) != TMH_SUPERSEDED)
			return &rd->m[i];
		/* it exec'd: the old image left (what it did counts), map the new one's */
		leave_entry(rd, &rd->m[i], tm_now_wall_usec());
		tm_heap_region_unmap(rd->m[i].r);
		free(rd->m[i].maps);
		rd->m[i] = rd->m[--rd->n];
		break;
	}
	int writable = 0;
	const struct tmh_region *r = tm_heap_region_map_rw(pid, &writable);
	if (!r)
		return NULL;
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 16;
		struct mapped *m = realloc(rd->m, cap * sizeof(*m));
		if (!m) {
			tm_heap_region_unmap(r);
			return NULL;
		}
		rd->m = m;
		rd->cap = cap;
	}
	rd->m[rd->n] = (struct mapped){.pid = pid, .r = r, .writable = writable};
	return &rd->m[rd->n++];
}

/* The pid of a heap region's file name in its directory (decimal digits),
 * 0 when NAME is not one. */
static pid_t region_pid(const char *name)
{
	char *end;

	if (name[0] < '1' || name[0] > '9')
		return 0;
	errno = 0;
	long pid = strtol(name, &end, 10);
	return *end || errno || pid <= 0 || pid > INT_MAX ? 0 : (pid_t)pid;
}

/* What each_kept() does with a region once FN has taken it. */
enum kept_action { KEPT_LEAVE, KEPT_REMOVE };

/* Calls FN(RD, PID, R, ARG) for each region in DIR that our children kept
 * (TIDEMARK_HEAP_KEEP=tag) of a process that exited or died, skipping the
 * processes RD lists when SKIP_LISTED.  FN's KEPT_REMOVE unlinks the
 * region's file; EXITED_AND_GONE tells FN whether the process both said it
 * exited and is gone (no later write can come). */
static void each_kept_in(struct tm_heap_reader *rd, int dir, bool skip_listed,
                         enum kept_action (*fn)(struct tm_heap_reader *rd, pid_t pid,
                                                const struct tmh_region *r, bool exited_and_gone,
                                                void *arg),
                         void *arg)
{
	DIR *d = fdopendir(dir);
	struct dirent *de;
	if (!d) {
		close(dir);
		return;
	}
	while ((de = readdir(d))) {
		pid_t pid = region_pid(de->d_name);
		if (pid == 0)
			continue;
		int listed = 0;
		for (size_t i = 0; skip_listed && i < rd->n; i++)
			listed |= rd->m[i].pid == pid;
		const struct tmh_region *r = listed ? NULL : tm_heap_region_map(pid);
		if (!r)
			continue;
		int state = (int)__atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		int gone = kill(pid, 0) < 0 && errno == ESRCH;
		if (r->keep_tag == rd->tag && (state == TMH_EXITED || gone) &&
		    fn(rd, pid, r, gone && state == TMH_EXITED, arg) == KEPT_REMOVE)
			remove_region(pid);
		tm_heap_region_unmap(r);
	}
	closedir(d);
}

/* each_kept_in over the directories our children's regions are in:
 * TIDEMARK_HEAP_DIR and the default one of our user's (the same, unless
 * the environment names another). */
static void each_kept(struct tm_heap_reader *rd, bool skip_listed,
                      enum kept_action (*fn)(struct tm_heap_reader *rd, pid_t pid,
                                             const struct tmh_region *r, bool exited_and_gone,
                                             void *arg),
                      void *arg)
{
	char dirs[2][256];
	int n = 0;
	const char *env = getenv(TMH_DIR_ENV);
	if (env && *env)
		snprintf(dirs[n++], sizeof(dirs[0]), "%s", env);
	tm_heap_region_dir_default(dirs[n], sizeof(dirs[0]), geteuid());
	n += n == 0 || strcmp(dirs[0], dirs[1]) != 0;
	for (int i = 0; i < n; i++) {
		int dir = tm_heap_region_dir_open(dirs[i], geteuid());
		if (dir >= 0)
			each_kept_in(rd, dir, skip_listed, fn, arg);
	}
}

/* A kept region of a process never listed (it lived between two samples):
 * its final counters into the sample, once; removed once nothing more can
 * be written to it. */
static enum kept_action add_unlisted(struct tm_heap_reader *rd, pid_t pid,
                                     const struct tmh_region *r, bool exited_and_gone, void *arg)
{
	const int64_t *now_usec = arg;
	struct tm_heap_counters c;
	if (is_done(rd, pid, r->start_wall_usec) || tm_heap_region_counters(r, &c) != 0)
		return KEPT_LEAVE;
	leave(rd, &c, *now_usec);
	mark_done(rd, pid, r->start_wall_usec);
	/* one that ran its exit saved its memory map in the region: its final
	 * profile, as a listed one's (one killed before a look has no map) */
	if (rd->prof.prefix && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == TMH_EXITED) {
		struct mapped e = {.pid = pid, .r = r};
		write_profile(rd, &e, 0);
	}
	return exited_and_gone ? KEPT_REMOVE : KEPT_LEAVE;
}

/* Regions our children kept of processes that exited or died without ever
 * being listed: their final counters into the tree, once (one that died
 * without exiting counts as alive until NOW_USEC). */
static void scan_unlisted(struct tm_heap_reader *rd, int64_t now_usec)
{
	each_kept(rd, true, add_unlisted, &now_usec);
}

static enum kept_action remove_kept(struct tm_heap_reader *rd, pid_t pid,
                                    const struct tmh_region *r, bool exited_and_gone, void *arg)
{
	(void)rd, (void)pid, (void)r, (void)exited_and_gone, (void)arg;
	return KEPT_REMOVE;
}

/* At the end of a run: removes the regions our children kept of processes
 * that exited (or died), so that no later reader of this process takes
 * them for its own run's. */
static void forget_kept(struct tm_heap_reader *rd)
{
	each_kept(rd, false, remove_kept, NULL);
}

/* The tree's figures of one sample into S (none before any process with
 * exact counters was read). */
static void put_figures(struct tm_heap_reader *rd, const struct alive_sum *a, struct tm_sample *s)
{
	struct tm_heap_counts total;
	int64_t upper, proven;
	tm_sample_set(s, TM_M_HEAP_PROCS, a->procs);
	if (a->exe_procs) {
		/* the allocators' own figures at this moment: no peak between
		 * samples, no counts of calls */
		tm_sample_set(s, TM_M_HEAP_EXE_PROCS, a->exe_procs);
		if (a->exiting)
			return;
		if (!a->live_missing)
			tm_sample_set(s, TM_M_HEAP_LIVE_BYTES, a->live_bytes);
		if (!a->held_missing)
			tm_sample_set(s, TM_M_HEAP_HELD_BYTES, a->held_bytes);
		return;
	}
	if (!rd->counting)
		return;
	tm_heap_tree_figures(&rd->tree, a->spans, a->nspans, a->live_bytes, &a->counts, &total,
	                     &upper, &proven);
	tm_sample_set(s, TM_M_HEAP_PEAK_BYTES, upper);
	tm_sample_set(s, TM_M_HEAP_PEAK_PROVEN_BYTES, proven);
	tm_sample_set(s, TM_M_HEAP_ALLOC_BYTES, total.alloc_bytes);
	tm_sample_set(s, TM_M_HEAP_ALLOCS, total.allocs);
	tm_sample_set(s, TM_M_HEAP_FREES, total.frees);
	/* a process mid-exit (its exit handlers done, the kernel still
	 * unmapping it): its anon is not yet gone and its heap is, so the
	 * sample gives no live or held figure to split anon by */
	if (a->exiting)
		return;
	tm_sample_set(s, TM_M_HEAP_LIVE_BYTES, a->live_bytes);
	if (!a->held_missing)
		tm_sample_set(s, TM_M_HEAP_HELD_BYTES, a->held_bytes);
	if (a->any_marked)
		tm_sample_set(s, TM_M_HEAP_READ_SKEW_BYTES, a->skew_bytes);
}

void tm_heap_reader_mark(struct tm_heap_reader *rd)
{
	for (size_t i = 0; i < rd->n; i++) {
		struct mapped *e = &rd->m[i];
		struct tm_heap_counters c;
		e->marked =
		    tm_heap_region_counters(e->r, &c) == 0 && !c.sites_only && !c.malloc_in_exe;
		e->before_live = c.state != TMH_EXITED ? c.live_bytes : 0;
	}
}

int tm_heap_reader_sample(struct tm_heap_reader *rd, const pid_t *pids, size_t npids,
                          struct tm_sample *s)
{
	struct alive_sum a = {.now_usec = tm_now_wall_usec(), .exe_wait_usec = EXE_WAIT_USEC};
	int any = 0;
	for (size_t i = 0; i < rd->n; i++)
		rd->m[i].seen = 0;
	for (size_t i = 0; i < npids; i++) {
		struct mapped *e = find_or_map(rd, pids[i]);
		if (!e || e->seen)
			continue;
		e->seen = 1;
		any |= add_alive(rd, e, &a) == 0;
		/* after the counters: a read of its maps must not come between
		 * tm_heap_reader_mark's reading and this one */
		if (rd->prof.prefix || rd->prof.on_killed)
			profile_tick(rd, e);
	}
	for (size_t i = rd->n; i-- > 0;) {
		if (rd->m[i].seen)
			continue;
		if (rd->m[i].marked) { /* its heap left after the mark: anon may still hold it */
			a.skew_bytes += rd->m[i].before_live;
			a.any_marked = 1;
		}
		drop(rd, i, a.now_usec); /* gone from the list: its last counters, once */
	}
	scan_unlisted(rd, a.now_usec);
	if (any || rd->counting || a.exe_procs)
		put_figures(rd, &a, s);
	free(a.spans);
	return 0;
}

int tm_heap_shim_path(char *buf, size_t size, int sites)
{
	if (sites)
		return tm_lib_path("libtidemark-heap-sites.so", "TIDEMARK_HEAP_SITES_LIB", buf,
		                   size);
	return tm_lib_path("libtidemark-heap.so", "TIDEMARK_HEAP_LIB", buf, size);
}

int tm_heap_preload_value(char *buf, size_t size, const char *old, int sites)
{
	char shim[4096];
	if (tm_heap_shim_path(shim, sizeof(shim), sites) < 0)
		return -1;
	int n = snprintf(buf, size, "%s%s%s", shim, old && *old ? " " : "", old ? old : "");
	if (n < 0 || (size_t)n >= size)
		return tm_error("LD_PRELOAD for the heap shim is too long");
	return 0;
}
