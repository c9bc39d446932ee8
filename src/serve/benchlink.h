/*
 * Parts of tidemark the server uses that live in other files: the bench
 * comparison table (src/lib/benchtab.h) and run summaries (summary.h).
 * They are referenced weakly so the server builds and runs without them;
 * the *_available() checks say whether they were linked in.
 */
#ifndef TM_SERVE_BENCHLINK_H
#define TM_SERVE_BENCHLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "summary.h"

struct tm_store;
int tm_bench_table_json(struct tm_store *st, int64_t bench_id, char **json_out)
	__attribute__((weak));
#pragma weak tm_summarize

static inline bool tm_bench_table_available(void)
{
	return tm_bench_table_json != 0;
}

static inline bool tm_summary_available(void)
{
	return tm_summarize != 0;
}

#endif
