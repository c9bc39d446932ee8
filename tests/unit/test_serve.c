/* serve: hashing, names, the push decoder, idempotent ingest, tokens,
 * Prometheus text, downsampling and the HTML report. */
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
#include <sqlite3.h>

#include "base/util.h"
#include "serve/api.h"
#include "serve/http/auth.h"
#include "serve/html/htmlreport.h"
#include "serve/ingest.h"
#include "serve/client/push.h"
#include "serve/promfmt.h"
#include "serve/ratelimit.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

#define T0 1790000000000000LL

static void hexstr(const uint8_t *d, char *out)
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256(void **state)
{
	uint8_t d[32];
	char hex[65];
	(void)state;
	tm_sha256("abc", 3, d);
	hexstr(d, hex);
	assert_string_equal(hex,
	                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	tm_sha256("", 0, d);
	hexstr(d, hex);
	assert_string_equal(hex,
	                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes */
	tm_sha256(m, strlen(m), d);
	hexstr(d, hex);
	assert_string_equal(hex,
	                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_names(void **state)
{
	(void)state;
	assert_true(tm_name_valid("pi-home"));
	assert_true(tm_name_valid("node_3.example"));
	assert_false(tm_name_valid(""));
	assert_false(tm_name_valid("-x"));
	assert_false(tm_name_valid("<script>"));
	assert_false(tm_name_valid("a b"));
	assert_false(
	    tm_name_valid("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaX"));
	assert_true(tm_ct_equal("abc", "abc", 3));
	assert_false(tm_ct_equal("abc", "abd", 3));
}

/* A batch body with samples FROM..TO-1 and events FROM_EV..TO_EV-1. */
static char *batch(const char *uuid, int from, int to, int from_ev, int to_ev, bool end)
{
	size_t cap = 1 << 16, len = 0;
	char *b = malloc(cap);
	len += (size_t)snprintf(b + len, cap - len,
	                        "{\"v\":1,\"run\":{\"uuid\":\"%s\",\"machine\":\"pi\","
	                        "\"interval_usec\":1000000,\"started_wall_usec\":%lld,"
	                        "\"command_json\":\"[\\\"x\\\"]\"},\"samples\":[",
	                        uuid, (long long)T0);
	for (int i = from; i < to; i++)
		len += (size_t)snprintf(b + len, cap - len,
		                        "%s{\"seq\":%d,\"t_wall_usec\":%lld,\"t_mono_usec\":%d,"
		                        "\"values\":{\"cg_anon_bytes\":%d,\"cg_file_bytes\":7}}",
		                        i > from ? "," : "", i, (long long)(T0 + i * 1000000LL),
		                        i * 1000000, 1000 + i);
	len += (size_t)snprintf(b + len, cap - len, "],\"events\":[");
	for (int i = from_ev; i < to_ev; i++)
		len += (size_t)snprintf(b + len, cap - len,
		                        "%s{\"i\":%d,\"t_wall_usec\":%lld,\"kind\":\"oom_kill\","
		                        "\"detail\":\"<img src=x onerror=alert(1)>\"}",
		                        i > from_ev ? "," : "", i, (long long)(T0 + i));
	len += (size_t)snprintf(b + len, cap - len, "]%s}",
	                        end ? ",\"end\":{\"ended_wall_usec\":1790000100000000,"
	                              "\"outcome\":\"completed\",\"exit_code\":0}"
	                            : "");
	return b;
}

static void test_decode_valid(void **state)
{
	struct tm_batch b;
	struct tm_err err;
	char *body = batch("u-1", 0, 5, 0, 2, true);
	(void)state;
	assert_int_equal(tm_batch_decode(body, strlen(body), &b, &err), 0);
	assert_int_equal(b.n_samples, 5);
	assert_int_equal(b.samples[4].seq, 4);
	assert_true(tm_sample_has(&b.samples[0], TM_M_CG_ANON_BYTES));
	assert_false(tm_sample_has(&b.samples[0], TM_M_CG_MAX_BYTES));
	assert_int_equal(b.samples[2].v[TM_M_CG_ANON_BYTES], 1002);
	assert_int_equal(b.n_events, 2);
	assert_true(b.has_end);
	assert_string_equal(b.meta.uuid, "u-1");
	tm_batch_release(&b);
	free(body);
}

static void expect_refused(const char *body, const char *why)
{
	struct tm_batch b;
	struct tm_err err = {0};
	assert_int_equal(tm_batch_decode(body, strlen(body), &b, &err), -1);
	if (!strstr(err.msg, why))
		fail_msg("'%s' refused with '%s', expected '%s'", body, err.msg, why);
}

#define RUN                                                                                        \
	"\"run\":{\"uuid\":\"u\",\"interval_usec\":1000000,\"started_wall_usec\":"                 \
	"1790000000000000}"

static void test_decode_refuses(void **state)
{
	(void)state;
	expect_refused("", "not valid JSON");
	expect_refused("[1]", "must be a JSON object");
	expect_refused("{\"v\":2," RUN "}", "version");
	expect_refused("{\"v\":1}", "missing 'run'");
	expect_refused("{\"v\":1," RUN ",\"x\":1}", "unknown field");
	expect_refused("{\"v\":1,\"run\":{\"uuid\":\"<b>\",\"interval_usec\":1000000,"
	               "\"started_wall_usec\":1790000000000000}}",
	               "not allowed");
	expect_refused("{\"v\":1,\"run\":{\"uuid\":\"u\",\"interval_usec\":\"1\","
	               "\"started_wall_usec\":1790000000000000}}",
	               "must be an integer");
	expect_refused("{\"v\":1,\"run\":{\"uuid\":\"u\",\"interval_usec\":1,"
	               "\"started_wall_usec\":1790000000000000}}",
	               "out of range");
	expect_refused(
	    "{\"v\":1,\"run\":{\"uuid\":\"u\",\"machine\":\"<script>\",\"interval_usec\":"
	    "1000000,\"started_wall_usec\":1790000000000000}}",
	    "not allowed");
	expect_refused("{\"v\":1," RUN ",\"samples\":[{\"seq\":0,\"t_wall_usec\":1790000000000000,"
	               "\"values\":{\"nope_bytes\":1}}]}",
	               "unknown metric");
	expect_refused("{\"v\":1," RUN ",\"samples\":[{\"seq\":0,\"t_wall_usec\":1790000000000000,"
	               "\"values\":{\"cg_anon_bytes\":1.5}}]}",
	               "must be an integer");
	expect_refused(
	    "{\"v\":1," RUN ",\"samples\":[{\"seq\":0,\"t_wall_usec\":1790000000000000,"
	    "\"values\":{}},{\"seq\":2,\"t_wall_usec\":1790000000000000,\"values\":{}}]}",
	    "consecutive");
	expect_refused("{\"v\":1," RUN ",\"samples\":[{\"seq\":-1,\"t_wall_usec\":1790000000000000,"
	               "\"values\":{}}]}",
	               "out of range");
	expect_refused("{\"v\":1," RUN ",\"marks\":[{\"i\":0,\"t_wall_usec\":1790000000000000,"
	               "\"text\":\"a\\u0000b\"}]}",
	               "not allowed");
	expect_refused("{\"v\":1," RUN ",\"progress\":[{\"i\":0,\"t_wall_usec\":1790000000000000,"
	               "\"value\":\"x\"}]}",
	               "finite number");
	expect_refused("{\"v\":1," RUN ",\"end\":{\"ended_wall_usec\":1790000000000000,"
	               "\"outcome\":\"<i>\"}}",
	               "unknown outcome");
	expect_refused("{\"v\":1,\"v\":1," RUN "}", "not valid JSON");
	/* record --scrape's values, inside their sample */
#define SCRAPED(X)                                                                                 \
	"{\"v\":1," RUN ",\"samples\":[{\"seq\":0,\"t_wall_usec\":1790000000000000,"               \
	"\"values\":{},\"scraped\":[" X "]}]}"
	expect_refused(SCRAPED("{\"name\":\"a\",\"kind\":\"gauge\",\"value\":\"1\","
	                       "\"t_wall_usec\":1790000000000000}"),
	               "finite number");
	expect_refused(SCRAPED("{\"name\":\"a\",\"kind\":\"weird\",\"value\":1,"
	                       "\"t_wall_usec\":1790000000000000}"),
	               "unknown kind");
	expect_refused(SCRAPED("{\"name\":\"a\\u0007\",\"kind\":\"gauge\",\"value\":1,"
	                       "\"t_wall_usec\":1790000000000000}"),
	               "not allowed");
	expect_refused(SCRAPED("{\"name\":\"a\",\"kind\":\"gauge\",\"value\":1}"),
	               "missing 't_wall_usec'");
	expect_refused(SCRAPED("{\"name\":\"a\",\"kind\":\"gauge\",\"value\":1,\"x\":1,"
	                       "\"t_wall_usec\":1790000000000000}"),
	               "unknown field");
	struct tm_batch ok;
	struct tm_err err;
	const char *good = SCRAPED("{\"name\":\"app{k=\\\"v\\\"}\",\"kind\":\"counter\","
	                           "\"source\":\"http://h/m\",\"value\":12.5,"
	                           "\"t_wall_usec\":1790000000000001}");
	assert_int_equal(tm_batch_decode(good, strlen(good), &ok, &err), 0);
	assert_int_equal(ok.n_scraped, 1);
	assert_string_equal(ok.scraped[0].name, "app{k=\"v\"}");
	assert_eq(ok.scraped[0].value, 12.5);
	assert_eq(ok.scraped[0].seq, 0);
	tm_batch_release(&ok);
	/* more samples than a batch may hold */
	size_t cap = 64 * (TM_BATCH_MAX_SAMPLES + 2);
	char *big = malloc(cap);
	size_t len = (size_t)snprintf(big, cap, "{\"v\":1," RUN ",\"samples\":[");
	for (int i = 0; i <= TM_BATCH_MAX_SAMPLES; i++)
		len += (size_t)snprintf(big + len, cap - len, "%s{}", i ? "," : "");
	snprintf(big + len, cap - len, "]}");
	expect_refused(big, "more than");
	free(big);
}

#define BENCH(uuid, spec, extra)                                                                   \
	"\"bench\":{\"uuid\":\"" uuid "\",\"name\":\"cmp\",\"spec_json\":\"" spec "\","            \
	"\"seed\":7,\"order\":\"interleave\",\"host\":\"box\","                                    \
	"\"started_wall_usec\":1790000000000000" extra "}"
#define SPEC "{\\\"arms\\\":[{\\\"name\\\":\\\"glibc\\\"}]}"

/* A bench's run carries its bench and what the bench noted of it; the
 * decoder refuses a bench that could hide or forge text where the server
 * prints its table. */
static void test_decode_bench(void **state)
{
	const char *ok =
	    "{\"v\":1," RUN
	    "," BENCH("b-1", SPEC,
	              ",\"ended_wall_usec\":1790000100000000") ",\"bench_run\":{\"arm_index\":0,"
	                                                       "\"warmup\":true,\"wall_usec\":5}}";
	struct tm_batch b;
	struct tm_err err = {0};
	(void)state;
	if (tm_batch_decode(ok, strlen(ok), &b, &err))
		fail_msg("refused: %s", err.msg);
	assert_true(b.has_bench && b.has_bench_run);
	assert_string_equal(b.bench.uuid, "b-1");
	assert_string_equal(b.bench.spec_json, "{\"arms\":[{\"name\":\"glibc\"}]}");
	assert_int_equal(b.bench.ended_wall_usec, 1790000100000000);
	assert_true(b.bench_run.warmup);
	assert_int_equal(b.bench_run.wall_usec, 5);
	assert_int_equal(b.bench_run.rig_cpu_usec, -1);
	tm_batch_release(&b);
	const char *param =
	    "{\"v\":1," RUN
	    "," BENCH("b-1", SPEC,
	              "") ",\"bench_run\":{\"arm_index\":0,\"param\":{\"name\":\"N\",\"value\":16,"
	                  "\"text\":\"16\"}}}";
	if (tm_batch_decode(param, strlen(param), &b, &err))
		fail_msg("refused: %s", err.msg);
	assert_string_equal(b.bench_run.param_name, "N");
	assert_float_equal(b.bench_run.param_value, 16, 0);
	assert_string_equal(b.bench_run.param_text, "16");
	tm_batch_release(&b);
	expect_refused(
	    "{\"v\":1," RUN "," BENCH(
	        "b-1", SPEC,
	        "") ",\"bench_run\":{\"arm_index\":0,\"param\":{\"name\":\"N\",\"value\":\"x\","
	            "\"text\":\"16\"}}}",
	    "finite number");
	expect_refused("{\"v\":1," RUN ",\"bench_run\":{\"arm_index\":0}}", "needs 'bench'");
	expect_refused("{\"v\":1," RUN "," BENCH("b-1", "[]", "") "}", "spec");
	expect_refused("{\"v\":1," RUN
	               "," BENCH("b-1", "{\\\"arms\\\":[{\\\"name\\\":\\\"<b>\\\"}]}", "") "}",
	               "no valid name");
	expect_refused("{\"v\":1," RUN "," BENCH(
	                   "b-1", "{\\\"arms\\\":[],\\\"command\\\":[\\\"\\\\u202e\\\"]}", "") "}",
	               "spec");
	expect_refused("{\"v\":1," RUN "," BENCH("<b>", SPEC, "") "}", "not allowed");
	expect_refused("{\"v\":1," RUN "," BENCH("b-1", SPEC, ",\"x\":1") "}", "unknown field");
}

/* Pushed text with a character that hides or reorders text is refused,
 * whatever the character's UTF-8 length; the same text without it passes. */
static void test_decode_refuses_invisible(void **state)
{
	static const char *const hidden[] = {
	    "\\u200b",        "\\ufeff", "\\u2028", "\\u2029", "\\ufff9",
	    "\\ufffb",        "\\u00ad", "\\u2060", "\\u2066", "\\u202e",
	    "\\u0085",        "\\u180e", "\\ufe0f", "\\u3164", "\\udb40\\udc00", /* U+E0000 */
	    "\\udb40\\udc41", /* U+E0041: TAG LATIN CAPITAL LETTER A */
	    "\\udb40\\udc7f", /* U+E007F: CANCEL TAG */
	    "\\udb40\\udd00", /* U+E0100: variation selector 17 */
	};
	char body[512];
	struct tm_err err;
	struct tm_batch b;

	(void)state;
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		snprintf(body, sizeof(body),
		         "{\"v\":1," RUN ",\"marks\":[{\"i\":0,\"t_wall_usec\":1790000000000000,"
		         "\"text\":\"ph%sase\"}]}",
		         hidden[i]);
		expect_refused(body, "not allowed");
	}
	/* visible non-ASCII text stays allowed */
	snprintf(body, sizeof(body),
	         "{\"v\":1," RUN ",\"marks\":[{\"i\":0,\"t_wall_usec\":1790000000000000,"
	         "\"text\":\"phase \\u00e9t\\u00e9 \\ud83d\\ude00\"}]}");
	if (tm_batch_decode(body, strlen(body), &b, &err))
		fail_msg("refused: %s", err.msg);
	tm_batch_release(&b);
}

/* The pusher's reading of the server's answers: an acknowledgement with a
 * negative position is no acknowledgement; a refusal's reason is made safe
 * to print (no escape sequence reaches the terminal). */
static void test_push_answers(void **state)
{
	struct tm_push_ack a = {0};
	char why[64];
	const char *ok = "{\"run_id\":7,\"next_seq\":120,\"next_event\":3,\"next_progress\":0,"
	                 "\"next_mark\":1,\"ended\":true}";
	const char *neg = "{\"run_id\":7,\"next_seq\":-5,\"next_event\":3,\"next_progress\":0,"
	                  "\"next_mark\":1,\"ended\":true}";
	const char *bad = "{\"error\":\"no \\u001b[31mred\\u202e\"}";

	(void)state;
	assert_int_equal(tm_push_ack_parse(ok, strlen(ok), &a), 0);
	assert_int_equal(a.run_id, 7);
	assert_int_equal(a.next_seq, 120);
	assert_true(a.ended);
	assert_int_equal(tm_push_ack_parse(neg, strlen(neg), &a), -1);
	assert_int_equal(a.next_seq, 120); /* untouched */
	assert_int_equal(tm_push_ack_parse(ok, 10, &a), -1);
	tm_push_refusal_why(bad, strlen(bad), why, sizeof(why));
	assert_string_equal(why, "no \\x1b[31mred\\u{202e}");
	tm_push_refusal_why("[]", 2, why, sizeof(why));
	assert_string_equal(why, "");
}

/* The machine name the server files the token under rides in its
 * acknowledgement (docs/fleet.md, "One machine, one name"); one that is no
 * valid name, or none (an older server), is "". */
static void test_push_answer_machine(void **state)
{
	struct tm_push_ack a = {0};
	const char *named = "{\"run_id\":7,\"next_seq\":0,\"next_event\":0,\"next_progress\":0,"
	                    "\"next_mark\":0,\"ended\":false,\"machine\":\"pi\"}";
	const char *bad = "{\"run_id\":7,\"next_seq\":0,\"next_event\":0,\"next_progress\":0,"
	                  "\"next_mark\":0,\"ended\":false,\"machine\":\"a b\\n\"}";
	const char *none = "{\"run_id\":7,\"next_seq\":0,\"next_event\":0,\"next_progress\":0,"
	                   "\"next_mark\":0,\"ended\":false}";

	(void)state;
	assert_int_equal(tm_push_ack_parse(named, strlen(named), &a), 0);
	assert_string_equal(a.machine, "pi");
	assert_int_equal(tm_push_ack_parse(bad, strlen(bad), &a), 0);
	assert_string_equal(a.machine, "");
	assert_int_equal(tm_push_ack_parse(none, strlen(none), &a), 0);
	assert_string_equal(a.machine, "");
}

struct fixture {
	char dir[64], path[128];
	struct tm_store *st;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/tm-serve-unit.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/s.db", f->dir);
	assert_int_equal(tm_store_open(f->path, &f->st), 0);
	assert_int_equal(tm_auth_init(f->st), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[160];
	tm_store_close(f->st);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static int apply(struct tm_ingest *ing, struct tm_store *st, const char *machine, char *body,
                 struct tm_push_ack *ack)
{
	struct tm_batch b;
	struct tm_err err;
	int rc;
	assert_int_equal(tm_batch_decode(body, strlen(body), &b, &err), 0);
	rc = tm_ingest_apply(ing, st, machine, "127.0.0.1", &b, ack, &err);
	tm_batch_release(&b);
	free(body);
	return rc;
}

static int count_cb(void *ctx, const struct tm_sample *s)
{
	int64_t *n = ctx;
	assert_int_equal(s->seq, *n);
	++*n;
	return 0;
}

static int count_ev(void *ctx, const struct tm_event *ev)
{
	(void)ev;
	++*(int64_t *)ctx;
	return 0;
}

static void test_ingest_exactly_once(void **state)
{
	struct fixture *f = *state;
	struct tm_ingest *ing = tm_ingest_new();
	struct tm_push_ack a;
	struct tm_run_info ri;
	int64_t n = 0, nev = 0;

	assert_int_equal(apply(ing, f->st, "pi", batch("run-a", 0, 10, 0, 1, false), &a), 0);
	assert_int_equal(a.next_seq, 10);
	assert_int_equal(a.next_event, 1);
	/* the same batch again: nothing new */
	assert_int_equal(apply(ing, f->st, "pi", batch("run-a", 0, 10, 0, 1, false), &a), 0);
	assert_int_equal(a.next_seq, 10);
	/* overlapping: only the new part */
	assert_int_equal(apply(ing, f->st, "pi", batch("run-a", 5, 15, 0, 3, false), &a), 0);
	assert_int_equal(a.next_seq, 15);
	assert_int_equal(a.next_event, 3);
	/* a gap: refused, and the answer says where to resume */
	assert_int_equal(apply(ing, f->st, "pi", batch("run-a", 20, 25, 3, 3, false), &a), 409);
	assert_int_equal(a.next_seq, 15);
	/* another machine cannot write into this run */
	assert_int_equal(apply(ing, f->st, "vps", batch("run-a", 15, 16, 3, 3, false), &a), 403);
	/* a fresh ingest (a restarted server) counts from the store */
	tm_ingest_free(ing);
	ing = tm_ingest_new();
	assert_int_equal(apply(ing, f->st, "pi", batch("run-a", 10, 20, 2, 4, true), &a), 0);
	assert_int_equal(a.next_seq, 20);
	assert_int_equal(a.next_event, 4);
	assert_true(a.ended);
	assert_int_equal(tm_store_each_sample(f->st, a.run_id, 0, -1, count_cb, &n), 0);
	assert_int_equal(n, 20);
	assert_int_equal(tm_store_each_event(f->st, a.run_id, count_ev, &nev), 0);
	assert_int_equal(nev, 4);
	assert_int_equal(tm_store_run_get(f->st, a.run_id, &ri), 0);
	assert_string_equal(ri.machine, "pi");
	assert_string_equal(ri.outcome, "completed");
	tm_run_info_release(&ri);
	tm_ingest_free(ing);
}

static void test_tokens(void **state)
{
	struct fixture *f = *state;
	char w[TM_TOKEN_LEN + 1], r[TM_TOKEN_LEN + 1], name[TM_NAME_MAX + 1];
	char bad[TM_TOKEN_LEN + 1];

	assert_int_equal(tm_token_add(f->st, "pi", "write", w), 0);
	assert_int_equal(tm_token_add(f->st, "viewer", "read", r), 0);
	assert_int_equal(strlen(w), TM_TOKEN_LEN);
	assert_int_equal(tm_token_check(f->st, w, "write", name), 0);
	assert_string_equal(name, "pi");
	assert_int_equal(tm_token_check(f->st, r, "read", name), 0);
	assert_string_equal(name, "viewer");
	assert_int_equal(tm_token_check(f->st, r, "write", name), 1); /* read cannot write */
	assert_int_equal(tm_token_check(f->st, w, "read", name), 0);  /* write can read */
	memcpy(bad, w, sizeof(bad));
	bad[10] = bad[10] == 'a' ? 'b' : 'a';
	assert_int_equal(tm_token_check(f->st, bad, "write", name), 1);
	assert_int_equal(tm_token_check(f->st, "", "write", name), 1);
	assert_int_equal(tm_token_check(f->st, NULL, "write", name), 1);
	/* stored hashed: the clear token is not in the file */
	sqlite3 *db;
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT count(*), sum(hash LIKE '%tm_%'),"
	                                    " sum(length(hash) = 64) FROM tokens",
	                                    -1, &q, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), 2);
	assert_int_equal(sqlite3_column_int(q, 1), 0);
	assert_int_equal(sqlite3_column_int(q, 2), 2);
	sqlite3_finalize(q);
	sqlite3_close(db);
	assert_int_equal(tm_token_remove(f->st, "pi", "write"), 0);
	assert_int_equal(tm_token_check(f->st, w, "write", name), 1);
	assert_int_equal(tm_token_remove(f->st, "pi", "write"), 1);
	assert_int_equal(tm_token_add(f->st, "bad name", "write", w), -1);
}

/* --max-rate's table: past TM_RATE_MACHINES no machine gets a fresh
 * allowance, and a batch over the burst leaves its bucket in debt. */
static void test_rate_table(void **state)
{
	struct tm_rate_table *t = tm_rate_table_new(1, 100);
	int64_t now = tm_now_mono_usec();
	char name[16];
	(void)state;
	assert_non_null(t);
	for (int i = 0; i < TM_RATE_MACHINES; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		assert_int_equal(tm_rate_take(t, name, 100, now), 0);
	}
	/* every bucket spent: newcomers share one overflow, spent once */
	assert_int_equal(tm_rate_take(t, "x1", 100, now), 0);
	assert_true(tm_rate_take(t, "x2", 1, now) > 0);
	assert_true(tm_rate_take(t, "x1", 1, now) > 0);
	assert_true(tm_rate_take(t, "m0", 1, now) > 0);
	assert_true(tm_rate_take(t, "m255", 1, now) > 0);
	/* 50 s on: half refilled, nobody full, nobody reset */
	now += 50 * 1000000LL;
	assert_int_equal(tm_rate_take(t, "x3", 50, now), 0);
	assert_true(tm_rate_take(t, "x1", 1, now) > 0);
	assert_int_equal(tm_rate_take(t, "m7", 50, now), 0);
	assert_true(tm_rate_take(t, "m7", 1, now) > 0);
	/* 100 s on: full buckets make room, at the overflow's balance */
	now += 100 * 1000000LL;
	assert_int_equal(tm_rate_take(t, "y1", 250, now), 0); /* over the burst: debt */
	assert_int_equal(tm_rate_take(t, "y1", 1, now), 151);
	tm_rate_table_free(t);
}

/* A label value that is not valid UTF-8 (a path cut inside a character,
 * a stray byte) is written valid: U+FFFD in place of each bad byte. */
static void test_prom_label_utf8(void **state)
{
	struct tm_sample s;
	struct tm_prom_target t = {"pi", "u-1", "/a\xc3\xa9\xc3", &s, true, "live", NULL, 0,
	                           NULL, 0};
	char *text;
	(void)state;
	tm_sample_clear(&s);
	s.t_wall_usec = T0;
	text = tm_prom_format(&t, 1);
	assert_non_null(text);
	if (!strstr(text, "cgroup=\"/a\xc3\xa9\xef\xbf\xbd\""))
		fail_msg("cut character not replaced: %s", text);
	free(text);
	t.cgroup = "/\xff\xed\xa0\x80\xf4\x90\x80\x80x"; /* stray, surrogate, past U+10FFFF */
	text = tm_prom_format(&t, 1);
	assert_non_null(text);
	if (!strstr(text,
	            "cgroup=\"/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef"))
		fail_msg("bad bytes not replaced: %s", text);
	free(text);
}

static void test_prom_format(void **state)
{
	struct tm_sample s;
	char name[128], label[64];
	double scale;
	(void)state;
	tm_sample_clear(&s);
	s.t_wall_usec = T0;
	tm_sample_set(&s, TM_M_CG_ANON_BYTES, 123);
	tm_sample_set(&s, TM_M_CG_EVENTS_OOM_KILL, 2);
	tm_sample_set(&s, TM_M_CG_EVENTS_HIGH, 5);
	tm_sample_set(&s, TM_M_CG_PSI_MEM_FULL_USEC, 1500000);
	tm_sample_set(&s, TM_M_HEAP_LIVE_BYTES, 77);
	tm_sample_set(&s, TM_M_CG_MAX_BYTES, -1); /* no limit */
	tm_sample_set(&s, TM_M_HOST_CPU_TOTAL_USEC, 2000000);
	/* what record --scrape read: exported for a current run only */
	static const struct tm_prom_scraped sc[] = {{"app{k=\"v\"}", "gauge", 2.5},
	                                            {"nan", "gauge", NAN}};
	struct tm_prom_target t[3] = {{"pi", "r\"1\n", "/a\\b", &s, true, "live", sc, 2, NULL, 0},
	                              {"vps", "r2", NULL, &s, true, "live", NULL, 0, NULL, 0},
	                              {"old", "r3", "/c", &s, false, "ended", sc, 1, NULL, 0}};
	char *text = tm_prom_format(t, 3);
	assert_non_null(text);
	assert_non_null(strstr(text, "# TYPE tidemark_scraped untyped\n"
	                             "tidemark_scraped{machine=\"pi\",series=\"app{k=\\\"v\\\"}\","
	                             "kind=\"gauge\"} 2.5\n"));
	assert_null(strstr(text, "series=\"nan\""));
	assert_null(strstr(text, "tidemark_scraped{machine=\"old\""));
	assert_non_null(strstr(text, "# TYPE tidemark_memory_anon_bytes gauge\n"));
	/* the run is the info metric's; the series carry the machine only */
	assert_non_null(strstr(text, "tidemark_run_info{machine=\"pi\",run=\"r\\\"1\\n\","
	                             "cgroup=\"/a\\\\b\",state=\"live\"} 1\n"));
	assert_non_null(
	    strstr(text, "tidemark_run_info{machine=\"vps\",run=\"r2\",state=\"live\"} 1\n"));
	assert_non_null(strstr(text, "tidemark_memory_anon_bytes{machine=\"pi\"} 123\n"));
	assert_non_null(
	    strstr(text, "tidemark_memory_events_total{machine=\"vps\",event=\"oom_kill\"} 2\n"));
	assert_null(strstr(text, "cgroup=\"\""));
	assert_null(strstr(text, "run=\"r2\",cgroup"));
	/* an ended run: its info and last sample time, no values */
	assert_non_null(strstr(text, "tidemark_run_info{machine=\"old\",run=\"r3\",cgroup=\"/c\","
	                             "state=\"ended\"} 1\n"));
	assert_non_null(strstr(text, "tidemark_last_sample_timestamp_seconds{machine=\"old\"}"));
	assert_null(strstr(text, "tidemark_memory_anon_bytes{machine=\"old\"}"));
	/* no limit is absent, not -1; no doubled suffix; real HELP text */
	assert_null(strstr(text, "tidemark_spec_memory_limit_bytes{"));
	assert_null(strstr(text, " -1\n"));
	assert_non_null(strstr(text, "tidemark_host_cpu_seconds_total{machine=\"pi\"} 2.000000\n"));
	assert_null(strstr(text, "_total_seconds_total"));
	assert_null(strstr(text, "tidemark metric"));
	assert_non_null(strstr(text, "# HELP tidemark_memory_anon_bytes Anonymous memory of the "
	                             "cgroup (memory.stat anon).\n"));
	assert_non_null(
	    strstr(text, "tidemark_pressure_memory_stalled_seconds_total{machine=\"pi\""));
	assert_non_null(strstr(text, "} 1.500000\n"));
	assert_non_null(strstr(text, "tidemark_heap_live_bytes{"));
	/* one TYPE line per family, even with several metrics in it */
	char *first = strstr(text, "# TYPE tidemark_memory_events_total");
	assert_non_null(first);
	assert_null(strstr(first + 1, "# TYPE tidemark_memory_events_total"));
	free(text);
	tm_prom_name(TM_M_PROC_UTIME_USEC, name, sizeof(name), label, sizeof(label), &scale);
	assert_string_equal(name, "tidemark_process_utime_seconds_total");
	tm_prom_name(TM_M_CG_CPU_USAGE_USEC, name, sizeof(name), label, sizeof(label), &scale);
	assert_string_equal(name, "tidemark_cpu_usage_seconds_total");
	tm_prom_name(TM_M_CG_FILE_BYTES, name, sizeof(name), label, sizeof(label), &scale);
	assert_string_equal(name, "tidemark_memory_file_bytes");
	/* cAdvisor's and node_exporter's names where the meaning is the same */
	tm_prom_name(TM_M_CG_CURRENT_BYTES, name, sizeof(name), label, sizeof(label), &scale);
	assert_string_equal(name, "tidemark_memory_usage_bytes");
	tm_prom_name(TM_M_HOST_MEM_AVAILABLE_BYTES, name, sizeof(name), label, sizeof(label),
	             &scale);
	assert_string_equal(name, "tidemark_host_memory_available_bytes");
	/* no family name ends in a doubled suffix */
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		tm_prom_name((enum tm_metric)m, name, sizeof(name), label, sizeof(label), &scale);
		assert_null(strstr(name, "_total_seconds"));
		assert_null(strstr(name, "_total_total"));
	}
}

/* Progress in /metrics: the last value, and the rate over the last minute
 * (the value a minute before from the last point at or before it; since
 * the first point when younger); one point a second kept, so 64 of them
 * always reach a minute back; a service that stopped progressing has rate
 * 0 a minute later; no series for a run that is not current. */
static void test_prom_progress(void **state)
{
	(void)state;
	const int64_t S = 1000000;
	struct tm_prom_progress p = {0};
	double r = -1;
	assert_int_equal(tm_prom_progress_rate(&p, 10 * S, &r), -1);
	tm_prom_progress_add(&p, 10 * S, 100);
	assert_int_equal(tm_prom_progress_rate(&p, 10 * S, &r), -1); /* no time yet */
	/* 5 units a second for 200 s, a point every 100 ms: kept one a second */
	for (int64_t t = 10 * S + S / 10; t <= 210 * S; t += S / 10)
		tm_prom_progress_add(&p, t, 100 + 5.0 * (double)(t - 10 * S) / S);
	assert_int_equal((int)p.n, TM_PROM_PROGRESS_POINTS);
	assert_true(p.t_usec[p.head] == 210 * S);
	assert_int_equal(tm_prom_progress_rate(&p, 210 * S, &r), 0);
	if (fabs(r - 5.0) > 0.1)
		fail_msg("rate %.6f, want 5 (+-0.1)", r);
	/* young: since the first point */
	struct tm_prom_progress y = {0};
	tm_prom_progress_add(&y, 0, 0);
	tm_prom_progress_add(&y, 2 * S, 10);
	assert_int_equal(tm_prom_progress_rate(&y, 4 * S, &r), 0);
	assert_true(fabs(r - 2.5) < 1e-9);
	/* stopped: a minute after its last point, rate 0 */
	assert_int_equal(tm_prom_progress_rate(&p, 280 * S, &r), 0);
	assert_true(r == 0);
	tm_prom_progress_add(&p, 200 * S, 1e9); /* not after the newest: ignored */
	tm_prom_progress_add(&p, 300 * S, NAN); /* not finite: ignored */
	assert_true(p.v[p.head] == 1100);

	struct tm_sample s;
	tm_sample_clear(&s);
	s.t_wall_usec = T0;
	struct tm_prom_target t[2] = {
	    {"pi", "r1", NULL, &s, true, "live", NULL, 0, &p, 210 * S},
	    {"old", "r2", NULL, &s, false, "ended", NULL, 0, &p, 210 * S}};
	char *text = tm_prom_format(t, 2);
	assert_non_null(text);
	if (!strstr(text, "# TYPE tidemark_progress_units gauge\n"
	                  "tidemark_progress_units{machine=\"pi\"} 1100\n") ||
	    !strstr(text, "tidemark_progress_units_per_second{machine=\"pi\"} 5") ||
	    strstr(text, "tidemark_progress_units{machine=\"old\"}") ||
	    !strstr(text, "# HELP tidemark_progress_units_per_second The service's"))
		fail_msg("progress in /metrics: %s", text);
	free(text);
}

static void test_series_buckets(void **state)
{
	struct fixture *f = *state;
	struct tm_ingest *ing = tm_ingest_new();
	struct tm_push_ack a;
	struct tm_series_query q;
	struct tm_err err;

	assert_int_equal(apply(ing, f->st, "pi", batch("run-s", 0, 100, 0, 0, false), &a), 0);
	assert_int_equal(tm_series_query_parse("cg_anon_bytes,cg_max_bytes", NULL, NULL, NULL,
	                                       "10000000", NULL, &q, &err),
	                 0);
	json_t *doc = tm_api_series(f->st, a.run_id, &q);
	assert_non_null(doc);
	json_t *t = json_object_get(doc, "t");
	assert_int_equal(json_array_size(t), 10); /* 100 s in 10 s buckets */
	json_t *anon = json_object_get(json_object_get(doc, "series"), "cg_anon_bytes");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(anon, "min"), 0)), 1000);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(anon, "max"), 0)), 1009);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(anon, "max"), 9)), 1099);
	/* missing is not zero: a metric never recorded is left out */
	assert_null(json_object_get(json_object_get(doc, "series"), "cg_max_bytes"));
	assert_int_equal(json_integer_value(json_object_get(doc, "last_seq")), 99);
	json_decref(doc);
	assert_int_equal(tm_series_query_parse("bogus", NULL, NULL, NULL, NULL, NULL, &q, &err),
	                 -1);
	assert_int_equal(tm_series_query_parse(NULL, NULL, NULL, NULL, NULL, "0", &q, &err), -1);
	tm_ingest_free(ing);
}

static void test_html_report(void **state)
{
	struct fixture *f = *state;
	struct tm_ingest *ing = tm_ingest_new();
	struct tm_push_ack a;
	char path[160];
	size_t len;

	assert_int_equal(apply(ing, f->st, "pi", batch("run-h", 0, 30, 0, 2, true), &a), 0);
	assert_int_equal(tm_store_add_mark(f->st, a.run_id, T0 + 5000000, 5000000,
	                                   "</script><script>window.__pwned=1</script>"),
	                 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	snprintf(path, sizeof(path), "%s/r.html", f->dir);
	assert_int_equal(tm_html_report_run(f->st, a.run_id, path), 0);
	char *html = tm_read_file(path, &len);
	assert_non_null(html);
	assert_non_null(strstr(html, "id=\"tm-data\""));
	assert_non_null(strstr(html, "uPlot"));
	assert_null(strstr(html, "<img src=x"));         /* event detail escaped */
	assert_null(strstr(html, "__pwned=1</script>")); /* mark text escaped */
	assert_non_null(strstr(html, "\\u003c/script\\u003e"));
	free(html);
	assert_int_equal(tm_html_report_run(f->st, 9999, path), -1);
	tm_ingest_free(ing);
}

/* A pushed bench is filed once under its uuid, its runs in it with their
 * arm and the bench's note, its end when it comes; another machine cannot
 * add to it. */
static void test_ingest_bench(void **state)
{
	struct fixture *f = *state;
	struct tm_ingest *ing = tm_ingest_new();
	struct tm_push_ack a;
	struct tm_run_info ri;
	struct tm_bench_info bi;
	struct tm_bench_run_note n;
	int64_t id;

	assert_int_equal(
	    apply(ing, f->st, "pi", strdup("{\"v\":1," RUN "," BENCH("b-1", SPEC, "") "}"), &a), 0);
	assert_int_equal(apply(ing, f->st, "pi",
	                       strdup("{\"v\":1,"
	                              "\"run\":{\"uuid\":\"r2\",\"arm\":\"glibc\",\"bench_seq\":1,"
	                              "\"interval_usec\":1000000,\"started_wall_usec\":"
	                              "1790000000000000}," BENCH("b-1", SPEC, "") "}"),
	                       &a),
	                 0);
	assert_int_equal(tm_bench_store_by_uuid(f->st, "b-1", &id), 0);
	assert_int_equal(tm_store_run_get(f->st, a.run_id, &ri), 0);
	assert_int_equal(ri.bench_id, id);
	assert_string_equal(ri.arm, "glibc");
	assert_int_equal(ri.bench_seq, 1);
	tm_run_info_release(&ri);
	assert_int_equal(tm_bench_store_note(f->st, a.run_id, &n), 1); /* not noted yet */
	/* the run's note and the bench's end, later */
	assert_int_equal(
	    apply(ing, f->st, "pi",
	          strdup("{\"v\":1,"
	                 "\"run\":{\"uuid\":\"r2\",\"arm\":\"glibc\",\"bench_seq\":1,"
	                 "\"interval_usec\":1000000,\"started_wall_usec\":"
	                 "1790000000000000}," BENCH(
	                     "b-1", SPEC,
	                     ",\"ended_wall_usec\":"
	                     "1790000100000000") ",\"bench_run\":{\"arm_index\":0,\"warmup\":false,"
	                                         "\"wall_usec\":4000000,\"rig_cpu_usec\":30}}"),
	          &a),
	    0);
	assert_int_equal(tm_bench_store_note(f->st, a.run_id, &n), 0);
	assert_int_equal(n.bench_id, id);
	assert_int_equal(n.seq, 1);
	assert_int_equal(n.wall_usec, 4000000);
	assert_int_equal(n.rig_cpu_usec, 30);
	assert_int_equal(tm_bench_store_get(f->st, id, &bi), 0);
	assert_string_equal(bi.machine, "pi");
	assert_string_equal(bi.host, "box");
	assert_int_equal(bi.ended_wall_usec, 1790000100000000);
	tm_bench_info_release(&bi);
	/* one bench, whatever came twice */
	assert_int_equal(tm_bench_store_latest(f->st, &id), 0);
	assert_int_equal(id, 1);
	/* another machine's run cannot join pi's bench */
	assert_int_equal(
	    apply(ing, f->st, "vps",
	          strdup("{\"v\":1,\"run\":{\"uuid\":\"r3\",\"interval_usec\":1000000,"
	                 "\"started_wall_usec\":1790000000000000}," BENCH("b-1", SPEC, "") "}"),
	          &a),
	    403);
	tm_ingest_free(ing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_decode_valid),
	    cmocka_unit_test(test_decode_refuses_invisible),
	    cmocka_unit_test(test_push_answers),
	    cmocka_unit_test(test_push_answer_machine),
	    cmocka_unit_test(test_decode_refuses),
	    cmocka_unit_test(test_decode_bench),
	    cmocka_unit_test_setup_teardown(test_ingest_bench, setup, teardown),
	    cmocka_unit_test(test_prom_format),
	    cmocka_unit_test(test_prom_progress),
	    cmocka_unit_test(test_rate_table),
	    cmocka_unit_test(test_prom_label_utf8),
	    cmocka_unit_test_setup_teardown(test_ingest_exactly_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_series_buckets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_html_report, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
