#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/stats.h"
#include "base/banned.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double tm_median(const double *v, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), m;
	size_t k = 0;

	if (!c)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			c[k++] = v[i];
	if (!k) {
		free(c);
		return NAN;
	}
	qsort(c, k, sizeof(*c), cmp_double);
	m = k % 2 ? c[k / 2] : (c[k / 2 - 1] + c[k / 2]) / 2;
	free(c);
	return m;
}

int tm_linreg(const double *x, const double *y, size_t n, double *slope, double *r2)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		sx += x[i];
		sy += y[i];
		k++;
	}
	if (k < 3)
		return -1;
	double mx = sx / k, my = sy / k;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx <= 0)
		return -1;
	*slope = sxy / sxx;
	*r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
	return 0;
}
