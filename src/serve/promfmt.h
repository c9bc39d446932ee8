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

struct tm_prom_target {
	const char *machine, *run, *cgroup; /* label values; NULL is "" */
	const struct tm_sample *s;
	bool current;                          /* the run is live: its values are exported */
	const char *state;                     /* "live", "ended", "stale" (NULL: live) */
	const struct tm_prom_scraped *scraped; /* NSCRAPED of them (may be NULL) */
	size_t nscraped;
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
