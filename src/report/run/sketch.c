/* The streaming median (report/run/sketch.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "report/run/sketch.h"
#include "base/banned.h"

/* Buckets for |v| in [1, 2^64): ceil(log_g(2^64)) with a = 0.001 is 22 181. */
#define NBUCKETS 22200

void tm_sketch_init(struct tm_sketch *s)
{
	memset(s, 0, sizeof(*s));
	s->gamma = (1 + TM_SKETCH_REL_ERROR) / (1 - TM_SKETCH_REL_ERROR);
	s->log_gamma = log(s->gamma);
}

void tm_sketch_release(struct tm_sketch *s)
{
	free(s->exact);
	free(s->pos);
	free(s->neg);
	memset(s, 0, sizeof(*s));
}

static int bucket_of(const struct tm_sketch *s, double mag)
{
	tm_assert(mag >= 1); /* smaller magnitudes count as zero (bin) */
	int i = (int)ceil(log(mag) / s->log_gamma);
	return i < 0 ? 0 : i >= NBUCKETS ? NBUCKETS - 1 : i;
}

static void bin(struct tm_sketch *s, double v, int64_t w)
{
	uint64_t **arr = v >= 0 ? &s->pos : &s->neg;
	double mag = fabs(v);

	if (mag < 1) {
		s->zero += (uint64_t)w;
		return;
	}
	if (!*arr && !(*arr = calloc(NBUCKETS, sizeof(**arr)))) {
		s->oom = 1;
		return;
	}
	(*arr)[bucket_of(s, mag)] += (uint64_t)w;
}

/* Moves the kept values into the histogram. */
static void to_bins(struct tm_sketch *s)
{
	s->binned = true;
	for (size_t i = 0; i < s->n_exact; i++)
		bin(s, s->exact[i].v, s->exact[i].w);
	free(s->exact);
	s->exact = NULL;
	s->n_exact = 0;
}

void tm_sketch_add(struct tm_sketch *s, double v, int64_t w)
{
	if (!isfinite(v) || w <= 0)
		return;
	s->count += (uint64_t)w;
	if (s->binned) {
		bin(s, v, w);
		return;
	}
	if (s->n_exact && s->n_exact % 1024 == 0 && s->n_exact >= TM_SKETCH_EXACT_MAX) {
		to_bins(s);
		bin(s, v, w);
		return;
	}
	if (s->n_exact % 1024 == 0) {
		void *p = realloc(s->exact, (s->n_exact + 1024) * sizeof(*s->exact));
		if (!p) {
			s->oom = 1;
			return;
		}
		s->exact = p;
	}
	tm_assert(s->exact && s->n_exact < TM_SKETCH_EXACT_MAX + 1024);
	s->exact[s->n_exact++] = (struct tm_sketch_pair){v, w};
}

static int cmp_pair(const void *a, const void *b)
{
	double x = ((const struct tm_sketch_pair *)a)->v, y = ((const struct tm_sketch_pair *)b)->v;
	return (x > y) - (x < y);
}

/* The value of rank R (0-based) among the kept values, sorted. */
static double exact_rank(const struct tm_sketch_pair *p, size_t n, uint64_t r)
{
	uint64_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		seen += (uint64_t)p[i].w;
		if (r < seen)
			return p[i].v;
	}
	return n ? p[n - 1].v : NAN;
}

static double bucket_value(const struct tm_sketch *s, int i)
{
	return 2 * pow(s->gamma, i) / (s->gamma + 1);
}

/* The weights in the histogram (all of them once binned). */
static uint64_t binned_total(const struct tm_sketch *s)
{
	uint64_t n = s->zero;
	for (int i = 0; i < NBUCKETS; i++)
		n += (s->pos ? s->pos[i] : 0) + (s->neg ? s->neg[i] : 0);
	return n;
}

/* The estimate of rank R (0-based) from the histogram: negatives from the
 * largest magnitude, then zero, then positives. */
static double binned_rank(const struct tm_sketch *s, uint64_t r)
{
	uint64_t seen = 0;
	tm_assert(r < s->count);
	tm_assert_expensive(binned_total(s) == s->count);
	for (int i = NBUCKETS - 1; s->neg && i >= 0; i--)
		if (r < (seen += s->neg[i]))
			return -bucket_value(s, i);
	if (r < (seen += s->zero))
		return 0;
	for (int i = 0; s->pos && i < NBUCKETS; i++)
		if (r < (seen += s->pos[i]))
			return bucket_value(s, i);
	return NAN;
}

double tm_sketch_median(struct tm_sketch *s, double *rel_error)
{
	uint64_t k = s->count;
	double a, b;

	*rel_error = 0;
	if (!k || s->oom)
		return NAN;
	if (!s->binned) {
		qsort(s->exact, s->n_exact, sizeof(*s->exact), cmp_pair);
		a = exact_rank(s->exact, s->n_exact, (k - 1) / 2);
		b = exact_rank(s->exact, s->n_exact, k / 2);
	} else {
		*rel_error = TM_SKETCH_REL_ERROR;
		a = binned_rank(s, (k - 1) / 2);
		b = binned_rank(s, k / 2);
	}
	return k % 2 ? a : (a + b) / 2;
}
