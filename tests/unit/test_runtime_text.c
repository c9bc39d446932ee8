/* runtime: the Prometheus text parser (samples, labels and their escapes,
 * NaN/Inf, timestamps, comments, bad lines refused with their number, a
 * callback that stops it), and the GC log lines of Go (gctrace from a real
 * Go 1.19 program, checked against its own runtime.ReadMemStats) and GHC
 * (+RTS -S). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/util.h"
#include "runtime/gclog.h"
#include "runtime/promtext.h"

#include "kern_fixture.h"

struct got {
	int n;
	char names[16][64];
	char labels[16][96];
	double v[16];
	int64_t ts[16];
	int stop_at;
};

static int collect(void *ctx, const struct tm_prom_sample *s)
{
	struct got *g = ctx;
	if (g->n == g->stop_at)
		return 7;
	assert_true(g->n < 16);
	snprintf(g->names[g->n], 64, "%.*s", (int)s->name_len, s->name);
	snprintf(g->labels[g->n], 96, "%.*s", (int)s->labels_len, s->labels);
	g->v[g->n] = s->value;
	g->ts[g->n] = s->has_timestamp ? s->timestamp_ms : -1;
	g->n++;
	return 0;
}

static const char go_metrics[] =
    "# HELP go_memstats_heap_alloc_bytes Number of heap bytes allocated and still in use.\n"
    "# TYPE go_memstats_heap_alloc_bytes gauge\n"
    "go_memstats_heap_alloc_bytes 3.3603160e+07\n"
    "go_gc_duration_seconds{quantile=\"0.5\"} 4.1e-05\n"
    "go_gc_duration_seconds_sum 0.000213\n"
    "\n"
    "http_requests_total{method=\"post\",code=\"200\",} 1027 1395066363000\n"
    "msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\",error=\"Cannot find "
    "file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\r\n"
    "  some_nan NaN\n"
    "up_inf{a=\"b\"} +Inf\n"
    "down -Inf";

static void test_prom_parse(void **state)
{
	struct got g = {.stop_at = -1};
	char err[128], v[64];

	(void)state;
	assert_int_equal(
	    tm_prom_parse(go_metrics, strlen(go_metrics), collect, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.names[0], "go_memstats_heap_alloc_bytes");
	assert_eq(g.v[0], 33603160.0);
	assert_string_equal(g.labels[1], "quantile=\"0.5\"");
	assert_string_equal(g.names[3], "http_requests_total");
	assert_eq(g.v[3], 1027);
	assert_eq(g.ts[3], 1395066363000LL);
	assert_int_equal(tm_prom_label(g.labels[3], strlen(g.labels[3]), "code", v, sizeof(v)), 0);
	assert_string_equal(v, "200");
	assert_int_equal(tm_prom_label(g.labels[4], strlen(g.labels[4]), "path", v, sizeof(v)), 0);
	assert_string_equal(v, "C:\\DIR\\FILE.TXT");
	assert_int_equal(tm_prom_label(g.labels[4], strlen(g.labels[4]), "error", v, sizeof(v)), 0);
	assert_string_equal(v, "Cannot find file:\n\"FILE.TXT\"");
	assert_int_equal(tm_prom_label(g.labels[4], strlen(g.labels[4]), "nope", v, sizeof(v)), -1);
	assert_int_equal(tm_prom_label(g.labels[4], strlen(g.labels[4]), "path", v, 4), -1);
	assert_true(isnan(g.v[5]));
	assert_true(isinf(g.v[6]) && g.v[6] > 0);
	assert_true(isinf(g.v[7]) && g.v[7] < 0);
	/* the callback stops it */
	g = (struct got){.stop_at = 2};
	assert_int_equal(
	    tm_prom_parse(go_metrics, strlen(go_metrics), collect, &g, err, sizeof(err)), 7);
	assert_int_equal(g.n, 2);
}

static void test_prom_bad(void **state)
{
	static const char *const bad[] = {
	    "x 1\n2bad 3\n",  "x 1\nno_value\n",   "x 1\nx{a=\"b\" 1\n",   "x 1\nx{a=b} 1\n",
	    "x 1\nx 1 2 3\n", "x 1\nx nanx\n",     "x 1\nx 0x10\n",        "x 1\nx{a=\"\\",
	    "x 1\nx 1 1.5\n", "x 1\nx infinity\n", "x 1\nx{:a=\"b\"} 1\n",
	};
	char err[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct got g = {.stop_at = -1};
		assert_int_equal(
		    tm_prom_parse(bad[i], strlen(bad[i]), collect, &g, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "line 2"));
		assert_int_equal(g.n, 1); /* the good line before it was delivered */
	}
}

static void test_go_gctrace(void **state)
{
	size_t len;
	char *text = fixture("runtime/go1.19-gctrace-hold32.txt", &len);
	struct tm_gc_event e, last = {0};
	int n = 0;

	(void)state;
	for (char *p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		if (tm_gclog_go(p, l, &e) == 0) {
			n++;
			assert_int_equal(e.gc_number, n);
			last = e;
		}
		p += l + 1;
	}
	free(text);
	assert_int_equal(n, 5); /* the program's ReadMemStats said num_gc 5 */
	assert_true(last.forced);
	/* ReadMemStats right after runtime.GC(): HeapAlloc 33603160 */
	assert_true(33603160 >= last.live_bytes &&
	            33603160 < last.live_bytes + last.live_resolution);
	assert_int_equal(last.goal_bytes, 59LL << 20);
	assert_int_equal(tm_gclog_go("hello", 5, &e), 1);
	assert_int_equal(tm_gclog_go("gc 1 @0.1s 2%: x", 16, &e), 1);
	const char *cut = "gc 5 @0.013s 1%: 0.037+0.093+0 ms clock, 0.074 ms cpu, 32->32->";
	assert_int_equal(tm_gclog_go(cut, strlen(cut), &e), 1);
}

static void test_ghc(void **state)
{
	const char *l = "   1069088     29368     47096  0.000  0.000    0.002    0.002    0    0  "
	                "(Gen:  1)";
	struct tm_gc_event e;

	(void)state;
	assert_int_equal(tm_gclog_ghc(l, strlen(l), &e), 0);
	assert_int_equal(e.live_bytes, 47096);
	assert_int_equal(e.generation, 1);
	assert_int_equal(e.live_resolution, 1);
	const char *head =
	    "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts";
	assert_int_equal(tm_gclog_ghc(head, strlen(head), &e), 1);
	assert_int_equal(tm_gclog_ghc(l, strlen(l) - 1, &e), 1);
	assert_int_equal(tm_gclog_ghc("", 0, &e), 1);

	/* real +RTS -S output: the most live after a major GC equals what the
	 * program's GHC.Stats said (max_live_bytes 12856144); 28 + 8 collections, as the
	 * RTS summary at its end says */
	size_t len;
	char *text = fixture("runtime/ghc9.0-S-hold200000.txt", &len);
	int64_t max_live = 0;
	int n = 0;
	for (char *p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		if (tm_gclog_ghc(p, ll, &e) == 0) {
			n++;
			if (e.generation == 1 && e.live_bytes > max_live)
				max_live = e.live_bytes;
		}
		p += ll + 1;
	}
	free(text);
	assert_int_equal(n, 36);
	assert_int_equal(max_live, 12856144);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prom_parse),
	    cmocka_unit_test(test_prom_bad),
	    cmocka_unit_test(test_go_gctrace),
	    cmocka_unit_test(test_ghc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
