/*
 * bench's own tables in the store (docs/bench.md): `benches` (one row per
 * bench: what was asked) and `bench_runs` (what bench knows about each of
 * its runs beyond the runs table: warmup or not, the work's wall time).
 * The runs themselves are ordinary runs with bench_id, arm and bench_seq.
 */
#ifndef TM_BENCHSTORE_H
#define TM_BENCHSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

struct tm_store;

/* Creates the tables if needed.  0 or -1. */
int tm_bench_store_init(struct tm_store *st);

struct tm_bench_row {
	const char *name, *spec_json, *order, *host;
	int64_t seed, started_wall_usec;
};
int tm_bench_store_begin(struct tm_store *st, const struct tm_bench_row *b, int64_t *bench_id);
int tm_bench_store_end(struct tm_store *st, int64_t bench_id, int64_t ended_wall_usec);

struct tm_bench_run_note {
	int64_t bench_id, run_id, seq;
	int arm_index;
	bool warmup;
	int64_t wall_usec;
};
int tm_bench_store_run(struct tm_store *st, const struct tm_bench_run_note *n);

/* The newest bench: 0, 1 when there is none, -1. */
int tm_bench_store_latest(struct tm_store *st, int64_t *bench_id);

/* The arm's effective limits ("MemoryMax=400M MemoryHigh=..."), arm over SP's defaults. */
void tm_bench_limits_text(const struct tm_bench_spec *sp, const struct tm_bench_arm *arm, char *buf,
                          size_t size);

/*
 * What `benches.spec_json` holds: the finished spec (SP with defaults
 * applied), the shared command ARGV, and per arm the allocation-relevant
 * environment it runs with (ENV_TEXT[i], "VAR=VAL ...").  malloc'd text.
 */
char *tm_bench_spec_json(const struct tm_bench_spec *sp, char *const *argv, char *const *env_text);

#endif
