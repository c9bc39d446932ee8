/* report/summary of a long run (issue 23): past 100 000 raw samples the
 * whole-run summary reads hour buckets up to its last hour or two, so its
 * cost does not grow with the run; its peaks, counts and totals stay exact,
 * and it says so.  A shorter run, or a window, reads raw samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/sample.h"
#include "base/util.h"
#include "report/run/summary.h"
#include "store/store.h"
#include "store_fixture.h"

#define MIB       (1024 * 1024LL)
#define T0_WALL   (1700000000LL * 1000000) /* a whole hour */
#define STEP_USEC 1000000LL
#define SPIKE_SEQ 50007

/* A run of N samples a second apart: anon a sawtooth of 100..160 MiB with
 * one spike to 500 MiB at SPIKE_SEQ, CPU 1 ms a second, the page cache 4 MiB. */
static int64_t fill(struct tm_store *st, int64_t n)
{
	struct tm_run_meta m = {.machine = "test", .target = "cgroup", .interval_usec = STEP_USEC};
	int64_t run = 0;

	assert_int_equal(tm_store_run_begin(st, &m, &run), 0);
	for (int64_t i = 0; i < n; i++) {
		struct tm_sample s;
		tm_sample_clear(&s);
		s.seq = i;
		s.t_mono_usec = 1000000 + i * STEP_USEC;
		s.t_wall_usec = T0_WALL + i * STEP_USEC;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES,
		              i == SPIKE_SEQ ? 500 * MIB : 100 * MIB + (i % 600) * (MIB / 10));
		tm_sample_set(&s, TM_M_CG_FILE_BYTES, 4 * MIB);
		tm_sample_set(&s, TM_M_CG_CPU_USAGE_USEC, 1000 * i);
		assert_int_equal(tm_store_add_sample(st, run, &s), 0);
		if (i % 20000 == 19999)
			assert_int_equal(tm_store_commit(st), 0);
	}
	assert_int_equal(tm_store_commit(st), 0);
	return run;
}

static void check_exact(const struct tm_summary *s, int64_t n)
{
	assert_int_equal(s->samples, n);
	assert_float_equal(s->peak_anon_bytes, 500.0 * MIB, 1);
	assert_float_equal(s->cpu_usec, 1000.0 * (n - 1), 0.5);
	assert_float_equal(s->duration_usec, (double)(n - 1) * STEP_USEC, 1);
}

static void test_long_run_from_hours(void **state)
{
	struct store_fixture *f = store_fixture_open("report-long");
	int64_t n = 110000, run = fill(f->st, n);
	struct tm_window w = {.kind = TM_WIN_ALL};
	struct tm_summary s;

	(void)state;
	assert_int_equal(tm_summarize(f->st, run, &w, &s), 0);
	check_exact(&s, n);
	int64_t raw_read = s.samples - s.approx.rollup_samples;
	if (!s.approx.long_run || !s.approx.hour || s.approx.minute || raw_read > 2 * 3600)
		fail_msg(
		    "long run %d, hour %d, minute %d, raw samples read %lld (want 1, 1, 0 and at "
		    "most 7200)",
		    s.approx.long_run, s.approx.hour, s.approx.minute, (long long)raw_read);
	assert_true(isnan(s.file_at_peak_bytes)); /* the peak's sample is rolled up: n/a */
	/* a window reads raw samples: exact, and not labelled */
	assert_int_equal(tm_window_parse("0s:", &w), 0);
	assert_int_equal(tm_summarize(f->st, run, &w, &s), 0);
	check_exact(&s, n);
	assert_false(s.approx.long_run);
	assert_int_equal(s.approx.rollup_samples, 0);
	store_fixture_close(f);
}

static void test_shorter_run_raw(void **state)
{
	struct store_fixture *f = store_fixture_open("report-short");
	int64_t n = 100000, run = fill(f->st, n);
	struct tm_window w = {.kind = TM_WIN_ALL};
	struct tm_summary s;

	(void)state;
	assert_int_equal(tm_summarize(f->st, run, &w, &s), 0);
	check_exact(&s, n);
	assert_false(s.approx.long_run);
	assert_int_equal(s.approx.rollup_samples, 0);
	assert_float_equal(s.file_at_peak_bytes, 4.0 * MIB, 1);
	store_fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_run_from_hours),
	    cmocka_unit_test(test_shorter_run_raw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
