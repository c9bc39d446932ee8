/* runtime/registry: every runtime's descriptor is complete, and each output
 * names each runtime exactly once: --runtime's choices, docs/runtimes.md's
 * table, /metrics' HELP, and report's text, JSON and CSV of a run that
 * carries the runtime's figures (the run marked as the recorder marks it:
 * its environment variable or its flag on the command line). */
#include <setjmp.h>
#include <stdarg.h>
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/outcome.h"
#include "report/runreport.h"
#include "runtime/registry.h"
#include "sample/rtsample.h"
#include "serve/api.h"
#include "serve/promfmt.h"

#include "kern_fixture.h"
#include "store_fixture.h"

#define MIB (INT64_C(1) << 20)

/* Occurrences of NEEDLE in HAY; WORD: only where no letter or digit
 * touches it on either side. */
static int count(const char *hay, const char *needle, bool word)
{
	size_t n = strlen(needle);
	int c = 0;

	for (const char *p = hay; n && (p = strstr(p, needle)); p += n) {
		bool alnum_before = p > hay && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool alnum_after = isalnum((unsigned char)p[n]) || p[n] == '_';
		c += !word || (!alnum_before && !alnum_after);
	}
	return c;
}

static void each_desc(void (*fn)(enum tm_runtime, const struct tm_runtime_desc *))
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++) {
		const struct tm_runtime_desc *d = tm_runtime_desc((enum tm_runtime)rt);
		if (!d)
			fail_msg("runtime %d has no descriptor", rt);
		fn((enum tm_runtime)rt, d);
	}
}

static void complete(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	if (!d->name || !d->title || !d->publishes || !d->docs || !d->figures || !d->gc_note ||
	    !d->text_label || !d->summary_field || !d->help_word || !d->found_by)
		fail_msg("runtime %d (%s): a field of its descriptor is missing", rt,
		         d->name ? d->name : "?");
	assert_true(d->figures[0] < TM_METRIC_COUNT);
	/* --runtime's values are the ones found by the option, each once */
	bool option = (int)rt < (int)TM_RUNTIME_OPTION_END;
	int named = 0;
	for (int i = 0; tm_runtime_names[i]; i++)
		named += !strcmp(tm_runtime_names[i], d->name);
	if (named != (option ? 1 : 0) || option != !!(d->found_by & TM_RT_BY_OPTION))
		fail_msg("runtime %s: named %d times among --runtime's choices, option %d", d->name,
		         named, option);
	if (option && (!d->gc_line || d->stream == TM_RT_STREAM_NONE))
		fail_msg("runtime %s: --runtime reads GC lines, and it has no parser or stream",
		         d->name);
}

/* A runtime found by what its processes map is read in them by the
 * sampler: it has a sampler part (sample/rtsample.h), and only such a one. */
static void sampled(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	const struct tm_rt_sampler *p = tm_rt_sampler(rt);
	bool maps = d->found_by & TM_RT_BY_MAPS;

	if (maps != (p != NULL) || (p && (!p->sample || !p->buf_bytes)))
		fail_msg("runtime %s: found by maps %d, a sampler part %d (wanted both or neither, "
		         "with its function and scratch)",
		         d->name, maps, p != NULL);
	if (p && p->buf_bytes > tm_rt_sample_buf_bytes())
		fail_msg("runtime %s: its scratch (%zu bytes) is more than the sampler's (%zu)",
		         d->name, p->buf_bytes, tm_rt_sample_buf_bytes());
}

static void test_samplers(void **state)
{
	(void)state;
	each_desc(sampled);
}

static void test_descriptors(void **state)
{
	(void)state;
	each_desc(complete);
	assert_string_equal(tm_runtime_names[0], "none");
	assert_null(tm_runtime_desc(TM_RUNTIME_NONE));
	assert_null(tm_runtime_desc(TM_RUNTIME_COUNT));
}

static char *docs;

static void in_docs(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	(void)rt;
	if (count(docs, d->docs, false) != 1)
		fail_msg("docs/runtimes.md has runtime %s's row %d times, not once: %s", d->name,
		         count(docs, d->docs, false), d->docs);
}

static void test_docs(void **state)
{
	char path[4096];
	size_t n;
	const char *root = getenv("TM_ROOT");
	(void)state;

	snprintf(path, sizeof(path), "%s/docs/runtimes.md", root ? root : ".");
	docs = tm_read_file(path, &n);
	assert_non_null(docs);
	each_desc(in_docs);
	free(docs);
}

static void in_help(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	char name[128], label[64];
	double scale;
	(void)rt;

	tm_prom_name(d->figures[0], name, sizeof(name), label, sizeof(label), &scale);
	const char *h = tm_prom_help(d->figures[0], name);
	if (!h || count(h, d->help_word, true) != 1)
		fail_msg("/metrics HELP of %s names runtime %s ('%s') %d times, not once: %s", name,
		         d->name, d->help_word, h ? count(h, d->help_word, true) : 0,
		         h ? h : "(none)");
}

static void test_metrics_help(void **state)
{
	(void)state;
	each_desc(in_help);
}

/* A runtime's own metrics have their HELP from its descriptor, and /metrics
 * gives that text, each metric once among all runtimes. */
static void own_help(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	char name[128], label[64];
	double scale;
	(void)rt;

	for (const struct tm_rt_help *h = d->help; h && h->metric < TM_METRIC_COUNT; h++) {
		tm_prom_name(h->metric, name, sizeof(name), label, sizeof(label), &scale);
		const char *got = tm_prom_help(h->metric, name);
		if (!h->text || !got || strcmp(got, h->text) != 0 ||
		    tm_runtime_metric_help(h->metric) != h->text)
			fail_msg("/metrics HELP of %s (runtime %s): '%s', its descriptor says '%s'",
			         name, d->name, got ? got : "(none)", h->text ? h->text : "(none)");
	}
}

static void test_own_help(void **state)
{
	(void)state;
	each_desc(own_help);
}

/* The panel's default series (the API's /series without metrics=) has each
 * of a runtime's .panel metrics exactly once. */
static struct tm_series_query panel_q;

static void in_panel(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	(void)rt;
	for (const enum tm_metric *m = d->panel; m && *m < TM_METRIC_COUNT; m++) {
		int n = 0;
		for (int i = 0; i < panel_q.nmetrics; i++)
			n += panel_q.metrics[i] == (int)*m;
		if (n != 1)
			fail_msg(
			    "the panel's default series has %s (runtime %s) %d times, not once",
			    tm_metric_info(*m)->name, d->name, n);
	}
}

static void test_panel(void **state)
{
	struct tm_err err = {0};
	(void)state;

	assert_int_equal(tm_series_query_parse(NULL, NULL, NULL, NULL, NULL, NULL, &panel_q, &err),
	                 0);
	each_desc(in_panel);
}

/* The generic report, the summary's accumulator, the phases and /metrics'
 * page and series walk the registry: none names a runtime found without --runtime
 * (whose parts were once written there: the JVM's lines, split, figures,
 * HELP and panel series). */
static const char *const generic_files[] = {
    "src/report/runreport.c",       "src/report/run/runjson.c",     "src/report/run/summary.c",
    "src/report/run/summary_acc.c", "src/report/run/summary_int.h", "src/serve/promfmt.c",
    "src/report/phases/phases.h",   "src/report/phases/phases.c",   "src/report/phases/phasesout.c",
    "src/sample/sampler.c",         "src/record/runevents.c",       "src/serve/series.c",
};

static void not_in_generic(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	const char *root = getenv("TM_ROOT");
	char path[4096];
	size_t n;
	(void)rt;

	if (d->found_by & TM_RT_BY_OPTION)
		return;
	for (size_t i = 0; i < sizeof(generic_files) / sizeof(generic_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root ? root : ".", generic_files[i]);
		char *text = tm_read_file(path, &n);
		assert_non_null(text);
		const char *at = strcasestr(text, d->name);
		if (at)
			fail_msg(
			    "%s names runtime %s (byte %zu): its part belongs in its descriptor",
			    generic_files[i], d->name, (size_t)(at - text));
		free(text);
	}
}

static void test_generic_code(void **state)
{
	(void)state;
	each_desc(not_in_generic);
}

/* A run whose samples carry D's figures, marked as the recorder marks it. */
static int64_t run_of(struct tm_store *st, const struct tm_runtime_desc *d)
{
	char env[256] = "{}", cmd[256] = "[\"prog\"]", exe[64] = "prog";
	struct tm_run_meta m = {.machine = "test",
	                        .target = "command",
	                        .interval_usec = 1000000,
	                        .started_wall_usec = 1700000000000000,
	                        .started_mono_usec = 1000000};
	struct tm_sample s;
	int64_t id;

	if (d->stored_env)
		snprintf(env, sizeof(env), "{\"%s\":\"%s\"}", d->env_var, d->env_add);
	if (d->exe_names)
		snprintf(exe, sizeof(exe), "%.*s", (int)strcspn(d->exe_names, " "), d->exe_names);
	if (d->stored_command)
		snprintf(cmd, sizeof(cmd), "[\"%s\",\"%s\",\"x\"]", exe, d->flag);
	m.env_json = env;
	m.command_json = cmd;
	assert_int_equal(tm_store_run_begin(st, &m, &id), 0);
	for (int i = 0; i < 5; i++) {
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = m.started_wall_usec + i * 1000000;
		s.t_mono_usec = m.started_mono_usec + i * 1000000;
		tm_sample_set(&s, TM_M_PROC_COUNT, 1);
		tm_sample_set(&s, TM_M_PROC_RSS_ANON_BYTES, 64 * MIB);
		for (const enum tm_metric *f = d->figures; *f < TM_METRIC_COUNT; f++)
			tm_sample_set(&s, *f,
			              tm_metric_info(*f)->unit == TM_UNIT_BYTES ? 16 * MIB + i
			                                                        : i + 1);
		assert_int_equal(tm_store_add_sample(st, id, &s), 0);
	}
	/* detached: the program was alive when the recording stopped, so the
	 * end's figures (and a runtime's split of them) are measured */
	struct tm_run_end e = {.ended_wall_usec = m.started_wall_usec + 4000000,
	                       .outcome = tm_outcome_of("detached")};
	assert_int_equal(tm_store_run_end(st, id, &e), 0);
	assert_int_equal(tm_store_commit(st), 0);
	return id;
}

static char *report(struct tm_store *st, int64_t id, enum tm_report_fmt fmt)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	assert_int_equal(tm_report_run(st, id, NULL, fmt, NULL, 0, f), 0);
	fclose(f);
	return buf;
}

/* The CSV's value in the column called NAME, or NULL. */
static char *csv_value(char *csv, const char *name, char *out, size_t size)
{
	char *row = strchr(csv, '\n');
	int col = 0;

	assert_non_null(row);
	*row++ = '\0';
	for (char *p = csv, *c; p; p = c ? c + 1 : NULL, col++) {
		c = strchr(p, ',');
		if ((c ? (size_t)(c - p) : strlen(p)) != strlen(name) ||
		    strncmp(p, name, strlen(name)))
			continue;
		for (char *q = row; q; q = strchr(q, ','), q = q ? q + 1 : NULL)
			if (col-- == 0) {
				snprintf(out, size, "%.*s", (int)strcspn(q, ",\n"), q);
				return out;
			}
	}
	return NULL;
}

static struct store_fixture *fx;

static void in_report(enum tm_runtime rt, const struct tm_runtime_desc *d)
{
	char label[64], key[128], v[64];
	int64_t id = run_of(fx->st, d);
	char *text = report(fx->st, id, TM_REPORT_TEXT);
	char *json = report(fx->st, id, TM_REPORT_JSON);
	char *csv = report(fx->st, id, TM_REPORT_CSV);
	(void)rt;

	snprintf(label, sizeof(label), "\n  %s ", d->text_label);
	if (count(text, label, false) != 1)
		fail_msg("report's text of a %s run has '%s' %d times, not once:\n%s", d->name,
		         d->text_label, count(text, label, false), text);
	for (int o = TM_RUNTIME_NONE + 1; o < TM_RUNTIME_COUNT; o++) {
		const char *note = tm_runtime_desc((enum tm_runtime)o)->gc_note;
		int want = o == (int)rt;
		if (*note && count(text, note, false) != want)
			fail_msg("report's text of a %s run has %s's note %d times, not %d:\n%s",
			         d->name, tm_runtime_desc((enum tm_runtime)o)->name,
			         count(text, note, false), want, text);
	}
	if (d->split && count(text, d->split, false) != 1)
		fail_msg("report's text of a %s run has its split ('%s') %d times, not once:\n%s",
		         d->name, d->split, count(text, d->split, false), text);
	snprintf(key, sizeof(key), "\"%s\":", d->summary_field);
	char *at = strstr(json, key);
	if (count(json, key, false) != 1 || !at || !strncmp(at + strlen(key), "null", 4))
		fail_msg("report's JSON of a %s run has %s %d times (once, not null, wanted): %s",
		         d->name, key, count(json, key, false), json);
	if (!csv_value(csv, d->summary_field, v, sizeof(v)) || !v[0] ||
	    count(csv, d->summary_field, true) != 1)
		fail_msg("report's CSV of a %s run: column %s missing, repeated or empty", d->name,
		         d->summary_field);
	free(text);
	free(json);
	free(csv);
}

static void test_reports(void **state)
{
	(void)state;
	fx = store_fixture_open("runtimes");
	each_desc(in_report);
	store_fixture_close(fx);
}

int main(void)
{
	/* the report wraps at the terminal's width (80 when unset): a note must
	 * be found whole whatever the width the tests run at */
	setenv("COLUMNS", "1000", 1);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_descriptors),  cmocka_unit_test(test_docs),
	    cmocka_unit_test(test_metrics_help), cmocka_unit_test(test_own_help),
	    cmocka_unit_test(test_generic_code), cmocka_unit_test(test_panel),
	    cmocka_unit_test(test_reports),      cmocka_unit_test(test_samplers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
