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

#include "base/error.h"
#include "assert_eq.h"

#include "base/util.h"
#include "record/gcwatch.h"
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
	char v[64];
	struct tm_err err = {0};

	(void)state;
	assert_int_equal(tm_prom_parse(go_metrics, strlen(go_metrics), collect, &g, &err), 0);
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
	assert_int_equal(tm_prom_parse(go_metrics, strlen(go_metrics), collect, &g, &err), 7);
	assert_int_equal(g.n, 2);
}

static void test_prom_bad(void **state)
{
	static const char *const bad[] = {
	    "x 1\n2bad 3\n",  "x 1\nno_value\n",   "x 1\nx{a=\"b\" 1\n",   "x 1\nx{a=b} 1\n",
	    "x 1\nx 1 2 3\n", "x 1\nx nanx\n",     "x 1\nx 0x10\n",        "x 1\nx{a=\"\\",
	    "x 1\nx 1 1.5\n", "x 1\nx infinity\n", "x 1\nx{:a=\"b\"} 1\n",
	};
	struct tm_err err = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct got g = {.stop_at = -1};
		assert_int_equal(tm_prom_parse(bad[i], strlen(bad[i]), collect, &g, &err), -1);
		assert_non_null(strstr(err.msg, "line 2"));
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

/* The line the RTS prints as it exits, after its teardown GC. */
static void test_ghc_exit_line(void **state)
{
	const char *exit_line = "        0                      0.000  0.000";
	const char *gc = "    26264      3328     44376  0.001  0.003    0.050    0.368    0    0  "
	                 "(Gen:  1)";
	char file[64];

	(void)state;
	assert_int_equal(tm_gclog_ghc_exit(exit_line, strlen(exit_line)), 0);
	assert_int_equal(tm_gclog_ghc_exit("    26264                      0.000  0.000  ", 45), 0);
	assert_int_equal(tm_gclog_ghc_exit(gc, strlen(gc)), 1);
	assert_int_equal(tm_gclog_ghc_exit("0 0.000 0.000", 13), 1); /* no blank columns */
	assert_int_equal(tm_gclog_ghc_exit(exit_line, strlen(exit_line) - 1), 1);
	assert_int_equal(tm_gclog_ghc_exit("", 0), 1);

	assert_int_equal(tm_gclog_ghc_stats_file("-S/tmp/gc.log", file, sizeof(file)), 0);
	assert_string_equal(file, "/tmp/gc.log");
	assert_int_equal(tm_gclog_ghc_stats_file("-S", file, sizeof(file)), 0);
	assert_string_equal(file, "");
	assert_int_equal(tm_gclog_ghc_stats_file("-Sstderr", file, sizeof(file)), 0);
	assert_string_equal(file, "");
	assert_int_equal(tm_gclog_ghc_stats_file("-s", file, sizeof(file)), 1);
	assert_int_equal(tm_gclog_ghc_stats_file("-H64m", file, sizeof(file)), 1);
	assert_int_equal(tm_gclog_ghc_stats_file("-Sa/long/name", file, 4), -1);
}

/* A Haskell program that exits normally: the RTS's last -S line before its
 * exit line is its teardown GC (Live 44376, all threads gone), not the
 * program's live heap.  Fed through the recorder's watcher in uneven
 * pieces, the fixture's live after the last GC is the program's own
 * (GHC.Stats: 12856144), and the teardown is not counted among its GCs. */
static void test_ghc_teardown(void **state)
{
	struct tm_gcwatch w = {.rt = TM_RUNTIME_GHC};
	struct tm_sample s;
	size_t len;
	char *text = fixture("runtime/ghc9.0-S-hold200000.txt", &len);

	(void)state;
	for (size_t off = 0, step = 1; off < len; off += step, step = step * 3 % 997 + 1)
		tm_gcwatch_feed(&w, 1, text + off, off + step <= len ? step : len - off);
	tm_gcwatch_flush(&w, 1);
	free(text);
	tm_sample_clear(&s);
	tm_gcwatch_sample(&w, &s);
	assert_true(tm_sample_has(&s, TM_M_GC_HEAP_LIVE_BYTES));
	assert_int_equal(s.v[TM_M_GC_HEAP_LIVE_BYTES], 12856144);
	assert_int_equal(s.v[TM_M_GC_CYCLES], 35);
	assert_true(w.exited);

	/* before the exit line arrives, the last GC is the last GC */
	struct tm_gcwatch w2 = {.rt = TM_RUNTIME_GHC};
	const char *lines =
	    "  1031544  12798760  12856144  0.006  0.056    0.042    0.336    0    0  "
	    "(Gen:  1)\n"
	    "    26264      3328     44376  0.001  0.003    0.050    0.368    0    0  "
	    "(Gen:  1)\n";
	tm_gcwatch_feed(&w2, 1, lines, strlen(lines));
	tm_sample_clear(&s);
	tm_gcwatch_sample(&w2, &s);
	assert_int_equal(s.v[TM_M_GC_HEAP_LIVE_BYTES], 44376);
	/* a teardown that was the only GC: the live heap stays unknown */
	struct tm_gcwatch w3 = {.rt = TM_RUNTIME_GHC};
	const char *only =
	    "    26264      3328     44376  0.001  0.003    0.050    0.368    0    0  "
	    "(Gen:  1)\n        0                      0.000  0.000\n\n";
	tm_gcwatch_feed(&w3, 1, only, strlen(only));
	tm_sample_clear(&s);
	tm_gcwatch_sample(&w3, &s);
	assert_false(tm_sample_has(&s, TM_M_GC_HEAP_LIVE_BYTES));
}

/* Where the program's own options send -S: GHCRTS's words, then the
 * command line's +RTS ... -RTS words, the last one winning. */
static void test_ghc_target(void **state)
{
	char f[256];
	char *env_file[] = {"HOME=/x", "GHCRTS=-H64m -S/var/log/gc.log", NULL};
	char *env_none[] = {"GHCRTS=-H64m", NULL};
	char *argv_file[] = {"prog", "-S/not/rts", "+RTS", "-N2", "-Sgc.txt", "-RTS", "-Sx", NULL};
	char *argv_stderr[] = {"prog", "+RTS", "-S", NULL};
	char *argv_plain[] = {"prog", "a", "--RTS", "+RTS", "-Sno", NULL};

	(void)state;
	assert_int_equal(tm_gcwatch_ghc_target(env_file, argv_plain, f, sizeof(f)), 0);
	assert_string_equal(f, "/var/log/gc.log");
	assert_int_equal(tm_gcwatch_ghc_target(env_none, argv_plain, f, sizeof(f)), 1);
	assert_int_equal(tm_gcwatch_ghc_target(env_file, argv_file, f, sizeof(f)), 0);
	assert_string_equal(f, "gc.txt");
	assert_int_equal(tm_gcwatch_ghc_target(env_file, argv_stderr, f, sizeof(f)), 0);
	assert_string_equal(f, "");
	assert_int_equal(tm_gcwatch_ghc_target(env_none, argv_file, f, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prom_parse),    cmocka_unit_test(test_prom_bad),
	    cmocka_unit_test(test_go_gctrace),    cmocka_unit_test(test_ghc),
	    cmocka_unit_test(test_ghc_exit_line), cmocka_unit_test(test_ghc_teardown),
	    cmocka_unit_test(test_ghc_target),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
