/*
 * A streaming median in bounded memory.  Up to TM_SKETCH_EXACT_MAX values
 * it keeps them and its median is exact; past that it moves them into a
 * log-bucketed histogram (the DDSketch idea): bucket i holds the values in
 * (g^(i-1), g^i] with g = (1 + a) / (1 - a), and a value of a bucket is
 * given as 2 g^i / (g + 1), within a relative error a of every value in
 * it (TM_SKETCH_REL_ERROR).  Ranks stay exact (counts), so the median it
 * gives is within a relative error of a of the true median (for a median of
 * an even count, the mean of the two middle values, each within a).
 * Values in [0, 1) count as 0 (an absolute error below 1).  NANs are
 * skipped.  Memory: at most ~90 KiB per sign in use.
 */
#ifndef TM_SKETCH_H
#define TM_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_SKETCH_EXACT_MAX 16384
#define TM_SKETCH_REL_ERROR 0.001

struct tm_sketch_pair {
	double v;
	int64_t w;
};

struct tm_sketch {
	struct tm_sketch_pair *exact; /* while exact: the values and their weights */
	size_t n_exact;
	bool binned;
	uint64_t *pos, *neg; /* binned: counts by bucket index, for v >= 1 and v <= -1 */
	uint64_t zero;       /* binned: |v| < 1 */
	uint64_t count;      /* total weight */
	double gamma, log_gamma;
	int oom; /* an allocation failed: the median is NAN */
};

void tm_sketch_init(struct tm_sketch *s);
void tm_sketch_release(struct tm_sketch *s);
/* Adds V with weight W (how many times it occurs, > 0). */
void tm_sketch_add(struct tm_sketch *s, double v, int64_t w);
/* The median (NAN when empty or out of memory); *REL_ERROR is 0 when exact,
 * else the bound on its relative error (TM_SKETCH_REL_ERROR).  Sorts the
 * kept values in place. */
double tm_sketch_median(struct tm_sketch *s, double *rel_error);

#endif
