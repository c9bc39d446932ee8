/*
 * Mapping a heap shim region (include/tidemark-heap.h) from outside the
 * process and reading consistent values out of it.
 */
#ifndef TM_HEAPREGION_H
#define TM_HEAPREGION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tidemark-heap.h"

/* Folded counters of one process.  Bytes are the allocator's usable bytes. */
struct tm_heap_counters {
	int64_t live_bytes, peak_bytes, alloc_bytes, freed_bytes, allocs, frees;
	int64_t hist[TMH_CLASSES]; /* allocations by size class */
	int64_t threads_seen, slot_overflows, samples_dropped, sample_mean_bytes;
	/* of alloc_bytes, allocs and frees: the parent's, which a fork child's
	 * region started from (0 in a process that is no fork child) */
	int64_t fork_alloc_bytes, fork_allocs, fork_frees;
	int64_t start_wall_usec, exit_wall_usec; /* exit: 0 while it has not exited */
	int state;                               /* enum tmh_state */
	int sites_only; /* libtidemark-heap-sites.so: only sample_mean_bytes, threads_seen,
	                 * samples_dropped and state mean anything */
	/* malloc is defined in the executable (a static allocator): the shim
	 * counts none of the program's calls, so no counter here means
	 * anything; exe_allocator (enum tmh_allocator) is the allocator
	 * recognised in its symbols, exe_stats 1 when it has a statistics
	 * entry point (tm_heap_region_exe_figures) */
	int malloc_in_exe, exe_allocator, exe_stats;
};

/*
 * Maps PID's region read-only, from the first of tm_heap_region_dirs that
 * has one.  Returns NULL with errno ENOENT when PID has no region (not
 * running with the shim), EPERM when it has none and a directory was
 * refused, or another errno when the file is not a region of this version
 * (EPROTO) or cannot be mapped.  The file is opened without following a
 * link or waiting, and refused (EPROTO) unless it is a regular file of
 * exactly one region's size owned by its directory's owner or root, and
 * by root, this process's user or PID's user.
 */
const struct tmh_region *tm_heap_region_map(pid_t pid);
/* The same, read-write when this process may write the file (*WRITABLE
 * says which): a reader that writes publishes the live bytes it saw into
 * the peak and asks for the allocator's statistics. */
const struct tmh_region *tm_heap_region_map_rw(pid_t pid, int *writable);
void tm_heap_region_unmap(const struct tmh_region *r);

/* 0 when the SIZE bytes at R are a region of this layout and version
 * written by PID (magic, version, sizes and array counts), else -1. */
int tm_heap_region_check(const struct tmh_region *r, size_t size, pid_t pid);

/*
 * Where regions live (include/tidemark-heap.h): a directory per user, that
 * only its owner and root can create names in.
 *
 * tm_heap_region_dir_default: /dev/shm/tidemark-heap-UID into BUF.
 * tm_heap_region_dir_prepare: the directory for the commands this process
 *   runs under the shim (TIDEMARK_HEAP_DIR, else the default of our euid)
 *   into BUF, made with mode 0700 when missing; 0, or -1 after tm_error
 *   saying why one that exists is refused (not a directory, another's,
 *   writable by group or others).  Pass it to them as TIDEMARK_HEAP_DIR.
 * tm_heap_region_dir_open: PATH opened as a directory of UID's regions
 *   (no link followed; owned by UID or root; not writable by group or
 *   others): its fd, or -1 with errno (EPERM: refused).
 * tm_heap_region_dirs: where PID's region may be, in the order readers
 *   look: TIDEMARK_HEAP_DIR (of our euid), then the default directories of
 *   PID's user (the owner of /proc/PID), of root and of our euid, each with
 *   the uid it must belong to.  Their number, at most 4.
 * tm_heap_region_open_at: PID's region file in DIR (an fd from
 *   tm_heap_region_dir_open), FLAGS O_RDONLY or O_RDWR, opened without
 *   following a link or blocking: its fd, or -1 with errno (ENOENT, or
 *   EPROTO when it is not a regular file of one region's size owned by the
 *   directory's owner or root and by a user who may speak for PID).
 */
void tm_heap_region_dir_default(char *buf, size_t size, uid_t uid);
int tm_heap_region_dir_prepare(char *buf, size_t size);
int tm_heap_region_dir_open(const char *path, uid_t uid);
int tm_heap_region_dirs(pid_t pid, char dirs[4][256], uid_t uids[4]);
int tm_heap_region_open_at(int dir, pid_t pid, int flags);

/* Removes PID's region file from the first directory that holds a region
 * of PID's (a mapping of it stays valid).  0, or -1 with errno. */
int tm_heap_region_unlink(pid_t pid);

/* Sums the slots under the fold seqlock.  0, or -1 if it never got a
 * consistent pass (a writer stuck mid-fold). */
int tm_heap_region_counters(const struct tmh_region *r, struct tm_heap_counters *c);

/*
 * `tidemark heap stats PID`: PID's counters (live, peak, allocated, frees,
 * allocations by requested size; for libtidemark-heap-sites.so only what it
 * keeps, saying so rather than printing zeros) to OUT as text, or with JSON
 * as one JSON line of raw bytes.  Publishes the live bytes it read into the
 * peak when it may write the region.  0, or -1 after tm_error (no region,
 * counters that kept changing).
 */
int tm_heap_stats_print(pid_t pid, bool json, FILE *out);

/* With a writable mapping: raises R's peak to LIVE_BYTES if it is lower (a
 * live value a reader has shown is never above a peak shown later). */
void tm_heap_region_publish_peak(const struct tmh_region *r, int64_t live_bytes);

/*
 * What R's allocator holds beyond the live heap, from its last answer to a
 * statistics request: its total from the system minus the shim's live
 * bytes at the same moment, never below 0.  The answer is current when the
 * process has not called the allocator since (C's allocations + frees
 * match) or when it answers request ASKED (0: none asked).  0 and *HELD,
 * or -1: no current answer, or the allocator gives no figure.
 */
int tm_heap_region_held(const struct tmh_region *r, const struct tm_heap_counters *c,
                        uint64_t asked, int64_t *held);

/*
 * For a region whose malloc is the executable's (malloc_in_exe): the
 * allocator's own figures from its answer to request ASKED (it must be
 * answered: 0 never is): *ALLOCATED what it counts as handed out, *HELD
 * what it holds from the system beyond that (never below 0), each -1 when
 * it gives no such figure.  0, or -1 when request ASKED is not answered.
 */
int tm_heap_region_exe_figures(const struct tmh_region *r, uint64_t asked, int64_t *allocated,
                               int64_t *held);

/* With a writable mapping: asks R's process for its allocator's
 * statistics (answered on its next slow path); returns the request. */
uint64_t tm_heap_region_ask_stats(const struct tmh_region *r);

/* Copies the sampled stack table (TMH_STACKS entries) into OUT under the
 * sample seqlock.  0, or -1 (never consistent).  WRITER_GONE: R's process
 * is gone and can finish no update; a sequence word it left odd (killed
 * inside an update: an OOM kill at the first write of a new page of the
 * table) then stays odd for good, and the table is copied as it is, with
 * *TORN set: the one entry being updated may be a sample off.  *TORN is
 * false otherwise. */
int tm_heap_region_stacks(const struct tmh_region *r, bool writer_gone, struct tmh_stack *out,
                          bool *torn);

#endif
