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
};

/*
 * Maps PID's region read-only.  Returns NULL with errno ENOENT when PID has
 * no region (not running with the shim), or another errno when the file is
 * not a region of this version (EPROTO) or cannot be mapped.  Anyone may
 * create names in /dev/shm: the file is opened without following a link or
 * waiting, and refused (EPROTO) unless it is a regular file of exactly one
 * region's size owned by root, by this process's user or by PID's user.
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

/* Path of PID's region in /dev/shm into BUF. */
void tm_heap_region_path(char *buf, size_t size, pid_t pid);

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

/* With a writable mapping: asks R's process for its allocator's
 * statistics (answered on its next slow path); returns the request. */
uint64_t tm_heap_region_ask_stats(const struct tmh_region *r);

/* Copies the sampled stack table (TMH_STACKS entries) into OUT under the
 * sample seqlock.  0 or -1 (never consistent). */
int tm_heap_region_stacks(const struct tmh_region *r, struct tmh_stack *out);

#endif
