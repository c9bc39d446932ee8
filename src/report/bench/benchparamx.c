/*
 * A bench with a parameter as JSON, CSV and Markdown (report/bench/benchparam.h):
 * raw numbers in JSON and CSV, the text table's rows for readers that show
 * it (the panel, the HTML report).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/bench/benchparam.h"
#include "report/bench/benchparam_int.h"
#include "report/bench/benchtab_int.h"
#include "report/run/runjson.h"
#include "base/banned.h"

static const char *note_kind(int kind)
{
	return kind == TM_PNOTE_FIT ? "param-fit" : tm_bench_note_kind_name(kind);
}

/* The table's JSON without the parameter (T's own, over all its runs),
 * parsed; NULL when out of memory. */
static json_t *plain_json(const struct tm_bench_table *t)
{
	struct tm_bench_table *copy = malloc(sizeof(*copy));
	char *text;
	json_t *o;

	if (!copy)
		return NULL;
	*copy = *t;
	copy->param = NULL;
	text = tm_bench_table_to_json(copy);
	free(copy);
	o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return o;
}

static json_t *fit_json(const struct tm_bench_table *t, int ai, int f)
{
	const struct tm_bench_fit *fit = &t->param->fit[ai][f];
	char slope[128], expo[128], icpt[128];

	tm_bench_param_fit_cell(fit, f, TM_PROW_SLOPE, slope, sizeof(slope));
	tm_bench_param_fit_cell(fit, f, TM_PROW_EXPONENT, expo, sizeof(expo));
	tm_bench_param_fit_cell(fit, f, TM_PROW_INTERCEPT, icpt, sizeof(icpt));
	json_t *o = json_pack("{s:s, s:s, s:i, s:i}", "arm", t->arms[ai].name, "figure",
	                      tm_bench_fig_info((enum tm_bench_fig)f)->key, "n", fit->n, "n_log",
	                      fit->n_log);
	json_object_set_new(o, "slope_per_unit", tm_json_num(fit->slope));
	json_object_set_new(o, "intercept", tm_json_num(fit->intercept));
	json_object_set_new(o, "r2", tm_json_num(fit->r2));
	json_object_set_new(o, "exponent", tm_json_num(fit->exponent));
	json_object_set_new(o, "exponent_r2", tm_json_num(fit->exp_r2));
	json_object_set_new(o, "exponent_base", tm_json_num(fit->exp_base));
	json_object_set_new(o, "slope_text", json_string(slope));
	json_object_set_new(o, "intercept_text", json_string(icpt));
	json_object_set_new(o, "exponent_text", json_string(expo));
	return o;
}

static json_t *param_json(const struct tm_bench_table *t)
{
	const struct tm_bench_ptab *p = t->param;
	json_t *o = json_pack("{s:s, s:s}", "name", p->name, "spec", p->spec);
	json_t *values = json_array(), *texts = json_array(), *by = json_array(),
	       *fits = json_array();

	for (int vi = 0; vi < p->n; vi++) {
		char *text = tm_bench_table_to_json(&p->by_value[vi]);
		json_t *sub = text ? json_loads(text, 0, NULL) : NULL;
		free(text);
		json_array_append_new(values, json_real(p->values[vi]));
		json_array_append_new(texts, json_string(p->texts[vi]));
		json_array_append_new(by,
		                      json_pack("{s:f, s:s, s:o}", "value", p->values[vi], "text",
		                                p->texts[vi], "table", sub ? sub : json_null()));
	}
	for (int ai = 0; ai < t->n_arms; ai++)
		for (int f = 0; f < TM_BF_COUNT; f++)
			if (tm_bench_param_figure(f))
				json_array_append_new(fits, fit_json(t, ai, f));
	json_object_set_new(o, "values", values);
	json_object_set_new(o, "texts", texts);
	json_object_set_new(o, "by_value", by);
	json_object_set_new(o, "fits", fits);
	json_object_set_new(o, "runs_without_value", json_integer(p->unvalued));
	return o;
}

/* The text table: header lines and rows as the terminal prints them. */
static json_t *text_json(const struct tm_bench_table *t)
{
	static const char *const kinds[] = {"title", "value", "slope", "exponent", "intercept"};
	struct tm_bench_prows rs;
	json_t *rows = json_array();

	if (tm_bench_param_rows(t, &rs) == 0)
		for (int i = 0; i < rs.n; i++) {
			const struct tm_bench_prow *r = &rs.rows[i];
			const struct tm_bench_fig_info *fi =
			    r->row >= 0 ? tm_bench_fig_info((enum tm_bench_fig)r->row) : NULL;
			json_t *cells = json_array();
			for (int ai = 0; ai < t->n_arms; ai++)
				json_array_append_new(cells, json_string(r->cells[ai]));
			json_array_append_new(
			    rows,
			    json_pack("{s:i, s:o, s:s, s:o, s:s, s:o}", "row", r->row, "figure",
			              fi ? json_string(fi->key) : json_null(), "kind",
			              kinds[r->kind], "param_value",
			              r->vi >= 0 ? json_real(t->param->values[r->vi]) : json_null(),
			              "label", r->label, "cells", cells));
		}
	free(rs.rows);
	return json_pack("{s:o, s:o}", "header",
	                 tm_bench_lines_json(t, tm_bench_param_write_header), "rows", rows);
}

char *tm_bench_param_to_json(const struct tm_bench_table *t)
{
	json_t *o = plain_json(t), *a, *r, *notes = json_array();
	struct tm_bench_pnote *pn = NULL;
	size_t i;
	char *text;
	int n;

	if (!o)
		return NULL;
	/* medians over runs at different values mean nothing: per value only */
	json_array_foreach(json_object_get(o, "arms"), i, a)
	{
		json_object_del(a, "figures");
		json_object_del(a, "killed_peak_anon_bytes");
		json_object_del(a, "killed_heap_live_bytes");
		json_object_del(a, "killed_progress");
		json_object_del(a, "killed_wall_usec");
	}
	json_array_foreach(json_object_get(o, "runs"), i, r)
	{
		double v = i < (size_t)t->n_runs ? t->param->run_value[i] : NAN;
		json_object_set_new(r, "param_value", tm_json_num(v));
	}
	n = tm_bench_param_notes(t, &pn);
	for (int k = 0; k < n; k++)
		json_array_append_new(notes, json_pack("{s:s, s:s}", "kind", note_kind(pn[k].kind),
		                                       "text", pn[k].text));
	free(pn);
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "text", text_json(t));
	json_object_set_new(o, "param", param_json(t));
	text = json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	json_decref(o);
	return text;
}

/* ---- CSV: the plain table's long format per value, with two columns in front ---- */

static void fit_lines(const struct tm_bench_table *t, FILE *out)
{
	static const char *const what[] = {"fit-slope", "fit-intercept", "fit-r2", "fit-exponent",
	                                   "fit-exponent-r2"};
	const struct tm_bench_ptab *p = t->param;

	for (int ai = 0; ai < t->n_arms; ai++)
		for (int f = 0; f < TM_BF_COUNT; f++) {
			const struct tm_bench_fit *fit = &p->fit[ai][f];
			double v[] = {fit->slope, fit->intercept, fit->r2, fit->exponent,
			              fit->exp_r2};
			if (!tm_bench_param_figure(f))
				continue;
			for (int k = 0; k < 5; k++) {
				/* arm names are [A-Za-z0-9_.+-]: no quoting needed */
				fprintf(out, "%s,,%s,%lld,%s,,,%s,%d,,,,,,,,", p->name, what[k],
				        (long long)t->bench_id, t->arms[ai].name,
				        tm_bench_fig_info((enum tm_bench_fig)f)->key,
				        k < 3 ? fit->n : fit->n_log);
				tm_bench_csv_num(out, v[k]);
				fputc('\n', out);
			}
		}
}

void tm_bench_param_write_csv(const struct tm_bench_table *t, FILE *out)
{
	const struct tm_bench_ptab *p = t->param;

	for (int vi = 0; vi < p->n; vi++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f)
			return;
		tm_bench_table_write_csv(&p->by_value[vi], f);
		fclose(f);
		for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			int n = nl ? (int)(nl - line) : (int)strlen(line);
			if (line == buf && vi == 0)
				fprintf(out, "param,param_value,%.*s\n", n, line);
			else if (line != buf)
				fprintf(out, "%s,%s,%.*s\n", p->name, p->texts[vi], n, line);
		}
		free(buf);
	}
	fit_lines(t, out);
}

void tm_bench_param_write_md(const struct tm_bench_table *t, FILE *out)
{
	struct tm_bench_prows rs;
	struct tm_bench_pnote *pn = NULL;
	int n;

	fprintf(out, "### bench %lld%s%s (%s)\n\n", (long long)t->bench_id, t->name[0] ? ": " : "",
	        t->name, t->param->spec);
	if (tm_bench_param_rows(t, &rs) == 0)
		for (int i = 0; i < rs.n; i++) {
			fprintf(out, "| %s |", rs.rows[i].label);
			for (int ai = 0; ai < t->n_arms; ai++)
				fprintf(out, " %s |", rs.rows[i].cells[ai]);
			fputc('\n', out);
			if (i == 0) {
				fputs("|---|", out);
				for (int ai = 0; ai < t->n_arms; ai++)
					fputs("---|", out);
				fputc('\n', out);
			}
		}
	free(rs.rows);
	n = tm_bench_param_notes(t, &pn);
	if (n)
		fputc('\n', out);
	for (int k = 0; k < n; k++)
		fprintf(out, "%s\n", pn[k].text);
	free(pn);
}
