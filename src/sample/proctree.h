/*
 * The processes of a target, followed as they come and go: either the tree
 * under a root pid (found through /proc/PID/task/TID/children, or, where the
 * kernel lacks that file, by scanning every /proc/PID/stat for its ppid), or
 * an explicit list the caller sets each time (a cgroup's cgroup.procs).
 *
 * Each tracked process keeps its /proc/PID directory fd open; its stat is
 * re-read every scan (and handed to the caller, who need not read it again).
 * A pid is the same process only while its starttime is: a reused pid is a
 * new process.  Processes that once belonged stay tracked until they exit,
 * even when reparented (a daemon that double-forks stays in the tree).
 */
#ifndef TM_PROCTREE_H
#define TM_PROCTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kern/procfs.h"

struct tm_proc {
	pid_t pid;
	int64_t starttime;        /* from stat: identity against pid reuse */
	struct tm_proc_stat stat; /* as of the last scan */
	bool zombie;              /* exited, not reaped: no memory left to read */
	int dirfd;                /* PROC_ROOT/PID, O_DIRECTORY */
	/* Files kept open between scans; -1 until first used.  The tree closes
	 * them; users (the sampler) may open the ones marked "user" lazily. */
	int stat_fd, children_fd;
	int status_fd, statm_fd, io_fd, smaps_fd; /* user */
	int hsperf_fd;            /* user: the JVM's hsperfdata file (sample/jvm.h) */
	int64_t hsperf_look_usec; /* user: when to look for it next (0: at once) */
	int64_t hsperf_wait_usec; /* user: the back-off between looks */
	bool jvm_no_counters;     /* user: maps libjvm.so but no hsperfdata file */
	/* user: the JVM's Java heap range (sample/jvmresident.h; 0, 0: not
	 * found yet), and when to look for it next, with its back-off */
	uint64_t jheap_start, jheap_end;
	int64_t jheap_look_usec, jheap_wait_usec;
};

enum {
	TM_PROCTREE_SCAN_ALL = 1, /* find children by scanning all of /proc (no children file) */
};

struct tm_proctree;

/*
 * Opens a tracker under PROC_ROOT ("/proc", or a fixture tree).  ROOT > 0
 * follows the tree under ROOT (which must exist now); ROOT == 0 tracks what
 * tm_proctree_set says.  FLAGS: TM_PROCTREE_SCAN_ALL or 0.  0 or -1 (after
 * tm_error).
 */
int tm_proctree_open(const char *proc_root, pid_t root, int flags, struct tm_proctree **out);

/*
 * Re-reads every tracked process, drops those that exited, and adds the
 * children found (and theirs).  Returns the number of processes tracked
 * (zombies included; see tm_proc.zombie); 0 once the whole tree is gone.
 */
int tm_proctree_scan(struct tm_proctree *t);

/*
 * tm_proctree_scan, given the host's fork count (tm_parse_proc_stat_forks)
 * read just before: the children files are walked again only when FORKS
 * differs from the count read before the last walk (or is < 0: unknown).
 * A process can join the tree only by a fork (threads count too) or by
 * being reparented to a tracked process, which only an orphaned descendant
 * is, and a descendant was found by the walk after its own fork: so with
 * the count unchanged, no walk can find anything new, and the processes
 * found stay exactly those of a full scan.  Each tracked stat is re-read
 * every call either way.  Not used for an explicit set (tm_proctree_set).
 */
int tm_proctree_scan_forks(struct tm_proctree *t, int64_t forks);

/* How many times the children (or, without them, all of /proc) were walked
 * since open: for tests and benches of the walk's skipping. */
uint64_t tm_proctree_walks(const struct tm_proctree *t);

/* Makes PIDS the tracked set (keeping the open files of those already
 * tracked), then reads them as tm_proctree_scan does.  Returns the count. */
int tm_proctree_set(struct tm_proctree *t, const pid_t *pids, size_t n);

size_t tm_proctree_count(const struct tm_proctree *t);
struct tm_proc *tm_proctree_get(struct tm_proctree *t, size_t i);

/* Whether children come from the children files (false: /proc scan). */
bool tm_proctree_uses_children_files(const struct tm_proctree *t);

void tm_proctree_close(struct tm_proctree *t);

#endif
