/*
 * bench's own tables in the store (docs/bench.md): `benches` (one row per
 * bench: what was asked) and `bench_runs` (what bench knows about each of
 * its runs beyond the runs table: warmup or not, the work's wall time).
 * The runs themselves are ordinary runs with bench_id, arm and bench_seq.
 */
#ifndef TM_STORE_BENCH_TABLES_H
#define TM_STORE_BENCH_TABLES_H

#include <stdbool.h>
#include <stdint.h>

struct tm_store;

/* Creates the tables if needed.  0 or -1. */
int tm_bench_store_init(struct tm_store *st);

struct tm_bench_row {
	const char *name, *spec_json, *order, *host;
	int64_t seed, started_wall_usec;
	const char *uuid;    /* unique across machines; generated when NULL */
	const char *machine; /* a server's: the machine that pushed it; NULL locally */
};
/* Inserts a bench; its id in *BENCH_ID.  0 or -1 (error set). */
int tm_bench_store_begin(struct tm_store *st, const struct tm_bench_row *b, int64_t *bench_id);
/* Sets the bench's end time (microseconds since the epoch).  0 or -1. */
int tm_bench_store_end(struct tm_store *st, int64_t bench_id, int64_t ended_wall_usec);

struct tm_bench_run_note {
	int64_t bench_id, run_id, seq;
	int arm_index;
	bool warmup;
	int64_t wall_usec;
	int64_t rig_cpu_usec; /* CPU tidemark itself used recording the run, or -1 */
};
/* Records what bench knows of one of its runs.  0 or -1. */
int tm_bench_store_run(struct tm_store *st, const struct tm_bench_run_note *n);

/* The newest bench: 0, 1 when there is none, -1. */
int tm_bench_store_latest(struct tm_store *st, int64_t *bench_id);

/* A bench as stored; strings malloc'd (NULL when not stored), freed by
 * tm_bench_info_release(). */
struct tm_bench_info {
	int64_t id;
	char *name, *spec_json, *order, *host;
	char *uuid;    /* never NULL for a stored bench (one stored before uuids
	                  existed: "bench-ID-STARTED", as the store names it) */
	char *machine; /* a server's: who pushed it; NULL locally */
	int64_t seed;
	int64_t started_wall_usec, ended_wall_usec; /* ended: 0 while running */
};
/* Fills *OUT: 0, 1 when there is no such bench (or no benches table), -1. */
int tm_bench_store_get(struct tm_store *st, int64_t bench_id, struct tm_bench_info *out);
void tm_bench_info_release(struct tm_bench_info *b);

/* The bench with UUID into *BENCH_ID: 0, 1 when there is none, -1. */
int tm_bench_store_by_uuid(struct tm_store *st, const char *uuid, int64_t *bench_id);

/* What tm_bench_store_run() recorded of RUN_ID into *OUT (wall_usec 0 and
 * rig_cpu_usec -1 when unknown): 0, 1 when nothing was, -1. */
int tm_bench_store_note(struct tm_store *st, int64_t run_id, struct tm_bench_run_note *out);

#endif
