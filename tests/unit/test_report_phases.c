/* report/phases: a run split at marks or progress values, on constructed
 * samples: rows that add up, missing values in the middle, a phase with no
 * samples, marks out of order or outside the run, bunched progress. */
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

#include "report/phases/phases.h"

#define MIB  (1024.0 * 1024.0)
#define SEC  1000000LL
#define T0   (100 * SEC)
#define NPTS 10

/* Ten samples a second apart from T0: anon 10 MiB + i*i MiB, heap 1 MiB
 * per second, one process; sample 10 is the teardown (no process). */
static void make_pts(struct tm_phase_pt *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		p[i].t_usec = T0 + (int64_t)i * SEC;
		for (int s = 0; s < TM_PS_COUNT; s++)
			p[i].v[s] = NAN;
		p[i].v[TM_PS_ANON] = (10.0 + (double)(i * i)) * MIB;
		p[i].v[TM_PS_HEAP] = (double)i * MIB;
		for (int k = 0; k < TM_PSI_COUNT; k++)
			p[i].in[k] = NAN;
		p[i].procs = i < NPTS ? 1 : 0;
	}
}

static struct tm_phase_mark mark(double at_sec, const char *text)
{
	struct tm_phase_mark m = {.t_usec = T0 + (int64_t)(at_sec * SEC)};
	snprintf(m.text, sizeof(m.text), "%s", text);
	return m;
}

/* The sum of the phases' finite changes of series S. */
static double sum_changes(const struct tm_phases *ph, int s)
{
	double sum = 0;
	for (int k = 0; k < ph->n; k++)
		if (isfinite(ph->p[k].change[s]))
			sum += ph->p[k].change[s];
	return sum;
}

static void test_marks_add_up(void **state)
{
	struct tm_phase_pt p[NPTS + 1];
	struct tm_phase_mark mk[] = {mark(2.5, "load"), mark(6.5, "serve")};
	struct tm_phase_split split = {.kind = TM_SPLIT_MARKS};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS + 1);
	assert_int_equal(tm_phases_compute(p, NPTS + 1, NULL, 0, mk, 2, &split, &ph), 0);
	assert_int_equal(ph.n, 3);
	assert_string_equal(ph.p[0].name, "(start)");
	assert_string_equal(ph.p[1].name, "load");
	assert_string_equal(ph.p[2].name, "serve");
	/* (start): samples 0..2, load: 3..6, serve: 7..9 (10 is the teardown) */
	assert_int_equal(ph.p[0].samples, 3);
	assert_int_equal(ph.p[1].samples, 4);
	assert_int_equal(ph.p[2].samples, 3);
	assert_eq(ph.p[1].start_offset_usec, 2.5 * SEC);
	assert_eq(ph.p[1].duration_usec, 4.0 * SEC);
	assert_eq(ph.p[2].duration_usec, 2.5 * SEC);
	assert_eq(ph.p[0].start[TM_PS_ANON], 10 * MIB);
	assert_eq(ph.p[0].end[TM_PS_ANON], 14 * MIB);
	assert_eq(ph.p[1].start[TM_PS_ANON], 14 * MIB); /* where the one before ended */
	assert_eq(ph.p[1].end[TM_PS_ANON], 46 * MIB);
	assert_eq(ph.p[1].change[TM_PS_ANON], 32 * MIB);
	assert_eq(ph.p[2].end[TM_PS_ANON], 91 * MIB);
	assert_eq(ph.p[2].peak_anon_bytes, 91 * MIB);
	/* the teardown sample is not part of the run */
	assert_eq(ph.total.end[TM_PS_ANON], 91 * MIB);
	assert_eq(ph.total.change[TM_PS_ANON], 81 * MIB);
	for (int s = TM_PS_ANON; s <= TM_PS_HEAP; s++)
		assert_eq(sum_changes(&ph, s), ph.total.change[s]);
	assert_eq(ph.total.change[TM_PS_HEAP], 9 * MIB);
	assert_true(ph.has[TM_PS_ANON] && ph.has[TM_PS_HEAP] && !ph.has[TM_PS_JVM_HEAP]);
	assert_true(isnan(ph.p[1].change[TM_PS_JVM_HEAP])); /* never measured: not 0 */
	assert_true(isnan(ph.p[1].units));                  /* no progress at all */
	tm_phases_release(&ph);
}

static void test_missing_in_the_middle(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_mark mk[] = {mark(2.5, "a"), mark(6.5, "b")};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	for (int i = 3; i <= 6; i++)
		p[i].v[TM_PS_HEAP] = NAN; /* phase a has no heap reading at all */
	p[4].v[TM_PS_ANON] = NAN;         /* a gap inside phase a: its ends are still read */
	p[2].v[TM_PS_ANON] = NAN;         /* the last sample of (start) lacks anon */
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, mk, 2, NULL, &ph), 0);
	assert_int_equal(ph.n, 3);
	/* heap: (start) fine; a starts where it ended but has no reading of its
	 * own; b starts from a's missing end */
	assert_eq(ph.p[0].change[TM_PS_HEAP], 2 * MIB);
	assert_eq(ph.p[1].start[TM_PS_HEAP], 2 * MIB);
	assert_true(isnan(ph.p[1].end[TM_PS_HEAP]));
	assert_true(isnan(ph.p[1].change[TM_PS_HEAP]));
	assert_true(isnan(ph.p[2].start[TM_PS_HEAP]) && isnan(ph.p[2].change[TM_PS_HEAP]));
	assert_eq(ph.p[2].end[TM_PS_HEAP], 9 * MIB);
	/* anon: (start) ends with its last reading (sample 1), a starts there */
	assert_eq(ph.p[0].end[TM_PS_ANON], 11 * MIB);
	assert_eq(ph.p[1].start[TM_PS_ANON], 11 * MIB);
	assert_eq(ph.p[1].end[TM_PS_ANON], 46 * MIB);
	assert_eq(ph.p[1].peak_anon_bytes, 46 * MIB);
	assert_eq(sum_changes(&ph, TM_PS_ANON), ph.total.change[TM_PS_ANON]);
	/* the run's heap still goes from its first reading to its last */
	assert_eq(ph.total.change[TM_PS_HEAP], 9 * MIB);
	tm_phases_release(&ph);
}

/* A series that begins inside a phase (a JVM's counters once it is up):
 * no start or change there, nor in the run's row; the next phase starts
 * from its end. */
static void test_series_beginning_late(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_mark mk[] = {mark(2.5, "a"), mark(6.5, "b")};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	for (int i = 4; i < NPTS; i++)
		p[i].v[TM_PS_JVM_HEAP] = (double)(100 + i) * MIB;
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, mk, 2, NULL, &ph), 0);
	assert_true(isnan(ph.p[0].start[TM_PS_JVM_HEAP]) && isnan(ph.p[0].end[TM_PS_JVM_HEAP]));
	assert_true(isnan(ph.p[1].start[TM_PS_JVM_HEAP])); /* not its first reading, 104 */
	assert_eq(ph.p[1].end[TM_PS_JVM_HEAP], 106 * MIB);
	assert_true(isnan(ph.p[1].change[TM_PS_JVM_HEAP]));
	assert_eq(ph.p[2].start[TM_PS_JVM_HEAP], 106 * MIB);
	assert_eq(ph.p[2].change[TM_PS_JVM_HEAP], 3 * MIB);
	assert_true(isnan(ph.total.start[TM_PS_JVM_HEAP]) &&
	            isnan(ph.total.change[TM_PS_JVM_HEAP]));
	assert_eq(ph.total.end[TM_PS_JVM_HEAP], 109 * MIB);
	assert_true(ph.has[TM_PS_JVM_HEAP]);
	tm_phases_release(&ph);
}

static void test_phase_without_samples(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_mark mk[] = {mark(3.2, "x"), mark(3.6, "y")};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, mk, 2, NULL, &ph), 0);
	assert_int_equal(ph.n, 3);
	assert_string_equal(ph.p[1].name, "x");
	assert_int_equal(ph.p[1].samples, 0);
	assert_true(fabs(ph.p[1].duration_usec - 0.4 * SEC) < 1);
	assert_true(isnan(ph.p[1].start[TM_PS_ANON]) && isnan(ph.p[1].end[TM_PS_ANON]));
	assert_true(isnan(ph.p[1].change[TM_PS_ANON]) && isnan(ph.p[1].peak_anon_bytes));
	/* y starts where the last phase with samples ended */
	assert_eq(ph.p[2].start[TM_PS_ANON], 19 * MIB);
	assert_eq(sum_changes(&ph, TM_PS_ANON), ph.total.change[TM_PS_ANON]);
	tm_phases_release(&ph);
}

static void test_marks_out_of_order_and_outside(void **state)
{
	struct tm_phase_pt p[NPTS + 1];
	/* out of order; one before the first sample, one after the last while
	 * the process lived (at the teardown), one repeated name */
	struct tm_phase_mark mk[] = {mark(6.5, "b"), mark(-3, "boot"), mark(2.5, "b"),
	                             mark(9.5, "late")};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS + 1);
	assert_int_equal(tm_phases_compute(p, NPTS + 1, NULL, 0, mk, 4, NULL, &ph), 0);
	assert_int_equal(ph.n, 3); /* no "(start)": boot opens the run */
	assert_string_equal(ph.p[0].name, "boot");
	assert_eq(ph.p[0].start_offset_usec, 0);
	assert_eq(ph.p[0].duration_usec, 2.5 * SEC);
	assert_string_equal(ph.p[1].name, "b");
	assert_string_equal(ph.p[2].name, "b#2");
	assert_eq(ph.p[2].start_offset_usec, 6.5 * SEC);
	assert_eq(ph.p[2].end[TM_PS_ANON], 91 * MIB);
	assert_eq(sum_changes(&ph, TM_PS_ANON), ph.total.change[TM_PS_ANON]);
	assert_int_equal(ph.n_notes, 3);
	assert_non_null(strstr(ph.notes[0], "not in time order"));
	assert_non_null(strstr(ph.notes[1], "before the first sample"));
	assert_non_null(strstr(ph.notes[2], "after the last sample"));
	tm_phases_release(&ph);
}

/* Progress 10 units a second, at every sample: 0, 10, ..., 90. */
static size_t make_progress(struct tm_phase_prog *pr)
{
	for (size_t i = 0; i < NPTS; i++)
		pr[i] = (struct tm_phase_prog){T0 + (int64_t)i * SEC, 10.0 * (double)i};
	return NPTS;
}

static void test_progress_split(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_prog pr[NPTS];
	struct tm_phase_split split;
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	size_t np = make_progress(pr);
	assert_int_equal(tm_phase_split_parse("20,50,500", &split), 0);
	assert_int_equal(tm_phases_compute(p, NPTS, pr, np, NULL, 0, &split, &ph), 0);
	assert_int_equal(ph.n, 3);
	assert_string_equal(ph.p[0].name, "start..20");
	assert_string_equal(ph.p[1].name, "20..50");
	assert_string_equal(ph.p[2].name, "50..end"); /* 500 was never reached */
	assert_eq(ph.p[1].start_offset_usec, 2 * SEC);
	assert_eq(ph.p[1].units, 30);
	assert_eq(ph.p[1].change[TM_PS_ANON], (26 - 11) * MIB); /* samples 1 and 4 */
	assert_eq(ph.p[1].per_unit[TM_PS_ANON], (26 - 11) * MIB / 30);
	assert_eq(ph.p[1].rate_per_min, 30 / (3.0 / 60));
	assert_eq(ph.p[2].units, 40);
	assert_eq(ph.total.units, 90);
	assert_eq(ph.p[0].units + ph.p[1].units + ph.p[2].units, ph.total.units);
	assert_int_equal(ph.n_notes, 1);
	assert_non_null(strstr(ph.notes[0], "never reached 500"));
	tm_phases_release(&ph);
}

static void test_bunched_progress(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_prog pr[NPTS];
	struct tm_phase_mark mk[] = {mark(4.5, "b")};
	struct tm_phase_split split;
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	size_t np = make_progress(pr);
	for (size_t i = 0; i < np; i++)
		pr[i].t_usec = T0 + 9 * SEC + (int64_t)i; /* all at exit: a block-buffered pipe */
	assert_int_equal(tm_phases_compute(p, NPTS, pr, np, mk, 1, NULL, &ph), 0);
	assert_true(ph.progress_bunched);
	for (int k = 0; k < ph.n; k++) {
		assert_true(isnan(ph.p[k].units) && isnan(ph.p[k].rate_per_min));
		assert_true(isnan(ph.p[k].per_unit[TM_PS_ANON]));
		assert_true(isfinite(ph.p[k].change[TM_PS_ANON]));
	}
	tm_phases_release(&ph);
	assert_int_equal(tm_phase_split_parse("20", &split), 0);
	assert_int_equal(tm_phases_compute(p, NPTS, pr, np, NULL, 0, &split, &ph), -1);
}

/* One phase's lines came in one burst, the run's did not: that phase has
 * units but no rate. */
static void test_one_phase_bunched(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_prog pr[128];
	struct tm_phase_mark mk[] = {mark(6, "burst")};
	struct tm_phases ph;
	size_t np = 0;

	(void)state;
	make_pts(p, NPTS);
	/* 100 lines 55 ms apart, then 5 at once: no instant holds over 5 % */
	for (int i = 0; i < 100; i++)
		pr[np++] = (struct tm_phase_prog){T0 + i * 55000, (double)i};
	for (int i = 0; i < 5; i++)
		pr[np++] = (struct tm_phase_prog){T0 + 7 * SEC + i, 100.0 + i};
	assert_int_equal(tm_phases_compute(p, NPTS, pr, np, mk, 1, NULL, &ph), 0);
	assert_false(ph.progress_bunched);
	assert_int_equal(ph.n, 2);
	assert_false(ph.p[0].bunched);
	assert_float_equal(ph.p[0].rate_per_min, 99 / (6.0 / 60), 1e-9);
	assert_true(ph.p[1].bunched);
	assert_float_equal(ph.p[1].units, 5, 0);
	assert_true(isnan(ph.p[1].rate_per_min));
	assert_true(isfinite(ph.p[1].per_unit[TM_PS_ANON]));
	tm_phases_release(&ph);
}

/* The last samples while the process exits: anon falls steeply into a
 * sample with no process; they are not part of the run's last phase. */
static void test_exit_samples_left_out(void **state)
{
	struct tm_phase_pt p[NPTS + 3];
	struct tm_phase_mark mk[] = {mark(6.5, "b")};
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS + 3);
	p[NPTS].procs = p[NPTS + 1].procs = 1; /* still counted, memory going */
	p[NPTS].v[TM_PS_ANON] = 60 * MIB;
	p[NPTS + 1].v[TM_PS_ANON] = 20 * MIB;
	p[NPTS + 2].procs = 0;
	p[NPTS + 2].v[TM_PS_ANON] = 0;
	assert_int_equal(tm_phases_compute(p, NPTS + 3, NULL, 0, mk, 1, NULL, &ph), 0);
	assert_eq(ph.p[1].end[TM_PS_ANON], 91 * MIB);
	assert_int_equal(ph.p[1].samples, 3);
	assert_eq(ph.total.duration_usec, 9 * SEC);
	tm_phases_release(&ph);
	/* a process that freed memory and then lived on: its samples count */
	p[NPTS + 1].v[TM_PS_ANON] = 60 * MIB;
	assert_int_equal(tm_phases_compute(p, NPTS + 3, NULL, 0, mk, 1, NULL, &ph), 0);
	assert_eq(ph.p[1].end[TM_PS_ANON], 60 * MIB);
	tm_phases_release(&ph);
}

static void test_no_marks_and_no_samples(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phases ph;

	(void)state;
	make_pts(p, NPTS);
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, NULL, 0, NULL, &ph), 0);
	assert_int_equal(ph.n, 1);
	assert_string_equal(ph.p[0].name, "(whole run)");
	assert_eq(ph.p[0].change[TM_PS_ANON], ph.total.change[TM_PS_ANON]);
	tm_phases_release(&ph);
	for (int i = 0; i < NPTS; i++)
		p[i].procs = 0;
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, NULL, 0, NULL, &ph), 1);
}

static void test_old_after_gc(void **state)
{
	struct tm_phase_pt p[7];
	const double gc_usec[7] = {NAN, 0, 100, 100, NAN, 300, 200}; /* GC time so far */
	const double old[7] = {NAN, 5, 7, 9, NAN, 4, 6};

	(void)state;
	make_pts(p, 7);
	for (int i = 0; i < 7; i++) {
		/* its inputs: the GC time so far, the old gen (jvmphases.c) */
		p[i].in[TM_PSI_JVM_OLD_GC] = gc_usec[i];
		p[i].in[TM_PSI_JVM_OLD_GC + 1] = old[i];
	}
	tm_phase_pts_derive(p, 7);
	assert_true(isnan(p[0].v[TM_PS_JVM_OLD_GC])); /* no JVM read */
	assert_true(isnan(p[1].v[TM_PS_JVM_OLD_GC])); /* no GC yet */
	assert_eq(p[2].v[TM_PS_JVM_OLD_GC], 7);       /* the sample after the first GC */
	assert_eq(p[3].v[TM_PS_JVM_OLD_GC], 7);       /* carried: old grew since, no GC */
	assert_true(isnan(p[4].v[TM_PS_JVM_OLD_GC])); /* not read this time */
	assert_eq(p[5].v[TM_PS_JVM_OLD_GC], 4);       /* more GCs ended */
	assert_true(isnan(p[6].v[TM_PS_JVM_OLD_GC])); /* the time fell: a JVM left */
}

/* The series registry (phases.h, rtphases.h): every series has a key, a
 * label, and a value from a sample or a derive that fills it; no key twice. */
static void test_series_registry(void **state)
{
	(void)state;
	for (int s = 0; s < TM_PS_COUNT; s++) {
		const struct tm_phase_series_desc *d = tm_phase_series((enum tm_phase_series)s);
		int at, nin = tm_phase_series_inputs((enum tm_phase_series)s, &at);
		if (!d->key || !d->label || (d->src.how == TM_PH_NONE) == !d->derive ||
		    !d->derive != !nin)
			fail_msg("phase series %d (%s): key, label, or exactly one of a sample's "
			         "figure and a derive (with its inputs) missing",
			         s, d->key ? d->key : "?");
		/* its list's count of inputs is the count its descriptor names */
		for (int j = 0; j < TM_PHASE_IN_MAX; j++)
			if ((d->in[j].how != TM_PH_NONE) != (j < nin))
				fail_msg(
				    "phase series %s: input %d of its descriptor against %d in "
				    "rtphases.h",
				    d->key, j, nin);
		for (int o = 0; o < s; o++)
			if (!strcmp(tm_phase_series_key((enum tm_phase_series)o), d->key))
				fail_msg("phase series %d and %d are both '%s'", o, s, d->key);
	}
}

static void test_split_parse(void **state)
{
	struct tm_phase_split s;

	(void)state;
	assert_int_equal(tm_phase_split_parse("1000,2000,4000", &s), 0);
	assert_int_equal(s.n_at, 3);
	assert_eq(s.at[2], 4000);
	assert_eq(s.kind, TM_SPLIT_PROGRESS);
	assert_int_equal(tm_phase_split_parse("1.5", &s), 0);
	const char *bad[] = {"", ",", "10,", "10,,20", "20,10", "10,10", "abc", "10,x", "inf"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tm_phase_split_parse(bad[i], &s), -1);
}

static void test_outputs(void **state)
{
	struct tm_phase_pt p[NPTS];
	struct tm_phase_mark mk[] = {mark(3.2, "x"), mark(3.6, "y")};
	struct tm_phases ph;
	char *buf = NULL;
	size_t len = 0;

	(void)state;
	make_pts(p, NPTS);
	assert_int_equal(tm_phases_compute(p, NPTS, NULL, 0, mk, 2, NULL, &ph), 0);
	json_t *o = tm_phases_json(&ph);
	json_t *x = json_array_get(json_object_get(o, "phases"), 1);
	assert_string_equal(json_string_value(json_object_get(x, "name")), "x");
	assert_true(json_is_null(json_object_get(x, "anon_change_bytes")));
	assert_true(json_is_null(json_object_get(x, "heap_live_start_bytes")));
	assert_true(json_number_value(json_object_get(x, "duration_usec")) > 0);
	json_t *tot = json_object_get(o, "total");
	assert_eq(json_number_value(json_object_get(tot, "anon_change_bytes")), 81 * MIB);
	json_decref(o);
	FILE *f = open_memstream(&buf, &len);
	tm_phases_write_text(&ph, f);
	fclose(f);
	/* x: no samples, so n/a where a number would be */
	assert_non_null(strstr(buf, "  x  "));
	assert_non_null(strstr(buf, "n/a"));
	assert_null(strstr(buf, "nan"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	tm_phases_write_csv(&ph, f);
	fclose(f);
	assert_non_null(strstr(buf, "row,phase,samples,start_offset_usec"));
	assert_non_null(strstr(buf, "\nphase,x,0,"));
	assert_non_null(strstr(buf, "\ntotal,run,"));
	free(buf);
	tm_phases_release(&ph);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_marks_add_up),
	    cmocka_unit_test(test_missing_in_the_middle),
	    cmocka_unit_test(test_series_beginning_late),
	    cmocka_unit_test(test_phase_without_samples),
	    cmocka_unit_test(test_marks_out_of_order_and_outside),
	    cmocka_unit_test(test_progress_split),
	    cmocka_unit_test(test_bunched_progress),
	    cmocka_unit_test(test_one_phase_bunched),
	    cmocka_unit_test(test_exit_samples_left_out),
	    cmocka_unit_test(test_no_marks_and_no_samples),
	    cmocka_unit_test(test_old_after_gc),
	    cmocka_unit_test(test_series_registry),
	    cmocka_unit_test(test_split_parse),
	    cmocka_unit_test(test_outputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
