/*
 * The table of a `bench --param N=...` (docs/bench.md, "Footprint per unit
 * at scale"): per value of N, the bench table of the runs at that value
 * (survival, medians, ratios, kills, as the plain table); per arm and
 * figure across the values, the least-squares slope of the medians against
 * N (the cost per unit), the growth exponent (the slope on log–log axes)
 * and the R² of each, or why there is none (too few values).
 */
#ifndef TM_BENCHPARAM_H
#define TM_BENCHPARAM_H

#include <stdbool.h>
#include <stdio.h>

#include "report/bench/benchtab.h"

#define TM_BENCH_PTAB_MAX 64

/* A line through points (x, y): slope and intercept (the fixed part, y at
 * x = 0) from 2 points on, R² from 3 (a line through 2 points always
 * fits).  The growth exponent is that of what grows: k of the least-squares
 * fit y = base + c·x^k over the points with x > 0, so a fixed part (12 MiB
 * under 1.45 KiB per connection) does not flatten it as the slope of
 * log y against log x would; 0 when y does not vary.  It takes 3 points
 * (three unknowns), and its R² 4 (3 points fit such a curve exactly). */
struct tm_bench_fit {
	int n;                   /* points used for the line */
	double slope, intercept; /* y units per x unit, y units; NAN when n < 2 */
	double r2;               /* NAN when n < 3 or y does not vary */
	int n_log;               /* points used for the exponent (x > 0) */
	double exponent, exp_r2; /* NAN when n_log < 3; exp_r2 NAN when n_log < 4 */
	double exp_base;         /* y units: the fit's base; NAN with the exponent */
};
/* The smallest counts for a slope, for an R² that means something, for a
 * growth exponent over a base and for its R². */
#define TM_BENCH_FIT_MIN_SLOPE  2
#define TM_BENCH_FIT_MIN_R2     3
#define TM_BENCH_FIT_MIN_EXP    3
#define TM_BENCH_FIT_MIN_EXP_R2 4

/* Fits the finite points of X[0..N), Y[0..N) (a NAN in either skips the
 * point) into OUT.  Pure. */
void tm_bench_fit_of(const double *x, const double *y, int n, struct tm_bench_fit *out);

struct tm_bench_ptab {
	char name[32], spec[256]; /* "N", "N=1000..100000:x10" */
	int n;                    /* values */
	double values[TM_BENCH_PTAB_MAX];
	char texts[TM_BENCH_PTAB_MAX][24];
	struct tm_bench_table *by_value; /* N tables, of the runs at each value */
	double *run_value;               /* per run of the whole table: its value, or NAN */
	int unvalued;                    /* runs of the bench with no stored value */
	struct tm_bench_fit fit[TM_BENCH_TAB_MAX_ARMS][TM_BF_COUNT];
};

/* Whether figure F gets per-value rows and a fit: its registry line's
 * PARAM (report/bench/benchfigs.h): footprints (bytes: anon, memory, heap,
 * runtime heaps; not the page cache or io) and times. */
bool tm_bench_param_figure(int f);

/*
 * Reads the parameter of T's bench (T loaded by tm_bench_table_load) and
 * the value of each run, and builds the per-value tables and the fits into
 * T->param; T->param stays NULL for a bench without a parameter.  0, or -1
 * after tm_error.
 */
int tm_bench_param_attach(struct tm_store *st, struct tm_bench_table *t);
void tm_bench_param_free(struct tm_bench_ptab *p);

/* The outputs of a table with a parameter (benchtab.h's writers call
 * these when T->param is set). */
void tm_bench_param_write_text(const struct tm_bench_table *t, FILE *out);
void tm_bench_param_write_md(const struct tm_bench_table *t, FILE *out);
void tm_bench_param_write_csv(const struct tm_bench_table *t, FILE *out);
/* malloc'd JSON text, or NULL when out of memory. */
char *tm_bench_param_to_json(const struct tm_bench_table *t);

#endif
