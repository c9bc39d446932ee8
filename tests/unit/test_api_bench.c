/* The panel's lists of benches and sweeps (serve/apibench.c) and the
 * machines' latest recording (serve/api.c), on a real store: a sweep's
 * probes are grouped while limit, machine and command stay the same and no
 * arm comes back after another; a plain bench is no sweep's; a bench run is
 * not the machine's latest recording. */
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

#include "serve/api.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "store_fixture.h"

static int setup(void **state)
{
	*state = store_fixture_open("api-bench");
	return 0;
}

static int teardown(void **state)
{
	store_fixture_close(*state);
	return 0;
}

/* A bench NAME of COMMAND with one run of ARM; the run's id. */
static int64_t bench(struct tm_store *st, const char *name, const char *command, const char *arm)
{
	char spec[128];
	int64_t id = 0, run = 0;

	snprintf(spec, sizeof(spec), "{\"command\": [\"%s\"], \"arms\": []}", command);
	struct tm_bench_row row = {.name = name, .spec_json = spec, .started_wall_usec = 1000};
	assert_int_equal(tm_bench_store_begin(st, &row, &id), 0);
	assert_int_equal(tm_bench_store_end(st, id, 2000), 0);
	struct tm_run_meta m = {.machine = "pi",
	                        .target = "command",
	                        .interval_usec = 100000,
	                        .started_wall_usec = 1000,
	                        .bench_id = id,
	                        .arm = arm};
	assert_int_equal(tm_store_run_begin(st, &m, &run), 0);
	return run;
}

/* Array A's integers (or "null") joined with commas, for one comparison. */
static const char *ints(json_t *a, const char *key)
{
	static char buf[256];
	size_t i, n = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(a, i, v)
	{
		json_t *x = key ? json_object_get(v, key) : v;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "",
		                      json_is_integer(x) ? "" : "null");
		if (json_is_integer(x))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%lld",
			                      (long long)json_integer_value(x));
	}
	return buf;
}

static void test_sweeps_grouped(void **state)
{
	struct store_fixture *f = *state;
	struct tm_store *st = f->st;
	int missing = 0;

	bench(st, "sweep glibc MemoryMax=16.0 MiB", "w", "glibc");   /* 1: sweep 1 */
	bench(st, "sweep glibc MemoryMax=32.0 MiB", "w", "glibc");   /* 2 */
	bench(st, "sweep arena1 MemoryMax=16.0 MiB", "w", "arena1"); /* 3 */
	bench(st, "sweep arena1 MemoryMax=32.0 MiB", "w", "arena1"); /* 4 */
	bench(st, "quick", "w", "a");                                /* 5: no sweep's */
	bench(st, "sweep glibc MemoryMax=16.0 MiB", "w", "glibc");   /* 6: sweep 6 */
	bench(st, "sweep glibc MemoryMax=16.0 MiB", "v", "glibc");   /* 7: another command */
	bench(st, "sweep glibc MemoryHigh=16.0 MiB", "v", "glibc");  /* 8: another limit */

	json_t *b = tm_api_benches(st);
	assert_non_null(b);
	assert_string_equal(ints(b, "id"), "8,7,6,5,4,3,2,1");
	assert_string_equal(ints(b, "sweep_id"), "8,7,6,null,1,1,1,1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(b, 3), "name")),
	                    "quick");
	json_decref(b);

	json_t *s = tm_api_sweeps(st);
	assert_non_null(s);
	assert_string_equal(ints(s, "id"), "8,7,6,1");
	json_t *one = json_array_get(s, 3);
	assert_string_equal(ints(json_object_get(one, "benches"), NULL), "1,2,3,4");
	assert_int_equal(json_integer_value(json_object_get(one, "runs")), 4);
	assert_int_equal(json_array_size(json_object_get(one, "arms")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(one, "arms"), 1)),
	                    "arena1");
	assert_string_equal(json_string_value(json_object_get(one, "limit")), "MemoryMax");
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "limit")),
	                    "MemoryHigh");
	assert_null(json_object_get(one, "command")); /* internal to the grouping */
	json_decref(s);

	json_t *doc = tm_api_sweep(st, 1, &missing);
	assert_non_null(doc);
	assert_int_equal(missing, 0);
	assert_string_equal(ints(json_object_get(doc, "benches"), NULL), "1,2,3,4");
	assert_true(json_is_array(json_object_get(doc, "arms")));
	json_decref(doc);
	assert_null(tm_api_sweep(st, 5, &missing)); /* a bench, not a sweep */
	assert_int_equal(missing, 1);
}

static void test_latest_recording(void **state)
{
	struct store_fixture *f = *state;
	struct tm_store *st = f->st;
	int64_t rec = 0;
	struct tm_run_meta m = {.machine = "pi",
	                        .target = "command",
	                        .interval_usec = 100000,
	                        .started_wall_usec = 500};

	bench(st, "sweep glibc MemoryMax=16.0 MiB", "w", "glibc");
	json_t *ms = tm_api_machines(st);
	assert_true(json_is_null(json_object_get(json_array_get(ms, 0), "latest_record_run_id")));
	json_decref(ms);
	assert_int_equal(tm_store_run_begin(st, &m, &rec), 0);
	int64_t last = bench(st, "quick", "w", "a");
	ms = tm_api_machines(st);
	json_t *pi = json_array_get(ms, 0);
	assert_int_equal(json_integer_value(json_object_get(pi, "latest_run_id")), last);
	assert_int_equal(json_integer_value(json_object_get(pi, "latest_record_run_id")), rec);
	json_decref(ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sweeps_grouped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_latest_recording, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
