/*
 * What benchtab.c (statistics, cells) shares with benchnotes.c (the notes
 * under the table) and benchexport.c, and what benchexport.c (JSON, CSV)
 * shares with benchparamx.c.  Not for use outside src/report/.
 */
#ifndef TM_BENCHTAB_INT_H
#define TM_BENCHTAB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/bench/benchtab.h"

/* benchload.c: whether the registry's FROM of figure F names a source a
 * run's value is read from (a summary field, a derive_ function, the scraped
 * gauges); false for a number that is not a figure. */
bool tm_bench_fig_sourced(int f);

/* Runs whose machine was busy with something else, or stolen from. */
#define TM_BENCH_NOISY_STEAL 0.05
#define TM_BENCH_NOISY_OTHER 0.25

/* snprintf into a bounded cell that may truncate; returns what it wrote. */
size_t tm_bench_cellf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A number with 3 significant digits (whole numbers as such), "—" for NAN. */
void tm_bench_fmt_num(char *buf, size_t size, double v);
/* The same for a fitted value (a slope, a fixed part): never printed as a
 * whole number, which it is only by the float's rounding (12 MiB on one
 * machine, 12.0 on another). */
void tm_bench_fmt_estimate(char *buf, size_t size, double v);

/* Whether any arm has a value of figure F; whether every value is 0; whether
 * the table shows its row. */
bool tm_bench_row_has_data(const struct tm_bench_table *t, int f);
bool tm_bench_row_all_zero(const struct tm_bench_table *t, int f);
bool tm_bench_row_shown(const struct tm_bench_table *t, int f);
/* S's median is at or above figure F's noise floor (and not 0). */
bool tm_bench_above_floor(const struct tm_bench_stat *s, int f);
/* A counted run that was killed (oom-killed or by another signal). */
bool tm_bench_run_killed(const struct tm_bench_run_row *r);
/* Whether run R shared the machine: CPU steal (*STEAL) or others' load (*OTHER). */
bool tm_bench_run_noisy(const struct tm_bench_run_row *r, bool *steal, bool *other);

/* Display width of UTF-8 text S in columns: its code points (no wide or
 * combining characters: our cells use – and × only). */
int tm_bench_text_width(const char *s);
/* Writes S to OUT, then spaces up to display width W (none if S is wider). */
void tm_bench_pad(FILE *out, const char *s, int w);

/* A cell as text shows it: "n/a" for the "—" of a figure not known (the
 * HTML report shows "—"; docs/output.md).  tm_bench_text_width and
 * tm_bench_pad measure and write it so. */
const char *tm_bench_text_cell(const char *s);

/* benchexport.c: what WRITE prints for T, one JSON string per non-empty
 * line (newline cut off), a new reference; NULL when out of memory. */
json_t *tm_bench_lines_json(const struct tm_bench_table *t,
                            void (*write)(const struct tm_bench_table *, FILE *));
/* benchexport.c: a note's kind as JSON names it ("noise-floor", ...) for an
 * enum tm_bench_note; "note" for any other KIND.  A static string. */
const char *tm_bench_note_kind_name(int kind);
/* benchexport.c: a CSV number, %.10g; nothing (an empty field) for NAN/inf. */
void tm_bench_csv_num(FILE *out, double v);

#endif
