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

#endif
