/*
 * The sampler: one call fills a struct tm_sample from the kernel - the
 * target's process tree (summed), its cgroup, and the host.
 *
 * Process-tree figures are sums over the live processes of the tree (or of
 * the cgroup's processes when there is no root pid): PROC_COUNT (zombies not
 * counted), PROC_THREADS, the RSS split, swap, PSS and dirty (from
 * smaps_rollup, at most every smaps_every_usec: absent in the samples in
 * between), faults, utime/stime and I/O.  The counters among them (faults,
 * times, I/O) are sums over the processes alive NOW: when a process exits,
 * its share vanishes from the sum, so such a "counter" can go down.  The
 * cgroup's counters (CG_*) do not have this problem: use them for totals.
 *
 * Files are opened once and re-read with pread: /proc/PID directories and
 * their stat/status/io/smaps_rollup, the cgroup's files, /proc/meminfo,
 * /proc/stat, /proc/pressure/ *.  /proc/stat is read first (also with host
 * off, when there is a root pid): its fork count lets the tree skip its
 * children walk when nothing forked (tm_proctree_scan_forks).
 */
#ifndef TM_SAMPLER_H
#define TM_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sample.h"

struct tm_cgroup;

struct tm_sampler_cfg {
	const char *proc_root;    /* "/proc" (tests: a fixture tree); NULL: "/proc" */
	pid_t root_pid;           /* 0: none - sample the cgroup's processes */
	struct tm_cgroup *cgroup; /* NULL: none; not owned by the sampler */
	int64_t smaps_every_usec; /* the slow cadence: smaps_rollup (walks page tables) and
	                             status (file/shmem/swap split) at most this often
	                             (default 1 s; 0 = every sample; <0 never smaps,
	                             status every 10 s); statm gives RSS and anon every
	                             sample */
	bool host;                /* read /proc/meminfo, /proc/stat, /proc/pressure/ * */
	const char *sys_root;     /* with host: "/sys" (tests: a fixture tree), whose
	                             huge page size is read once, at open; NULL: none */
	int proctree_flags;       /* TM_PROCTREE_SCAN_ALL to skip the children files */
	/* with root_pid and cgroup: once root_pid has exited, the cgroup's
	 * members are the target (a daemon that forked and left; for a cgroup
	 * the recorder made for the command it launched) */
	bool cgroup_after_root;
};

/* Defaults: proc_root "/proc", sys_root "/sys", smaps every 1 s, host on,
 * no target. */
void tm_sampler_cfg_init(struct tm_sampler_cfg *cfg);

struct tm_sampler;

/* 0 or -1 (after tm_error: e.g. root_pid does not exist). */
int tm_sampler_open(const struct tm_sampler_cfg *cfg, struct tm_sampler **out);

/*
 * Clears OUT's metrics (present bits; seq and timestamps are left alone) and
 * fills them: process-tree sums, cgroup, host.  NOW_MONO_USEC paces the
 * smaps_rollup reads.  0, or -1 (after tm_error) when a file held text that
 * did not parse (everything else is still filled).  A target with no
 * processes left is not an error: PROC_COUNT = 0, the other PROC_* absent.
 */
int tm_sampler_read(struct tm_sampler *s, int64_t now_mono_usec, struct tm_sample *out);

/* The pids found by the last read (so the recorder can read the heap shim's
 * counters).  Owned by S, valid until the next read. */
const pid_t *tm_sampler_pids(const struct tm_sampler *s, size_t *n);
/* Their command names, as their stat said at the same read, in the same
 * order (tm_sampler_pids' count).  Owned by S, valid until the next read. */
const struct tm_comm *tm_sampler_comms(const struct tm_sampler *s);

void tm_sampler_close(struct tm_sampler *s);

#endif
