#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "kern/cgroup_v1.h"
#include "kern/kread.h"
#include "kern/psi.h"
#include "base/banned.h"

/* The directories a cgroup spans: its memory cgroup (v1 memory hierarchy,
 * or the v2 dir), the v1 cpuacct cgroup, the unified (cgroup2) cgroup. */
enum { DIR_MEM, DIR_CPU, DIR_UNI, DIR_COUNT };

/* Which cgroups read a file: v1 only, v2 only, or both (from DIR_UNI). */
enum which { W_V1, W_V2, W_BOTH };

enum parse {
	P_V1_VALUE,
	P_V2_VALUE,
	P_V1_STAT,
	P_V1_OOM,
	P_CPUACCT_USAGE,
	P_CPUACCT_STAT,
	P_V2_STAT,
	P_V2_EVENTS,
	P_CPU_STAT,
	P_IO_STAT,
	P_PSI,
};

enum file_id {
	F_V1_USAGE,
	F_V1_MAX_USAGE,
	F_V1_LIMIT,
	F_V1_SOFT,
	F_V1_FAILCNT,
	F_V1_MEMSW_USAGE,
	F_V1_MEMSW_LIMIT,
	F_V1_STAT,
	F_V1_OOM,
	F_CPUACCT_USAGE,
	F_CPUACCT_STAT,
	F_V2_CURRENT,
	F_V2_PEAK,
	F_V2_MAX,
	F_V2_HIGH,
	F_V2_SWAP_MAX,
	F_V2_SWAP_CURRENT,
	F_V2_STAT,
	F_V2_EVENTS,
	F_CPU_STAT,
	F_IO_STAT,
	F_PSI_MEM,
	F_PSI_IO,
	F_PSI_CPU,
	F_COUNT
};

#define NO_METRIC (-1)

static const struct cg_file {
	const char *name;
	int dir;
	enum which which;
	enum parse parse;
	int metric, metric2; /* single value; PSI some/full */
} files[F_COUNT] = {
    [F_V1_USAGE] = {"memory.usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_CURRENT_BYTES,
                    NO_METRIC},
    [F_V1_MAX_USAGE] = {"memory.max_usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_PEAK_BYTES,
                        NO_METRIC},
    [F_V1_LIMIT] = {"memory.limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_MAX_BYTES,
                    NO_METRIC},
    [F_V1_SOFT] = {"memory.soft_limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_HIGH_BYTES,
                   NO_METRIC},
    [F_V1_FAILCNT] = {"memory.failcnt", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_FAILCNT, NO_METRIC},
    [F_V1_MEMSW_USAGE] = {"memory.memsw.usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, NO_METRIC,
                          NO_METRIC},
    [F_V1_MEMSW_LIMIT] = {"memory.memsw.limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, NO_METRIC,
                          NO_METRIC},
    [F_V1_STAT] = {"memory.stat", DIR_MEM, W_V1, P_V1_STAT, NO_METRIC, NO_METRIC},
    [F_V1_OOM] = {"memory.oom_control", DIR_MEM, W_V1, P_V1_OOM, NO_METRIC, NO_METRIC},
    [F_CPUACCT_USAGE] = {"cpuacct.usage", DIR_CPU, W_V1, P_CPUACCT_USAGE, TM_M_CG_CPU_USAGE_USEC,
                         NO_METRIC},
    [F_CPUACCT_STAT] = {"cpuacct.stat", DIR_CPU, W_V1, P_CPUACCT_STAT, NO_METRIC, NO_METRIC},
    [F_V2_CURRENT] = {"memory.current", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_CURRENT_BYTES,
                      NO_METRIC},
    [F_V2_PEAK] = {"memory.peak", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_PEAK_BYTES, NO_METRIC},
    [F_V2_MAX] = {"memory.max", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_MAX_BYTES, NO_METRIC},
    [F_V2_HIGH] = {"memory.high", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_HIGH_BYTES, NO_METRIC},
    [F_V2_SWAP_MAX] = {"memory.swap.max", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_SWAP_MAX_BYTES,
                       NO_METRIC},
    [F_V2_SWAP_CURRENT] = {"memory.swap.current", DIR_MEM, W_V2, P_V2_VALUE,
                           TM_M_CG_SWAP_CURRENT_BYTES, NO_METRIC},
    [F_V2_STAT] = {"memory.stat", DIR_MEM, W_V2, P_V2_STAT, NO_METRIC, NO_METRIC},
    [F_V2_EVENTS] = {"memory.events", DIR_MEM, W_V2, P_V2_EVENTS, NO_METRIC, NO_METRIC},
    [F_CPU_STAT] = {"cpu.stat", DIR_UNI, W_BOTH, P_CPU_STAT, NO_METRIC, NO_METRIC},
    [F_IO_STAT] = {"io.stat", DIR_UNI, W_BOTH, P_IO_STAT, NO_METRIC, NO_METRIC},
    [F_PSI_MEM] = {"memory.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_MEM_SOME_USEC,
                   TM_M_CG_PSI_MEM_FULL_USEC},
    [F_PSI_IO] = {"io.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_IO_SOME_USEC,
                  TM_M_CG_PSI_IO_FULL_USEC},
    [F_PSI_CPU] = {"cpu.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_CPU_SOME_USEC,
                   TM_M_CG_PSI_CPU_FULL_USEC},
};

struct tm_cgroup {
	int version; /* 1 or 2 */
	bool created;
	bool made[DIR_COUNT];          /* directories we created (and must remove) */
	char dir[DIR_COUNT][PATH_MAX]; /* "" when not used */
	int fd[F_COUNT];
	int procs_fd;
	long clk_tck;
	char limits[2048];
	size_t limits_len;
	char buf[32768];
};

/* --- host ------------------------------------------------------------- */

int tm_cg_host_parse(const char *mountinfo, size_t len, struct tm_cg_host *host)
{
	memset(host, 0, sizeof(*host));
	snprintf(host->parent, sizeof(host->parent), "tidemark");
	if (tm_parse_mountinfo(mountinfo, len, &host->mounts))
		return -1;
	if (host->mounts.memory.found)
		host->mode = host->mounts.unified.found ? TM_CG_MODE_HYBRID : TM_CG_MODE_V1;
	else if (host->mounts.unified.found)
		host->mode = TM_CG_MODE_V2;
	else
		host->mode = TM_CG_MODE_NONE;
	return 0;
}

int tm_cg_host_detect(struct tm_cg_host *host)
{
	size_t len;
	char *text = tm_read_file("/proc/self/mountinfo", &len);
	int rc;

	if (!text)
		return tm_error("cannot read '/proc/self/mountinfo': %s", strerror(errno));
	rc = tm_cg_host_parse(text, len, host);
	free(text);
	if (rc)
		return tm_error("cannot parse '/proc/self/mountinfo'");
	return 0;
}

const char *tm_cg_mode_name(enum tm_cg_mode mode)
{
	switch (mode) {
	case TM_CG_MODE_V1:
		return "v1";
	case TM_CG_MODE_V2:
		return "v2";
	case TM_CG_MODE_HYBRID:
		return "hybrid";
	default:
		return "none";
	}
}

/* --- small helpers ------------------------------------------------------ */

static int join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= size)
		return tm_error("path too long: '%s/%s'", a, b);
	return 0;
}

static bool exists_in(const char *dir, const char *file)
{
	char path[PATH_MAX];
	return !join(path, sizeof(path), dir, file) && access(path, F_OK) == 0;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000};
	nanosleep(&ts, NULL);
}

/* Appends to the limits JSON (which is bounded; truncation is not silent:
 * the object is closed by tm_cgroup_limits_json in any case). */
__attribute__((format(printf, 2, 3))) static void json_add(struct tm_cgroup *cg, const char *fmt,
                                                           ...)
{
	va_list ap;
	size_t room = sizeof(cg->limits) - cg->limits_len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cg->limits + cg->limits_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		cg->limits_len += (size_t)n < room ? (size_t)n : room - 1;
}

static struct tm_cgroup *cg_new(int version)
{
	struct tm_cgroup *cg = calloc(1, sizeof(*cg));

	if (!cg) {
		tm_error("out of memory");
		return NULL;
	}
	cg->version = version;
	cg->procs_fd = -1;
	for (int i = 0; i < F_COUNT; i++)
		cg->fd[i] = -1;
	cg->clk_tck = sysconf(_SC_CLK_TCK);
	if (cg->clk_tck <= 0)
		cg->clk_tck = 100;
	return cg;
}

/* Opens every file this cgroup has; missing ones stay -1 (their metrics
 * will be absent). */
static void open_files(struct tm_cgroup *cg)
{
	char path[PATH_MAX];

	for (int i = 0; i < F_COUNT; i++) {
		const struct cg_file *f = &files[i];
		const char *dir = cg->dir[f->dir];

		if ((f->which == W_V1 && cg->version != 1) ||
		    (f->which == W_V2 && cg->version != 2))
			continue;
		if (!dir[0] || join(path, sizeof(path), dir, f->name))
			continue;
		cg->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (!join(path, sizeof(path), cg->dir[DIR_MEM], "cgroup.procs"))
		cg->procs_fd = open(path, O_RDONLY | O_CLOEXEC);
}

static void close_files(struct tm_cgroup *cg)
{
	for (int i = 0; i < F_COUNT; i++)
		if (cg->fd[i] >= 0) {
			close(cg->fd[i]);
			cg->fd[i] = -1;
		}
	if (cg->procs_fd >= 0) {
		close(cg->procs_fd);
		cg->procs_fd = -1;
	}
}

/* --- opening existing cgroups ------------------------------------------ */

/* REL (a path inside a hierarchy) under mount M, into OUT.  -1 when REL is
 * outside the part of the hierarchy that M shows. */
static int map_path(const struct tm_cg_mount *m, const char *rel, char *out, size_t size)
{
	size_t rl = strlen(m->root);
	int n;

	if (!m->found)
		return -1;
	if (strcmp(m->root, "/")) {
		if (strncmp(rel, m->root, rl) || (rel[rl] && rel[rl] != '/'))
			return -1;
		rel += rl;
	}
	n = snprintf(out, size, "%s%s", m->dir, rel);
	if (n < 0 || (size_t)n >= size)
		return -1;
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return 0;
}

static int finish_open(struct tm_cgroup *cg, struct tm_cgroup **out)
{
	if (cg->version == 2)
		snprintf(cg->dir[DIR_UNI], sizeof(cg->dir[DIR_UNI]), "%s", cg->dir[DIR_MEM]);
	open_files(cg);
	json_add(cg, "{}");
	*out = cg;
	return 0;
}

/* The path of DIR relative to mount M's directory, or NULL. */
static const char *under_mount(const struct tm_cg_mount *m, const char *dir)
{
	size_t n = strlen(m->dir);

	if (!m->found || strncmp(dir, m->dir, n) || (dir[n] && dir[n] != '/'))
		return NULL;
	return dir + n;
}

/* Uses MOUNT's same-named cgroup as directory D when it exists. */
static void sibling(struct tm_cgroup *cg, int d, const struct tm_cg_mount *m, const char *rel)
{
	char path[PATH_MAX];
	int n;

	if (!m->found || !rel)
		return;
	n = snprintf(path, sizeof(path), "%s%s", m->dir, rel);
	if (n > 0 && (size_t)n < sizeof(path) && is_dir(path))
		snprintf(cg->dir[d], sizeof(cg->dir[d]), "%s", path);
}

int tm_cgroup_open_path(const struct tm_cg_host *host, const char *path, struct tm_cgroup **out)
{
	char real[PATH_MAX];
	struct tm_cgroup *cg;
	int version;

	if (!realpath(path, real) || !is_dir(real))
		return tm_error("cannot open cgroup '%s': %s", path,
		                errno ? strerror(errno) : "not a directory");
	if (exists_in(real, "memory.limit_in_bytes"))
		version = 1;
	else if (exists_in(real, "memory.max") || exists_in(real, "cgroup.controllers"))
		version = 2;
	else
		return tm_error("'%s' is not a memory cgroup (no memory.limit_in_bytes, "
		                "memory.max or cgroup.controllers)",
		                path);
	cg = cg_new(version);
	if (!cg)
		return -1;
	snprintf(cg->dir[DIR_MEM], sizeof(cg->dir[DIR_MEM]), "%s", real);
	if (version == 1) {
		const char *rel = under_mount(&host->mounts.memory, real);
		sibling(cg, DIR_CPU, &host->mounts.cpuacct, rel);
		sibling(cg, DIR_UNI, &host->mounts.unified, rel);
		if (!cg->dir[DIR_CPU][0] && exists_in(real, "cpuacct.usage"))
			snprintf(cg->dir[DIR_CPU], sizeof(cg->dir[DIR_CPU]), "%s", real);
	}
	return finish_open(cg, out);
}

int tm_cgroup_of_pid(const struct tm_cg_host *host, const char *proc_root, pid_t pid,
                     struct tm_cgroup **out)
{
	char path[PATH_MAX];
	struct tm_proc_cgroup *pc = malloc(sizeof(*pc));
	struct tm_cgroup *cg = NULL;
	size_t len;
	char *text;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int)pid);
	text = tm_read_file(path, &len);
	if (!pc || !text) {
		tm_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (tm_parse_proc_cgroup(text, len, pc)) {
		tm_error("cannot parse '%s'", path);
		goto out;
	}
	cg = cg_new(host->mode == TM_CG_MODE_V2 ? 2 : 1);
	if (!cg)
		goto out;
	if (cg->version == 2) {
		if (!pc->has_unified ||
		    map_path(&host->mounts.unified, pc->unified, cg->dir[DIR_MEM], PATH_MAX)) {
			tm_error("process %d is in no cgroup2 cgroup this host has mounted",
			         (int)pid);
			goto out;
		}
	} else {
		if (!pc->has_memory ||
		    map_path(&host->mounts.memory, pc->memory, cg->dir[DIR_MEM], PATH_MAX)) {
			tm_error("process %d is in no memory cgroup this host has mounted",
			         (int)pid);
			goto out;
		}
		/* the cpuacct and unified cgroups count only when they are the same
		 * group (same path): else their figures are another group's, often
		 * the root's, i.e. the whole host's */
		if (pc->has_cpuacct && !strcmp(pc->cpuacct, pc->memory))
			(void)map_path(&host->mounts.cpuacct, pc->cpuacct, cg->dir[DIR_CPU],
			               PATH_MAX);
		if (pc->has_unified && !strcmp(pc->unified, pc->memory))
			(void)map_path(&host->mounts.unified, pc->unified, cg->dir[DIR_UNI],
			               PATH_MAX);
	}
	if (!is_dir(cg->dir[DIR_MEM])) {
		tm_error("cgroup '%s' of process %d is not there", cg->dir[DIR_MEM], (int)pid);
		goto out;
	}
	rc = finish_open(cg, out);
	cg = NULL;
out:
	free(cg);
	free(text);
	free(pc);
	return rc;
}

/* --- creating ------------------------------------------------------------ */

static bool valid_name(const char *name)
{
	if (!name[0] || strlen(name) > 200 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

/* The recorder pid in a fresh cgroup's name "tidemark-PID-...", or 0. */
static pid_t creator_pid(const char *name)
{
	long pid = 0;
	const char *p = name + 9;

	if (strncmp(name, "tidemark-", 9) || *p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9' && pid < 1 << 30; p++)
		pid = pid * 10 + (*p - '0');
	return *p == '-' ? (pid_t)pid : 0;
}

int tm_cgroup_reap_stale(const struct tm_cg_host *host)
{
	const struct tm_cg_mount *mounts[] = {&host->mounts.memory, &host->mounts.cpuacct,
	                                      &host->mounts.unified};
	char parent[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	for (size_t i = 0; i < TM_ARRAY_SIZE(mounts); i++) {
		if (!mounts[i]->found || snprintf(parent, sizeof(parent), "%s/%s", mounts[i]->dir,
		                                  host->parent) >= (int)sizeof(parent))
			continue;
		if (!(d = opendir(parent)))
			continue;
		while ((de = readdir(d))) {
			pid_t pid = creator_pid(de->d_name);
			if (!pid || !(kill(pid, 0) && errno == ESRCH))
				continue; /* not ours, or its recorder still runs */
			if (snprintf(path, sizeof(path), "%s/%s", parent, de->d_name) <
			        (int)sizeof(path) &&
			    rmdir(path) == 0)
				removed++;
		}
		closedir(d);
	}
	return removed;
}

/* mkdir MOUNT/PARENT (may exist) and MOUNT/PARENT/NAME (must not) as dir D. */
static int make_dir(struct tm_cgroup *cg, int d, const struct tm_cg_host *host,
                    const struct tm_cg_mount *m, const char *name)
{
	char parent[PATH_MAX];

	if (join(parent, sizeof(parent), m->dir, host->parent) ||
	    join(cg->dir[d], sizeof(cg->dir[d]), parent, name))
		return -1;
	if (mkdir(parent, 0755) && errno != EEXIST)
		return tm_error("cannot create cgroup '%s': %s", parent, strerror(errno));
	if (mkdir(cg->dir[d], 0755))
		return tm_error("cannot create cgroup '%s': %s", cg->dir[d], strerror(errno));
	cg->made[d] = true;
	return 0;
}

/* True when the blank-separated TEXT holds WORD. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Writes "+memory" etc. into DIR/cgroup.subtree_control unless already on.
 * memory is required; cpu and io are best effort. */
static int enable_controllers(const char *dir)
{
	static const char *const ctl[] = {"memory", "cpu", "io"};
	char path[PATH_MAX], word[16];
	size_t len;
	char *have;

	if (join(path, sizeof(path), dir, "cgroup.subtree_control"))
		return -1;
	have = tm_read_file(path, &len);
	for (size_t i = 0; i < TM_ARRAY_SIZE(ctl); i++) {
		snprintf(word, sizeof(word), "+%s", ctl[i]);
		if (have && has_word(have, ctl[i]))
			continue;
		if (tm_write_file(path, word) && i == 0) {
			int e = errno;
			free(have);
			return tm_error("cannot enable the memory controller in '%s': %s", path,
			                strerror(e));
		}
	}
	free(have);
	return 0;
}

/* Reads back a single-value control file as the kernel keeps it. */
static int read_value(struct tm_cgroup *cg, int d, const char *file, int64_t *out)
{
	char path[PATH_MAX];
	ssize_t n;

	if (join(path, sizeof(path), cg->dir[d], file))
		return -1;
	n = tm_read_at(AT_FDCWD, path, cg->buf, sizeof(cg->buf));
	if (n < 0)
		return tm_error("cannot read '%s': %s", path, strerror(errno));
	if ((cg->version == 1 ? tm_parse_cg1_value : tm_parse_cg2_value)(cg->buf, (size_t)n, out))
		return tm_error("cannot parse '%s'", path);
	return 0;
}

/* Writes limit REQ (INT64_MAX: unlimited) into FILE and reads back what the
 * kernel made of it into *GOT (-1: unlimited). */
static int set_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                     int64_t *got)
{
	char path[PATH_MAX], text[32];

	if (join(path, sizeof(path), cg->dir[DIR_MEM], file))
		return -1;
	if (req == INT64_MAX)
		snprintf(text, sizeof(text), "%s", cg->version == 1 ? "-1" : "max");
	else
		snprintf(text, sizeof(text), "%lld", (long long)req);
	if (tm_write_file(path, text))
		return tm_error("cannot set %s: writing '%s' to '%s': %s", key, text, path,
		                strerror(errno));
	return read_value(cg, DIR_MEM, file, got);
}

static long long json_limit(int64_t v)
{
	return v == INT64_MAX ? -1LL : (long long)v;
}

/* set_limit, then reports KEY in the JSON. */
static int write_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                       int64_t *got)
{
	if (set_limit(cg, key, file, req, got))
		return -1;
	json_add(cg, "%s\"%s\":{\"requested\":%lld,\"file\":\"%s\",\"value\":%lld",
	         cg->limits_len > 1 ? "," : "", key, json_limit(req), file, (long long)*got);
	return 0;
}

static void unsupported(struct tm_cgroup *cg, const char *key, int64_t req, const char *why)
{
	json_add(cg, "%s\"%s\":{\"requested\":%lld,\"supported\":false,\"why\":\"%s\"}",
	         cg->limits_len > 1 ? "," : "", key, json_limit(req), why);
}

/* v1 has no swap-only limit: memsw = memory + swap, so a swap limit needs a
 * memory limit. */
static int swap_v1(struct tm_cgroup *cg, int64_t mem, int64_t swap)
{
	int64_t memsw, got;

	if (!exists_in(cg->dir[DIR_MEM], "memory.memsw.limit_in_bytes")) {
		unsupported(cg, "swap_max", swap,
		            "no memory.memsw.limit_in_bytes: the kernel does no swap accounting");
		return 0;
	}
	if (mem == TM_CG_UNLIMITED && swap != INT64_MAX) {
		unsupported(cg, "swap_max", swap,
		            "cgroup v1 limits memory+swap together (memory.memsw.limit_in_bytes): "
		            "a swap limit needs memory_max");
		return 0;
	}
	memsw = swap == INT64_MAX || swap > INT64_MAX - mem ? INT64_MAX : mem + swap;
	if (set_limit(cg, "swap_max", "memory.memsw.limit_in_bytes", memsw, &got))
		return -1;
	json_add(cg,
	         "%s\"swap_max\":{\"requested\":%lld,\"file\":\"memory.memsw.limit_in_bytes\","
	         "\"value\":%lld,\"memsw_requested\":%lld,\"memsw_value\":%lld}",
	         cg->limits_len > 1 ? "," : "", json_limit(swap),
	         got == TM_CG_UNLIMITED ? -1LL : (long long)(got - mem), json_limit(memsw),
	         (long long)got);
	return 0;
}

static int limits_v1(struct tm_cgroup *cg, const struct tm_limits *lim)
{
	int64_t mem = TM_CG_UNLIMITED, got;

	if (lim->memory_max_bytes != TM_LIMIT_UNSET) {
		if (write_limit(cg, "memory_max", "memory.limit_in_bytes", lim->memory_max_bytes,
		                &mem))
			return -1;
		json_add(cg, "}");
	}
	if (lim->memory_high_bytes != TM_LIMIT_UNSET) {
		if (write_limit(cg, "memory_high", "memory.soft_limit_in_bytes",
		                lim->memory_high_bytes, &got))
			return -1;
		/* say what v1 makes of it */
		json_add(cg, ",\"note\":\"v1 soft limit: a reclaim target under host memory "
		             "pressure, not a throttle like v2 memory.high\"}");
	}
	if (lim->swap_max_bytes == TM_LIMIT_UNSET)
		return 0;
	return swap_v1(cg, mem, lim->swap_max_bytes);
}

static int limits_v2(struct tm_cgroup *cg, const struct tm_limits *lim)
{
	int64_t got;

	if (lim->memory_max_bytes != TM_LIMIT_UNSET) {
		if (write_limit(cg, "memory_max", "memory.max", lim->memory_max_bytes, &got))
			return -1;
		json_add(cg, "}");
	}
	if (lim->memory_high_bytes != TM_LIMIT_UNSET) {
		if (write_limit(cg, "memory_high", "memory.high", lim->memory_high_bytes, &got))
			return -1;
		json_add(cg, "}");
	}
	if (lim->swap_max_bytes == TM_LIMIT_UNSET)
		return 0;
	if (!exists_in(cg->dir[DIR_MEM], "memory.swap.max")) {
		unsupported(cg, "swap_max", lim->swap_max_bytes,
		            "no memory.swap.max: the kernel does no swap accounting");
		return 0;
	}
	if (write_limit(cg, "swap_max", "memory.swap.max", lim->swap_max_bytes, &got))
		return -1;
	json_add(cg, "}");
	return 0;
}

static int create_dirs(struct tm_cgroup *cg, const struct tm_cg_host *host, const char *name)
{
	const struct tm_cg_mounts *m = &host->mounts;

	if (cg->version == 2) {
		char parent[PATH_MAX];
		if (enable_controllers(m->unified.dir) ||
		    join(parent, sizeof(parent), m->unified.dir, host->parent))
			return -1;
		if (mkdir(parent, 0755) && errno != EEXIST)
			return tm_error("cannot create cgroup '%s': %s", parent, strerror(errno));
		if (enable_controllers(parent) || make_dir(cg, DIR_MEM, host, &m->unified, name))
			return -1;
		if (!exists_in(cg->dir[DIR_MEM], "memory.max"))
			return tm_error("cgroup '%s' has no memory controller", cg->dir[DIR_MEM]);
		snprintf(cg->dir[DIR_UNI], sizeof(cg->dir[DIR_UNI]), "%s", cg->dir[DIR_MEM]);
		return 0;
	}
	if (make_dir(cg, DIR_MEM, host, &m->memory, name))
		return -1;
	if (m->cpuacct.found && strcmp(m->cpuacct.dir, m->memory.dir) &&
	    make_dir(cg, DIR_CPU, host, &m->cpuacct, name))
		return -1;
	if (m->cpuacct.found && !strcmp(m->cpuacct.dir, m->memory.dir))
		snprintf(cg->dir[DIR_CPU], sizeof(cg->dir[DIR_CPU]), "%s", cg->dir[DIR_MEM]);
	if (m->unified.found && make_dir(cg, DIR_UNI, host, &m->unified, name))
		return -1;
	return 0;
}

int tm_cgroup_create(const struct tm_cg_host *host, const char *name, const struct tm_limits *lim,
                     struct tm_cgroup **out)
{
	struct tm_cgroup *cg;
	int rc;

	if (!valid_name(name))
		return tm_error("bad cgroup name '%s' (use letters, digits, '-', '_', '.')", name);
	if (host->mode == TM_CG_MODE_NONE)
		return tm_error("this host has no cgroup memory controller mounted");
	cg = cg_new(host->mode == TM_CG_MODE_V2 ? 2 : 1);
	if (!cg)
		return -1;
	cg->created = true;
	json_add(cg, "{");
	rc = create_dirs(cg, host, name);
	if (!rc)
		rc = cg->version == 1 ? limits_v1(cg, lim) : limits_v2(cg, lim);
	if (rc) {
		tm_cgroup_destroy(cg);
		return -1;
	}
	json_add(cg, "}");
	if (cg->limits[cg->limits_len - 1] != '}') { /* cut short: keep it valid */
		cg->limits_len = 0;
		json_add(cg, "{\"error\":\"limits report too long\"}");
	}
	open_files(cg);
	*out = cg;
	return 0;
}

/* --- using --------------------------------------------------------------- */

int tm_cgroup_attach(struct tm_cgroup *cg, pid_t pid)
{
	char path[PATH_MAX], text[16];

	snprintf(text, sizeof(text), "%d", (int)pid);
	for (int d = 0; d < DIR_COUNT; d++) {
		if (!cg->dir[d][0] || (d != DIR_MEM && !strcmp(cg->dir[d], cg->dir[DIR_MEM])))
			continue;
		if (join(path, sizeof(path), cg->dir[d], "cgroup.procs"))
			return -1;
		if (tm_write_file(path, text))
			return tm_error("cannot move process %d into '%s': %s", (int)pid, path,
			                strerror(errno));
	}
	return 0;
}

/* Reads file I into cg->buf; its length, or -1 when it is absent/vanished. */
static ssize_t read_file(struct tm_cgroup *cg, int i)
{
	if (cg->fd[i] < 0)
		return -1;
	return tm_kread(cg->fd[i], cg->buf, sizeof(cg->buf));
}

static int parse_file(struct tm_cgroup *cg, int i, size_t len, struct tm_sample *out,
                      int64_t *value)
{
	const struct cg_file *f = &files[i];
	struct tm_cg1_oom oom;
	struct tm_psi psi;
	int rc;

	switch (f->parse) {
	case P_V1_VALUE:
		return tm_parse_cg1_value(cg->buf, len, value);
	case P_V2_VALUE:
		return tm_parse_cg2_value(cg->buf, len, value);
	case P_CPUACCT_USAGE:
		return tm_parse_cpuacct_usage(cg->buf, len, value);
	case P_V1_STAT:
		return tm_parse_cg1_memory_stat(cg->buf, len, out);
	case P_V1_OOM:
		rc = tm_parse_cg1_oom_control(cg->buf, len, &oom);
		if (!rc && oom.has_oom_kill)
			tm_sample_set(out, TM_M_CG_EVENTS_OOM_KILL, oom.oom_kill);
		return rc;
	case P_CPUACCT_STAT:
		return tm_parse_cpuacct_stat(cg->buf, len, cg->clk_tck, out);
	case P_V2_STAT:
		return tm_parse_cg2_memory_stat(cg->buf, len, out);
	case P_V2_EVENTS:
		return tm_parse_cg2_memory_events(cg->buf, len, out);
	case P_CPU_STAT:
		return tm_parse_cg2_cpu_stat(cg->buf, len, out);
	case P_IO_STAT:
		return tm_parse_cg2_io_stat(cg->buf, len, out);
	case P_PSI:
		rc = tm_parse_psi(cg->buf, len, &psi);
		if (!rc && psi.has_some)
			tm_sample_set(out, (enum tm_metric)f->metric, psi.some_total_usec);
		if (!rc && psi.has_full)
			tm_sample_set(out, (enum tm_metric)f->metric2, psi.full_total_usec);
		return rc;
	}
	return -1;
}

/* v1: swap figures from memsw (memory+swap) minus memory. */
static void v1_swap(const int64_t *val, const bool *have, struct tm_sample *out)
{
	if (have[F_V1_MEMSW_USAGE] && have[F_V1_USAGE] && val[F_V1_MEMSW_USAGE] >= val[F_V1_USAGE])
		tm_sample_set(out, TM_M_CG_SWAP_CURRENT_BYTES,
		              val[F_V1_MEMSW_USAGE] - val[F_V1_USAGE]);
	if (!have[F_V1_MEMSW_LIMIT] || !have[F_V1_LIMIT])
		return;
	if (val[F_V1_MEMSW_LIMIT] == TM_CG_UNLIMITED)
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES, TM_CG_UNLIMITED);
	else if (val[F_V1_LIMIT] == TM_CG_UNLIMITED)
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES, val[F_V1_MEMSW_LIMIT]);
	else
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES,
		              val[F_V1_MEMSW_LIMIT] > val[F_V1_LIMIT]
		                  ? val[F_V1_MEMSW_LIMIT] - val[F_V1_LIMIT]
		                  : 0);
}

int tm_cgroup_read(struct tm_cgroup *cg, struct tm_sample *out)
{
	int64_t val[F_COUNT];
	bool have[F_COUNT] = {false};
	int rc = 0;

	for (int i = 0; i < F_COUNT; i++) {
		ssize_t n = read_file(cg, i);
		if (n < 0)
			continue; /* absent here, or the cgroup is gone */
		if (parse_file(cg, i, (size_t)n, out, &val[i])) {
			rc = tm_error("cannot parse '%s/%s'", cg->dir[files[i].dir], files[i].name);
			continue;
		}
		if (files[i].parse == P_V1_VALUE || files[i].parse == P_V2_VALUE ||
		    files[i].parse == P_CPUACCT_USAGE) {
			have[i] = true;
			if (files[i].metric != NO_METRIC)
				tm_sample_set(out, (enum tm_metric)files[i].metric, val[i]);
		}
	}
	if (cg->version == 1)
		v1_swap(val, have, out);
	return rc;
}

int tm_cgroup_oom_kills(struct tm_cgroup *cg, int64_t *out)
{
	int i = cg->version == 1 ? F_V1_OOM : F_V2_EVENTS;
	struct tm_sample s;
	ssize_t n = read_file(cg, i);

	tm_sample_clear(&s);
	if (n < 0 || parse_file(cg, i, (size_t)n, &s, NULL) ||
	    !tm_sample_has(&s, TM_M_CG_EVENTS_OOM_KILL))
		return -1;
	*out = s.v[TM_M_CG_EVENTS_OOM_KILL];
	return 0;
}

/* Reads a pid list from FD (kept open) or PATH, growing as needed. */
static int read_pids(int fd, const char *path, pid_t **pids, size_t *n)
{
	size_t cap = 64, size = 4096;

	*pids = NULL;
	*n = 0;
	for (;;) {
		char *buf = malloc(size);
		pid_t *p = malloc(cap * sizeof(*p));
		ssize_t len = buf ? (fd >= 0 ? tm_kread(fd, buf, size)
		                             : tm_read_at(AT_FDCWD, path, buf, size))
		                  : -1;
		size_t count = 0;
		int e = errno;

		if (buf && p && len < 0 && (e == ENODEV || e == ENOENT)) {
			free(buf); /* the cgroup is gone: no processes */
			free(p);
			return 0;
		}
		if (!buf || !p || len < 0 || tm_parse_pid_list(buf, (size_t)len, p, cap, &count)) {
			free(buf);
			free(p);
			return tm_error("cannot read '%s': %s", path,
			                len < 0 ? strerror(e) : "malformed pid list");
		}
		free(buf);
		if ((size_t)len + 1 < size && count <= cap) {
			*pids = count ? p : NULL;
			if (!count)
				free(p);
			*n = count;
			return 0;
		}
		free(p);
		size *= 2;
		cap = count > cap ? count : cap * 2;
	}
}

int tm_cgroup_pids(struct tm_cgroup *cg, pid_t **pids, size_t *n)
{
	char path[PATH_MAX];

	if (join(path, sizeof(path), cg->dir[DIR_MEM], "cgroup.procs"))
		return -1;
	/* opened afresh each time: on v1, re-reading a kept descriptor returns
	 * the pid list cached at its first read for as long as it is re-read
	 * within a second, which names processes long gone */
	return read_pids(cg->version == 1 ? -1 : cg->procs_fd, path, pids, n);
}

const char *tm_cgroup_path(const struct tm_cgroup *cg)
{
	return cg->dir[DIR_MEM];
}

const char *tm_cgroup_version(const struct tm_cgroup *cg)
{
	return cg->version == 1 ? "v1" : "v2";
}

const char *tm_cgroup_limits_json(const struct tm_cgroup *cg)
{
	return cg->limits;
}

/* --- destroying ---------------------------------------------------------- */

static void kill_members(const char *dir)
{
	char path[PATH_MAX];
	pid_t *pids;
	size_t n;

	if (join(path, sizeof(path), dir, "cgroup.procs") || read_pids(-1, path, &pids, &n))
		return;
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	free(pids);
}

/* Whether DIR's cgroup.procs lists a process (false when unreadable). */
static bool has_members(const char *dir)
{
	char path[PATH_MAX];
	pid_t *pids;
	size_t n;

	if (join(path, sizeof(path), dir, "cgroup.procs") || read_pids(-1, path, &pids, &n))
		return false;
	free(pids);
	return n > 0;
}

/* Removes DIR; KILL: SIGKILL what is still in it; else a cgroup with
 * processes is left alone (1). */
static int remove_dir(const char *dir, bool kill)
{
	for (int tries = 0; tries < 100; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		if (!kill && has_members(dir))
			return 1;
		if (kill)
			kill_members(dir);
		sleep_ms(20);
	}
	return tm_error("cannot remove cgroup '%s': %s", dir, strerror(errno));
}

static int take_down(struct tm_cgroup *cg, bool kill)
{
	int rc = 0;

	if (!cg)
		return 0;
	close_files(cg);
	if (cg->created)
		for (int d = DIR_COUNT - 1; d >= 0; d--) {
			int r = cg->made[d] ? remove_dir(cg->dir[d], kill) : 0;
			if (r < 0 || (r > 0 && !rc))
				rc = r;
		}
	free(cg);
	return rc;
}

int tm_cgroup_destroy(struct tm_cgroup *cg)
{
	return take_down(cg, true) < 0 ? -1 : 0;
}

int tm_cgroup_release(struct tm_cgroup *cg)
{
	return take_down(cg, false);
}
