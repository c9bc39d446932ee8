/*
 * A bench's arms compared phase by phase (benchphases.h): each surviving
 * run split into phases, phases matched by name, the bench table's
 * statistics per phase and figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/assert.h"
#include "base/error.h"
#include "base/util.h"
#include "report/bench/benchparam.h"
#include "base/term.h"
#include "report/bench/benchphases.h"
#include "report/bench/benchtab_int.h"
#include "report/run/stats.h"
#include "report/run/runjson.h"
#include "base/banned.h"

static const struct {
	const char *key, *label;
	double scale, floor; /* raw * scale is shown; no ratio for a median under floor */
} fig_info[TM_BPF_COUNT] = {
#define TM_BPF_INFO(id, key, label, scale, floor, from) [TM_BPF_##id] = {key, label, scale, floor},
    TM_BENCH_PHASE_FIG_LIST(TM_BPF_INFO)
#undef TM_BPF_INFO
};

const char *tm_bench_phase_fig_key(enum tm_bench_phase_fig f)
{
	return f < TM_BPF_COUNT ? fig_info[f].key : "?";
}

const char *tm_bench_phase_fig_label(enum tm_bench_phase_fig f)
{
	return f < TM_BPF_COUNT ? fig_info[f].label : "?";
}

static bool survivor(const struct tm_bench_run_row *r)
{
	return !r->warmup && r->outcome == TM_OUTCOME_COMPLETED;
}

#define VAL(vals, n_rows, run, row, f)                                                             \
	((vals)[((size_t)(run) * (n_rows) + (row)) * TM_BPF_COUNT + (f)])

/* Arm AI's values of figure F in phase K into BUF; their count. */
static int arm_values(const struct tm_bench_phases *bp, const double *vals, int ai, int k, int f,
                      double *buf)
{
	int n = 0;
	for (int i = 0; i < bp->t.n_runs; i++) {
		const struct tm_bench_run_row *r = &bp->t.runs[i];
		double v = VAL(vals, bp->n, i, k, f);
		if (r->arm == ai && survivor(r) && isfinite(v))
			buf[n++] = v;
	}
	return n;
}

static bool above_floor(const struct tm_bench_stat *s, int f)
{
	return s->n > 0 && s->median != 0 && fabs(s->median) >= fig_info[f].floor;
}

/* Cell (AI, F) of phase K against the reference arm RF. */
static void compare(struct tm_bench_phases *bp, const double *vals, int k, int ai, int f,
                    double *buf)
{
	struct tm_bench_phase_cell *c = &bp->rows[k].cell[ai][f];
	const struct tm_bench_phase_cell *ref = &bp->rows[k].cell[bp->t.reference][f];
	struct tm_mann_whitney mw;

	tm_assert(k >= 0 && k < bp->n && ai >= 0 && ai < bp->t.n_arms && f >= 0 &&
	          f < TM_BPF_COUNT);
	c->ratio = c->p = NAN;
	c->verdict = TM_BV_NONE;
	if (ai == bp->t.reference || !c->stat.n || !ref->stat.n)
		return;
	if (!above_floor(&c->stat, f) || !above_floor(&ref->stat, f)) {
		c->verdict = TM_BV_BELOW_FLOOR;
		return;
	}
	c->ratio = c->stat.median / ref->stat.median;
	if (tm_mann_whitney_min_p(c->stat.n, ref->stat.n) > TM_BENCH_ALPHA) {
		c->verdict = TM_BV_TOO_FEW;
		return;
	}
	int na = arm_values(bp, vals, ai, k, f, buf);
	int nr = arm_values(bp, vals, bp->t.reference, k, f, buf + na);
	if (tm_mann_whitney(buf, (size_t)na, buf + na, (size_t)nr, &mw) || !isfinite(mw.p))
		return;
	c->p = mw.p;
	c->verdict = mw.p <= TM_BENCH_ALPHA ? TM_BV_SIGNIFICANT : TM_BV_NOT_SIGNIFICANT;
}

void tm_bench_phases_compute(struct tm_bench_phases *bp, const double *vals)
{
	double *buf = malloc(2 * sizeof(double) * (size_t)(bp->t.n_runs > 0 ? bp->t.n_runs : 1));

	if (!buf)
		return;
	for (int k = 0; k < bp->n; k++) {
		struct tm_bench_phase_row *row = &bp->rows[k];
		for (int ai = 0; ai < bp->t.n_arms; ai++) {
			for (int f = 0; f < TM_BPF_COUNT; f++)
				tm_bench_stat_of(buf, arm_values(bp, vals, ai, k, f, buf),
				                 &row->cell[ai][f].stat);
			row->without[ai] = 0;
			for (int i = 0; i < bp->t.n_runs; i++)
				row->without[ai] +=
				    bp->t.runs[i].arm == ai && survivor(&bp->t.runs[i]) &&
				    !isfinite(VAL(vals, bp->n, i, k, TM_BPF_DURATION));
		}
		for (int ai = 0; ai < bp->t.n_arms; ai++)
			for (int f = 0; f < TM_BPF_COUNT; f++)
				compare(bp, vals, k, ai, f, buf);
	}
	free(buf);
}

void tm_bench_phases_release(struct tm_bench_phases *bp)
{
	for (int vi = 0; bp->per_value && vi < bp->n_values; vi++)
		tm_bench_phases_release(&bp->per_value[vi]);
	free(bp->per_value);
	if (!bp->borrowed)
		tm_bench_table_release(&bp->t);
	free(bp->rows);
	memset(bp, 0, sizeof(*bp));
}

/* ---- from the store ---- */

/* One phase of one run, before the rows are known. */
struct got {
	int run, row;
	double f[TM_BPF_COUNT];
};

struct gather {
	struct got *g;
	size_t n, cap;
	size_t cap_rows;
};

static int row_of(struct tm_bench_phases *bp, struct gather *ga, const char *name)
{
	for (int k = 0; k < bp->n; k++)
		if (!strcmp(bp->rows[k].name, name))
			return k;
	if (tm_grow(&bp->rows, &ga->cap_rows, (size_t)bp->n, sizeof(*bp->rows), 8))
		return -1;
	memset(&bp->rows[bp->n], 0, sizeof(bp->rows[0]));
	snprintf(bp->rows[bp->n].name, sizeof(bp->rows[0].name), "%s", name);
	return bp->n++;
}

/* Phase P's figures into F, each as the registry takes it (benchphases.h). */
static void phase_figs(const struct tm_phase *p, double *f)
{
#define TM_BPF_FROM(id, key, label, scale, floor, from) f[TM_BPF_##id] = (from);
	TM_BENCH_PHASE_FIG_LIST(TM_BPF_FROM)
#undef TM_BPF_FROM
}

/* Run I's phases into GA.  0, or -1 after tm_error. */
static int gather_run(struct tm_store *st, struct tm_bench_phases *bp, int i,
                      const struct tm_phase_split *split, struct gather *ga)
{
	struct tm_phases ph;
	int rc = tm_phases_load(st, bp->t.runs[i].run_id, split, &ph);

	if (rc == 1)
		return 0; /* no samples: no phases */
	for (int k = 0; rc == 0 && k < ph.n; k++) {
		int row = row_of(bp, ga, ph.p[k].name);
		if (row < 0 || tm_grow(&ga->g, &ga->cap, ga->n, sizeof(*ga->g), 64)) {
			rc = -1;
			break;
		}
		struct got *g = &ga->g[ga->n++];
		g->run = i;
		g->row = row;
		phase_figs(&ph.p[k], g->f);
	}
	tm_phases_release(&ph);
	return rc;
}

/* OUT's rows and cells from the phases of OUT->t's surviving runs.  0, or
 * -1 after tm_error. */
static int load_rows(struct tm_store *st, const struct tm_phase_split *split,
                     struct tm_bench_phases *out)
{
	struct gather ga = {0};
	double *vals = NULL;
	int rc = 0;

	for (int i = 0; rc == 0 && i < out->t.n_runs; i++)
		if (survivor(&out->t.runs[i]))
			rc = gather_run(st, out, i, split, &ga);
	size_t nv = (size_t)out->t.n_runs * (size_t)out->n * TM_BPF_COUNT;
	if (rc == 0 && !(vals = malloc((nv ? nv : 1) * sizeof(*vals))))
		rc = tm_error("out of memory");
	for (size_t i = 0; rc == 0 && i < nv; i++)
		vals[i] = NAN;
	for (size_t i = 0; rc == 0 && i < ga.n; i++)
		for (int f = 0; f < TM_BPF_COUNT; f++)
			VAL(vals, out->n, ga.g[i].run, ga.g[i].row, f) = ga.g[i].f[f];
	if (rc == 0)
		tm_bench_phases_compute(out, vals);
	free(vals);
	free(ga.g);
	return rc;
}

int tm_bench_phases_load(struct tm_store *st, int64_t bench_id, const struct tm_phase_split *split,
                         struct tm_bench_phases *out)
{
	const struct tm_bench_ptab *p;
	int rc;

	memset(out, 0, sizeof(*out));
	out->kind = split ? split->kind : TM_SPLIT_MARKS;
	rc = tm_bench_table_load(st, bench_id, &out->t);
	if (rc || !(p = out->t.param) || p->n == 0)
		return rc ? rc : load_rows(st, split, out);
	if (!(out->per_value = calloc((size_t)p->n, sizeof(*out->per_value))))
		return tm_error("out of memory");
	out->n_values = p->n;
	for (int vi = 0; rc == 0 && vi < p->n; vi++) {
		struct tm_bench_phases *pv = &out->per_value[vi];
		pv->t = p->by_value[vi];
		pv->borrowed = true;
		pv->kind = out->kind;
		rc = load_rows(st, split, pv);
	}
	return rc;
}

/* ---- text and JSON ---- */

/* median [min–max], all with the median's precision (as the bench table). */
static void fmt_stat(char *buf, size_t size, const struct tm_bench_stat *s, double scale,
                     bool per_unit)
{
	double med = s->median * scale, a = fabs(med);
	int d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 0.1 || a == 0 || !per_unit ? 2 : 4;

	if (!s->n)
		tm_bench_cellf(buf, size, "—");
	else if (s->n == 1)
		tm_bench_cellf(buf, size, "%.*f", d, med);
	else
		tm_bench_cellf(buf, size, "%.*f [%.*f–%.*f]", d, med, d, s->min * scale, d,
		               s->max * scale);
}

static void cell_text(const struct tm_bench_phase_cell *c, int f, char *buf, size_t size)
{
	size_t n;

	fmt_stat(buf, size, &c->stat, fig_info[f].scale, f == TM_BPF_ANON_PER_UNIT);
	n = strlen(buf);
	if (isfinite(c->ratio))
		n += tm_bench_cellf(buf + n, size - n, " ×%.2f", c->ratio);
	if (c->verdict == TM_BV_NOT_SIGNIFICANT)
		tm_bench_cellf(buf + n, size - n, " n.s.");
	else if (c->verdict == TM_BV_SIGNIFICANT && c->p < 0.001)
		tm_bench_cellf(buf + n, size - n, " p<0.001");
	else if (c->verdict == TM_BV_SIGNIFICANT)
		tm_bench_cellf(buf + n, size - n, " p=%.3f", c->p);
}

static bool fig_shown(const struct tm_bench_phases *bp, int k, int f)
{
	if (f == TM_BPF_ANON_CHANGE)
		return true;
	for (int ai = 0; ai < bp->t.n_arms; ai++)
		if (bp->rows[k].cell[ai][f].stat.n)
			return true;
	return false;
}

#define PCELL   96
#define PLABEL  24
#define MAXARMS TM_BENCH_TAB_MAX_ARMS

static void write_notes(const struct tm_bench_phases *bp, FILE *out)
{
	char safe[TM_PHASE_NAME_MAX * 4];
	bool too_few = false;

	fprintf(out,
	        "\nmedian [min–max] over each arm's runs that survived and have the phase; "
	        "×ratio of the medians to %s's; p=: Mann–Whitney U test against it (n.s.: p "
	        "> %.2f); no ratio where a median is under 1 MiB (50 ms for durations)\n",
	        bp->t.arms[bp->t.reference].name, TM_BENCH_ALPHA);
	for (int k = 0; k < bp->n; k++)
		for (int ai = 0; ai < bp->t.n_arms; ai++) {
			if (bp->rows[k].without[ai])
				fprintf(out, "%s: %d of its %d surviving runs have no phase '%s'\n",
				        bp->t.arms[ai].name, bp->rows[k].without[ai],
				        bp->t.arms[ai].survived,
				        tm_text_safe(safe, sizeof(safe), bp->rows[k].name));
			for (int f = 0; f < TM_BPF_COUNT; f++)
				too_few |= bp->rows[k].cell[ai][f].verdict == TM_BV_TOO_FEW;
		}
	if (too_few)
		fprintf(out,
		        "no verdict where an arm has too few runs: Mann–Whitney's smallest p "
		        "for them is over %.2f (the bench table's note says how many it takes)\n",
		        TM_BENCH_ALPHA);
	if (!bp->n)
		fprintf(out, "no surviving run has phases\n");
}

/* The rows of arms [FROM, TO) of BP, each arm's column W[ai] wide. */
static void write_arms(const struct tm_bench_phases *bp, FILE *out, char (*cells)[PCELL],
                       const int *w, int from, int to)
{
	char safe[TM_PHASE_NAME_MAX * 4];

	tm_bench_pad(out, "", PLABEL);
	for (int ai = from; ai < to; ai++) {
		tm_bench_table_cell(&bp->t, TM_BR_HEADER, ai, cells[ai], PCELL);
		tm_bench_pad(out, cells[ai], ai + 1 < to ? w[ai] + 3 : 0);
	}
	fputc('\n', out);
	for (int k = 0; k < bp->n; k++) {
		fprintf(out, "%s\n", tm_text_safe(safe, sizeof(safe), bp->rows[k].name));
		for (int f = 0; f < TM_BPF_COUNT; f++) {
			if (!fig_shown(bp, k, f))
				continue;
			fputs("  ", out);
			tm_bench_pad(out, fig_info[f].label, PLABEL - 2);
			for (int ai = from; ai < to; ai++) {
				cell_text(&bp->rows[k].cell[ai][f], f, cells[ai], PCELL);
				tm_bench_pad(out, cells[ai], ai + 1 < to ? w[ai] + 3 : 0);
			}
			fputc('\n', out);
		}
	}
}

/* BP's table, under a title that says AT (" at N=16", or ""): arms that do
 * not fit the terminal beside the others go in a block under them. */
static void write_one(const struct tm_bench_phases *bp, const char *at, FILE *out)
{
	char(*cells)[PCELL] = calloc(MAXARMS, PCELL);
	int w[MAXARMS] = {0}, width = tm_term_width(out);
	char *buf = NULL;
	size_t size = 0;
	FILE *m;

	if (!cells)
		return;
	for (int ai = 0; ai < bp->t.n_arms; ai++) {
		tm_bench_table_cell(&bp->t, TM_BR_HEADER, ai, cells[ai], PCELL);
		w[ai] = tm_bench_text_width(cells[ai]);
		for (int k = 0; k < bp->n; k++)
			for (int f = 0; f < TM_BPF_COUNT; f++) {
				char c[PCELL];
				cell_text(&bp->rows[k].cell[ai][f], f, c, sizeof(c));
				w[ai] =
				    tm_bench_text_width(c) > w[ai] ? tm_bench_text_width(c) : w[ai];
			}
	}
	fprintf(out, "phases of bench %lld%s, split %s\n", (long long)bp->t.bench_id, at,
	        bp->kind == TM_SPLIT_MARKS ? "at the runs' marks" : "at progress values");
	for (int from = 0, to; from < bp->t.n_arms; from = to) {
		int used = PLABEL + w[from];
		for (to = from + 1; to < bp->t.n_arms && used + 3 + w[to] <= width; to++)
			used += 3 + w[to];
		if (from)
			fputc('\n', out);
		write_arms(bp, out, cells, w, from, to);
	}
	if ((m = open_memstream(&buf, &size))) {
		write_notes(bp, m);
		fclose(m);
		tm_term_write_lines(out, buf, width);
		free(buf);
	}
	free(cells);
}

/* " at N=16": value VI of T's parameter, as its bench table names it. */
static void value_title(const struct tm_bench_table *t, int vi, char *buf, size_t size)
{
	char safe[sizeof(t->param->name) * 4];

	snprintf(buf, size, " at %s=%s", tm_text_safe(safe, sizeof(safe), t->param->name),
	         t->param->texts[vi]);
}

void tm_bench_phases_write_text(const struct tm_bench_phases *bp, FILE *out)
{
	char at[160];

	if (!bp->per_value) {
		write_one(bp, "", out);
		return;
	}
	for (int vi = 0; vi < bp->n_values; vi++) {
		value_title(&bp->t, vi, at, sizeof(at));
		if (vi)
			fputc('\n', out);
		write_one(&bp->per_value[vi], at, out);
	}
}

static json_t *cell_json(const struct tm_bench_phases *bp, int k, int ai, int f)
{
	const struct tm_bench_phase_cell *c = &bp->rows[k].cell[ai][f];
	const char *v = tm_bench_verdict_name(c->verdict);
	json_t *o = json_pack("{s:s, s:i, s:i}", "arm", bp->t.arms[ai].name, "n", c->stat.n,
	                      "runs_without", bp->rows[k].without[ai]);

	json_object_set_new(o, "median", tm_json_figure(fig_info[f].key, c->stat.median));
	json_object_set_new(o, "min", tm_json_figure(fig_info[f].key, c->stat.min));
	json_object_set_new(o, "max", tm_json_figure(fig_info[f].key, c->stat.max));
	json_object_set_new(o, "ratio", tm_json_num(c->ratio));
	json_object_set_new(o, "p_value", tm_json_num(c->p));
	json_object_set_new(o, "verdict", tm_json_str(v));
	return o;
}

/* BP's "arms" and "phases" into O. */
static void phases_json(const struct tm_bench_phases *bp, json_t *o)
{
	json_t *arms = json_array(), *rows = json_array();

	for (int ai = 0; ai < bp->t.n_arms; ai++)
		json_array_append_new(arms, json_string(bp->t.arms[ai].name));
	for (int k = 0; k < bp->n; k++) {
		json_t *figs = json_object();
		for (int f = 0; f < TM_BPF_COUNT; f++) {
			json_t *per_arm = json_array();
			for (int ai = 0; ai < bp->t.n_arms; ai++)
				json_array_append_new(per_arm, cell_json(bp, k, ai, f));
			json_object_set_new(figs, fig_info[f].key, per_arm);
		}
		json_array_append_new(
		    rows, json_pack("{s:s, s:o}", "name", bp->rows[k].name, "figures", figs));
	}
	json_object_set_new(o, "arms", arms);
	json_object_set_new(o, "phases", rows);
}

char *tm_bench_phases_to_json(const struct tm_bench_phases *bp)
{
	json_t *o = json_pack("{s:I, s:s, s:s}", "bench_id", (json_int_t)bp->t.bench_id, "split",
	                      bp->kind == TM_SPLIT_MARKS ? "marks" : "progress", "reference",
	                      bp->t.n_arms ? bp->t.arms[bp->t.reference].name : "");
	char *text;

	if (!o)
		return NULL;
	if (!bp->per_value) {
		phases_json(bp, o);
	} else {
		/* bench --param: {"param": "N", "values": [{"value", "text", "arms",
		 * "phases"}]}, one comparison per value */
		json_t *values = json_array();
		for (int vi = 0; vi < bp->n_values; vi++) {
			json_t *v = json_pack("{s:o, s:s}", "value",
			                      tm_json_amount(bp->t.param->values[vi]), "text",
			                      bp->t.param->texts[vi]);
			phases_json(&bp->per_value[vi], v);
			json_array_append_new(values, v);
		}
		json_object_set_new(o, "param", json_string(bp->t.param->name));
		json_object_set_new(o, "values", values);
	}
	text = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	json_decref(o);
	return text;
}

int tm_bench_phases_print(struct tm_store *st, int64_t bench_id, const struct tm_phase_split *split,
                          bool json, FILE *out)
{
	struct tm_bench_phases bp;
	int rc = tm_bench_phases_load(st, bench_id, split, &bp);

	if (rc == 0 && json) {
		char *text = tm_bench_phases_to_json(&bp);
		rc = text ? 0 : tm_error("out of memory");
		if (text)
			fprintf(out, "%s\n", text);
		free(text);
	} else if (rc == 0) {
		tm_bench_phases_write_text(&bp, out);
	}
	tm_bench_phases_release(&bp);
	return rc;
}
