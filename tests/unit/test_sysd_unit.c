/* sysd/unit: unit names checked and completed as systemctl does; what a
 * unit's state says of a run's invocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "sysd/unit.h"

static void ok_as(const char *name, const char *want)
{
	char out[TM_SDUNIT_NAME_MAX];
	struct tm_err why = {0};
	if (tm_sdunit_name_normalize(name, out, &why))
		fail_msg("'%s' refused: %s", name, why.msg);
	assert_string_equal(out, want);
}

static void refused(const char *name, const char *says)
{
	char out[TM_SDUNIT_NAME_MAX];
	struct tm_err why = {0};
	assert_int_equal(tm_sdunit_name_normalize(name, out, &why), -1);
	if (!strstr(why.msg, says))
		fail_msg("'%s': '%s' does not say '%s'", name, why.msg, says);
}

static void test_completed(void **state)
{
	(void)state;
	ok_as("bitcoind", "bitcoind.service");
	ok_as("bitcoind.service", "bitcoind.service");
	ok_as("getty@tty1.service", "getty@tty1.service");
	ok_as("getty@tty1", "getty@tty1.service");
	ok_as("app.slice", "app.slice");
	ok_as("run-u12.scope", "run-u12.scope");
	ok_as("my.app", "my.app.service"); /* not a unit type: systemctl adds .service too */
	ok_as("a\\x2db:c_d-e", "a\\x2db:c_d-e.service");
}

static void test_refused(void **state)
{
	(void)state;
	char long_name[300];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	refused("", "expected a unit name");
	refused("a b", "a unit name has only");
	refused("x/y.service", "a unit name has only");
	refused("x;rm", "a unit name has only");
	refused("multi-user.target", "no cgroup of its own");
	refused("daily.timer", "no cgroup of its own");
	refused("foo@.service", "a template");
	refused("@x.service", "not a valid unit name");
	refused("a@b@c.service", "not a valid unit name");
	refused(".service", "not a valid unit name");
	refused(long_name, "at most 255");
}

static struct tm_sdunit_state state(const char *active, const char *invocation)
{
	struct tm_sdunit_state st = {0};
	snprintf(st.active_state, sizeof(st.active_state), "%s", active);
	snprintf(st.invocation, sizeof(st.invocation), "%s", invocation);
	st.running = strcmp(active, "inactive") != 0 && strcmp(active, "failed") != 0;
	return st;
}

/* What a look at the unit says of the run's invocation; a stop caught
 * between two property reads (deactivating, its invocation gone) is not a
 * restart (v2/unit once ended a run as "started again (invocation )") */
static void test_change(void **unused)
{
	(void)unused;
	const char *a = "0123456789abcdef0123456789abcdef", *b = "fedcba9876543210fedcba9876543210";
	struct tm_sdunit_state st = state("active", a);
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_SAME);
	st = state("deactivating", a);
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_SAME);
	st = state("active", b);
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_RESTARTED);
	st = state("deactivating", "");
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_UNSURE);
	st = state("inactive", "");
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_STOPPED);
	st = state("failed", a);
	assert_int_equal(tm_sdunit_change(&st, a), TM_SDUNIT_STOPPED);
	/* a systemd that gives no invocation at all: the run's is "" too */
	st = state("active", "");
	assert_int_equal(tm_sdunit_change(&st, ""), TM_SDUNIT_SAME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_completed),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_change),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
