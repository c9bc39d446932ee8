/* record/progress: the progress regex and the line splitter that feeds it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "record/progress.h"

static void test_compile(void **state)
{
	(void)state;
	struct tm_progress_re p;
	assert_int_equal(tm_progress_compile(&p, "height=([0-9]+)"), 0);
	tm_progress_free(&p);
	assert_int_equal(tm_progress_compile(&p, "height=(\\d+)"), 0); /* \d accepted */
	tm_progress_free(&p);
	assert_int_equal(tm_progress_compile(&p, "height=[0-9]+"), -1); /* no group */
	assert_int_equal(tm_progress_compile(&p, "height=(["), -1);     /* not a regex */
}

static void test_match(void **state)
{
	(void)state;
	struct tm_progress_re p;
	double v = -1;
	assert_int_equal(tm_progress_compile(&p, "height=(\\d+)"), 0);
	assert_true(tm_progress_match(&p, "INFO sync height=64400 peers=8", &v));
	assert_eq(v, 64400);
	v = -1;
	assert_false(tm_progress_match(&p, "INFO sync peers=8", &v));
	assert_eq(v, -1); /* untouched without a match */
	tm_progress_free(&p);

	assert_int_equal(tm_progress_compile(&p, "done ([0-9.]+)%"), 0);
	assert_true(tm_progress_match(&p, "done 12.5%", &v));
	assert_eq(v, 12.5);
	assert_false(tm_progress_match(&p, "done ...%", &v)); /* the group is not a number */
	tm_progress_free(&p);
}

struct got {
	char lines[8][TM_LINE_MAX + 1];
	int n;
};

static void collect(void *ctx, const char *line)
{
	struct got *g = ctx;
	if (g->n < 8)
		snprintf(g->lines[g->n], sizeof(g->lines[0]), "%s", line);
	g->n++;
}

static void test_lines(void **state)
{
	(void)state;
	static struct tm_lines l;
	static struct got g;
	const char *in = "a=1\nb=2\nc=";
	tm_lines_feed(&l, in, strlen(in), collect, &g);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.lines[0], "a=1");
	assert_string_equal(g.lines[1], "b=2");
	tm_lines_feed(&l, "3\n", 2, collect, &g); /* a line split across reads */
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[2], "c=3");
	tm_lines_feed(&l, "tail", 4, collect, &g);
	assert_int_equal(g.n, 3);
	tm_lines_flush(&l, collect, &g); /* a last line without a newline */
	assert_int_equal(g.n, 4);
	assert_string_equal(g.lines[3], "tail");
	tm_lines_flush(&l, collect, &g);
	assert_int_equal(g.n, 4); /* nothing left */
}

static void test_long_line_is_cut_not_dropped(void **state)
{
	(void)state;
	static struct tm_lines l;
	static struct got g;
	static char big[TM_LINE_MAX + 100];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = 0;
	tm_lines_feed(&l, big, strlen(big), collect, &g);
	assert_int_equal(g.n, 2);
	size_t total = strlen(g.lines[0]) + strlen(g.lines[1]);
	assert_int_equal(total, strlen(big) - 1); /* every byte but the newline */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compile),
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_long_line_is_cut_not_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
