/* runtime/v8gclog: node's --trace-gc and --trace-gc-nvp lines, through the
 * node runtime's descriptor (runtime/registry.h), on output captured from
 * node 20 running tests/progs/node/hold.js 24 (24 MiB of arrays live across
 * forced full GCs), whose own v8.getHeapStatistics() said used_heap_size
 * 28199352 right after its last GC; and the recorder's watcher fed it in
 * uneven pieces on stdout, and nothing from stderr. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"
#include "record/gcwatch.h"
#include "runtime/registry.h"

#include "kern_fixture.h"

#define USED_HEAP_SIZE 28199352 /* the program's own figure after its last GC */

static int parse(const char *line, struct tm_gc_event *e)
{
	return tm_rt_node.gc_line(line, strlen(line), e);
}

static void test_lines(void **state)
{
	struct tm_gc_event e;
	(void)state;

	assert_eq(
	    parse("[2913:0x43697d40]     1248 ms: Mark-Compact 26.9 (60.2) -> 26.7 (60.2) MB, "
	          "25.94 / 0.00 ms  (average mu = 0.943, current mu = 0.943) testing; GC in "
	          "old space requested",
	          &e),
	    0);
	assert_eq(e.live_bytes, 27996979); /* 26.7 MiB, rounded to the byte */
	assert_eq(e.heap_before_bytes, 28206694);
	assert_eq(e.generation, 1);
	assert_eq(e.live_resolution, 104858);
	assert_eq(
	    parse("[2913:0x43697d40]      564 ms: Scavenge 14.6 (23.1) -> 14.6 (31.1) MB, 32.49 "
	          "/ 0.00 ms  (average mu = 1.000, current mu = 1.000) allocation failure; ",
	          &e),
	    0);
	assert_eq(e.live_bytes, -1); /* a minor GC gives no live heap */
	assert_eq(e.generation, 0);
	assert_eq(
	    parse("[7:0x1]  5 ms: Mark-Compact (reduce) 3.0 (4.0) -> 2.5 (4.0) MB, 1.0 / 0.0 ms",
	          &e),
	    0);
	assert_eq(e.live_bytes, 5 * 1048576 / 2);
	assert_eq(parse("[7:0x1]  5 ms: pause=1.0 mutator=2.0 gc=mc reduce_memory=0 "
	                "total_size_before=300 total_size_after=200 holes_size_before=1",
	                &e),
	          0);
	assert_eq(e.live_bytes, 200);
	assert_eq(e.heap_before_bytes, 300);
	assert_eq(e.live_resolution, 1);
	assert_eq(
	    parse("[7:0x1]  5 ms: pause=1.0 gc=mmc total_size_before=300 total_size_after=200", &e),
	    0);
	assert_eq(e.live_bytes, -1);
	/* not V8's collection lines */
	const char * not [] = {
	    "",
	    "hello",
	    "used_heap_size 28199352 held 96",
	    "[7:0x1]  5 ms: Memory reducer: started GC #1",
	    "[7:0x1]  5 ms: Mark-Compact 3.0 (4.0) -> 2.5",
	    "[7:0x1]  5 ms: Mark-Compact 3.0 (4.0) -> 2.5 (4.0) KB",
	    "[7:0x1]  5 ms: Compact 3.0 (4.0) -> 2.5 (4.0) MB",
	    "[7:0x1]  5 ms: pause=1.0 gc=mc total_size_before=300",
	    "[7:0x1]  5 ms: pause=1.0 xgc=mc total_size_before=300 total_size_after=200",
	    "7:0x1]  5 ms: Scavenge 1.0 (2.0) -> 0.5 (2.0) MB",
	    "[7:0x1]  5 s: Scavenge 1.0 (2.0) -> 0.5 (2.0) MB",
	    "[7:0x1]  5 ms: Scavenge 1234567890123456789.0 (2.0) -> 0.5 (2.0) MB",
	};
	for (size_t i = 0; i < sizeof(not ) / sizeof(not [0]); i++)
		if (parse(not [i], &e) != 1)
			fail_msg("taken as a GC line: '%s'", not [i]);
}

/* The fixture's lines through the parser: GCs, full ones, the last live. */
static void scan(const char *rel, int *gcs, int *full, int64_t *live)
{
	size_t len;
	char *text = fixture(rel, &len);
	struct tm_gc_event e;

	*gcs = *full = 0;
	*live = -1;
	for (char *p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		if (tm_rt_node.gc_line(p, ll, &e) == 0) {
			(*gcs)++;
			if (e.live_bytes >= 0) {
				(*full)++;
				*live = e.live_bytes;
			}
		}
		p += ll + 1;
	}
	free(text);
}

static void test_captured(void **state)
{
	int gcs, full;
	int64_t live;
	(void)state;

	scan("runtime/node20-trace-gc-hold24.txt", &gcs, &full, &live);
	assert_eq(gcs, 11);
	assert_eq(full, 2);
	assert_eq(live, 27996979);
	/* the program's own figure, taken after the GC and a little allocation */
	assert_true(live - 52429 <= USED_HEAP_SIZE && USED_HEAP_SIZE < live + 1048576);
	scan("runtime/node20-trace-gc-nvp-hold24.txt", &gcs, &full, &live);
	assert_eq(gcs, 11);
	assert_eq(full, 2);
	assert_eq(live, 28031880);
	assert_true(live <= USED_HEAP_SIZE && USED_HEAP_SIZE < live + 1048576);
}

/* The watcher, fed the fixture in pieces of STEP bytes on stream I. */
static struct tm_sample watched(size_t step, int i)
{
	size_t len;
	char *text = fixture("runtime/node20-trace-gc-hold24.txt", &len);
	struct tm_gcwatch w = {.rt = TM_RUNTIME_NODE};
	struct tm_sample s;

	for (size_t off = 0; off < len; off += step)
		tm_gcwatch_feed(&w, i, text + off, off + step <= len ? step : len - off);
	tm_gcwatch_flush(&w, i);
	tm_sample_clear(&s);
	tm_gcwatch_sample(&w, &s);
	tm_gcwatch_close(&w);
	free(text);
	return s;
}

static void test_watcher(void **state)
{
	(void)state;

	for (size_t step = 1; step < 400; step += 37) {
		struct tm_sample s = watched(step, 0);
		assert_true(tm_sample_has(&s, TM_M_GC_HEAP_LIVE_BYTES));
		assert_eq(s.v[TM_M_GC_HEAP_LIVE_BYTES], 27996979);
		assert_true(tm_sample_has(&s, TM_M_GC_CYCLES));
		assert_eq(s.v[TM_M_GC_CYCLES], 11);
	}
	/* V8 writes to stdout: the same text on stderr is the program's */
	struct tm_sample s = watched(4096, 1);
	assert_false(tm_sample_has(&s, TM_M_GC_HEAP_LIVE_BYTES));
	assert_false(tm_sample_has(&s, TM_M_GC_CYCLES));
}

static void test_argv(void **state)
{
	char *out[8];
	char *plain[] = {"node", "app.js", NULL};
	char *path[] = {"/usr/bin/nodejs", "--expose-gc", "app.js", NULL};
	char *nvp[] = {"node", "--trace-gc-nvp", "app.js", NULL};
	char *sh[] = {"sh", "-c", "node app.js", NULL};
	char *notnode[] = {"nodex", "app.js", NULL};
	(void)state;

	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, plain, out, 8), 0);
	assert_string_equal(out[0], "node");
	assert_string_equal(out[1], "--trace-gc");
	assert_string_equal(out[2], "app.js");
	assert_null(out[3]);
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, path, out, 8), 0);
	assert_string_equal(out[1], "--trace-gc");
	assert_string_equal(out[2], "--expose-gc");
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, path, out, 4), 1); /* does not fit */
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, nvp, out, 8), 1);
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, sh, out, 8), 1);
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NODE, notnode, out, 8), 1);
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_GO, plain, out, 8), 1);
	assert_eq(tm_gcwatch_argv(TM_RUNTIME_NONE, plain, out, 8), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_captured),
	    cmocka_unit_test(test_watcher),
	    cmocka_unit_test(test_argv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
