/* guard/rule: every condition kind in the registry parses its example and
 * fires over synthetic samples at the samples its meaning says; the
 * parser's errors; the snapshot kinds' registry; the snapshots table; and
 * tm_guard_run's dry-run over a stored run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/error.h"
#include "assert_eq.h"
#include "guard/guard.h"
#include "guard/rule.h"
#include "snap/kinds.h"
#include "store/snapshots.h"
#include "store/store.h"
#include "store_fixture.h"

#define SEC 1000000LL

static struct tm_guard_rule parse_ok(const char *text)
{
	struct tm_guard_rule r;
	struct tm_err why = {0};
	if (tm_guard_rule_parse(text, &r, &why) < 0)
		fail_msg("'%s' did not parse: %s", text, why.msg);
	return r;
}

static void test_registry(void **state)
{
	(void)state;
	for (int k = 0; k < TM_GUARD_KIND_COUNT; k++) {
		const struct tm_guard_kind_desc *d = tm_guard_kind_desc((enum tm_guard_kind)k);
		assert_non_null(d);
		assert_non_null(d->name);
		assert_non_null(d->syntax);
		assert_non_null(d->meaning);
		struct tm_guard_rule r = parse_ok(d->example);
		assert_eq(r.kind, k);
	}
	assert_null(tm_guard_kind_desc(TM_GUARD_KIND_COUNT));
	for (int k = 0; k < TM_SNAP_KIND_COUNT; k++) {
		const struct tm_snap_kind_desc *d = tm_snap_kind_desc((enum tm_snap_kind)k);
		assert_non_null(d);
		assert_non_null(d->name);
		assert_non_null(d->take);
		assert_non_null(d->what);
		assert_eq(tm_snap_kind_by_name(d->name), k);
	}
	assert_eq(tm_snap_kind_by_name("nope"), -1);
}

static void test_parse(void **state)
{
	(void)state;
	struct tm_guard_rule r = parse_ok(" anon > 90% max ");
	assert_eq(r.kind, TM_GUARD_LEVEL);
	assert_eq(r.metric, TM_M_CG_ANON_BYTES);
	assert_eq(r.ref, TM_GUARD_REF_MAX);
	assert_true(r.share > 0.899 && r.share < 0.901);
	assert_string_equal(r.text, "anon>90%max");
	r = parse_ok("current>80%high for 1m");
	assert_eq(r.metric, TM_M_CG_CURRENT_BYTES);
	assert_eq(r.ref, TM_GUARD_REF_HIGH);
	assert_eq(r.for_usec, 60 * SEC);
	r = parse_ok("anon>1.5G");
	assert_eq(r.ref, TM_GUARD_REF_BYTES);
	assert_eq(r.bytes, 1536LL * 1024 * 1024);
	r = parse_ok("high_events>2.5/s for 10s");
	assert_eq(r.kind, TM_GUARD_HIGH_RATE);
	assert_true(r.per_sec == 2.5);
	assert_eq(r.for_usec, 10 * SEC);
	r = parse_ok("host_psi_full>5%");
	assert_eq(r.metric, TM_M_HOST_PSI_MEM_FULL_USEC);
	r = parse_ok("jvm_old>2G x4");
	assert_eq(r.kind, TM_GUARD_JVM_OLD);
	assert_eq(r.count, 4);
	assert_eq(r.bytes, 2048LL * 1024 * 1024);
	r = parse_ok("jvm_old>85%committed");
	assert_eq(r.count, 1);
	r = parse_ok("heap_live grows for 90s");
	assert_eq(r.kind, TM_GUARD_HEAP_GROWS);
	assert_eq(r.for_usec, 90 * SEC);
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *says;
	} bad[] = {
	    {"", "expected anon"},
	    {"rss>90%max", "expected anon"},
	    {"anon<90%max", "expected '>'"},
	    {"anon>90%", "needs max or high"},
	    {"anon>90%swap", "needs max or high"},
	    {"anon>0%max", "expected a share"},
	    {"anon>2000%max", "at most 1000%"},
	    {"anon>lots", "a size (2G)"},
	    {"anon>2G for", "expected a duration"},
	    {"anon>2G for 0s", "expected a duration"},
	    {"anon>2G junk", "a size (2G)"},
	    {"anon>90%max x3", "unexpected text"},
	    {"high_events>5", "a rate such as 5/s"},
	    {"psi_full>120%", "at most 100%"},
	    {"jvm_old>85%max", "no old generation maximum"},
	    {"jvm_old>85%committed x0", "count of GCs"},
	    {"jvm_old>85%committed for 3s", "counts GCs"},
	    {"heap_live>1G", "expected 'grows'"},
	    {"heap_live grows", "needs 'for DUR'"},
	    {"anon>90%max\x01", "printable"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tm_guard_rule r;
		struct tm_err why = {0};
		if (tm_guard_rule_parse(bad[i].text, &r, &why) == 0)
			fail_msg("'%s' parsed; expected an error saying '%s'", bad[i].text,
			         bad[i].says);
		if (!strstr(why.msg, bad[i].says))
			fail_msg("'%s': said '%s', expected it to say '%s'", bad[i].text, why.msg,
			         bad[i].says);
	}
	/* any bytes: an answer, never a crash (a cheap fuzz of the grammar) */
	srand(7);
	for (int n = 0; n < 20000; n++) {
		char text[24];
		struct tm_err why = {0};
		struct tm_guard_rule r;
		static const char alpha[] = "anoncurt_hevspflljmdgwx>%/.0123456789 GMKfor";
		size_t len = (size_t)rand() % (sizeof(text) - 1);
		for (size_t i = 0; i < len; i++)
			text[i] = alpha[rand() % (int)(sizeof(alpha) - 1)];
		text[len] = 0;
		(void)tm_guard_rule_parse(text, &r, &why);
	}
}

/* One synthetic sample: seq I at I seconds, with up to three metrics. */
struct pt {
	enum tm_metric m[3];
	int64_t v[3];
	int n;
};

static void make(struct tm_sample *s, int i, const struct pt *p)
{
	tm_sample_clear(s);
	s->seq = i;
	s->t_mono_usec = 1000 * SEC + i * SEC;
	s->t_wall_usec = 1700000000 * SEC + i * SEC;
	for (int k = 0; k < p->n; k++)
		tm_sample_set(s, p->m[k], p->v[k]);
}

/* The seqs at which TEXT fires over PTS, as "1,4". */
static void fires(const char *text, const struct pt *pts, int n, const char *want)
{
	struct tm_guard_rule r = parse_ok(text);
	struct tm_guard_state st = {0};
	struct tm_sample s;
	char got[128] = "";
	for (int i = 0; i < n; i++) {
		make(&s, i, &pts[i]);
		if (tm_guard_rule_step(&r, &st, &s))
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%d",
			         *got ? "," : "", i);
	}
	if (strcmp(got, want))
		fail_msg("'%s' fired at samples '%s', expected '%s'", text, got, want);
}

#define A  TM_M_CG_ANON_BYTES
#define MX TM_M_CG_MAX_BYTES
#define LVL(v, max)                                                                                \
	{                                                                                          \
		{A, MX}, {v, max}, 2                                                               \
	}

static void test_level(void **state)
{
	(void)state;
	const struct pt p[] = {LVL(50, 100), LVL(95, 100),   LVL(96, 100), LVL(80, 100),
	                       LVL(91, 100), {{A}, {99}, 1}, LVL(99, -1),  LVL(92, 100)};
	/* absent or unlimited max: unknown, not true, and it re-arms */
	fires("anon>90%max", p, 8, "1,4,7");
	fires("anon>90%max for 1s", p, 8, "2");
	fires("anon>95", p, 8, "2,5");
}

static void test_high_rate(void **state)
{
	(void)state;
	enum tm_metric h = TM_M_CG_EVENTS_HIGH;
	const struct pt p[] = {{{h}, {0}, 1},  {{h}, {2}, 1},  {{h}, {10}, 1},
	                       {{h}, {20}, 1}, {{h}, {21}, 1}, {{h}, {30}, 1}};
	fires("high_events>5/s", p, 6, "2,5");
	fires("high_events>5/s for 1s", p, 6, "3");
}

static void test_psi_full(void **state)
{
	(void)state;
	enum tm_metric f = TM_M_CG_PSI_MEM_FULL_USEC;
	const struct pt p[] = {{{f}, {0}, 1},
	                       {{f}, {200000}, 1},
	                       {{f}, {400000}, 1},
	                       {{f}, {600000}, 1},
	                       {{f}, {650000}, 1},
	                       {{f}, {900000}, 1},
	                       {{TM_M_CG_ANON_BYTES}, {1}, 1},
	                       {{f}, {1200000}, 1}};
	fires("psi_full>10%for2s", p, 8, "3");
	fires("psi_full>10%", p, 8, "1,5");
}

static void test_jvm_old(void **state)
{
	(void)state;
	enum tm_metric g = TM_M_JVM_LOG_GCS, o = TM_M_JVM_LOG_OLD_AFTER_BYTES,
	               c = TM_M_JVM_OLD_COMMITTED_BYTES;
#define GC(n, old)                                                                                 \
	{                                                                                          \
		{g, o, c}, {n, old, 100}, 3                                                        \
	}
	const struct pt p[] = {GC(0, 10), GC(1, 90), GC(1, 90), GC(2, 95), GC(3, 50),
	                       GC(4, 90), GC(5, 90), GC(5, 90), GC(6, 99)};
#undef GC
	fires("jvm_old>85%committed x2", p, 9, "3,6");
	fires("jvm_old>85%committed", p, 9, "1,5");
	fires("jvm_old>91 x1", p, 9, "3,8");
}

static void test_heap_grows(void **state)
{
	(void)state;
	enum tm_metric h = TM_M_HEAP_LIVE_BYTES;
	const struct pt p[] = {{{h}, {10}, 1}, {{h}, {12}, 1}, {{h}, {11}, 1}, {{h}, {13}, 1},
	                       {{h}, {14}, 1}, {{h}, {15}, 1}, {{h}, {9}, 1},  {{h}, {10}, 1},
	                       {{h}, {10}, 1}, {{h}, {9}, 1},  {{h}, {9}, 1},  {{h}, {9}, 1},
	                       {{h}, {9}, 1},  {{h}, {9}, 1}};
	/* a plateau is not growth: 9 for 4 s does not fire */
	fires("heap_live grows for 3s", p, 14, "3");
	fires("heap_live grows for 1s", p, 14, "1,7");
}

static int see_row(void *ctx, const struct tm_snapshot_row *r)
{
	char *got = ctx;
	size_t n = strlen(got);
	snprintf(got + n, 512 - n, "%lld %s %s %lld %s %s %lld %d|", (long long)r->wall_usec,
	         r->rule, r->kind, (long long)r->pid, r->path ? r->path : "NULL",
	         r->summary ? r->summary : "NULL", (long long)r->file_bytes, r->ok);
	return 0;
}

static void test_snapshots_table(void **state)
{
	(void)state;
	struct store_fixture *f = store_fixture_open("guard-snap");
	int64_t run = store_fixture_run(f->st);
	char got[512] = "";
	assert_eq(tm_store_commit(f->st), 0);
	/* a store without the table: a walk of nothing */
	assert_eq(tm_store_each_snapshot(f->st, run, see_row, got), 0);
	assert_string_equal(got, "");
	struct tm_snapshot_row r = {.run_id = run,
	                            .wall_usec = 5,
	                            .taken_usec = 6,
	                            .rule = "anon>1G",
	                            .kind = "heap_profile",
	                            .pid = 42,
	                            .path = "/x/heap.pb.gz",
	                            .summary = "live 1 MiB",
	                            .file_bytes = 123,
	                            .ok = true};
	assert_eq(tm_store_snapshot_add(f->st, &r), 0);
	r = (struct tm_snapshot_row){.run_id = run,
	                             .wall_usec = 4,
	                             .taken_usec = 7,
	                             .rule = "anon>1G",
	                             .kind = "signal",
	                             .summary = "rate-limited",
	                             .file_bytes = -1};
	assert_eq(tm_store_snapshot_add(f->st, &r), 0);
	r.run_id = run + 1;
	assert_eq(tm_store_snapshot_add(f->st, &r), 0);
	struct tm_store *ro;
	assert_eq(tm_store_open_readonly(f->path, &ro), 0);
	assert_eq(tm_store_each_snapshot(ro, run, see_row, got), 0);
	assert_string_equal(got, "4 anon>1G signal 0 NULL rate-limited -1 0|"
	                         "5 anon>1G heap_profile 42 /x/heap.pb.gz live 1 MiB 123 1|");
	tm_store_close(ro);
	/* removing the run removes its rows */
	assert_eq(tm_store_run_delete(f->st, run, "test", 1), 0);
	got[0] = 0;
	assert_eq(tm_store_each_snapshot(f->st, run, see_row, got), 0);
	assert_string_equal(got, "");
	store_fixture_close(f);
}

/* tm_guard_run --dry-run over a stored run: the same firings as the rule
 * over the same samples, with their wall times; nothing written. */
static void test_dry_run(void **state)
{
	(void)state;
	struct store_fixture *f = store_fixture_open("guard-dry");
	int64_t run = store_fixture_run(f->st);
	const int64_t anon[] = {50, 95, 96, 80, 91, 10};
	for (int i = 0; i < 6; i++) {
		struct tm_sample s;
		const struct pt p = LVL(anon[i], 100);
		make(&s, i, &p);
		assert_eq(tm_store_add_sample(f->st, run, &s), 0);
	}
	struct tm_run_end e = {.ended_wall_usec = 1700000010 * SEC,
	                       .outcome = TM_OUTCOME_COMPLETED};
	assert_eq(tm_store_run_end(f->st, run, &e), 0);
	assert_eq(tm_store_commit(f->st), 0);
	struct tm_guard_opts o;
	tm_guard_opts_init(&o);
	o.rules[o.nrules++] = parse_ok("anon>90%max");
	o.dry_run = true;
	o.signal = 10;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_eq(tm_guard_run(f->st, &o, out), 2);
	fclose(out);
	const char *want =
	    "would fire anon>90%max at 2023-11-14 22:13:21.000 UTC (run 1, sample 1)";
	if (!strstr(buf, want) || !strstr(buf, "22:13:24.000 UTC (run 1, sample 4)"))
		fail_msg("dry-run said:\n%s\nexpected firings at samples 1 and 4", buf);
	free(buf);
	char got[512] = "";
	assert_eq(tm_store_each_snapshot(f->st, run, see_row, got), 0);
	assert_string_equal(got, "");
	store_fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_registry),        cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_errors),    cmocka_unit_test(test_level),
	    cmocka_unit_test(test_high_rate),       cmocka_unit_test(test_psi_full),
	    cmocka_unit_test(test_jvm_old),         cmocka_unit_test(test_heap_grows),
	    cmocka_unit_test(test_snapshots_table), cmocka_unit_test(test_dry_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
