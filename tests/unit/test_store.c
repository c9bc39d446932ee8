/* The store: sample round trips through the delta encoding, ordering rules,
 * reopening, and the side tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/util.h"
#include "assert_eq.h"

#include "report/run/runjson.h"
#include "store/store.h"
#include "store_fixture.h"

static int setup(void **state)
{
	*state = store_fixture_open("store-test");
	return 0;
}

static int teardown(void **state)
{
	store_fixture_close(*state);
	return 0;
}

/* A deterministic sample with wide-ranging values and some metrics absent. */
static void make_sample(int64_t seq, struct tm_sample *s)
{
	tm_sample_clear(s);
	s->seq = seq;
	s->t_wall_usec = 1700000000000000 + seq * 1000;
	s->t_mono_usec = 5000000 + seq * 1000;
	s->late_usec = seq % 7 == 0 ? 1234 : 0;
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		if ((m + seq) % 5 == 0 && seq % 3 == 0)
			continue; /* absent now and then, and the mask changes */
		int64_t v = (int64_t)(seq * 1048576) * (m + 1) - (m % 3 ? 0 : seq * 77);
		if (m == TM_M_CG_MAX_BYTES)
			v = seq % 2 ? INT64_MAX : INT64_MIN + seq; /* extremes survive deltas */
		tm_sample_set(s, m, v);
	}
}

struct collect {
	int64_t n, next;
	int bad;
};

static int check_cb(void *ctx, const struct tm_sample *got)
{
	struct collect *c = ctx;
	struct tm_sample want;
	make_sample(c->next, &want);
	if (got->seq != want.seq || got->t_wall_usec != want.t_wall_usec ||
	    got->t_mono_usec != want.t_mono_usec || got->late_usec != want.late_usec ||
	    memcmp(got->present, want.present, sizeof(want.present)))
		c->bad++;
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_sample_has(&want, m) && got->v[m] != want.v[m])
			c->bad++;
	c->n++;
	c->next++;
	return 0;
}

static void test_round_trip(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_sample s;
	struct collect c = {0};
	int64_t last;

	for (int64_t i = 0; i < 700; i++) {
		make_sample(i, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
		if (i % 50 == 0)
			assert_int_equal(tm_store_commit(f->st), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_sample(f->st, run, 0, -1, check_cb, &c), 0);
	assert_int_equal(c.n, 700);
	assert_int_equal(c.bad, 0);

	/* a range that starts between keyframes decodes from the keyframe before it */
	c = (struct collect){.next = 300};
	assert_int_equal(tm_store_each_sample(f->st, run, 300, 520, check_cb, &c), 0);
	assert_int_equal(c.n, 221);
	assert_int_equal(c.bad, 0);

	assert_int_equal(tm_store_last_seq(f->st, run, &last), 0);
	assert_int_equal(last, 699);
}

static int rollup_samples(void *ctx, const struct tm_rollup *r)
{
	*(int64_t *)ctx = r->samples;
	return 0;
}

/* The commit window: samples and progress wait in memory (another
 * connection sees none of them, and may write meanwhile: no lock is held),
 * land together once the oldest is the window old, and decode as if written
 * one by one; the open rollup bucket waits for tm_store_commit(). */
static void test_commit_window(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), last = 0, other = 0;
	struct tm_store *peer;
	struct tm_item_counts n;
	struct tm_sample s;
	struct collect c = {0};
	int64_t in_bucket = 0;

	make_sample(0, &s); /* the run's writer, loaded in a batch of its own */
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	tm_store_set_commit_window(f->st, 300000);
	for (int64_t i = 1; i < 20; i++) {
		make_sample(i, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_add_progress(f->st, run, 1, 2, 3.5), 0);
	assert_int_equal(tm_store_commit_due(f->st, tm_now_mono_usec()), 0);
	assert_int_equal(tm_store_open(f->path, &peer), 0);
	assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
	assert_int_equal(last, 0);
	assert_int_equal(tm_store_count_items(peer, run, &n), 0);
	assert_int_equal(n.progress, 0);
	int64_t t0 = tm_now_mono_usec();
	assert_int_equal(tm_store_run_begin(peer, &(struct tm_run_meta){.target = "pid"}, &other),
	                 0);
	assert_int_equal(tm_store_commit(peer), 0);
	int64_t waited_usec = tm_now_mono_usec() - t0;
	if (waited_usec > 1000000)
		fail_msg("the peer's write waited %lld us: the window holds the lock",
		         (long long)waited_usec);

	usleep(310000);
	assert_int_equal(tm_store_commit_due(f->st, tm_now_mono_usec()), 0);
	assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
	assert_int_equal(last, 19);
	assert_int_equal(tm_store_count_items(peer, run, &n), 0);
	assert_int_equal(n.progress, 1);
	assert_int_equal(tm_store_each_sample(peer, run, 0, -1, check_cb, &c), 0);
	assert_int_equal(c.n, 20);
	assert_int_equal(c.bad, 0);
	assert_int_equal(
	    tm_store_each_rollup(peer, run, TM_ROLLUP_MINUTE, 0, 0, rollup_samples, &in_bucket), 0);
	assert_int_equal(in_bucket, 1); /* as the first commit wrote it */
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(
	    tm_store_each_rollup(peer, run, TM_ROLLUP_MINUTE, 0, 0, rollup_samples, &in_bucket), 0);
	assert_int_equal(in_bucket, 20);

	/* what waits when the batch is abandoned is gone, and the run goes on */
	make_sample(20, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	tm_store_abandon(f->st);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
	assert_int_equal(last, 19);
	tm_store_close(peer);
}

/* The rows that wait are bounded (store/pending.c: 32 KiB of packed rows,
 * or 4096 rows), whatever the window: past the bound the next commit_due
 * writes them, and they decode as written.  These samples (every metric,
 * large deltas) take a few hundred bytes each, so the bytes bound comes
 * first, well before the rows' bound. */
static void test_commit_window_bounded(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), last = 0, first = -1;
	struct tm_store *peer;
	struct tm_sample s;
	struct collect c = {0};

	make_sample(0, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	tm_store_set_commit_window(f->st, 3600LL * 1000000); /* an hour: never due by time */
	assert_int_equal(tm_store_open(f->path, &peer), 0);
	for (int64_t i = 1; i < 4000 && first < 0; i++) {
		make_sample(i, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
		assert_int_equal(tm_store_commit_due(f->st, tm_now_mono_usec()), 0);
		assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
		if (last > 0)
			first = last;
	}
	print_message("the waiting rows were written at sample %lld\n", (long long)first);
	if (first < 50 || first >= 160)
		fail_msg("the waiting rows were written at sample %lld: want past 50 (they "
		         "wait) and before 160 (32 KiB: these wait in 200 bytes or more each)",
		         (long long)first);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_sample(peer, run, 0, -1, check_cb, &c), 0);
	assert_int_equal(c.n, first + 1);
	assert_int_equal(c.bad, 0);
	tm_store_close(peer);
}

static int copy_cb(void *ctx, const struct tm_sample *s)
{
	*(struct tm_sample *)ctx = *s;
	return 0;
}

static void test_absent_is_not_zero(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_sample s, got;

	tm_sample_clear(&s);
	s.seq = 0;
	tm_sample_set(&s, TM_M_CG_ANON_BYTES, 0);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_sample(f->st, run, 0, -1, copy_cb, &got), 0);
	assert_true(tm_sample_has(&got, TM_M_CG_ANON_BYTES));
	assert_int_equal(got.v[TM_M_CG_ANON_BYTES], 0);
	assert_false(tm_sample_has(&got, TM_M_CG_PEAK_BYTES));
}

static void test_order_enforced(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_sample s;

	make_sample(1, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), -1); /* must start at 0 */
	make_sample(0, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), -1); /* duplicate */
	make_sample(2, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), -1); /* gap */
	assert_int_equal(tm_store_commit(f->st), 0);
}

/* A second handle (another process, or a server after restart) continues a
 * run from what is in the file. */
static void test_reopen_continues(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_store *other;
	struct tm_sample s;
	struct collect c = {0};

	for (int64_t i = 0; i < 300; i++) {
		make_sample(i, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_open(f->path, &other), 0);
	for (int64_t i = 300; i < 320; i++) {
		make_sample(i, &s);
		assert_int_equal(tm_store_add_sample(other, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(other), 0);
	tm_store_close(other);
	assert_int_equal(tm_store_each_sample(f->st, run, 0, -1, check_cb, &c), 0);
	assert_int_equal(c.n, 320);
	assert_int_equal(c.bad, 0);
}

static int count_cb(void *ctx, const struct tm_event *ev)
{
	(void)ev;
	(*(int *)ctx)++;
	return 0;
}

static int mark_cb(void *ctx, int64_t w, int64_t m, const char *text)
{
	(void)w;
	(void)m;
	assert_string_equal(text, "busy <start>");
	(*(int *)ctx)++;
	return 0;
}

static int progress_cb(void *ctx, int64_t w, int64_t m, double v)
{
	(void)w;
	(void)m;
	*(double *)ctx += v;
	return 0;
}

static void test_runs_and_side_tables(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), latest = 0, by_uuid = 0;
	struct tm_event ev = {.t_wall_usec = 1, .t_mono_usec = 2, .kind = "oom_kill", .value = 1};
	struct tm_run_end end = {.ended_wall_usec = 99,
	                         .outcome = TM_OUTCOME_OOM_KILLED,
	                         .exit_code = -1,
	                         .term_signal = 9};
	struct tm_run_info ri;
	int events = 0, marks = 0;
	double sum = 0;

	assert_int_equal(tm_store_add_event(f->st, run, &ev), 0);
	assert_int_equal(tm_store_add_mark(f->st, run, 5, 6, "busy <start>"), 0);
	assert_int_equal(tm_store_add_progress(f->st, run, 7, 8, 41.5), 0);
	assert_int_equal(tm_store_add_progress(f->st, run, 9, 10, 0.5), 0);
	assert_int_equal(tm_store_run_set_text(f->st, run, "allocator", "jemalloc"), 0);
	assert_int_equal(tm_store_run_end(f->st, run, &end), 0);
	assert_int_equal(tm_store_commit(f->st), 0);

	assert_int_equal(tm_store_latest_run(f->st, &latest), 0);
	assert_int_equal(latest, run);
	assert_int_equal(tm_store_run_get(f->st, run, &ri), 0);
	assert_string_equal(ri.outcome, "oom-killed");
	assert_string_equal(ri.allocator, "jemalloc");
	assert_int_equal(ri.term_signal, 9);
	assert_int_equal(strlen(ri.uuid), 36);
	assert_int_equal(tm_store_run_by_uuid(f->st, ri.uuid, &by_uuid), 0);
	assert_int_equal(by_uuid, run);
	tm_run_info_release(&ri);
	assert_int_equal(tm_store_run_get(f->st, run + 1000, &ri), 1);

	assert_int_equal(tm_store_each_event(f->st, run, count_cb, &events), 0);
	assert_int_equal(events, 1);
	assert_int_equal(tm_store_each_mark(f->st, run, mark_cb, &marks), 0);
	assert_int_equal(marks, 1);
	assert_int_equal(tm_store_each_progress(f->st, run, progress_cb, &sum), 0);
	assert_eq(sum, 42.0);
}

/* A run whose newest sample (by seq) is dated 2099: that date never makes
 * it live (issue 20).  Samples an hour old and then one dated 2099: stale,
 * seen at the hour-old one; a sample a second old and then one dated 2099:
 * live; a run that started in 2099 with no sample: stale. */
static void test_future_never_live(void **state)
{
	struct store_fixture *f = *state;
	const int64_t y2099 = 4070908800000000LL, now = tm_now_wall_usec();
	const int64_t hour = 3600LL * 1000000;
	int64_t ids[3];
	int64_t first[3] = {now - hour, now - 2000000, y2099};
	for (int r = 0; r < 3; r++) {
		struct tm_run_meta m = {.machine = "fut",
		                        .target = "command",
		                        .interval_usec = 1000000,
		                        .started_wall_usec = first[r]};
		assert_int_equal(tm_store_run_begin(f->st, &m, &ids[r]), 0);
		for (int64_t i = 0; r < 2 && i < 3; i++) {
			struct tm_sample s;
			tm_sample_clear(&s);
			s.seq = i;
			s.t_wall_usec = i < 2 ? first[r] + i * 1000000 : y2099;
			s.t_mono_usec = 1000000 * (i + 1);
			tm_sample_set(&s, TM_M_CG_ANON_BYTES, 4096);
			assert_int_equal(tm_store_add_sample(f->st, ids[r], &s), 0);
		}
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	static const enum tm_run_state want[3] = {TM_RUN_STALE, TM_RUN_LIVE, TM_RUN_STALE};
	for (int r = 0; r < 3; r++) {
		struct tm_run_info ri;
		assert_int_equal(tm_store_run_get(f->st, ids[r], &ri), 0);
		if (r < 2) {
			assert_eq(ri.last_sample_wall_usec, y2099); /* stored as sent */
			assert_eq(ri.seen_wall_usec, first[r] + 1000000);
		}
		enum tm_run_state got = tm_run_state(&ri, tm_now_wall_usec());
		if (got != want[r])
			fail_msg("run %d: state %s, want %s (last sample %lld, seen %lld)", r,
			         tm_run_state_name(got), tm_run_state_name(want[r]),
			         (long long)ri.last_sample_wall_usec, (long long)ri.seen_wall_usec);
		tm_run_info_release(&ri);
	}
}

static void test_not_a_store(void **state)
{
	(void)state;
	char path[64];
	FILE *fp;
	struct tm_store *st = NULL;

	snprintf(path, sizeof(path), "/tmp/tm-not-a-store-%d", getpid());
	fp = fopen(path, "w");
	fputs("this is not sqlite\n", fp);
	fclose(fp);
	assert_int_equal(tm_store_open(path, &st), -1);
	assert_int_equal(tm_store_open_readonly(path, &st), -1);
	assert_int_equal(tm_store_open_readonly("/nonexistent/x.db", &st), -1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_window, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_window_bounded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_absent_is_not_zero, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_order_enforced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reopen_continues, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_runs_and_side_tables, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_future_never_live, setup, teardown),
	    cmocka_unit_test(test_not_a_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
