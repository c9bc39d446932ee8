/* runtime: the hsperfdata parser over files captured from real JVMs (G1,
 * Serial, Parallel), checked against jstat -gc taken at the same moment;
 * hand-built files in both byte orders; every truncation and corruption
 * refused or tolerated without reading outside the buffer; the maps search
 * that finds a JVM's file. */
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
#include "base/util.h"
#include "runtime/hsperf.h"
#include "sample/jvm.h"

#include "kern_fixture.h"

/* jstat -gc's two lines: the column NAME's value (KiB, or a count, or s). */
static double jstat_col(const char *text, const char *name)
{
	char head[64][16];
	int n = 0, off = 0, k;
	const char *vals = strchr(text, '\n');

	while (n < 64 && sscanf(text + off, "%15s%n", head[n], &k) == 1 && text + off + k <= vals)
		off += k, n++;
	for (int i = 0; i < n; i++) {
		char v[32];
		if (strcmp(head[i], name))
			continue;
		off = 0;
		for (int j = 0; j <= i; j++) {
			assert_int_equal(sscanf(vals + off, "%31s%n", v, &k), 1);
			off += k;
		}
		return strcmp(v, "-") ? atof(v) : NAN;
	}
	fail_msg("no column %s", name);
	return NAN;
}

static void check_kib(double jstat_kib, int64_t bytes)
{
	/* jstat prints KiB to one decimal */
	assert_true(fabs(jstat_kib - (double)bytes / 1024.0) <= 0.051);
}

static void against_jstat(const char *name)
{
	char rel[128];
	size_t len, jlen;
	struct tm_err err = {0};
	struct tm_hsperf h;
	struct tm_sample s;

	snprintf(rel, sizeof(rel), "hsperf/%s.hsperf", name);
	char *buf = fixture(rel, &len);
	snprintf(rel, sizeof(rel), "hsperf/%s.jstat", name);
	char *j = fixture(rel, &jlen);
	char *jt = calloc(1, jlen + 1);
	memcpy(jt, j, jlen);

	assert_int_equal(tm_hsperf_parse(buf, len, &h, &err), 0);
	assert_true(h.accessible);
	assert_int_equal(h.major, 2);
	assert_true(h.entries > 100);
	check_kib(jstat_col(jt, "EC"), h.v[TM_HS_EDEN_CAP]);
	check_kib(jstat_col(jt, "EU"), h.v[TM_HS_EDEN_USED]);
	check_kib(jstat_col(jt, "S0C"), h.v[TM_HS_S0_CAP]);
	check_kib(jstat_col(jt, "S1C"), h.v[TM_HS_S1_CAP]);
	check_kib(jstat_col(jt, "OC"), h.v[TM_HS_OLD_CAP]);
	check_kib(jstat_col(jt, "OU"), h.v[TM_HS_OLD_USED]);
	check_kib(jstat_col(jt, "MC"), h.v[TM_HS_META_CAP]);
	check_kib(jstat_col(jt, "MU"), h.v[TM_HS_META_USED]);
	assert_int_equal((int64_t)jstat_col(jt, "YGC"), h.v[TM_HS_YOUNG_GCS]);
	assert_int_equal((int64_t)jstat_col(jt, "FGC"), h.v[TM_HS_FULL_GCS]);

	tm_sample_clear(&s);
	tm_hsperf_to_sample(&h, &s);
	assert_int_equal(s.v[TM_M_JVM_PROCS], 1);
	double used_kib =
	    jstat_col(jt, "EU") + jstat_col(jt, "S0U") + jstat_col(jt, "S1U") + jstat_col(jt, "OU");
	assert_true(fabs(used_kib - (double)s.v[TM_M_JVM_HEAP_USED_BYTES] / 1024.0) < 0.2);
	double cap_kib =
	    jstat_col(jt, "EC") + jstat_col(jt, "S0C") + jstat_col(jt, "S1C") + jstat_col(jt, "OC");
	assert_true(fabs(cap_kib - (double)s.v[TM_M_JVM_HEAP_COMMITTED_BYTES] / 1024.0) < 0.2);
	check_kib(jstat_col(jt, "OU"), s.v[TM_M_JVM_OLD_USED_BYTES]);
	/* GC times: jstat prints seconds to 3 decimals */
	assert_true(fabs(jstat_col(jt, "FGCT") - (double)s.v[TM_M_JVM_FULL_GC_USEC] / 1e6) <=
	            0.0006);
	assert_true(fabs(jstat_col(jt, "YGCT") - (double)s.v[TM_M_JVM_YOUNG_GC_USEC] / 1e6) <=
	            0.0006);
	/* a second JVM sums */
	tm_hsperf_to_sample(&h, &s);
	assert_int_equal(s.v[TM_M_JVM_PROCS], 2);
	assert_int_equal(s.v[TM_M_JVM_OLD_USED_BYTES], 2 * h.v[TM_HS_OLD_USED]);
	free(jt);
	free(j);
	free(buf);
}

static void test_g1(void **state)
{
	(void)state;
	against_jstat("g1-hold64");
}

static void test_serial(void **state)
{
	(void)state;
	against_jstat("serial-hold32");
}

static void test_parallel(void **state)
{
	(void)state;
	against_jstat("parallel-hold32");
}

/* Every prefix shorter than the used size is refused; none is read past. */
static void test_truncated(void **state)
{
	size_t len;
	struct tm_err err = {0};
	struct tm_hsperf h;
	(void)state;
	char *buf = fixture("hsperf/g1-hold64.hsperf", &len);
	uint32_t used = (uint32_t)(uint8_t)buf[8] | (uint32_t)(uint8_t)buf[9] << 8 |
	                (uint32_t)(uint8_t)buf[10] << 16 | (uint32_t)(uint8_t)buf[11] << 24;

	for (size_t n = 0; n < used; n += (n < 64 ? 1 : 97)) {
		char *cut = malloc(n ? n : 1);
		memcpy(cut, buf, n);
		assert_int_equal(tm_hsperf_parse(cut, n, &h, &err), -1);
		assert_non_null(strstr(err.msg, "hsperfdata"));
		free(cut);
	}
	free(buf);
}

/* Flipping any byte never crashes; a bad magic or byte order is refused. */
static void test_corrupt(void **state)
{
	size_t len;
	struct tm_err err = {0};
	struct tm_hsperf h;
	(void)state;
	char *buf = fixture("hsperf/g1-hold64.hsperf", &len);

	for (size_t i = 0; i < 13000 && i < len; i += 3) {
		char keep = buf[i];
		buf[i] = (char)(keep ^ 0xa5);
		(void)tm_hsperf_parse(buf, len, &h, &err);
		buf[i] = keep;
	}
	buf[1] = 0;
	assert_int_equal(tm_hsperf_parse(buf, len, &h, &err), -1);
	assert_non_null(strstr(err.msg, "magic"));
	buf[1] = (char)0xfe;
	buf[4] = 7;
	assert_int_equal(tm_hsperf_parse(buf, len, &h, &err), -1);
	assert_non_null(strstr(err.msg, "byte order"));
	free(buf);
}

/* A file built by hand: BIG byte order, the longs given. */
struct hs_file {
	uint8_t b[1024];
	size_t n;
	bool big;
};

static void put32(struct hs_file *f, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		f->b[off + (size_t)i] = (uint8_t)(f->big ? v >> (24 - 8 * i) : v >> (8 * i));
}

static void add_long(struct hs_file *f, const char *name, int64_t v)
{
	size_t off = f->n, nl = strlen(name) + 1, name_off = 20, data_off = (20 + nl + 7) & ~7u;
	uint32_t len = (uint32_t)(data_off + 8);

	memset(f->b + off, 0, len);
	put32(f, off, len);
	put32(f, off + 4, (uint32_t)name_off);
	f->b[off + 12] = 'J';
	put32(f, off + 16, (uint32_t)data_off);
	memcpy(f->b + off + name_off, name, nl);
	put32(f, off + data_off + (f->big ? 0 : 4), (uint32_t)((uint64_t)v >> 32));
	put32(f, off + data_off + (f->big ? 4 : 0), (uint32_t)v);
	f->n += len;
	put32(f, 8, (uint32_t)f->n);
}

static void start(struct hs_file *f, bool big)
{
	memset(f, 0, sizeof(*f));
	f->big = big;
	f->b[0] = 0xca, f->b[1] = 0xfe, f->b[2] = 0xc0, f->b[3] = 0xc0;
	f->b[4] = big ? 0 : 1;
	f->b[5] = 2, f->b[7] = 1;
	f->n = 32;
	put32(f, 24, 32);
}

static void test_built(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		struct hs_file f;
		struct tm_hsperf h;
		struct tm_sample s;
		struct tm_err err = {0};
		int64_t v;

		start(&f, big);
		add_long(&f, "sun.gc.generation.1.space.0.used", 5000000000LL);
		add_long(&f, "sun.gc.collector.1.time", 3 * 1000000000LL + 250);
		add_long(&f, "sun.os.hrt.frequency", 1000000000LL);
		put32(&f, 28, 3);
		assert_int_equal(tm_hsperf_parse(f.b, f.n, &h, &err), 0);
		assert_int_equal(h.entries, 3);
		assert_int_equal(h.v[TM_HS_OLD_USED], 5000000000LL);
		assert_false(tm_hsperf_has(&h, TM_HS_EDEN_USED));
		assert_int_equal(tm_hsperf_lookup(f.b, f.n, "sun.os.hrt.frequency", &v), 0);
		assert_int_equal(v, 1000000000LL);
		assert_int_equal(tm_hsperf_lookup(f.b, f.n, "sun.nope", &v), -1);
		tm_sample_clear(&s);
		tm_hsperf_to_sample(&h, &s);
		/* old alone: no heap total (eden unknown), no full-GC count */
		assert_true(tm_sample_has(&s, TM_M_JVM_OLD_USED_BYTES));
		assert_false(tm_sample_has(&s, TM_M_JVM_HEAP_USED_BYTES));
		assert_false(tm_sample_has(&s, TM_M_JVM_FULL_GCS));
		assert_false(tm_sample_has(&s, TM_M_JVM_EDEN_USED_BYTES));
		assert_int_equal(s.v[TM_M_JVM_FULL_GC_USEC], 3000000);
		/* not yet accessible: nothing at all */
		f.b[7] = 0;
		assert_int_equal(tm_hsperf_parse(f.b, f.n, &h, &err), 0);
		tm_sample_clear(&s);
		tm_hsperf_to_sample(&h, &s);
		assert_false(tm_sample_has(&s, TM_M_JVM_PROCS));
		/* more entries claimed than there are */
		f.b[7] = 1;
		put32(&f, 28, 4);
		assert_int_equal(tm_hsperf_parse(f.b, f.n, &h, &err), -1);
	}
}

static void test_maps(void **state)
{
	static const char maps[] =
	    "55d0c0000000-55d0c0001000 r--p 00000000 fd:01 123 /usr/lib/jvm/java-17/bin/java\n"
	    "7f0000000000-7f0000008000 rw-s 00000000 fd:01 99 /tmp/hsperfdata_old/12 (deleted)\n"
	    "7f0000010000-7f0000018000 rw-s 00000000 fd:01 456 /tmp/hsperfdata_app user/7\n"
	    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
	char path[64];

	(void)state;
	assert_int_equal(tm_jvm_maps_find(maps, sizeof(maps) - 1, path, sizeof(path)), 0);
	assert_string_equal(path, "/tmp/hsperfdata_app user/7");
	assert_int_equal(tm_jvm_maps_find(maps, 80, path, sizeof(path)), -1);
	/* a path too long for the buffer is not cut short */
	assert_int_equal(tm_jvm_maps_find(maps, sizeof(maps) - 1, path, 10), -1);
}

/* The kernel writes a newline in a mapped file's name as \012: the path
 * opened is the file's, not the literal text (where a FIFO may wait). */
static void test_maps_escape(void **state)
{
	static const char maps[] =
	    "7f0000010000-7f0000018000 rw-s 00000000 fd:01 456 /tmp/x/hsperfdata_u/1\\0122\n";
	char path[64];

	(void)state;
	assert_int_equal(tm_jvm_maps_find(maps, sizeof(maps) - 1, path, sizeof(path)), 0);
	assert_string_equal(path, "/tmp/x/hsperfdata_u/1\n2");
	/* a backslash not followed by 012 stays as it is */
	static const char other[] = "0-1 r--s 0 0:1 4 /hsperfdata_u/a\\01\n";
	assert_int_equal(tm_jvm_maps_find(other, sizeof(other) - 1, path, sizeof(path)), 0);
	assert_string_equal(path, "/hsperfdata_u/a\\01");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_g1),       cmocka_unit_test(test_serial),
	    cmocka_unit_test(test_parallel), cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_corrupt),  cmocka_unit_test(test_built),
	    cmocka_unit_test(test_maps),     cmocka_unit_test(test_maps_escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
