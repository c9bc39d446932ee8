/*
 * What the bench says while it runs: the overall bar and ETA from the runs
 * so far, the live line fitted to the terminal, and the warning for runs
 * too short for their sampling interval.
 */
#ifndef TM_BENCH_LIVE_H
#define TM_BENCH_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/outcome.h"

/* Under this many samples a run's chart and figures show too little of it. */
#define TM_BENCH_FEW_SAMPLES 10

/* The runs of a bench so far: DONE of TOTAL ended, in DONE_USEC together
 * (each from its start to the next's: setup, hooks and settle included). */
struct tm_bench_eta {
	int done, total;
	int64_t done_usec;
};

/*
 * "[#######-------------] 3/12 ETA 1m05s" into BUF: the bar counts the
 * runs ended and the current one's share of a mean run (CUR_USEC run so
 * far); the ETA is the mean run times the runs left, less CUR_USEC (at
 * least 0), "ETA ?" before a run ended.
 */
void tm_bench_eta_text(const struct tm_bench_eta *e, int64_t cur_usec, char *buf, size_t size);

/*
 * Whether a run of WALL_USEC with SAMPLES samples at INTERVAL_USEC had too
 * few (under TM_BENCH_FEW_SAMPLES); then BUF says so and names the interval
 * that gives about 20 ("-i 20ms"), or, when even the least (50ms) gives too
 * few, that one and that the run is short.
 */
bool tm_bench_short_run_note(int64_t wall_usec, int samples, int64_t interval_usec, char *buf,
                             size_t size);

/* Writes the note of tm_bench_short_run_note to F, wrapped to the
 * terminal, when the run had too few samples; whether it did. */
bool tm_bench_warn_short(FILE *f, int64_t wall_usec, int samples, int64_t interval_usec);

/* Writes outcome O's name to F, in red or yellow with COLOR (stderr is a
 * terminal: tm_term_color) when it is not a success (base/term.h). */
void tm_bench_live_outcome(FILE *f, bool color, enum tm_outcome o);

/* Writes TEXT to F over the live line ("\r", erase line), cut to the
 * terminal's width less one column so it never wraps. */
void tm_bench_live_print(FILE *f, const char *text);

#endif
