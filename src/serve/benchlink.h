/*
 * Parts of tidemark the server uses that live in other files: the bench
 * comparison table (src/lib/benchtab.h, from the bench branch).  It is
 * referenced weakly so the server builds and runs without it; the
 * *_available() check says whether it was linked in.
 */
#ifndef TM_SERVE_BENCHLINK_H
#define TM_SERVE_BENCHLINK_H

#include <stdbool.h>
#include <stdint.h>

struct tm_store;
int tm_bench_table_json(struct tm_store *st, int64_t bench_id, char **json_out)
    __attribute__((weak));

static inline bool tm_bench_table_available(void)
{
	return tm_bench_table_json != 0;
}

#endif
