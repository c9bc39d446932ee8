/*
 * A run's scraped series (record --scrape; store/scraped.h) as figures:
 * per series how many samples have a value, the first, last, lowest and
 * highest value; printed as text, JSON and CSV columns.  A series without
 * values (never served, or every scrape missed) has NaN figures: n/a in
 * text, null in JSON.
 */
#ifndef TM_REPORT_SCRAPED_H
#define TM_REPORT_SCRAPED_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

struct tm_store;

struct tm_scraped_fig {
	int64_t id;
	char name[272];
	char kind[16]; /* gauge, counter, untyped, histogram, summary, unknown */
	char source[1024];
	int64_t values;               /* samples with a value */
	double first, last, min, max; /* NaN without values */
	int64_t first_seq, last_seq;  /* -1 without values */
};

struct tm_scraped_figs {
	size_t n;
	struct tm_scraped_fig *f;
	/* the run's first kept sample when raw samples (and their scraped
	 * values) were pruned, else 0: the figures cover seqs from it on */
	int64_t kept_from_seq;
};

/* The figures of run RUN's series into *OUT (release it).  0, or -1 after
 * tm_error. */
int tm_scraped_summarize(struct tm_store *st, int64_t run, struct tm_scraped_figs *out);
void tm_scraped_release(struct tm_scraped_figs *f);

/* The series called NAME, or NULL. */
const struct tm_scraped_fig *tm_scraped_find(const struct tm_scraped_figs *f, const char *name);

/* Whether a series counts up (a counter, or a histogram's or summary's
 * _sum and _count): its figure is the rise, not a peak. */
int tm_scraped_is_counter(const struct tm_scraped_fig *g);

/* The figures as a JSON array of {name, kind, source, values, samples,
 * first, last, min, max, rise, kept_from_seq} (rise: last - first for
 * counters, else null; absent figures null; kept_from_seq: the first kept
 * sample when earlier ones were pruned, else null).  SAMPLES is the run's sample count.  NULL
 * when out of memory. */
json_t *tm_scraped_json(const struct tm_scraped_figs *f, int64_t samples);

/* The "scraped" lines of `report` (nothing when the run has none); over a
 * pruned run they say the figures cover the kept stretch only. */
void tm_scraped_text(FILE *out, const struct tm_scraped_figs *f, int64_t samples);

/* One series' values as CSV (seq,t_wall_usec,value) on OUT: a stored
 * metric of base/metrics.h or a scraped series called NAME.  0, 1 when the
 * run has neither, -1 after tm_error. */
int tm_scraped_series_csv(struct tm_store *st, int64_t run, const char *name, FILE *out);

/* The CSV of every sample (report --series): a column per metric, then
 * one per scraped series (empty cells where absent).  0 or -1. */
int tm_scraped_all_csv(struct tm_store *st, int64_t run, FILE *out);

#endif
