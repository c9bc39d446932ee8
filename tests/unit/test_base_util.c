/* base/util: the checked parsers every option goes through, and the small
 * helpers (growing arrays, parent paths, MiB text); base/dl: a library's
 * table of functions loaded when first used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/dl.h"
#include "base/util.h"
#include "base/zlib.h"

static void test_int64(void **state)
{
	(void)state;
	int64_t v = 7;
	assert_int_equal(tm_parse_int64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(tm_parse_int64("-42", &v), 0);
	assert_int_equal(v, -42);
	assert_int_equal(tm_parse_int64("9223372036854775807", &v), 0);
	assert_eq(v, INT64_MAX);
	v = 7;
	assert_int_equal(tm_parse_int64("9223372036854775808", &v), -1); /* overflow */
	assert_int_equal(tm_parse_int64("", &v), -1);
	assert_int_equal(tm_parse_int64("12x", &v), -1); /* the whole string */
	assert_int_equal(tm_parse_int64("1.5", &v), -1);
	assert_int_equal(tm_parse_int64("abc", &v), -1);
	assert_int_equal(v, 7); /* a refusal leaves the output alone */
}

static void test_size(void **state)
{
	(void)state;
	struct {
		const char *s;
		int64_t bytes;
	} good[] = {
	    {"4096", 4096},          {"1K", 1024},       {"400M", 400LL << 20}, {"1.5G", 3LL << 29},
	    {"512KiB", 512LL << 10}, {"2MB", 2LL << 20}, {"1T", 1LL << 40},     {"max", INT64_MAX},
	    {"infinity", INT64_MAX},
	};
	for (size_t i = 0; i < TM_ARRAY_SIZE(good); i++) {
		int64_t v = -1;
		assert_int_equal(tm_parse_size(good[i].s, &v), 0);
		assert_eq(v, good[i].bytes);
	}
	const char *bad[] = {"", "M", "12Q", "-5M", "1.5.5M", "99999999999T", "1 M x"};
	for (size_t i = 0; i < TM_ARRAY_SIZE(bad); i++) {
		int64_t v = 0;
		assert_int_equal(tm_parse_size(bad[i], &v), -1);
	}
}

static void test_duration(void **state)
{
	(void)state;
	struct {
		const char *s;
		int64_t usec;
	} good[] = {
	    {"250ms", 250000},  {"2s", 2000000},  {"1.5m", 90000000},
	    {"1h", 3600000000}, {"30", 30000000},
	};
	for (size_t i = 0; i < TM_ARRAY_SIZE(good); i++) {
		int64_t v = -1;
		assert_int_equal(tm_parse_duration(good[i].s, &v), 0);
		assert_eq(v, good[i].usec);
	}
	const char *bad[] = {"", "s", "10parsecs", "-1s", "abc"};
	for (size_t i = 0; i < TM_ARRAY_SIZE(bad); i++) {
		int64_t v = 0;
		assert_int_equal(tm_parse_duration(bad[i], &v), -1);
	}
}

static void test_grow(void **state)
{
	(void)state;
	int *a = NULL;
	size_t cap = 0, n = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(tm_grow(&a, &cap, n, sizeof(*a), 4), 0);
		assert_true(cap > n);
		a[n++] = i;
	}
	for (int i = 0; i < 1000; i++)
		assert_int_equal(a[i], i);
	assert_true(cap >= 1000 && cap < 2048); /* doubling, not one at a time */
	free(a);
}

static void test_path_parent(void **state)
{
	(void)state;
	char b[64];
	tm_path_parent("/x", b, sizeof(b));
	assert_string_equal(b, "/");
	tm_path_parent("x", b, sizeof(b));
	assert_string_equal(b, ".");
	tm_path_parent("/a/b/c.db", b, sizeof(b));
	assert_string_equal(b, "/a/b");
	tm_path_parent("rel/dir/f", b, sizeof(b));
	assert_string_equal(b, "rel/dir");
}

static void test_fmt_mib(void **state)
{
	(void)state;
	char b[32];
	assert_non_null(strstr(tm_fmt_mib(b, sizeof(b), 1LL << 20), "1"));
	assert_non_null(strstr(b, "MiB"));
	tm_fmt_mib(b, sizeof(b), 3LL << 29); /* 1536 MiB */
	assert_non_null(strstr(b, "1536"));
}

/* Each character that hides or reorders text, in UTF-8 of 2 to 4 bytes,
 * is one tm_text_is_hidden_control finds and tm_text_safe escapes. */
static void test_hidden_controls(void **state)
{
	static const struct {
		const char *utf8, *escaped;
	} hidden[] = {
	    {"\xe2\x80\x8b", "\\u{200b}"},      /* zero width space */
	    {"\xef\xbb\xbf", "\\u{feff}"},      /* byte order mark */
	    {"\xe2\x80\xa8", "\\u{2028}"},      /* line separator */
	    {"\xe2\x80\xa9", "\\u{2029}"},      /* paragraph separator */
	    {"\xef\xbf\xb9", "\\u{fff9}"},      /* interlinear annotation anchor */
	    {"\xef\xbf\xbb", "\\u{fffb}"},      /* interlinear annotation terminator */
	    {"\xe2\x80\x8d", "\\u{200d}"},      /* zero width joiner */
	    {"\xe2\x81\xa0", "\\u{2060}"},      /* word joiner */
	    {"\xe2\x81\xa4", "\\u{2064}"},      /* invisible plus */
	    {"\xc2\xad", "\\u{00ad}"},          /* soft hyphen */
	    {"\xe1\xa0\x8e", "\\u{180e}"},      /* mongolian vowel separator */
	    {"\xef\xb8\x8f", "\\u{fe0f}"},      /* variation selector 16 */
	    {"\xe3\x85\xa4", "\\u{3164}"},      /* hangul filler */
	    {"\xe2\x80\xae", "\\u{202e}"},      /* right-to-left override */
	    {"\xc2\x85", "\\u{0085}"},          /* C1 next line */
	    {"\xf3\xa0\x80\x80", "\\u{e0000}"}, /* tag range start */
	    {"\xf3\xa0\x81\x81", "\\u{e0041}"}, /* tag latin capital letter a */
	    {"\xf3\xa0\x81\xbf", "\\u{e007f}"}, /* cancel tag */
	    {"\xf3\xa0\x84\x80", "\\u{e0100}"}, /* variation selector 17 */
	    {"\xf0\x9d\x85\xb3", "\\u{1d173}"}, /* musical symbol begin beam */
	};
	char buf[64], want[64];
	size_t len;

	(void)state;
	for (size_t i = 0; i < TM_ARRAY_SIZE(hidden); i++) {
		const unsigned char *u = (const unsigned char *)hidden[i].utf8;
		if (!tm_text_is_hidden_control(u, strlen(hidden[i].utf8), &len))
			fail_msg("%s is not found hidden", hidden[i].escaped);
		assert_int_equal(len, strlen(hidden[i].utf8));
		snprintf(buf, sizeof(buf), "a%sb", hidden[i].utf8);
		tm_text_safe(want, sizeof(want), buf);
		snprintf(buf, sizeof(buf), "a%sb", hidden[i].escaped);
		assert_string_equal(want, buf);
	}
	/* visible text passes: accents, CJK, an emoji, a cut sequence */
	static const char *const visible[] = {"\xc3\xa9",     "\xe6\x97\xa5", "\xf0\x9f\x98\x80",
	                                      "\xf3\xa0\x81", "\xe2\x80",     "a"};
	for (size_t i = 0; i < TM_ARRAY_SIZE(visible); i++)
		if (tm_text_is_hidden_control((const unsigned char *)visible[i], strlen(visible[i]),
		                              &len))
			fail_msg("visible text %zu is found hidden", i);
}

/* A cost per unit in the unit that gives it significant digits, never
 * "+0.000 MiB" for 183 B. */
static void test_cost_text(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 183, true), "+183 B");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), -183, true), "-183 B");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 1012, false), "1012 B");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 1484.8, false), "1.45 KiB");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 17612.8, false), "17.2 KiB");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 23.793 * 1048576, true), "+23.8 MiB");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 2.5 * 1073741824.0, false),
	                    "2.50 GiB");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), 0.5, false), "0.50 B");
	assert_string_equal(tm_cost_bytes_text(b, sizeof(b), NAN, false), "n/a");
	assert_string_equal(tm_cost_usec_text(b, sizeof(b), 28, false), "28 µs");
	assert_string_equal(tm_cost_usec_text(b, sizeof(b), 3100, false), "3.10 ms");
	assert_string_equal(tm_cost_usec_text(b, sizeof(b), 23100, false), "23.1 ms");
	assert_string_equal(tm_cost_usec_text(b, sizeof(b), 1.2e6, false), "1.20 s");
}

/* tm_dl_load with stderr captured: its return, and what it said in SAID. */
static int dl_load_said(const char *soname, const struct tm_dl_fn *fns, size_t n, void *table,
                        size_t size, char *said, size_t said_size)
{
	char path[] = "/tmp/tidemark-test-dl.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	int r = tm_dl_load(soname, "the test needs it", fns, n, table, size);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char *text = tm_read_file(path, NULL);
	snprintf(said, said_size, "%s", text ? text : "");
	free(text);
	close(fd);
	unlink(path);
	return r;
}

/* zlib's table filled from the real library, each pointer the function the
 * library exports (compressing through them round-trips); a name it lacks
 * and a library that is not there fail, saying which. */
/* tm_read_small reads a file whole, and refuses what an observed process
 * could plant in its place: a symlink (ELOOP), a FIFO (opened without
 * waiting for a writer, then not read: pread on a pipe is ESPIPE). */
static void test_read_small(void **state)
{
	(void)state;
	char dir[] = "/tmp/tm-read-small.XXXXXX", path[128], link[128], fifo[128], buf[16];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs("2097152\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	assert_int_equal(tm_read_small(path, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "2097152\n");
	assert_int_equal(tm_read_small(path, buf, 4), 3); /* bounded, NUL-terminated */
	assert_string_equal(buf, "209");
	errno = 0;
	assert_int_equal(tm_read_small(link, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(tm_read_small(fifo, buf, sizeof(buf)), -1); /* pread: ESPIPE */
	assert_int_equal(errno, ESPIPE);
	assert_int_equal(tm_read_small("/nonexistent/tm-read-small", buf, sizeof(buf)), -1);

	unlink(fifo);
	unlink(link);
	unlink(path);
	rmdir(dir);
}

static void test_dl_load(void **state)
{
	struct tm_zlib z;
	char said[512];
	(void)state;
	assert_int_equal(tm_zlib_load(&z), 0);
#define TM_X_NONNULL(f) assert_non_null(z.f);
	TM_ZLIB_FUNCS(TM_X_NONNULL)
#undef TM_X_NONNULL
	char path[] = "/tmp/tidemark-test-gz.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	gzFile g = z.gzopen(path, "wb");
	assert_non_null(g);
	assert_int_equal(z.gzwrite(g, "tidemark", 8), 8);
	assert_int_equal(z.gzclose(g), Z_OK);
	char back[16] = "";
	g = z.gzopen(path, "rb");
	assert_int_equal(z.gzread(g, back, sizeof(back)), 8);
	z.gzclose(g);
	unlink(path);
	assert_memory_equal(back, "tidemark", 8);

	struct bad {
		void (*gzopen)(void);
		void (*no_such_function)(void);
	} b;
	static const struct tm_dl_fn fns[] = {TM_DL_FN(struct bad, gzopen)
	                                          TM_DL_FN(struct bad, no_such_function)};
	assert_int_equal(dl_load_said(TM_ZLIB_SONAME, fns, 2, &b, sizeof(b), said, sizeof(said)),
	                 -1);
	if (!strstr(said, "libz.so.1 lacks 'no_such_function'"))
		fail_msg("said '%s'", said);
	assert_int_equal(
	    dl_load_said("libtidemark-no-such.so.9", fns, 1, &b, sizeof(b), said, sizeof(said)),
	    -1);
	if (!strstr(said, "cannot load libtidemark-no-such.so.9") ||
	    !strstr(said, "the test needs it"))
		fail_msg("said '%s'", said);
}

/* tm_pages_alloc: resident only where written (a page never touched is
 * not in the process's memory: mincore, asked before anything reads it,
 * as a read maps the shared zero page), writable, zeroed. */
static void test_pages(void **state)
{
	(void)state;
	long page = sysconf(_SC_PAGESIZE);
	size_t size = 16 * (size_t)page;
	unsigned char *p = tm_pages_alloc(size), vec[16];

	assert_non_null(p);
	assert_int_equal((uintptr_t)p % (uintptr_t)page, 0);
	p[3 * page] = 7; /* one page written */
	assert_int_equal(mincore(p, size, vec), 0);
	for (int i = 0; i < 16; i++)
		if ((vec[i] & 1) != (i == 3))
			fail_msg("page %d: resident %d, want %d", i, vec[i] & 1, i == 3);
	for (size_t i = 0; i < size; i += (size_t)page / 2)
		if (p[i] != (i == 3 * (size_t)page ? 7 : 0))
			fail_msg("byte %zu is %d", i, p[i]);
	tm_pages_free(p, size);
	tm_pages_free(NULL, size); /* as free(NULL) */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_int64),           cmocka_unit_test(test_size),
	    cmocka_unit_test(test_duration),        cmocka_unit_test(test_grow),
	    cmocka_unit_test(test_path_parent),     cmocka_unit_test(test_fmt_mib),
	    cmocka_unit_test(test_hidden_controls), cmocka_unit_test(test_cost_text),
	    cmocka_unit_test(test_dl_load),         cmocka_unit_test(test_read_small),
	    cmocka_unit_test(test_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
