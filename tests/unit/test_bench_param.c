/* bench --param: the grammar of its values, {N} substitution, and the fits
 * (slope, growth exponent, R²) of the per-value table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "assert_eq.h"

#include "bench/bench.h"
#include "bench/param.h"
#include "base/util.h"
#include "report/bench/benchparam.h"
#include "report/bench/benchparam_int.h"
#include "base/banned.h"

static int parse(const char *text, struct tm_bench_param *p, struct tm_err *why)
{
	memset(p, 0, sizeof(*p));
	return tm_bench_param_parse(text, p, why);
}

static void test_lists(void **state)
{
	struct tm_bench_param p;
	struct tm_err why = {0};
	(void)state;
	assert_int_equal(parse("N=10000,100000,300000", &p, &why), 0);
	assert_string_equal(p.name, "N");
	assert_int_equal(p.n, 3);
	assert_eq(p.values[0], 10000);
	assert_eq(p.values[1], 100000);
	assert_eq(p.values[2], 300000);
	assert_string_equal(p.texts[2], "300000");
	assert_string_equal(p.spec, "N=10000,100000,300000");
	/* sorted, decimals kept as written */
	assert_int_equal(parse("rate_2=2,0.5,1", &p, &why), 0);
	assert_string_equal(p.name, "rate_2");
	assert_eq(p.values[0], 0.5);
	assert_eq(p.values[2], 2);
	assert_string_equal(p.texts[0], "0.5");
	assert_int_equal(parse("N=7", &p, &why), 0);
	assert_int_equal(p.n, 1);
}

static void test_ranges(void **state)
{
	struct tm_bench_param p;
	struct tm_err why = {0};
	(void)state;
	assert_int_equal(parse("N=1000..1000000:x10", &p, &why), 0);
	assert_int_equal(p.n, 4);
	assert_eq(p.values[0], 1000);
	assert_eq(p.values[3], 1000000);
	assert_string_equal(p.texts[3], "1000000");
	assert_int_equal(parse("N=0..100:+20", &p, &why), 0);
	assert_int_equal(p.n, 6);
	assert_eq(p.values[5], 100);
	/* the last step that does not pass B */
	assert_int_equal(parse("N=1..100:x3", &p, &why), 0);
	assert_int_equal(p.n, 5); /* 1 3 9 27 81 */
	assert_eq(p.values[4], 81);
	assert_int_equal(parse("N=3..5", &p, &why), 0); /* step 1 */
	assert_int_equal(p.n, 3);
	/* ranges and numbers mixed */
	assert_int_equal(parse("N=5,10..30:+10,1", &p, &why), 0);
	assert_int_equal(p.n, 5);
	assert_eq(p.values[0], 1);
	assert_eq(p.values[1], 5);
	assert_eq(p.values[4], 30);
	assert_int_equal(parse("N=4..4", &p, &why), 0);
	assert_int_equal(p.n, 1);
}

static void refused(const char *text, const char *reason)
{
	struct tm_bench_param p;
	struct tm_err why = {0};
	memset(&p, 0, sizeof(p));
	p.n = 42; /* unchanged on error */
	assert_int_equal(tm_bench_param_parse(text, &p, &why), -1);
	assert_int_equal(p.n, 42);
	if (!strstr(why.msg, reason))
		fail_msg("'%s': reason '%s' does not say '%s'", text, why.msg, reason);
}

static void test_errors(void **state)
{
	(void)state;
	refused("10,20", "expected NAME=VALUES");
	refused("N=", "expected NAME=VALUES");
	refused("1N=3", "expected NAME=VALUES");
	refused("N-x=3", "expected NAME=VALUES");
	refused("N=-5", "expected a number >= 0");
	refused("N=1e6", "expected a number >= 0");
	refused("N=1.2345678", "expected a number >= 0");
	refused("N=1,,2", "expected a number >= 0");
	refused("N=3,3", "value 3 is given twice");
	refused("N=1,1..3", "given twice");
	refused("N=10..1", "expected A <= B");
	refused("N=0..100:x10", "A >= 1");
	refused("N=1..100:x1", "a step is");
	refused("N=1..100:+0", "a step is");
	refused("N=1..100:*2", "a step is");
	refused("N=1.5..3", "whole numbers");
	refused("N=0..1000", "more than 64 values");
	refused("N=1..10000000000000000", "whole numbers"); /* over 10^15 */
}

static void test_subst(void **state)
{
	char *s;
	(void)state;
	s = tm_bench_param_subst("--n {N} --m {N}{N} {M} {NN} {N", "N", "300000");
	assert_string_equal(s, "--n 300000 --m 300000300000 {M} {NN} {N");
	free(s);
	assert_true(tm_bench_param_in("x{N}y", "N"));
	assert_false(tm_bench_param_in("x{NN}y", "N"));
	assert_false(tm_bench_param_in(NULL, "N"));
	char *argv[] = {"prog", "--units", "{N}", NULL};
	char **out = tm_bench_param_argv(argv, "N", "10");
	assert_string_equal(out[2], "10");
	assert_string_equal(out[0], "prog");
	assert_null(out[3]);
	tm_bench_env_free(out);
}

static void test_envp(void **state)
{
	struct tm_bench_spec sp;
	char *envp[] = {"PATH=/bin", NULL};
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "big:MALLOC_ARENA_MAX={N},WORK=n{N}"), 0);
	char **e = tm_bench_param_envp(&sp.arms[0], "N", "4", envp, false);
	bool arena = false, work = false;
	for (char **x = e; *x; x++) {
		arena |= !strcmp(*x, "MALLOC_ARENA_MAX=4");
		work |= !strcmp(*x, "WORK=n4");
	}
	assert_true(arena && work);
	assert_string_equal(sp.arms[0].env[0].value, "{N}"); /* the arm is unchanged */
	tm_bench_env_free(e);
	tm_bench_spec_release(&sp);
}

static void test_fit_line(void **state)
{
	double x[] = {10000, 100000, 300000}, y[3];
	struct tm_bench_fit f;
	(void)state;
	for (int i = 0; i < 3; i++)
		y[i] = 26624 * x[i] + 1048576; /* 26 KiB per unit and 1 MiB */
	tm_bench_fit_of(x, y, 3, &f);
	assert_int_equal(f.n, 3);
	assert_true(fabs(f.slope - 26624) < 1e-6);
	assert_true(fabs(f.intercept - 1048576) < 1e-3);
	assert_true(fabs(f.r2 - 1) < 1e-12);
	/* the exponent of what grows: 1 over the 1 MiB base (3 values: the
	 * curve fits them exactly, so no R²) */
	assert_true(fabs(f.exponent - 1) < 1e-4);
	assert_true(fabs(f.exp_base - 1048576) < 64);
	assert_true(isnan(f.exp_r2));
	assert_int_equal(f.n_log, 3);
	/* redis's idle connections: 1.45 KiB each over a 12 MiB base, at
	 * 500, 2000, 4000: the log–log slope of the totals was 0.15 ("nearly
	 * flat"); the growth is linear */
	double xr[] = {500, 2000, 4000}, yr[3];
	for (int i = 0; i < 3; i++)
		yr[i] = 12 * TM_MIB + 1484.8 * xr[i];
	tm_bench_fit_of(xr, yr, 3, &f);
	assert_true(fabs(f.slope - 1484.8) < 1e-6);
	assert_true(fabs(f.intercept - 12 * TM_MIB) < 1);
	assert_true(fabs(f.exponent - 1) < 1e-3);
	char cell[96];
	tm_bench_param_fit_cell(&f, TM_BF_PEAK_ANON, TM_PROW_INTERCEPT, cell, sizeof(cell));
	assert_string_equal(cell, "12.0 MiB");
	tm_bench_param_fit_cell(&f, TM_BF_PEAK_ANON, TM_PROW_SLOPE, cell, sizeof(cell));
	assert_string_equal(cell, "1.45 KiB  R² 1.0000");
	tm_bench_param_fit_cell(&f, TM_BF_PEAK_ANON, TM_PROW_EXPONENT, cell, sizeof(cell));
	assert_string_equal(cell, "1.00  R² n/a (3 values)");
	/* quadratic growth over a base, 5 values: 2, with its R² */
	double xq[] = {100, 200, 400, 800, 1600}, yq[5];
	for (int i = 0; i < 5; i++)
		yq[i] = 50 * TM_MIB + 3.0 * xq[i] * xq[i];
	tm_bench_fit_of(xq, yq, 5, &f);
	assert_true(fabs(f.exponent - 2) < 1e-3);
	assert_true(fabs(f.exp_base - 50 * TM_MIB) < 0.001 * 50 * TM_MIB);
	assert_true(f.exp_r2 > 0.999999);
	/* a noisy line: R² below 1 */
	double yn[] = {y[0] * 1.1, y[1] * 0.9, y[2]};
	tm_bench_fit_of(x, yn, 3, &f);
	assert_true(f.r2 < 0.999 && f.r2 > 0.9);
}

static void test_fit_power(void **state)
{
	double x[] = {1, 10, 100, 1000}, y[4];
	struct tm_bench_fit f;
	(void)state;
	for (int i = 0; i < 4; i++)
		y[i] = 3 * pow(x[i], 1.5);
	tm_bench_fit_of(x, y, 4, &f);
	assert_true(fabs(f.exponent - 1.5) < 1e-9);
	assert_true(fabs(f.exp_r2 - 1) < 1e-12);
	assert_true(f.r2 < 0.999); /* not a line (0.996: the last point weighs most) */
	/* N log N: between 1 and 1.2 over these decades */
	for (int i = 0; i < 4; i++)
		y[i] = (x[i] + 1) * log(x[i] + 1);
	tm_bench_fit_of(x, y, 4, &f);
	assert_true(f.exponent > 1 && f.exponent < 1.5);
	/* flat */
	double flat[] = {5, 5, 5, 5};
	tm_bench_fit_of(x, flat, 4, &f);
	assert_eq(f.slope, 0);
	assert_true(isnan(f.r2)); /* no change: no R² */
	assert_eq(f.exponent, 0);
}

static void test_fit_too_few(void **state)
{
	double x[] = {10, 20, 30}, y[] = {100, NAN, 300};
	struct tm_bench_fit f;
	(void)state;
	tm_bench_fit_of(x, y, 1, &f);
	assert_int_equal(f.n, 1);
	assert_true(isnan(f.slope) && isnan(f.r2) && isnan(f.exponent));
	/* NAN skips its point: two left, a slope but no R² */
	tm_bench_fit_of(x, y, 3, &f);
	assert_int_equal(f.n, 2);
	assert_true(fabs(f.slope - 10) < 1e-9);
	assert_true(isnan(f.r2));
	/* two points: a base and an exponent are three unknowns */
	assert_true(isnan(f.exponent) && isnan(f.exp_r2));
	/* x = 0 has no logarithm: out of the exponent's fit only */
	double x0[] = {0, 10, 20}, y0[] = {1, 101, 201};
	tm_bench_fit_of(x0, y0, 3, &f);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.n_log, 2);
	assert_true(fabs(f.r2 - 1) < 1e-12);
	tm_bench_fit_of(x, y, 0, &f);
	assert_int_equal(f.n, 0);
	assert_true(isnan(f.slope));
	/* the same x twice: no slope */
	double xs[] = {5, 5}, ys[] = {1, 2};
	tm_bench_fit_of(xs, ys, 2, &f);
	assert_true(isnan(f.slope));
}

static void test_figures(void **state)
{
	(void)state;
	assert_true(tm_bench_param_figure(TM_BF_PEAK_ANON));
	assert_true(tm_bench_param_figure(TM_BF_HEAP_PEAK));
	assert_true(tm_bench_param_figure(TM_BF_WALL));
	assert_false(tm_bench_param_figure(TM_BF_FILE_AT_PEAK));
	assert_false(tm_bench_param_figure(TM_BF_IO));
	assert_false(tm_bench_param_figure(TM_BF_PROGRESS));
	assert_false(tm_bench_param_figure(-1));
}

/* Resident and allocated cost per unit both measured: the notes give both
 * and say which one a limit must cover (redis: 1.45 KiB of anon against
 * 17.2 KiB of heap per connection). */
static void test_resident_note(void **state)
{
	struct tm_bench_table t;
	struct tm_bench_ptab p;
	struct tm_bench_pnote *notes = NULL;
	const char *found = NULL;
	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "N");
	t.n_arms = 1;
	snprintf(t.arms[0].name, sizeof(t.arms[0].name), "redis");
	t.param = &p;
	for (int f = 0; f < TM_BF_COUNT; f++)
		p.fit[0][f].slope = NAN;
	p.fit[0][TM_BF_PEAK_ANON].slope = 1484.8;
	int n = tm_bench_param_notes(&t, &notes);
	for (int i = 0; i < n; i++)
		assert_null(strstr(notes[i].text, "resident")); /* no heap: no such note */
	free(notes);
	p.fit[0][TM_BF_HEAP_PEAK].slope = 17.2 * 1024;
	n = tm_bench_param_notes(&t, &notes);
	for (int i = 0; i < n; i++)
		if (strstr(notes[i].text, "resident"))
			found = notes[i].text;
	assert_non_null(found);
	assert_non_null(strstr(found, "redis per N: resident 1.45 KiB (peak anon), allocated "
	                              "17.2 KiB (heap peak): a memory limit must cover the "
	                              "resident cost"));
	free(notes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lists),     cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_errors),    cmocka_unit_test(test_subst),
	    cmocka_unit_test(test_envp),      cmocka_unit_test(test_fit_line),
	    cmocka_unit_test(test_fit_power), cmocka_unit_test(test_fit_too_few),
	    cmocka_unit_test(test_figures),   cmocka_unit_test(test_resident_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
