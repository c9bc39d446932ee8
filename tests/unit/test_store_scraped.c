/* store/scraped: a run's scraped series (added once by name, an "unknown"
 * one taking its kind when it is first served), their values in seq order
 * per series or all, a non-finite value refused, the rows of one run only,
 * deletion, prune removing the values of pruned samples (keeping the
 * series, the report's figures then over the kept stretch), and a store
 * written before these tables (read-only) read as having none. */
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
#include <sqlite3.h>

#include "base/sample.h"
#include "report/run/scraped.h"
#include "store/scraped.h"
#include "store/store.h"
#include "store_fixture.h"

struct got {
	int n;
	char names[8][64], kinds[8][16];
	int64_t ids[8], seq[16], series[16];
	double v[16];
};

static int see_series(void *ctx, const struct tm_scraped_series *s)
{
	struct got *g = ctx;
	snprintf(g->names[g->n], sizeof(g->names[0]), "%s", s->name);
	snprintf(g->kinds[g->n], sizeof(g->kinds[0]), "%s", s->kind);
	g->ids[g->n++] = s->id;
	return 0;
}

static int see_value(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	struct got *g = ctx;
	(void)t_wall_usec;
	g->series[g->n] = series_id;
	g->seq[g->n] = seq;
	g->v[g->n++] = v;
	return 0;
}

static void test_series_and_values(void **state)
{
	struct store_fixture *f = store_fixture_open("scraped");
	int64_t run = store_fixture_run(f->st), other = store_fixture_run(f->st), a, b, a2, o;
	struct got g = {0};

	(void)state;
	assert_int_equal(
	    tm_store_scraped_series(f->st, run, "app{k=\"v\"}", "gauge", "http://h/m", &a), 0);
	assert_int_equal(tm_store_scraped_series(f->st, run, "never", "unknown", "http://h/m", &b),
	                 0);
	assert_int_equal(
	    tm_store_scraped_series(f->st, run, "app{k=\"v\"}", "gauge", "http://h/m", &a2), 0);
	assert_int_equal(a, a2); /* once by name */
	assert_int_equal(tm_store_scraped_series(f->st, other, "app{k=\"v\"}", "gauge", "x", &o),
	                 0);
	assert_true(o != a); /* per run */
	assert_int_equal(tm_store_add_scraped(f->st, run, a, 3, 30, 2.5), 0);
	assert_int_equal(tm_store_add_scraped(f->st, run, a, 1, 10, 1.5), 0);
	assert_int_equal(tm_store_add_scraped(f->st, run, b, 2, 20, 7), 0);
	assert_int_equal(tm_store_add_scraped(f->st, other, o, 1, 10, 99), 0);
	assert_int_equal(tm_store_add_scraped(f->st, run, a, 4, 40, NAN), -1);
	assert_int_equal(tm_store_add_scraped(f->st, run, a, 4, 40, INFINITY), -1);
	assert_int_equal(tm_store_commit(f->st), 0);
	/* the unknown one takes its kind when it is served; a known kind stays */
	assert_int_equal(tm_store_scraped_series(f->st, run, "never", "counter", "http://h/m", &b),
	                 0);
	assert_int_equal(tm_store_scraped_series(f->st, run, "app{k=\"v\"}", "unknown", "h", &a2),
	                 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_scraped_series(f->st, run, see_series, &g), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.names[0], "app{k=\"v\"}");
	assert_string_equal(g.kinds[0], "gauge");
	assert_string_equal(g.kinds[1], "counter");
	/* all values of the run in seq order; none of the other run */
	memset(&g, 0, sizeof(g));
	assert_int_equal(tm_store_each_scraped_value(f->st, run, 0, 0, -1, see_value, &g), 0);
	assert_int_equal(g.n, 3);
	assert_eq(g.seq[0], 1);
	assert_eq(g.seq[1], 2);
	assert_eq(g.seq[2], 3);
	assert_eq(g.v[0], 1.5);
	assert_eq(g.v[1], 7);
	assert_eq(g.v[2], 2.5);
	/* one series, a seq range */
	memset(&g, 0, sizeof(g));
	assert_int_equal(tm_store_each_scraped_value(f->st, run, a, 2, 3, see_value, &g), 0);
	assert_int_equal(g.n, 1);
	assert_eq(g.seq[0], 3);
	assert_eq(g.series[0], a);
	/* deleted with its run */
	assert_int_equal(tm_store_delete_scraped(f->st, run), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(tm_store_each_scraped_series(f->st, run, see_series, &g), 0);
	assert_int_equal(tm_store_each_scraped_value(f->st, run, 0, 0, -1, see_value, &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(tm_store_each_scraped_value(f->st, other, 0, 0, -1, see_value, &g), 0);
	assert_int_equal(g.n, 1);
	store_fixture_close(f);
}

static int count_value(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	int64_t *n = ctx;
	(void)series_id;
	(void)t_wall_usec;
	(void)v;
	n[seq < 499 ? 0 : 1]++;
	return 0;
}

#define T0_WALL 1700000000000000LL

/* Prune drops the scraped values of the samples it removes, in its own
 * batch, and keeps the series (names); the figures then cover the kept
 * stretch, an all-pruned series n/a, never 0. */
static void test_prune_drops_values(void **state)
{
	struct store_fixture *f = store_fixture_open("scraped-prune");
	struct tm_run_meta m = {.machine = "t", .target = "cgroup", .interval_usec = 1000000};
	int64_t run, other = store_fixture_run(f->st), a, b, o, n[2] = {0, 0};
	struct tm_prune_stats ps = {0};
	struct tm_scraped_figs figs;
	struct tm_sample s;
	struct tm_keep k;
	struct got g = {0};

	(void)state;
	assert_int_equal(tm_store_run_begin(f->st, &m, &run), 0);
	assert_int_equal(tm_store_scraped_series(f->st, run, "heap_bytes", "gauge", "h", &a), 0);
	assert_int_equal(tm_store_scraped_series(f->st, run, "early", "gauge", "h", &b), 0);
	assert_int_equal(tm_store_scraped_series(f->st, other, "x", "gauge", "h", &o), 0);
	for (int i = 0; i < 600; i++) {
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = T0_WALL + i * 1000000LL;
		s.t_mono_usec = 1000000 + i * 1000000LL;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, 1000 + i);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
		assert_int_equal(tm_store_add_scraped(f->st, run, a, i, s.t_wall_usec, i), 0);
		if (i < 100)
			assert_int_equal(tm_store_add_scraped(f->st, run, b, i, s.t_wall_usec, 5),
			                 0);
	}
	assert_int_equal(tm_store_add_scraped(f->st, other, o, 3, T0_WALL, 1), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	tm_keep_default(&k);
	k.raw_usec = 100 * 1000000LL;
	assert_int_equal(tm_store_prune_run(f->st, run, &k, T0_WALL + 599 * 1000000LL, &ps), 0);
	assert_int_equal(ps.samples, 499);
	assert_int_equal(ps.scraped_values, 499 + 100);
	assert_int_equal(tm_store_each_scraped_value(f->st, run, 0, 0, -1, count_value, n), 0);
	assert_int_equal(n[0], 0);   /* none below the first kept sample */
	assert_int_equal(n[1], 101); /* every kept one */
	assert_int_equal(tm_store_each_scraped_series(f->st, run, see_series, &g), 0);
	assert_int_equal(g.n, 2); /* the names stay */
	memset(&g, 0, sizeof(g));
	assert_int_equal(tm_store_each_scraped_value(f->st, other, 0, 0, -1, see_value, &g), 0);
	assert_int_equal(g.n, 1); /* another run's below the cut stay */
	/* the figures: over the kept stretch, the all-pruned series n/a */
	assert_int_equal(tm_scraped_summarize(f->st, run, &figs), 0);
	assert_int_equal(figs.kept_from_seq, 499);
	assert_int_equal(figs.n, 2);
	assert_int_equal(figs.f[0].values, 101);
	assert_eq(figs.f[0].first, 499);
	assert_eq(figs.f[0].min, 499);
	assert_eq(figs.f[0].max, 599);
	assert_int_equal(figs.f[1].values, 0);
	assert_true(isnan(figs.f[1].last) && isnan(figs.f[1].max));
	tm_scraped_release(&figs);
	store_fixture_close(f);
}

static void test_old_store(void **state)
{
	struct store_fixture *f = store_fixture_open("scraped-old");
	struct tm_store *ro;
	struct got g = {0};
	sqlite3 *db;
	int64_t run = store_fixture_run(f->st);

	(void)state;
	assert_int_equal(tm_store_commit(f->st), 0);
	tm_store_close(f->st);
	f->st = NULL;
	/* as a tidemark from before --scrape left it */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE scrape_values; DROP TABLE scrape_series",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(tm_store_open_readonly(f->path, &ro), 0);
	assert_int_equal(tm_store_each_scraped_series(ro, run, see_series, &g), 0);
	assert_int_equal(tm_store_each_scraped_value(ro, run, 0, 0, -1, see_value, &g), 0);
	assert_int_equal(g.n, 0);
	tm_store_close(ro);
	/* opened for writing, it gets the tables */
	assert_int_equal(tm_store_open(f->path, &f->st), 0);
	int64_t id;
	assert_int_equal(tm_store_scraped_series(f->st, run, "x", "gauge", "h", &id), 0);
	store_fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_series_and_values),
	    cmocka_unit_test(test_prune_drops_values),
	    cmocka_unit_test(test_old_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
