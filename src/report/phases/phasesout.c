/*
 * A run's phases from the store (samples, progress, marks into the arrays
 * of phases.c), and the phases as a text table, JSON and CSV.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/sample.h"
#include "base/term.h"
#include "base/util.h"
#include "report/phases/phases.h"
#include "report/run/seriescsv.h"
#include "store/store.h"
#include "report/run/runjson.h"
#include "base/banned.h"

struct load {
	struct tm_phase_pt *pt;
	size_t n, cap;
	struct tm_phase_prog *pr;
	size_t np, cap_pr;
	struct tm_phase_mark *mk;
	size_t nm, cap_mk;
};

static double get(const struct tm_sample *s, enum tm_metric m)
{
	return tm_sample_has(s, m) ? (double)s->v[m] : NAN;
}

/* SRC's value in S: NAN when absent (anon as the summary takes it: the
 * cgroup's, else the tree's, by TM_PH_EITHER). */
static double of(const struct tm_sample *s, struct tm_phase_src src)
{
	switch (src.how) {
	case TM_PH_ONE:
		return get(s, src.a);
	case TM_PH_SUM:
		return tm_sample_has(s, src.a) && tm_sample_has(s, src.b)
		           ? (double)(s->v[src.a] + s->v[src.b])
		           : NAN;
	case TM_PH_EITHER:
		return tm_sample_has(s, src.a) ? get(s, src.a) : get(s, src.b);
	case TM_PH_NONE:
		break;
	}
	return NAN;
}

static int add_sample(void *ctx, const struct tm_sample *s)
{
	struct load *l = ctx;
	struct tm_phase_pt *p;

	if (tm_grow(&l->pt, &l->cap, l->n, sizeof(*l->pt), 1024))
		return -1;
	p = &l->pt[l->n++];
	p->t_usec = s->t_mono_usec;
	for (int k = 0; k < TM_PS_COUNT; k++) {
		const struct tm_phase_series_desc *d = tm_phase_series((enum tm_phase_series)k);
		int at, nin = tm_phase_series_inputs((enum tm_phase_series)k, &at);
		p->v[k] = of(s, d->src);
		for (int j = 0; j < nin; j++)
			p->in[at + j] = of(s, d->in[j]);
	}
	p->procs = get(s, TM_M_PROC_COUNT);
	return 0;
}

static int add_progress(void *ctx, int64_t wall, int64_t mono, double v)
{
	struct load *l = ctx;

	(void)wall;
	if (tm_grow(&l->pr, &l->cap_pr, l->np, sizeof(*l->pr), 256))
		return -1;
	l->pr[l->np++] = (struct tm_phase_prog){mono, v};
	return 0;
}

static int add_mark(void *ctx, int64_t wall, int64_t mono, const char *text)
{
	struct load *l = ctx;

	(void)wall;
	if (tm_grow(&l->mk, &l->cap_mk, l->nm, sizeof(*l->mk), 16))
		return -1;
	l->mk[l->nm].t_usec = mono;
	snprintf(l->mk[l->nm].text, sizeof(l->mk[l->nm].text), "%s", text ? text : "");
	l->nm++;
	return 0;
}

int tm_phases_load(struct tm_store *st, int64_t run_id, const struct tm_phase_split *split,
                   struct tm_phases *out)
{
	struct load l = {0};
	struct tm_run_info ri;
	int rc = tm_store_run_get(st, run_id, &ri);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	tm_run_info_release(&ri);
	rc = tm_store_each_sample(st, run_id, 0, -1, add_sample, &l);
	if (!rc)
		rc = tm_store_each_progress(st, run_id, add_progress, &l);
	if (!rc)
		rc = tm_store_each_mark(st, run_id, add_mark, &l);
	if (!rc) {
		tm_phase_pts_derive(l.pt, l.n);
		rc = l.n ? tm_phases_compute(l.pt, l.n, l.pr, l.np, l.mk, l.nm, split, out) : 1;
	}
	out->run_id = run_id;
	free(l.pt);
	free(l.pr);
	free(l.mk);
	return rc < 0 ? -1 : rc;
}

/* ---- text ---- */

/* A column of the text table: its header and how a row's cell reads. */
enum col_kind {
	C_FROM,
	C_DUR,
	C_SAMPLES,
	C_START,
	C_END,
	C_CHANGE,
	C_PEAK,
	C_UNITS,
	C_PER_UNIT,
	C_RATE
};
struct col {
	enum col_kind kind;
	int series;
	char head[32];
};

static void cell(const struct tm_phase *r, const struct col *c, char *buf, size_t size)
{
	double v = NAN;
	const char *fmt = "%.1f";

	switch (c->kind) {
	case C_FROM:
		v = r->start_offset_usec / 1e6;
		break;
	case C_DUR:
		v = r->duration_usec / 1e6;
		break;
	case C_SAMPLES:
		snprintf(buf, size, "%d", r->samples);
		return;
	case C_START:
		v = r->start[c->series] / TM_MIB;
		break;
	case C_END:
		v = r->end[c->series] / TM_MIB;
		break;
	case C_CHANGE:
		v = r->change[c->series] / TM_MIB;
		fmt = "%+.1f";
		break;
	case C_PEAK:
		v = r->peak_anon_bytes / TM_MIB;
		break;
	case C_UNITS:
		v = r->units;
		fmt = "%g";
		break;
	case C_PER_UNIT:
		v = r->per_unit[c->series] / TM_MIB;
		fmt = "%+.4g";
		break;
	case C_RATE:
		v = r->rate_per_min;
		break;
	}
	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, fmt, v);
}

/* The columns shown: series that some sample had, per-unit figures when
 * there was progress. */
static int columns(const struct tm_phases *ph, struct col *cols)
{
	int n = 0;
	bool progress = isfinite(ph->total.progress_start) || ph->progress_bunched;

	cols[n++] = (struct col){C_FROM, 0, "from s"};
	cols[n++] = (struct col){C_DUR, 0, "dur s"};
	cols[n++] = (struct col){C_SAMPLES, 0, "samples"};
	for (int s = 0; s < TM_PS_COUNT; s++) {
		if (!ph->has[s] && s != TM_PS_ANON)
			continue;
		const char *l = tm_phase_series_label(s);
		cols[n] = (struct col){C_START, s, ""};
		snprintf(cols[n++].head, sizeof(cols[0].head), "%s start", l);
		cols[n++] = (struct col){C_END, s, "end"};
		cols[n++] = (struct col){C_CHANGE, s, "change"};
		if (s == TM_PS_ANON)
			cols[n++] = (struct col){C_PEAK, s, "peak"};
	}
	if (!progress)
		return n;
	cols[n++] = (struct col){C_UNITS, 0, "units"};
	for (int s = 0; s < TM_PS_COUNT; s++) {
		if (!ph->has[s] && s != TM_PS_ANON)
			continue;
		cols[n] = (struct col){C_PER_UNIT, s, ""};
		snprintf(cols[n++].head, sizeof(cols[0].head), "%s/unit", tm_phase_series_label(s));
	}
	cols[n++] = (struct col){C_RATE, 0, "rate/min"};
	return n;
}

#define MAX_COLS (4 + 5 * TM_PS_COUNT + 2)

/* One row of columns [FROM, TO) of COLS. */
static void write_row(FILE *out, const char *name, int name_w, const struct tm_phase *r,
                      const struct col *cols, int from, int to, const int *w)
{
	char c[48], safe[TM_PHASE_NAME_MAX * 4];

	fprintf(out, "  %-*s", name_w, tm_text_safe(safe, sizeof(safe), name));
	for (int i = from; i < to; i++) {
		if (r)
			cell(r, &cols[i], c, sizeof(c));
		fprintf(out, "  %*s", w[i], r ? c : cols[i].head);
	}
	fputc('\n', out);
}

void tm_phases_write_text(const struct tm_phases *ph, FILE *out)
{
	struct col cols[MAX_COLS];
	int nc = columns(ph, cols), w[MAX_COLS], name_w = 5;
	char c[48], safe[TM_PHASE_NAME_MAX * 4];

	for (int i = 0; i < nc; i++) {
		w[i] = (int)strlen(cols[i].head);
		for (int k = 0; k <= ph->n; k++) {
			cell(k < ph->n ? &ph->p[k] : &ph->total, &cols[i], c, sizeof(c));
			if ((int)strlen(c) > w[i])
				w[i] = (int)strlen(c);
		}
	}
	for (int k = 0; k < ph->n; k++) {
		int l = (int)strlen(tm_text_safe(safe, sizeof(safe), ph->p[k].name));
		name_w = l > name_w ? l : name_w;
	}
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	int width = tm_term_width(out);

	fprintf(m ? m : out,
	        "phases of run %" PRId64 ", split %s; sizes in MiB, each phase starts "
	        "where the one before ended\n",
	        ph->run_id, ph->kind == TM_SPLIT_MARKS ? "at its marks" : "at progress values");
	if (m)
		fclose(m), tm_term_write_lines(out, buf, width), free(buf), buf = NULL;
	/* columns that do not fit beside the others go in a table under them,
	 * each table with the phases' names */
	for (int from = 0, to; from < nc; from = to) {
		int used = 2 + name_w + 2 + w[from];
		for (to = from + 1; to < nc && used + 2 + w[to] <= width; to++)
			used += 2 + w[to];
		if (from)
			fputc('\n', out);
		write_row(out, "phase", name_w, NULL, cols, from, to, w);
		for (int k = 0; k < ph->n; k++)
			write_row(out, ph->p[k].name, name_w, &ph->p[k], cols, from, to, w);
		write_row(out, "run", name_w, &ph->total, cols, from, to, w);
	}
	if (!(m = open_memstream(&buf, &size)))
		m = out;
	for (int i = 0; i < ph->n_notes; i++)
		fprintf(m, "%s\n", ph->notes[i]);
	for (int k = 0; k < TM_PS_COUNT; k++)
		if (ph->has[k] && tm_phase_series((enum tm_phase_series)k)->note)
			fprintf(m, "%s\n", tm_phase_series((enum tm_phase_series)k)->note);
	if (m != out)
		fclose(m), tm_term_write_lines(out, buf, width), free(buf);
}

/* ---- JSON and CSV: one set of keys ---- */

/* The row's figures in order, KEYS[i] naming VALS[i]; their count. */
#define ROW_FIGS (6 + 4 * TM_PS_COUNT + 1)
static int row_figs(const struct tm_phase *r, char keys[][48], double *vals)
{
	int n = 0;
	const struct {
		const char *k;
		double v;
	} fixed[] = {
	    {"start_offset_usec", r->start_offset_usec}, {"duration_usec", r->duration_usec},
	    {"peak_anon_bytes", r->peak_anon_bytes},     {"progress_start", r->progress_start},
	    {"progress_end", r->progress_end},           {"units", r->units},
	};
	for (size_t i = 0; i < TM_ARRAY_SIZE(fixed); i++) {
		snprintf(keys[n], 48, "%s", fixed[i].k);
		vals[n++] = fixed[i].v;
	}
	for (int s = 0; s < TM_PS_COUNT; s++) {
		const char *k = tm_phase_series_key(s);
		snprintf(keys[n], 48, "%s_start_bytes", k);
		vals[n++] = r->start[s];
		snprintf(keys[n], 48, "%s_end_bytes", k);
		vals[n++] = r->end[s];
		snprintf(keys[n], 48, "%s_change_bytes", k);
		vals[n++] = r->change[s];
		snprintf(keys[n], 48, "%s_bytes_per_unit", k);
		vals[n++] = r->per_unit[s];
	}
	snprintf(keys[n], 48, "rate_per_min");
	vals[n++] = r->rate_per_min;
	return n;
}

static json_t *row_json(const struct tm_phase *r)
{
	char keys[ROW_FIGS][48];
	double vals[ROW_FIGS];
	int n = row_figs(r, keys, vals);
	json_t *o = json_pack("{s:s, s:i, s:b}", "name", r->name, "samples", r->samples,
	                      "progress_bunched", r->bunched);

	for (int i = 0; o && i < n; i++)
		json_object_set_new(o, keys[i], tm_json_num(vals[i]));
	return o;
}

json_t *tm_phases_json(const struct tm_phases *ph)
{
	json_t *rows = json_array(), *notes = json_array();
	json_t *o = json_pack("{s:I, s:s, s:b}", "run_id", (json_int_t)ph->run_id, "split",
	                      ph->kind == TM_SPLIT_MARKS ? "marks" : "progress", "progress_bunched",
	                      ph->progress_bunched);

	if (!o || !rows || !notes) {
		json_decref(o);
		json_decref(rows);
		json_decref(notes);
		return NULL;
	}
	for (int k = 0; k < ph->n; k++)
		json_array_append_new(rows, row_json(&ph->p[k]));
	for (int i = 0; i < ph->n_notes; i++)
		json_array_append_new(notes, json_string(ph->notes[i]));
	json_object_set_new(o, "phases", rows);
	json_object_set_new(o, "total", row_json(&ph->total));
	json_object_set_new(o, "notes", notes);
	return o;
}

static void csv_row(FILE *out, const char *row, const struct tm_phase *r)
{
	char keys[ROW_FIGS][48];
	double vals[ROW_FIGS];
	int n = row_figs(r, keys, vals);

	fprintf(out, "%s,", row);
	tm_csv_field(out, r->name);
	fprintf(out, ",%d", r->samples);
	for (int i = 0; i < n; i++)
		isfinite(vals[i]) ? fprintf(out, ",%.15g", vals[i]) : fprintf(out, ",");
	fputc('\n', out);
}

void tm_phases_write_csv(const struct tm_phases *ph, FILE *out)
{
	char keys[ROW_FIGS][48];
	double vals[ROW_FIGS];
	int n = row_figs(&ph->total, keys, vals);

	fprintf(out, "row,phase,samples");
	for (int i = 0; i < n; i++)
		fprintf(out, ",%s", keys[i]);
	fputc('\n', out);
	for (int k = 0; k < ph->n; k++)
		csv_row(out, "phase", &ph->p[k]);
	csv_row(out, "total", &ph->total);
}
