/* What a bench writes about itself beyond its tables (store/bench_tables.h). */
#ifndef TM_BENCHSTORE_H
#define TM_BENCHSTORE_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/bench.h"

#include "store/bench_tables.h"

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
