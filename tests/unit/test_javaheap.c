/* sample/javaheap: the Java heap's range found in a real JVM's maps (OpenJDK
 * 17, G1, -Xmx256m, after it allocated and dropped 64 MiB) and its resident
 * anon summed from that JVM's smaps; refusals of ranges that cannot be
 * told apart or are not whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/util.h"
#include "sample/javaheap.h"

#define MIB (1024ull * 1024ull)

/* hsperfdata of that moment: generation.0/1.capacity, 0/1.maxCapacity */
#define G1_COMMITTED (3145752ull + 7340040ull)
#define G1_RESERVED  (268435464ull & ~4095ull)
#define TOL          (2 * MIB + G1_COMMITTED / 16)

static char *fixture(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/fixtures/javaheap/%s", name);
	char *t = tm_read_file(path, len);
	assert_non_null(t);
	return t;
}

static void test_find_real_g1(void **state)
{
	struct tm_javaheap_range r;
	size_t len;
	char *maps = fixture("g1-256m.maps", &len);
	(void)state;
	assert_int_equal(tm_javaheap_find(maps, len, G1_RESERVED, G1_COMMITTED, TOL, &r), 0);
	assert_int_equal(r.start, 0xf0000000ull);
	assert_int_equal(r.end, 0x100000000ull);
	/* the sum of the generations' maxCapacity (a generational heap's
	 * size) is no range of that JVM */
	assert_int_equal(tm_javaheap_find(maps, len, 2 * G1_RESERVED, G1_COMMITTED, TOL, &r), -1);
	free(maps);
}

/* The smaps of that JVM up to two mappings past the heap: the heap's
 * resident anon is its mappings' Anonymous lines (46864 kB: the 64 MiB it
 * dropped, free but touched, and what it holds), the CDS archive's
 * private copies included. */
static void test_smaps_real_g1(void **state)
{
	struct tm_javaheap_range r = {0xf0000000ull, 0x100000000ull};
	uint64_t anon = 0;
	size_t len;
	char *smaps = fixture("g1-256m.smaps", &len);
	(void)state;
	assert_int_equal(tm_javaheap_smaps_anon(smaps, len, &r, &anon), 0);
	assert_int_equal(anon, 46864ull * 1024);
	assert_int_equal(tm_javaheap_smaps_past(smaps, len, r.end), 1);
	assert_int_equal(tm_javaheap_smaps_past(smaps, len, 0x7fffffffffffull), 0);
	/* the text stopped inside the heap: not whole */
	const char *cut = strstr(smaps, "ffe00000-");
	assert_non_null(cut);
	assert_int_equal(tm_javaheap_smaps_anon(smaps, (size_t)(cut - smaps), &r, &anon), -1);
	/* a range that does not start at a mapping's start */
	struct tm_javaheap_range off = {0xf0001000ull, 0x100000000ull};
	assert_int_equal(tm_javaheap_smaps_anon(smaps, len, &off, &anon), -1);
	free(smaps);
}

static void test_find_refuses(void **state)
{
	struct tm_javaheap_range r;
	/* two ranges of the size with enough read-write: cannot tell */
	const char *two = "10000000-10400000 rw-p 00000000 00:00 0 \n"
	                  "10400000-11000000 ---p 00000000 00:00 0 \n"
	                  "20000000-20400000 rw-p 00000000 00:00 0 \n"
	                  "20400000-21000000 ---p 00000000 00:00 0 \n";
	(void)state;
	assert_int_equal(tm_javaheap_find(two, strlen(two), 16 * MIB, 4 * MIB, 0, &r), -1);
	/* one of them has too little read-write for what is committed */
	assert_int_equal(tm_javaheap_find(two, strlen(two), 16 * MIB, 5 * MIB, 0, &r), -1);
	const char *one = "10000000-10400000 rw-p 00000000 00:00 0 \n"
	                  "10400000-11000000 ---p 00000000 00:00 0 \n"
	                  "20000000-20100000 rw-p 00000000 00:00 0 \n"
	                  "20100000-21000000 ---p 00000000 00:00 0 \n";
	assert_int_equal(tm_javaheap_find(one, strlen(one), 16 * MIB, 4 * MIB, 0, &r), 0);
	assert_int_equal(r.start, 0x10000000ull);
	/* a shared mapping or a file other than a CDS archive breaks a range */
	const char *shared = "10000000-10400000 rw-s 00000000 00:00 0 \n"
	                     "10400000-11000000 ---p 00000000 00:00 0 \n";
	assert_int_equal(tm_javaheap_find(shared, strlen(shared), 16 * MIB, 0, 0, &r), -1);
	const char *file = "10000000-10400000 rw-p 00000000 08:01 12 /usr/lib/libx.so\n"
	                   "10400000-11000000 ---p 00000000 00:00 0 \n";
	assert_int_equal(tm_javaheap_find(file, strlen(file), 16 * MIB, 0, 0, &r), -1);
	/* lines that do not parse, and no size at all */
	const char *junk = "zz-10400000 rw-p\n10400000-\n-\n\n";
	assert_int_equal(tm_javaheap_find(junk, strlen(junk), 16 * MIB, 0, 0, &r), -1);
	assert_int_equal(tm_javaheap_find(one, strlen(one), 0, 0, 0, &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find_real_g1),
	    cmocka_unit_test(test_smaps_real_g1),
	    cmocka_unit_test(test_find_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
