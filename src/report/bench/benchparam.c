/*
 * The table of a bench with a parameter: the fits, the per-value tables
 * from the store, and the text the terminal prints.  See
 * report/bench/benchparam.h; JSON, CSV and Markdown are benchparamx.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "report/bench/benchparam.h"
#include "report/bench/benchparam_int.h"
#include "report/bench/benchtab_int.h"
#include "store/bench_params.h"
#include "store/bench_tables.h"
#include "base/banned.h"

/* ---- the fits ---- */

/* Least squares of Y on X over the K points: slope, intercept, R². */
static void line(const double *x, const double *y, int k, double *slope, double *icpt, double *r2)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;

	*slope = *icpt = *r2 = NAN;
	if (k < TM_BENCH_FIT_MIN_SLOPE)
		return;
	for (int i = 0; i < k; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= k;
	my /= k;
	for (int i = 0; i < k; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (!(sxx > 0))
		return;
	*slope = sxy / sxx;
	*icpt = my - *slope * mx;
	if (k >= TM_BENCH_FIT_MIN_R2 && syy > 0)
		*r2 = fmax(0, fmin(1, sxy * sxy / (sxx * syy)));
}

/* The residual sum of squares of y = a + c·t^k (T: x over its largest, so
 * no power overflows) at exponent K, with A and C. */
static double power_rss(const double *t, const double *y, int n, double k, double *a, double *c)
{
	double tk[TM_BENCH_PTAB_MAX] = {0}, r2, rss = 0;

	for (int i = 0; i < n; i++)
		tk[i] = pow(t[i], k);
	line(tk, y, n, c, a, &r2);
	if (!isfinite(*c))
		return INFINITY;
	for (int i = 0; i < n; i++) {
		double e = y[i] - (*a + *c * tk[i]);
		rss += e * e;
	}
	return rss;
}

/* k of y = base + c·x^k over the K points (x > 0): a scan of k over
 * [0.02, 4] by 0.01, then golden-section search around the best.  Fills
 * OUT's exponent, exp_base and exp_r2 (from TM_BENCH_FIT_MIN_EXP_R2 points). */
static void power_fit(const double *x, const double *y, int k, struct tm_bench_fit *out)
{
	double t[TM_BENCH_PTAB_MAX] = {0}, xmax = 0, my = 0, syy = 0, a, c, best = INFINITY, kb = 1;
	const double g = (sqrt(5) - 1) / 2;

	if (k < TM_BENCH_FIT_MIN_EXP || k > TM_BENCH_PTAB_MAX)
		return;
	for (int i = 0; i < k; i++) {
		xmax = fmax(xmax, x[i]);
		my += y[i] / k;
	}
	for (int i = 0; i < k; i++) {
		t[i] = x[i] / xmax;
		syy += (y[i] - my) * (y[i] - my);
	}
	if (!(syy > 0)) { /* nothing grows */
		out->exponent = 0;
		out->exp_base = my;
		return;
	}
	for (double e = 0.02; e <= 4.0 + 1e-9; e += 0.01) {
		double r = power_rss(t, y, k, e, &a, &c);
		if (r < best) {
			best = r;
			kb = e;
		}
	}
	double lo = fmax(0.01, kb - 0.01), hi = kb + 0.01;
	for (int it = 0; it < 60; it++) {
		double m1 = hi - g * (hi - lo), m2 = lo + g * (hi - lo);
		if (power_rss(t, y, k, m1, &a, &c) < power_rss(t, y, k, m2, &a, &c))
			hi = m2;
		else
			lo = m1;
	}
	out->exponent = (lo + hi) / 2;
	best = power_rss(t, y, k, out->exponent, &a, &c);
	out->exp_base = a;
	if (k >= TM_BENCH_FIT_MIN_EXP_R2)
		out->exp_r2 = fmax(0, fmin(1, 1 - best / syy));
}

void tm_bench_fit_of(const double *x, const double *y, int n, struct tm_bench_fit *out)
{
	double px[TM_BENCH_PTAB_MAX] = {0}, py[TM_BENCH_PTAB_MAX] = {0},
	       qx[TM_BENCH_PTAB_MAX] = {0}, qy[TM_BENCH_PTAB_MAX] = {0};
	int k = 0, kp = 0;

	memset(out, 0, sizeof(*out));
	out->slope = out->intercept = out->r2 = out->exponent = out->exp_r2 = out->exp_base = NAN;
	for (int i = 0; i < n && k < TM_BENCH_PTAB_MAX; i++) {
		if (!isfinite(x[i]) || !isfinite(y[i]))
			continue;
		px[k] = x[i];
		py[k++] = y[i];
		if (x[i] > 0) {
			qx[kp] = x[i];
			qy[kp++] = y[i];
		}
	}
	out->n = k;
	out->n_log = kp;
	line(px, py, k, &out->slope, &out->intercept, &out->r2);
	power_fit(qx, qy, kp, out);
}

bool tm_bench_param_figure(int f)
{
	const struct tm_bench_fig_info *fi = tm_bench_fig_info((enum tm_bench_fig)f);

	return fi && fi->param;
}

/* ---- from the store ---- */

/* The parameter in the bench's spec_json: 0 with P filled, 1 without one, -1. */
static int spec_param(struct tm_store *st, int64_t bench_id, struct tm_bench_ptab *p)
{
	struct tm_bench_info b;
	json_t *spec, *jp, *v;
	size_t i;
	int rc = tm_bench_store_get(st, bench_id, &b);

	if (rc)
		return rc;
	spec = json_loads(b.spec_json ? b.spec_json : "", 0, NULL);
	tm_bench_info_release(&b);
	jp = spec ? json_object_get(spec, "param") : NULL;
	rc = 1;
	if (json_is_object(jp)) {
		snprintf(p->name, sizeof(p->name), "%s",
		         json_string_value(json_object_get(jp, "name")) ?: "");
		snprintf(p->spec, sizeof(p->spec), "%s",
		         json_string_value(json_object_get(jp, "spec")) ?: "");
		json_array_foreach(json_object_get(jp, "values"), i, v)
		{
			if (p->n == TM_BENCH_PTAB_MAX || !json_is_number(v))
				break;
			const char *tx =
			    json_string_value(json_array_get(json_object_get(jp, "texts"), i));
			p->values[p->n] = json_number_value(v);
			snprintf(p->texts[p->n++], sizeof(p->texts[0]), "%s", tx ? tx : "?");
		}
		rc = p->n ? 0 : 1;
	}
	json_decref(spec);
	return rc;
}

struct collect {
	const struct tm_bench_table *t;
	double *run_value;
};

static int on_value(void *ctx, int64_t run_id, const char *name, double value, const char *text)
{
	struct collect *c = ctx;

	(void)name;
	(void)text;
	for (int i = 0; i < c->t->n_runs; i++)
		if (c->t->runs[i].run_id == run_id)
			c->run_value[i] = value;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* SUB: T's header and arms, with the runs whose value is V.  0 or -1. */
static int sub_table(const struct tm_bench_table *t, const double *run_value, double v,
                     struct tm_bench_table *sub)
{
	memcpy(sub, t, sizeof(*sub));
	sub->param = NULL;
	sub->command = dup_or_null(t->command);
	sub->units_from = dup_or_null(t->units_from);
	sub->runs = malloc(sizeof(*sub->runs) * (size_t)(t->n_runs ? t->n_runs : 1));
	sub->n_runs = 0;
	for (int ai = 0; ai < t->n_arms; ai++) {
		sub->arms[ai].env_text = dup_or_null(t->arms[ai].env_text);
		sub->arms[ai].limits_text = dup_or_null(t->arms[ai].limits_text);
	}
	if (!sub->runs)
		return tm_error("out of memory");
	for (int i = 0; i < t->n_runs; i++)
		if (run_value[i] == v)
			sub->runs[sub->n_runs++] = t->runs[i];
	tm_bench_table_compute(sub);
	return 0;
}

/* The fits of every arm and figure over the per-value medians. */
static void fit_all(struct tm_bench_ptab *p, int n_arms)
{
	double y[TM_BENCH_PTAB_MAX];

	for (int ai = 0; ai < n_arms; ai++)
		for (int f = 0; f < TM_BF_COUNT; f++) {
			for (int vi = 0; vi < p->n; vi++) {
				const struct tm_bench_stat *s = &p->by_value[vi].arms[ai].stat[f];
				y[vi] = s->n ? s->median : NAN;
			}
			tm_bench_fit_of(p->values, y, p->n, &p->fit[ai][f]);
		}
}

int tm_bench_param_attach(struct tm_store *st, struct tm_bench_table *t)
{
	struct tm_bench_ptab *p = calloc(1, sizeof(*p));
	struct collect c = {.t = t};
	int rc;

	if (!p)
		return tm_error("out of memory");
	rc = t->bench_id > 0 ? spec_param(st, t->bench_id, p) : 1;
	if (rc) {
		free(p);
		return rc < 0 ? -1 : 0;
	}
	p->run_value = malloc(sizeof(double) * (size_t)(t->n_runs ? t->n_runs : 1));
	p->by_value = calloc((size_t)p->n, sizeof(*p->by_value));
	t->param = p;
	if (!p->run_value || !p->by_value)
		return tm_error("out of memory");
	for (int i = 0; i < t->n_runs; i++)
		p->run_value[i] = NAN;
	c.run_value = p->run_value;
	if (tm_bench_params_each(st, t->bench_id, on_value, &c))
		return -1;
	for (int i = 0; i < t->n_runs; i++)
		p->unvalued += isnan(p->run_value[i]);
	for (int vi = 0; vi < p->n; vi++)
		if (sub_table(t, p->run_value, p->values[vi], &p->by_value[vi]))
			return -1;
	fit_all(p, t->n_arms);
	return 0;
}

void tm_bench_param_free(struct tm_bench_ptab *p)
{
	if (!p)
		return;
	for (int vi = 0; p->by_value && vi < p->n; vi++)
		tm_bench_table_release(&p->by_value[vi]);
	free(p->by_value);
	free(p->run_value);
	free(p);
}

/* ---- cells ---- */

/* V in figure F's unit, scaled to read: "26.0 KiB", "3.10 ms". */
static void fmt_unit(char *buf, size_t size, double v, int f)
{
	enum tm_bench_fig_unit unit = tm_bench_fig_info((enum tm_bench_fig)f)->unit;
	char num[32];
	double a = fabs(v);

	if (unit == TM_BFU_USEC || unit == TM_BFU_USEC_PER_UNIT) {
		const char *u = a < 1e3 ? "µs" : a < 1e6 ? "ms" : "s";
		tm_bench_fmt_estimate(num, sizeof(num), a < 1e3 ? v : a < 1e6 ? v / 1e3 : v / 1e6);
		tm_bench_cellf(buf, size, "%s %s", num, u);
	} else if (unit == TM_BFU_BYTES) {
		const char *u = a < 1024              ? "B"
		                : a < TM_MIB          ? "KiB"
		                : a < 1024.0 * TM_MIB ? "MiB"
		                                      : "GiB";
		double d = a < 1024              ? 1
		           : a < TM_MIB          ? 1024
		           : a < 1024.0 * TM_MIB ? TM_MIB
		                                 : 1024.0 * TM_MIB;
		tm_bench_fmt_estimate(num, sizeof(num), v / d);
		tm_bench_cellf(buf, size, "%s %s", num, u);
	} else {
		tm_bench_fmt_num(buf, size, v);
	}
}

static void r2_text(char *buf, size_t size, double r2, int n, int min_n)
{
	if (n < min_n)
		tm_bench_cellf(buf, size, "R² n/a (%d values)", n);
	else if (isnan(r2))
		tm_bench_cellf(buf, size, "R² n/a (no change)");
	else
		tm_bench_cellf(buf, size, "R² %.4f", r2);
}

void tm_bench_param_fit_cell(const struct tm_bench_fit *fit, int f, int kind, char *buf,
                             size_t size)
{
	bool exponent = kind == TM_PROW_EXPONENT;
	char v[48], r[48];
	int n = exponent ? fit->n_log : fit->n;
	int min_n = exponent ? TM_BENCH_FIT_MIN_EXP : TM_BENCH_FIT_MIN_SLOPE;
	double x = exponent                    ? fit->exponent
	           : kind == TM_PROW_INTERCEPT ? fit->intercept
	                                       : fit->slope;

	if (n < min_n) {
		tm_bench_cellf(buf, size, "n/a: %d value%s%s", n, n == 1 ? "" : "s",
		               exponent && fit->n > n ? " above 0" : "");
		return;
	}
	if (isnan(x)) {
		tm_bench_cellf(buf, size, "n/a");
		return;
	}
	if (kind == TM_PROW_INTERCEPT) {
		fmt_unit(buf, size, x, f);
		return;
	}
	if (exponent)
		tm_bench_cellf(v, sizeof(v), "%.2f", x);
	else
		fmt_unit(v, sizeof(v), x, f);
	if (exponent)
		r2_text(r, sizeof(r), fit->exp_r2, n, TM_BENCH_FIT_MIN_EXP_R2);
	else
		r2_text(r, sizeof(r), fit->r2, n, TM_BENCH_FIT_MIN_R2);
	tm_bench_cellf(buf, size, "%s  %s", v, r);
}

/* ---- the rows ---- */

static struct tm_bench_prow *add_row(struct tm_bench_prows *rs, int row, int kind, int vi,
                                     const char *label)
{
	struct tm_bench_prow *r;

	if (rs->n == rs->cap) {
		int cap = rs->cap ? rs->cap * 2 : 64;
		void *m = realloc(rs->rows, sizeof(*rs->rows) * (size_t)cap);
		if (!m)
			return NULL;
		rs->rows = m;
		rs->cap = cap;
	}
	r = &rs->rows[rs->n++];
	memset(r, 0, sizeof(*r));
	r->row = row;
	r->kind = kind;
	r->vi = vi;
	snprintf(r->label, sizeof(r->label), "%s", label);
	return r;
}

/* Whether any value's table shows ROW (a figure or a killed row). */
static bool shown_anywhere(const struct tm_bench_ptab *p, int row)
{
	for (int vi = 0; vi < p->n; vi++) {
		int rows[TM_BENCH_TAB_MAX_ROWS], n = tm_bench_table_rows(&p->by_value[vi], rows);
		for (int i = 0; i < n; i++)
			if (rows[i] == row)
				return true;
	}
	return false;
}

/* ROW's block: its label, a line per value, then the fits for a figure. */
static int add_block(const struct tm_bench_table *t, struct tm_bench_prows *rs, int row)
{
	const struct tm_bench_ptab *p = t->param;
	struct tm_bench_prow *r;
	char label[64];

	if (!add_row(rs, row, TM_PROW_TITLE, -1, tm_bench_table_row_label(row)))
		return -1;
	for (int vi = 0; vi < p->n; vi++) {
		snprintf(label, sizeof(label), "  %s=%s", p->name, p->texts[vi]);
		if (!(r = add_row(rs, row, TM_PROW_VALUE, vi, label)))
			return -1;
		for (int ai = 0; ai < t->n_arms; ai++)
			tm_bench_table_cell(&p->by_value[vi], row, ai, r->cells[ai],
			                    sizeof(r->cells[0]));
	}
	if (row < 0)
		return 0;
	static const int fits[] = {TM_PROW_SLOPE, TM_PROW_INTERCEPT, TM_PROW_EXPONENT};
	for (int k = 0; k < 3; k++) {
		if (fits[k] == TM_PROW_SLOPE)
			snprintf(label, sizeof(label), "  per %s", p->name);
		else
			snprintf(label, sizeof(label), "  %s",
			         fits[k] == TM_PROW_INTERCEPT ? "fixed part" : "growth exponent");
		if (!(r = add_row(rs, row, fits[k], -1, label)))
			return -1;
		for (int ai = 0; ai < t->n_arms; ai++)
			tm_bench_param_fit_cell(&p->fit[ai][row], row, fits[k], r->cells[ai],
			                        sizeof(r->cells[0]));
	}
	return 0;
}

int tm_bench_param_rows(const struct tm_bench_table *t, struct tm_bench_prows *rs)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n = tm_bench_table_rows(t, rows);
	struct tm_bench_prow *h;

	memset(rs, 0, sizeof(*rs));
	if (!(h = add_row(rs, TM_BR_HEADER, TM_PROW_TITLE, -1, "")))
		return -1;
	for (int ai = 0; ai < t->n_arms; ai++)
		tm_bench_table_cell(t, TM_BR_HEADER, ai, h->cells[ai], sizeof(h->cells[0]));
	if (add_block(t, rs, TM_BR_SURVIVED))
		return -1;
	for (int i = 0; i < n; i++)
		if (rows[i] >= 0 && tm_bench_param_figure(rows[i]) &&
		    shown_anywhere(t->param, rows[i]) && add_block(t, rs, rows[i]))
			return -1;
	static const int killed[] = {TM_BR_KILLED_ANON, TM_BR_KILLED_HEAP, TM_BR_KILLED_PROGRESS,
	                             TM_BR_KILLED_WALL};
	for (size_t i = 0; i < sizeof(killed) / sizeof(killed[0]); i++)
		if (shown_anywhere(t->param, killed[i]) && add_block(t, rs, killed[i]))
			return -1;
	return 0;
}

/* ---- notes ---- */

/* A note of the per-value tables, and the values it is under (bit VI). */
struct raw_note {
	int kind;
	uint64_t values;
	char text[600];
};
struct note_acc {
	struct raw_note *v;
	int n, cap, vi;
};

static void add_raw(struct note_acc *a, int kind, const char *text)
{
	for (int i = 0; i < a->n; i++)
		if (a->v[i].kind == kind && !strcmp(a->v[i].text, text)) {
			a->v[i].values |= 1ull << a->vi;
			return;
		}
	if (a->n == a->cap) {
		int cap = a->cap ? a->cap * 2 : 16;
		void *m = realloc(a->v, sizeof(*a->v) * (size_t)cap);
		if (!m)
			return;
		a->v = m;
		a->cap = cap;
	}
	a->v[a->n].kind = kind;
	a->v[a->n].values = 1ull << a->vi;
	snprintf(a->v[a->n++].text, sizeof(a->v[0].text), "%s", text);
}

static void value_note(void *ctx, enum tm_bench_note kind, const char *text)
{
	add_raw(ctx, (int)kind, text);
}

static void emit(struct tm_bench_pnote *out, int kind, const char *prefix, const char *text)
{
	out->kind = kind;
	snprintf(out->text, sizeof(out->text), "%s%s%s", prefix, *prefix ? ": " : "", text);
}

/* "N=1000, 10000" for the values in MASK, or "" when it is every value. */
static void values_text(const struct tm_bench_ptab *p, uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	if (mask == (p->n >= 64 ? ~0ull : (1ull << p->n) - 1))
		return;
	len += tm_bench_cellf(buf, size, "%s=", p->name);
	for (int vi = 0, first = 1; vi < p->n; vi++)
		if (mask >> vi & 1) {
			len += tm_bench_cellf(buf + len, size - len, "%s%s", first ? "" : ", ",
			                      p->texts[vi]);
			first = 0;
		}
}

/* When arm AI's cost per unit is measured both resident (anon peak) and
 * allocated (heap peak), a note with both and the one a limit must cover,
 * into OUT: 1, else 0. */
static int resident_note(const struct tm_bench_table *t, int ai, struct tm_bench_pnote *out)
{
	const struct tm_bench_fit *anon = &t->param->fit[ai][TM_BF_PEAK_ANON],
	                          *heap = &t->param->fit[ai][TM_BF_HEAP_PEAK];
	char a[32], h[32];

	if (!isfinite(anon->slope) || !isfinite(heap->slope))
		return 0;
	snprintf(out->text, sizeof(out->text),
	         "%s per %s: resident %s (peak anon), allocated %s (heap peak): a memory limit "
	         "must cover the resident cost, which is what the kernel charges; the allocated "
	         "cost is what it becomes if the program touches all it allocates",
	         t->arms[ai].name, t->param->name,
	         tm_cost_bytes_text(a, sizeof(a), anon->slope, false),
	         tm_cost_bytes_text(h, sizeof(h), heap->slope, false));
	out->kind = TM_PNOTE_FIT;
	return 1;
}

int tm_bench_param_notes(const struct tm_bench_table *t, struct tm_bench_pnote **out)
{
	const struct tm_bench_ptab *p = t->param;
	struct note_acc a = {0};
	struct tm_bench_pnote *v;
	char prefix[256];
	int n = 0;

	for (a.vi = 0; a.vi < p->n && a.vi < 64; a.vi++)
		tm_bench_table_each_note(&p->by_value[a.vi], value_note, &a);
	*out = v = calloc((size_t)a.n + 2 + TM_BENCH_TAB_MAX_ARMS, sizeof(*v));
	if (!v) {
		free(a.v);
		return 0;
	}
	/* said once when every value has it, else under the values that do */
	for (int i = 0; i < a.n; i++) {
		values_text(p, a.v[i].values, prefix, sizeof(prefix));
		emit(&v[n++], a.v[i].kind, prefix, a.v[i].text);
	}
	free(a.v);
	snprintf(
	    v[n].text, sizeof(v[n].text),
	    "per %s: the least-squares slope of the arm's medians against %s (the cost of one "
	    "more); fixed part: that line at %s=0; growth exponent: k of median = base + c·%s^k "
	    "(1 linear, 0 flat, 2 quadratic; a fixed part does not flatten it); R² of each fit; "
	    "a slope needs %d values with a median, its R² %d, an exponent %d, its R² %d",
	    p->name, p->name, p->name, p->name, TM_BENCH_FIT_MIN_SLOPE, TM_BENCH_FIT_MIN_R2,
	    TM_BENCH_FIT_MIN_EXP, TM_BENCH_FIT_MIN_EXP_R2);
	v[n++].kind = TM_PNOTE_FIT;
	for (int ai = 0; ai < t->n_arms; ai++)
		n += resident_note(t, ai, &v[n]);
	if (p->unvalued) {
		snprintf(v[n].text, sizeof(v[n].text),
		         "%d runs of the bench have no value of %s in the store", p->unvalued,
		         p->name);
		v[n++].kind = TM_PNOTE_FIT;
	}
	return n;
}

/* ---- text ---- */

void tm_bench_param_write_header(const struct tm_bench_table *t, FILE *out)
{
	const struct tm_bench_ptab *p = t->param;
	struct tm_bench_table copy;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	copy = *t;
	copy.param = NULL;
	tm_bench_table_write_header(&copy, f);
	fclose(f);
	while (len > 1 && buf[len - 1] == '\n' && buf[len - 2] == '\n')
		buf[--len] = '\0'; /* the blank line comes after ours */
	fputs(buf ? buf : "", out);
	free(buf);
	fprintf(out, "parameter %s: %d values (", p->name, p->n);
	for (int vi = 0; vi < p->n; vi++)
		fprintf(out, "%s%s", vi ? ", " : "", p->texts[vi]);
	fprintf(out, "), ");
	int per = -1;
	for (int vi = 0; vi < p->n; vi++)
		for (int ai = 0; ai < t->n_arms; ai++) {
			int r = p->by_value[vi].arms[ai].runs;
			per = per == -1 || per == r ? r : -2;
		}
	if (per >= 0)
		fprintf(out, "%d runs per arm at each, ", per);
	fprintf(out, "{%s} replaced in each run\n\n", p->name);
}

void tm_bench_param_write_text(const struct tm_bench_table *t, FILE *out)
{
	struct tm_bench_prows rs;
	struct tm_bench_pnote *notes = NULL;
	int lw = 0, w[TM_BENCH_TAB_MAX_ARMS] = {0}, nn;

	tm_bench_param_write_header(t, out);
	if (tm_bench_param_rows(t, &rs) == 0) {
		for (int i = 0; i < rs.n; i++) {
			lw = tm_bench_text_width(rs.rows[i].label) > lw
			         ? tm_bench_text_width(rs.rows[i].label)
			         : lw;
			for (int ai = 0; ai < t->n_arms; ai++)
				if (tm_bench_text_width(rs.rows[i].cells[ai]) > w[ai])
					w[ai] = tm_bench_text_width(rs.rows[i].cells[ai]);
		}
		for (int i = 0; i < rs.n; i++) {
			if (rs.rows[i].kind == TM_PROW_TITLE && rs.rows[i].row != TM_BR_HEADER) {
				fprintf(out, "%s\n", rs.rows[i].label); /* its cells are empty */
				continue;
			}
			tm_bench_pad(out, rs.rows[i].label, lw + 2);
			for (int ai = 0; ai < t->n_arms; ai++)
				if (ai == t->n_arms - 1)
					fputs(tm_bench_text_cell(rs.rows[i].cells[ai]), out);
				else
					tm_bench_pad(out, rs.rows[i].cells[ai], w[ai] + 3);
			fputc('\n', out);
		}
	}
	free(rs.rows);
	nn = tm_bench_param_notes(t, &notes);
	if (nn)
		fputc('\n', out);
	for (int i = 0; i < nn; i++)
		fprintf(out, "%s\n", notes[i].text);
	free(notes);
}
