/*
 * The experiment runner: every run of every arm, interleaved, each in a
 * fresh memory-limited cgroup from the same restored state, with the
 * hooks, the live progress line, the rows a bench writes about itself, and
 * the table at the end.  `tidemark bench` parses options into a
 * struct tm_bench_spec and calls tm_bench_run() or tm_bench_show().
 */
#ifndef TM_BENCH_RUNNER_H
#define TM_BENCH_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"

#define TM_BENCH_MAX_EXPORTS 3

/* How a bench's table is shown. */
struct tm_bench_output {
	bool json;                                 /* the table as JSON on stdout */
	const char *exports[TM_BENCH_MAX_EXPORTS]; /* "FMT[:PATH]": json, csv, md */
	int n_exports;
};

struct tm_bench_request {
	const char *store_path; /* the store to write to */
	char *const *argv;      /* the shared command (after --), or NULL */
	bool dry_run;           /* print the arms and their environments, run nothing */
	struct tm_bench_output out;
};

enum tm_bench_status {
	TM_BENCH_OK,     /* every run was recorded, whatever its outcome */
	TM_BENCH_FAILED, /* a runtime failure, or interrupted (the table of the runs so far follows)
	                  */
	TM_BENCH_BAD_INPUT, /* the spec, the command or --restore is wrong, or the guard refused */
};

/*
 * Checks and completes SP (a seed for shuffle, the allocator libraries,
 * the guard against our environment), prints the plan on stderr, runs
 * every run and prints the table.  Errors are reported through tm_error.
 */
enum tm_bench_status tm_bench_run(struct tm_bench_spec *sp, const struct tm_bench_request *rq);

/* Prints the table of bench BENCH_ID in the store at STORE_PATH and writes its exports. */
enum tm_bench_status tm_bench_show(const char *store_path, int64_t bench_id,
                                   const struct tm_bench_output *out);

struct tm_store;
/* The table of BENCH_ID in the open store ST, shown as OUT says: 0, or -1
 * after tm_error (also when there is no such bench). */
int tm_bench_show_table(struct tm_store *st, int64_t bench_id, const struct tm_bench_output *out);

/* Reads the experiment file at PATH into SP (tm_bench_parse_ini).  0 or -1. */
int tm_bench_load_file(struct tm_bench_spec *sp, const char *path);

#endif
