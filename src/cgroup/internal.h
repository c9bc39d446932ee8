/*
 * Inside cgroup/: what its files share.  Nothing outside src/cgroup/
 * includes this header; callers use cgroup.h.
 *
 * The files:
 *   host.c    host detection (mountinfo -> mode and mounts), stale cgroups
 *   cgroup.c  a cgroup's life: create, open (path, pid), attach, destroy
 *   read.c    the files a cgroup is sampled from, and reading them
 *   v1.c, v2.c  what differs between the versions, behind struct cg_ops
 * A struct tm_cgroup points at the ops of the version its memory numbers
 * come from; code outside v1.c and v2.c never asks which one it is.
 */
#ifndef TM_CGROUP_INTERNAL_H
#define TM_CGROUP_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "kern/procfs.h"

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

struct cg_file {
	const char *name;
	int dir;
	enum which which;
	enum parse parse;
	int metric, metric2; /* single value; PSI some/full */
};

/* Every file a cgroup may be read from (read.c). */
extern const struct cg_file tm_cg_files[F_COUNT];

struct tm_cgroup;

/* What differs between cgroup v1 and v2 (v1.c, v2.c). */
struct cg_ops {
	const char *name;      /* "v1", "v2" */
	enum which files;      /* the version-only files it reads (W_V1, W_V2) */
	int oom_file;          /* the file that holds the oom_kill counter */
	const char *unlimited; /* what a limit file takes for "no limit" */
	/* parses a single-value file ("max" or a number) */
	int (*parse_value)(const char *buf, size_t len, int64_t *out);
	/* makes the fresh cgroup NAME's directories (dir[], made[]) */
	int (*make_dirs)(struct tm_cgroup *cg, const struct tm_cg_host *host, const char *name);
	/* writes LIM into the fresh cgroup, reporting each in the limits JSON */
	int (*set_limits)(struct tm_cgroup *cg, const struct tm_limits *lim);
	/* fills dir[] for the existing memory cgroup dir[DIR_MEM] */
	void (*open_dirs)(struct tm_cgroup *cg, const struct tm_cg_host *host);
	/* fills dir[] for the process whose /proc/PID/cgroup is PC */
	int (*pid_dirs)(struct tm_cgroup *cg, const struct tm_cg_host *host,
	                const struct tm_proc_cgroup *pc, pid_t pid);
	/* metrics computed from several single values VAL (HAVE: read); may be NULL */
	void (*derive)(const int64_t *val, const bool *have, struct tm_sample *out);
};

extern const struct cg_ops tm_cg_v1_ops, tm_cg_v2_ops;

struct tm_cgroup {
	const struct cg_ops *ops;
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

/* The ops for a host's mode (v1 for v1 and hybrid). */
const struct cg_ops *tm_cg_ops_of(enum tm_cg_mode mode);

/* A new, empty cgroup of OPS (no directories, no files open), or NULL after
 * tm_error. */
struct tm_cgroup *tm_cg_new(const struct cg_ops *ops);

/* A "%s/%s" path into OUT; -1 (after tm_error) when it does not fit. */
int tm_cg_join(char *out, size_t size, const char *a, const char *b);

/* True when DIR/FILE exists. */
bool tm_cg_exists_in(const char *dir, const char *file);

/* True when PATH is a directory. */
bool tm_cg_is_dir(const char *path);

/* mkdir MOUNT/<host parent> (may exist) and MOUNT/<host parent>/NAME (must
 * not) as the cgroup's directory D.  0 or -1 (after tm_error). */
int tm_cg_make_dir(struct tm_cgroup *cg, int d, const struct tm_cg_host *host,
                   const struct tm_cg_mount *m, const char *name);

/* REL (a path inside a hierarchy) under mount M, into OUT.  -1 when REL is
 * outside the part of the hierarchy that M shows (no tm_error). */
int tm_cg_map_path(const struct tm_cg_mount *m, const char *rel, char *out, size_t size);

/* Appends printf-style text to the limits JSON (bounded; create() keeps
 * the result valid when it is cut short). */
__attribute__((format(printf, 2, 3))) void tm_cg_json_add(struct tm_cgroup *cg, const char *fmt,
                                                          ...);

/* Writes limit REQ (INT64_MAX: unlimited) into the memory cgroup's FILE
 * and reads back what the kernel made of it into *GOT (-1: unlimited).
 * KEY names the limit in errors.  0 or -1 (after tm_error). */
int tm_cg_set_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                    int64_t *got);

/* tm_cg_set_limit, then opens KEY's object in the limits JSON with
 * requested, file and value (the caller closes it with "}"). */
int tm_cg_write_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                      int64_t *got);

/* Reports KEY as not supported here, with WHY, in the limits JSON. */
void tm_cg_unsupported(struct tm_cgroup *cg, const char *key, int64_t req, const char *why);

/* A limit as the JSON shows it: -1 for unlimited (INT64_MAX). */
long long tm_cg_json_limit(int64_t v);

/* Opens every file the cgroup has (read.c); missing ones stay closed and
 * their metrics absent.  tm_cg_close_files closes them. */
void tm_cg_open_files(struct tm_cgroup *cg);
void tm_cg_close_files(struct tm_cgroup *cg);

/* Reads a pid list from FD (kept open; -1: open PATH), growing as needed,
 * into a malloc'd *PIDS.  A removed cgroup has none (0).  0 or -1. */
int tm_cg_read_pids(int fd, const char *path, pid_t **pids, size_t *n);

#endif
