/*
 * The shared-memory region: created at start-up (and again in a fork
 * child), marked at exit and at exec, read by tidemark from outside.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "shim.h"
#include "tidemark-size.h"

extern char **environ;

size_t tmh_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* A process id in a region's name: decimal digits only. */
static int parse_pid(const char *s, int64_t *out)
{
	int64_t v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > 4194304)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s)
		return -1;
	*out = v;
	return 0;
}

static const char *env_get(const char *name)
{
	size_t n = strlen(name);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

void tmh_env_options(struct tmh_options *o)
{
	const char *v;
	o->sample_mean_bytes = 512 * 1024;
	if ((v = env_get("TIDEMARK_HEAP_SAMPLE")) && tm_size_parse(v, &o->sample_mean_bytes)) {
		/* said, not guessed: the program keeps running with the default */
		o->sample_mean_bytes = 512 * 1024;
		o->bad_sample = 1;
	}
	v = env_get("TIDEMARK_HEAP_KEEP");
	o->keep = v && *v && strcmp(v, "0");
	int64_t tag = 0;
	o->keep_tag = o->keep && tm_size_parse(v, &tag) == 0 ? (uint64_t)tag : 0;
	v = env_get("TIDEMARK_HEAP_THREAD");
	o->stats_thread = !(v && !strcmp(v, "0"));
	v = env_get("TIDEMARK_HEAP_UNWIND");
	o->unwinder = v && !strcmp(v, "libunwind");
	o->unwinder_env = v && *v;
	v = env_get("TIDEMARK_HEAP_QUIET");
	o->quiet = v && *v && strcmp(v, "0");
}

/* The directory of this process's region (see include/tidemark-heap.h),
 * chosen when it was created: the exit handler unlinks the file there. */
static char region_dir_path[256];

static void region_name(char *buf, int pid)
{
	tmh_fmt_u64(buf, (uint64_t)pid);
}

/* A directory of this user's that only it (and root) may create names in:
 * anything else (another's, a link, writable by group or others) could
 * hold a file a stranger planted, or let one replace ours; and one of
 * root's is not ours when we are not root (a command the recorder ran as
 * root that changed user: it uses its own user's). */
static int dir_fd_ours(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 022);
}

/* Opens PATH as a region directory (dir_fd_ours), or -1. */
static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && !dir_fd_ours(fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The region directory: TIDEMARK_HEAP_DIR when it is ours (a child that
 * changed user falls back), else /dev/shm/tidemark-heap-EUID, made with
 * mode 0700 when it does not exist.  Its fd (path in region_dir_path), or
 * -1 when neither may be used. */
static int region_dir(void)
{
	const char *env = env_get(TMH_DIR_ENV);
	size_t n = env ? strlen(env) : 0;
	int fd = n && n < sizeof(region_dir_path) ? open_dir(env) : -1;
	if (fd >= 0) {
		memcpy(region_dir_path, env, n + 1);
		return fd;
	}
	static const char pre[] = TMH_DIR_PREFIX;
	char def[64];
	memcpy(def, pre, sizeof(pre) - 1);
	tmh_fmt_u64(def + sizeof(pre) - 1, (uint64_t)geteuid());
	mkdir(def, 0700); /* exists already: checked as any other */
	fd = open_dir(def);
	if (fd >= 0)
		memcpy(region_dir_path, def, strlen(def) + 1);
	return fd;
}

/* A region file another may have planted: 1 when FD is a regular file of
 * exactly one region that is ours (or root's), so that mapping it can
 * neither fault on a page past its end nor read or write a stranger's
 * memory. */
static int region_fd_ours(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == (off_t)sizeof(struct tmh_region) &&
	       (st.st_uid == geteuid() || st.st_uid == 0);
}

/* An older region under our name in DIR is a previous image of this pid
 * (we exec'd) or a dead process whose pid we got: mark it and unlink it
 * (only its owner or root can have made it: DIR is ours). */
static void supersede_old(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!region_fd_ours(fd)) {
		close(fd);
		unlinkat(dir, name, 0);
		return;
	}
	struct tmh_region *old =
	    mmap(NULL, sizeof(*old), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (old != MAP_FAILED) {
		if (old->magic == TMH_MAGIC)
			__atomic_store_n(&old->state, TMH_SUPERSEDED, __ATOMIC_RELEASE);
		munmap(old, sizeof(*old));
	}
	close(fd);
	unlinkat(dir, name, 0);
}

static void region_fill(struct tmh_region *r, int pid)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->version = TMH_VERSION;
	r->header_bytes = (uint32_t)offsetof(struct tmh_region, retired);
	r->total_bytes = sizeof(*r);
	r->pid = pid;
	r->nslots = TMH_SLOTS;
	r->nclasses = TMH_CLASSES;
	r->max_depth = TMH_MAX_DEPTH;
	r->nstacks = TMH_STACKS;
	r->nlive = TMH_LIVE;
	r->maps_bytes = TMH_MAPS_BYTES;
	r->start_wall_usec = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	r->sample_mean_bytes = tmh_opt.sample_mean_bytes;
	r->unwinder = (uint32_t)tmh_opt.unwinder;
	r->unwinder_auto = tmh_opt.unwinder && !tmh_opt.unwinder_env; /* a fork child's too */
	r->sites_only = !TMH_COUNTING;
	r->keep_tag = tmh_opt.keep_tag;
	r->malloc_in_exe = tmh_exe.malloc_in_exe;
	r->exe_allocator = tmh_exe.exe_allocator;
	r->exe_stats = tmh_exe.exe_stats;
}

/* Unlinks NAME (in DIR) when its process died without running its exit
 * handlers (_exit after fork, a crash, SIGKILL). */
static void gc_one(int dir, const char *name)
{
	int64_t pid = 0;
	if (parse_pid(name, &pid) || pid <= 0 || pid > INT32_MAX)
		return;
	if (kill((int)pid, 0) == 0 || errno != ESRCH)
		return;
	int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!region_fd_ours(fd)) { /* not ours to judge, and mapping it could fault */
		close(fd);
		return;
	}
	const struct tmh_region *r = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		return;
	/* exited regions are left for a recorder to read: for a minute */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	if (r->magic == TMH_MAGIC &&
	    (r->state != TMH_EXITED || now - r->exit_wall_usec > 60 * 1000000ll))
		unlinkat(dir, name, 0);
	munmap((void *)r, 4096);
}

static void gc_stale(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[4096] __attribute__((aligned(8)));
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			const char *ent = buf + off;
			unsigned short reclen = *(const unsigned short *)(ent + 16);
			const char *name = ent + 19;
			if (strlen(name) < 40)
				gc_one(dir, name);
			off += reclen;
		}
	}
	close(fd);
}

/* Creates, sizes and maps our region file NAME in DIR, or MAP_FAILED. */
static struct tmh_region *region_file(int dir, const char *name)
{
	struct tmh_region *r = MAP_FAILED;
	int fd = openat(dir, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return r;
	if (ftruncate(fd, sizeof(*r)) == 0)
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		unlinkat(dir, name, 0);
	return r;
}

struct tmh_region *tmh_region_create(int gc)
{
	char name[24];
	int pid = getpid();
	region_name(name, pid);
	struct tmh_region *r = MAP_FAILED;
	int dir = region_dir();
	if (dir >= 0) {
		supersede_old(dir, name);
		if (gc)
			gc_stale(dir);
		r = region_file(dir, name);
		close(dir);
	}
	if (r == MAP_FAILED) {
		tmh_warn(dir < 0 ? "no region directory of this user's (" TMH_DIR_PREFIX
		                   "<uid> is another's, a link, or writable by others); "
		                   "counting privately"
		                 : "cannot create the shared region; counting privately");
		region_dir_path[0] = '\0';
		r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0);
		if (r == MAP_FAILED)
			_exit(127);
	}
	region_fill(r, pid);
	__atomic_store_n(&r->magic, TMH_MAGIC, __ATOMIC_RELEASE);
	return r;
}

/*
 * In a fork child: the parent's region is still mapped (shared).  The child
 * starts its own region whose `retired` slot holds everything the parent had
 * counted (the child's heap is a copy of the parent's), then lets go of the
 * parent's.
 */
void tmh_region_fork_child(void)
{
	struct tmh_region *old = tmh_region;
	struct tmh_region *r = tmh_region_create(0);
	struct tmh_slot *t = &r->retired;
	for (int i = -2; i < TMH_SLOTS; i++) {
		const struct tmh_slot *s = i == -2   ? &old->retired
		                           : i == -1 ? &old->shared
		                                     : &old->slots[i];
#define TMH_X_SUM(n, c) t->n += TMH_LD(s->n);
		TMH_COUNTER_LIST(TMH_X_SUM)
#undef TMH_X_SUM
		for (int c = 0; c < TMH_CLASSES; c++)
			t->hist[c] += TMH_LD(s->hist[c]);
	}
	r->own_bytes = old->own_bytes; /* the records of the parent's threads stay allocated */
	r->fork_alloc_bytes = t->alloc_bytes;
	r->fork_frees = t->frees;
	for (int c = 0; c < TMH_CLASSES; c++)
		r->fork_allocs += t->hist[c];
	r->flushed_bytes = t->alloc_bytes - t->freed_bytes;
	r->peak_bytes = r->flushed_bytes;
	r->threads_seen = 1;
	tmh_sample_fork_reset(old);
	tmh_region = r;
	munmap(old, sizeof(*old));
}

/* /proc/self/maps into the region, so that a profile taken after the
 * process is gone can still be symbolized. */
static void save_maps(struct tmh_region *r)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	size_t len = 0;
	ssize_t n;
	while (len < sizeof(r->maps) - 1 &&
	       (n = read(fd, r->maps + len, sizeof(r->maps) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	r->maps[len] = '\0';
	__atomic_store_n(&r->maps_len, (uint32_t)len, __ATOMIC_RELEASE);
}

void tmh_region_exit(void)
{
	struct tmh_region *r = tmh_region;
	if (tmh_opt.keep && r->sample_mean_bytes > 0)
		save_maps(r);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->exit_wall_usec = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	__atomic_store_n(&r->state, TMH_EXITED, __ATOMIC_RELEASE);
	int dir = !tmh_opt.keep && region_dir_path[0] ? open_dir(region_dir_path) : -1;
	if (dir >= 0) {
		char name[24];
		region_name(name, r->pid);
		unlinkat(dir, name, 0);
		close(dir);
	}
}
