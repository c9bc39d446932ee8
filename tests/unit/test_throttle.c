/* Throttle limbo from a stored run's series: found when high events rise with memory full stall and
 * a falling rate, not otherwise. */
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
#include <jansson.h>

#include "base/sample.h"
#include "report/benchtab.h"
#include "report/throttle.h"
#include "store/store.h"
#include "store_fixture.h"
#include "base/banned.h"

/* 30 samples a second apart; seconds 10..19 are the stretch: high events
 * rise HIGH_PER_S, memory full takes FULL_SHARE of the time and progress
 * goes RATE_IN units/s (RATE_OUT outside it).  PSI < 0: not measured. */
struct shape {
	double high_per_s, full_share, rate_out, rate_in;
	bool psi, high, progress;
};

static int64_t add_run(struct tm_store *st, const struct shape *sh)
{
	struct tm_run_meta m = {.target = "command",
	                        .interval_usec = 1000000,
	                        .started_wall_usec = 1700000000000000,
	                        .started_mono_usec = 1000000};
	int64_t id, high = 0, full = 0;
	double prog = 0;
	struct tm_sample s;

	assert_int_equal(tm_store_run_begin(st, &m, &id), 0);
	for (int i = 0; i < 30; i++) {
		bool in = i > 10 && i <= 20;
		if (in) {
			high += (int64_t)sh->high_per_s;
			full += (int64_t)(sh->full_share * 1e6);
		} else
			full += 1000; /* a little stall outside */
		prog += in ? sh->rate_in : sh->rate_out;
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = m.started_wall_usec + i * 1000000;
		s.t_mono_usec = m.started_mono_usec + i * 1000000;
		s.late_usec = 0;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, 1 << 20);
		if (sh->high)
			tm_sample_set(&s, TM_M_CG_EVENTS_HIGH, high);
		if (sh->psi)
			tm_sample_set(&s, TM_M_CG_PSI_MEM_FULL_USEC, full);
		assert_int_equal(tm_store_add_sample(st, id, &s), 0);
		if (sh->progress)
			assert_int_equal(
			    tm_store_add_progress(st, id, s.t_wall_usec, s.t_mono_usec, prog), 0);
	}
	assert_int_equal(tm_store_commit(st), 0);
	return id;
}

static void find(const struct shape *sh, struct tm_throttle *th)
{
	struct store_fixture *f = store_fixture_open("throttle");
	int64_t id = add_run(f->st, sh);
	assert_int_equal(tm_throttle_find(f->st, id, 0, -1, th), 0);
	store_fixture_close(f);
}

static void test_throttled(void **state)
{
	struct shape sh = {.high_per_s = 92600,
	                   .full_share = 0.61,
	                   .rate_out = 3,
	                   .rate_in = 0.0333,
	                   .psi = true,
	                   .high = true,
	                   .progress = true};
	struct tm_throttle th;
	char text[256];
	(void)state;

	find(&sh, &th);
	assert_true(th.known);
	assert_int_equal(th.n, 1);
	const struct tm_throttle_span *s = &th.spans[0];
	assert_int_equal(s->end_mono_usec - s->start_mono_usec, 10000000);
	assert_true(fabs(s->high_events - 926000) < 1);
	assert_true(fabs(s->mem_full_share - 0.61) < 0.001);
	assert_true(fabs(s->rate_before_per_min - 180) < 0.5);
	assert_true(fabs(s->rate_during_per_min - 2) < 0.1);
	tm_throttle_span_text(s, text, sizeof(text));
	assert_non_null(strstr(text, "throttled by memory.high from "));
	assert_non_null(
	    strstr(text, ": 926,000 high events, memory full 61 %, rate 180 → 2 units/min"));
	json_t *j = tm_throttle_json(&th);
	assert_int_equal(json_array_size(json_object_get(j, "spans")), 1);
	json_decref(j);
}

/* High events with no stall, or a stall while the work goes on: not limbo. */
static void test_not_throttled(void **state)
{
	struct shape sh = {.high_per_s = 5000,
	                   .full_share = 0.01,
	                   .rate_out = 3,
	                   .rate_in = 3,
	                   .psi = true,
	                   .high = true,
	                   .progress = true};
	struct tm_throttle th;
	(void)state;

	find(&sh, &th);
	assert_true(th.known);
	assert_int_equal(th.n, 0);
	sh.full_share = 0.6; /* stalled, but the rate held */
	find(&sh, &th);
	assert_int_equal(th.n, 0);
	sh.high_per_s = 0; /* stalled without memory.high */
	sh.rate_in = 0;
	find(&sh, &th);
	assert_int_equal(th.n, 0);
}

/* What the run cannot tell it does not guess. */
static void test_unknown(void **state)
{
	struct shape sh = {.high_per_s = 92600,
	                   .full_share = 0.61,
	                   .rate_out = 3,
	                   .rate_in = 0.03,
	                   .psi = true,
	                   .high = false,
	                   .progress = true};
	struct tm_throttle th;
	char text[256];
	(void)state;

	find(&sh, &th);
	assert_false(th.known);
	assert_non_null(strstr(th.why, "memory.high events were not measured"));
	sh.high = true;
	sh.psi = false;
	find(&sh, &th);
	assert_false(th.known);
	assert_non_null(strstr(th.why, "pressure"));
	sh.psi = true;
	sh.progress = false; /* throttled, but the rate is not known: said so */
	find(&sh, &th);
	assert_int_equal(th.n, 1);
	tm_throttle_span_text(&th.spans[0], text, sizeof(text));
	assert_non_null(strstr(text, "rate not known"));
}

static void collect(void *ctx, enum tm_bench_note kind, const char *text)
{
	if (kind == TM_BN_THROTTLE)
		snprintf(ctx, 256, "%s", text);
}

/* The bench table says it too, as a note of its own kind. */
static void test_bench_note(void **state)
{
	struct shape sh = {.high_per_s = 92600,
	                   .full_share = 0.61,
	                   .rate_out = 3,
	                   .rate_in = 0.0333,
	                   .psi = true,
	                   .high = true,
	                   .progress = true};
	char note[256] = "";
	struct store_fixture *f = store_fixture_open("throttle-bench");
	struct tm_store *st = f->st;
	struct tm_bench_table *t = calloc(1, sizeof(*t));
	(void)state;

	int64_t ids[2] = {add_run(st, &sh), 0};
	sh.full_share = 0;
	ids[1] = add_run(st, &sh);
	assert_int_equal(tm_bench_table_of_runs(st, ids, 2, t), 0);
	assert_int_equal(t->runs[0].throttle_spans, 1);
	assert_int_equal(t->runs[1].throttle_spans, 0);
	tm_bench_table_each_note(t, collect, note);
	assert_non_null(strstr(note, "run 1 (run 1) throttled by memory.high from "));
	tm_bench_table_release(t);
	free(t);
	store_fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_throttled),
	    cmocka_unit_test(test_not_throttled),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_bench_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
