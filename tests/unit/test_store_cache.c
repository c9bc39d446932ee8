/* The recorder's bound on SQLite's page cache (tm_store_bound_cache): a
 * connection that has read a store of several MiB holds no more than the
 * bound, where SQLite's default lets it hold about 2 MiB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "store_fixture.h"

#define KIB 1024LL

static int count_cb(void *ctx, const struct tm_sample *s)
{
	(void)s;
	(*(int64_t *)ctx)++;
	return 0;
}

/* Fills F's store with samples, reads them all back through the same
 * connection, and returns what SQLite holds in memory then (bytes). */
static int64_t memory_after_reading(struct store_fixture *f)
{
	int64_t run = store_fixture_run(f->st), n = 0;
	sqlite3_int64 used = 0, high = 0;
	struct tm_sample s;
	enum { SAMPLES = 20000 };

	for (int64_t seq = 0; seq < SAMPLES; seq++) {
		tm_sample_clear(&s);
		s.seq = seq;
		s.t_wall_usec = 1700000000000000LL + seq * 1000;
		s.t_mono_usec = 1000000 + seq * 1000;
		for (int m = 0; m < TM_METRIC_COUNT; m++)
			tm_sample_set(&s, m,
			              (int64_t)(m + 1) * 7919 * seq); /* no deltas to squeeze */
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_sample(f->st, run, 0, SAMPLES, count_cb, &n), 0);
	assert_int_equal(n, SAMPLES);
	assert_int_equal(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &used, &high, 0), SQLITE_OK);
	return used;
}

static void test_cache_bounded(void **state)
{
	(void)state;
	struct store_fixture *f = store_fixture_open("cache-default");
	int64_t unbounded = memory_after_reading(f), bounded;

	store_fixture_close(f);
	f = store_fixture_open("cache-bounded");
	assert_int_equal(tm_store_bound_cache(f->st, 256), 0);
	bounded = memory_after_reading(f);
	store_fixture_close(f);
	print_message("SQLite's memory after reading: default cache %lld B, bounded %lld B\n",
	              (long long)unbounded, (long long)bounded);
	/* the control: the default cache did grow past 1.5 MiB on this store */
	if (unbounded < 1536 * KIB)
		fail_msg("the default cache held %lld bytes: the store is too small to tell",
		         (long long)unbounded);
	/* 256 KiB of pages, plus SQLite's schema, statements and lookaside */
	if (bounded > 768 * KIB)
		fail_msg("bounded to 256 KiB, SQLite holds %lld bytes (default: %lld)",
		         (long long)bounded, (long long)unbounded);
	assert_int_equal(tm_store_bound_cache(NULL, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cache_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
