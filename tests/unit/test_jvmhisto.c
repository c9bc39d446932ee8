/* runtime/jvmhisto: jcmd GC.class_histogram's text from a real OpenJDK 17
 * (tests/fixtures/jvmhisto): the rows, their modules left out, the totals;
 * jcmd's own error quoted; a table cut short or a bad row refused with its
 * line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/error.h"
#include "runtime/jvmhisto.h"

#include "kern_fixture.h"

static void real_histogram(void **state)
{
	struct tm_jvm_histo h;
	struct tm_err err = {0};
	size_t len;
	char *text = fixture("jvmhisto/oldfill.txt", &len);

	(void)state;
	assert_int_equal(tm_jvm_histo_parse(text, len, &h, &err), 0);
	assert_int_equal(h.classes, 183);
	assert_int_equal(h.n_top, TM_JH_TOP);
	assert_string_equal(h.top[0].name, "OldFill$Sidecar");
	assert_int_equal(h.top[0].instances, 300000);
	assert_int_equal(h.top[0].bytes, 19200000);
	assert_string_equal(h.top[1].name, "[Ljava.lang.Object;"); /* "(java.base@...)" left out */
	assert_int_equal(h.total_instances, 309302);
	assert_int_equal(h.total_bytes, 21103096);
	free(text);
}

static void attach_failed(void **state)
{
	struct tm_jvm_histo h;
	struct tm_err err = {0};
	size_t len;
	char *text = fixture("jvmhisto/attach-failed.txt", &len);

	(void)state;
	assert_int_equal(tm_jvm_histo_parse(text, len, &h, &err), -1);
	assert_non_null(strstr(err.msg, "no table in jcmd's answer ('8457:')"));
	free(text);
}

static void cut_and_bad(void **state)
{
	struct tm_jvm_histo h;
	struct tm_err err = {0};
	size_t len;
	char *text = fixture("jvmhisto/oldfill.txt", &len);

	(void)state;
	/* cut before the Total line */
	assert_int_equal(tm_jvm_histo_parse(text, len / 2, &h, &err), -1);
	assert_non_null(strstr(err.msg, "cut short"));
	/* a row whose bytes are not a number: line 5 */
	char *row = strstr(text, "   2:");
	memcpy(strstr(row, "1482248"), "14x2248", 7);
	assert_int_equal(tm_jvm_histo_parse(text, len, &h, &err), -1);
	assert_string_equal(err.msg, "class histogram: bad row on line 5");
	/* nothing at all */
	assert_int_equal(tm_jvm_histo_parse(text, 0, &h, &err), -1);
	assert_string_equal(err.msg, "class histogram: no table in jcmd's answer ('')");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(real_histogram),
	    cmocka_unit_test(attach_failed),
	    cmocka_unit_test(cut_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
