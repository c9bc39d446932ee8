/* bench: statistics and the comparison table, from synthetic runs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/util.h"
#include "report/benchtab.h"
#include "base/banned.h"

static void test_stat(void **state)
{
	struct tm_bench_stat s;
	double v[] = {5, NAN, 1, 3, 100};
	(void)state;
	tm_bench_stat_of(v, 5, &s);
	assert_int_equal(s.n, 4);
	assert_true(s.median == 4); /* (3 + 5) / 2 */
	assert_true(s.min == 1 && s.max == 100);
	assert_true(s.mad == 2); /* |1-4|,|3-4|,|5-4|,|100-4| -> 1,1,3,96 -> 2 */
	assert_true(tm_bench_outlier(&s, 100, 0));
	assert_false(tm_bench_outlier(&s, 5, 0));
	tm_bench_stat_of(v, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));

	struct tm_bench_stat a = {.n = 2, .min = 1, .max = 3}, b = {.n = 2, .min = 3, .max = 4},
	                     c = {.n = 1, .min = 5, .max = 5}, none = {0};
	assert_true(tm_bench_overlap(&a, &b));
	assert_false(tm_bench_overlap(&a, &c));
	assert_false(tm_bench_overlap(&a, &none));

	/* identical values: nothing is an outlier unless it is 2 % off */
	double same[] = {10, 10, 10, 10.1};
	tm_bench_stat_of(same, 4, &s);
	assert_false(tm_bench_outlier(&s, 10.1, 0));
	assert_true(tm_bench_outlier(&s, 11, 0));
}

static void add_run(struct tm_bench_table *t, int arm, const char *outcome, double anon_mib,
                    double wall_s)
{
	struct tm_bench_run_row *r = &t->runs[t->n_runs];
	memset(r, 0, sizeof(*r));
	r->run_id = t->n_runs + 1;
	r->seq = t->n_runs;
	r->arm = arm;
	r->outcome = tm_outcome_of(outcome);
	for (int f = 0; f < TM_BF_COUNT; f++)
		r->fig[f] = NAN;
	r->fig[TM_BF_PEAK_ANON] = anon_mib * TM_MIB;
	r->fig[TM_BF_WALL] = wall_s * 1e6;
	r->steal_share = 0;
	r->other_share = 0.05;
	t->n_runs++;
}

static void make_table(struct tm_bench_table *t)
{
	memset(t, 0, sizeof(*t));
	t->bench_id = 7;
	snprintf(t->name, sizeof(t->name), "churn");
	snprintf(t->host, sizeof(t->host), "box");
	t->n_arms = 3;
	snprintf(t->arms[0].name, 64, "glibc");
	snprintf(t->arms[1].name, 64, "arena1");
	snprintf(t->arms[2].name, 64, "jemalloc");
	t->runs = calloc(16, sizeof(*t->runs));
	add_run(t, 0, "completed", 600, 10);
	add_run(t, 1, "completed", 100, 13);
	add_run(t, 2, "completed", 360, 8);
	add_run(t, 0, "oom-killed", 400, 4);
	add_run(t, 1, "completed", 104, 12.5);
	add_run(t, 2, "completed", 350, 8.2);
	add_run(t, 0, "oom-killed", 399, 3);
	add_run(t, 1, "completed", 102, 12.8);
	add_run(t, 2, "completed", 620, 8.1); /* overlaps glibc's 600 */
	add_run(t, 2, "invalid", 300, 8.0);
	snprintf(t->runs[9].reason, sizeof(t->runs[9].reason), "libjemalloc not mapped");
	t->runs[8].fig[TM_BF_WALL] = 30e6; /* an outlier */
	t->runs[8].fig[TM_BF_PEAK_ANON] = 355 * TM_MIB;
	t->runs[8].other_share = 0.6; /* beside other load */
	t->runs[2].fig[TM_BF_PEAK_ANON] = 600 * TM_MIB;
	tm_bench_table_compute(t);
}

static char *text_of(const struct tm_bench_table *t,
                     void (*fn)(const struct tm_bench_table *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(t, f);
	fclose(f);
	return buf;
}

static void expect(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("missing '%s' in:\n%s", want, text);
}

static void test_compute(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	struct tm_bench_arm_row *g = &t.arms[0], *a = &t.arms[1], *j = &t.arms[2];
	assert_int_equal(g->runs, 3);
	assert_int_equal(g->survived, 1);
	assert_int_equal(g->oom_killed, 2);
	assert_int_equal(j->runs, 3);
	assert_int_equal(j->invalid, 1);
	/* killed runs never enter the medians */
	assert_int_equal(g->stat[TM_BF_WALL].n, 1);
	assert_true(g->stat[TM_BF_WALL].median == 10e6);
	assert_int_equal(g->killed_peak.n, 2);
	assert_true(fabs(g->killed_peak.median - 399.5 * TM_MIB) < 1);
	assert_true(fabs(a->ratio[TM_BF_PEAK_ANON] - 102.0 / 600) < 1e-9);
	assert_false(a->overlap[TM_BF_PEAK_ANON]);
	assert_true(j->overlap[TM_BF_PEAK_ANON]); /* 350..600 vs 600 */
	assert_true(t.runs[8].outlier_mask & (1u << TM_BF_WALL));
	assert_true(t.noisy);
	assert_int_equal(t.reference, 0);
	tm_bench_table_release(&t);

	/* no control run survived: ratios go to the first arm with survivors */
	make_table(&t);
	for (int i = 0; i < t.n_runs; i++)
		if (t.runs[i].arm == 0)
			t.runs[i].outcome = TM_OUTCOME_OOM_KILLED;
	tm_bench_table_compute(&t);
	assert_int_equal(t.reference, 1);
	assert_true(isnan(t.arms[1].ratio[TM_BF_PEAK_ANON]));
	assert_true(fabs(t.arms[2].ratio[TM_BF_PEAK_ANON] - 355.0 / 102) < 1e-9);
	char *text = text_of(&t, tm_bench_table_write_text);
	expect(text, "arena1 (ref)");
	expect(text, "ratios and n.s. are to 'arena1'");
	free(text);
	tm_bench_table_release(&t);
}

static void test_text(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	char *text = text_of(&t, tm_bench_table_write_text);
	expect(text, "glibc (control)");
	expect(text, "1/3 (2 oom-killed)");
	expect(text, "3/3 (1 invalid)");
	expect(text, "102 [100–104] ×0.17");
	expect(text, "n.s.");
	expect(text, "killed at anon MiB");
	expect(text, "outlier: run 9 (jemalloc): wall s 30 (median 8.20)");
	expect(text, "noisy machine: runs 9 ran beside other load (60–60% of the CPUs)");
	expect(text, "run 10 (jemalloc) invalid: libjemalloc not mapped");
	/* no row for figures no arm has */
	assert_null(strstr(text, "psi io"));
	free(text);

	char *md = text_of(&t, tm_bench_table_write_md);
	expect(md, "| survived | 1/3 (2 oom-killed) | 3/3 | 3/3 (1 invalid) |");
	free(md);
	char *csv = text_of(&t, tm_bench_table_write_csv);
	expect(csv, "arm,7,glibc,,,survived,3,,,,,,1\n");
	expect(csv, "run,7,glibc,4,oom-killed,peak_anon_bytes,,,,,,,419430400\n");
	free(csv);
	tm_bench_table_release(&t);
}

static void test_json(void **state)
{
	struct tm_bench_table t;
	json_error_t err;
	(void)state;
	make_table(&t);
	char *text = tm_bench_table_to_json(&t);
	json_t *o = json_loads(text, 0, &err);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "bench_id")), 7);
	assert_string_equal(json_string_value(json_object_get(o, "control")), "glibc");
	json_t *arms = json_object_get(o, "arms");
	assert_int_equal(json_array_size(arms), 3);
	json_t *g = json_array_get(arms, 0);
	assert_int_equal(json_integer_value(json_object_get(g, "survived")), 1);
	json_t *outc = json_object_get(g, "outcomes");
	assert_int_equal(json_integer_value(json_object_get(outc, "oom-killed")), 2);
	json_t *a = json_array_get(arms, 1);
	json_t *pa = json_object_get(json_object_get(a, "figures"), "peak_anon_bytes");
	assert_true(fabs(json_real_value(json_object_get(pa, "ratio")) - 0.17) < 0.001);
	assert_true(json_is_null(json_object_get(
	    json_object_get(json_object_get(a, "figures"), "psi_io_some_usec"), "median")));
	assert_int_equal(json_array_size(json_object_get(o, "runs")), 10);
	assert_true(json_is_true(json_object_get(o, "noisy")));
	json_decref(o);
	free(text);
	tm_bench_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat),
	    cmocka_unit_test(test_compute),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
