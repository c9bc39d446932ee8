/* tidemark report's figures of one run, in each of its forms. */
#ifndef TM_REPORT_RUNREPORT_H
#define TM_REPORT_RUNREPORT_H

#include <stdint.h>
#include <stdio.h>

#include "report/phases/phases.h"
#include "report/run/summary.h"

struct tm_store;
struct tm_run_info;

enum tm_report_fmt {
	TM_REPORT_TEXT,   /* the lines a person reads: outcome, memory, heap, costs, progress */
	TM_REPORT_JSON,   /* {run, figures, heap_profiles, throttle, scraped}; raw bytes, usec */
	TM_REPORT_CSV,    /* one header line and one row of the summary's figures */
	TM_REPORT_SERIES, /* every sample as CSV (tm_series_csv) */
};

/*
 * Run RUN of ST in FMT to OUT: its summary over the window W (NULL: the
 * whole run), or with TM_REPORT_SERIES its samples (SERIES_NAME: only that
 * series, NULL all; ROLLUP: 0 raw samples, 1 minute, 2 hour rollups).
 * Figures the run cannot give are n/a in text, null in JSON, empty in CSV.
 * 0, or -1 after tm_error (no such run, no samples in the window, the store).
 */
int tm_report_run(struct tm_store *st, int64_t run, const struct tm_window *w,
                  enum tm_report_fmt fmt, const char *series_name, int rollup, FILE *out);

/*
 * Summary S of run RI as report --csv prints it to OUT: a header line (run,
 * outcome, samples, then every figure of report/run/summaryfigs.h in its order)
 * and one row; a figure not known is an empty cell.
 */
void tm_summary_write_csv(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s);

/*
 * Run RUN of ST split into phases by SPLIT (its marks when SPLIT names no
 * values; docs/phases.md) in FMT (text, JSON or CSV) to OUT.  0, or -1
 * after tm_error (no such run, no samples, the store).
 */
int tm_report_phases(struct tm_store *st, int64_t run, const struct tm_phase_split *split,
                     enum tm_report_fmt fmt, FILE *out);

#endif
