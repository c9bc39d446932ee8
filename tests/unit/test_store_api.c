/* The store's functions for other parts, on a real SQLite file: the item
 * iterators (time order, stored order, from/limit, stopping), item counts,
 * the seq-by-time lookup, the server's and bench's tables, a read-only
 * store, the sample encoding, and a run as JSON (report/run/runjson.h). */
#include <inttypes.h>
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
#include <math.h>
#include <sqlite3.h>

#include "report/run/runjson.h"
#include "report/run/summary.h"
#include "store/bench_tables.h"
#include "store/server_tables.h"
#include "store/store.h"
#include "store/store_impl.h"
#include "store_fixture.h"

static int setup(void **state)
{
	*state = store_fixture_open("store-api");
	return 0;
}

static int teardown(void **state)
{
	store_fixture_close(*state);
	return 0;
}

/* ---- items ---- */

struct seen {
	int64_t value[16]; /* event value, progress value, or mark number */
	int n, stop_after;
};

static int see_event(void *ctx, const struct tm_event *ev)
{
	struct seen *s = ctx;

	assert_string_equal(ev->kind, "late");
	s->value[s->n++] = ev->value;
	return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

static int see_progress(void *ctx, int64_t wall, int64_t mono, double v)
{
	struct seen *s = ctx;

	assert_int_equal(wall, mono + 1000);
	s->value[s->n++] = (int64_t)v;
	return 0;
}

static int see_mark(void *ctx, int64_t wall, int64_t mono, const char *text)
{
	struct seen *s = ctx;

	(void)wall;
	(void)mono;
	s->value[s->n++] = strtol(text + 1, NULL, 10); /* "m3" -> 3 */
	return 0;
}

/* Five of each, stored in the order 0..4 with times that run backwards for
 * the odd ones, so time order and stored order differ. */
static void add_items(struct tm_store *st, int64_t run)
{
	static const int64_t mono[] = {100, 500, 200, 400, 300};
	char text[16];

	for (int i = 0; i < 5; i++) {
		struct tm_event ev = {.t_wall_usec = mono[i] + 1000,
		                      .t_mono_usec = mono[i],
		                      .kind = "late",
		                      .value = i};
		snprintf(text, sizeof(text), "m%d", i);
		assert_int_equal(tm_store_add_event(st, run, &ev), 0);
		assert_int_equal(tm_store_add_progress(st, run, mono[i] + 1000, mono[i], i), 0);
		assert_int_equal(tm_store_add_mark(st, run, mono[i] + 1000, mono[i], text), 0);
	}
	assert_int_equal(tm_store_commit(st), 0);
}

static void assert_seen(const struct seen *s, const int64_t *want, int n)
{
	assert_int_equal(s->n, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(s->value[i], want[i]);
}

static void test_items_in_time_order(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), other = store_fixture_run(f->st);
	static const int64_t by_time[] = {0, 2, 4, 3, 1};
	struct seen e = {0}, p = {0}, m = {0}, none = {0};

	add_items(f->st, run);
	add_items(f->st, other); /* another run's items never show */
	assert_int_equal(tm_store_each_event(f->st, run, see_event, &e), 0);
	assert_int_equal(tm_store_each_progress(f->st, run, see_progress, &p), 0);
	assert_int_equal(tm_store_each_mark(f->st, run, see_mark, &m), 0);
	assert_seen(&e, by_time, 5);
	assert_seen(&p, by_time, 5);
	assert_seen(&m, by_time, 5);
	/* a run with nothing (or no such run) is a walk of nothing */
	assert_int_equal(tm_store_each_event(f->st, run + 100, see_event, &none), 0);
	assert_int_equal(none.n, 0);
}

static void test_items_as_stored_from_a_position(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st);
	static const int64_t all[] = {0, 1, 2, 3, 4}, mid[] = {1, 2}, tail[] = {3, 4};
	struct seen e = {0}, p = {0}, m = {0}, past = {0}, stop = {.stop_after = 2};

	add_items(f->st, run);
	assert_int_equal(tm_store_each_event_from(f->st, run, 0, 0, see_event, &e), 0);
	assert_seen(&e, all, 5);
	assert_int_equal(tm_store_each_progress_from(f->st, run, 1, 2, see_progress, &p), 0);
	assert_seen(&p, mid, 2);
	assert_int_equal(tm_store_each_mark_from(f->st, run, 3, 10, see_mark, &m), 0);
	assert_seen(&m, tail, 2);
	assert_int_equal(tm_store_each_event_from(f->st, run, 5, 10, see_event, &past), 0);
	assert_int_equal(past.n, 0);
	/* a callback's non-zero stops the walk and is returned */
	assert_int_equal(tm_store_each_event_from(f->st, run, 0, 0, see_event, &stop), 7);
	assert_int_equal(stop.n, 2);
}

/* Batches as the pusher reads them: each starts where the last ended (by
 * id, not by skipping the rows before it), the rows of another run between
 * them are not in them, rows added meanwhile follow, and a position that is
 * not where the last batch ended is still found. */
static void test_items_batches_follow_on(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), other = store_fixture_run(f->st);
	struct seen got = {0};

	for (int i = 0; i < 6; i++) {
		assert_int_equal(tm_store_add_progress(f->st, run, 1000 + i, i, i), 0);
		assert_int_equal(tm_store_add_progress(f->st, other, 1000 + i, i, 100 + i), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	for (int from = 0; from < 6; from += 4)
		assert_int_equal(
		    tm_store_each_progress_from(f->st, run, from, 4, see_progress, &got), 0);
	assert_int_equal(tm_store_add_progress(f->st, run, 1006, 6, 6), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_progress_from(f->st, run, 6, 4, see_progress, &got), 0);
	static const int64_t all[] = {0, 1, 2, 3, 4, 5, 6};
	assert_seen(&got, all, 7);
	struct seen again = {0};
	assert_int_equal(tm_store_each_progress_from(f->st, run, 5, 1, see_progress, &again), 0);
	assert_seen(&again, all + 5, 1);
}

static int plan_row(void *ctx, int ncol, char **val, char **name)
{
	(void)name;
	for (int i = 0; i < ncol; i++)
		if (val[i] && strstr(val[i], "TEMP B-TREE"))
			snprintf(ctx, 256, "%s", val[i]);
	return 0;
}

/* No walk of items sorts the run's rows: each reads an index or the table
 * in its order (a sort of every row, for every batch, made a week's push
 * cost a quarter of a core). */
static void test_items_plans_need_no_sort(void **state)
{
	struct store_fixture *f = *state;
	sqlite3 *db;
	char sql[512], q[600];

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	for (int k = 0; k < TM_ITEM_KINDS; k++)
		for (int how = TM_WALK_BY_TIME; how <= TM_WALK_AFTER_ID; how++) {
			char sorted[256] = "";
			tm_st_items_sql((enum tm_item_kind)k, (enum tm_item_walk)how, sql,
			                sizeof(sql));
			snprintf(q, sizeof(q), "EXPLAIN QUERY PLAN %s", sql);
			assert_int_equal(sqlite3_exec(db, q, plan_row, sorted, NULL), SQLITE_OK);
			if (sorted[0])
				fail_msg("'%s' plans '%s'", sql, sorted);
		}
	sqlite3_close(db);
}

static void test_item_counts(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), empty = store_fixture_run(f->st);
	struct tm_item_counts n = {-1, -1, -1};
	struct tm_event ev = {.kind = "start"};

	add_items(f->st, run);
	assert_int_equal(tm_store_add_event(f->st, run, &ev), 0);
	/* counted inside the open batch too: the batch's own writes are visible */
	assert_int_equal(tm_store_count_items(f->st, run, &n), 0);
	assert_int_equal(n.events, 6);
	assert_int_equal(n.progress, 5);
	assert_int_equal(n.marks, 5);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_count_items(f->st, empty, &n), 0);
	assert_int_equal(n.events + n.progress + n.marks, 0);
}

/* ---- samples by time ---- */

static int count_ops(void *ctx)
{
	(*(int64_t *)ctx)++;
	return 0;
}

/* The first seq at or after T by walking every sample (the reference). */
static int64_t seq_at_walk(const int64_t *wall, int n, int64_t t)
{
	for (int i = 0; i < n; i++)
		if (wall[i] >= t)
			return i;
	return -1;
}

/*
 * The lookup by time in a long run seeks from the rollups (issue 23: the
 * panel's last hour of a year walked 3 million rows first): 30 000 samples a
 * second apart (500 minute rollups), with the clock stepped back 90 s at
 * sample 20 000; every answer is the walk's, and the last minute's lookup
 * runs a bounded number of SQLite's VM steps (counted by a progress handler
 * every 100 of them), not one pass over the run.
 */
static void test_seq_at_long_run(void **state)
{
	struct store_fixture *f = *state;
	enum { N = 30000 };
	int64_t run = store_fixture_run(f->st), seq, ops = 0, base = 1700000000000000;
	int64_t *wall = malloc(N * sizeof(*wall));
	struct tm_sample s;

	assert_non_null(wall);
	for (int i = 0; i < N; i++) {
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = wall[i] = base + (int64_t)i * 1000000 - (i >= 20000 ? 90000000 : 0);
		s.t_mono_usec = (int64_t)i * 1000000;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, i);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	static const int64_t probe_s[] = {0,     1,     60,    59,    61,    3600,  19900, 19910,
	                                  19911, 19930, 19999, 20000, 20001, 25000, 29999, 30000};
	for (size_t k = 0; k < sizeof(probe_s) / sizeof(probe_s[0]); k++) {
		int64_t t = base + probe_s[k] * 1000000, want = seq_at_walk(wall, N, t);
		seq = -5;
		int rc = tm_store_seq_at(f->st, run, t, &seq);
		if (want < 0) {
			assert_int_equal(rc, 1);
			continue;
		}
		assert_int_equal(rc, 0);
		if (seq != want)
			fail_msg("seq at +%" PRId64 " s: %" PRId64 ", the walk's %" PRId64,
			         probe_s[k], seq, want);
	}
	sqlite3_progress_handler(f->st->db, 100, count_ops, &ops);
	assert_int_equal(tm_store_seq_at(f->st, run, wall[N - 60], &seq), 0);
	sqlite3_progress_handler(f->st->db, 0, NULL, NULL);
	assert_int_equal(seq, N - 60);
	if (ops > 50)
		fail_msg("the last minute's lookup ran %" PRId64 "00 VM steps (bound 5000)", ops);
	free(wall);
}

static void test_seq_at_time(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), empty = store_fixture_run(f->st), seq = -5;
	struct tm_sample s;

	for (int64_t i = 0; i < 600; i++) {
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = 1000000 + i * 1000;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, i);
		assert_int_equal(tm_store_add_sample(f->st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_seq_at(f->st, run, 0, &seq), 0);
	assert_int_equal(seq, 0);
	assert_int_equal(tm_store_seq_at(f->st, run, 1000000 + 300 * 1000, &seq), 0);
	assert_int_equal(seq, 300); /* exactly at a sample */
	assert_int_equal(tm_store_seq_at(f->st, run, 1000000 + 300 * 1000 + 1, &seq), 0);
	assert_int_equal(seq, 301); /* between two: the later one */
	seq = -5;
	assert_int_equal(tm_store_seq_at(f->st, run, 1000000 + 600 * 1000, &seq), 1);
	assert_int_equal(seq, -5); /* after the last: none, *seq untouched */
	assert_int_equal(tm_store_seq_at(f->st, empty, 0, &seq), 1);
}

/* ---- the server's tables ---- */

struct tokens {
	char names[8][40];
	int n;
};

static int see_token(void *ctx, const char *name, const char *kind, const char *hash,
                     int64_t created)
{
	struct tokens *t = ctx;

	snprintf(t->names[t->n++], sizeof(t->names[0]), "%s/%s/%s/%lld", name, kind, hash,
	         (long long)created);
	return 0;
}

static void test_tokens(void **state)
{
	struct store_fixture *f = *state;
	struct tokens t = {0};

	assert_int_equal(tm_server_tables_init(f->st), 0);
	assert_int_equal(tm_store_token_put(f->st, "pi", "write", "h1", 10), 0);
	assert_int_equal(tm_store_token_put(f->st, "laptop", "read", "h2", 20), 0);
	assert_int_equal(tm_store_token_put(f->st, "pi", "read", "h3", 30), 0);
	assert_int_equal(tm_store_token_put(f->st, "pi", "write", "h4", 40), 0); /* replaces h1 */
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_token(f->st, see_token, &t), 0);
	assert_int_equal(t.n, 3);
	assert_string_equal(t.names[0], "laptop/read/h2/20");
	assert_string_equal(t.names[1], "pi/read/h3/30");
	assert_string_equal(t.names[2], "pi/write/h4/40");
	assert_int_equal(tm_store_token_delete(f->st, "pi", "read"), 0);
	assert_int_equal(tm_store_token_delete(f->st, "pi", "read"), 1);
	assert_int_equal(tm_store_token_delete(f->st, "nobody", "write"), 1);
	assert_int_equal(tm_store_commit(f->st), 0);
	t.n = 0;
	assert_int_equal(tm_store_each_token(f->st, see_token, &t), 0);
	assert_int_equal(t.n, 2);
}

static int see_machine(void *ctx, const struct tm_machine_row *m)
{
	struct tm_machine_row *out = ctx;

	assert_string_equal(m->name, "pi");
	assert_string_equal(m->last_addr, "10.0.0.2");
	*out = *m;
	out->name = out->last_addr = NULL; /* valid during the call only */
	return 0;
}

static void test_machines(void **state)
{
	struct store_fixture *f = *state;
	struct tm_machine_row m = {0};

	/* a collector's own store has no machines table: no machines, no error */
	assert_int_equal(tm_store_each_machine(f->st, see_machine, &m), 0);
	assert_int_equal(m.batches, 0);
	assert_int_equal(tm_server_tables_init(f->st), 0);
	assert_int_equal(tm_store_machine_pushed(f->st, "pi", "10.0.0.1", 500, 1000), 0);
	assert_int_equal(tm_store_machine_pushed(f->st, "pi", "10.0.0.2", 20, 3000), 0);
	assert_int_equal(tm_store_commit(f->st), 0);
	assert_int_equal(tm_store_each_machine(f->st, see_machine, &m), 0);
	assert_int_equal(m.first_push_wall_usec, 1000);
	assert_int_equal(m.last_push_wall_usec, 3000);
	assert_int_equal(m.batches, 2);
	assert_int_equal(m.samples, 520);
}

/* ---- bench's tables ---- */

static void test_bench_tables(void **state)
{
	struct store_fixture *f = *state;
	struct tm_bench_row row = {.name = "cmp",
	                           .spec_json = "{}",
	                           .order = "shuffle",
	                           .seed = 42,
	                           .started_wall_usec = 100};
	struct tm_bench_run_note note = {.bench_id = 0,
	                                 .run_id = 7,
	                                 .seq = 3,
	                                 .arm_index = 1,
	                                 .warmup = true,
	                                 .wall_usec = 0,
	                                 .rig_cpu_usec = -1};
	struct tm_bench_info b;
	struct tm_bench_run_note got;
	int64_t id = 0;

	/* a store no bench wrote: no such bench, no such note, not an error */
	assert_int_equal(tm_bench_store_get(f->st, 1, &b), 1);
	assert_int_equal(tm_bench_store_note(f->st, 7, &got), 1);
	assert_int_equal(got.rig_cpu_usec, -1);
	assert_int_equal(tm_bench_store_begin(f->st, &row, &id), 0);
	assert_int_equal(tm_bench_store_end(f->st, id, 900), 0);
	note.bench_id = id;
	assert_int_equal(tm_bench_store_run(f->st, &note), 0);
	assert_int_equal(tm_bench_store_get(f->st, id, &b), 0);
	assert_string_equal(b.name, "cmp");
	assert_string_equal(b.order, "shuffle");
	assert_null(b.host); /* not stored: NULL, not "" */
	assert_int_equal(b.seed, 42);
	assert_int_equal(b.started_wall_usec, 100);
	assert_int_equal(b.ended_wall_usec, 900);
	tm_bench_info_release(&b);
	assert_int_equal(tm_bench_store_get(f->st, id + 1, &b), 1);
	assert_int_equal(tm_bench_store_note(f->st, 7, &got), 0);
	assert_int_equal(got.bench_id, id);
	assert_int_equal(got.seq, 3);
	assert_int_equal(got.arm_index, 1);
	assert_true(got.warmup);
	assert_int_equal(got.wall_usec, 0);     /* unknown stays 0 */
	assert_int_equal(got.rig_cpu_usec, -1); /* unknown stays -1 */
	note.wall_usec = 5000;
	note.rig_cpu_usec = 0;
	assert_int_equal(tm_bench_store_run(f->st, &note), 0); /* replaces */
	assert_int_equal(tm_bench_store_note(f->st, 7, &got), 0);
	assert_int_equal(got.wall_usec, 5000);
	assert_int_equal(got.rig_cpu_usec, 0);
}

/* A read-only store reads everything and changes nothing. */
static void test_read_only(void **state)
{
	struct store_fixture *f = *state;
	int64_t run = store_fixture_run(f->st), got_run = 0;
	struct tm_store *ro;
	struct tm_bench_info b;
	struct tm_item_counts n;
	struct seen e = {0};

	add_items(f->st, run);
	assert_int_equal(tm_store_open_readonly(f->path, &ro), 0);
	assert_int_equal(tm_store_latest_run(ro, &got_run), 0);
	assert_int_equal(got_run, run);
	assert_int_equal(tm_store_each_event_from(ro, run, 0, 0, see_event, &e), 0);
	assert_int_equal(e.n, 5);
	assert_int_equal(tm_store_count_items(ro, run, &n), 0);
	assert_int_equal(n.marks, 5);
	assert_int_equal(tm_bench_store_get(ro, 1, &b), 1); /* no tables: none, no error */
	assert_int_equal(tm_store_add_mark(ro, run, 1, 2, "x"), -1);
	tm_store_close(ro);
}

/* ---- the sample encoding ---- */

static void test_encoding(void **state)
{
	unsigned char key[TM_SAMPLE_ENC_MAX], delta[TM_SAMPLE_ENC_MAX];
	struct tm_sample a, b, got;
	size_t klen, dlen;

	(void)state;
	tm_sample_clear(&a);
	tm_sample_set(&a, TM_M_CG_ANON_BYTES, 400 << 20);
	tm_sample_set(&a, TM_M_CG_MAX_BYTES, INT64_MAX);
	b = a;
	b.v[TM_M_CG_ANON_BYTES] += 4096;
	klen = tm_sample_encode(&a, NULL, key);
	dlen = tm_sample_encode(&b, &a, delta);
	assert_true(dlen < klen); /* a small change is a small delta, the mask not repeated */
	assert_int_equal(tm_sample_decode(key, klen, NULL, &got), 0);
	assert_true(tm_sample_has(&got, TM_M_CG_MAX_BYTES));
	assert_eq(got.v[TM_M_CG_MAX_BYTES], INT64_MAX);
	assert_false(tm_sample_has(&got, TM_M_CG_FILE_BYTES));
	assert_int_equal(tm_sample_decode(delta, dlen, &a, &got), 0);
	assert_int_equal(got.v[TM_M_CG_ANON_BYTES], (400 << 20) + 4096);
	/* what cannot be decoded is refused, not guessed */
	assert_int_equal(tm_sample_decode(delta, dlen, NULL, &got), -1);   /* no base */
	assert_int_equal(tm_sample_decode(key, klen - 1, NULL, &got), -1); /* cut short */
	key[klen] = 0;
	assert_int_equal(tm_sample_decode(key, klen + 1, NULL, &got), -1); /* trailing bytes */
}

/* ---- a run as JSON ---- */

static void test_run_json(void **state)
{
	char uuid[] = "u-1", machine[] = "pi", cmd[] = "[\"./job\", \"-x\"]", env[] = "{broken";
	struct tm_run_info ri = {.id = 3,
	                         .uuid = uuid,
	                         .machine = machine,
	                         .command_json = cmd,
	                         .env_json = env,
	                         .interval_usec = 1000,
	                         .exit_code = -1,
	                         .term_signal = 9,
	                         .sample_count = 12};
	json_t *full, *wire, *end;

	(void)state;
	full = tm_run_json(&ri, TM_RUN_JSON_FULL);
	assert_non_null(full);
	assert_int_equal(json_integer_value(json_object_get(full, "id")), 3);
	assert_string_equal(json_string_value(json_object_get(full, "machine")), "pi");
	assert_true(json_is_null(json_object_get(full, "kernel"))); /* absent: null */
	assert_true(json_is_null(json_object_get(full, "outcome")));
	assert_true(json_is_null(json_object_get(full, "env"))); /* broken JSON: null */
	assert_true(json_is_null(json_object_get(full, "limits")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(full, "command"), 1)),
	                    "-x");
	assert_int_equal(json_integer_value(json_object_get(full, "sample_count")), 12);
	assert_int_equal(json_integer_value(json_object_get(full, "exit_code")), -1);
	assert_null(json_object_get(full, "command_json"));

	wire = tm_run_json(&ri, TM_RUN_JSON_PUSH);
	assert_string_equal(json_string_value(json_object_get(wire, "command_json")), cmd);
	assert_null(json_object_get(wire, "kernel")); /* absent: left out */
	assert_null(json_object_get(wire, "id"));
	assert_null(json_object_get(wire, "outcome"));
	assert_null(json_object_get(wire, "command"));
	assert_int_equal(json_integer_value(json_object_get(wire, "interval_usec")), 1000);

	end = tm_run_json(&ri, TM_RUN_JSON_PUSH_END);
	assert_string_equal(json_string_value(json_object_get(end, "outcome")), "completed");
	assert_int_equal(json_integer_value(json_object_get(end, "term_signal")), 9);
	assert_null(json_object_get(end, "reason"));
	json_decref(full);
	json_decref(wire);
	json_decref(end);
}

/* A figure that is not known is null in JSON, never 0 (rule 3). */
static void test_json_num_and_str(void **state)
{
	(void)state;
	json_t *j = tm_json_num(NAN);
	assert_true(json_is_null(j));
	json_decref(j);
	j = tm_json_num(INFINITY);
	assert_true(json_is_null(j));
	json_decref(j);
	j = tm_json_num(0.0);
	assert_true(json_is_real(j));
	assert_eq(json_number_value(j), 0.0);
	json_decref(j);
	j = tm_json_num(1.5);
	assert_eq(json_number_value(j), 1.5);
	json_decref(j);
	j = tm_json_str(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
	j = tm_json_str("");
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
}

static void test_summary_json(void **state)
{
	struct tm_summary s;
	json_t *o;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.samples = 4;
	s.peak_anon_bytes = 1048576;
	s.oom_kills = NAN; /* not measured: null, never 0 */
	o = tm_summary_json(&s);
	assert_non_null(o);
	assert_eq(json_number_value(json_object_get(o, "peak_anon_bytes")), 1048576);
	assert_true(json_is_null(json_object_get(o, "oom_kills")));
	assert_int_equal(json_integer_value(json_object_get(o, "samples")), 4);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_items_in_time_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_items_as_stored_from_a_position, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_items_batches_follow_on, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_items_plans_need_no_sort, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_item_counts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_seq_at_time, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_seq_at_long_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_machines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bench_tables, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_read_only, setup, teardown),
	    cmocka_unit_test(test_encoding),
	    cmocka_unit_test(test_run_json),
	    cmocka_unit_test(test_json_num_and_str),
	    cmocka_unit_test(test_summary_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
