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
};

/* How often a live process's memory map is read again for profiles: new
 * libraries are rare after start-up, and a read costs tens of µs. */
#define MAPS_REFRESH_USEC (10 * 1000000LL)

/* Writes PREFIX.PID.SEQ.pb.gz (SEQ 0: PREFIX.PID.final.pb.gz) from E's
 * region; quiet when the process does not sample (nothing to write). */
static void write_profile(struct tm_heap_reader *rd, struct mapped *e, int seq)
{
	if (__atomic_load_n(&e->r->sample_mean_bytes, __ATOMIC_RELAXED) <= 0)
		return;
	char path[4096];
	int n =
	    seq ? snprintf(path, sizeof(path), "%s.%d.%d.pb.gz", rd->prof.prefix, (int)e->pid, seq)
	        : snprintf(path, sizeof(path), "%s.%d.final.pb.gz", rd->prof.prefix, (int)e->pid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		tm_warn("heap profile path too long for prefix '%s'", rd->prof.prefix);
		return;
	}
	struct tm_heap_snapshot snap;
	if (tm_heap_snapshot_region(e->r, e->pid, e->maps, e->maps_len, &snap) < 0) {
		tm_warn("no heap profile of pid %d (see above)", (int)e->pid);
		return;
	}
	if (snap.nsites == 0) { /* a small helper process that never got sampled */
		tm_heap_snapshot_release(&snap);
		return;
	}
	int rc = tm_heap_write_pprof(&snap, path);
	tm_heap_snapshot_release(&snap);
	if (rc == 0 && rd->prof.on_write)
		rd->prof.on_write(rd->prof.ctx, e->pid, path, seq == 0);
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

/* What the allocators of one sample's processes hold, summed; known only
 * when every counting process had a current answer. */
struct held_sum {
	int64_t bytes;
	int missing;
};

/* Adds the counters of R to S and its allocator-held bytes to H: 0, or -1
 * when they could not be read.  ASKED (NULL: a final reading) is the
 * request posted at the previous sample; a writable mapping posts the
 * next one. */
static int add_counters(const struct tmh_region *r, int writable, uint64_t *asked,
                        struct tm_sample *s, struct held_sum *h)
{
	struct tm_heap_counters c;
	if (tm_heap_region_counters(r, &c) < 0)
		return -1;
	tm_sample_add(s, TM_M_HEAP_PROCS, 1);
	if (c.sites_only)
		return 0; /* no exact counters: the series stay absent */
	int64_t held;
	if (tm_heap_region_held(r, &c, asked ? *asked : 0, &held) == 0)
		h->bytes += held;
	else
		h->missing++;
	if (writable) {
		tm_heap_region_publish_peak(r, c.live_bytes);
		if (asked)
			*asked = tm_heap_region_ask_stats(r);
	}
	tm_sample_add(s, TM_M_HEAP_LIVE_BYTES, c.live_bytes);
	tm_sample_add(s, TM_M_HEAP_PEAK_BYTES, c.peak_bytes);
	tm_sample_add(s, TM_M_HEAP_ALLOC_BYTES, c.alloc_bytes);
	tm_sample_add(s, TM_M_HEAP_ALLOCS, c.allocs);
	tm_sample_add(s, TM_M_HEAP_FREES, c.frees);
	return 0;
}

/* Unlinks PID's region file in /dev/shm (mappings of it stay valid). */
static void remove_region(pid_t pid)
{
	char path[64];
	tm_heap_region_path(path, sizeof(path), pid);
	unlink(path);
}

/* Drops entry I; unlinks the region when its process is gone.  With S,
 * its final counters go into S first (what it did since the last sample). */
static void drop(struct tm_heap_reader *rd, size_t i, struct tm_sample *s, struct held_sum *h)
{
	struct mapped *e = &rd->m[i];
	if (s && add_counters(e->r, 0, NULL, s, h) == 0)
		mark_done(rd, e->pid, e->r->start_wall_usec);
	if (rd->prof.prefix)
		write_profile(rd, e, 0);
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
		drop(rd, rd->n - 1, NULL, NULL);
	forget_kept(rd);
	free(rd->m);
	free(rd->done);
	free(rd);
}

static struct mapped *find_or_map(struct tm_heap_reader *rd, pid_t pid)
{
	for (size_t i = 0; i < rd->n; i++) {
		if (rd->m[i].pid != pid)
			continue;
		if (__atomic_load_n(&rd->m[i].r->state, __ATOMIC_ACQUIRE) != TMH_SUPERSEDED)
			return &rd->m[i];
		tm_heap_region_unmap(rd->m[i].r); /* it exec'd: map the new image's */
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

/* The pid of a heap region's file name in /dev/shm ("tidemark-heap.PID"),
 * 0 when NAME is not one. */
static pid_t region_pid(const char *name)
{
	static const char pre[] = "tidemark-heap.";
	char *end;

	if (strncmp(name, pre, sizeof(pre) - 1))
		return 0;
	long pid = strtol(name + sizeof(pre) - 1, &end, 10);
	return *end || pid <= 0 || pid > INT_MAX ? 0 : (pid_t)pid;
}

/* What each_kept() does with a region once FN has taken it. */
enum kept_action { KEPT_LEAVE, KEPT_REMOVE };

/* Calls FN(RD, PID, R, ARG) for each region in /dev/shm that our children
 * kept (TIDEMARK_HEAP_KEEP=tag) of a process that exited or died, skipping
 * the processes RD lists when SKIP_LISTED.  FN's KEPT_REMOVE unlinks the
 * region's file; EXITED_AND_GONE tells FN whether the process both said it
 * exited and is gone (no later write can come). */
static void each_kept(struct tm_heap_reader *rd, bool skip_listed,
                      enum kept_action (*fn)(struct tm_heap_reader *rd, pid_t pid,
                                             const struct tmh_region *r, bool exited_and_gone,
                                             void *arg),
                      void *arg)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *de;
	while (d && (de = readdir(d))) {
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
	if (d)
		closedir(d);
}

struct unlisted {
	struct tm_sample *s;
	struct held_sum *h;
};

/* A kept region of a process never listed (it lived between two samples):
 * its final counters into the sample, once; removed once nothing more can
 * be written to it. */
static enum kept_action add_unlisted(struct tm_heap_reader *rd, pid_t pid,
                                     const struct tmh_region *r, bool exited_and_gone, void *arg)
{
	struct unlisted *u = arg;
	if (is_done(rd, pid, r->start_wall_usec) || add_counters(r, 0, NULL, u->s, u->h) != 0)
		return KEPT_LEAVE;
	mark_done(rd, pid, r->start_wall_usec);
	return exited_and_gone ? KEPT_REMOVE : KEPT_LEAVE;
}

/* Regions our children kept of processes that exited or died without ever
 * being listed: their final counters into S, once. */
static void scan_unlisted(struct tm_heap_reader *rd, struct tm_sample *s, struct held_sum *h)
{
	struct unlisted u = {s, h};
	each_kept(rd, true, add_unlisted, &u);
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

int tm_heap_reader_sample(struct tm_heap_reader *rd, const pid_t *pids, size_t npids,
                          struct tm_sample *s)
{
	struct held_sum h = {0, 0};
	for (size_t i = 0; i < rd->n; i++)
		rd->m[i].seen = 0;
	for (size_t i = 0; i < npids; i++) {
		struct mapped *e = find_or_map(rd, pids[i]);
		if (!e || e->seen)
			continue;
		e->seen = 1;
		if (rd->prof.prefix)
			profile_tick(rd, e);
		add_counters(e->r, e->writable, &e->asked, s, &h);
	}
	for (size_t i = rd->n; i-- > 0;)
		if (!rd->m[i].seen)
			drop(rd, i, s, &h); /* gone from the list: its last counters, once */
	scan_unlisted(rd, s, &h);
	if (tm_sample_has(s, TM_M_HEAP_LIVE_BYTES) && !h.missing)
		tm_sample_add(s, TM_M_HEAP_HELD_BYTES, h.bytes);
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
