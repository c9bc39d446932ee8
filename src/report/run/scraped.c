/* A run's scraped series as figures and CSV; see report/run/scraped.h. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/metrics.h"
#include "base/util.h"
#include "report/run/scraped.h"
#include "store/scraped.h"
#include "store/store.h"
#include "report/run/runjson.h"
#include "base/banned.h"

static int add_series(void *ctx, const struct tm_scraped_series *s)
{
	struct tm_scraped_figs *f = ctx;
	struct tm_scraped_fig *g, *grown = realloc(f->f, (f->n + 1) * sizeof(*f->f));

	if (!grown)
		return tm_error("out of memory");
	f->f = grown;
	g = &f->f[f->n++];
	memset(g, 0, sizeof(*g));
	g->id = s->id;
	snprintf(g->name, sizeof(g->name), "%s", s->name ? s->name : "?");
	snprintf(g->kind, sizeof(g->kind), "%s", s->kind ? s->kind : "unknown");
	snprintf(g->source, sizeof(g->source), "%s", s->source ? s->source : "");
	g->first = g->last = g->min = g->max = NAN;
	g->first_seq = g->last_seq = -1;
	return 0;
}

static struct tm_scraped_fig *by_id(const struct tm_scraped_figs *f, int64_t id)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->f[i].id == id)
			return &f->f[i];
	return NULL;
}

static int add_value(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	struct tm_scraped_fig *g = by_id(ctx, series_id);

	(void)t_wall_usec;
	if (!g)
		return 0;
	if (!g->values++) {
		g->first = g->min = g->max = v;
		g->first_seq = seq;
	}
	g->last = v;
	g->last_seq = seq;
	g->min = v < g->min ? v : g->min;
	g->max = v > g->max ? v : g->max;
	return 0;
}

int tm_scraped_summarize(struct tm_store *st, int64_t run, struct tm_scraped_figs *out)
{
	int64_t first = -1;

	memset(out, 0, sizeof(*out));
	if (tm_store_first_seq(st, run, &first))
		return -1;
	out->kept_from_seq = first > 0 ? first : 0;
	if (tm_store_each_scraped_series(st, run, add_series, out) ||
	    (out->n && tm_store_each_scraped_value(st, run, 0, 0, -1, add_value, out))) {
		tm_scraped_release(out);
		return -1;
	}
	return 0;
}

void tm_scraped_release(struct tm_scraped_figs *f)
{
	free(f->f);
	memset(f, 0, sizeof(*f));
}

const struct tm_scraped_fig *tm_scraped_find(const struct tm_scraped_figs *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->f[i].name, name))
			return &f->f[i];
	return NULL;
}

static bool ends_with(const char *name, const char *suffix)
{
	const char *brace = strchr(name, '{');
	size_t n = brace ? (size_t)(brace - name) : strlen(name), sl = strlen(suffix);
	return n >= sl && !memcmp(name + n - sl, suffix, sl);
}

int tm_scraped_is_counter(const struct tm_scraped_fig *g)
{
	return !strcmp(g->kind, "counter") ||
	       ((!strcmp(g->kind, "histogram") || !strcmp(g->kind, "summary")) &&
	        (ends_with(g->name, "_sum") || ends_with(g->name, "_count")));
}

json_t *tm_scraped_json(const struct tm_scraped_figs *f, int64_t samples)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < f->n; i++) {
		const struct tm_scraped_fig *g = &f->f[i];
		bool counter = tm_scraped_is_counter(g);
		json_t *o = json_pack(
		    "{s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "name", g->name,
		    "kind", g->kind, "source", g->source, "values", (json_int_t)g->values,
		    "samples", (json_int_t)samples, "first", tm_json_num(g->first), "last",
		    tm_json_num(g->last), "min", tm_json_num(g->min), "max", tm_json_num(g->max),
		    "rise", counter ? tm_json_num(g->last - g->first) : json_null(),
		    "kept_from_seq",
		    f->kept_from_seq ? json_integer(f->kept_from_seq) : json_null());
		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* A value as text: MiB for a _bytes series, else as the endpoint gave it. */
static const char *fmt_value(char *buf, size_t size, const struct tm_scraped_fig *g, double v)
{
	if (!isfinite(v))
		return "n/a";
	if (ends_with(g->name, "_bytes"))
		snprintf(buf, size, "%.1f MiB", v / TM_MIB);
	else
		snprintf(buf, size, "%.6g", v);
	return buf;
}

void tm_scraped_text(FILE *out, const struct tm_scraped_figs *f, int64_t samples)
{
	const char *source = NULL;
	char a[48], b[48], c[48];

	if (f->n && f->kept_from_seq)
		fprintf(
		    out,
		    "  scraped     samples before %" PRId64
		    " were pruned with their scraped values: figures over the kept stretch only\n",
		    f->kept_from_seq);
	for (size_t i = 0; i < f->n; i++) {
		const struct tm_scraped_fig *g = &f->f[i];
		if (!source || strcmp(source, g->source)) {
			fprintf(out, "  %s %s\n", source ? "           " : "scraped    ",
			        g->source);
			source = g->source;
		}
		fprintf(out, "              %s (%s) ", g->name, g->kind);
		if (!g->values)
			fprintf(out, "n/a: %s\n",
			        !strcmp(g->kind, "unknown") ? "never served"
			        : f->kept_from_seq          ? "no value kept"
			                                    : "no value read");
		else if (tm_scraped_is_counter(g))
			fprintf(out, "last %s, rose %s over the %s",
			        fmt_value(a, sizeof(a), g, g->last),
			        fmt_value(b, sizeof(b), g, g->last - g->first),
			        f->kept_from_seq ? "kept stretch" : "run");
		else
			fprintf(
			    out, "last %s, peak %s, low %s", fmt_value(a, sizeof(a), g, g->last),
			    fmt_value(b, sizeof(b), g, g->max), fmt_value(c, sizeof(c), g, g->min));
		if (g->values)
			fprintf(out, "; %" PRId64 " of %" PRId64 " samples\n", g->values, samples);
	}
}

/* ---- CSV ---- */

/* NAME as a quoted CSV field (a series' labels hold commas and quotes). */
static void csv_quoted(FILE *out, const char *name)
{
	fputc('"', out);
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

struct one_csv {
	FILE *out;
	int metric;
};

static int metric_row(void *ctx, const struct tm_sample *s)
{
	struct one_csv *c = ctx;
	if (tm_sample_has(s, c->metric))
		fprintf(c->out, "%" PRId64 ",%" PRId64 ",%" PRId64 "\n", s->seq, s->t_wall_usec,
		        s->v[c->metric]);
	return 0;
}

static int value_row(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	(void)series_id;
	fprintf(ctx, "%" PRId64 ",%" PRId64 ",%.17g\n", seq, t_wall_usec, v);
	return 0;
}

int tm_scraped_series_csv(struct tm_store *st, int64_t run, const char *name, FILE *out)
{
	struct tm_scraped_figs f;
	const struct tm_scraped_fig *g;
	int m = tm_metric_by_name(name), rc;

	if (m >= 0) {
		struct one_csv c = {out, m};
		fprintf(out, "seq,t_wall_usec,%s\n", name);
		return tm_store_each_sample(st, run, 0, -1, metric_row, &c);
	}
	if (tm_scraped_summarize(st, run, &f))
		return -1;
	if (!(g = tm_scraped_find(&f, name))) {
		tm_scraped_release(&f);
		return 1;
	}
	/* the scraped answer's own time: when the endpoint said it */
	fputs("seq,t_wall_usec,", out);
	csv_quoted(out, name);
	fputc('\n', out);
	rc = tm_store_each_scraped_value(st, run, g->id, 0, -1, value_row, out);
	tm_scraped_release(&f);
	return rc;
}

/* Every scraped value of a run, in seq order, for the wide CSV. */
struct all_csv {
	FILE *out;
	struct tm_scraped_figs f;
	struct val {
		int64_t seq;
		size_t col;
		double v;
	} * vals;
	size_t n, cap, at;
	double *row;
};

static int collect(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	struct all_csv *c = ctx;
	const struct tm_scraped_fig *g = by_id(&c->f, series_id);

	(void)t_wall_usec;
	if (!g)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct val *grown = realloc(c->vals, cap * sizeof(*grown));
		if (!grown)
			return tm_error("out of memory");
		c->vals = grown;
		c->cap = cap;
	}
	c->vals[c->n++] = (struct val){seq, (size_t)(g - c->f.f), v};
	return 0;
}

static int wide_row(void *ctx, const struct tm_sample *s)
{
	struct all_csv *c = ctx;

	fprintf(c->out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64, s->seq, s->t_wall_usec,
	        s->t_mono_usec, s->late_usec);
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		/* a limit's -1 is "no limit", no amount: empty, as JSON's null */
		if (tm_sample_has(s, m) && s->v[m] >= 0)
			fprintf(c->out, ",%" PRId64, s->v[m]);
		else
			fputc(',', c->out);
	}
	for (size_t i = 0; i < c->f.n; i++)
		c->row[i] = NAN;
	while (c->at < c->n && c->vals[c->at].seq < s->seq)
		c->at++;
	for (; c->at < c->n && c->vals[c->at].seq == s->seq; c->at++)
		c->row[c->vals[c->at].col] = c->vals[c->at].v;
	for (size_t i = 0; i < c->f.n; i++) {
		if (isfinite(c->row[i]))
			fprintf(c->out, ",%.17g", c->row[i]);
		else
			fputc(',', c->out);
	}
	fputc('\n', c->out);
	return 0;
}

int tm_scraped_all_csv(struct tm_store *st, int64_t run, FILE *out)
{
	struct all_csv c = {.out = out};
	int rc = tm_scraped_summarize(st, run, &c.f);

	if (rc == 0 && c.f.n && !(c.row = calloc(c.f.n, sizeof(double))))
		rc = tm_error("out of memory");
	if (rc == 0 && c.f.n)
		rc = tm_store_each_scraped_value(st, run, 0, 0, -1, collect, &c);
	if (rc == 0) {
		fputs("seq,t_wall_usec,t_mono_usec,late_usec", out);
		for (int m = 0; m < TM_METRIC_COUNT; m++)
			fprintf(out, ",%s", tm_metric_info(m)->name);
		for (size_t i = 0; i < c.f.n; i++) {
			fputc(',', out);
			csv_quoted(out, c.f.f[i].name);
		}
		fputc('\n', out);
		rc = tm_store_each_sample(st, run, 0, -1, wide_row, &c);
	}
	free(c.vals);
	free(c.row);
	tm_scraped_release(&c.f);
	return rc;
}
