/*
 * The bench figure registry (report/bench/benchfigs.h), walked: every figure has
 * a distinct key, label and rank, a source, and appears exactly once in
 * every output of a bench: the text table, Markdown, JSON, CSV, the rows the
 * panel and the HTML report render (tm_bench_table_rows), and the table of
 * docs/bench.md.  (No bench figure is exported on /metrics.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"
#include <jansson.h>

#include "base/util.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "base/banned.h"

static void test_descriptors(void **state)
{
	bool rank_seen[TM_BF_RANK_LIMIT] = {false};
	(void)state;
	for (int f = 0; f < TM_BF_COUNT; f++) {
		const struct tm_bench_fig_info *fi = tm_bench_fig_info((enum tm_bench_fig)f);
		assert_non_null(fi);
		if (!fi->key || !fi->key[0] || !fi->label || !fi->label[0])
			fail_msg("figure %d has no key or no label", f);
		if (fi->rank < 0 || fi->rank >= TM_BF_RANK_LIMIT || rank_seen[fi->rank])
			fail_msg("figure %s: rank %d out of range or given twice", fi->key,
			         fi->rank);
		rank_seen[fi->rank] = true;
		if (!tm_bench_fig_sourced(f))
			fail_msg("figure %s has no source a run's value is read from", fi->key);
		for (int g = 0; g < f; g++) {
			const struct tm_bench_fig_info *gi =
			    tm_bench_fig_info((enum tm_bench_fig)g);
			if (!strcmp(fi->key, gi->key) || !strcmp(fi->label, gi->label))
				fail_msg("figures %d and %d share key '%s'/'%s' or label '%s'/'%s'",
				         g, f, gi->key, fi->key, gi->label, fi->label);
		}
		/* the unit is in the key's name */
		const char *want = fi->unit == TM_BFU_BYTES           ? "_bytes"
		                   : fi->unit == TM_BFU_USEC          ? "_usec"
		                   : fi->unit == TM_BFU_USEC_PER_UNIT ? "_usec_per_unit"
		                                                      : NULL;
		if (want && !strstr(fi->key, want))
			fail_msg("figure %s: unit %d but its key lacks '%s'", fi->key, fi->unit,
			         want);
		if (fi->param && fi->unit != TM_BFU_BYTES && fi->unit != TM_BFU_USEC)
			fail_msg("figure %s: --param fits only bytes and times (unit %d)", fi->key,
			         fi->unit);
	}
	assert_null(tm_bench_fig_info(TM_BF_COUNT));
	assert_false(tm_bench_fig_sourced(TM_BF_COUNT));
	assert_false(tm_bench_fig_sourced(-1));
}

/* Two arms of two surviving runs each with a distinct nonzero value of
 * every figure (so every row is shown), a --settle, named scraped series. */
static void make_full(struct tm_bench_table *t)
{
	memset(t, 0, sizeof(*t));
	t->bench_id = 9;
	t->n_arms = 2;
	t->settle_usec = 1000000;
	snprintf(t->arms[0].name, 64, "glibc");
	snprintf(t->arms[1].name, 64, "jemalloc");
	for (int i = 0; i < TM_BENCH_SCRAPED_SLOTS; i++)
		snprintf(t->scraped[i], sizeof(t->scraped[i]), "gauge_%d%s", i,
		         i < 2 ? "_bytes" : "");
	t->runs = calloc(4, sizeof(*t->runs));
	assert_non_null(t->runs);
	for (int i = 0; i < 4; i++) {
		struct tm_bench_run_row *r = &t->runs[t->n_runs++];
		r->run_id = i + 1;
		r->seq = i;
		r->arm = i % 2;
		r->outcome = TM_OUTCOME_COMPLETED;
		r->work_wall_usec = 5e6;
		r->steal_share = r->other_share = 0;
		for (int f = 0; f < TM_BF_COUNT; f++)
			r->fig[f] = (f + 1) * (1 + i) * 1e7;
	}
	tm_bench_table_compute(t);
}

static char *text_of(const struct tm_bench_table *t,
                     void (*fn)(const struct tm_bench_table *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(t, f);
	fclose(f);
	return buf;
}

/* How many lines of TEXT start with PREFIX and then SEP (a character). */
static int lines_starting(const char *text, const char *prefix, char sep)
{
	int n = 0;
	size_t len = strlen(prefix);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, len) && l[len] == sep)
			n++;
	return n;
}

static void once(const char *what, const char *key, int n)
{
	if (n != 1)
		fail_msg("%s: figure %s appears %d times, not once", what, key, n);
}

static void test_text_md_csv(void **state)
{
	struct tm_bench_table t;
	char buf[128];
	(void)state;
	make_full(&t);
	char *text = text_of(&t, tm_bench_table_write_text);
	char *md = text_of(&t, tm_bench_table_write_md);
	char *csv = text_of(&t, tm_bench_table_write_csv);
	for (int f = 0; f < TM_BF_COUNT; f++) {
		const struct tm_bench_fig_info *fi = tm_bench_fig_info((enum tm_bench_fig)f);
		once("text table", fi->key, lines_starting(text, fi->label, ' '));
		snprintf(buf, sizeof(buf), "| %s", fi->label);
		once("Markdown table", fi->key, lines_starting(md, buf, ' '));
		for (int ai = 0; ai < t.n_arms; ai++) {
			snprintf(buf, sizeof(buf), "arm,9,%s,,,%s", t.arms[ai].name, fi->key);
			once("CSV arm rows", fi->key, lines_starting(csv, buf, ','));
		}
		snprintf(buf, sizeof(buf), "run,9,glibc,1,completed,%s", fi->key);
		once("CSV run rows", fi->key, lines_starting(csv, buf, ','));
	}
	free(text);
	free(md);
	free(csv);
	tm_bench_table_release(&t);
}

static void test_json_and_panel_rows(void **state)
{
	struct tm_bench_table t;
	json_error_t err;
	int rows[TM_BENCH_TAB_MAX_ROWS];
	(void)state;
	make_full(&t);
	char *text = tm_bench_table_to_json(&t);
	json_t *o = json_loads(text, 0, &err);
	assert_non_null(o);
	json_t *arm = json_array_get(json_object_get(o, "arms"), 0);
	json_t *figs = json_object_get(arm, "figures");
	json_t *run = json_object_get(json_array_get(json_object_get(o, "runs"), 0), "figures");
	assert_int_equal(json_object_size(figs), TM_BF_COUNT);
	assert_int_equal(json_object_size(run), TM_BF_COUNT);
	int n = tm_bench_table_rows(&t, rows);
	for (int f = 0; f < TM_BF_COUNT; f++) {
		const char *key = tm_bench_fig_info((enum tm_bench_fig)f)->key;
		if (!json_object_get(figs, key) || !json_object_get(run, key))
			fail_msg("JSON: figure %s missing from an arm's or a run's figures", key);
		int seen = 0;
		for (int i = 0; i < n; i++)
			seen += rows[i] == f;
		once("the panel's rows", key, seen);
	}
	/* and in the order of their ranks */
	int last = -1;
	for (int i = 0; i < n; i++) {
		if (rows[i] < 0)
			continue;
		int rank = tm_bench_fig_info((enum tm_bench_fig)rows[i])->rank;
		if (rank <= last)
			fail_msg("row %d (rank %d) after rank %d", i, rank, last);
		last = rank;
	}
	json_decref(o);
	free(text);
	tm_bench_table_release(&t);
}

/* The table of docs/bench.md's "What each run records": each key, in
 * backquotes, once (the scraped rows are one line, scraped_N_...). */
static void test_docs(void **state)
{
	char *doc = NULL, key[96];
	size_t len = 0;
	(void)state;
	FILE *f = fopen("docs/bench.md", "r");
	if (!f)
		fail_msg("cannot open docs/bench.md (run from the repository's root)");
	assert_int_equal(getdelim(&doc, &len, '\0', f) > 0, 1);
	fclose(f);
	char *start = strstr(doc, "## What each run records");
	assert_non_null(start);
	char *end = strstr(start + 3, "\n## ");
	if (end)
		*end = '\0';
	for (int fi = 0; fi < TM_BF_COUNT; fi++) {
		const char *k = tm_bench_fig_info((enum tm_bench_fig)fi)->key;
		int slot;
		if (sscanf(k, "scraped_%d_", &slot) == 1)
			snprintf(key, sizeof(key), "`scraped_N_%s`", k + strlen("scraped_1_"));
		else
			snprintf(key, sizeof(key), "`%s`", k);
		int n = 0;
		for (const char *p = start; (p = strstr(p, key)); p += strlen(key))
			n++;
		once("docs/bench.md", key, n);
	}
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_descriptors),
	    cmocka_unit_test(test_text_md_csv),
	    cmocka_unit_test(test_json_and_panel_rows),
	    cmocka_unit_test(test_docs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
