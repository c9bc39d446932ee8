/* base/term: width, colour, wrapping; bench/live: the ETA and short runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "assert_eq.h"
#include "base/term.h"
#include "bench/live.h"
#include "base/banned.h"

/* What FN writes of TEXT at WIDTH, as a string (the caller frees it). */
static char *written(void (*fn)(FILE *, const char *, int), const char *text, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, text, width);
	fclose(f);
	return buf;
}

/* The widest line of TEXT, in columns. */
static int widest(const char *text)
{
	int max = 0;
	char line[1024];

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		max = tm_term_text_width(line) > max ? tm_term_text_width(line) : max;
		p += n + (p[n] == '\n');
	}
	return max;
}

static void test_width(void **state)
{
	(void)state;
	unsetenv("COLUMNS");
	assert_eq(tm_term_width(NULL), 80);
	setenv("COLUMNS", "132", 1);
	assert_eq(tm_term_width(NULL), 132);
	setenv("COLUMNS", "12", 1); /* too narrow to mean it */
	assert_eq(tm_term_width(NULL), 80);
	setenv("COLUMNS", "90x", 1);
	assert_eq(tm_term_width(NULL), 80);
	unsetenv("COLUMNS");
}

static void test_color(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	(void)state;

	unsetenv("NO_COLOR");
	setenv("CLICOLOR_FORCE", "1", 1);
	assert_false(tm_term_color(m)); /* never text gathered in memory */
	assert_true(tm_term_color(stdout));
	setenv("NO_COLOR", "1", 1);
	assert_false(tm_term_color(stdout)); /* NO_COLOR wins */
	setenv("NO_COLOR", "", 1);
	assert_true(tm_term_color(stdout)); /* empty: as if unset */
	unsetenv("CLICOLOR_FORCE");
	unsetenv("NO_COLOR");
	tm_term_put_if(m, true, TM_TONE_BAD, "oom-killed");
	fclose(m);
	assert_string_equal(buf, "\033[1;31moom-killed\033[0m");
	assert_eq(tm_term_text_width(buf), 10);
	free(buf);
	enum tm_tone t;
	assert_true(tm_term_outcome_tone("invalid", &t));
	assert_eq(t, TM_TONE_BAD);
	assert_false(tm_term_outcome_tone("completed", &t));
}

/* A report's line goes on under its second column, each line on its own. */
static void test_write_lines(void **state)
{
	const char *in =
	    "  cgroup      peak memory.current 15.0 MiB (kernel's peak 15.0 MiB); "
	    "limits max none, high none\n"
	    "short line\n"
	    "a note that is long enough to need a break somewhere in the middle of it\n";
	char *out = written(tm_term_write_lines, in, 60);
	(void)state;

	print_message("%s", out);
	assert_string_equal(out, "  cgroup      peak memory.current 15.0 MiB (kernel's peak\n"
	                         "              15.0 MiB); limits max none, high none\n"
	                         "short line\n"
	                         "a note that is long enough to need a break somewhere in the\n"
	                         "  middle of it\n");
	free(out);
	out = written(tm_term_write_lines, in, 200);
	assert_string_equal(out, in); /* what fits is untouched */
	free(out);
}

/* Help: an option's help joined and broken again under its column; a
 * paragraph refilled; an example broken as shell, never inside quotes. */
static void test_write_wrapped(void **state)
{
	const char *in =
	    "usage: tidemark x [options]\n"
	    "\n"
	    "A paragraph of prose that runs past the width of the terminal by a little bit.\n"
	    "Its second line.\n"
	    "Exit status: 0.\n"
	    "  -u, --unit NAME         a systemd unit's cgroup (found over D-Bus); each start\n"
	    "                          of the unit is a new run\n"
	    "examples:\n"
	    "  tidemark record --progress 'height=([0-9]+) and more words' -- ./node --sync\n";
	char *out = written(tm_term_write_wrapped, in, 60);
	(void)state;

	print_message("%s", out);
	assert_eq(widest(out) <= 60, true);
	assert_non_null(strstr(out, "\nExit status: 0.\n")); /* not joined to the paragraph */
	assert_non_null(
	    strstr(out, "\n                          over D-Bus); each start of the\n"));
	assert_non_null(strstr(out, "'height=([0-9]+) and more words'")); /* quotes kept whole */
	assert_non_null(strstr(out, " \\\n      "));                      /* a shell continuation */
	free(out);
	out = written(tm_term_write_wrapped, in, 100);
	assert_string_equal(out, in);
	free(out);
}

static void test_wrap(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;

	fputs("  PROBLEM  ", f);
	tm_term_wrap(f, "one two three four five six", 11, 11, 24);
	fclose(f);
	assert_string_equal(buf, "  PROBLEM  one two three\n           four five six\n");
	free(buf);
}

static void test_eta(void **state)
{
	char buf[96];
	struct tm_bench_eta e = {.done = 0, .total = 4};
	(void)state;

	tm_bench_eta_text(&e, 500000, buf, sizeof(buf));
	assert_string_equal(buf, "[--------------------] 0/4 ETA ?");
	e.done = 2;
	e.done_usec = 20000000; /* 10 s a run */
	tm_bench_eta_text(&e, 5000000, buf, sizeof(buf));
	/* 2.5 of 4 runs: 12 of 20; 10 s x 2 left, less 5 s run */
	assert_string_equal(buf, "[############--------] 2/4 ETA 15s");
	e.total = 40;
	tm_bench_eta_text(&e, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[#-------------------] 2/40 ETA 6m20s");
}

static void test_short_run(void **state)
{
	char buf[400];
	(void)state;

	/* 0.4 s at the default 200ms: 3 samples; 50ms gives 9 */
	assert_true(tm_bench_short_run_note(400000, 3, 200000, buf, sizeof(buf)));
	print_message("%s\n", buf);
	assert_non_null(strstr(buf, "3 samples at -i 200ms"));
	assert_non_null(strstr(buf, "use -i 50ms (about 9 samples), the least interval"));
	/* 3 s at 1s: 200ms gives about 20 */
	assert_true(tm_bench_short_run_note(3000000, 4, 1000000, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "use -i 100ms"));
	/* enough samples: nothing to say */
	assert_false(tm_bench_short_run_note(3000000, 15, 200000, buf, sizeof(buf)));
	/* already at the least interval */
	assert_true(tm_bench_short_run_note(200000, 4, 50000, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "-i 50ms is the least interval"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_width),       cmocka_unit_test(test_color),
	    cmocka_unit_test(test_write_lines), cmocka_unit_test(test_write_wrapped),
	    cmocka_unit_test(test_wrap),        cmocka_unit_test(test_eta),
	    cmocka_unit_test(test_short_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
