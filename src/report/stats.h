/* Small statistics over arrays of doubles; NANs are skipped. */
#ifndef TM_STATS_H
#define TM_STATS_H

#include <stddef.h>

/* Median of the finite values (sorts a copy); NAN when there are none. */
double tm_median(const double *v, size_t n);

/* Least-squares line y = a + slope*x; returns 0 and sets slope and r2, or
 * -1 when there are fewer than 3 points or x does not vary. */
int tm_linreg(const double *x, const double *y, size_t n, double *slope, double *r2);

#endif
