/* Every metric of the registry (base/metrics.h) has a real HELP line in
 * the Prometheus exposition: adding a metric without one fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/metrics.h"
#include "serve/promfmt.h"
#include "base/banned.h"

static void test_every_metric_has_help(void **state)
{
	(void)state;
	int missing = 0;

	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		char name[128], label[64];
		double scale;
		tm_prom_name((enum tm_metric)m, name, sizeof(name), label, sizeof(label), &scale);
		const char *h = tm_prom_help((enum tm_metric)m, name);
		if (!h || strlen(h) < 10 || strstr(h, "see docs")) {
			print_error("metric %s (%s): HELP '%s'\n",
			            tm_metric_info((enum tm_metric)m)->name, name,
			            h ? h : "(none)");
			missing++;
		}
	}
	/* and the families that are no sample metric (progress) */
	int extra = 0;
	for (const struct tm_prom_family *f = tm_prom_extra_families; f->name; f++, extra++)
		if (!f->help || strlen(f->help) < 10 || strstr(f->help, "see docs") ||
		    strncmp(f->name, "tidemark_", 9) || !f->type) {
			print_error("family %s: HELP '%s'\n", f->name,
			            f->help ? f->help : "(none)");
			missing++;
		}
	assert_true(extra >= 2);
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_metric_has_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
