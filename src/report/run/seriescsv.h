/* A run's series as CSV (report --series): its rollup buckets; and how the
 * report's CSV writers write a text field. */
#ifndef TM_REPORT_SERIESCSV_H
#define TM_REPORT_SERIESCSV_H

#include <stdint.h>
#include <stdio.h>

#include "store/rollup.h"

struct tm_store;

/* What report --series prints: the buckets of ROLLUP (1 minute, 2 hour),
 * else every raw sample with the scraped series (report/run/scraped.h), or the
 * one series NAME; says on stderr when the oldest raw samples were pruned.
 * 0, or -1 after tm_error (no such series included). */
int tm_series_csv(struct tm_store *st, int64_t run_id, const char *name, int rollup, FILE *out);

/* Says on stderr that RUN_ID's oldest raw samples were pruned, if they
 * were (a series of its samples starts later).  0, or -1 after tm_error. */
int tm_series_note_pruned(struct tm_store *st, int64_t run_id);

/* The run's buckets of LEVEL, one row each: bucket_wall_usec, first_seq,
 * last_seq, samples, late_samples, then NAME_min, NAME_max, NAME_mean,
 * NAME_last per metric (empty: no sample of the bucket had it).  0, or -1
 * after tm_error. */
int tm_series_csv_rollup(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         FILE *out);

/* Writes S to OUT as one CSV field (RFC 4180): as it is, or in double
 * quotes with each quote doubled when it holds a comma, a quote, a carriage
 * return or a line feed. */
void tm_csv_field(FILE *out, const char *s);

#endif
