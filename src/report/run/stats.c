#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/run/stats.h"
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

/* ---- Mann–Whitney U ---- */

struct ranked {
	double v;
	bool in_a;
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

/* The finite values of A and B, sorted, into *OUT (malloc'd); their count, or
 * -1 when out of memory. */
static int pool(const double *a, size_t na, const double *b, size_t nb, struct ranked **out,
                int *n_a)
{
	struct ranked *r = malloc((na + nb ? na + nb : 1) * sizeof(*r));
	int n = 0;

	*n_a = 0;
	if (!r)
		return -1;
	for (size_t i = 0; i < na; i++)
		if (isfinite(a[i])) {
			r[n++] = (struct ranked){a[i], true};
			(*n_a)++;
		}
	for (size_t i = 0; i < nb; i++)
		if (isfinite(b[i]))
			r[n++] = (struct ranked){b[i], false};
	qsort(r, (size_t)n, sizeof(*r), cmp_ranked);
	*out = r;
	return n;
}

/* Twice the midrank of each value (an integer: ranks i+1..j+1 of a tie group
 * average to (i+j+2)/2) into RANK2; returns the sum of t^3 - t over the tie
 * groups. */
static double midranks2(const struct ranked *r, int n, int64_t *rank2)
{
	double ties = 0;

	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && r[j + 1].v == r[i].v)
			j++;
		for (int k = i; k <= j; k++)
			rank2[k] = i + j + 2;
		double t = j - i + 1;
		ties += t * t * t - t;
		i = j + 1;
	}
	return ties;
}

static void mw_init(struct tm_mann_whitney *out)
{
	memset(out, 0, sizeof(*out));
	out->u = out->p = NAN;
}

/* The exact two-sided p: the share of the C(N, NA) ways to pick NA of the N
 * (doubled) ranks whose sum lies at least as far from its mean as W2. */
static int exact_p(const int64_t *rank2, int n, int na, int64_t w2, double *p)
{
	int64_t max_sum = 0;
	for (int i = 0; i < n; i++)
		max_sum += rank2[i];
	size_t width = (size_t)max_sum + 1;
	double *cnt = calloc((size_t)(na + 1) * width, sizeof(double));

	if (!cnt)
		return -1;
	int64_t so_far = 0; /* the largest sum the first i ranks reach */
	cnt[0] = 1;         /* cnt[k * width + s]: ways to pick k ranks summing to s */
	for (int i = 0; i < n; i++) {
		so_far += rank2[i];
		for (int k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
			for (int64_t s = so_far; s >= rank2[i]; s--)
				cnt[(size_t)k * width + (size_t)s] +=
				    cnt[(size_t)(k - 1) * width + (size_t)(s - rank2[i])];
	}
	int64_t mean2 = (int64_t)na * (n + 1); /* twice na (n+1) / 2 */
	int64_t dist = w2 > mean2 ? w2 - mean2 : mean2 - w2;
	double tail = 0, all = 0;
	for (int64_t s = 0; s <= max_sum; s++) {
		double c = cnt[(size_t)na * width + (size_t)s];
		all += c;
		if ((s > mean2 ? s - mean2 : mean2 - s) >= dist)
			tail += c;
	}
	free(cnt);
	*p = all > 0 ? fmin(1.0, tail / all) : NAN;
	return 0;
}

static double normal_p(double u, int na, int nb, int n, double ties)
{
	double mu = (double)na * nb / 2;
	double var = (double)na * nb / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
	if (!(var > 0))
		return 1.0;
	double z = (fabs(u - mu) - 0.5) / sqrt(var);
	return z <= 0 ? 1.0 : fmin(1.0, erfc(z / sqrt(2.0)));
}

static int mann_whitney(const double *a, size_t na, const double *b, size_t nb, bool allow_exact,
                        struct tm_mann_whitney *out)
{
	struct ranked *r = NULL;
	int n_a, n = pool(a, na, b, nb, &r, &n_a);
	int64_t *rank2 = NULL, w2 = 0;
	int rc = -1;

	mw_init(out);
	if (n < 0)
		return -1;
	out->n_a = n_a;
	out->n_b = n - n_a;
	if (!(rank2 = malloc((size_t)(n ? n : 1) * sizeof(*rank2))))
		goto out;
	double ties = midranks2(r, n, rank2);
	for (int i = 0; i < n; i++)
		if (r[i].in_a)
			w2 += rank2[i];
	rc = 0;
	if (!out->n_a || !out->n_b)
		goto out;
	out->u = (double)w2 / 2 - (double)n_a * (n_a + 1) / 2;
	out->exact = allow_exact && n <= TM_MW_EXACT_MAX;
	if (out->exact)
		rc = exact_p(rank2, n, n_a, w2, &out->p);
	else
		out->p = normal_p(out->u, out->n_a, out->n_b, n, ties);
out:
	free(r);
	free(rank2);
	return rc;
}

int tm_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                    struct tm_mann_whitney *out)
{
	return mann_whitney(a, na, b, nb, true, out);
}

int tm_mann_whitney_normal(const double *a, size_t na, const double *b, size_t nb,
                           struct tm_mann_whitney *out)
{
	return mann_whitney(a, na, b, nb, false, out);
}

double tm_mann_whitney_min_p(int na, int nb)
{
	double c = 1; /* C(na + nb, na), built up exactly while it fits */

	if (na < 1 || nb < 1)
		return 1.0;
	for (int i = 1; i <= na; i++)
		c = c * (nb + i) / i;
	return fmin(1.0, 2 / c);
}

int tm_mann_whitney_min_n(int n, double alpha)
{
	if (n < 1)
		return -1;
	for (int m = 1; m <= 1000; m++)
		if (tm_mann_whitney_min_p(n, m) <= alpha)
			return m;
	return -1;
}

double tm_modified_z(double x, double median, double mad)
{
	if (x == median)
		return 0;
	if (mad == 0)
		return x > median ? INFINITY : -INFINITY;
	return 0.6745 * (x - median) / mad;
}
