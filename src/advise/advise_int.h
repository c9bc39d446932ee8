/* What the files of src/advise/ share.  Not for use outside it. */
#ifndef TM_ADVISE_INT_H
#define TM_ADVISE_INT_H

#include "advise/advise.h"

/* BYTES rounded up to a whole MiB (what a unit file spells as NNNM). */
double tm_advise_round_up(double bytes);
/* Orders the arms (A->order, each arm's rank) and picks A->recommended. */
void tm_advise_rank(struct tm_advise *a);
/* "×0.78 (p=0.004)", "×0.78 (n.s., p=0.40)", "×0.78 (too few runs)", "—". */
void tm_advise_ratio_text(const struct tm_advise *a, int arm, enum tm_bench_fig f, char *buf,
                          size_t size);

/* snprintf at BUF + N, bounded by SIZE; what it added (0 when full). */
__attribute__((format(printf, 4, 5))) size_t tm_advise_appendf(char *buf, size_t size, size_t n,
                                                               const char *fmt, ...);

/* Why the runs did not decide between the recommended arm and the arms
 * they could not tell from it (A->undecided), what they show (survival, each
 * figure's ratio of medians with the ranges), and what it takes to decide. */
struct tm_advise_undecided {
	char why[160];   /* "3 runs against 3 cannot reach p < 0.05 in ..." */
	char shows[768]; /* "glibc 3/3 survived, arena1 3/3; arena1: anon peak ×0.31 ..." */
	char decide[96]; /* "--runs 4 (or 5 runs against 3)" */
};
/* Fills U and returns true when A recommends an arm the runs did not
 * decide on; false (U empty) when they did, or nothing is recommended. */
bool tm_advise_undecided_text(const struct tm_advise *a, struct tm_advise_undecided *u);

#endif
