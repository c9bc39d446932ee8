/* bench: its tables in a real store, and the table computed from stored runs. */
#include <math.h>
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
#include <jansson.h>

#include "base/sample.h"
#include "base/util.h"
#include "bench/bench.h"
#include "bench/persist.h"
#include "report/bench/benchtab.h"
#include "store/store.h"
#include "base/banned.h"

#define MIB (1024 * 1024)

/* One stored run of ARM: anon climbs to PEAK_MIB over 5 samples, 1 s apart. */
static int64_t add_run(struct tm_store *st, int64_t bench_id, const char *arm, int64_t seq,
                       int peak_mib, const char *outcome)
{
	struct tm_run_meta m = {
	    .target = "command",
	    .interval_usec = 1000000,
	    .started_wall_usec = 1000000000 + seq * 10000000,
	    .started_mono_usec = 5000000 + seq * 10000000,
	    .bench_id = bench_id,
	    .arm = arm,
	    .bench_seq = seq,
	};
	int64_t run_id;
	struct tm_sample s;

	assert_int_equal(tm_store_run_begin(st, &m, &run_id), 0);
	for (int i = 0; i < 5; i++) {
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = m.started_wall_usec + i * 1000000;
		s.t_mono_usec = m.started_mono_usec + i * 1000000;
		s.late_usec = 0;
		int64_t anon = (int64_t)peak_mib * MIB * (i + 1) / 5;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, anon);
		tm_sample_set(&s, TM_M_PROC_RSS_ANON_BYTES, anon);
		tm_sample_set(&s, TM_M_CG_CURRENT_BYTES, anon + MIB);
		tm_sample_set(&s, TM_M_CG_CPU_USAGE_USEC, i * 500000);
		tm_sample_set(&s, TM_M_HOST_CPU_TOTAL_USEC, i * 2000000);
		tm_sample_set(&s, TM_M_HOST_CPU_BUSY_USEC, i * 600000);
		tm_sample_set(&s, TM_M_HOST_CPU_STEAL_USEC, 0);
		assert_int_equal(tm_store_add_sample(st, run_id, &s), 0);
	}
	struct tm_run_end e = {
	    .ended_wall_usec = m.started_wall_usec + 4000000,
	    .outcome = tm_outcome_of(outcome),
	    .exit_code = strcmp(outcome, "completed") ? -1 : 0,
	    .term_signal = strcmp(outcome, "completed") ? 9 : 0,
	};
	assert_int_equal(tm_store_run_end(st, run_id, &e), 0);
	assert_int_equal(tm_store_commit(st), 0);
	struct tm_bench_run_note note = {
	    .bench_id = bench_id,
	    .run_id = run_id,
	    .seq = seq,
	    .arm_index = strcmp(arm, "a") ? 1 : 0,
	    .warmup = false,
	    .wall_usec = 4000000,
	    .rig_cpu_usec = 100000,
	};
	assert_int_equal(tm_bench_store_run(st, &note), 0);
	return run_id;
}

static void test_store_and_table(void **state)
{
	char path[] = "/tmp/tm-test-benchstore-XXXXXX";
	int fd = mkstemp(path);
	struct tm_store *st;
	struct tm_bench_spec sp;
	int64_t bench_id, latest;
	char *argv[] = {"prog", "--x", NULL};
	char *env_text[] = {"", "MALLOC_ARENA_MAX=1"};
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(tm_store_open(path, &st), 0);
	assert_int_equal(tm_bench_store_latest(st, &latest), 1);

	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "a:"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "b:MALLOC_ARENA_MAX=1,MemoryMax=64M"), 0);
	sp.runs = 2;
	sp.rec.settle_usec = 0;
	char *spec = tm_bench_spec_json(&sp, argv, env_text);
	assert_non_null(spec);
	struct tm_bench_row row = {.name = "unit",
	                           .spec_json = spec,
	                           .order = "interleave",
	                           .host = "box",
	                           .started_wall_usec = 1000000000};
	assert_int_equal(tm_bench_store_begin(st, &row, &bench_id), 0);
	free(spec);
	tm_bench_spec_release(&sp);

	add_run(st, bench_id, "a", 0, 10, "completed");
	add_run(st, bench_id, "b", 1, 20, "completed");
	add_run(st, bench_id, "a", 2, 10, "completed");
	add_run(st, bench_id, "b", 3, 30, "oom-killed");
	assert_int_equal(tm_bench_store_end(st, bench_id, 2000000000), 0);
	assert_int_equal(tm_bench_store_latest(st, &latest), 0);
	assert_int_equal(latest, bench_id);

	char *json = NULL;
	json_error_t err;
	assert_int_equal(tm_bench_table_json(st, bench_id, &json), 0);
	json_t *t = json_loads(json, 0, &err);
	assert_non_null(t);
	assert_string_equal(json_string_value(json_object_get(t, "name")), "unit");
	assert_string_equal(json_string_value(json_object_get(t, "command")), "prog --x");
	json_t *b = json_array_get(json_object_get(t, "arms"), 1);
	assert_string_equal(json_string_value(json_object_get(b, "limits")), "MemoryMax=64M");
	assert_string_equal(json_string_value(json_object_get(b, "env")), "MALLOC_ARENA_MAX=1");
	assert_int_equal(json_integer_value(json_object_get(b, "survived")), 1);
	assert_int_equal(json_integer_value(json_object_get(b, "runs")), 2);
	json_t *pa = json_object_get(json_object_get(b, "figures"), "peak_anon_bytes");
	assert_int_equal(json_integer_value(json_object_get(pa, "n")), 1);
	assert_true(fabs(json_number_value(json_object_get(pa, "ratio")) - 2.0) < 1e-9);
	json_t *killed = json_object_get(b, "killed_peak_anon_bytes");
	assert_true(fabs(json_number_value(json_object_get(killed, "median")) - 30.0 * MIB) < 1);
	json_t *wall = json_object_get(json_object_get(b, "figures"), "wall_usec");
	assert_eq(json_number_value(json_object_get(wall, "median")), 4000000);
	/* the machine: per second 0.6 CPU-s of 2 busy, 0.5 ours: 0.4 s of 8 were others',
	 * less the rig's 0.1 s: 0.0375 */
	json_t *r0 = json_array_get(json_object_get(t, "runs"), 0);
	assert_true(fabs(json_number_value(json_object_get(r0, "other_load_share")) - 0.0375) <
	            1e-9);
	assert_true(json_is_false(json_object_get(t, "noisy")));
	json_decref(t);
	free(json);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(tm_bench_table_print(st, bench_id, f), 0);
	fclose(f);
	if (!strstr(text, "1/2 (1 oom-killed)") || !strstr(text, "×2.00"))
		fail_msg("table:\n%s", text);
	free(text);
	assert_int_equal(tm_bench_table_json(st, bench_id + 7, &json), -1);
	tm_store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store_and_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
