/* The cgroup parsers: v1 and hybrid files captured on a real host, v2 files
 * written by hand in the documented format (tests/fixtures/cgroup-*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kern/cgroup_v1.h"
#include "kern/cgroup_v2.h"
#include "kern/psi.h"
#include "kern_fixture.h"

typedef int (*value_fn)(const char *, size_t, int64_t *);
typedef int (*sample_fn)(const char *, size_t, struct tm_sample *);

static int64_t value(value_fn fn, const char *rel)
{
	size_t len;
	char *buf = fixture(rel, &len);
	int64_t v = -12345;
	int rc = fn(buf, len, &v);
	free(buf);
	assert_int_equal(rc, 0);
	return v;
}

static int value_rc(value_fn fn, const char *rel)
{
	size_t len;
	char *buf = fixture(rel, &len);
	int64_t v;
	int rc = fn(buf, len, &v);
	free(buf);
	return rc;
}

static int parse_into(sample_fn fn, const char *rel, struct tm_sample *s)
{
	size_t len;
	char *buf = fixture(rel, &len);
	int rc = fn(buf, len, s);
	free(buf);
	return rc;
}

static void test_v2_values(void **state)
{
	(void)state;
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/limited/memory.current"), 71303168);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/limited/memory.peak"), 104857600);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/limited/memory.max"), 134217728);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/limited/memory.high"), 100663296);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/limited/memory.swap.max"), 0);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/unlimited/memory.max"),
	                 TM_CG_UNLIMITED);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/unlimited/memory.high"), -1);
	assert_int_equal(value(tm_parse_cg2_value, "cgroup-v2/unlimited/memory.swap.max"), -1);
	assert_int_equal(value_rc(tm_parse_cg2_value, "cgroup-v2/malformed/memory.current"), -1);
	assert_int_equal(value_rc(tm_parse_cg2_value, "cgroup-v2/malformed/memory.max"), -1);
	int64_t v;
	assert_int_equal(tm_parse_cg2_value("", 0, &v), -1);
	assert_int_equal(tm_parse_cg2_value("\n", 1, &v), -1);
	assert_int_equal(tm_parse_cg2_value("12\n\n", 4, &v), -1);
	assert_int_equal(tm_parse_cg2_value("ma", 2, &v), -1);
}

static void test_v2_memory_stat(void **state)
{
	(void)state;
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_memory_stat, "cgroup-v2/limited/memory.stat", &s),
	                 0);
	assert_int_equal(s.v[TM_M_CG_ANON_BYTES], 62914560);
	assert_int_equal(s.v[TM_M_CG_FILE_BYTES], 6291456);
	assert_int_equal(s.v[TM_M_CG_ACTIVE_FILE_BYTES], 1048576);
	assert_int_equal(s.v[TM_M_CG_INACTIVE_FILE_BYTES], 5242880);
	assert_int_equal(s.v[TM_M_CG_KERNEL_BYTES], 1835008);
	assert_int_equal(s.v[TM_M_CG_KERNEL_STACK_BYTES], 147456);
	assert_int_equal(s.v[TM_M_CG_SLAB_BYTES], 1368064);
	assert_int_equal(s.v[TM_M_CG_SOCK_BYTES], 12288);
	assert_int_equal(s.v[TM_M_CG_SHMEM_BYTES], 4096);
	assert_int_equal(s.v[TM_M_CG_FILE_MAPPED_BYTES], 2097152);
	assert_int_equal(s.v[TM_M_CG_FILE_DIRTY_BYTES], 40960);
	assert_int_equal(s.v[TM_M_CG_FILE_WRITEBACK_BYTES], 8192);
	assert_int_equal(s.v[TM_M_CG_ANON_THP_BYTES], 4194304);
	assert_int_equal(s.v[TM_M_CG_PGFAULT], 98765);
	assert_int_equal(s.v[TM_M_CG_PGMAJFAULT], 12);
	assert_int_equal(s.v[TM_M_CG_WORKINGSET_REFAULT_FILE], 173);
	/* the last line read, past pgmajfault */
	assert_int_equal(s.v[TM_M_CG_THP_COLLAPSE_ALLOC], 3);

	/* A short memory.stat: what it lacks stays absent. */
	tm_sample_clear(&s);
	assert_int_equal(
	    parse_into(tm_parse_cg2_memory_stat, "cgroup-v2/unlimited/memory.stat", &s), 0);
	assert_int_equal(s.v[TM_M_CG_ANON_BYTES], 1048576);
	assert_false(tm_sample_has(&s, TM_M_CG_KERNEL_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_SLAB_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_WORKINGSET_REFAULT_FILE));
	assert_false(tm_sample_has(&s, TM_M_CG_THP_COLLAPSE_ALLOC));

	tm_sample_clear(&s);
	assert_int_equal(
	    parse_into(tm_parse_cg2_memory_stat, "cgroup-v2/malformed/memory.stat", &s), -1);
}

static void test_v2_events_cpu_io(void **state)
{
	(void)state;
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(
	    parse_into(tm_parse_cg2_memory_events, "cgroup-v2/limited/memory.events", &s), 0);
	assert_int_equal(s.v[TM_M_CG_EVENTS_LOW], 0);
	assert_int_equal(s.v[TM_M_CG_EVENTS_HIGH], 57);
	assert_int_equal(s.v[TM_M_CG_EVENTS_MAX], 9);
	assert_int_equal(s.v[TM_M_CG_EVENTS_OOM], 1);
	assert_int_equal(s.v[TM_M_CG_EVENTS_OOM_KILL], 1);
	assert_int_equal(
	    parse_into(tm_parse_cg2_memory_events, "cgroup-v2/malformed/memory.events", &s), -1);

	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_cpu_stat, "cgroup-v2/limited/cpu.stat", &s), 0);
	assert_int_equal(s.v[TM_M_CG_CPU_USAGE_USEC], 5123456);
	assert_int_equal(s.v[TM_M_CG_CPU_USER_USEC], 4000000);
	assert_int_equal(s.v[TM_M_CG_CPU_SYSTEM_USEC], 1123456);
	assert_int_equal(s.v[TM_M_CG_CPU_THROTTLED_USEC], 350000);
	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_cpu_stat, "cgroup-v2/unlimited/cpu.stat", &s), 0);
	assert_false(tm_sample_has(&s, TM_M_CG_CPU_THROTTLED_USEC)); /* no cpu controller */
	assert_int_equal(parse_into(tm_parse_cg2_cpu_stat, "cgroup-v2/malformed/cpu.stat", &s), -1);

	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_io_stat, "cgroup-v2/limited/io.stat", &s), 0);
	assert_int_equal(s.v[TM_M_CG_IO_READ_BYTES], 1048576 + 2097152);
	assert_int_equal(s.v[TM_M_CG_IO_WRITE_BYTES], 4096 + 8192);
	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_io_stat, "cgroup-v2/unlimited/io.stat", &s), 0);
	assert_true(tm_sample_has(&s, TM_M_CG_IO_READ_BYTES)); /* empty file: no I/O yet */
	assert_int_equal(s.v[TM_M_CG_IO_READ_BYTES], 0);
	assert_int_equal(parse_into(tm_parse_cg2_io_stat, "cgroup-v2/malformed/io.stat", &s), -1);
	assert_int_equal(tm_parse_cg2_io_stat("8:0rbytes=1\n", 12, &s), -1);
	assert_int_equal(tm_parse_cg2_io_stat("8:0 rbytes=1x\n", 14, &s), -1);
}

static void test_psi_files(void **state)
{
	(void)state;
	size_t len;
	char *buf = fixture("cgroup-v2/limited/memory.pressure", &len);
	struct tm_psi p;

	assert_int_equal(tm_parse_psi(buf, len, &p), 0);
	assert_int_equal(p.some_total_usec, 1234567);
	assert_int_equal(p.full_total_usec, 765432);
	free(buf);
	buf = fixture("hybrid/limited/cpu.pressure", &len);
	assert_int_equal(tm_parse_psi(buf, len, &p), 0);
	assert_int_equal(p.some_total_usec, 2297);
	assert_int_equal(p.full_total_usec, 2297);
	free(buf);
	buf = fixture("cgroup-v2/malformed/memory.pressure", &len);
	assert_int_equal(tm_parse_psi(buf, len, &p), -1);
	free(buf);
}

static void test_hybrid_cpu_stat(void **state)
{
	(void)state;
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg2_cpu_stat, "hybrid/limited/cpu.stat", &s), 0);
	assert_int_equal(s.v[TM_M_CG_CPU_USAGE_USEC], 28622);
	assert_int_equal(s.v[TM_M_CG_CPU_USER_USEC], 12266);
	assert_int_equal(s.v[TM_M_CG_CPU_SYSTEM_USEC], 16355);
	assert_false(tm_sample_has(&s, TM_M_CG_CPU_THROTTLED_USEC));
}

static void test_v1_values(void **state)
{
	(void)state;
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.usage_in_bytes"),
	                 24100864);
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.max_usage_in_bytes"),
	                 26206208);
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.limit_in_bytes"),
	                 64 << 20);
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.soft_limit_in_bytes"),
	                 32 << 20);
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.memsw.limit_in_bytes"),
	                 96 << 20);
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/limited/memory.failcnt"), 0);
	/* 9223372036854771712: PAGE_COUNTER_MAX pages, i.e. no limit. */
	assert_int_equal(value(tm_parse_cg1_value, "cgroup-v1/unlimited/memory.limit_in_bytes"),
	                 TM_CG_UNLIMITED);
	assert_int_equal(
	    value(tm_parse_cg1_value, "cgroup-v1/unlimited/memory.soft_limit_in_bytes"),
	    TM_CG_UNLIMITED);
	assert_int_equal(
	    value(tm_parse_cg1_value, "cgroup-v1/unlimited/memory.memsw.limit_in_bytes"),
	    TM_CG_UNLIMITED);
	int64_t v;
	assert_int_equal(tm_parse_cg1_value("max\n", 4, &v), -1);
	assert_int_equal(tm_parse_cg1_value("", 0, &v), -1);
	assert_int_equal(tm_parse_cg1_value("4611686018427387904", 19, &v), 0); /* 2^62 */
	assert_int_equal(v, -1);
	assert_int_equal(tm_parse_cg1_value("4611686018427387903", 19, &v), 0);
	assert_int_equal(v, 4611686018427387903LL);
}

static void test_v1_memory_stat(void **state)
{
	(void)state;
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(parse_into(tm_parse_cg1_memory_stat, "cgroup-v1/limited/memory.stat", &s),
	                 0);
	assert_int_equal(s.v[TM_M_CG_ANON_BYTES], 23810048); /* total_rss, not rss */
	assert_int_equal(s.v[TM_M_CG_FILE_BYTES], 0);
	assert_int_equal(s.v[TM_M_CG_ANON_THP_BYTES], 0);
	assert_int_equal(s.v[TM_M_CG_PGFAULT], 6450);
	assert_int_equal(s.v[TM_M_CG_PGMAJFAULT], 0);
	assert_true(tm_sample_has(&s, TM_M_CG_WORKINGSET_REFAULT_FILE));
	assert_true(tm_sample_has(&s, TM_M_CG_FILE_DIRTY_BYTES));
	/* v1 has no such fields: absent, not 0. */
	assert_false(tm_sample_has(&s, TM_M_CG_KERNEL_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_SLAB_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_SOCK_BYTES));
	assert_int_equal(tm_parse_cg1_memory_stat("cache 5\nrss 6\n", 14, &s), -1);
	assert_int_equal(tm_parse_cg1_memory_stat("total_rss 5x\n", 13, &s), -1);
}

static void test_v1_oom_cpuacct(void **state)
{
	(void)state;
	size_t len;
	char *buf = fixture("cgroup-v1/limited/memory.oom_control", &len);
	struct tm_cg1_oom oom;
	struct tm_sample s;
	int64_t usec;

	assert_int_equal(tm_parse_cg1_oom_control(buf, len, &oom), 0);
	assert_true(oom.has_oom_kill);
	assert_int_equal(oom.oom_kill, 0);
	assert_false(oom.under_oom);
	free(buf);
	/* Before 4.13 there is no oom_kill line: absent, not 0. */
	assert_int_equal(tm_parse_cg1_oom_control("oom_kill_disable 0\nunder_oom 1\n", 31, &oom),
	                 0);
	assert_false(oom.has_oom_kill);
	assert_true(oom.under_oom);
	assert_int_equal(tm_parse_cg1_oom_control("oom_kill 3\n", 11, &oom), 0);
	assert_int_equal(oom.oom_kill, 3);
	assert_int_equal(tm_parse_cg1_oom_control("oom_kill_disable 0\n", 19, &oom), -1);

	buf = fixture("cgroup-v1/limited/cpuacct.usage", &len);
	assert_int_equal(tm_parse_cpuacct_usage(buf, len, &usec), 0);
	assert_int_equal(usec, 28622); /* 28622036 ns */
	free(buf);
	buf = fixture("cgroup-v1/limited/cpuacct.stat", &len);
	tm_sample_clear(&s);
	assert_int_equal(tm_parse_cpuacct_stat(buf, len, 100, &s), 0);
	assert_int_equal(s.v[TM_M_CG_CPU_USER_USEC], 10000);
	assert_int_equal(s.v[TM_M_CG_CPU_SYSTEM_USEC], 10000);
	free(buf);
	assert_int_equal(tm_parse_cpuacct_usage("12a", 3, &usec), -1);
	assert_int_equal(tm_parse_cpuacct_stat("user\n", 5, 100, &s), -1);
}

static void test_every_prefix(void **state)
{
	(void)state;
	static const char *files[] = {
	    "cgroup-v2/limited/memory.stat",        "cgroup-v2/limited/memory.events",
	    "cgroup-v2/limited/cpu.stat",           "cgroup-v2/limited/io.stat",
	    "cgroup-v2/limited/memory.max",         "cgroup-v1/limited/memory.stat",
	    "cgroup-v1/limited/memory.oom_control", "cgroup-v1/unlimited/memory.limit_in_bytes",
	    "cgroup-v1/limited/cpuacct.stat",       "hybrid/limited/memory.pressure",
	};
	for (size_t f = 0; f < TM_ARRAY_SIZE(files); f++) {
		size_t len;
		char *full = fixture(files[f], &len);
		for (size_t n = 0; n <= len; n++) {
			char *cut = malloc(n ? n : 1);
			struct tm_sample s;
			struct tm_cg1_oom oom;
			struct tm_psi p;
			int64_t v;

			memcpy(cut, full, n);
			tm_sample_clear(&s);
			(void)tm_parse_cg2_value(cut, n, &v);
			(void)tm_parse_cg2_memory_stat(cut, n, &s);
			(void)tm_parse_cg2_memory_events(cut, n, &s);
			(void)tm_parse_cg2_cpu_stat(cut, n, &s);
			(void)tm_parse_cg2_io_stat(cut, n, &s);
			(void)tm_parse_cg1_value(cut, n, &v);
			(void)tm_parse_cg1_memory_stat(cut, n, &s);
			(void)tm_parse_cg1_oom_control(cut, n, &oom);
			(void)tm_parse_cpuacct_usage(cut, n, &v);
			(void)tm_parse_cpuacct_stat(cut, n, 100, &s);
			(void)tm_parse_psi(cut, n, &p);
			free(cut);
		}
		free(full);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v2_values),        cmocka_unit_test(test_v2_memory_stat),
	    cmocka_unit_test(test_v2_events_cpu_io), cmocka_unit_test(test_psi_files),
	    cmocka_unit_test(test_hybrid_cpu_stat),  cmocka_unit_test(test_v1_values),
	    cmocka_unit_test(test_v1_memory_stat),   cmocka_unit_test(test_v1_oom_cpuacct),
	    cmocka_unit_test(test_every_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
