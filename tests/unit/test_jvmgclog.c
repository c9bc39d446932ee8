/* runtime/jvmgclog: HotSpot's unified GC log lines (-Xlog:gc*), captured
 * from JDK 17's G1, Parallel and Serial collectors on a program retaining
 * 32 MiB whose own MemoryPoolMXBean said the old gen held 34016680 bytes
 * after its last GC (Parallel and Serial); which -Xlog options send gc
 * where; and the recorder's watcher fed a log in uneven pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/jvmlog.h"
#include "runtime/jvmgclog.h"

#include "kern_fixture.h"

struct last {
	int pauses, olds;
	struct tm_jgc_line pause, old;
};

static struct last scan(const char *rel)
{
	size_t len;
	char *text = fixture(rel, &len);
	struct last l = {0};
	struct tm_jgc_line g;

	for (char *p = text; p < text + len;) {
		char *nl = memchr(p, '\n', (size_t)(text + len - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
		if (tm_jvmgclog_line(p, ll, &g) == 0) {
			if (g.kind == TM_JGC_PAUSE) {
				l.pauses++;
				l.pause = g;
			} else {
				l.olds++;
				l.old = g;
			}
		}
		p += ll + 1;
	}
	free(text);
	return l;
}

static void test_lines(void **state)
{
	struct tm_jgc_line g;
	const char *young =
	    "[0.877s][info][gc          ] GC(1) Pause Young (Normal) (G1 Evacuation "
	    "Pause) 14M->2M(256M) 17.263ms";

	(void)state;
	assert_int_equal(tm_jvmgclog_line(young, strlen(young), &g), 0);
	assert_int_equal(g.kind, TM_JGC_PAUSE);
	assert_int_equal(g.gc_id, 1);
	assert_int_equal(g.before_bytes, 14 << 20);
	assert_int_equal(g.after_bytes, 2 << 20);
	assert_int_equal(g.capacity_bytes, 256 << 20);
	assert_int_equal(g.resolution_bytes, 1 << 20);
	const char *bare = "GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.1ms";
	assert_int_equal(tm_jvmgclog_line(bare, strlen(bare), &g), 0);
	assert_int_equal(g.after_bytes, 3 << 20);
	const char *start = "[2.783s][info][gc,start    ] GC(7) Pause Young (Allocation Failure)";
	assert_int_equal(tm_jvmgclog_line(start, strlen(start), &g), 1);
	const char *regions = "[4.690s][info][gc,heap     ] GC(8) Old regions: 22->28";
	assert_int_equal(tm_jvmgclog_line(regions, strlen(regions), &g), 1);
	const char *exit_old =
	    "[4.855s][info][gc,heap,exit   ]  ParOldGen       total 175104K, used "
	    "33219K [0x00000000f0000000, 0x00000000fab00000)";
	assert_int_equal(tm_jvmgclog_line(exit_old, strlen(exit_old), &g), 1);
	const char *tenured = "[3.415s][info][gc,heap        ] GC(8) Tenured: "
	                      "25026K(174784K)->33219K(174784K)";
	assert_int_equal(tm_jvmgclog_line(tenured, strlen(tenured), &g), 0);
	assert_int_equal(g.kind, TM_JGC_OLD);
	assert_int_equal(g.after_bytes, 33219 << 10);
	assert_int_equal(tm_jvmgclog_line(tenured, strlen(tenured) - 1, &g), 1); /* cut */
	assert_int_equal(tm_jvmgclog_line("", 0, &g), 1);
	assert_int_equal(tm_jvmgclog_line("[[[[", 4, &g), 1);
}

/* The captured logs: every pause, the last one's heap, the old gen after
 * the last GC equal to the JVM's own MXBean to the KiB (HotSpot prints
 * whole KiB, truncated); G1's regions are not taken. */
static void test_fixtures(void **state)
{
	(void)state;
	struct last s = scan("jvmgclog/jdk17-serial-retain32.log");
	assert_int_equal(s.pauses, 9);
	assert_int_equal(s.pause.gc_id, 8);
	assert_int_equal(s.pause.before_bytes, 33 << 20);
	assert_int_equal(s.pause.after_bytes, 32 << 20);
	assert_int_equal(s.old.gc_id, 8);
	assert_true(s.old.after_bytes <= 34016680 && 34016680 < s.old.after_bytes + 1024);

	struct last p = scan("jvmgclog/jdk17-parallel-retain32.log");
	assert_int_equal(p.pauses, 11);
	assert_int_equal(p.pause.gc_id, 10);
	assert_int_equal(p.old.gc_id, 10);
	assert_true(p.old.after_bytes <= 34016680 && 34016680 < p.old.after_bytes + 1024);

	struct last g = scan("jvmgclog/jdk17-g1-retain32.log");
	assert_int_equal(g.pauses, 10);
	assert_int_equal(g.pause.after_bytes, 33 << 20);
	assert_int_equal(g.pause.capacity_bytes, 150 << 20);
	assert_int_equal(g.olds, 0);
}

static void test_output(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc", path, sizeof(path)), 1);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc*", path, sizeof(path)), 1);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc*::uptime", path, sizeof(path)), 1);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc:stdout", path, sizeof(path)), 1);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc+heap=info:stderr", path, sizeof(path)), 2);
	assert_int_equal(tm_jvmgclog_output("-Xlog:safepoint,gc*=debug:file=/tmp/g.log:time", path,
	                                    sizeof(path)),
	                 3);
	assert_string_equal(path, "/tmp/g.log");
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc:gc.txt", path, sizeof(path)), 3);
	assert_string_equal(path, "gc.txt");
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc:file=gc-%p.log", path, sizeof(path)), 0);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc=warning", path, sizeof(path)), 0);
	assert_int_equal(tm_jvmgclog_output("-Xlog:safepoint", path, sizeof(path)), 0);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gcx", path, sizeof(path)), 0);
	assert_int_equal(tm_jvmgclog_output("-Xmx1g", path, sizeof(path)), 0);
	assert_int_equal(tm_jvmgclog_output("-Xlog:gc:file=a-very-long-name.log", path, 8), 0);
}

/* The recorder's watcher: the log on stderr (named in JAVA_TOOL_OPTIONS),
 * fed in uneven pieces; the old gen goes with its own pause only. */
static void test_watcher(void **state)
{
	char *envp[] = {"JAVA_TOOL_OPTIONS=-Xmx256m -Xlog:gc*:stderr", NULL};
	char *argv[] = {"java", "Main", NULL};
	struct tm_jvmlog j;
	struct tm_sample s;
	size_t len;
	char *text = fixture("jvmgclog/jdk17-parallel-retain32.log", &len);

	(void)state;
	tm_jvmlog_setup(&j, envp, argv);
	assert_int_equal(j.where, TM_JLOG_STDERR);
	tm_sample_clear(&s);
	tm_jvmlog_sample(&j, &s);
	assert_false(tm_sample_has(&s, TM_M_JVM_LOG_HEAP_AFTER_BYTES));
	for (size_t off = 0, step = 1; off < len; off += step, step = step * 7 % 613 + 1) {
		size_t n = off + step <= len ? step : len - off;
		tm_jvmlog_feed(&j, 0, text + off, n); /* stdout: not the log */
		tm_jvmlog_feed(&j, 1, text + off, n);
	}
	tm_jvmlog_flush(&j, 1);
	free(text);
	tm_jvmlog_sample(&j, &s);
	assert_int_equal(s.v[TM_M_JVM_LOG_HEAP_AFTER_BYTES], 32 << 20);
	assert_int_equal(s.v[TM_M_JVM_LOG_HEAP_BEFORE_BYTES], 32 << 20);
	assert_int_equal(s.v[TM_M_JVM_LOG_OLD_AFTER_BYTES], 33219 << 10);
	assert_int_equal(s.v[TM_M_JVM_LOG_GCS], 11);

	char *argv_sh[] = {"sh", "-c", "exec java '-Xlog:gc:file=/tmp/x.log' Main", NULL};
	tm_jvmlog_setup(&j, NULL, argv_sh);
	assert_int_equal(j.where, TM_JLOG_FILE);
	assert_string_equal(j.file.path, "/tmp/x.log");
	char *argv_none[] = {"java", "-Xmx1g", "Main", NULL};
	char *env_none[] = {NULL};
	tm_jvmlog_setup(&j, env_none, argv_none);
	assert_int_equal(j.where, TM_JLOG_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_output),
	    cmocka_unit_test(test_watcher),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
