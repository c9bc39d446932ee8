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
#include "report/bench/benchtab.h"
#include "report/run/throttle.h"
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

/* A service that waits between units of work (issue 25), simulated a
 * millisecond at a time: each unit works WORK_MS (THR_WORK_MS while
 * throttled, from THR_FROM_MS to THR_TO_MS: memory full FULL_SHARE of
 * its time, EVENTS_PER_S high events) and then sleeps SLEEP_MS (no stall,
 * no events); progress + 1 at the end of each unit; sampled every
 * INTERVAL_MS until END_MS. */
struct rhythm {
	int interval_ms, work_ms, thr_work_ms, sleep_ms;
	int thr_from_ms, thr_to_ms, end_ms;
	double full_share, events_per_s;
	int thr2_from_ms, thr2_to_ms; /* a second throttled stretch (0: none) */
};

static void rhythm_find(const struct rhythm *r, struct tm_throttle *th)
{
	size_t cap = (size_t)r->end_ms, np = 0;
	int64_t *pm = calloc(cap, sizeof(*pm));
	double *pv = calloc(cap, sizeof(*pv)), *hs = calloc(cap, sizeof(*hs)),
	       *fs = calloc(cap, sizeof(*fs));
	double high = 0, full = 0, prog = 0;
	int left = 0, ns = 0;
	bool working = false, thr = false;

	assert_non_null(pm);
	assert_non_null(hs);
	for (int t = 0; t < r->end_ms; t++) {
		if (left == 0) {
			if (working) {
				pm[np] = t * 1000LL;
				pv[np++] = ++prog;
			}
			working = !working;
			thr = (t >= r->thr_from_ms && t < r->thr_to_ms) ||
			      (t >= r->thr2_from_ms && t < r->thr2_to_ms);
			left = working ? (thr ? r->thr_work_ms : r->work_ms) : r->sleep_ms;
		}
		if (working && thr) {
			full += r->full_share * 1000;
			high += r->events_per_s / 1000;
		}
		left--;
		if (t % r->interval_ms == 0) {
			hs[ns] = floor(high);
			fs[ns++] = full;
		}
	}
	struct tm_throttle_stream *ts = tm_throttle_stream_new(0, -1, pm, pv, np);
	assert_non_null(ts);
	for (int i = 0; i < ns; i++) {
		int64_t mono = (int64_t)i * r->interval_ms * 1000;
		tm_throttle_stream_add(ts, mono, 1700000000000000 + mono, hs[i], fs[i]);
	}
	tm_throttle_stream_finish(ts, th);
	for (int i = 0; i < th->n && i < TM_THROTTLE_MAX_SPANS; i++) {
		char text[256];
		tm_throttle_span_text(&th->spans[i], text, sizeof(text));
		print_message("  %.1f s to %.1f s: %s\n", th->spans[i].start_mono_usec / 1e6,
		              th->spans[i].end_mono_usec / 1e6, text);
	}
	free(pm);
	free(pv);
	free(hs);
	free(fs);
}

/* One throttled stretch, within SLACK_MS of THR_FROM..THR_TO, judged
 * against the pace before it. */
static void assert_one_stretch(const struct rhythm *r, const struct tm_throttle *th, int slack_ms,
                               double rate_before)
{
	assert_true(th->known);
	if (th->n != 1)
		fail_msg("%d stretches totalling %.1f s; want 1 of about %.1f s", th->n,
		         th->throttled_usec / 1e6, (r->thr_to_ms - r->thr_from_ms) / 1e3);
	const struct tm_throttle_span *s = &th->spans[0];
	double from = s->start_mono_usec / 1e3, to = s->end_mono_usec / 1e3;
	if (fabs(from - r->thr_from_ms) > slack_ms || fabs(to - r->thr_to_ms) > slack_ms)
		fail_msg("the stretch is %.0f..%.0f ms, want %d..%d (± %d)", from, to,
		         r->thr_from_ms, r->thr_to_ms, slack_ms);
	if (fabs(s->rate_before_per_min - rate_before) > 0.1 * rate_before)
		fail_msg("rate before %.1f/min, want about %.1f", s->rate_before_per_min,
		         rate_before);
	assert_true(s->rate_during_per_min < 0.5 * s->rate_before_per_min);
}

/* The first case of issue 25: -i 200ms, a program that sleeps 300 ms
 * between units; throttled without a break for 86 s (2 s a unit, 95 %
 * full, about 54 high events per 5 s).  Each sleep gives an interval at
 * 0 % stall; it is one stretch all the same, judged against the
 * unthrottled pace before it (100 ms a unit: 150 units/min). */
static void test_idle_between_units_200ms(void **state)
{
	struct rhythm r = {.interval_ms = 200,
	                   .work_ms = 100,
	                   .thr_work_ms = 2000,
	                   .sleep_ms = 300,
	                   .thr_from_ms = 20000,
	                   .thr_to_ms = 106000,
	                   .end_ms = 130000,
	                   .full_share = 0.95,
	                   .events_per_s = 10.8};
	struct tm_throttle th;
	(void)state;

	rhythm_find(&r, &th);
	assert_one_stretch(&r, &th, 2500, 150);
}

/* The second: the default 1 s interval, 1.5 s sleeps, a steady crawl for
 * 150 s (3 s a unit throttled, 0.5 s unthrottled: 30 units/min before). */
static void test_idle_between_units_1s(void **state)
{
	struct rhythm r = {.interval_ms = 1000,
	                   .work_ms = 500,
	                   .thr_work_ms = 3000,
	                   .sleep_ms = 1500,
	                   .thr_from_ms = 30000,
	                   .thr_to_ms = 180000,
	                   .end_ms = 220000,
	                   .full_share = 0.95,
	                   .events_per_s = 10};
	struct tm_throttle th;
	(void)state;

	rhythm_find(&r, &th);
	assert_one_stretch(&r, &th, 4500, 30);
}

/* Two throttled stretches 10 s apart (more than the join limit) stay two,
 * and the second, whose "before" reaches into the first, is judged against
 * the pace before the first, not the throttled one. */
static void test_two_stretches_apart(void **state)
{
	struct rhythm r = {.interval_ms = 1000,
	                   .work_ms = 500,
	                   .thr_work_ms = 3000,
	                   .sleep_ms = 1500,
	                   .thr_from_ms = 30000,
	                   .thr_to_ms = 60000,
	                   .thr2_from_ms = 70000,
	                   .thr2_to_ms = 110000,
	                   .end_ms = 130000,
	                   .full_share = 0.95,
	                   .events_per_s = 10};
	struct tm_throttle th;
	(void)state;

	rhythm_find(&r, &th);
	assert_true(th.known);
	if (th.n != 2)
		fail_msg("%d stretches, want 2", th.n);
	for (int i = 0; i < 2; i++)
		if (fabs(th.spans[i].rate_before_per_min - 30) > 3)
			fail_msg("stretch %d: rate before %.1f/min, want about 30", i,
			         th.spans[i].rate_before_per_min);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_throttled),
	    cmocka_unit_test(test_not_throttled),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_bench_note),
	    cmocka_unit_test(test_idle_between_units_200ms),
	    cmocka_unit_test(test_idle_between_units_1s),
	    cmocka_unit_test(test_two_stretches_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
