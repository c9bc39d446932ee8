/*
 * Rollups: a run's samples downsampled per minute and per hour (docs/store.md).
 *
 * A bucket is a wall-clock minute or hour (aligned on the epoch).  For each
 * metric present in at least one of its samples it holds how many samples
 * had it (n), their min, max, sum (the mean is sum / n), the first and last
 * value, and the sum of the rises between consecutive values (what a
 * counter that may fall, a sum over processes, grew by).  A metric no
 * sample of the bucket had is absent: missing stays missing.
 *
 * The store builds them as samples arrive (tm_store_add_sample, in the same
 * transaction); these functions are the arithmetic, pure, for the store and
 * for readers that merge buckets.
 */
#ifndef TM_STORE_ROLLUP_H
#define TM_STORE_ROLLUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"

enum tm_rollup_level { TM_ROLLUP_MINUTE, TM_ROLLUP_HOUR, TM_ROLLUP_LEVELS };

struct tm_rollup_metric {
	int64_t n; /* samples that had the metric */
	int64_t min, max, first, last;
	int64_t rises; /* sum of (v[i] - v[i-1]) where positive, over consecutive values */
	double sum;    /* of the values (a double: a counter's sum can pass 2^63) */
};

struct tm_rollup {
	int64_t run_id;
	enum tm_rollup_level level;
	int64_t bucket_wall_usec;      /* the bucket's start */
	int64_t first_seq, last_seq;   /* of the samples in it */
	int64_t samples, late_samples; /* late: late_usec above the run's interval / 4 */
	int64_t t_first_wall_usec, t_last_wall_usec, t_first_mono_usec, t_last_mono_usec;
	uint64_t present[TM_SAMPLE_WORDS]; /* bit m: metric m in at least one sample */
	struct tm_rollup_metric m[TM_METRIC_COUNT];
};

/* The width of a level's buckets in usec (60 s, 3600 s); its name. */
int64_t tm_rollup_width_usec(enum tm_rollup_level level);
const char *tm_rollup_level_name(enum tm_rollup_level level);

/* The start of the bucket of LEVEL holding wall time T (usec). */
int64_t tm_rollup_bucket_of(enum tm_rollup_level level, int64_t t_wall_usec);

/* Empties R as bucket BUCKET_WALL_USEC of LEVEL of run RUN_ID. */
void tm_rollup_reset(struct tm_rollup *r, int64_t run_id, enum tm_rollup_level level,
                     int64_t bucket_wall_usec);

/* Adds sample S to R (S belongs to R's bucket, after its last sample); a
 * sample later than LATE_USEC (> 0) past its deadline counts as late. */
void tm_rollup_add(struct tm_rollup *r, const struct tm_sample *s, int64_t late_usec);

static inline bool tm_rollup_has(const struct tm_rollup *r, enum tm_metric m)
{
	return (r->present[m / 64] >> (m % 64)) & 1;
}

/* The mean of M over the bucket's samples that had it; NAN when none did. */
double tm_rollup_mean(const struct tm_rollup *r, enum tm_metric m);

/* The most bytes tm_rollup_encode() writes. */
#define TM_ROLLUP_ENC_MAX (16 + 11 * TM_SAMPLE_WORDS + 70 * TM_METRIC_COUNT)

/* The per-metric part of R (mask and figures) into OUT (TM_ROLLUP_ENC_MAX
 * bytes); returns the length. */
size_t tm_rollup_encode(const struct tm_rollup *r, unsigned char *out);
/* The reverse into R's mask and figures (other fields untouched): 0, or -1
 * when the bytes are not a rollup this tidemark can read. */
int tm_rollup_decode(const unsigned char *p, size_t len, struct tm_rollup *r);

#endif
