/* base/routes: the panel API's URLs, written once for the server, the HTML
 * report and the advice; every route parses back from the path it writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/routes.h"

/* Each route, written for an id and read back, is itself with that id, and
 * no two routes write the same path. */
static void test_every_route_round_trips(void **state)
{
	(void)state;
	char path[TM_ROUTE_COUNT][128];

	for (int r = 0; r < TM_ROUTE_COUNT; r++) {
		int64_t id = 0;

		assert_int_equal(tm_route_path(r, 4242, path[r], sizeof(path[r])), 0);
		assert_eq(tm_route_parse(path[r], &id), r);
		if (tm_route_has_id(r))
			assert_eq(id, 4242);
		for (int q = 0; q < r; q++)
			assert_string_not_equal(path[q], path[r]);
	}
}

/* The paths the server has always answered, and the ones it refuses. */
static void test_known_paths(void **state)
{
	(void)state;
	int64_t id = 0;

	assert_eq(tm_route_parse("/api/v1/runs", &id), TM_ROUTE_RUNS);
	assert_eq(tm_route_parse("/api/v1/runs/12", &id), TM_ROUTE_RUN);
	assert_eq(id, 12);
	assert_eq(tm_route_parse("/api/v1/runs/7/series", &id), TM_ROUTE_RUN_SERIES);
	assert_eq(id, 7);
	assert_eq(tm_route_parse("/api/v1/bench/3/sweep", &id), TM_ROUTE_BENCH_SWEEP);
	assert_eq(tm_route_parse("/api/v1/sweeps/9", &id), TM_ROUTE_SWEEP);
	static const char *const refused[] = {
	    "/api/v1/runs/0",
	    "/api/v1/runs/-1",
	    "/api/v1/runs/x",
	    "/api/v1/runs/12/",
	    "/api/v1/runs/12/other",
	    "/api/v1/runs/",
	    "/api/v1/runs//series",
	    "/api/v1/machines/1",
	    "/api/v1/run",
	    "/api/v1/runs/99999999999999999999999",
	    "",
	    "/",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		enum tm_route r = tm_route_parse(refused[i], &id);
		if (r != TM_ROUTE_NONE)
			print_error("\"%s\" parsed as route %d\n", refused[i], (int)r);
		assert_eq(r, TM_ROUTE_NONE);
	}
}

static void test_path_bounds(void **state)
{
	(void)state;
	char small[8];

	assert_int_equal(tm_route_path(TM_ROUTE_RUN, 1, small, sizeof(small)), -1);
	assert_int_equal(tm_route_path(TM_ROUTE_COUNT, 1, small, sizeof(small)), -1);
	assert_int_equal(tm_route_path(TM_ROUTE_NONE, 1, small, sizeof(small)), -1);
	assert_int_equal(tm_route_has_id(TM_ROUTE_MACHINES), 0);
	assert_int_equal(tm_route_has_id(TM_ROUTE_BENCH), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_route_round_trips),
	    cmocka_unit_test(test_known_paths),
	    cmocka_unit_test(test_path_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
