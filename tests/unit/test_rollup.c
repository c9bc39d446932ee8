/* store/rollup: the rollup arithmetic, its encoding, rollups as samples
 * arrive (and across a reopen), prune keeping reports readable; and the
 * streaming median's error bound (report/sketch). */
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

#include "assert_eq.h"

#include "base/sample.h"
#include "report/run/sketch.h"
#include "report/run/stats.h"
#include "report/run/summary.h"
#include "store/rollup.h"
#include "store/store.h"
#include "store_fixture.h"

#define MIN_USEC 60000000LL
#define T0_WALL  (1700000000LL * 1000000 / MIN_USEC * MIN_USEC) /* on a minute */

static void sample_at(struct tm_sample *s, int64_t seq, int64_t step_usec)
{
	tm_sample_clear(s);
	s->seq = seq;
	s->t_wall_usec = T0_WALL + seq * step_usec;
	s->t_mono_usec = 1000000 + seq * step_usec;
	s->late_usec = seq == 2 ? 900000 : 0;
}

static void test_arithmetic(void **state)
{
	struct tm_rollup r;
	struct tm_sample s;
	const int64_t anon[] = {10, 30, 20, 50};

	(void)state;
	tm_rollup_reset(&r, 7, TM_ROLLUP_MINUTE, T0_WALL);
	for (int i = 0; i < 4; i++) {
		sample_at(&s, i, 1000000);
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, anon[i]);
		if (i != 1) /* missing in one sample: counted as missing, not 0 */
			tm_sample_set(&s, TM_M_CG_FILE_BYTES, 100 * (i + 1));
		tm_rollup_add(&r, &s, 250000);
	}
	assert_int_equal(r.samples, 4);
	assert_int_equal(r.late_samples, 1);
	assert_int_equal(r.first_seq, 0);
	assert_int_equal(r.last_seq, 3);
	const struct tm_rollup_metric *a = &r.m[TM_M_CG_ANON_BYTES];
	assert_int_equal(a->n, 4);
	assert_int_equal(a->min, 10);
	assert_int_equal(a->max, 50);
	assert_int_equal(a->first, 10);
	assert_int_equal(a->last, 50);
	assert_int_equal(a->rises, 20 + 30); /* 10->30, 20->50 */
	assert_eq(tm_rollup_mean(&r, TM_M_CG_ANON_BYTES), 27.5);
	const struct tm_rollup_metric *f = &r.m[TM_M_CG_FILE_BYTES];
	assert_int_equal(f->n, 3);
	assert_eq(tm_rollup_mean(&r, TM_M_CG_FILE_BYTES), (100 + 300 + 400) / 3.0);
	assert_false(tm_rollup_has(&r, TM_M_CG_CURRENT_BYTES));
	assert_true(isnan(tm_rollup_mean(&r, TM_M_CG_CURRENT_BYTES)));
	assert_int_equal(tm_rollup_bucket_of(TM_ROLLUP_MINUTE, T0_WALL + 59999999), T0_WALL);
	assert_int_equal(tm_rollup_bucket_of(TM_ROLLUP_HOUR, -1), -3600000000LL);
}

static void test_encoding(void **state)
{
	struct tm_rollup r, back;
	struct tm_sample s;
	unsigned char buf[TM_ROLLUP_ENC_MAX];

	(void)state;
	tm_rollup_reset(&r, 1, TM_ROLLUP_HOUR, 0);
	for (int i = 0; i < 3; i++) {
		sample_at(&s, i, 1000000);
		tm_sample_set(&s, TM_M_CG_MAX_BYTES, -1); /* "no limit" */
		tm_sample_set(&s, TM_M_HEAP_ALLOC_BYTES, INT64_MAX - 10 + i);
		tm_sample_set(&s, TM_M_GC_CYCLES, 3 - i);
		tm_rollup_add(&r, &s, 0);
	}
	size_t len = tm_rollup_encode(&r, buf);
	memset(&back, 0xff, sizeof(back));
	assert_int_equal(tm_rollup_decode(buf, len, &back), 0);
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		assert_int_equal(tm_rollup_has(&back, m), tm_rollup_has(&r, m));
		if (tm_rollup_has(&r, m))
			assert_memory_equal(&back.m[m], &r.m[m], sizeof(r.m[m]));
	}
	assert_int_equal(back.m[TM_M_GC_CYCLES].rises, 0);
	assert_int_equal(tm_rollup_decode(buf, len - 1, &back), -1);
}

static int bucket_cb(void *ctx, const struct tm_rollup *r)
{
	struct tm_rollup *rows = ctx;
	int i = 0;
	while (rows[i].samples)
		i++;
	rows[i] = *r;
	return 0;
}

/* 150 samples a second apart, the store closed and reopened half way
 * through a minute: three minute rows of 60, 60, 30 samples, one hour row. */
static void test_store_rollups(void **state)
{
	struct store_fixture *sf = store_fixture_open("rollup-store");
	struct tm_run_meta m = {.machine = "t", .target = "command", .interval_usec = 1000000};
	static struct tm_rollup rows[8];
	struct tm_sample s;
	int64_t run;

	(void)state;
	assert_int_equal(tm_store_run_begin(sf->st, &m, &run), 0);
	for (int i = 0; i < 150; i++) {
		if (i == 90) { /* a restarted writer continues the open bucket */
			assert_int_equal(tm_store_commit(sf->st), 0);
			tm_store_close(sf->st);
			assert_int_equal(tm_store_open(sf->path, &sf->st), 0);
		}
		sample_at(&s, i, 1000000);
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, i);
		assert_int_equal(tm_store_add_sample(sf->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(sf->st), 0);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(tm_store_each_rollup(sf->st, run, TM_ROLLUP_MINUTE, 0, 0, bucket_cb, rows),
	                 0);
	assert_int_equal(rows[0].samples, 60);
	assert_int_equal(rows[1].samples, 60);
	assert_int_equal(rows[1].m[TM_M_CG_ANON_BYTES].min, 60);
	assert_int_equal(rows[1].m[TM_M_CG_ANON_BYTES].max, 119);
	assert_eq(tm_rollup_mean(&rows[1], TM_M_CG_ANON_BYTES), 89.5);
	assert_int_equal(rows[2].samples, 30);
	assert_int_equal(rows[2].last_seq, 149);
	assert_int_equal(rows[3].samples, 0);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(tm_store_each_rollup(sf->st, run, TM_ROLLUP_HOUR, 0, 0, bucket_cb, rows),
	                 0);
	assert_int_equal(rows[0].samples, 150);
	assert_int_equal(rows[0].m[TM_M_CG_ANON_BYTES].rises, 149);
	store_fixture_close(sf);
}

/* Pruning raw samples keeps the exact figures of the whole run. */
static void test_prune_keeps_figures(void **state)
{
	struct store_fixture *sf = store_fixture_open("rollup-prune");
	struct tm_run_meta m = {.machine = "t", .target = "cgroup", .interval_usec = 1000000};
	struct tm_summary before, after;
	struct tm_prune_stats ps = {0};
	struct tm_keep k;
	struct tm_sample s;
	int64_t run, first;

	(void)state;
	assert_int_equal(tm_store_run_begin(sf->st, &m, &run), 0);
	for (int i = 0; i < 600; i++) {
		sample_at(&s, i, 1000000);
		tm_sample_set(&s, TM_M_PROC_COUNT, 1);
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, i == 100 ? 5000 : 1000 + i % 7);
		tm_sample_set(&s, TM_M_CG_FILE_BYTES, 400 + i % 13);
		tm_sample_set(&s, TM_M_CG_CPU_USAGE_USEC, 1000 * i);
		assert_int_equal(tm_store_add_sample(sf->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(sf->st), 0);
	assert_int_equal(tm_summarize(sf->st, run, NULL, &before), 0);
	tm_keep_default(&k);
	k.raw_usec = 100 * 1000000LL; /* the last 100 s of the run */
	assert_int_equal(tm_store_prune_run(sf->st, run, &k, T0_WALL + 599 * 1000000LL, &ps), 0);
	assert_int_equal(ps.samples, 499);
	assert_int_equal(tm_store_first_seq(sf->st, run, &first), 0);
	assert_int_equal(first, 499); /* not a multiple of 256: rewritten as a keyframe */
	assert_int_equal(tm_summarize(sf->st, run, NULL, &after), 0);
	assert_int_equal(after.samples, 600);
	assert_eq(after.peak_anon_bytes, 5000);
	assert_eq(after.peak_anon_bytes, before.peak_anon_bytes);
	assert_eq(after.cpu_usec, before.cpu_usec);
	assert_eq(after.duration_usec, before.duration_usec);
	assert_eq(after.final_anon_bytes, before.final_anon_bytes);
	assert_eq(after.held_anon_bytes, before.held_anon_bytes);
	assert_true(after.approx.peak_in_rollups);
	assert_true(isnan(after.file_at_peak_bytes)); /* the peak's sample is gone */
	assert_true(isnan(after.median_file_bytes));
	assert_true(after.approx.median_file_low_bytes <= before.median_file_bytes);
	assert_true(after.approx.median_file_high_bytes >= before.median_file_bytes);
	assert_true(after.approx.rollup_samples >= 499);
	/* a window over the pruned stretch is refused, one after it works */
	struct tm_window w;
	assert_int_equal(tm_window_parse("10s:20s", &w), 0);
	assert_int_equal(tm_summarize(sf->st, run, &w, &after), -1);
	store_fixture_close(sf);
}

static uint64_t rnd_state = 88172645463325252ULL;
static double rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (double)(rnd_state >> 11) / 9007199254740992.0;
}

/* Exact while small; within TM_SKETCH_REL_ERROR of the exact median past
 * that, whatever the spread of the values. */
static void test_sketch_bound(void **state)
{
	enum { N = 100001 };
	double *v = malloc(N * sizeof(*v)), err;
	struct tm_sketch s;

	(void)state;
	tm_sketch_init(&s);
	for (int i = 0; i < 101; i++)
		tm_sketch_add(&s, 4096.0 * ((i * 37) % 101), 1);
	assert_eq(tm_sketch_median(&s, &err), 4096.0 * 50);
	assert_eq(err, 0);
	tm_sketch_release(&s);
	for (int round = 0; round < 3; round++) {
		tm_sketch_init(&s);
		for (int i = 0; i < N; i++) {
			/* log-uniform over 1 KiB .. 64 GiB, or a narrow band, or with zeros */
			v[i] = round == 0   ? pow(2, 10 + 26 * rnd())
			       : round == 1 ? 68e6 + 4096 * floor(1024 * rnd())
			                    : (rnd() < 0.3 ? 0 : 1e9 * rnd());
			tm_sketch_add(&s, v[i], 1);
		}
		double exact = tm_median(v, N), got = tm_sketch_median(&s, &err);
		assert_eq(err, TM_SKETCH_REL_ERROR);
		assert_true(fabs(got - exact) <= TM_SKETCH_REL_ERROR * fabs(exact) + 1);
		tm_sketch_release(&s);
	}
	/* weights count as repeated values */
	tm_sketch_init(&s);
	tm_sketch_add(&s, 10, 5);
	tm_sketch_add(&s, 20, 1);
	assert_eq(tm_sketch_median(&s, &err), 10);
	tm_sketch_release(&s);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_arithmetic),    cmocka_unit_test(test_encoding),
	    cmocka_unit_test(test_store_rollups), cmocka_unit_test(test_prune_keeps_figures),
	    cmocka_unit_test(test_sketch_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
