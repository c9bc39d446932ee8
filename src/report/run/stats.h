/* Small statistics over arrays of doubles; NANs are skipped. */
#ifndef TM_STATS_H
#define TM_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Median of the finite values (sorts a copy); NAN when there are none. */
double tm_median(const double *v, size_t n);

/* Least-squares line y = a + slope*x; returns 0 and sets slope and r2, or
 * -1 when there are fewer than 3 points or x does not vary. */
int tm_linreg(const double *x, const double *y, size_t n, double *slope, double *r2);

/*
 * The Mann–Whitney U test (Wilcoxon rank-sum) of two independent samples:
 * whether values of A tend to be larger or smaller than values of B, with no
 * assumption about their distribution.  NANs are skipped; ties get midranks.
 */
struct tm_mann_whitney {
	int n_a, n_b; /* finite values used */
	double u;     /* U of A: pairs (a, b) with a > b, ties counting 1/2 */
	double p;     /* two-sided p-value; NAN when either sample is empty */
	bool exact;   /* p from the exact distribution of U given the ties
	                 (n_a + n_b <= TM_MW_EXACT_MAX), else the normal
	                 approximation with tie and continuity corrections */
};

#define TM_MW_EXACT_MAX 40

/* Fills OUT for samples A[0..NA) and B[0..NB).  0, or -1 when out of memory
 * (OUT then has p NAN). */
int tm_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    struct tm_mann_whitney *out);
/* The normal approximation alone (what tm_mann_whitney uses past
 * TM_MW_EXACT_MAX), for tests: 0 or -1. */
int tm_mann_whitney_normal(const double *a, size_t na, const double *b, size_t nb,
                           struct tm_mann_whitney *out);

/* The smallest two-sided p the exact test can give with NA and NB values
 * (complete separation, no ties): 2 / C(NA+NB, NA), at most 1.  3 vs 3 gives
 * 0.1, so no difference between 3 and 3 runs is significant at 0.05. */
double tm_mann_whitney_min_p(int na, int nb);
/* The fewest values M (1..1000) a sample compared with one of N values needs
 * for tm_mann_whitney_min_p(N, M) <= ALPHA, or -1 when even 1000 is not
 * enough (N < 1). */
int tm_mann_whitney_min_n(int n, double alpha);

/* The modified Z-score of Iglewicz and Hoaglin: 0.6745 (X - MEDIAN) / MAD;
 * ±INFINITY when MAD is 0 and X differs from MEDIAN, 0 when it does not. */
double tm_modified_z(double x, double median, double mad);

#endif
