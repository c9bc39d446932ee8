/* runtime/scrapesel: --scrape's option text (URL, metrics with labels,
 * commas inside braces, what is refused), and the series chosen from a
 * Go program's exposition (tests/fixtures/runtime/prom-go-app.txt): names
 * with sorted labels, a histogram's and a summary's _sum and _count, buckets
 * only when asked, NaN and Inf left out, the cap, the metrics of the list
 * that matched, Go's series into tidemark's metrics, a bad page giving
 * nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "assert_eq.h"

#include "runtime/scrapesel.h"

#include "kern_fixture.h"

static struct tm_scrape_spec spec;
static struct tm_scrape_result res;

static void test_spec(void **state)
{
	static const char *const bad[] = {
	    "",
	    "metrics",
	    "ftp://h/m",
	    "http://",
	    "http:///m",
	    "http://h m",
	    "http://h/m,",
	    "http://h/m,9a",
	    "http://h/m,a{b=c}",
	    "http://h/m,a b",
	    "http://h/m,a{b=\"c\"",
	    "http://h/m,a 1",
	    "http://h/m,#a",
	};
	char name[TM_SCRAPE_NAME_MAX];
	struct tm_err why = {0};

	(void)state;
	assert_int_equal(tm_scrape_spec_parse("https://h:9/metrics", &spec, &why), 0);
	assert_string_equal(spec.url, "https://h:9/metrics");
	assert_int_equal(spec.nwant, 0);
	assert_int_equal(
	    tm_scrape_spec_parse("http://h/m,a,b{z=\"1,2\",y=\"q\\\"\"},c", &spec, &why), 0);
	assert_string_equal(spec.url, "http://h/m");
	assert_int_equal(spec.nwant, 3);
	assert_string_equal(spec.want[1].name, "b");
	assert_int_equal(spec.want[1].nlabels, 2);
	assert_string_equal(spec.want[1].lvalue[0], "1,2");
	assert_string_equal(spec.want[1].lvalue[1], "q\"");
	assert_int_equal(tm_scrape_want_name(&spec.want[1], name, sizeof(name)), 0);
	assert_string_equal(name, "b{y=\"q\\\"\",z=\"1,2\"}");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why.msg[0] = 0;
		assert_int_equal(tm_scrape_spec_parse(bad[i], &spec, &why), -1);
		assert_true(why.msg[0] != 0);
	}
}

static const struct tm_scrape_value *find(const char *name)
{
	for (size_t i = 0; i < res.n; i++)
		if (!strcmp(res.v[i].name, name))
			return &res.v[i];
	return NULL;
}

static void select_fixture(const char *opt)
{
	struct tm_err why = {0};
	size_t len;
	char *text = fixture("runtime/prom-go-app.txt", &len);

	assert_int_equal(tm_scrape_spec_parse(opt, &spec, &why), 0);
	assert_int_equal(tm_scrape_select(&spec, text, len, &res, &why), 0);
	free(text);
}

static void test_select_listed(void **state)
{
	const struct tm_scrape_value *v;

	(void)state;
	select_fixture("http://h/m,go_gc_duration_seconds,http_request_duration_seconds,"
	               "http_requests_total{code=\"200\"},cache_bytes,app_ratio,not_served");
	/* the summary: its quantiles (samples of that name), _sum and _count */
	assert_non_null(v = find("go_gc_duration_seconds{quantile=\"0.5\"}"));
	assert_eq(v->type, TM_PROM_SUMMARY);
	assert_non_null(v = find("go_gc_duration_seconds_count"));
	assert_eq(v->value, 12);
	assert_eq(v->type, TM_PROM_SUMMARY);
	/* the histogram: _sum and _count, no buckets */
	assert_non_null(v = find("http_request_duration_seconds_count{handler=\"/metrics\"}"));
	assert_eq(v->value, 121);
	assert_eq(v->type, TM_PROM_HISTOGRAM);
	assert_non_null(find("http_request_duration_seconds_sum{handler=\"/metrics\"}"));
	assert_null(find("http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"0.1\"}"));
	/* a label matcher; labels sorted in the name */
	assert_non_null(v = find("http_requests_total{code=\"200\",method=\"get\"}"));
	assert_eq(v->value, 1027);
	assert_eq(v->type, TM_PROM_COUNTER);
	assert_null(find("http_requests_total{code=\"500\",method=\"get\"}"));
	/* values escaped again as the format does */
	assert_non_null(v = find("cache_bytes{tier=\"hot \\\"L1\\\"\"}"));
	assert_eq(v->value, 4096);
	assert_non_null(find("cache_bytes{tier=\"cold, slow\"}"));
	assert_null(find("app_ratio")); /* NaN: absent */
	assert_null(find("go_goroutines"));
	assert_int_equal(res.n, 3 + 2 + 2 + 1 + 2);
	/* every metric of the list with a value matched: not app_ratio (NaN)
	 * nor not_served */
	assert_int_equal(res.matched, 0xf);
	/* Go's series fill tidemark's metrics, whatever the list */
	assert_true(tm_sample_has(&res.go, TM_M_GO_HEAP_ALLOC_BYTES));
	assert_int_equal(res.go.v[TM_M_GO_HEAP_ALLOC_BYTES], 33603160);
	assert_int_equal(res.go.v[TM_M_GO_HEAP_INUSE_BYTES], 34234368);
	assert_int_equal(res.go.v[TM_M_GC_CYCLES], 12);
	assert_int_equal(res.go.v[TM_M_GC_HEAP_LIVE_BYTES], 25165824);
}

static void test_select_all_and_go(void **state)
{
	struct tm_sample s;

	(void)state;
	select_fixture("http://h/m");
	assert_null(find("http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"+Inf\"}"));
	assert_non_null(find("go_goroutines"));
	assert_null(find("app_ceiling")); /* +Inf: absent */
	assert_int_equal(res.n, 5 + 1 + 1 + 1 + 1 + 2 + 2 + 2);
	assert_int_equal(res.dropped, 0);
	/* the GC lines of --runtime go, read first, win */
	tm_sample_clear(&s);
	tm_sample_set(&s, TM_M_GC_CYCLES, 11);
	tm_scrape_go_into(&res, &s);
	assert_int_equal(s.v[TM_M_GC_CYCLES], 11);
	assert_true(tm_sample_has(&s, TM_M_GO_HEAP_ALLOC_BYTES));
	assert_true(tm_sample_has(&s, TM_M_GC_HEAP_LIVE_BYTES));
	/* buckets when asked for */
	select_fixture("http://h/m,http_request_duration_seconds_bucket");
	assert_int_equal(res.n, 2);
	assert_non_null(
	    find("http_request_duration_seconds_bucket{handler=\"/metrics\",le=\"+Inf\"}"));
}

static void test_cap_and_bad(void **state)
{
	char *page = malloc(100 * 40);
	struct tm_err why = {0};
	size_t o = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		o += (size_t)snprintf(page + o, 40, "m_%d %d\n", i, i);
	assert_int_equal(tm_scrape_spec_parse("http://h/m", &spec, &why), 0);
	assert_int_equal(tm_scrape_select(&spec, page, o, &res, &why), 0);
	assert_int_equal(res.n, TM_SCRAPE_MAX_SERIES);
	assert_int_equal(res.dropped, 100 - TM_SCRAPE_MAX_SERIES);
	/* a page with a bad line gives nothing, not the part before it */
	o += (size_t)snprintf(page + o, 40, "bad line here\n");
	assert_int_equal(tm_scrape_select(&spec, page, o, &res, &why), -1);
	assert_int_equal(res.n, 0);
	assert_false(tm_sample_has(&res.go, TM_M_GO_HEAP_ALLOC_BYTES));
	assert_non_null(strstr(why.msg, "line 101"));
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spec),
	    cmocka_unit_test(test_select_listed),
	    cmocka_unit_test(test_select_all_and_go),
	    cmocka_unit_test(test_cap_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
