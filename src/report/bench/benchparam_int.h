/*
 * What benchparam.c (the model, the text) shares with benchparamx.c (JSON,
 * CSV, Markdown).  Not for use outside src/report/.
 */
#ifndef TM_BENCHPARAM_INT_H
#define TM_BENCHPARAM_INT_H

#include "report/bench/benchparam.h"

/* What a row of the text table is. */
enum tm_bench_prow_kind {
	TM_PROW_TITLE,     /* a figure's (or survival's) label, or the arms' names */
	TM_PROW_VALUE,     /* the figure at one value */
	TM_PROW_SLOPE,     /* the fit: per unit */
	TM_PROW_EXPONENT,  /* the fit: the growth exponent */
	TM_PROW_INTERCEPT, /* the fit: the fixed part (the line at N = 0) */
};

struct tm_bench_prow {
	int row;  /* enum tm_bench_tab_row or enum tm_bench_fig */
	int kind; /* enum tm_bench_prow_kind */
	int vi;   /* the value's index for TM_PROW_VALUE, else -1 */
	char label[64];
	char cells[TM_BENCH_TAB_MAX_ARMS][96];
};
struct tm_bench_prows {
	struct tm_bench_prow *rows; /* malloc'd */
	int n, cap;
};
/* The rows as the terminal prints them into RS (free RS->rows).  0 or -1. */
int tm_bench_param_rows(const struct tm_bench_table *t, struct tm_bench_prows *rs);

/* The fit's cell of KIND (TM_PROW_SLOPE, _INTERCEPT or _EXPONENT): "26.0
 * KiB  R² 0.9998", "12.0 MiB", "1.00  R² 0.9999", or why there is no
 * figure ("n/a: 1 value"). */
void tm_bench_param_fit_cell(const struct tm_bench_fit *fit, int f, int kind, char *buf,
                             size_t size);

#define TM_PNOTE_FIT 100 /* a note kind beyond enum tm_bench_note: the fits' legend */
struct tm_bench_pnote {
	int kind; /* enum tm_bench_note, or TM_PNOTE_FIT */
	char text[900];
};
/* The notes under the table (malloc'd array in *OUT, its count returned). */
int tm_bench_param_notes(const struct tm_bench_table *t, struct tm_bench_pnote **out);

/* The header lines: the bench's, then the parameter's, then a blank line. */
void tm_bench_param_write_header(const struct tm_bench_table *t, FILE *out);

#endif
