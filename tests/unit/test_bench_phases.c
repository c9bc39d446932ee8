/* report/benchphases: arms compared phase by phase on constructed runs:
 * medians over the survivors that have the phase, ratios and the
 * Mann–Whitney verdict against the reference, runs without a phase. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/util.h"
#include "report/bench/benchphases.h"

#define RUNS 12 /* 3 arms x 4 runs, interleaved */
#define ROWS 2

static double vals[RUNS * ROWS * TM_BPF_COUNT];

static double *val(int run, int row, int f)
{
	return &vals[((size_t)run * ROWS + (size_t)row) * TM_BPF_COUNT + (size_t)f];
}

/* Arms a (control), b, c; phase "load" grows a by 32 MiB, b by 64, c by 64;
 * phase "serve" is in a and b only, and in one run of c: run 11 (c) was
 * OOM-killed and does not count. */
static void make(struct tm_bench_phases *bp)
{
	memset(bp, 0, sizeof(*bp));
	bp->t.n_arms = 3;
	snprintf(bp->t.arms[0].name, 64, "a");
	snprintf(bp->t.arms[1].name, 64, "b");
	snprintf(bp->t.arms[2].name, 64, "c");
	bp->t.runs = calloc(RUNS, sizeof(*bp->t.runs));
	bp->t.n_runs = RUNS;
	for (int i = 0; i < RUNS; i++) {
		struct tm_bench_run_row *r = &bp->t.runs[i];
		r->run_id = i + 1;
		r->arm = i % 3;
		r->outcome = i == 11 ? TM_OUTCOME_OOM_KILLED : TM_OUTCOME_COMPLETED;
	}
	for (int i = 0; i < 3; i++)
		bp->t.arms[i].survived = i == 2 ? 3 : 4;
	bp->rows = calloc(ROWS, sizeof(*bp->rows));
	bp->n = ROWS;
	snprintf(bp->rows[0].name, sizeof(bp->rows[0].name), "load");
	snprintf(bp->rows[1].name, sizeof(bp->rows[1].name), "serve");
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		vals[i] = NAN;
	for (int i = 0; i < RUNS; i++) {
		int arm = i % 3;
		*val(i, 0, TM_BPF_ANON_CHANGE) = (arm ? 64 : 32) * TM_MIB + i * 1024.0;
		*val(i, 0, TM_BPF_PEAK_ANON) = (arm ? 70 : 40) * TM_MIB;
		*val(i, 0, TM_BPF_DURATION) = 2e6;
		if (arm < 2 || i == 2) {
			*val(i, 1, TM_BPF_ANON_CHANGE) = 0.1 * TM_MIB; /* under the noise floor */
			*val(i, 1, TM_BPF_DURATION) = 1e6;
		}
	}
}

static void test_compute(void **state)
{
	struct tm_bench_phases bp;

	(void)state;
	make(&bp);
	tm_bench_phases_compute(&bp, vals);
	const struct tm_bench_phase_cell *a = &bp.rows[0].cell[0][TM_BPF_ANON_CHANGE];
	const struct tm_bench_phase_cell *b = &bp.rows[0].cell[1][TM_BPF_ANON_CHANGE];
	const struct tm_bench_phase_cell *c = &bp.rows[0].cell[2][TM_BPF_ANON_CHANGE];
	assert_int_equal(a->stat.n, 4);
	assert_int_equal(c->stat.n, 3); /* the killed run does not count */
	assert_int_equal(a->verdict, TM_BV_NONE);
	assert_true(fabs(b->ratio - (64 * TM_MIB + 5.5 * 1024) / (32 * TM_MIB + 4.5 * 1024)) <
	            1e-12);
	assert_int_equal(b->verdict, TM_BV_SIGNIFICANT); /* 4 vs 4, apart: p = 0.029 */
	assert_true(fabs(b->p - 2.0 / 70) < 1e-9);
	assert_int_equal(c->verdict, TM_BV_TOO_FEW); /* 3 vs 4: the smallest p is 2/35 */
	/* serve: c's survivors 2 lack it; under the floor, no ratio */
	assert_int_equal(bp.rows[1].without[2], 2);
	assert_int_equal(bp.rows[1].without[0], 0);
	assert_int_equal(bp.rows[1].cell[2][TM_BPF_ANON_CHANGE].stat.n, 1);
	assert_int_equal(bp.rows[1].cell[1][TM_BPF_ANON_CHANGE].verdict, TM_BV_BELOW_FLOOR);
	assert_true(isnan(bp.rows[1].cell[1][TM_BPF_ANON_CHANGE].ratio));
	/* a figure no run has */
	assert_int_equal(bp.rows[0].cell[1][TM_BPF_HEAP_CHANGE].stat.n, 0);
	assert_int_equal(bp.rows[0].cell[1][TM_BPF_HEAP_CHANGE].verdict, TM_BV_NONE);
	tm_bench_phases_release(&bp);
}

static void test_outputs(void **state)
{
	struct tm_bench_phases bp;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	make(&bp);
	/* c has "serve" in none of its surviving runs now */
	*val(2, 1, TM_BPF_ANON_CHANGE) = *val(2, 1, TM_BPF_DURATION) = NAN;
	tm_bench_phases_compute(&bp, vals);
	FILE *f = open_memstream(&buf, &len);
	tm_bench_phases_write_text(&bp, f);
	fclose(f);
	if (!strstr(buf, "load\n  anon change MiB") ||
	    !strstr(buf, "64.0 [64.0–64.0] ×2.00 p=0.029") ||
	    !strstr(buf, "c: 3 of its 3 surviving runs have no phase 'serve'") ||
	    strstr(buf, "heap change") || !strstr(buf, "n/a") || strstr(buf, "—"))
		fail_msg("text:\n%s", buf);
	free(buf);
	char *json = tm_bench_phases_to_json(&bp);
	json_t *o = json_loads(json, 0, NULL);
	json_t *serve = json_array_get(json_object_get(o, "phases"), 1);
	json_t *cs = json_array_get(
	    json_object_get(json_object_get(serve, "figures"), "anon_change_bytes"), 2);
	assert_string_equal(json_string_value(json_object_get(cs, "arm")), "c");
	assert_true(json_is_null(json_object_get(cs, "median")));
	assert_int_equal(json_integer_value(json_object_get(cs, "runs_without")), 3);
	json_decref(o);
	free(json);
	tm_bench_phases_release(&bp);
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The phase figure registry (benchphases.h) walked: with every figure
 * known in every run, each phase's text has each label's row once and its
 * JSON each key once, and the keys and labels are distinct. */
static void test_registry_walk(void **state)
{
	struct tm_bench_phases bp;
	char *buf = NULL, want[96];
	size_t len = 0;

	(void)state;
	make(&bp);
	for (int i = 0; i < RUNS; i++)
		for (int r = 0; r < ROWS; r++)
			for (int f = 0; f < TM_BPF_COUNT; f++)
				*val(i, r, f) = (i % 3 + 1) * TM_MIB * (f + 1);
	tm_bench_phases_compute(&bp, vals);
	FILE *f = open_memstream(&buf, &len);
	tm_bench_phases_write_text(&bp, f);
	fclose(f);
	char *json = tm_bench_phases_to_json(&bp);
	json_t *o = json_loads(json, 0, NULL);
	assert_non_null(o);
	for (int fi = 0; fi < TM_BPF_COUNT; fi++) {
		const char *key = tm_bench_phase_fig_key((enum tm_bench_phase_fig)fi);
		const char *label = tm_bench_phase_fig_label((enum tm_bench_phase_fig)fi);
		snprintf(want, sizeof(want), "\n  %s ", label);
		/* once under each phase's name (the arms may wrap into blocks) */
		int heads = count_of(buf, "\nload\n") + count_of(buf, "\nserve\n");
		if (heads < ROWS || count_of(buf, want) != heads)
			fail_msg("text has '%s' %d times, want %d (once under each phase):\n%s",
			         label, count_of(buf, want), heads, buf);
		for (int r = 0; r < ROWS; r++) {
			json_t *ph = json_array_get(json_object_get(o, "phases"), (size_t)r);
			if (!json_object_get(json_object_get(ph, "figures"), key))
				fail_msg("phase %d's JSON lacks figure %s", r, key);
		}
		for (int g = 0; g < fi; g++)
			if (!strcmp(key, tm_bench_phase_fig_key((enum tm_bench_phase_fig)g)) ||
			    !strcmp(label, tm_bench_phase_fig_label((enum tm_bench_phase_fig)g)))
				fail_msg("phase figures %d and %d share key %s or label %s", g, fi,
				         key, label);
	}
	json_t *figs = json_object_get(json_array_get(json_object_get(o, "phases"), 0), "figures");
	assert_int_equal(json_object_size(figs), TM_BPF_COUNT);
	json_decref(o);
	free(json);
	free(buf);
	tm_bench_phases_release(&bp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compute),
	    cmocka_unit_test(test_outputs),
	    cmocka_unit_test(test_registry_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
