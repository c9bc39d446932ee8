/*
 * The bench table as JSON (the panel, the HTML report, --export json), CSV
 * and Markdown.  Raw units (bytes, usec) in JSON and CSV; the Markdown
 * table is the text table's layout.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/util.h"
#include "report/bench/benchparam.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "report/run/seriescsv.h"
#include "report/run/stats.h"
#include "report/run/runjson.h"
#include "base/banned.h"

/* S of the figure KEY: a whole amount (bytes, usec, a count) as an integer. */
static json_t *stat_json(const struct tm_bench_stat *s, const char *key)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "n", s->n, "median",
	                 tm_json_figure(key, s->median), "min", tm_json_figure(key, s->min), "max",
	                 tm_json_figure(key, s->max), "mad", tm_json_figure(key, s->mad));
}

static json_t *arm_json(const struct tm_bench_arm_row *a, bool control)
{
	json_t *figures = json_object();
	json_t *o;

	for (int f = 0; f < TM_BF_COUNT; f++) {
		json_t *s = stat_json(&a->stat[f], tm_bench_fig_info(f)->key);
		json_object_set_new(s, "ratio", tm_json_num(a->ratio[f]));
		json_object_set_new(s, "overlaps_control", json_boolean(a->overlap[f]));
		json_object_set_new(s, "p_value", tm_json_num(a->p[f]));
		const char *v = tm_bench_verdict_name(a->verdict[f]);
		json_object_set_new(s, "verdict", tm_json_str(v));
		json_object_set_new(figures, tm_bench_fig_info(f)->key, s);
	}
	o = json_pack("{s:s, s:b, s:s, s:s, s:s, s:i, s:i}", "name", a->name, "control", control,
	              "allocator", a->allocator, "env", a->env_text ? a->env_text : "", "limits",
	              a->limits_text ? a->limits_text : "", "runs", a->runs, "survived",
	              a->survived);
	json_object_set_new(o, "outcomes",
	                    json_pack("{s:i, s:i, s:i, s:i, s:i}",
	                              tm_outcome_name(TM_OUTCOME_COMPLETED), a->survived,
	                              tm_outcome_name(TM_OUTCOME_OOM_KILLED), a->oom_killed,
	                              tm_outcome_name(TM_OUTCOME_KILLED), a->killed,
	                              tm_outcome_name(TM_OUTCOME_TIMEOUT), a->timeout,
	                              tm_outcome_name(TM_OUTCOME_FAILED), a->failed));
	json_object_set_new(o, tm_outcome_name(TM_OUTCOME_INVALID), json_integer(a->invalid));
	json_object_set_new(o, tm_outcome_name(TM_OUTCOME_INTERRUPTED),
	                    json_integer(a->interrupted));
	json_object_set_new(o, "figures", figures);
	json_object_set_new(o, "killed_peak_anon_bytes",
	                    stat_json(&a->killed_peak, "killed_peak_anon_bytes"));
	json_object_set_new(o, "killed_heap_live_bytes",
	                    stat_json(&a->killed_heap, "killed_heap_live_bytes"));
	json_object_set_new(o, "killed_progress",
	                    stat_json(&a->killed_progress, "killed_progress"));
	json_object_set_new(o, "killed_wall_usec", stat_json(&a->killed_wall, "killed_wall_usec"));
	return o;
}

static json_t *run_json(const struct tm_bench_table *t, const struct tm_bench_run_row *r)
{
	json_t *figures = json_object(), *outliers = json_array();

	for (int f = 0; f < TM_BF_COUNT; f++) {
		const char *key = tm_bench_fig_info(f)->key;
		json_object_set_new(figures, key, tm_json_figure(key, r->fig[f]));
		if (tm_bench_run_outlier(r, f))
			json_array_append_new(outliers, json_string(tm_bench_fig_info(f)->key));
	}
	const char *arm = r->arm >= 0 && r->arm < t->n_arms ? t->arms[r->arm].name : "";
	json_t *o = json_pack("{s:I, s:I, s:s, s:b, s:s, s:s}", "run_id", (json_int_t)r->run_id,
	                      "seq", (json_int_t)r->seq, "arm", arm, "warmup", r->warmup, "outcome",
	                      tm_outcome_name(r->outcome), "reason", r->reason);
	json_object_set_new(o, "figures", figures);
	json_object_set_new(o, "outliers", outliers);
	json_object_set_new(o, "work_wall_usec", tm_json_amount(r->work_wall_usec));
	json_object_set_new(o, "steal_share", tm_json_num(r->steal_share));
	json_object_set_new(o, "other_load_share", tm_json_num(r->other_share));
	return o;
}

const char *tm_bench_note_kind_name(int kind)
{
	static const char *const kinds[] = {
	    [TM_BN_LEGEND] = "legend",
	    [TM_BN_FLOOR] = "noise-floor",
	    [TM_BN_ZERO] = "zero",
	    [TM_BN_REF] = "reference",
	    [TM_BN_TOO_FEW] = "too-few-runs",
	    [TM_BN_OUTLIER] = "outlier",
	    [TM_BN_RUN] = "run",
	    [TM_BN_NOISY] = "noisy",
	    [TM_BN_THROTTLE] = "throttle",
	    [TM_BN_SCRAPED] = "scraped",
	    [TM_BN_BOUND] = "bound",
	};
	return kind >= 0 && kind <= TM_BN_BOUND && kinds[kind] ? kinds[kind] : "note";
}

static void note_json(void *ctx, enum tm_bench_note kind, const char *text)
{
	json_array_append_new(
	    ctx, json_pack("{s:s, s:s}", "kind", tm_bench_note_kind_name(kind), "text", text));
}

json_t *tm_bench_lines_json(const struct tm_bench_table *t,
                            void (*write)(const struct tm_bench_table *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *arr;

	if (!f)
		return NULL;
	write(t, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	arr = json_array();
	for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		if (n)
			json_array_append_new(arr, json_stringn(line, n));
	}
	free(buf);
	return arr;
}

/* The text table's own pieces, so every reader shows the same table: the
 * header lines and each row's label and cells as the terminal prints them
 * (markers such as n.s. and * included).  The notes under it are "notes". */
static json_t *text_json(const struct tm_bench_table *t)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	json_t *o = json_object(), *jrows = json_array();
	char cell[128];

	for (int r = 0; r < n_rows; r++) {
		json_t *cells = json_array();
		for (int ai = 0; ai < t->n_arms; ai++) {
			tm_bench_table_cell(t, rows[r], ai, cell, sizeof(cell));
			json_array_append_new(cells, json_string(cell));
		}
		const struct tm_bench_fig_info *fi =
		    rows[r] >= 0 ? tm_bench_fig_info((enum tm_bench_fig)rows[r]) : NULL;
		json_array_append_new(jrows,
		                      json_pack("{s:i, s:o, s:s, s:o}", "row", rows[r], "figure",
		                                fi ? json_string(fi->key) : json_null(), "label",
		                                tm_bench_table_row_label(rows[r]), "cells", cells));
	}
	json_object_set_new(o, "header", tm_bench_lines_json(t, tm_bench_table_write_header));
	json_object_set_new(o, "rows", jrows);
	return o;
}

/* What rows scraped_N_* are: the series' names, null for an unused slot;
 * NULL (no "scraped" at all) for a bench that scraped nothing. */
static json_t *scraped_json(const struct tm_bench_table *t)
{
	json_t *a = NULL;
	int used = 0;

	for (int i = 0; i < TM_BENCH_SCRAPED_SLOTS; i++)
		used += t->scraped[i][0] != 0;
	if (!used || !(a = json_array()))
		return NULL;
	for (int i = 0; i < TM_BENCH_SCRAPED_SLOTS; i++)
		json_array_append_new(a,
		                      t->scraped[i][0] ? json_string(t->scraped[i]) : json_null());
	return a;
}

/* The test the verdicts come from, for readers of the JSON. */
static json_t *test_json(void)
{
	return json_pack("{s:s, s:b, s:f, s:i}", "name", "mann-whitney-u", "two_sided", 1, "alpha",
	                 TM_BENCH_ALPHA, "exact_max_runs", TM_MW_EXACT_MAX);
}

char *tm_bench_table_to_json(const struct tm_bench_table *t)
{
	json_t *arms, *runs, *o;
	char *text;

	if (t->param)
		return tm_bench_param_to_json(t);
	arms = json_array();
	runs = json_array();

	for (int i = 0; i < t->n_arms; i++)
		json_array_append_new(arms, arm_json(&t->arms[i], i == 0));
	for (int i = 0; i < t->n_runs; i++)
		json_array_append_new(runs, run_json(t, &t->runs[i]));
	o = json_pack("{s:I, s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:b, s:s}", "bench_id",
	              (json_int_t)t->bench_id, "name", t->name, "host", t->host, "order",
	              t->order[0] ? t->order : "interleave", "seed", (json_int_t)t->seed, "window",
	              t->window, "started_wall_usec", (json_int_t)t->started_wall_usec,
	              "ended_wall_usec", (json_int_t)t->ended_wall_usec, "noisy", t->noisy,
	              "control", t->n_arms ? t->arms[0].name : "");
	if (!o) {
		json_decref(arms);
		json_decref(runs);
		return NULL;
	}
	json_object_set_new(o, "command", tm_json_str(t->command));
	json_object_set_new(o, "settle_usec", json_integer(t->settle_usec));
	json_t *scraped = scraped_json(t);
	if (scraped)
		json_object_set_new(o, "scraped", scraped);
	json_object_set_new(o, "reference",
	                    json_string(t->n_arms ? t->arms[t->reference].name : ""));
	json_t *notes = json_array();
	tm_bench_table_each_note(t, note_json, notes);
	json_object_set_new(o, "test", test_json());
	json_object_set_new(o, "notes", notes);
	json_object_set_new(o, "arms", arms);
	json_object_set_new(o, "runs", runs);
	json_object_set_new(o, "text", text_json(t));
	text = json_dumps(o, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	json_decref(o);
	return text;
}

void tm_bench_csv_num(FILE *out, double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) <= 9007199254740992.0)
		fprintf(out, "%.0f", v);
	else if (isfinite(v))
		fprintf(out, "%.10g", v);
}

/* Long format: one line per arm and figure, then one per run and figure. */
void tm_bench_table_write_csv(const struct tm_bench_table *t, FILE *out)
{
	if (t->param) {
		tm_bench_param_write_csv(t, out);
		return;
	}
	fputs("kind,bench_id,arm,run_id,outcome,figure,n,median,min,max,ratio,overlaps_control,"
	      "p_value,verdict,value\n",
	      out);
	for (int ai = 0; ai < t->n_arms; ai++) {
		const struct tm_bench_arm_row *a = &t->arms[ai];
		fprintf(out, "arm,%lld,", (long long)t->bench_id);
		tm_csv_field(out, a->name);
		fprintf(out, ",,,survived,%d,,,,,,,,%d\n", a->runs, a->survived);
		for (int f = 0; f < TM_BF_COUNT; f++) {
			fprintf(out, "arm,%lld,", (long long)t->bench_id);
			tm_csv_field(out, a->name);
			fprintf(out, ",,,%s,%d,", tm_bench_fig_info(f)->key, a->stat[f].n);
			tm_bench_csv_num(out, a->stat[f].median);
			fputc(',', out);
			tm_bench_csv_num(out, a->stat[f].min);
			fputc(',', out);
			tm_bench_csv_num(out, a->stat[f].max);
			fputc(',', out);
			tm_bench_csv_num(out, a->ratio[f]);
			fprintf(out, ",%d,", a->overlap[f]);
			tm_bench_csv_num(out, a->p[f]);
			const char *v = tm_bench_verdict_name(a->verdict[f]);
			fprintf(out, ",%s,\n", v ? v : "");
		}
	}
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		const char *arm = r->arm >= 0 && r->arm < t->n_arms ? t->arms[r->arm].name : "";
		for (int f = 0; f < TM_BF_COUNT; f++) {
			fprintf(out, "%s,%lld,", r->warmup ? "warmup" : "run",
			        (long long)t->bench_id);
			tm_csv_field(out, arm);
			fprintf(out, ",%lld,%s,%s,,,,,,,,,", (long long)r->run_id,
			        tm_outcome_name(r->outcome), tm_bench_fig_info(f)->key);
			tm_bench_csv_num(out, r->fig[f]);
			fputc('\n', out);
		}
	}
}

/* Markdown: a pipe table (figures as rows, arms as columns), then the notes. */
void tm_bench_table_write_md(const struct tm_bench_table *t, FILE *out)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	char cell[128];

	if (t->param) {
		tm_bench_param_write_md(t, out);
		return;
	}
	fprintf(out, "### bench %lld%s%s\n\n", (long long)t->bench_id, t->name[0] ? ": " : "",
	        t->name);
	for (int r = 0; r < n_rows; r++) {
		fprintf(out, "| %s |", tm_bench_table_row_label(rows[r]));
		for (int ai = 0; ai < t->n_arms; ai++) {
			tm_bench_table_cell(t, rows[r], ai, cell, sizeof(cell));
			fprintf(out, " %s |", cell);
		}
		fputc('\n', out);
		if (r == 0) {
			fputs("|---|", out);
			for (int ai = 0; ai < t->n_arms; ai++)
				fputs("---|", out);
			fputc('\n', out);
		}
	}
	tm_bench_table_write_notes(t, out);
}
