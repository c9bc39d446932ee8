/*
 * The parameter value each run of a `bench --param` ran at (docs/bench.md,
 * docs/store.md): table `bench_params`, one row per run.  A store written
 * before it has no such table; tm_bench_params_init creates it (so the
 * first bench with a parameter migrates an older store), and reading a
 * store without it finds no values, which is what it holds.
 */
#ifndef TM_STORE_BENCH_PARAMS_H
#define TM_STORE_BENCH_PARAMS_H

#include <stdint.h>

struct tm_store;

/* Creates the table if needed.  0 or -1 after tm_error. */
int tm_bench_params_init(struct tm_store *st);

/* Records that run RUN_ID of bench BENCH_ID ran with NAME=VALUE (TEXT: what
 * {NAME} was replaced by).  0 or -1 after tm_error. */
int tm_bench_params_store(struct tm_store *st, int64_t bench_id, int64_t run_id, const char *name,
                          double value, const char *text);

/* Calls FN for every run of bench BENCH_ID with a value, by run id; FN's
 * strings are valid during the call only, its non-zero return stops the
 * walk and is returned.  0 (also for a store without the table), or -1
 * after tm_error. */
typedef int (*tm_bench_param_cb)(void *ctx, int64_t run_id, const char *name, double value,
                                 const char *text);
int tm_bench_params_each(struct tm_store *st, int64_t bench_id, tm_bench_param_cb fn, void *ctx);

#endif
