/*
 * The summary figure registry (report/run/summaryfigs.h), walked: every figure
 * is a member of struct tm_summary that starts as its entry says, and
 * appears exactly once, with its own value, in a run's JSON
 * (tm_summary_json: report --json, the API, the push protocol) and in the
 * header and row of report --csv (tm_summary_write_csv).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "base/util.h"
#include "report/run/runjson.h"
#include "report/runreport.h"
#include "report/run/summary.h"
#include "report/run/summary_int.h"
#include "report/run/summaryfigs.h"
#include "store/store.h"
#include "base/banned.h"

struct fig {
	const char *name;
	double *at;
};

/* Every registry entry of S, in the registry's order; how many. */
static int figs_of(struct tm_summary *s, struct fig *out, int cap)
{
	int n = 0;
#define ADD_F(f, start)                                                                            \
	if (n < cap)                                                                               \
		out[n] = (struct fig){#f, &s->f};                                                  \
	n++;
#define ADD_J(name, part)                                                                          \
	if (n < cap)                                                                               \
		out[n] = (struct fig){#name, &s->jvm_split.part};                                  \
	n++;
	TM_SUMMARY_FIG_LIST(ADD_F, ADD_J)
#undef ADD_F
#undef ADD_J
	return n;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Each figure a distinct whole value (i + 1) * 4096: each must come out as
 * itself, under its own name, once. */
static void test_json_and_csv(void **state)
{
	static struct tm_summary s;
	struct fig figs[128];
	(void)state;
	memset(&s, 0, sizeof(s));
	int n = figs_of(&s, figs, 128);
	assert_true(n > 0 && n <= 128);
	for (int i = 0; i < n; i++)
		*figs[i].at = (i + 1) * 4096.0;

	json_t *o = tm_summary_json(&s);
	assert_non_null(o);
	for (int i = 0; i < n; i++) {
		json_t *v = json_object_get(o, figs[i].name);
		if (!json_is_number(v) || json_number_value(v) != (i + 1) * 4096.0)
			fail_msg("JSON's %s: want %g, got %s %g", figs[i].name, (i + 1) * 4096.0,
			         v ? "number" : "nothing", v ? json_number_value(v) : 0.0);
	}
	json_decref(o);

	char *csv = NULL, want[96];
	size_t len = 0;
	FILE *f = open_memstream(&csv, &len);
	struct tm_run_info ri = {.id = 7};
	assert_non_null(f);
	tm_summary_write_csv(f, &ri, &s);
	fclose(f);
	char *row = strchr(csv, '\n');
	assert_non_null(row);
	*row++ = '\0';
	row[strcspn(row, "\n")] = '\0';
	char *header = csv, rowc[8192];
	snprintf(rowc, sizeof(rowc), "%s,", row); /* each value between commas */
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof(want), ",%s,", figs[i].name);
		char hdr[8192];
		snprintf(hdr, sizeof(hdr), "%s,", header);
		if (count_of(hdr, want) != 1)
			fail_msg("CSV header has %s %d times, want once: %s", figs[i].name,
			         count_of(hdr, want), header);
		snprintf(want, sizeof(want), ",%d,", (i + 1) * 4096);
		if (count_of(rowc, want) != 1)
			fail_msg("CSV row lacks %s's value %s: %s", figs[i].name, want, row);
	}
	free(csv);
}

/* The names are distinct (a JSON object would keep only one of two). */
static void test_distinct(void **state)
{
	struct fig figs[128];
	static struct tm_summary s;
	(void)state;
	int n = figs_of(&s, figs, 128);
	for (int a = 0; a < n; a++)
		for (int b = 0; b < a; b++)
			if (!strcmp(figs[a].name, figs[b].name))
				fail_msg("figures %d and %d share the name %s", b, a, figs[a].name);
}

/* "Held after the work" skips a last sample in which a process was
 * mid-exit (no heap figures: heap/heapshm.c), not one of a run without
 * --heap. */
static void test_held_index_before_exiting(void **state)
{
	(void)state;
	struct pt p[4];
	for (int i = 0; i < 4; i++)
		p[i] = (struct pt){.anon = 100e6, .heap_live = 10e6, .procs = 1};
	p[2].heap_live = NAN; /* the JVM's exit handlers done, its anon not yet gone */
	p[3].procs = 0;       /* gone */
	p[3].anon = 0;
	assert_int_equal(tm_sum_held_index(p, 4), 1);
	for (int i = 0; i < 4; i++)
		p[i].heap_live = NAN; /* no --heap: the last alive sample */
	assert_int_equal(tm_sum_held_index(p, 4), 2);
	p[1].heap_live = 10e6; /* ended alive, mid-exit of a child: the one before */
	p[3] = p[2];
	assert_int_equal(tm_sum_held_index(p, 4), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_and_csv),
	    cmocka_unit_test(test_distinct),
	    cmocka_unit_test(test_held_index_before_exiting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
