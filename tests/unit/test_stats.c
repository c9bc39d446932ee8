/* Small-sample statistics with known answers: the exact Mann–Whitney U test
 * against the published critical values and a brute-force enumeration, its
 * normal approximation, the smallest attainable p and the modified Z-score. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "report/run/stats.h"
#include "base/banned.h"

static void expect_p(const double *a, size_t na, const double *b, size_t nb, double u, double p)
{
	struct tm_mann_whitney mw;
	assert_int_equal(tm_mann_whitney(a, na, b, nb, &mw), 0);
	assert_true(mw.exact);
	if (fabs(mw.u - u) > 1e-9 || fabs(mw.p - p) > 1e-9)
		fail_msg("U %g p %.12g, want U %g p %.12g", mw.u, mw.p, u, p);
	/* the test is symmetric: swapping the samples keeps p, U becomes na nb - U */
	assert_int_equal(tm_mann_whitney(b, nb, a, na, &mw), 0);
	assert_true(fabs(mw.p - p) < 1e-9);
	assert_true(fabs(mw.u - ((double)na * nb - u)) < 1e-9);
}

/* Complete separation: p = 2 / C(na + nb, na). */
static void test_exact_separation(void **state)
{
	(void)state;
	double a3[] = {1, 2, 3}, b3[] = {4, 5, 6};
	expect_p(a3, 3, b3, 3, 0, 2.0 / 20); /* 0.1: 3 vs 3 can never reach 0.05 */
	double a4[] = {1, 2, 3, 4}, b4[] = {5, 6, 7, 8};
	expect_p(a4, 4, b4, 4, 0, 2.0 / 70);
	double a5[] = {1, 2, 3, 4, 5}, b5[] = {6, 7, 8, 9, 10};
	expect_p(a5, 5, b5, 5, 0, 2.0 / 252);
	double a6[] = {1, 2, 3, 4, 5, 6}, b6[] = {7, 8, 9, 10, 11, 12};
	expect_p(a6, 6, b6, 6, 0, 2.0 / 924);
}

/* The published two-tailed critical values at 0.05 (U <= critical is
 * significant): 2 for 5 vs 5, 8 for 7 vs 7.  The exact p on either side. */
static void test_exact_critical_values(void **state)
{
	(void)state;
	double a[] = {1, 2, 3, 4, 7}, b[] = {5, 6, 8, 9, 10};
	expect_p(a, 5, b, 5, 2, 8.0 / 252); /* 0.0317 <= 0.05 */
	double c[] = {1, 2, 3, 4, 8}, d[] = {5, 6, 7, 9, 10};
	expect_p(c, 5, d, 5, 3, 14.0 / 252); /* 0.0556 > 0.05 */
	double b7[] = {10, 20, 30, 40, 50, 60, 70};
	double u8[] = {1, 2, 3, 4, 15, 25, 55}, u9[] = {1, 2, 3, 4, 15, 25, 65};
	expect_p(u8, 7, b7, 7, 8, 130.0 / 3432); /* 0.0379 */
	expect_p(u9, 7, b7, 7, 9, 182.0 / 3432); /* 0.0530 */
}

/* Ties: the exact distribution of U given the tie pattern (values from a
 * brute-force enumeration of all C(n, na) splits). */
static void test_exact_ties(void **state)
{
	(void)state;
	double same[] = {1, 1, 1};
	expect_p(same, 3, same, 3, 4.5, 1.0);
	double a[] = {1, 2, 2}, b[] = {2, 3, 3};
	expect_p(a, 3, b, 3, 1, 6.0 / 20);
	double c[] = {10, 10, 11, 12}, d[] = {10, 12, 13, 13, 14};
	expect_p(c, 4, d, 5, 3.5, 16.0 / 126);
	/* NANs are not values */
	double e[] = {1, NAN, 2, 3}, f[] = {4, 5, NAN, 6};
	struct tm_mann_whitney mw;
	assert_int_equal(tm_mann_whitney(e, 4, f, 4, &mw), 0);
	assert_int_equal(mw.n_a, 3);
	assert_int_equal(mw.n_b, 3);
	assert_true(fabs(mw.p - 0.1) < 1e-12);
	/* an empty sample has no p */
	assert_int_equal(tm_mann_whitney(e, 0, f, 4, &mw), 0);
	assert_true(isnan(mw.p));
}

static void test_normal_approximation(void **state)
{
	(void)state;
	double a[25], b[25];
	for (int i = 0; i < 25; i++) {
		a[i] = 2 * i;
		b[i] = 2 * i + 9;
	}
	struct tm_mann_whitney mw, ex;
	/* U 210 of 625; z = (|210 - 312.5| - 0.5) / sqrt(625 * 51 / 12) */
	assert_int_equal(tm_mann_whitney_normal(a, 25, b, 25, &mw), 0);
	assert_false(mw.exact);
	assert_true(fabs(mw.u - 210) < 1e-9);
	assert_true(fabs(mw.p - 0.047805795331) < 1e-9);
	/* past TM_MW_EXACT_MAX the test switches to it */
	assert_int_equal(tm_mann_whitney(a, 25, b, 25, &ex), 0);
	assert_false(ex.exact);
	/* and near the switch it agrees with the exact p */
	assert_int_equal(tm_mann_whitney(a, 20, b, 20, &ex), 0);
	assert_int_equal(tm_mann_whitney_normal(a, 20, b, 20, &mw), 0);
	assert_true(ex.exact);
	assert_true(fabs(ex.p - mw.p) < 0.1 * ex.p);
	/* all values equal: no evidence at all */
	double z[30] = {0};
	assert_int_equal(tm_mann_whitney_normal(z, 15, z, 15, &mw), 0);
	assert_eq(mw.p, 1.0);
}

static void test_min_p_and_n(void **state)
{
	(void)state;
	assert_true(fabs(tm_mann_whitney_min_p(3, 3) - 0.1) < 1e-12);
	assert_true(fabs(tm_mann_whitney_min_p(3, 5) - 2.0 / 56) < 1e-12);
	assert_eq(tm_mann_whitney_min_p(1, 1), 1.0);
	assert_eq(tm_mann_whitney_min_p(0, 4), 1.0);
	assert_int_equal(tm_mann_whitney_min_n(3, 0.05), 5); /* 3 vs 4: 0.057; 3 vs 5: 0.036 */
	assert_int_equal(tm_mann_whitney_min_n(4, 0.05), 4); /* 2 / 70 */
	assert_int_equal(tm_mann_whitney_min_n(2, 0.05), 8); /* 2 / 45 */
	assert_int_equal(tm_mann_whitney_min_n(1, 0.05), 39);
	assert_int_equal(tm_mann_whitney_min_n(0, 0.05), -1);
}

static void test_modified_z(void **state)
{
	(void)state;
	/* 0.6745 (x - median) / MAD; Iglewicz and Hoaglin flag |M| > 3.5 */
	assert_true(fabs(tm_modified_z(20, 10, 2) - 3.3725) < 1e-9);
	assert_true(fabs(tm_modified_z(0, 10, 1) + 6.745) < 1e-9);
	assert_eq(tm_modified_z(5, 5, 0), 0);
	assert_true(isinf(tm_modified_z(6, 5, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_separation), cmocka_unit_test(test_exact_critical_values),
	    cmocka_unit_test(test_exact_ties),       cmocka_unit_test(test_normal_approximation),
	    cmocka_unit_test(test_min_p_and_n),      cmocka_unit_test(test_modified_z),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
