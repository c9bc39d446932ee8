/* A run's series as CSV (report --series): raw samples, or rollup buckets. */
#ifndef TM_REPORT_SERIESCSV_H
#define TM_REPORT_SERIESCSV_H

#include <stdint.h>
#include <stdio.h>

#include "store/rollup.h"

struct tm_store;

/* Every raw sample of RUN_ID kept in the store, one row each, one column per
 * metric (empty: absent).  When older samples were pruned, says so on
 * stderr.  0, or -1 after tm_error. */
int tm_series_csv_raw(struct tm_store *st, int64_t run_id, FILE *out);

/* The run's buckets of LEVEL, one row each: bucket_wall_usec, first_seq,
 * last_seq, samples, late_samples, then NAME_min, NAME_max, NAME_mean,
 * NAME_last per metric (empty: no sample of the bucket had it).  0, or -1
 * after tm_error. */
int tm_series_csv_rollup(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         FILE *out);

#endif
