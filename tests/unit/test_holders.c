/* hprof holders over a dump built here byte by byte: reachability from a
 * Java frame root, a diamond and a cycle under it, an unreachable island;
 * each object's immediate dominator and retained size; the holder's path;
 * the file-backed arrays gone after release; the in-place id sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "hprof/holders.h"

struct dump {
	uint8_t b[4096];
	size_t n;
};

static void u1(struct dump *d, unsigned v)
{
	d->b[d->n++] = (uint8_t)v;
}
static void u4(struct dump *d, uint32_t v)
{
	u1(d, v >> 24), u1(d, v >> 16), u1(d, v >> 8), u1(d, v);
}
static void u2(struct dump *d, unsigned v)
{
	u1(d, v >> 8), u1(d, v);
}
static void id(struct dump *d, uint64_t v)
{
	u4(d, (uint32_t)(v >> 32)), u4(d, (uint32_t)v);
}

static void utf8(struct dump *d, uint64_t sid, const char *s)
{
	u1(d, 0x01), u4(d, 0), u4(d, 8 + (uint32_t)strlen(s));
	id(d, sid);
	memcpy(d->b + d->n, s, strlen(s));
	d->n += strlen(s);
}

static void class_dump(struct dump *d, uint64_t cls, uint64_t super, unsigned refs)
{
	u1(d, 0x20), id(d, cls), u4(d, 0), id(d, super);
	for (int i = 0; i < 5; i++)
		id(d, 0);
	u4(d, 0), u2(d, 0), u2(d, 0), u2(d, refs);
	for (unsigned i = 0; i < refs; i++)
		id(d, 0x60 + i), u1(d, 2);
}

static void node(struct dump *d, uint64_t obj, uint64_t a, uint64_t b)
{
	u1(d, 0x21), id(d, obj), u4(d, 0), id(d, 0x200), u4(d, 16), id(d, a), id(d, b);
}

/* Roots: sticky classes, a Java frame holding 0x1000.  0x1000 -> 0x1001,
 * 0x1002 (a diamond onto 0x1003, which refers back to 0x1000); 0x1002 ->
 * byte[10] 0x3000; 0x1004 refers to itself only (unreachable). */
static size_t build(struct dump *d)
{
	d->n = 0;
	memcpy(d->b, "JAVA PROFILE 1.0.2", 19);
	d->n = 19;
	u4(d, 8), u4(d, 0), u4(d, 0);
	utf8(d, 0x50, "java/lang/Object"), utf8(d, 0x51, "Node");
	utf8(d, 0x60, "a"), utf8(d, 0x61, "b");
	u1(d, 0x02), u4(d, 0), u4(d, 24), u4(d, 1), id(d, 0x100), u4(d, 0), id(d, 0x50);
	u1(d, 0x02), u4(d, 0), u4(d, 24), u4(d, 2), id(d, 0x200), u4(d, 0), id(d, 0x51);
	u1(d, 0x1c), u4(d, 0);
	size_t len_at = d->n;
	u4(d, 0);
	u1(d, 0x05), id(d, 0x100);
	u1(d, 0x05), id(d, 0x200);
	u1(d, 0x03), id(d, 0x1000), u4(d, 1), u4(d, 0);
	class_dump(d, 0x100, 0, 0);
	class_dump(d, 0x200, 0x100, 2);
	node(d, 0x1003, 0x1000, 0);
	node(d, 0x1000, 0x1001, 0x1002);
	node(d, 0x1001, 0x1003, 0);
	node(d, 0x1002, 0x1003, 0x3000);
	node(d, 0x1004, 0x1004, 0);
	u1(d, 0x23), id(d, 0x3000), u4(d, 0), u4(d, 10), u1(d, 8);
	for (int i = 0; i < 10; i++)
		u1(d, 0);
	uint32_t len = (uint32_t)(d->n - len_at - 4);
	d->b[len_at] = (uint8_t)(len >> 24), d->b[len_at + 1] = (uint8_t)(len >> 16);
	d->b[len_at + 2] = (uint8_t)(len >> 8), d->b[len_at + 3] = (uint8_t)len;
	u1(d, 0x2c), u4(d, 0), u4(d, 0);
	return d->n;
}

/* The preorder number of the object of id OID, or NONE. */
static uint32_t pre_of(const struct tm_holders *h, uint64_t oid)
{
	const uint32_t *vertex = TM_HDOM_U32(h->d.vertex);
	for (uint32_t i = 1; i < h->d.n_live; i++)
		if (tm_hg_id(&h->g, vertex[i]) == oid)
			return i;
	return TM_HG_NONE;
}

static uint64_t idom_id(const struct tm_holders *h, uint64_t oid)
{
	uint32_t d = TM_HDOM_U32(h->d.idom)[pre_of(h, oid)];
	return d ? tm_hg_id(&h->g, TM_HDOM_U32(h->d.vertex)[d]) : 0;
}

static void test_dominators(void **state)
{
	(void)state;
	struct dump d;
	size_t n = build(&d);
	char path[] = "/tmp/tm-test-holders.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_eq(write(fd, d.b, n), (ssize_t)n);
	close(fd);
	struct tm_hprof_layout l;
	struct tm_holders h;
	tm_hprof_layout_default(&l);
	assert_eq(tm_holders_compute(&h, path, &l, 10, NULL), 0);
	/* 2 mirrors and 5 reachable objects, and the super-root */
	assert_eq(h.d.n_live, 8);
	assert_eq(pre_of(&h, 0x1004), TM_HG_NONE);
	assert_eq(h.dead_objects, 1);
	assert_eq(h.dead_bytes, 24); /* 12 + 2 x 4, aligned */
	assert_eq(idom_id(&h, 0x1000), 0);
	assert_eq(idom_id(&h, 0x1001), 0x1000);
	assert_eq(idom_id(&h, 0x1002), 0x1000);
	assert_eq(idom_id(&h, 0x1003), 0x1000); /* the diamond's bottom */
	assert_eq(idom_id(&h, 0x3000), 0x1002);
	const uint64_t *ret = TM_HDOM_U64(h.d.ret);
	assert_eq(ret[pre_of(&h, 0x1000)], 4 * 24 + 32);
	assert_eq(ret[pre_of(&h, 0x1002)], 24 + 32);
	assert_eq(TM_HDOM_U32(h.d.cnt)[pre_of(&h, 0x1000)], 5);
	/* the one holder: 0x1000, held by the frame */
	assert_eq(h.n_rows, 1);
	assert_eq(h.rows[0].retained_bytes, 128);
	assert_eq(h.rows[0].shallow_bytes, 24);
	assert_eq(h.rows[0].n_path, 1);
	assert_string_equal(h.rows[0].path[0].via, "Java frame");
	assert_string_equal(h.rows[0].path[0].label, "Node");
	assert_eq(h.rows[0].n_parts, 2);
	assert_eq(h.rows[0].parts[0].bytes, 96); /* 4 Node */
	assert_true(h.g.pool.bytes_peak > 0);
	tm_holders_release(&h);
	unlink(path);
}

/* A dump cut anywhere is refused, without a leak (ASan) or a crash. */
static void test_cut_refused(void **state)
{
	(void)state;
	struct dump d;
	size_t n = build(&d);
	char path[] = "/tmp/tm-test-holders.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct tm_hprof_layout l;
	tm_hprof_layout_default(&l);
	for (size_t cut = 0; cut < n; cut += 7) {
		FILE *f = fopen(path, "w");
		fwrite(d.b, 1, cut, f);
		fclose(f);
		struct tm_holders h;
		assert_eq(tm_holders_compute(&h, path, &l, 10, NULL), -1);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dominators),
	    cmocka_unit_test(test_cut_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
