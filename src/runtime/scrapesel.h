/*
 * record --scrape URL[,metric...]: which series of a Prometheus endpoint's
 * text (runtime/promtext.h) are kept, and under which name.  Pure: the
 * option's text in, a spec out; an exposition in, the chosen values out.
 * docs/runtimes.md ("Any Prometheus endpoint") is the user's description.
 *
 * Naming: a series is stored as its sample name, followed, when it has
 * labels, by all its labels sorted by label name, values escaped as the
 * format escapes them: go_gc_duration_seconds{quantile="0.5"},
 * http_requests_total{code="200",method="get"}.
 *
 * Choosing: a metric of the list, NAME or NAME{label="value",...}, takes
 * every sample called NAME whose labels include the ones given; when NAME
 * is a histogram's or a summary's family (its "# TYPE" line), also its
 * NAME_sum and NAME_count (the buckets only when NAME_bucket is asked
 * for).  With no list, every sample but histogram buckets.  At most
 * TM_SCRAPE_MAX_SERIES series a target; the rest are counted as dropped.
 * A value that is NaN or infinite is left out (absent), as is a metric
 * the endpoint does not serve.
 *
 * Go: whatever the list, a Go program's own series fill tidemark's
 * metrics of the same meaning: go_memstats_heap_alloc_bytes into
 * go_heap_alloc_bytes, go_memstats_heap_inuse_bytes into
 * go_heap_inuse_bytes, go_gc_duration_seconds_count (NumGC) into
 * gc_cycles and go_gc_heap_live_bytes (runtime/metrics' /gc/heap/live)
 * into gc_heap_live_bytes.  HeapAlloc is not the live heap after a GC (it
 * holds garbage not yet swept), so it never fills gc_heap_live_bytes.
 */
#ifndef TM_SCRAPESEL_H
#define TM_SCRAPESEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "runtime/promtext.h"

struct tm_err;

#define TM_SCRAPE_MAX_TARGETS 8    /* --scrape options a run */
#define TM_SCRAPE_SPEC_MAX    2048 /* bytes of one --scrape value */
#define TM_SCRAPE_URL_MAX     1024
#define TM_SCRAPE_MAX_WANTS   32  /* metrics listed in one --scrape */
#define TM_SCRAPE_MAX_LABELS  8   /* label matchers of one listed metric */
#define TM_SCRAPE_MAX_SERIES  64  /* series kept from one target */
#define TM_SCRAPE_NAME_MAX    256 /* a series' name, labels included, with its NUL */

struct tm_scrape_want {
	char name[TM_SCRAPE_NAME_MAX];
	size_t nlabels;
	char lname[TM_SCRAPE_MAX_LABELS][64];
	char lvalue[TM_SCRAPE_MAX_LABELS][128];
};

struct tm_scrape_spec {
	char url[TM_SCRAPE_URL_MAX];
	size_t nwant;
	struct tm_scrape_want want[TM_SCRAPE_MAX_WANTS];
};

/*
 * Parses one --scrape value, URL[,metric...] (commas inside a metric's
 * braces or quotes belong to it), into *OUT.  The URL must be http:// or
 * https:// with a host; each metric NAME or NAME{label="value",...} as
 * the exposition format spells them.  0, or -1 with ERR
 * saying what is wrong, quoting it.
 */
int tm_scrape_spec_parse(const char *text, struct tm_scrape_spec *out, struct tm_err *err);

struct tm_scrape_value {
	char name[TM_SCRAPE_NAME_MAX]; /* as the header says */
	double value;                  /* finite */
	enum tm_prom_type type;        /* the family's, from its # TYPE line */
};

struct tm_scrape_result {
	size_t n;
	struct tm_scrape_value v[TM_SCRAPE_MAX_SERIES];
	size_t dropped;      /* chosen series past the cap, or with a name too long */
	uint32_t matched;    /* bit i: the list's metric i matched a sample with a value */
	struct tm_sample go; /* the Go metrics served (only present[] and v[] used) */
};

/*
 * The series SPEC chooses from LEN bytes of exposition text, into *OUT
 * (the first of a name served twice wins).  0, or -1 with the parser's
 * reason in ERR: a page that does not parse gives nothing,
 * not the part before the bad line.
 */
int tm_scrape_select(const struct tm_scrape_spec *spec, const char *buf, size_t len,
                     struct tm_scrape_result *out, struct tm_err *err);

/* The name a listed metric W stands for (its labels sorted, scrapesel.h's
 * naming), for saying it was never served.  -1 when it does not fit. */
int tm_scrape_want_name(const struct tm_scrape_want *w, char *out, size_t size);

/* Whether a value named NAME is in R (1 with *VALUE set) or not (0). */
int tm_scrape_result_get(const struct tm_scrape_result *r, const char *name, double *value);

/*
 * The Go metrics of R into S, each only where S has none yet (the GC lines
 * of --runtime go, read first, win for gc_cycles and gc_heap_live_bytes).
 */
void tm_scrape_go_into(const struct tm_scrape_result *r, struct tm_sample *s);

#endif
