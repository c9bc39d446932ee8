/*
 * How the heap figures of a process tree are combined over its processes
 * (docs/heap.md, "In the run"), with no I/O: the recorder's reader
 * (heapshm.c) feeds it what it reads from each process's region.
 *
 *   - allocated bytes, allocations, frees: cumulative over every process
 *     ever seen, each counting what it did itself (a fork child without the
 *     parent's counts it started from); they never decrease;
 *   - live: the sum over the processes alive at the sample; a process that
 *     exited adds 0 from its exit on;
 *   - peak: the tree's largest simultaneous sum of live bytes, as two
 *     figures.  The upper bound is the largest sum of per-process peaks over
 *     processes whose lifetimes overlap (a process's peak may have come at
 *     any moment of its life); the proven figure is the largest the counters
 *     show held at one moment (one process's own peak, or a sample's sum of
 *     live).  When the two are equal the peak is exact.
 */
#ifndef TM_HEAPTREE_H
#define TM_HEAPTREE_H

#include <stddef.h>
#include <stdint.h>

/* One process's life and peak: wall-clock usec (CLOCK_REALTIME, as the
 * shim's region stamps them); END_USEC is when it exited, when it was
 * found gone, or the current sample's time while it lives. */
struct tm_heap_span {
	int64_t start_usec, end_usec;
	int64_t peak_bytes;
};

/* The largest sum of PEAK_BYTES over spans that all contain one instant
 * (spans touching at an end count as overlapping: a bound stays a bound).
 * 0 for N == 0.  O(N log N); allocates, and on failure returns the sum of
 * all peaks (still an upper bound). */
int64_t tm_heap_spans_max_overlap(const struct tm_heap_span *sp, size_t n);

/* Cumulative counts of one process, as it did them itself. */
struct tm_heap_counts {
	int64_t alloc_bytes, allocs, frees;
};

/* What a tree's processes that left have contributed.  Zero-initialise;
 * release with tm_heap_tree_release. */
struct tm_heap_tree {
	struct tm_heap_counts gone; /* summed over processes that left */
	struct tm_heap_span *spans; /* of processes that left (bounded, see .c) */
	size_t nspans, capspans;
	int64_t proven_peak_bytes; /* running: the largest value shown held */
	int seen;                  /* any shimmed process ever counted */
};

/* A process left the tree (exited, was killed, exec'd into a new image):
 * its span (END_USEC its exit) and its final counts, once. */
void tm_heap_tree_leave(struct tm_heap_tree *t, const struct tm_heap_span *span,
                        const struct tm_heap_counts *final);

/* The figures of one sample, given the processes alive in it (their spans
 * end at the sample's time), the sum of their live bytes and of their
 * counts: cumulative counts into *TOTAL, the peak's upper bound and the
 * proven peak (both since the tree began).  Records LIVE_SUM as shown. */
void tm_heap_tree_figures(struct tm_heap_tree *t, const struct tm_heap_span *alive, size_t nalive,
                          int64_t live_sum, const struct tm_heap_counts *alive_sum,
                          struct tm_heap_counts *total, int64_t *upper_peak_bytes,
                          int64_t *proven_peak_bytes);

void tm_heap_tree_release(struct tm_heap_tree *t);

#endif
