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

#include "assert_eq.h"
#include <jansson.h>

#include "base/term.h"
#include "base/util.h"
#include "report/bench/benchtab.h"
#include "base/banned.h"

static void test_stat(void **state)
{
	struct tm_bench_stat s;
	double v[] = {5, NAN, 1, 3, 100};
	(void)state;
	tm_bench_stat_of(v, 5, &s);
	assert_int_equal(s.n, 4);
	assert_eq(s.median, 4); /* (3 + 5) / 2 */
	assert_eq(s.min, 1);
	assert_eq(s.max, 100);
	assert_eq(s.mad, 2); /* |1-4|,|3-4|,|5-4|,|100-4| -> 1,1,3,96 -> 2 */
	/* four runs are too few to tell an outlier from the spread */
	assert_false(tm_bench_outlier(&s, 100, 0));
	double six[] = {5, 1, 3, 100, 4, 6};
	tm_bench_stat_of(six, 6, &s);
	/* median 4.5, MAD 1.5: 100 is 0.6745 * 95.5 / 1.5 = 42.9 MADs out, 6 only 0.67 */
	assert_eq(s.median, 4.5);
	assert_eq(s.mad, 1.5);
	assert_true(tm_bench_outlier(&s, 100, 0));
	assert_false(tm_bench_outlier(&s, 6, 0));
	assert_false(tm_bench_outlier(&s, 100, 200)); /* under the noise floor */
	tm_bench_stat_of(v, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));

	struct tm_bench_stat a = {.n = 2, .min = 1, .max = 3}, b = {.n = 2, .min = 3, .max = 4},
	                     c = {.n = 1, .min = 5, .max = 5}, none = {0};
	assert_true(tm_bench_overlap(&a, &b));
	assert_false(tm_bench_overlap(&a, &c));
	assert_false(tm_bench_overlap(&a, &none));

	/* identical values: nothing is an outlier unless it is 2 % off */
	double same[] = {10, 10, 10, 10, 10.1};
	tm_bench_stat_of(same, 5, &s);
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
	r->work_wall_usec = wall_s * 1e6;
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
	assert_eq(g->stat[TM_BF_WALL].median, 10e6);
	assert_int_equal(g->killed_peak.n, 2);
	assert_true(fabs(g->killed_peak.median - 399.5 * TM_MIB) < 1);
	assert_true(fabs(a->ratio[TM_BF_PEAK_ANON] - 102.0 / 600) < 1e-9);
	assert_false(a->overlap[TM_BF_PEAK_ANON]);
	assert_true(j->overlap[TM_BF_PEAK_ANON]); /* 350..600 vs 600 */
	/* 3 runs: no outlier, however far off (30 s against 8.0 and 8.2) */
	for (int f = 0; f < TM_BF_COUNT; f++)
		assert_false(tm_bench_run_outlier(&t.runs[8], f));
	/* 1 vs 3 and 3 vs 3 runs: a ratio, but no verdict */
	assert_int_equal(a->verdict[TM_BF_PEAK_ANON], TM_BV_TOO_FEW);
	assert_true(isnan(a->p[TM_BF_PEAK_ANON]));
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
	expect(text, "ratios and tests are to 'arena1'");
	expect(text, "no verdict with 3 vs 3 runs (jemalloc against arena1): the smallest p "
	             "Mann–Whitney can give them is 0.100, over α 0.05; it takes 4 runs per arm, "
	             "or 5 against 3");
	free(text);
	tm_bench_table_release(&t);
}

/* The table without the notes under it (malloc'd). */
static __attribute__((noinline)) char *table_part(const char *text)
{
	size_t n = 0;
	while (text[n] && strncmp(text + n, "\nmedian [", 9))
		n++;
	return strndup(text, n);
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
	expect(text, "102 [100–104] ×0.17   ");
	/* no verdict in any cell (the notes below the table explain them) */
	char *cells = table_part(text);
	assert_null(strstr(cells, "n.s."));
	assert_null(strstr(cells, "p="));
	assert_null(strstr(cells, "*"));
	free(cells);
	assert_null(strstr(text, "outlier:"));
	expect(text, "killed at anon MiB  400 [399–400]");
	expect(text, "killed after s      3.50 [3.00–4.00]");
	expect(text, "two-sided Mann–Whitney U test");
	expect(text, "no verdict with 3 vs 1 runs (arena1, jemalloc against glibc): the smallest "
	             "p Mann–Whitney can give them is 0.500");
	expect(text, "noisy machine: runs 9 ran beside other load (60–60% of the CPUs)");
	expect(text, "run 10 (jemalloc) invalid: libjemalloc not mapped");
	/* no row for figures no arm has */
	assert_null(strstr(text, "psi io"));
	free(text);

	char *md = text_of(&t, tm_bench_table_write_md);
	expect(md, "| survived | 1/3 (2 oom-killed) | 3/3 | 3/3 (1 invalid) |");
	free(md);
	char *csv = text_of(&t, tm_bench_table_write_csv);
	expect(csv, "arm,7,glibc,,,survived,3,,,,,,,,1\n");
	expect(csv, "run,7,glibc,4,oom-killed,peak_anon_bytes,,,,,,,,,419430400\n");
	expect(csv, "arm,7,arena1,,,peak_anon_bytes,3,106954752,104857600,109051904,0.17,0,,"
	            "too-few-runs,\n");
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
	assert_true(fabs(json_number_value(json_object_get(pa, "ratio")) - 0.17) < 0.001);
	assert_true(json_is_null(json_object_get(
	    json_object_get(json_object_get(a, "figures"), "psi_io_some_usec"), "median")));
	assert_int_equal(json_array_size(json_object_get(o, "runs")), 10);
	assert_true(json_is_true(json_object_get(o, "noisy")));
	json_decref(o);
	free(text);
	tm_bench_table_release(&t);
}

/* Five runs an arm: the exact test gives verdicts; figures under their
 * noise floor get neither ratio nor test; an outlier can be judged. */
static void make_five(struct tm_bench_table *t)
{
	memset(t, 0, sizeof(*t));
	t->bench_id = 3;
	t->n_arms = 2;
	snprintf(t->arms[0].name, 64, "glibc");
	snprintf(t->arms[1].name, 64, "jemalloc");
	t->runs = calloc(16, sizeof(*t->runs));
	for (int i = 0; i < 5; i++) {
		/* peak anon: 100..104 against 200..204, no overlap: p = 2 / 252 */
		add_run(t, 0, "completed", 100 + i, 10 + 0.1 * i);
		add_run(t, 1, "completed", 200 + i, 10.05 + 0.1 * i); /* wall interleaved */
		struct tm_bench_run_row *g = &t->runs[t->n_runs - 2], *j = &t->runs[t->n_runs - 1];
		/* psi stall 0 against a few ms: under the 50 ms floor, no ×73 */
		g->fig[TM_BF_PSI_MEM] = i == 0 ? 100 : 0;
		j->fig[TM_BF_PSI_MEM] = 4000 + 100 * i;
		/* held anon (no --settle: not a row of the table) with an outlier */
		g->fig[TM_BF_HELD_ANON] = (50 + 0.1 * i) * TM_MIB;
	}
	t->runs[8].fig[TM_BF_HELD_ANON] = 500 * TM_MIB;
	t->runs[9].fig[TM_BF_WALL] = 60e6; /* jemalloc's last run: an outlier of wall */
	tm_bench_table_compute(t);
}

static void test_verdicts(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_five(&t);
	const struct tm_bench_arm_row *j = &t.arms[1];
	assert_int_equal(j->verdict[TM_BF_PEAK_ANON], TM_BV_SIGNIFICANT);
	assert_true(fabs(j->p[TM_BF_PEAK_ANON] - 2.0 / 252) < 1e-12);
	assert_int_equal(j->verdict[TM_BF_WALL], TM_BV_NOT_SIGNIFICANT);
	assert_int_equal(j->verdict[TM_BF_PSI_MEM], TM_BV_BELOW_FLOOR);
	assert_true(isnan(j->ratio[TM_BF_PSI_MEM]));
	assert_true(isnan(j->p[TM_BF_PSI_MEM]));
	assert_true(tm_bench_run_outlier(&t.runs[9], TM_BF_WALL));
	assert_true(tm_bench_run_outlier(&t.runs[8], TM_BF_HELD_ANON));

	char *text = text_of(&t, tm_bench_table_write_text);
	expect(text, "202 [200–204] ×1.98 p=0.008");
	expect(text, "10.2 [10.0–60.0]* ×1.00 n.s.");
	expect(text, "psi mem stall s     0.00 [0.00–0.00]   0.00 [0.00–0.00]\n");
	expect(text, "no ratio or test where a median is under the noise floor: psi mem stall s "
	             "under 0.05");
	expect(text, "outlier: run 10 (jemalloc): wall s 60 (median 10.2)\n");
	/* the held-after row is not in the table, so no note names it */
	assert_null(strstr(text, "held after"));
	assert_null(strstr(text, "no verdict"));
	free(text);

	json_error_t err;
	char *js = tm_bench_table_to_json(&t);
	json_t *o = json_loads(js, 0, &err);
	assert_non_null(o);
	json_t *figs = json_object_get(json_array_get(json_object_get(o, "arms"), 1), "figures");
	json_t *pa = json_object_get(figs, "peak_anon_bytes");
	assert_true(fabs(json_number_value(json_object_get(pa, "p_value")) - 2.0 / 252) < 1e-9);
	assert_string_equal(json_string_value(json_object_get(pa, "verdict")), "significant");
	json_t *psi = json_object_get(figs, "psi_mem_some_usec");
	assert_true(json_is_null(json_object_get(psi, "ratio")));
	assert_string_equal(json_string_value(json_object_get(psi, "verdict")),
	                    "below-noise-floor");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "test"), "name")),
	                    "mann-whitney-u");
	json_t *notes = json_object_get(o, "notes");
	assert_true(json_array_size(notes) >= 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(notes, 0), "kind")),
	                    "legend");
	json_decref(o);
	free(js);
	tm_bench_table_release(&t);
}

/* A killed arm shows how far it got: progress and time at the kill. */
static void test_killed_progress(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	t.runs[3].fig[TM_BF_PROGRESS] = 12;
	t.runs[6].fig[TM_BF_PROGRESS] = 14;
	tm_bench_table_compute(&t);
	assert_int_equal(t.arms[0].killed_progress.n, 2);
	assert_eq(t.arms[0].killed_progress.median, 13);
	assert_eq(t.arms[0].killed_wall.median, 3.5e6);
	char *text = text_of(&t, tm_bench_table_write_text);
	expect(text, "killed at anon MiB  400 [399–400]        n/a"); /* text: n/a */
	expect(text, "\nkilled at progress  13 [12–14]");
	expect(text, "\nkilled after s      3.50 [3.00–4.00]");
	free(text);
	char *js = tm_bench_table_to_json(&t);
	json_error_t err;
	json_t *o = json_loads(js, 0, &err);
	json_t *g = json_array_get(json_object_get(o, "arms"), 0);
	assert_eq(
	    json_number_value(json_object_get(json_object_get(g, "killed_progress"), "median")),
	    13);
	assert_eq(
	    json_number_value(json_object_get(json_object_get(g, "killed_wall_usec"), "median")),
	    3.5e6);
	json_decref(o);
	free(js);
	tm_bench_table_release(&t);
}

/* A bench whose runs per arm cannot reach a verdict says so at its start,
 * with what would: 3 against 3 cannot, 4 against 4 can. */
static void test_runs_note(void **state)
{
	char buf[320] = "";
	(void)state;

	assert_true(tm_bench_runs_note(3, 2, buf, sizeof(buf)));
	print_message("%s\n", buf);
	assert_non_null(strstr(buf, "note: 3 runs per arm cannot reach p < 0.05"));
	assert_non_null(strstr(buf, "it takes --runs 4 (or 5 runs of an arm against 3)"));
	assert_false(tm_bench_runs_note(4, 2, buf, sizeof(buf)));
	assert_false(tm_bench_runs_note(3, 1, buf, sizeof(buf)));
	assert_true(tm_bench_runs_note(1, 3, buf, sizeof(buf)));
}

/* The allocator-held row says where its figures are upper bounds or capped
 * (issue 19): a note naming those runs, in the text and the JSON. */
static void test_held_bound_note(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	for (int i = 0; i < t.n_runs; i++)
		t.runs[i].fig[TM_BF_ALLOC_HELD] = (1 + i) * TM_MIB;
	t.runs[2].held_kind = "upper bound";
	t.runs[5].held_kind = "upper bound";
	t.runs[1].held_kind = "capped";
	t.runs[0].held_kind = "exact";
	tm_bench_table_compute(&t);
	char *text = text_of(&t, tm_bench_table_write_notes);
	expect(text, "allocator held MiB is an upper bound (the allocator's figure counts pages it "
	             "never touched) in runs 3 (jemalloc), 6 (jemalloc)\n");
	expect(text, "allocator held MiB is capped at anon - live heap (the allocator said more; "
	             "other anon is then 0) in runs 2 (arena1)\n");
	free(text);
	char *js = tm_bench_table_to_json(&t);
	assert_non_null(strstr(js, "\"bound\""));
	free(js);
	tm_bench_table_release(&t);
}

/* Whether the line of TEXT that starts with PREFIX holds NEEDLE. */
static bool line_has(const char *text, const char *prefix, const char *needle)
{
	char line[512];

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n = strcspn(p, "\n");
		if (strncmp(p, prefix, strlen(prefix)))
			continue;
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		return strstr(line, needle) != NULL;
	}
	return false;
}

/* A kill whose peak no sample saw (the kernel's high-water mark above them
 * all) leaves its anon unknown: the "killed at anon" row stays, with —. */
static void test_killed_peak_unknown(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	t.runs[3].fig[TM_BF_PEAK_ANON] = NAN;
	t.runs[6].fig[TM_BF_PEAK_ANON] = NAN;
	tm_bench_table_compute(&t);
	char *text = text_of(&t, tm_bench_table_write_text);
	print_message("%s", text);
	/* text says n/a; the HTML report's cells (the JSON's) keep the dash */
	assert_true(line_has(text, "killed at anon MiB", "n/a"));
	assert_false(line_has(text, "killed at anon MiB", "\xe2\x80\x94"));
	free(text);
	char c[96];
	tm_bench_table_cell(&t, TM_BR_KILLED_ANON, 0, c, sizeof(c));
	assert_string_equal(c, "\xe2\x80\x94");
	tm_bench_table_release(&t);
}

/* A row's zeros are written one way: an arm that measured exactly 0 next
 * to one whose figure rounds to 0.00 reads 0.00 [0.00–0.00] too. */
static void test_zeros_one_way(void **state)
{
	struct tm_bench_table t;
	(void)state;
	make_table(&t);
	for (int i = 0; i < t.n_runs; i++)
		t.runs[i].fig[TM_BF_FILE_AT_PEAK] = t.runs[i].arm == 1 ? 0.002 * TM_MIB : 0;
	tm_bench_table_compute(&t);
	char *text = text_of(&t, tm_bench_table_write_text);
	print_message("%s", text);
	assert_true(line_has(text, "cache at peak MiB", "0.00 [0.00–0.00]"));
	assert_false(line_has(text, "cache at peak MiB", " 0 [0–0]"));
	assert_false(line_has(text, "cache at peak MiB", " 0 "));
	free(text);
	tm_bench_table_release(&t);
}

/* Arms that do not fit $COLUMNS beside the others are stacked in blocks
 * under them, every line within the width; wide, one block. */
static void test_stacked_to_width(void **state)
{
	struct tm_bench_table t;
	int max = 0, blocks = 0;
	(void)state;
	make_table(&t);
	setenv("COLUMNS", "60", 1);
	char *text = text_of(&t, tm_bench_table_write_text);
	setenv("COLUMNS", "1000", 1);
	print_message("%s", text);
	for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
		size_t n = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		max = tm_term_text_width(line) > max ? tm_term_text_width(line) : max;
		blocks += !strncmp(line, "survived ", 9);
	}
	assert_eq(max <= 60, true);
	assert_eq(blocks, 3);
	free(text);
	text = text_of(&t, tm_bench_table_write_text);
	assert_true(line_has(text, "survived", "1/3 (2 oom-killed)   3/3   "));
	free(text);
	tm_bench_table_release(&t);
}

/* A run's outlier bits: one per figure, however many figures there are
 * (sized from TM_BF_COUNT, no 32-bit cap); each bit alone. */
static void test_outlier_bits(void **state)
{
	(void)state;
	for (int f = 0; f < TM_BF_COUNT; f++) {
		struct tm_bench_run_row r = {0};
		tm_bench_set_run_outlier(&r, f);
		for (int g = 0; g < TM_BF_COUNT; g++)
			if (tm_bench_run_outlier(&r, g) != (g == f))
				fail_msg("figure %d set: figure %d reads %d", f, g,
				         tm_bench_run_outlier(&r, g));
	}
	assert_true(sizeof(((struct tm_bench_run_row *)0)->outlier_mask) * 8 >= TM_BF_COUNT);
}

int main(void)
{
	setenv("COLUMNS", "1000", 1); /* the layouts below are pinned wide */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat),
	    cmocka_unit_test(test_outlier_bits),
	    cmocka_unit_test(test_compute),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_verdicts),
	    cmocka_unit_test(test_killed_progress),
	    cmocka_unit_test(test_runs_note),
	    cmocka_unit_test(test_held_bound_note),
	    cmocka_unit_test(test_killed_peak_unknown),
	    cmocka_unit_test(test_zeros_one_way),
	    cmocka_unit_test(test_stacked_to_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
