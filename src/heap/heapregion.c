#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/heapregion.h"
#include "base/banned.h"

void tm_heap_region_dir_default(char *buf, size_t size, uid_t uid)
{
	snprintf(buf, size, TMH_DIR_FMT, (unsigned)uid);
}

/* Opens PATH as a directory of regions of user UID: never through a link,
 * and only a directory owned by UID or root that neither group nor others
 * may write (only its owner and root can create names in it).  Its fd, or
 * -1 with errno (EPERM: a directory that is not so). */
static int dir_open(const char *path, uid_t uid)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || (st.st_uid != uid && st.st_uid != 0) ||
	    (st.st_mode & 022)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

int tm_heap_region_dir_prepare(char *buf, size_t size)
{
	const char *env = getenv(TMH_DIR_ENV);
	if (env && *env)
		snprintf(buf, size, "%s", env);
	else
		tm_heap_region_dir_default(buf, size, geteuid());
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return tm_error("cannot make the heap region directory '%s': %s", buf,
		                strerror(errno));
	int fd = dir_open(buf, geteuid());
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	int err = errno;
	struct stat st;
	if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode))
		return tm_error("the heap region directory '%s' is refused: a symbolic link "
		                "(remove it)",
		                buf);
	if (lstat(buf, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0) ||
	     (st.st_mode & 022)))
		return tm_error("the heap region directory '%s' is refused: %s owned by uid %u, "
		                "mode %04o (it must be a directory of uid %u or root that group "
		                "and others cannot write; remove it)",
		                buf, S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
		                (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
		                (unsigned)geteuid());
	errno = err;
	return tm_error("cannot open the heap region directory '%s': %s", buf, strerror(err));
}

int tm_heap_region_dirs(pid_t pid, char dirs[4][256], uid_t uids[4])
{
	int n = 0;
	const char *env = getenv(TMH_DIR_ENV);
	if (env && *env && strlen(env) < 256) {
		snprintf(dirs[n], 256, "%s", env);
		uids[n++] = geteuid();
	}
	char proc[32];
	struct stat st;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	uid_t cand[3] = {0, 0, geteuid()};
	int ncand = 0;
	if (pid > 0 && stat(proc, &st) == 0)
		cand[ncand++] = st.st_uid;
	cand[ncand++] = 0;
	cand[ncand++] = geteuid();
	for (int i = 0; i < ncand; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= cand[j] == cand[i];
		if (dup)
			continue;
		tm_heap_region_dir_default(dirs[n], 256, cand[i]);
		uids[n++] = cand[i];
	}
	return n;
}

int tm_heap_region_dir_open(const char *path, uid_t uid)
{
	return dir_open(path, uid);
}

int tm_heap_region_check(const struct tmh_region *r, size_t size, pid_t pid)
{
	if (size < sizeof(*r))
		return -1;
	return __atomic_load_n(&r->magic, __ATOMIC_ACQUIRE) == TMH_MAGIC &&
	               r->version == TMH_VERSION && r->total_bytes == sizeof(*r) && r->pid == pid &&
	               r->nslots == TMH_SLOTS && r->nclasses == TMH_CLASSES &&
	               r->max_depth == TMH_MAX_DEPTH && r->nstacks == TMH_STACKS &&
	               r->nlive == TMH_LIVE && r->maps_bytes == TMH_MAPS_BYTES
	           ? 0
	           : -1;
}

const struct tmh_region *tm_heap_region_map(pid_t pid)
{
	int writable = -1;
	return tm_heap_region_map_rw(pid, &writable);
}

/* May a region file owned by UID speak for PID?  Its owner must be root,
 * this process's user, or PID's user (the owner of /proc/PID; a process
 * that is gone leaves only the first two). */
static bool owner_ok(uid_t uid, pid_t pid)
{
	char proc[32];
	struct stat st;

	if (uid == 0 || uid == geteuid())
		return true;
	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	return stat(proc, &st) == 0 && st.st_uid == uid;
}

int tm_heap_region_open_at(int dir, pid_t pid, int flags)
{
	char name[24];
	struct stat st, dst;

	snprintf(name, sizeof(name), "%d", (int)pid);
	int fd = openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || fstat(dir, &dst) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)sizeof(struct tmh_region) ||
	    (st.st_uid != dst.st_uid && st.st_uid != 0) || !owner_ok(st.st_uid, pid)) {
		close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

/* Opens PID's region file in the first of its directories (tm_heap_region_dirs)
 * that has one.  FLAGS: O_RDONLY or O_RDWR.  -1 with errno ENOENT (none
 * anywhere), EPERM (none, and a directory was refused) or EPROTO (a file
 * that is not a region of PID's). */
static int region_open(pid_t pid, int flags)
{
	char dirs[4][256];
	uid_t uids[4];
	int n = tm_heap_region_dirs(pid, dirs, uids), err = ENOENT;
	for (int i = 0; i < n; i++) {
		int dir = dir_open(dirs[i], uids[i]);
		if (dir < 0) {
			if (errno == EPERM && err == ENOENT)
				err = EPERM;
			continue;
		}
		int fd = tm_heap_region_open_at(dir, pid, flags);
		int saved = errno;
		close(dir);
		if (fd >= 0)
			return fd;
		if (saved != ENOENT)
			err = saved;
	}
	errno = err;
	return -1;
}

int tm_heap_region_unlink(pid_t pid)
{
	char dirs[4][256], name[24];
	uid_t uids[4];
	int n = tm_heap_region_dirs(pid, dirs, uids);
	snprintf(name, sizeof(name), "%d", (int)pid);
	for (int i = 0; i < n; i++) {
		int dir = dir_open(dirs[i], uids[i]);
		if (dir < 0)
			continue;
		int fd = tm_heap_region_open_at(dir, pid, O_RDONLY);
		int rc = fd >= 0 ? unlinkat(dir, name, 0) : -1;
		if (fd >= 0)
			close(fd);
		close(dir);
		if (rc == 0)
			return 0;
	}
	errno = ENOENT;
	return -1;
}

/* *WRITABLE -1 on entry: read-only wanted. */
const struct tmh_region *tm_heap_region_map_rw(pid_t pid, int *writable)
{
	int fd = *writable < 0 ? -1 : region_open(pid, O_RDWR);
	*writable = fd >= 0;
	if (fd < 0)
		fd = region_open(pid, O_RDONLY);
	if (fd < 0)
		return NULL;
	void *m = mmap(NULL, sizeof(struct tmh_region), PROT_READ | (*writable ? PROT_WRITE : 0),
	               MAP_SHARED, fd, 0);
	int saved = errno;
	close(fd);
	if (m == MAP_FAILED) {
		errno = saved;
		return NULL;
	}
	if (tm_heap_region_check(m, sizeof(struct tmh_region), pid)) {
		munmap(m, sizeof(struct tmh_region));
		errno = EPROTO;
		return NULL;
	}
	return m;
}

void tm_heap_region_unmap(const struct tmh_region *r)
{
	if (r)
		munmap((void *)r, sizeof(*r));
}

/* Passes over a region's words that one reading may take while its process
 * is in the middle of writing them (an odd or moving sequence word), 10 µs
 * apart: a writer takes microseconds; a process that keeps the word odd on
 * purpose costs each reading about a millisecond, never more. */
#define SEQ_TRIES 100

/* A + B and A - B in two's complement: a region's words are whatever its
 * process wrote, and no value may make the reader's arithmetic undefined. */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

static void add_slot(struct tm_heap_counters *c, const struct tmh_slot *s)
{
#define TM_X_ADD(n, comment) c->n = wrap_add(c->n, __atomic_load_n(&s->n, __ATOMIC_RELAXED));
	TMH_COUNTER_LIST(TM_X_ADD)
#undef TM_X_ADD
	for (int i = 0; i < TMH_CLASSES; i++)
		c->hist[i] = wrap_add(c->hist[i], __atomic_load_n(&s->hist[i], __ATOMIC_RELAXED));
}

static void derive(struct tm_heap_counters *c)
{
	c->live_bytes = wrap_sub(c->alloc_bytes, c->freed_bytes);
	c->allocs = 0;
	for (int i = 0; i < TMH_CLASSES; i++)
		c->allocs = wrap_add(c->allocs, c->hist[i]);
}

int tm_heap_region_counters(const struct tmh_region *r, struct tm_heap_counters *c)
{
	for (int attempt = 0; attempt < SEQ_TRIES; attempt++) {
		uint64_t seq = __atomic_load_n(&r->fold_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			usleep(10);
			continue;
		}
		memset(c, 0, sizeof(*c));
		add_slot(c, &r->retired);
		add_slot(c, &r->shared);
		for (int i = 0; i < TMH_SLOTS; i++)
			add_slot(c, &r->slots[i]);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->fold_seq, __ATOMIC_RELAXED) != seq)
			continue;
		derive(c);
		c->peak_bytes = __atomic_load_n(&r->peak_bytes, __ATOMIC_RELAXED);
		if (c->peak_bytes < c->live_bytes)
			c->peak_bytes = c->live_bytes;
		c->threads_seen = r->threads_seen;
		c->slot_overflows = r->slot_overflows;
		c->samples_dropped = r->samples_dropped;
		c->sample_mean_bytes = r->sample_mean_bytes;
		c->fork_alloc_bytes = r->fork_alloc_bytes;
		c->fork_allocs = r->fork_allocs;
		c->fork_frees = r->fork_frees;
		c->start_wall_usec = r->start_wall_usec;
		c->state = (int)__atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
		c->exit_wall_usec = c->state == TMH_EXITED ? r->exit_wall_usec : 0;
		c->sites_only = r->sites_only != 0;
		c->malloc_in_exe = __atomic_load_n(&r->malloc_in_exe, __ATOMIC_ACQUIRE) != 0;
		c->exe_allocator = (int)r->exe_allocator;
		c->exe_stats = r->exe_stats != 0;
		return 0;
	}
	return -1;
}

void tm_heap_region_publish_peak(const struct tmh_region *r, int64_t live_bytes)
{
	int64_t *peak = (int64_t *)&r->peak_bytes;
	int64_t cur = __atomic_load_n(peak, __ATOMIC_RELAXED);
	while (live_bytes > cur && !__atomic_compare_exchange_n(peak, &cur, live_bytes, 1,
	                                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

int tm_heap_region_held(const struct tmh_region *r, const struct tm_heap_counters *c,
                        uint64_t asked, int64_t *held)
{
	for (int attempt = 0; attempt < SEQ_TRIES; attempt++) {
		uint64_t seq = __atomic_load_n(&r->stats_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			usleep(10);
			continue;
		}
		uint64_t ans = __atomic_load_n(&r->stats_ans, __ATOMIC_RELAXED);
		int64_t ops = __atomic_load_n(&r->stats_ops, __ATOMIC_RELAXED);
		int64_t live = __atomic_load_n(&r->stats_live_bytes, __ATOMIC_RELAXED);
		int64_t total = __atomic_load_n(&r->stats_total_bytes, __ATOMIC_RELAXED);
		uint32_t kind = __atomic_load_n(&r->stats_allocator, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->stats_seq, __ATOMIC_RELAXED) != seq)
			continue;
		int current = ops == wrap_add(c->allocs, c->frees) || (asked && ans >= asked);
		if (kind == TMH_ALLOC_UNKNOWN || total < 0 || !current)
			return -1;
		*held = total > live ? wrap_sub(total, live) : 0;
		return 0;
	}
	return -1;
}

int tm_heap_region_exe_figures(const struct tmh_region *r, uint64_t asked, int64_t *allocated,
                               int64_t *held)
{
	for (int attempt = 0; asked && attempt < SEQ_TRIES; attempt++) {
		uint64_t seq = __atomic_load_n(&r->stats_seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			usleep(10);
			continue;
		}
		uint64_t ans = __atomic_load_n(&r->stats_ans, __ATOMIC_RELAXED);
		int64_t inuse = __atomic_load_n(&r->stats_inuse_bytes, __ATOMIC_RELAXED);
		int64_t total = __atomic_load_n(&r->stats_total_bytes, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->stats_seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (ans < asked)
			return -1;
		*allocated = inuse >= 0 ? inuse : -1;
		*held = inuse >= 0 && total >= 0 ? (total > inuse ? total - inuse : 0) : -1;
		return 0;
	}
	return -1;
}

uint64_t tm_heap_region_ask_stats(const struct tmh_region *r)
{
	uint64_t req = __atomic_add_fetch((uint64_t *)&r->stats_req, 1, __ATOMIC_RELEASE);
	/* wakes the process's answering thread, if it has one (a shared futex
	 * on the request word's low half) */
	syscall(SYS_futex, (uint32_t *)&r->stats_req, FUTEX_WAKE, 1, NULL, NULL, 0);
	return req;
}

int tm_heap_region_stacks(const struct tmh_region *r, bool writer_gone, struct tmh_stack *out,
                          bool *torn)
{
	*torn = false;
	for (int attempt = 0; attempt < SEQ_TRIES; attempt++) {
		uint64_t seq = __atomic_load_n(&r->sample_seq, __ATOMIC_ACQUIRE);
		if ((seq & 1) && writer_gone) {
			/* no one will make it even again */
			memcpy(out, r->stacks, sizeof(r->stacks));
			*torn = true;
			return 0;
		}
		if (seq & 1) {
			usleep(10);
			continue;
		}
		memcpy(out, r->stacks, sizeof(r->stacks));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->sample_seq, __ATOMIC_RELAXED) == seq)
			return 0;
	}
	return -1;
}

/* libtidemark-heap-sites.so keeps no counters: say so rather than print zeros. */
static int sites_only_stats(pid_t pid, const char *state, const struct tm_heap_counters *c,
                            bool json, FILE *out)
{
	if (json) {
		fprintf(out,
		        "{\"pid\":%d,\"state\":\"%s\",\"sites_only\":true,\"threads\":%lld,"
		        "\"sample_mean_bytes\":%lld,\"samples_dropped\":%lld}\n",
		        (int)pid, state, (long long)c->threads_seen,
		        (long long)c->sample_mean_bytes, (long long)c->samples_dropped);
		return 0;
	}
	char mean[32];
	fprintf(out,
	        "pid %d (%s): allocation sites only (libtidemark-heap-sites.so keeps no exact "
	        "counters)\nsampling every %s on average, %lld threads, %lld samples dropped\n",
	        (int)pid, state, tm_fmt_mib(mean, sizeof(mean), c->sample_mean_bytes),
	        (long long)c->threads_seen, (long long)c->samples_dropped);
	return 0;
}

/* The allocator's figures of R (malloc_in_exe): asked for when WRITABLE,
 * waited for up to a second (the process answers from its answering
 * thread, under the recorder, or its next call into the shim).  0 and
 * *ALLOCATED, *HELD (-1 each: no such figure), or -1 and *WHY. */
static int exe_figures_now(const struct tmh_region *r, int writable, int64_t *allocated,
                           int64_t *held, const char **why)
{
	*allocated = *held = -1;
	if (!writable) {
		*why = "this user cannot write its region to ask for them";
		return -1;
	}
	uint64_t asked = tm_heap_region_ask_stats(r);
	for (int i = 0; i < 100; i++) {
		if (tm_heap_region_exe_figures(r, asked, allocated, held) == 0)
			return 0;
		usleep(10000);
	}
	*why = "no answer within a second (answered by the thread `tidemark record --heap` "
	       "starts in the process, or by its calls into the shim)";
	return -1;
}

/*
 * malloc is the executable's own: the shim's counters stay at what glibc's
 * loader did and mean nothing; the allocator's own statistics say what it
 * counts as allocated and what it holds beyond that (docs/heap.md
 * "Allocators linked into the program").
 */
static int exe_stats(pid_t pid, const char *state, const struct tmh_region *r, int writable,
                     bool json, FILE *out)
{
	static const char *const names[] = {"an unrecognised allocator", "glibc", "jemalloc",
	                                    "tcmalloc", "mimalloc"};
	uint32_t kind = __atomic_load_n(&r->exe_allocator, __ATOMIC_RELAXED);
	const char *who = kind < 5 ? names[kind] : names[0];
	int64_t allocated = -1, held = -1;
	const char *why = "it has no statistics entry point the shim knows";
	if (__atomic_load_n(&r->exe_stats, __ATOMIC_RELAXED))
		exe_figures_now(r, writable, &allocated, &held, &why);
	char a[32], b[32];
	if (json) { /* missing is null, never 0 */
		if (allocated >= 0)
			snprintf(a, sizeof(a), "%lld", (long long)allocated);
		if (held >= 0)
			snprintf(b, sizeof(b), "%lld", (long long)held);
		fprintf(out,
		        "{\"pid\":%d,\"state\":\"%s\",\"sites_only\":false,\"malloc_in_exe\":true,"
		        "\"exe_allocator\":\"%s\",\"live_bytes\":null,\"peak_bytes\":null,"
		        "\"alloc_bytes\":null,\"allocs\":null,\"frees\":null,"
		        "\"allocator_allocated_bytes\":%s,\"allocator_held_bytes\":%s}\n",
		        (int)pid, state, kind < 5 && kind ? who : "unknown",
		        allocated >= 0 ? a : "null", held >= 0 ? b : "null");
		return 0;
	}
	fprintf(out,
	        "pid %d (%s): malloc is linked into the executable (%s): the shim sees none of "
	        "its calls; live, peak, allocations and frees n/a\n",
	        (int)pid, state, who);
	if (allocated < 0 && held < 0)
		fprintf(out, "the allocator's own figures: n/a (%s)\n", why);
	else
		fprintf(out, "the allocator's own figures: allocated %s, held beyond that %s\n",
		        allocated >= 0 ? tm_fmt_mib(a, sizeof(a), allocated) : "n/a",
		        held >= 0 ? tm_fmt_mib(b, sizeof(b), held) : "n/a");
	return 0;
}

int tm_heap_stats_print(pid_t pid, bool json, FILE *out)
{
	int writable = 0;
	const struct tmh_region *r = tm_heap_region_map_rw(pid, &writable);
	if (!r) {
		if (errno == ENOENT)
			return tm_error("pid %d has no heap region (not running with the shim)",
			                (int)pid);
		if (errno == EPERM)
			return tm_error("pid %d has no heap region in a directory that only its "
			                "user and root can write (" TMH_DIR_PREFIX "UID is "
			                "another's, a link, or writable by others)",
			                (int)pid);
		return tm_error("cannot read the heap region of pid %d: %s", (int)pid,
		                strerror(errno));
	}
	struct tm_heap_counters c;
	int rc = tm_heap_region_counters(r, &c);
	static const char *const states[] = {"running", "exited", "superseded", "detached"};
	const char *state = c.state >= 0 && c.state <= 3 ? states[c.state] : "?";
	if (rc == 0 && c.malloc_in_exe) {
		rc = exe_stats(pid, state, r, writable, json, out);
		tm_heap_region_unmap(r);
		return rc;
	}
	if (rc == 0 && writable && !c.sites_only)
		tm_heap_region_publish_peak(r, c.live_bytes); /* no later peak below this live */
	tm_heap_region_unmap(r);
	if (rc < 0)
		return tm_error("the counters of pid %d kept changing", (int)pid);
	if (c.sites_only)
		return sites_only_stats(pid, state, &c, json, out);
	if (json) {
		fprintf(out,
		        "{\"pid\":%d,\"state\":\"%s\",\"sites_only\":false,\"live_bytes\":%lld,"
		        "\"peak_bytes\":%lld,"
		        "\"alloc_bytes\":%lld,\"allocs\":%lld,\"frees\":%lld,\"threads\":%lld,"
		        "\"sample_mean_bytes\":%lld,\"samples_dropped\":%lld,\"size_classes\":[",
		        (int)pid, state, (long long)c.live_bytes, (long long)c.peak_bytes,
		        (long long)c.alloc_bytes, (long long)c.allocs, (long long)c.frees,
		        (long long)c.threads_seen, (long long)c.sample_mean_bytes,
		        (long long)c.samples_dropped);
		for (int i = 0; i < TMH_CLASSES; i++)
			fprintf(out, "%s%lld", i ? "," : "", (long long)c.hist[i]);
		fprintf(out, "]}\n");
		return 0;
	}
	char a[32], b[32], d[32];
	fprintf(out,
	        "pid %d (%s): live %s, peak %s, allocated %s in %lld allocations, %lld frees\n",
	        (int)pid, state, tm_fmt_mib(a, sizeof(a), c.live_bytes),
	        tm_fmt_mib(b, sizeof(b), c.peak_bytes), tm_fmt_mib(d, sizeof(d), c.alloc_bytes),
	        (long long)c.allocs, (long long)c.frees);
	fprintf(out, "allocations by requested size:\n");
	for (int i = 0; i < TMH_CLASSES; i++)
		if (c.hist[i])
			fprintf(out, "  <= %12llu  %lld\n", 16ull << i, (long long)c.hist[i]);
	return 0;
}
