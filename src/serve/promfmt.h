/*
 * Prometheus text exposition (format 0.0.4) of the latest sample of one or
 * more runs.  Names follow Prometheus conventions: a tidemark_ prefix, base
 * units (bytes, seconds), _total on counters; cgroup memory events are one
 * family with an event label; cAdvisor's and node_exporter's names where
 * the meaning is the same.  Every series carries a machine label; which run
 * (uuid), cgroup and state it comes from is tidemark_run_info's (value 1).
 * A limit of -1 ("no limit") is left out; a target whose run is not
 * current (ended, stale) exports only its run info and last sample time.
 * Callers bound cardinality by passing one target per machine.
 */
#ifndef TM_SERVE_PROMFMT_H
#define TM_SERVE_PROMFMT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/sample.h"

/* A series read from the target's own endpoint at the latest sample
 * (record --scrape): exported as tidemark_scraped{series=NAME,kind=KIND}. */
struct tm_prom_scraped {
	const char *name; /* as stored: the series' name with its labels */
	const char *kind; /* gauge, counter, untyped, histogram, summary */
	double value;     /* finite */
};

/*
 * The service's own progress (--progress): the values its output gave, the
 * last TM_PROM_PROGRESS_POINTS of them, each kept a second or more after the
 * one before (the newest is replaced by a later one until a second has
 * passed): 64 always reach back further than a minute, for the rate.  Times
 * in one clock of the caller's (the recorder's monotonic, the server's
 * wall time), in µs.
 */
#define TM_PROM_PROGRESS_POINTS      64
#define TM_PROM_PROGRESS_WINDOW_USEC (60 * 1000000LL)
struct tm_prom_progress {
	size_t n, head; /* head: the newest point's index */
	int64_t t_usec[TM_PROM_PROGRESS_POINTS];
	double v[TM_PROM_PROGRESS_POINTS];
};
/* Adds the point (T_USEC, VALUE); a point not after the newest one, or not
 * finite, is ignored. */
void tm_prom_progress_add(struct tm_prom_progress *p, int64_t t_usec, double value);
/* The progress's rate at NOW_USEC in units a second: its value at NOW minus
 * its value a minute before (each the last point at or before that time),
 * over that minute; over the time since the first point when it is younger
 * than a minute.  0 and *RATE, or -1 (no points, or no time since the
 * first one). */
int tm_prom_progress_rate(const struct tm_prom_progress *p, int64_t now_usec, double *rate);

/* A family that is no metric of the registry's samples, and its HELP: the
 * progress ones.  NULL-terminated; test_promhelp walks it too. */
struct tm_prom_family {
	const char *name, *type, *help;
};
extern const struct tm_prom_family tm_prom_extra_families[];

struct tm_prom_target {
	const char *machine, *run, *cgroup; /* label values; NULL is "" */
	const struct tm_sample *s;
	bool current;                          /* the run is live: its values are exported */
	const char *state;                     /* "live", "ended", "stale" (NULL: live) */
	const struct tm_prom_scraped *scraped; /* NSCRAPED of them (may be NULL) */
	size_t nscraped;
	const struct tm_prom_progress *progress; /* NULL or no points: none */
	int64_t progress_now_usec;               /* "now" in the progress's clock */
};

/* The exposition for N targets, malloc'd, NUL-terminated; NULL on OOM. */
char *tm_prom_format(const struct tm_prom_target *t, size_t n);

/* What metric M of family FAMILY is, for its HELP line (static), or NULL
 * when the table lacks it (a test walks the registry so none does). */
const char *tm_prom_help(enum tm_metric m, const char *family);

/* The Prometheus family name of metric M ("tidemark_memory_anon_bytes"),
 * with its label (e.g. event="oom_kill") in LABEL, or "" when none. */
void tm_prom_name(enum tm_metric m, char *name, size_t size, char *label, size_t label_size,
                  double *scale);

#endif
