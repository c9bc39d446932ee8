/* What the store makes the device write (issue 23): a closed rollup bucket
 * waits for the commit window with its samples, a new file is made with
 * incremental vacuum, and a prune gives freed pages back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/util.h"
#include "assert_eq.h"

#include "record/recorder.h"
#include "store/store.h"
#include "store_fixture.h"

#define MINUTE_USEC 60000000LL
#define T0_USEC     (1700000000LL * 1000000) /* a whole minute (and hour) */

static int setup(void **state)
{
	*state = store_fixture_open("store-device");
	return 0;
}

static int teardown(void **state)
{
	store_fixture_close(*state);
	return 0;
}

/* Sample SEQ of a run sampled every STEP_USEC from T0_USEC, with most
 * metrics present (half of them: a rollup row of about a kilobyte, as a recorder's). */
static void make_sample(int64_t seq, int64_t step_usec, struct tm_sample *s)
{
	tm_sample_clear(s);
	s->seq = seq;
	s->t_wall_usec = T0_USEC + seq * step_usec;
	s->t_mono_usec = 1000000 + seq * step_usec;
	for (int m = 0; m < TM_METRIC_COUNT; m += 2)
		tm_sample_set(s, m, (int64_t)(m + 1) * 40961 + seq * (m % 7));
}

static int count_cb(void *ctx, const struct tm_rollup *r)
{
	(void)r;
	(*(int64_t *)ctx)++;
	return 0;
}

static int64_t minute_rows(struct tm_store *st, int64_t run)
{
	int64_t n = 0;
	assert_int_equal(tm_store_each_rollup(st, run, TM_ROLLUP_MINUTE, 0, 0, count_cb, &n), 0);
	return n;
}

/* One integer from SQL on PATH, read by a connection of its own. */
static int64_t sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *q;
	int64_t v;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

/* A minute that closes inside the window does not commit the window early:
 * its bucket waits in memory with the samples (before, writing it opened the
 * batch and the next tm_store_commit_due() committed everything at once),
 * and lands with them, whole. */
static void test_closed_bucket_waits(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), last = -2;
	struct tm_store *peer;
	struct tm_sample s;

	make_sample(0, 10000000, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	tm_store_set_commit_window(f->st, 400000);
	for (int64_t i = 1; i <= 13; i++) { /* 10 s apart: minutes 0 and 1 close */
		make_sample(i, 10000000, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
		assert_int_equal(tm_store_commit_due(f->st, tm_now_mono_usec()), 0);
	}
	assert_int_equal(tm_store_open(f->path, &peer), 0);
	assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
	if (last != 0 || minute_rows(peer, run) != 1)
		fail_msg(
		    "the closed minutes committed the window early: last seq %lld, %lld minute "
		    "rows (want 0 and 1)",
		    (long long)last, (long long)minute_rows(peer, run));
	usleep(450000);
	assert_int_equal(tm_store_commit_due(f->st, tm_now_mono_usec()), 0);
	assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
	assert_int_equal(last, 13);
	assert_int_equal(minute_rows(peer, run), 2); /* minute 2 is still open */
	int64_t n = sql_int(f->path, "SELECT samples FROM rollups WHERE level_sec = 60"
	                             " ORDER BY bucket_wall_usec LIMIT 1 OFFSET 1");
	assert_int_equal(n, 6);
	tm_store_close(peer);
}

/* A new file is made with incremental vacuum, and keeps SQLite's 4 KiB
 * pages. */
static void test_new_file_layout(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_sample s;

	make_sample(0, 1000000, &s);
	assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(sql_int(f->path, "PRAGMA page_size"), 4096);
	assert_int_equal(sql_int(f->path, "PRAGMA auto_vacuum"), 2);
}

/* Removing a run gives its pages back to the file system: the file's pages
 * (as SQLite counts them, WAL included) fall to a few, where before they
 * stayed in the file as free pages. */
static void test_removal_gives_pages_back(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	struct tm_sample s;

	for (int64_t i = 0; i < 30000; i++) {
		make_sample(i, 1000000, &s);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	int64_t before = sql_int(f->path, "PRAGMA page_count");
	assert_int_equal(tm_store_run_delete(f->st, run, "test", T0_USEC), 0);
	int64_t after = sql_int(f->path, "PRAGMA page_count");
	int64_t free_pages = sql_int(f->path, "PRAGMA freelist_count");
	if (before < 300 || after > 64 || free_pages > 16)
		fail_msg("pages before the removal %lld (want at least 300), after %lld (want at "
		         "most 64), free after %lld (want at most 16)",
		         (long long)before, (long long)after, (long long)free_pages);
}

/* What a kill -9 loses at each age of a run under the default commit window
 * (tm_rec_default_window_usec, docs/recording.md "What a kill -9 loses"):
 * an hour at 1 s through the real store, the recorder's own calls, with the
 * run's age on a fake clock (the store times a window from the real clock
 * when its first row waits, so NOW is that plus the fake age the window has
 * reached).  After each sample a second connection reads the last sample
 * committed: what a kill -9 at that moment would lose.  Nothing in the
 * first minute, at most a minute's samples to the tenth minute, at most 5
 * minutes' past it, and few enough commits that a 1 s hour stays under
 * 1 KB a sample at the device (bench/README.md, "An hour"). */
static void test_default_window_ladder(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), last = -1, since = 0, commits = 0;
	int64_t lost_max[3] = {0, 0, 0}, bound[3] = {0, 60, 300};
	struct tm_store *peer;
	struct tm_sample s;

	assert_int_equal(tm_store_commit(f->st), 0); /* the run's beginning */
	assert_int_equal(tm_store_open(f->path, &peer), 0);
	for (int64_t i = 0; i < 3600; i++) {
		int64_t age_usec = i * 1000000, prev = last;
		int phase = age_usec < 60000000 ? 0 : age_usec < 600000000 ? 1 : 2;

		make_sample(i, 1000000, &s);
		tm_store_set_commit_window(f->st, tm_rec_default_window_usec(age_usec));
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
		assert_int_equal(
		    tm_store_commit_due(f->st, tm_now_mono_usec() + (i - since) * 1000000), 0);
		assert_int_equal(tm_store_last_seq(peer, run, &last), 0);
		if (last == i)
			since = i + 1; /* nothing waits: the next sample starts a window */
		commits += last != prev;
		if (i - last > lost_max[phase])
			lost_max[phase] = i - last;
	}
	tm_store_close(peer);
	for (int p = 0; p < 3; p++)
		if (lost_max[p] > bound[p] || lost_max[p] < bound[p] * 9 / 10)
			fail_msg(
			    "ages %s: a kill -9 loses up to %lld samples at 1 s (want %lld: the "
			    "window); 1 s samples committed in %lld commits over the hour",
			    p == 0   ? "0-60 s"
			    : p == 1 ? "60-600 s"
			             : "600-3600 s",
			    (long long)lost_max[p], (long long)bound[p], (long long)commits);
	/* a commit per sample for a minute, per minute to the tenth, then per 5 */
	if (commits > 60 + 9 + 10 + 1)
		fail_msg("%lld commits in the first hour at 1 s (want at most 80)",
		         (long long)commits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_closed_bucket_waits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_new_file_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_default_window_ladder, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_removal_gives_pages_back, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
