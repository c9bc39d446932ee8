/* The one size grammar (include/tidemark-size.h) and the option tables (base/opt.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "bench/bench.h"
#include "cgroup/limits.h"
#include "record/options.h"
#include "tidemark-size.h"

static void test_size_good(void **state)
{
	static const struct {
		const char *text;
		int64_t bytes;
	} good[] = {
	    {"0", 0},
	    {"4096", 4096},
	    {"4096B", 4096},
	    {"512K", 524288},
	    {"512k", 524288},
	    {"512KB", 524288},
	    {"512KiB", 524288},
	    {"1M", 1048576},
	    {"1m", 1048576},
	    {"1.5M", 1572864},
	    {"1.5MiB", 1572864},
	    {"0.5K", 512},
	    {"1.25G", 1342177280},
	    {"2T", 2199023255552},
	    {"1.000001K", 1024},
	    {"0.5", 1}, /* a fraction of a byte rounds to the nearest */
	    {"max", INT64_MAX},
	    {"infinity", INT64_MAX},
	};
	(void)state;
	for (size_t i = 0; i < TM_ARRAY_SIZE(good); i++) {
		int64_t v = -1, w = -1;
		if (tm_size_parse(good[i].text, &v))
			fail_msg("'%s' refused", good[i].text);
		assert_int_equal(v, good[i].bytes);
		/* the tool's parser is the same grammar */
		assert_int_equal(tm_parse_size(good[i].text, &w), 0);
		assert_int_equal(w, v);
	}
}

static void test_size_bad(void **state)
{
	static const char *bad[] = {
	    "",
	    "M",
	    "-1",
	    "+1",
	    " 1",
	    "1 ",
	    "1.",
	    ".5",
	    "1.5x",
	    "1e3",
	    "0x10",
	    "1MM",
	    "1Mi",
	    "1MIB",
	    "1b",
	    "1KBB",
	    "lots",
	    "nan",
	    "inf",
	    "1.1234567",
	    "9223372036854775807",
	    "8E",
	    "9999999999999999999",
	    "8388608T",
	    "MAX",
	};
	(void)state;
	for (size_t i = 0; i < TM_ARRAY_SIZE(bad); i++) {
		int64_t v = 42;
		if (tm_size_parse(bad[i], &v) == 0)
			fail_msg("'%s' accepted as %lld", bad[i], (long long)v);
		assert_int_equal(v, 42); /* untouched */
	}
	assert_int_equal(tm_size_parse(NULL, &(int64_t){0}), -1);
}

struct demo {
	int64_t runs, wait_usec, limit_bytes;
	double until;
	bool until_set, quiet;
	char *name;
	int order;
};

static const char *const orders[] = {"interleave", "shuffle", NULL};

static const struct tm_opt demo_opts[] = {
    {.flag = "runs",
     .short_name = 'n',
     .key = "Runs",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_COUNT,
     .off = offsetof(struct demo, runs),
     .min = 1,
     .max = 1000},
    {.flag = "wait",
     .key = "Wait",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_DURATION,
     .off = offsetof(struct demo, wait_usec),
     .min = 50000,
     .max = TM_OPT_NO_MAX},
    {.flag = "limit",
     .key = "Limit",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_SIZE,
     .off = offsetof(struct demo, limit_bytes),
     .max = TM_OPT_NO_MAX},
    {.flag = "until",
     .key = "Until",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_NUMBER,
     .off = offsetof(struct demo, until),
     .set_off = offsetof(struct demo, until_set)},
    {.flag = "quiet",
     .short_name = 'q',
     .key = "Quiet",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_BOOL,
     .off = offsetof(struct demo, quiet)},
    {.flag = "name",
     .key = "Name",
     .scopes = TM_OPT_FILE,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = offsetof(struct demo, name)},
    {.flag = "order",
     .key = "Order",
     .scopes = TM_OPT_OTHER | TM_OPT_FILE,
     .type = TM_OPT_CHOICE,
     .off = offsetof(struct demo, order),
     .choices = orders},
    {.type = TM_OPT_END},
};

static void expect_key_error(const char *key, const char *value, const char *want)
{
	struct demo d = {0};
	const struct tm_optset set = {demo_opts, &d};
	struct tm_err why;

	assert_int_equal(tm_opts_set_key(&set, 1, key, value, &why), -1);
	assert_string_equal(why.msg, want);
	tm_opts_release(&set, 1);
}

static void test_opts_file(void **state)
{
	struct demo d = {0};
	const struct tm_optset set = {demo_opts, &d};
	struct tm_err why;
	(void)state;

	assert_int_equal(tm_opts_set_key(&set, 1, "Runs", "7", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Wait", "1.5s", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Limit", "1.5M", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Until", "12.5", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Quiet", "yes", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Name", "a", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Name", "b", &why), 0); /* replaces */
	assert_int_equal(tm_opts_set_key(&set, 1, "Order", "shuffle", &why), 0);
	assert_int_equal(tm_opts_set_key(&set, 1, "Colour", "red", &why), 1);
	assert_int_equal(d.runs, 7);
	assert_int_equal(d.wait_usec, 1500000);
	assert_int_equal(d.limit_bytes, 1572864);
	assert_true(d.until_set);
	assert_eq(d.until, 12.5);
	assert_true(d.quiet);
	assert_string_equal(d.name, "b");
	assert_int_equal(d.order, 1);
	tm_opts_release(&set, 1);
	assert_null(d.name);

	expect_key_error("Runs", "0", "Runs '0': expected a count from 1 to 1000");
	expect_key_error("Runs", "5000", "Runs '5000': expected a count from 1 to 1000");
	expect_key_error("Wait", "10ms",
	                 "Wait '10ms': expected a duration of at least 50ms (e.g. "
	                 "250ms, 30s, 2m)");
	expect_key_error("Limit", "1.5x", "Limit '1.5x': expected " TM_SIZE_EXPECT);
	expect_key_error("Until", "inf", "Until 'inf': expected a number");
	expect_key_error("Quiet", "maybe", "Quiet 'maybe': expected yes or no");
	expect_key_error("Name", "", "Name '': expected a non-empty value");
	expect_key_error("Order", "random", "Order 'random': expected interleave or shuffle");
}

static void test_opts_argv(void **state)
{
	struct demo d = {.runs = 3};
	const struct tm_optset set = {demo_opts, &d};
	char *argv[] = {"x",       "-n",   "9",  "--wait=2s", "-q", "--order",
	                "shuffle", "rest", "-n", "1",         NULL};
	int next = 0;
	(void)state;

	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 10, argv, &next), 0);
	assert_int_equal(next, 7); /* stops at the first operand */
	assert_int_equal(d.runs, 9);
	assert_int_equal(d.wait_usec, 2000000);
	assert_true(d.quiet);
	assert_int_equal(d.order, 1);

	char *bad[] = {"x", "--runs", "0", NULL};
	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 3, bad, &next), -1);
	char *unknown[] = {"x", "--bogus", NULL};
	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 2, unknown, &next), -1);
	char *file_only[] = {"x", "--name", "n", NULL}; /* Name= is not a flag of this scope */
	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 3, file_only, &next), -1);
	char *missing[] = {"x", "--runs", NULL};
	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 2, missing, &next), -1);
	char *help[] = {"x", "-h", NULL};
	assert_int_equal(tm_opts_parse(&set, 1, TM_OPT_OTHER, "x", 2, help, &next), 1);
	tm_opts_release(&set, 1);
}

static void test_fmt_duration(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(tm_fmt_duration(b, sizeof(b), 1000000), "1s");
	assert_string_equal(tm_fmt_duration(b, sizeof(b), 200000), "200ms");
	assert_string_equal(tm_fmt_duration(b, sizeof(b), 120000000), "2m");
	assert_string_equal(tm_fmt_duration(b, sizeof(b), 7200000000), "2h");
	assert_string_equal(tm_fmt_duration(b, sizeof(b), 1500), "1500us");
}

/* The recorder's table: what record, bench and the file share. */
static void test_record_table(void **state)
{
	struct tm_record_opts o;
	const struct tm_optset set = {tm_record_options, &o};
	struct tm_err why;
	(void)state;

	tm_record_opts_init(&o);
	assert_int_equal(tm_opts_set_key(&set, 1, "Interval", "250ms", &why), 0);
	assert_int_equal(o.interval_usec, 250000);
	assert_int_equal(tm_opts_set_key(&set, 1, "MemoryMax", "1.5G", &why), 0);
	assert_int_equal(o.limits.memory_max_bytes, 1610612736);
	assert_int_equal(tm_opts_set_key(&set, 1, "MemoryHigh", "1K", &why), -1);
	assert_non_null(strstr(why.msg, "MemoryHigh 1024 bytes is below 128 KiB"));
	assert_int_equal(tm_opts_set_key(&set, 1, "UntilProgress", "7", &why), 0);
	assert_true(o.stop_at_progress);
	assert_int_equal(tm_opts_set_key(&set, 1, "Units", "0", &why), -1);
	assert_string_equal(why.msg, "Units '0': expected a count above 0");
	/* record-only options are no file keys */
	assert_int_equal(tm_opts_set_key(&set, 1, "Pid", "1", &why), 1);

	/* the checks that need only the options */
	char *argv[] = {"true", NULL};
	o.argv = argv;
	assert_int_equal(tm_record_opts_check(&o, true), -1); /* --until-progress, no regex */
	assert_int_equal(tm_opts_set_key(&set, 1, "Progress", "h=([0-9]+)", &why), 0);
	assert_int_equal(tm_record_opts_check(&o, true), 0);
	o.heap_every_usec = 5000000;
	assert_int_equal(tm_record_opts_check(&o, true), -1); /* --heap-every, no profile */
	o.heap_every_usec = 0;
	o.argv = NULL;
	assert_int_equal(tm_record_opts_check(&o, true), -1); /* no target */
	assert_int_equal(tm_record_opts_check(&o, false), 0); /* bench: the runner gives one */
	tm_opts_release(&set, 1);
	assert_null(o.progress_regex);
}

/* The bench's custom options and the limits' floor say why through a
 * struct tm_err (base/opt.h's parse and check), the words unchanged. */
static void test_bench_table_err(void **state)
{
	struct tm_bench_spec sp;
	struct tm_optset sets[TM_BENCH_OPTSETS];
	struct tm_err why;
	(void)state;

	tm_bench_spec_init(&sp);
	tm_bench_optsets(&sp, sets);
	assert_int_equal(tm_opts_set_key(sets, TM_BENCH_OPTSETS, "Sweep", "MemoryMax", &why), -1);
	assert_string_equal(why.msg, "Sweep 'MemoryMax': expected MemoryMax=LO..HI or "
	                             "MemoryHigh=LO..HI");
	assert_int_equal(
	    tm_opts_set_key(sets, TM_BENCH_OPTSETS, "Sweep", "MemorySwapMax=1M..2M", &why), -1);
	assert_string_equal(
	    why.msg, "Sweep 'MemorySwapMax=1M..2M': only MemoryMax or MemoryHigh can be swept");
	assert_int_equal(tm_opts_set_key(sets, TM_BENCH_OPTSETS, "Sweep", "MemoryMax=2M..1M", &why),
	                 -1);
	assert_string_equal(
	    why.msg, "Sweep 'MemoryMax=2M..1M': expected sizes LO < HI, e.g. MemoryMax=256M..1G");
	assert_int_equal(
	    tm_opts_set_key(sets, TM_BENCH_OPTSETS, "Sweep", "MemoryHigh=1M..2M", &why), 0);
	assert_int_equal(sp.sweep.limit, TM_SWEEP_MEMORY_HIGH);
	tm_bench_spec_release(&sp);

	struct tm_err e;
	assert_int_equal(tm_limit_floor_why(1024, &e), -1);
	assert_string_equal(e.msg,
	                    "1024 bytes is below 128 KiB, the least any program can start in"
	                    " (a new process's page tables, kernel stack and first pages are"
	                    " charged to its cgroup; under that it is killed before it runs)");
	assert_int_equal(tm_limit_floor_why(1024, NULL), -1); /* the reason dropped */
	assert_int_equal(tm_limit_floor_why(TM_LIMIT_FLOOR_BYTES, &e), 0);
	assert_int_equal(tm_limit_floor_why(-1, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_good),       cmocka_unit_test(test_size_bad),
	    cmocka_unit_test(test_opts_file),       cmocka_unit_test(test_opts_argv),
	    cmocka_unit_test(test_fmt_duration),    cmocka_unit_test(test_record_table),
	    cmocka_unit_test(test_bench_table_err),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
