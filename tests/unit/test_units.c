/* Work without a progress line: --units N and --units-from as a run's
 * "units" event, read back into a summary's cost per unit. */
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

#include "record/recorder.h"
#include "record/units.h"
#include "report/run/summary.h"
#include "store/store.h"
#include "store_fixture.h"
#include "base/banned.h"

static struct store_fixture *fx;

static struct tm_store *fresh(int64_t *run_id)
{
	fx = store_fixture_open("units-test");
	*run_id = store_fixture_run(fx->st);
	return fx->st;
}

static void done(struct tm_store *st)
{
	assert_ptr_equal(st, fx->st);
	store_fixture_close(fx);
}

static void blank(struct tm_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->duration_usec = 2e6; /* 2 s */
	s->cpu_usec = 1e6;      /* 1 s */
	s->cpu_usec_per_unit = NAN;
}

static void test_parse(void **state)
{
	double v;
	(void)state;
	assert_int_equal(tm_parse_units("12345", &v), 0);
	assert_eq(v, 12345);
	assert_int_equal(tm_parse_units("1.5e3", &v), 0);
	assert_eq(v, 1500);
	static const char *bad[] = {"0", "-3", "", "abc", "12x", "inf", "nan"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tm_parse_units(bad[i], &v), -1);
}

static void test_given(void **state)
{
	int64_t run;
	struct tm_store *st = fresh(&run);
	struct tm_summary s;
	(void)state;

	blank(&s);
	assert_int_equal(tm_summary_units(st, run, &s), 0);
	assert_true(isnan(s.units) && isnan(s.cpu_usec_per_unit)); /* none given: none */
	assert_int_equal(tm_record_units(st, run, 400.5, "--units"), 0);
	blank(&s);
	assert_int_equal(tm_summary_units(st, run, &s), 0);
	assert_eq(s.units, 400.5); /* exact, not the rounded event value */
	assert_string_equal(s.units_source, "--units");
	assert_true(fabs(s.cpu_usec_per_unit - 1e6 / 400.5) < 1e-9);
	assert_true(fabs(s.wall_usec_per_unit - 2e6 / 400.5) < 1e-9);
	assert_true(fabs(s.units_per_min - 400.5 * 30) < 1e-9);
	/* a fit from a progress line is kept */
	blank(&s);
	s.cpu_usec_per_unit = 7;
	assert_int_equal(tm_summary_units(st, run, &s), 0);
	assert_eq(s.cpu_usec_per_unit, 7);
	assert_int_equal(tm_record_units(st, run, 0, "--units"), -1);
	done(st);
}

static void test_from_output(void **state)
{
	int64_t run;
	struct tm_store *st = fresh(&run);
	struct tm_record_opts o;
	struct tm_summary s;
	(void)state;

	tm_record_opts_init(&o);
	o.units_from = "rows=([0-9]+)";
	/* nothing matched: a warning, no units */
	assert_int_equal(tm_record_units_after(st, run, &o), 0);
	blank(&s);
	assert_int_equal(tm_summary_units(st, run, &s), 0);
	assert_true(isnan(s.units));
	/* the last value matched is the work done */
	assert_int_equal(tm_store_add_progress(st, run, 1, 1, 100), 0);
	assert_int_equal(tm_store_add_progress(st, run, 2, 2, 4000), 0);
	assert_int_equal(tm_store_commit(st), 0);
	assert_int_equal(tm_record_units_after(st, run, &o), 0);
	blank(&s);
	assert_int_equal(tm_summary_units(st, run, &s), 0);
	assert_eq(s.units, 4000);
	assert_string_equal(s.units_source, "--units-from");
	done(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_given),
	    cmocka_unit_test(test_from_output),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
