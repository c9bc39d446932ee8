/*
 * The read side: JSON documents the panel, the HTML report and scripts read.
 * Each returns a new json_t (the caller json_decref()s it), or NULL after
 * tm_error.  Text from collectors is passed through as JSON strings; the
 * panel inserts it with textContent only.
 */
#ifndef TM_SERVE_API_H
#define TM_SERVE_API_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"
#include "store/store.h" /* struct tm_run_page */

struct tm_store;

/* Machines: [{name, runs, latest_run_id, latest_started_wall_usec,
 * last_push_wall_usec, latest_record_run_id}]; latest_record_run_id: the
 * newest run that is not part of a bench (null when none): the machine's
 * own recording, what the panel's home page and live view show. */
json_t *tm_api_machines(struct tm_store *st);
/* Runs, newest first; MACHINE (may be NULL) and BENCH_ID (0: any) filter. */
json_t *tm_api_runs(struct tm_store *st, const char *machine, int64_t bench_id);
/* A page of runs, newest first (store/store.h's struct tm_run_page; LIMIT
 * at most TM_API_RUNS_MAX).  A new array, or NULL on a store error. */
#define TM_API_RUNS_DEFAULT 100
#define TM_API_RUNS_MAX     1000
json_t *tm_api_runs_page(struct tm_store *st, const struct tm_run_page *pg);
/* One run: its metadata, events and marks.  NULL with *MISSING set when
 * there is no such run. */
json_t *tm_api_run(struct tm_store *st, int64_t run_id, int *missing);
/* The run's summary figures (tm_summarize over the whole run; NaN is null).
 * Separate from the run because it reads every sample: a week at 1 s takes
 * seconds, and the panel draws its charts first. */
json_t *tm_api_summary(struct tm_store *st, int64_t run_id, int *missing);

#define TM_SERIES_MAX_METRICS 32
#define TM_SERIES_MAX_POINTS  5000

struct tm_series_query {
	int nmetrics;
	int metrics[TM_SERIES_MAX_METRICS];   /* enum tm_metric; 0 metrics: the panel's set */
	int64_t from_wall_usec, to_wall_usec; /* 0: the run's start / end */
	int64_t from_seq;                     /* only samples with seq >= this (live updates) */
	int64_t bucket_usec;                  /* 0: (to - from) / points */
	int points;
};

/* Parses the query string parts (each may be NULL): metrics=a,b&from=&to=
 * &after_seq=&bucket_usec=&points=.  0, or -1 with a reason in ERR. */
int tm_series_query_parse(const char *metrics, const char *from, const char *to,
                          const char *from_seq, const char *bucket, const char *points,
                          struct tm_series_query *q, struct tm_err *err);

/* Min and max per time bucket of each metric:
 * {run_id, bucket_usec, last_seq, t:[sec...], series:{name:{min:[],max:[]}}, progress:[]} */
json_t *tm_api_series(struct tm_store *st, int64_t run_id, const struct tm_series_query *q);

/* A bench: {bench_id, table (from tm_bench_table_json, when built in), runs:[...]} */
json_t *tm_api_bench(struct tm_store *st, int64_t bench_id);

/* The survival curve of the sweep bench BENCH_ID's arms were part of, as
 * report/sweep/sweepcurve.h's tm_sweep_stored_curve gives it ({"limit":
 * "MemoryMax"|"MemoryHigh", "arms": [...]}); no sweep: {"limit": null,
 * "arms": []}.  NULL after tm_error. */
json_t *tm_api_bench_sweep(struct tm_store *st, int64_t bench_id);

/* Benches and sweeps (apibench.c).  Every bench with runs, newest first
 * (of the first TM_API_BENCHES_MAX benches stored): [{id, name, machine, started_wall_usec,
 * ended_wall_usec (null while running), runs, arms: [names], sweep_id: the
 * sweep it is a probe of, or null}].  NULL after tm_error. */
#define TM_API_BENCHES_MAX 10000
json_t *tm_api_benches(struct tm_store *st);
/* The sweeps, newest first: the probes of one `bench --sweep` (benches
 * named "sweep ARM MemoryMax=..." in a row, same limit, machine and
 * command; an arm coming back after another starts the next sweep):
 * [{id (its first bench), limit, machine, arms, benches: [ids], runs,
 * started_wall_usec, ended_wall_usec}].  NULL after tm_error. */
json_t *tm_api_sweeps(struct tm_store *st);
/* Sweep SWEEP_ID (its first bench's id) with every arm's curve, as
 * /api/v1/bench/ID/sweep gives one arm's: {id, limit, machine, benches,
 * started_wall_usec, ended_wall_usec, arms: [bench --sweep --json's arms]}.
 * NULL with *MISSING set when there is no such sweep, else after tm_error. */
json_t *tm_api_sweep(struct tm_store *st, int64_t sweep_id, int *missing);

#endif
