/*
 * The server's --max-rate: a token bucket per machine, counting every row
 * a push writes (samples, events, progress points, marks, scraped values).
 * The table holds TM_RATE_MACHINES buckets; growing past it never hands out
 * a fresh allowance: a bucket makes room for a new machine only once it is
 * full again (its machine would have it full anyway), and while none is,
 * new machines share one overflow bucket, which is never reset; a machine
 * that gets a bucket of its own later starts from the overflow's balance.
 * Single-threaded (the server's one event loop).
 */
#ifndef TM_SERVE_RATELIMIT_H
#define TM_SERVE_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>

#define TM_RATE_MACHINES 256

struct tm_rate_table;

/* RATE_PER_SEC rows/s per machine, up to BURST rows saved up (each
 * machine starts with BURST).  NULL when out of memory. */
struct tm_rate_table *tm_rate_table_new(double rate_per_sec, double burst);
void tm_rate_table_free(struct tm_rate_table *t);

/* MACHINE writes ROWS at NOW_USEC (CLOCK_MONOTONIC): 0 when allowed (and
 * counted), else the whole seconds to wait before asking again.  A batch
 * larger than the burst is allowed once the bucket is full, and leaves it
 * in debt: over any time the rows allowed stay within the burst, the rate
 * and one batch. */
int64_t tm_rate_take(struct tm_rate_table *t, const char *machine, double rows, int64_t now_usec);

#endif
