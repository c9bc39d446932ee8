/* sysd/unit: unit names checked and completed as systemctl does. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_completed),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
