/*
 * The experiment runner: every run of every arm, interleaved, each in a
 * fresh memory-limited cgroup from the same restored state, with the
 * hooks, the live progress line, the rows a bench writes about itself, and
 * the table at the end.  `tidemark bench` parses options into a
 * struct tm_bench_spec, plans it (tm_bench_plan_new), opens the store and
 * runs it (tm_bench_execute), or shows an earlier table (tm_bench_show_table).
 */
#ifndef TM_BENCH_RUNNER_H
#define TM_BENCH_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "bench/bench.h"
#include "cgroup/cgroup.h"
#include "report/phases/phases.h"

#define TM_BENCH_MAX_EXPORTS 3

/* How a bench's table is shown. */
struct tm_bench_output {
	bool json;                                 /* the table as JSON on stdout */
	const char *exports[TM_BENCH_MAX_EXPORTS]; /* "FMT[:PATH]": json, csv, md */
	int n_exports;
	bool phases;                 /* also the arms compared phase by phase */
	struct tm_phase_split split; /* ... split at marks, or at progress values */
};

enum tm_bench_status {
	TM_BENCH_OK,     /* every run was recorded, whatever its outcome */
	TM_BENCH_FAILED, /* a runtime failure, or interrupted (the table of the runs so far follows)
	                  */
	TM_BENCH_BAD_INPUT, /* the spec, the command or --restore is wrong, or the guard refused */
};

struct tm_store;
struct tm_bench_plan;

/*
 * Checks and completes SP (a seed for shuffle, the allocator libraries,
 * the guard against our environment, --restore), plans each arm's command,
 * environment and limits, and prints the plan on stderr.  ARGV is the
 * shared command (after --) or NULL; it and SP must outlive the plan.
 * TM_BENCH_OK with *OUT (free with tm_bench_plan_free), or the status
 * after tm_error.
 */
enum tm_bench_status tm_bench_plan_new(struct tm_bench_spec *sp, char *const *argv,
                                       struct tm_bench_plan **out);
void tm_bench_plan_free(struct tm_bench_plan *plan);

/*
 * Runs every run of PLAN into the open store ST (STORE_NAME for
 * messages), each written as it ends, then prints the table as OUT says.
 * TM_BENCH_OK, or TM_BENCH_FAILED after tm_error (interrupted: the table
 * of the runs so far is still printed).
 */
enum tm_bench_status tm_bench_execute(struct tm_bench_plan *plan, struct tm_store *st,
                                      const char *store_name, const struct tm_bench_output *out);

/* --push: starts sending the plan's runs to the server as each ends
 * (record/pushthread.h), reading the store at STORE_PATH.  0 (also without
 * --push), or -1 after tm_error. */
int tm_bench_push_begin(struct tm_bench_plan *b, const char *store_path);
/* Sends what is left while the server answers (10 s at most) and stops. */
void tm_bench_push_end(struct tm_bench_plan *b);

/* The table of BENCH_ID in the open store ST (STORE_NAME for messages),
 * shown as OUT says: 0, or -1 after tm_error ("no bench 3 in x.db" too). */
int tm_bench_show_table(struct tm_store *st, const char *store_name, int64_t bench_id,
                        const struct tm_bench_output *out);

/* What one probe of a sweep (or a verification) ran. */
struct tm_bench_probe {
	int64_t bench_id;
	int tried, survived; /* counted runs, and those that completed */
};

/*
 * Runs arm AI of PLAN N times under LIMITS, as a bench of its own named
 * NAME, into the open store ST (every run stored as it ends).  Fills OUT.
 * 0, 1 when interrupted (the runs so far are stored), or -1 after tm_error.
 */
int tm_bench_run_probe(struct tm_bench_plan *plan, struct tm_store *st, int ai,
                       const struct tm_limits *limits, int n, const char *name,
                       struct tm_bench_probe *out);

/* Arm AI's planned command, allocation environment ("VAR=VAL ...") and
 * limits, borrowed from PLAN.  0, or -1 when there is no such arm. */
int tm_bench_plan_arm(const struct tm_bench_plan *plan, int ai, char *const **argv,
                      const char **env_text, struct tm_limits *limits);
/* The spec PLAN was made from (borrowed). */
const struct tm_bench_spec *tm_bench_plan_spec(const struct tm_bench_plan *plan);

/*
 * bench --sweep: per arm of PLAN, bisects SP->sweep's limit between LO and
 * HI to its resolution for the smallest at which every run survives (for
 * MemoryHigh: completes without throttle limbo), reusing runs of the same
 * command, environment and limits already in ST, each probe a bench of
 * its own; prints the survival curve (text, or JSON with OUT->json).
 * TM_BENCH_OK, or TM_BENCH_FAILED after tm_error (interrupted: the curve
 * so far is still printed and every run made is stored).
 */
enum tm_bench_status tm_bench_sweep(struct tm_bench_plan *plan, struct tm_store *st,
                                    const char *store_name, const struct tm_bench_output *out);

/* Reads the experiment file at PATH into SP (tm_bench_parse_ini).  0 or -1. */
int tm_bench_load_file(struct tm_bench_spec *sp, const char *path);

#endif
