/*
 * Throttle limbo: a cgroup held at memory.high, where the kernel makes the
 * service's threads sleep instead of killing it.  Found in a run's series
 * as stretches where memory.high events keep rising, the cgroup's memory
 * PSI `full` (every task stalled on memory) stays above a threshold, and
 * the progress rate falls below what it was before.  Said as "throttled by
 * memory.high from 10:42:05 to 11:15:30: 926,000 high events, memory full
 * 61 %, rate 172 → 2 units/min" wherever a run is shown.
 */
#ifndef TM_THROTTLE_H
#define TM_THROTTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct tm_store;

/* An interval is stalled when memory full stall took at least this share
 * of its time; a stretch of stalled intervals is throttled when memory.high
 * events rose over it. */
#define TM_THROTTLE_FULL_SHARE 0.10
/* A stretch counts once it has this many stalled sampling intervals (sustained). */
#define TM_THROTTLE_MIN_INTERVALS 3
/* Stalled pieces separated by unstalled time no longer than the larger of
 * these are one stretch (the program's own rhythm: a unit of work, a wait);
 * the stretch is then judged over its whole length (memory full at least
 * TM_THROTTLE_FULL_SHARE of it, memory.high events rising). */
#define TM_THROTTLE_JOIN_USEC      3000000
#define TM_THROTTLE_JOIN_INTERVALS 3
/* ... and the progress rate in it is below this share of the rate before. */
#define TM_THROTTLE_RATE_FALL 0.5

struct tm_throttle_span {
	int64_t start_wall_usec, end_wall_usec;
	int64_t start_mono_usec, end_mono_usec;
	double high_events;         /* memory.high events in the stretch */
	double mem_full_share;      /* memory PSI full usec / the stretch's length */
	double rate_before_per_min; /* progress units/min before it (as long a stretch; when that
	                               reaches into the stretch before, the rate before that one),
	                               NAN: unknown */
	double rate_during_per_min; /* in it, NAN: no progress recorded */
};

#define TM_THROTTLE_MAX_SPANS 16

struct tm_throttle {
	bool known; /* false: the run cannot tell (why says which figure is missing) */
	char why[160];
	int n; /* stretches found (at most TM_THROTTLE_MAX_SPANS kept) */
	struct tm_throttle_span spans[TM_THROTTLE_MAX_SPANS];
	double throttled_usec; /* their total length */
};

/* Finds the throttled stretches of run RUN_ID between mono times FROM and TO
 * (usec; TO < 0: to the end).  0 (OUT->known says whether the run could
 * tell), or -1 after tm_error. */
int tm_throttle_find(struct tm_store *st, int64_t run_id, int64_t from_mono_usec,
                     int64_t to_mono_usec, struct tm_throttle *out);

/* The same from samples given one at a time, in bounded memory: create
 * with the window and the run's progress points (copied; N of them, time
 * order), add each sample's (mono, wall, memory.high events, PSI memory
 * full usec; NAN when absent) in order, finish into OUT (which frees TS).
 * new: NULL when out of memory. */
struct tm_throttle_stream;
struct tm_throttle_stream *tm_throttle_stream_new(int64_t from_mono_usec, int64_t to_mono_usec,
                                                  const int64_t *prog_mono, const double *prog_v,
                                                  size_t n);
void tm_throttle_stream_add(struct tm_throttle_stream *ts, int64_t mono, int64_t wall, double high,
                            double full);
/* Says the run cannot tell (WHY) whatever the samples say. */
void tm_throttle_stream_unknown(struct tm_throttle_stream *ts, const char *why);
void tm_throttle_stream_finish(struct tm_throttle_stream *ts, struct tm_throttle *out);

/* One stretch as the sentence above (local time), into BUF. */
void tm_throttle_span_text(const struct tm_throttle_span *s, char *buf, size_t size);

/* As JSON: {"known": true, "spans": [{start_wall_usec, end_wall_usec,
 * high_events, mem_full_share, rate_before_per_min, rate_during_per_min,
 * text}], "throttled_usec"} or {"known": false, "why": ...}.  New
 * reference, or NULL when out of memory. */
json_t *tm_throttle_json(const struct tm_throttle *t);

#endif
