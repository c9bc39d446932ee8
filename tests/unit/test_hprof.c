/* hprof: the streaming histogram over dumps built here byte by byte, with
 * 8- and 4-byte ids; every truncation refused with an offset, never read
 * past; the id map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "hprof/hprof.h"
#include "hprof/idmap.h"

struct dump {
	uint8_t b[4096];
	size_t n;
	unsigned id;
};

static void u1(struct dump *d, unsigned v)
{
	d->b[d->n++] = (uint8_t)v;
}
static void u2(struct dump *d, unsigned v)
{
	u1(d, v >> 8), u1(d, v);
}
static void u4(struct dump *d, uint32_t v)
{
	u2(d, v >> 16), u2(d, v & 0xffff);
}
static void id(struct dump *d, uint64_t v)
{
	if (d->id == 8)
		u4(d, (uint32_t)(v >> 32));
	u4(d, (uint32_t)v);
}

static void header(struct dump *d, unsigned id_size)
{
	d->n = 0;
	d->id = id_size;
	memcpy(d->b, "JAVA PROFILE 1.0.2", 19);
	d->n = 19;
	u4(d, id_size);
	u4(d, 0), u4(d, 0);
}

static void utf8(struct dump *d, uint64_t sid, const char *s)
{
	u1(d, 0x01), u4(d, 0), u4(d, d->id + (uint32_t)strlen(s));
	id(d, sid);
	memcpy(d->b + d->n, s, strlen(s));
	d->n += strlen(s);
}

static void load_class(struct dump *d, uint64_t cls, uint64_t name)
{
	u1(d, 0x02), u4(d, 0), u4(d, 8 + 2 * d->id);
	u4(d, 1), id(d, cls), u4(d, 0), id(d, name);
}

/* A class dump with the given instance field types (and one int static). */
static void class_dump(struct dump *d, uint64_t cls, uint64_t super, const uint8_t *types,
                       unsigned nf)
{
	u1(d, 0x20);
	id(d, cls), u4(d, 0), id(d, super);
	for (int i = 0; i < 5; i++)
		id(d, 0);
	u4(d, 99); /* the dump's instance size: ignored */
	u2(d, 0);  /* constant pool */
	u2(d, 1), id(d, 0x700), u1(d, 10), u4(d, 42);
	u2(d, (unsigned)nf);
	for (unsigned i = 0; i < nf; i++)
		id(d, 0x800 + i), u1(d, types[i]);
}

static void instance(struct dump *d, uint64_t obj, uint64_t cls, unsigned nbytes)
{
	u1(d, 0x21), id(d, obj), u4(d, 0), id(d, cls), u4(d, nbytes);
	for (unsigned i = 0; i < nbytes; i++)
		u1(d, 0xab);
}

/* A heap dump segment around the sub-records written by FILL. */
static void segment(struct dump *d, void (*fill)(struct dump *))
{
	u1(d, 0x1c), u4(d, 0);
	size_t len_at = d->n;
	u4(d, 0);
	fill(d);
	uint32_t len = (uint32_t)(d->n - len_at - 4);
	d->b[len_at] = (uint8_t)(len >> 24), d->b[len_at + 1] = (uint8_t)(len >> 16);
	d->b[len_at + 2] = (uint8_t)(len >> 8), d->b[len_at + 3] = (uint8_t)len;
}

static void heap(struct dump *d)
{
	static const uint8_t object_fields[] = {}; /* java.lang.Object: none */
	static const uint8_t leaf[] = {10, 11, 2}; /* int, long, Object */
	static const uint8_t node[] = {8, 9, 2};   /* byte, short, Object */
	u1(d, 0xff), id(d, 0x10);                  /* a root */
	u1(d, 0x08), id(d, 0x11), u4(d, 1), u4(d, 2);
	class_dump(d, 0x100, 0, object_fields, 0);
	class_dump(d, 0x200, 0x100, leaf, 3);
	class_dump(d, 0x300, 0x200, node, 3);
	for (unsigned i = 0; i < 3; i++)
		instance(d, 0x1000 + i, 0x200, 4 + 8 + d->id);
	instance(d, 0x2000, 0x300, 4 + 8 + d->id + 1 + 2 + d->id);
	/* byte[10] and Object[3] */
	u1(d, 0x23), id(d, 0x3000), u4(d, 0), u4(d, 10), u1(d, 8);
	for (int i = 0; i < 10; i++)
		u1(d, i);
	u1(d, 0x22), id(d, 0x3001), u4(d, 0), u4(d, 3), id(d, 0x400);
	for (int i = 0; i < 3; i++)
		id(d, 0x1000 + (uint64_t)i);
}

static void build(struct dump *d, unsigned id_size)
{
	header(d, id_size);
	utf8(d, 0x50, "java/lang/Object");
	utf8(d, 0x51, "Leaf");
	utf8(d, 0x52, "Node");
	utf8(d, 0x53, "[Ljava/lang/Object;");
	load_class(d, 0x100, 0x50);
	load_class(d, 0x200, 0x51);
	load_class(d, 0x300, 0x52);
	load_class(d, 0x400, 0x53);
	segment(d, heap);
	u1(d, 0x2c), u4(d, 0), u4(d, 0); /* heap dump end */
}

static const struct tm_hprof_row *row(const struct tm_hprof_histogram *h, const char *name)
{
	for (size_t i = 0; i < h->n_rows; i++)
		if (!strcmp(h->rows[i].name, name))
			return &h->rows[i];
	return NULL;
}

static int read_dump(const struct dump *d, size_t len, const struct tm_hprof_layout *l,
                     struct tm_hprof_histogram *h)
{
	struct tm_hp_in in;
	tm_hp_in_mem(&in, d->b, len, "test.hprof");
	return tm_hprof_histogram_read(&in, l, h);
}

static void test_histogram_64bit(void **state)
{
	(void)state;
	static struct dump d;
	struct tm_hprof_layout l;
	struct tm_hprof_histogram h;
	build(&d, 8);
	tm_hprof_layout_default(&l);
	assert_int_equal(read_dump(&d, d.n, &l, &h), 0);
	assert_int_equal(h.id_size, 8);
	/* Leaf: 12 + 4 + 8 + 4 = 28 -> 32; Node: 28 + 1 + 2 + 4 = 35 -> 40 */
	assert_int_equal(row(&h, "Leaf")->instances, 3);
	assert_int_equal(row(&h, "Leaf")->shallow_bytes, 3 * 32);
	assert_int_equal(row(&h, "Node")->shallow_bytes, 40);
	assert_int_equal(row(&h, "[B")->shallow_bytes, 32);                  /* 16 + 10 -> 32 */
	assert_int_equal(row(&h, "[Ljava.lang.Object;")->shallow_bytes, 32); /* 16 + 12 -> 32 */
	assert_int_equal(h.rows[0].shallow_bytes, 96);                       /* largest first */
	assert_int_equal(h.shallow_bytes, 96 + 40 + 32 + 32);
	tm_hprof_histogram_release(&h);

	l.compressed_oops = false;
	l.compressed_class_pointers = false;
	assert_int_equal(read_dump(&d, d.n, &l, &h), 0);
	/* 16 + 4 + 8 + 8 = 36 -> 40; arrays: 24 + 10 -> 40, 24 + 24 = 48 */
	assert_int_equal(row(&h, "Leaf")->shallow_bytes, 3 * 40);
	assert_int_equal(row(&h, "[B")->shallow_bytes, 40);
	assert_int_equal(row(&h, "[Ljava.lang.Object;")->shallow_bytes, 48);
	tm_hprof_histogram_release(&h);
}

static void test_histogram_32bit(void **state)
{
	(void)state;
	static struct dump d;
	struct tm_hprof_layout l;
	struct tm_hprof_histogram h;
	build(&d, 4);
	tm_hprof_layout_default(&l);
	assert_int_equal(read_dump(&d, d.n, &l, &h), 0);
	assert_int_equal(h.id_size, 4);
	/* 8 + 4 + 8 + 4 = 24; arrays 12 + 10 -> 24 */
	assert_int_equal(row(&h, "Leaf")->shallow_bytes, 3 * 24);
	assert_int_equal(row(&h, "[B")->shallow_bytes, 24);
	tm_hprof_histogram_release(&h);
}

/* Every cut of a valid dump (HotSpot ends one with its heap: a HEAP DUMP
 * END after segments) is said with an offset and never read past; past the
 * header, what was read is kept as a partial histogram (1), before it
 * nothing is (-1).  A cut in the UTF8 or LOAD CLASS records has no rows;
 * one inside the heap has the rows of the sub-records before it. */
static void test_every_truncation_refused(void **state)
{
	(void)state;
	static struct dump d;
	struct tm_hprof_layout l;
	struct tm_hprof_histogram h;
	build(&d, 8);
	tm_hprof_layout_default(&l);
	int stderr_copy = dup(2);
	char log[] = "/tmp/tidemark-hprof-cut.XXXXXX";
	int log_fd = mkstemp(log);
	assert_true(log_fd >= 0 && dup2(log_fd, 2) == 2);
	size_t accepted = 0, partial = 0, silent = 0, with_rows = 0;
	/* an exact-size copy lets ASan catch any read past the end */
	for (size_t len = 0; len < d.n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, d.b, len);
		struct tm_hp_in in;
		tm_hp_in_mem(&in, copy, len, "cut.hprof");
		off_t before = lseek(log_fd, 0, SEEK_END);
		int rc = tm_hprof_histogram_read(&in, &l, &h);
		fflush(stderr);
		if (lseek(log_fd, 0, SEEK_END) == before)
			silent++; /* no message */
		if (rc == 0)
			accepted++;
		if (rc == 1) {
			partial++;
			assert_true(h.partial);
			with_rows += h.n_rows > 0;
		}
		if (rc >= 0)
			tm_hprof_histogram_release(&h);
		free(copy);
	}
	dup2(stderr_copy, 2);
	close(stderr_copy);
	close(log_fd);
	unlink(log);
	assert_int_equal(silent, 0);
	assert_int_equal(accepted, 0);
	assert_int_equal(partial, d.n - 31); /* all but the 31 cuts inside the 31-byte header */
	assert_true(with_rows > 100);
	/* the whole dump is complete, not partial */
	assert_int_equal(read_dump(&d, d.n, &l, &h), 0);
	assert_false(h.partial);
	tm_hprof_histogram_release(&h);
}

static void test_idmap(void **state)
{
	(void)state;
	struct tm_idmap m = {0};
	uint32_t v;
	for (uint64_t i = 0; i < 100000; i++)
		assert_int_equal(tm_idmap_put(&m, i * 8 + 0x7f0000000000ULL, (uint32_t)i), 0);
	assert_int_equal(tm_idmap_put(&m, UINT64_MAX, 7), 0);
	assert_int_equal(tm_idmap_put(&m, 0, 9), 0);
	assert_int_equal(m.n, 100002);
	for (uint64_t i = 0; i < 100000; i++) {
		assert_true(tm_idmap_get(&m, i * 8 + 0x7f0000000000ULL, &v));
		assert_int_equal(v, i);
	}
	assert_true(tm_idmap_get(&m, UINT64_MAX, &v));
	assert_eq(v, 7);
	assert_true(tm_idmap_get(&m, 0, &v));
	assert_eq(v, 9);
	assert_false(tm_idmap_get(&m, 3, &v));
	assert_int_equal(tm_idmap_put(&m, 0, 10), 0); /* replaces */
	assert_true(tm_idmap_get(&m, 0, &v));
	assert_eq(v, 10);
	assert_int_equal(m.n, 100002);
	tm_idmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_histogram_64bit),
	    cmocka_unit_test(test_histogram_32bit),
	    cmocka_unit_test(test_every_truncation_refused),
	    cmocka_unit_test(test_idmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
