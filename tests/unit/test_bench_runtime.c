/* The runtime rows of the bench table (JVM old gen after GC, Java heap
 * used and committed, a GC runtime's live heap) on constructed runs, and
 * the summary's old gen after GC from a store's JVM samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/sample.h"
#include "base/util.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "report/run/summary.h"
#include "store/store.h"
#include "store_fixture.h"

static void add_run(struct tm_bench_table *t, int arm, double old_mib, double used_mib)
{
	struct tm_bench_run_row *r = &t->runs[t->n_runs];
	memset(r, 0, sizeof(*r));
	r->run_id = t->n_runs + 1;
	r->arm = arm;
	r->outcome = TM_OUTCOME_COMPLETED;
	for (int f = 0; f < TM_BF_COUNT; f++)
		r->fig[f] = NAN;
	r->fig[TM_BF_PEAK_ANON] = (used_mib + 50) * TM_MIB;
	r->fig[TM_BF_JVM_OLD_AFTER_GC] = old_mib * TM_MIB;
	r->fig[TM_BF_JVM_HEAP_USED] = isfinite(used_mib) ? used_mib * TM_MIB : NAN;
	r->fig[TM_BF_JVM_HEAP_COMMITTED] = isfinite(used_mib) ? 256 * TM_MIB : NAN;
	r->steal_share = r->other_share = 0;
	t->n_runs++;
}

__attribute__((noinline)) static char *text_of(const struct tm_bench_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	tm_bench_table_write_text(t, f);
	fclose(f);
	return buf;
}

/* The row labelled LABEL: the rest of its line. */
static const char *row(const char *text, const char *label)
{
	const char *p = strstr(text, label);
	if (!p)
		fail_msg("no row '%s' in:\n%s", label, text);
	return p;
}

static void test_jvm_rows(void **state)
{
	struct tm_bench_table t;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.n_arms = 3;
	snprintf(t.arms[0].name, 64, "retain32");
	snprintf(t.arms[1].name, 64, "retain64");
	snprintf(t.arms[2].name, 64, "native");
	t.runs = calloc(16, sizeof(*t.runs));
	for (int i = 0; i < 5; i++) {
		add_run(&t, 0, 32.5 + 0.1 * i, 40 + i);
		add_run(&t, 1, 64.5 + 0.1 * i, 80 + i);
		add_run(&t, 2, NAN, NAN); /* no JVM: no value, never 0 */
	}
	tm_bench_table_compute(&t);
	const struct tm_bench_arm_row *a = &t.arms[1];
	assert_int_equal(a->stat[TM_BF_JVM_OLD_AFTER_GC].n, 5);
	assert_true(fabs(a->ratio[TM_BF_JVM_OLD_AFTER_GC] - 64.7 / 32.7) < 1e-9);
	assert_int_equal(a->verdict[TM_BF_JVM_OLD_AFTER_GC], TM_BV_SIGNIFICANT);
	assert_int_equal(t.arms[2].stat[TM_BF_JVM_OLD_AFTER_GC].n, 0);
	assert_int_equal(t.arms[2].verdict[TM_BF_JVM_OLD_AFTER_GC], TM_BV_NONE);
	assert_false(tm_bench_row_shown(&t, TM_BF_GC_LIVE)); /* no Go or GHC run */

	char *text = text_of(&t);
	const char *old = row(text, "old after GC MiB");
	const char *eol = strchr(old, '\n');
	char line[256];
	snprintf(line, sizeof(line), "%.*s", (int)(eol - old), old);
	if (!strstr(line, "32.7 [32.5–32.9]") || !strstr(line, "64.7 [64.5–64.9] ×1.98 p=0.008") ||
	    !strstr(line, "n/a"))
		fail_msg("old gen row: '%s'", line);
	row(text, "java heap used MiB");
	row(text, "java committed MiB");
	assert_null(strstr(text, "gc live after"));
	/* the runtime rows follow the heap's split, before the page cache */
	assert_true(strstr(text, "old after GC") < strstr(text, "java heap used"));
	free(text);
	char *json = tm_bench_table_to_json(&t);
	assert_non_null(strstr(json, "\"jvm_old_after_gc_end_bytes\""));
	assert_non_null(strstr(json, "\"gc_heap_live_end_bytes\""));
	free(json);
	tm_bench_table_release(&t);
}

static void test_gc_live_row(void **state)
{
	struct tm_bench_table t;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.n_arms = 2;
	snprintf(t.arms[0].name, 64, "go-a");
	snprintf(t.arms[1].name, 64, "go-b");
	t.runs = calloc(8, sizeof(*t.runs));
	for (int i = 0; i < 3; i++)
		for (int arm = 0; arm < 2; arm++) {
			add_run(&t, arm, NAN, NAN);
			t.runs[t.n_runs - 1].fig[TM_BF_GC_LIVE] = (arm ? 64.0 : 32.0) * TM_MIB;
		}
	tm_bench_table_compute(&t);
	assert_true(tm_bench_row_shown(&t, TM_BF_GC_LIVE));
	assert_false(tm_bench_row_shown(&t, TM_BF_JVM_OLD_AFTER_GC));
	assert_eq(t.arms[1].ratio[TM_BF_GC_LIVE], 2);
	assert_int_equal(t.arms[1].verdict[TM_BF_GC_LIVE], TM_BV_TOO_FEW); /* 3 vs 3 */
	char *text = text_of(&t);
	row(text, "gc live after MiB");
	free(text);
	tm_bench_table_release(&t);
}

/* Samples a second apart of a JVM: GC counts 0, 0, 1, 1, 2, 3, 3 and GC
 * time 0, 0, 0, 9, 9, 20, 20 ms with the old gen 5, 6, 0, 20, 30, 12, 15
 * MiB: the first GC started before sample 2 (its count rose, the old gen
 * not yet updated) and ended before sample 3; the second ran at sample 4,
 * ending before 5 with a third; the old gen grows between GCs. */
static void test_summary_old_after_gc(void **state)
{
	struct store_fixture *sf = store_fixture_open("bench-runtime");
	struct tm_run_meta m = {.machine = "t",
	                        .target = "command",
	                        .interval_usec = 1000000,
	                        .started_mono_usec = 1000000};
	const int gcs[] = {0, 0, 1, 1, 2, 3, 3}, old[] = {5, 6, 0, 20, 30, 12, 15};
	const int gc_ms[] = {0, 0, 0, 9, 9, 20, 20};
	int64_t run;
	struct tm_summary s;

	(void)state;
	assert_int_equal(tm_store_run_begin(sf->st, &m, &run), 0);
	for (int i = 0; i < 7; i++) {
		struct tm_sample x;
		tm_sample_clear(&x);
		x.seq = i;
		x.t_mono_usec = 1000000 + i * 1000000LL;
		x.t_wall_usec = 1700000000000000 + i * 1000000LL;
		tm_sample_set(&x, TM_M_PROC_COUNT, 1);
		tm_sample_set(&x, TM_M_PROC_RSS_ANON_BYTES, 100 << 20);
		tm_sample_set(&x, TM_M_JVM_YOUNG_GCS, gcs[i]);
		tm_sample_set(&x, TM_M_JVM_FULL_GCS, 0);
		tm_sample_set(&x, TM_M_JVM_YOUNG_GC_USEC, gc_ms[i] * 1000);
		tm_sample_set(&x, TM_M_JVM_FULL_GC_USEC, 0);
		tm_sample_set(&x, TM_M_JVM_OLD_USED_BYTES, (int64_t)old[i] << 20);
		tm_sample_set(&x, TM_M_JVM_HEAP_USED_BYTES, (int64_t)(old[i] + 3) << 20);
		assert_int_equal(tm_store_add_sample(sf->st, run, &x), 0);
	}
	assert_int_equal(tm_store_commit(sf->st), 0);
	assert_int_equal(tm_summarize(sf->st, run, NULL, &s), 0);
	assert_eq(s.jvm_old_after_gc_end_bytes, 12 * TM_MIB); /* after GCs 2 and 3 ended */
	assert_eq(s.jvm_old_used_end_bytes, 15 * TM_MIB);     /* now, with garbage */
	/* a window ending during the second GC: the first one's figure, from
	 * the sample after it ended (not the 0 of the sample during it) */
	struct tm_window w;
	assert_int_equal(tm_window_parse("0s:4s", &w), 0);
	assert_int_equal(tm_summarize(sf->st, run, &w, &s), 0);
	assert_eq(s.jvm_old_after_gc_end_bytes, 20 * TM_MIB);
	/* a window after the last GC still knows it */
	assert_int_equal(tm_window_parse("6s:", &w), 0);
	assert_int_equal(tm_summarize(sf->st, run, &w, &s), 0);
	assert_eq(s.jvm_old_after_gc_end_bytes, 12 * TM_MIB);
	/* a window before any GC ended: none, not 0 */
	assert_int_equal(tm_window_parse("0s:2s", &w), 0);
	assert_int_equal(tm_summarize(sf->st, run, &w, &s), 0);
	assert_true(isnan(s.jvm_old_after_gc_end_bytes));
	store_fixture_close(sf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jvm_rows),
	    cmocka_unit_test(test_gc_live_row),
	    cmocka_unit_test(test_summary_old_after_gc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
