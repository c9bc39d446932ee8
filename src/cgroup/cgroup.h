/*
 * cgroup v1 and v2 behind one interface.  Nothing outside src/cgroup/ asks
 * which version a host runs (inside, v1.c and v2.c hold the differences):
 * callers create, open, attach, read and destroy a struct tm_cgroup, and
 * read its numbers as v2-named metrics (metrics.h).
 *
 * Conventions:
 *  - a limit metric (CG_MAX_BYTES, CG_HIGH_BYTES, CG_SWAP_MAX_BYTES) of -1
 *    (TM_CG_UNLIMITED) means "no limit" (v2 "max"; v1 >= 2^62);
 *  - a file the host lacks (memory.peak on v1, failcnt on v2, PSI without a
 *    unified hierarchy) leaves its metrics absent, never 0;
 *  - on v1, CG_SWAP_CURRENT_BYTES = memsw.usage - usage and
 *    CG_SWAP_MAX_BYTES = memsw.limit - limit (both limits set), -1 when
 *    memsw is unlimited, memsw.limit when only memsw is limited.
 *
 * Host modes (from /proc/self/mountinfo):
 *  v1      a v1 memory hierarchy and no cgroup2 mount;
 *  hybrid  a v1 memory hierarchy plus a cgroup2 mount without the memory
 *          controller ("unified"): memory numbers come from v1, PSI and
 *          cpu.stat from the same-named cgroup in the unified hierarchy;
 *  v2      a cgroup2 mount and no v1 memory hierarchy;
 *  none    neither.
 *
 * Fresh cgroups (tm_cgroup_create) go in <mount>/<parent>/<name> in every
 * hierarchy used (v1: memory, and cpuacct if mounted; hybrid: also the
 * unified mount; v2: the cgroup2 mount, after "+memory" (and best effort
 * "+cpu +io") are written to the subtree_control of the mount root and of
 * <parent>).  <parent> defaults to "tidemark" and is left in place.
 */
#ifndef TM_CGROUP_H
#define TM_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sample.h"
#include "kern/cgroup_v2.h" /* TM_CG_UNLIMITED */
#include "kern/procfs.h"    /* struct tm_cg_mounts */

enum tm_cg_mode { TM_CG_MODE_NONE, TM_CG_MODE_V1, TM_CG_MODE_V2, TM_CG_MODE_HYBRID };

struct tm_cg_host {
	enum tm_cg_mode mode;
	struct tm_cg_mounts mounts; /* tests may fill these with fixture dirs */
	char parent[64];            /* parent of fresh cgroups, "tidemark" */
};

/* Fills HOST from mountinfo text.  0, or -1 when the text is malformed. */
int tm_cg_host_parse(const char *mountinfo, size_t len, struct tm_cg_host *host);

/* The same from /proc/self/mountinfo.  0 or -1 (after tm_error). */
int tm_cg_host_detect(struct tm_cg_host *host);

/* "none", "v1", "v2", "hybrid". */
const char *tm_cg_mode_name(enum tm_cg_mode mode);

struct tm_cgroup;
struct tm_err;

/* Memory limits for a fresh cgroup; TM_LIMIT_UNSET leaves one alone. */
#define TM_LIMIT_UNSET (-1)
struct tm_limits {
	int64_t memory_max_bytes;
	int64_t memory_high_bytes;
	int64_t swap_max_bytes;
};

/*
 * Creates a fresh cgroup NAME (letters, digits, "-_.") for a run and sets the
 * limits in LIM (TM_LIMIT_UNSET leaves one alone; INT64_MAX writes
 * "unlimited").  An existing cgroup of that name is an error.  On failure,
 * whatever was created is removed.  0 or -1 (after tm_error).
 */
int tm_cgroup_create(const struct tm_cg_host *host, const char *name, const struct tm_limits *lim,
                     struct tm_cgroup **out);

/* Opens an existing cgroup directory (v1 memory or v2; told apart by the
 * files in it).  On a v1 path under the host's memory mount, the cpuacct and
 * unified cgroups of the same relative path are used when they exist. */
int tm_cgroup_open_path(const struct tm_cg_host *host, const char *path, struct tm_cgroup **out);

/* Opens the cgroup that PID is in (PROC_ROOT/PID/cgroup mapped onto the
 * host's mounts).  On v1/hybrid its cpuacct and unified cgroups are used
 * only when they have the same path as its memory cgroup (otherwise their
 * numbers would be another group's: CPU and PSI stay absent).  -1 (after
 * tm_error) when it cannot be found. */
int tm_cgroup_of_pid(const struct tm_cg_host *host, const char *proc_root, pid_t pid,
                     struct tm_cgroup **out);

/*
 * The cgroup of PID (as tm_cgroup_of_pid) when it is PID's own: every
 * process in it is PID or one of PID's descendants (a service's cgroup, a
 * container's), so its figures are the process tree's.  0 with *OUT set;
 * 1 with *OUT NULL and WHY->msg saying why not (other processes share
 * it; no memory cgroup); -1 (after tm_error) when it cannot be read.
 */
int tm_cgroup_of_pid_tree(const struct tm_cg_host *host, const char *proc_root, pid_t pid,
                          struct tm_cgroup **out, struct tm_err *why);

/*
 * Removes fresh cgroups that recorders killed before they could clean up
 * left behind: <parent>/tidemark-PID-... in every hierarchy, whose PID is
 * gone and which hold no process (the kernel refuses to remove one that
 * does).  Best effort; returns how many directories were removed.
 */
int tm_cgroup_reap_stale(const struct tm_cg_host *host);

/* Moves PID (a whole process) into the cgroup, in every hierarchy. */
int tm_cgroup_attach(struct tm_cgroup *cg, pid_t pid);

/*
 * Reads all the cgroup's files into OUT (sets only CG_* metrics).  Files stay
 * open between calls and are read with pread from offset 0.  A file that has
 * vanished (cgroup removed) leaves its metrics absent and is not an error; a
 * file whose text does not parse is: -1 after tm_error, the rest still read.
 */
int tm_cgroup_read(struct tm_cgroup *cg, struct tm_sample *out);

/* The cgroup's oom_kill counter (v2 memory.events, v1 memory.oom_control),
 * the same number as CG_EVENTS_OOM_KILL.  -1 when the host has none. */
int tm_cgroup_oom_kills(struct tm_cgroup *cg, int64_t *out);

/* The processes in the cgroup (cgroup.procs) into a malloc'd *PIDS (the
 * caller frees; NULL when *N is 0).  A cgroup that has been removed has no
 * processes (0, not an error).  0 or -1 (after tm_error). */
int tm_cgroup_pids(struct tm_cgroup *cg, pid_t **pids, size_t *n);

/* The memory cgroup's directory (v1 memory hierarchy, or the v2 dir). */
const char *tm_cgroup_path(const struct tm_cgroup *cg);

/* "v1" or "v2": what the memory numbers come from (for metadata). */
const char *tm_cgroup_version(const struct tm_cgroup *cg);

/*
 * What each requested limit became on this host, as a JSON object, e.g.
 *   {"memory_max":{"requested":67108864,"file":"memory.limit_in_bytes","value":67108864},
 *    "swap_max":{"requested":0,"supported":false,"why":"..."}}
 * "{}" for a cgroup that was opened, not created.  Owned by CG.
 */
const char *tm_cgroup_limits_json(const struct tm_cgroup *cg);

/*
 * Closes CG and frees it.  A cgroup made by tm_cgroup_create is removed too:
 * processes still in it are killed (SIGKILL), then its directories are
 * removed, retrying for up to 2 s while the kernel still holds them.  An
 * opened cgroup is never touched.  0, or -1 (after tm_error) when a
 * directory could not be removed.  NULL is fine.
 */
int tm_cgroup_destroy(struct tm_cgroup *cg);

/*
 * Like tm_cgroup_destroy, but never signals anything: a cgroup we made that
 * still has processes (a daemon the user did not ask us to stop) is left in
 * place, and tm_cgroup_reap_stale removes it once it is empty.  0 removed
 * (or not ours), 1 left in place, -1 after tm_error.  NULL is fine.
 */
int tm_cgroup_release(struct tm_cgroup *cg);

#endif
