/* Downsampled series for the panel: min and max per time bucket. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/metrics.h"
#include "base/util.h"
#include "runtime/registry.h"
#include "serve/api.h"
#include "store/scraped.h"
#include "store/store.h"
#include "base/banned.h"

/* What the panel draws when the query names no metrics. */
static const enum tm_metric panel_set[] = {
    TM_M_CG_ANON_BYTES,         TM_M_CG_FILE_BYTES,          TM_M_CG_CURRENT_BYTES,
    TM_M_CG_HIGH_BYTES,         TM_M_CG_MAX_BYTES,           TM_M_PROC_RSS_ANON_BYTES,
    TM_M_PROC_RSS_FILE_BYTES,   TM_M_HEAP_LIVE_BYTES,        TM_M_CG_CPU_USAGE_USEC,
    TM_M_CG_CPU_THROTTLED_USEC, TM_M_PROC_UTIME_USEC,        TM_M_PROC_STIME_USEC,
    TM_M_CG_PSI_MEM_SOME_USEC,  TM_M_CG_PSI_MEM_FULL_USEC,   TM_M_CG_PSI_IO_SOME_USEC,
    TM_M_CG_PSI_IO_FULL_USEC,   TM_M_HOST_PSI_MEM_SOME_USEC, TM_M_HOST_PSI_IO_SOME_USEC,
    TM_M_CG_IO_READ_BYTES,      TM_M_CG_IO_WRITE_BYTES,      TM_M_PROC_READ_BYTES,
    TM_M_PROC_WRITE_BYTES,      TM_M_HEAP_ALLOC_BYTES,
};

/* The panel's set into Q: tidemark's own, then each runtime's (its .panel),
 * as many as Q holds. */
static void panel_metrics(struct tm_series_query *q)
{
	for (size_t i = 0; i < TM_ARRAY_SIZE(panel_set); i++)
		q->metrics[q->nmetrics++] = panel_set[i];
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++) {
		const enum tm_metric *m = tm_runtime_desc((enum tm_runtime)rt)->panel;
		for (; m && *m < TM_METRIC_COUNT && q->nmetrics < TM_SERIES_MAX_METRICS; m++)
			q->metrics[q->nmetrics++] = *m;
	}
}

static int parse_metrics(const char *list, struct tm_series_query *q, struct tm_err *err)
{
	const char *p = list;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		int m;
		if (n == 0 || n >= sizeof(name))
			return tm_err_set(err, 0, "bad metric list");
		memcpy(name, p, n);
		name[n] = 0;
		m = tm_metric_by_name(name);
		if (m < 0)
			return tm_err_set(err, 0, "unknown metric '%s'", name);
		if (q->nmetrics == TM_SERIES_MAX_METRICS)
			return tm_err_set(err, 0, "more than %d metrics", TM_SERIES_MAX_METRICS);
		q->metrics[q->nmetrics++] = m;
		p += n + (comma ? 1 : 0);
	}
	return 0;
}

static int opt_int(const char *s, const char *what, int64_t min, int64_t max, int64_t *out,
                   struct tm_err *err)
{
	if (!s)
		return 0;
	if (tm_parse_int64(s, out) < 0 || *out < min || *out > max)
		return tm_err_set(err, 0, "'%s' must be an integer in [%lld, %lld]", what,
		                  (long long)min, (long long)max);
	return 0;
}

int tm_series_query_parse(const char *metrics, const char *from, const char *to,
                          const char *from_seq, const char *bucket, const char *points,
                          struct tm_series_query *q, struct tm_err *err)
{
	int64_t pts = 1000;

	memset(q, 0, sizeof(*q));
	if (metrics && parse_metrics(metrics, q, err) < 0)
		return -1;
	if (q->nmetrics == 0)
		panel_metrics(q);
	if (opt_int(from, "from", 0, INT64_MAX / 2, &q->from_wall_usec, err) < 0 ||
	    opt_int(to, "to", 0, INT64_MAX / 2, &q->to_wall_usec, err) < 0 ||
	    opt_int(from_seq, "from_seq", 0, INT64_MAX / 2, &q->from_seq, err) < 0 ||
	    opt_int(bucket, "bucket_usec", 1000, 86400000000LL * 366, &q->bucket_usec, err) < 0 ||
	    opt_int(points, "points", 1, TM_SERIES_MAX_POINTS, &pts, err) < 0)
		return -1;
	if (q->to_wall_usec && q->to_wall_usec < q->from_wall_usec)
		return tm_err_set(err, 0, "'to' before 'from'");
	q->points = (int)pts;
	return 0;
}

struct bucket_acc {
	const struct tm_series_query *q;
	int64_t t0, width, to;
	int nb; /* buckets used */
	int64_t last_seq;
	int64_t below;    /* rollups: only buckets whose first sample is below this seq */
	double *t;        /* [points] first sample time in the bucket, seconds */
	int64_t *seq0;    /* [points] the bucket's first sample's seq */
	int64_t *mn, *mx; /* [points][nmetrics] */
	uint8_t *has;     /* [points][nmetrics] */
};

static int take_sample(void *ctx, const struct tm_sample *s)
{
	struct bucket_acc *a = ctx;
	int64_t b;

	if (s->t_wall_usec < a->q->from_wall_usec)
		return 0;
	if (a->to && s->t_wall_usec > a->to)
		return 1;
	b = (s->t_wall_usec - a->t0) / a->width;
	if (b < 0)
		b = 0;
	if (b >= a->q->points)
		return 1;
	a->last_seq = s->seq;
	if (b >= a->nb)
		a->nb = (int)b + 1;
	if (a->t[b] == 0) {
		a->t[b] = (double)s->t_wall_usec / 1e6; /* 0: an empty bucket, left out */
		a->seq0[b] = s->seq;
	}
	for (int i = 0; i < a->q->nmetrics; i++) {
		size_t k = (size_t)b * (size_t)a->q->nmetrics + (size_t)i;
		enum tm_metric m = (enum tm_metric)a->q->metrics[i];
		if (!tm_sample_has(s, m))
			continue;
		if (!a->has[k] || s->v[m] < a->mn[k])
			a->mn[k] = s->v[m];
		if (!a->has[k] || s->v[m] > a->mx[k])
			a->mx[k] = s->v[m];
		a->has[k] = 1;
	}
	return 0;
}

/* A rollup bucket into the panel bucket of its start (a bucket of a minute
 * or an hour is placed whole: its values move by less than its width). */
static int take_rollup(void *ctx, const struct tm_rollup *r)
{
	struct bucket_acc *a = ctx;
	int64_t b;

	if (r->last_seq <= a->last_seq || r->t_last_wall_usec < a->q->from_wall_usec)
		return 0;
	if (r->first_seq >= a->below)
		return 1;
	if (a->to && r->t_first_wall_usec > a->to)
		return 1;
	b = (r->t_first_wall_usec - a->t0) / a->width;
	if (b < 0)
		b = 0;
	if (b >= a->q->points)
		return 1;
	a->last_seq = r->last_seq;
	if (b >= a->nb)
		a->nb = (int)b + 1;
	if (a->t[b] == 0)
		a->t[b] = (double)r->t_first_wall_usec / 1e6;
	for (int i = 0; i < a->q->nmetrics; i++) {
		size_t k = (size_t)b * (size_t)a->q->nmetrics + (size_t)i;
		enum tm_metric m = (enum tm_metric)a->q->metrics[i];
		if (!tm_rollup_has(r, m))
			continue;
		if (!a->has[k] || r->m[m].min < a->mn[k])
			a->mn[k] = r->m[m].min;
		if (!a->has[k] || r->m[m].max > a->mx[k])
			a->mx[k] = r->m[m].max;
		a->has[k] = 1;
	}
	return 0;
}

/*
 * A range whose buckets are a minute or wider, asked whole (not the live
 * panel's increments): from the rollups, hour buckets where the minute ones
 * were pruned, instead of decoding every sample.  0 done, 1 not for
 * rollups (the raw path follows), -1 after tm_error.
 */
static int from_rollups(struct tm_store *st, int64_t run_id, struct bucket_acc *a)
{
	int64_t mf, ml, hf, hl;
	enum tm_rollup_level fine =
	    a->width >= tm_rollup_width_usec(TM_ROLLUP_HOUR) ? TM_ROLLUP_HOUR : TM_ROLLUP_MINUTE;

	if (a->q->from_seq || a->width < tm_rollup_width_usec(TM_ROLLUP_MINUTE))
		return 1;
	if (tm_store_rollup_span(st, run_id, fine, &mf, &ml) < 0 ||
	    tm_store_rollup_span(st, run_id, TM_ROLLUP_HOUR, &hf, &hl) < 0)
		return -1;
	if (ml < 0)
		return 1; /* a store from before rollups */
	/* the grid on whole buckets, so each panel bucket is exact */
	int64_t w = tm_rollup_width_usec(fine);
	a->width = (a->width + w - 1) / w * w;
	a->t0 = tm_rollup_bucket_of(fine, a->t0);
	a->below = mf;
	if (fine == TM_ROLLUP_MINUTE && hf >= 0 && hf < mf &&
	    tm_store_each_rollup(st, run_id, TM_ROLLUP_HOUR, 0, 0, take_rollup, a) < 0)
		return -1;
	a->below = INT64_MAX;
	int64_t from = tm_rollup_bucket_of(fine, a->q->from_wall_usec);
	return tm_store_each_rollup(st, run_id, fine, from, a->to, take_rollup, a) < 0 ? -1 : 0;
}

/* The bucket grid: from the query, or the run's start to its last sample. */
static int grid(struct tm_store *st, int64_t run_id, const struct tm_series_query *q,
                struct bucket_acc *a, int64_t *last_seq)
{
	struct tm_run_info ri;
	int64_t end = 0, start;

	if (tm_store_run_get(st, run_id, &ri) != 0)
		return -1;
	start = ri.started_wall_usec;
	/* the newest sample's time, read without decoding it (it may be damaged) */
	end = ri.last_sample_wall_usec;
	tm_run_info_release(&ri);
	if (tm_store_last_seq(st, run_id, last_seq) < 0)
		return -1;
	a->t0 = q->from_wall_usec ? q->from_wall_usec : start;
	a->to = q->to_wall_usec;
	if (q->bucket_usec) {
		a->width = q->bucket_usec;
	} else {
		int64_t stop = a->to ? a->to : end;
		a->width = (stop - a->t0) / q->points + 1;
	}
	if (a->width < 1000)
		a->width = 1000;
	return 0;
}

static json_t *int_or_null(bool has, int64_t v)
{
	return has ? json_integer(v) : json_null();
}

static json_t *series_doc(const struct bucket_acc *a, int64_t run_id)
{
	json_t *o = json_object(), *t = json_array(), *series = json_object();

	for (int b = 0; b < a->nb; b++)
		if (a->t[b] != 0)
			json_array_append_new(t, json_real(a->t[b]));
	for (int i = 0; i < a->q->nmetrics; i++) {
		json_t *mn = json_array(), *mx = json_array();
		bool any = false;
		for (int b = 0; b < a->nb; b++) {
			if (a->t[b] == 0)
				continue;
			size_t k = (size_t)b * (size_t)a->q->nmetrics + (size_t)i;
			json_array_append_new(mn, int_or_null(a->has[k], a->mn[k]));
			json_array_append_new(mx, int_or_null(a->has[k], a->mx[k]));
			any |= a->has[k];
		}
		if (any) /* missing is not zero: a metric never seen is left out */
			json_object_set_new(series,
			                    tm_metric_info((enum tm_metric)a->q->metrics[i])->name,
			                    json_pack("{s:o, s:o}", "min", mn, "max", mx));
		else {
			json_decref(mn);
			json_decref(mx);
		}
	}
	json_object_set_new(o, "run_id", json_integer(run_id));
	json_object_set_new(o, "t0_usec", json_integer(a->t0));
	json_object_set_new(o, "bucket_usec", json_integer(a->width));
	json_object_set_new(o, "last_seq", json_integer(a->last_seq));
	json_object_set_new(o, "t", t);
	json_object_set_new(o, "series", series);
	return o;
}

struct prog_acc {
	json_t *arr;
	int64_t from, to, last_t;
	int64_t min_gap;
};

static int take_progress(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value)
{
	struct prog_acc *p = ctx;

	(void)t_mono_usec;
	if (t_wall_usec < p->from || (p->to && t_wall_usec > p->to))
		return 0;
	if (p->last_t && t_wall_usec - p->last_t < p->min_gap)
		return 0; /* at most about one point per bucket */
	p->last_t = t_wall_usec;
	json_array_append_new(p->arr, json_pack("[f, f]", (double)t_wall_usec / 1e6, value));
	return 0;
}

/* Where to start decoding: the first sample at or after FROM (the samples
 * table keeps each sample's time beside its encoded values, docs/store.md),
 * so an hour at the end of a week does not decode the week. */
static int first_seq(struct tm_store *st, int64_t run_id, const struct tm_series_query *q,
                     int64_t *seq)
{
	int64_t at;
	int rc = q->from_wall_usec ? tm_store_seq_at(st, run_id, q->from_wall_usec, &at) : 1;

	*seq = q->from_seq;
	if (rc == 0 && at > *seq)
		*seq = at;
	return rc < 0 ? -1 : 0;
}

/* ---- scraped series (record --scrape), bucketed by the samples they were read for ---- */

#define SCRAPED_MAX 32 /* the panel's share: the run's first 32 series */

struct scraped_acc {
	const struct bucket_acc *a;
	int n;
	int64_t id[SCRAPED_MAX];
	char *name[SCRAPED_MAX], *kind[SCRAPED_MAX];
	double *mn, *mx; /* [SCRAPED_MAX][points] */
	uint8_t *has;
	int b; /* the bucket of the last value placed */
};

static int scraped_series(void *ctx, const struct tm_scraped_series *s)
{
	struct scraped_acc *c = ctx;

	if (c->n == SCRAPED_MAX)
		return 0;
	c->id[c->n] = s->id;
	c->name[c->n] = strdup(s->name ? s->name : "?");
	c->kind[c->n] = strdup(s->kind ? s->kind : "unknown");
	if (!c->name[c->n] || !c->kind[c->n])
		return tm_error("out of memory");
	c->n++;
	return 0;
}

static int scraped_value(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	struct scraped_acc *c = ctx;
	const struct bucket_acc *a = c->a;
	int i;

	(void)t_wall_usec;
	if (seq > a->last_seq)
		return 1;
	for (i = 0; i < c->n && c->id[i] != series_id; i++)
		;
	/* the last used bucket whose first sample is at or before SEQ (values
	 * come in seq order: the bucket only moves on) */
	for (int b = c->b + 1; b < a->nb; b++) {
		if (a->t[b] == 0)
			continue;
		if (a->seq0[b] > seq)
			break;
		c->b = b;
	}
	if (i == c->n || c->b < 0)
		return 0;
	size_t k = (size_t)i * (size_t)a->q->points + (size_t)c->b;
	if (!c->has[k] || v < c->mn[k])
		c->mn[k] = v;
	if (!c->has[k] || v > c->mx[k])
		c->mx[k] = v;
	c->has[k] = 1;
	return 0;
}

/* {name: {kind, min: [], max: []}} over the buckets of A (series without
 * a value in them left out); NULL after tm_error. */
static json_t *scraped_doc(struct tm_store *st, int64_t run_id, const struct bucket_acc *a,
                           int64_t from_seq)
{
	struct scraped_acc c = {.a = a, .b = -1};
	size_t cells = (size_t)SCRAPED_MAX * (size_t)a->q->points;
	json_t *out = json_object();
	int rc = tm_store_each_scraped_series(st, run_id, scraped_series, &c);

	c.mn = calloc(cells, sizeof(double));
	c.mx = calloc(cells, sizeof(double));
	c.has = calloc(cells, 1);
	if (!rc && (!c.mn || !c.mx || !c.has || !out))
		rc = tm_error("out of memory");
	if (!rc && c.n && a->nb)
		rc = tm_store_each_scraped_value(st, run_id, 0, from_seq, a->last_seq,
		                                 scraped_value, &c) < 0;
	for (int i = 0; !rc && i < c.n; i++) {
		json_t *mn = json_array(), *mx = json_array();
		bool any = false;
		for (int b = 0; b < a->nb; b++) {
			size_t k = (size_t)i * (size_t)a->q->points + (size_t)b;
			if (a->t[b] == 0)
				continue;
			json_array_append_new(mn, c.has[k] ? json_real(c.mn[k]) : json_null());
			json_array_append_new(mx, c.has[k] ? json_real(c.mx[k]) : json_null());
			any |= c.has[k];
		}
		if (any)
			json_object_set_new(
			    out, c.name[i],
			    json_pack("{s:s, s:o, s:o}", "kind", c.kind[i], "min", mn, "max", mx));
		else {
			json_decref(mn);
			json_decref(mx);
		}
	}
	for (int i = 0; i < c.n; i++) {
		free(c.name[i]);
		free(c.kind[i]);
	}
	free(c.mn);
	free(c.mx);
	free(c.has);
	if (rc) {
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *tm_api_series(struct tm_store *st, int64_t run_id, const struct tm_series_query *q)
{
	struct bucket_acc a = {.q = q, .last_seq = -1};
	size_t cells = (size_t)q->points * (size_t)q->nmetrics;
	int64_t last_seq, from = q->from_seq;
	json_t *doc = NULL;

	if (grid(st, run_id, q, &a, &last_seq) < 0)
		return NULL;
	a.t = calloc((size_t)q->points, sizeof(double));
	a.seq0 = calloc((size_t)q->points, sizeof(int64_t));
	a.mn = calloc(cells, sizeof(int64_t));
	a.mx = calloc(cells, sizeof(int64_t));
	a.has = calloc(cells, 1);
	if (!a.t || !a.seq0 || !a.mn || !a.mx || !a.has) {
		tm_error("out of memory");
		goto out;
	}
	int rolled = q->from_seq <= last_seq ? from_rollups(st, run_id, &a) : 1;
	if (rolled < 0)
		goto out;
	if (rolled && q->from_seq <= last_seq &&
	    (first_seq(st, run_id, q, &from) < 0 ||
	     tm_store_each_sample(st, run_id, from, -1, take_sample, &a) < 0))
		goto out;
	if (a.last_seq < 0)
		a.last_seq = q->from_seq > 0 ? q->from_seq - 1 : -1;
	doc = series_doc(&a, run_id);
	json_t *scraped = scraped_doc(st, run_id, &a, from);
	if (!scraped) {
		json_decref(doc);
		doc = NULL;
		goto out;
	}
	json_object_set_new(doc, "scraped", scraped);
	struct prog_acc p = {json_array(), q->from_wall_usec, q->to_wall_usec, 0, a.width};
	if (tm_store_each_progress(st, run_id, take_progress, &p) < 0) {
		json_decref(p.arr);
		json_decref(doc);
		doc = NULL;
		goto out;
	}
	json_object_set_new(doc, "progress", p.arr);
out:
	free(a.t);
	free(a.seq0);
	free(a.mn);
	free(a.mx);
	free(a.has);
	return doc;
}
