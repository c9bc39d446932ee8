/* Read documents: machines, runs, one run, a bench. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "report/bench/benchtab.h"
#include "report/sweep/sweepcurve.h"
#include "report/run/throttle.h"
#include "report/run/runjson.h"
#include "report/run/summary.h"
#include "serve/api.h"
#include "store/server_tables.h"
#include "store/store.h"
#include "base/banned.h"

struct runs_ctx {
	json_t *arr;
	const char *machine;
};

static int add_run(void *ctx, const struct tm_run_info *ri)
{
	struct runs_ctx *c = ctx;

	if (c->machine && (!ri->machine || strcmp(c->machine, ri->machine)))
		return 0;
	json_array_insert_new(c->arr, 0, tm_run_json(ri, TM_RUN_JSON_FULL)); /* newest first */
	return 0;
}

json_t *tm_api_runs(struct tm_store *st, const char *machine, int64_t bench_id)
{
	struct runs_ctx c = {json_array(), machine};

	if (tm_store_each_run(st, bench_id, add_run, &c) < 0) {
		json_decref(c.arr);
		return NULL;
	}
	return c.arr;
}

static int append_run(void *ctx, const struct tm_run_info *ri)
{
	json_t *o = tm_run_json(ri, TM_RUN_JSON_FULL);

	return o && json_array_append_new(ctx, o) == 0 ? 0 : tm_error("out of memory");
}

json_t *tm_api_runs_page(struct tm_store *st, const struct tm_run_page *pg)
{
	json_t *arr = json_array();

	if (!arr || tm_store_each_run_page(st, pg, append_run, arr)) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static int add_machine(void *ctx, const struct tm_run_info *ri)
{
	json_t *by_name = ctx, *m;
	const char *name = ri->machine ? ri->machine : "(unknown)";

	m = json_object_get(by_name, name);
	if (!m) {
		m = json_object();
		json_object_set_new(m, "name", json_string(name));
		json_object_set_new(m, "runs", json_integer(0));
		json_object_set_new(m, "last_push_wall_usec", json_null());
		json_object_set_new(m, "latest_record_run_id", json_null());
		json_object_set_new(by_name, name, m);
	}
	json_object_set_new(m, "runs",
	                    json_integer(json_integer_value(json_object_get(m, "runs")) + 1));
	json_object_set_new(m, "latest_run_id", json_integer(ri->id));
	json_object_set_new(m, "latest_started_wall_usec", json_integer(ri->started_wall_usec));
	json_object_set_new(m, "latest_ended_wall_usec", json_integer(ri->ended_wall_usec));
	if (ri->bench_id <= 0)
		json_object_set_new(m, "latest_record_run_id", json_integer(ri->id));
	return 0;
}

/* Adds a machine's last push time, from the server's machines table. */
static int add_push_time(void *ctx, const struct tm_machine_row *row)
{
	json_t *m = json_object_get(ctx, row->name);

	if (m) {
		json_object_set_new(m, "last_push_wall_usec",
		                    json_integer(row->last_push_wall_usec));
		json_object_set_new(m, "pushed_samples", json_integer(row->samples));
	}
	return 0;
}

json_t *tm_api_machines(struct tm_store *st)
{
	json_t *by_name = json_object(), *arr = json_array();

	/* a collector's own store has no machines table: no push times */
	if (tm_store_each_run(st, 0, add_machine, by_name) < 0 ||
	    tm_store_each_machine(st, add_push_time, by_name) < 0) {
		json_decref(by_name);
		json_decref(arr);
		return NULL;
	}
	for (void *it = json_object_iter(by_name); it; it = json_object_iter_next(by_name, it))
		json_array_append(arr, json_object_iter_value(it));
	json_decref(by_name);
	return arr;
}

#define RUN_ITEMS_MAX 20000 /* events or marks returned with a run */

static int add_event(void *ctx, const struct tm_event *ev)
{
	json_t *arr = ctx;

	if (json_array_size(arr) >= RUN_ITEMS_MAX)
		return 0;
	json_array_append_new(arr, json_pack("{s:I, s:s, s:I, s:I, s:o}", "t_wall_usec",
	                                     (json_int_t)ev->t_wall_usec, "kind", ev->kind, "pid",
	                                     (json_int_t)ev->pid, "value", (json_int_t)ev->value,
	                                     "detail", tm_json_str(ev->detail)));
	return 0;
}

static int add_mark(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, const char *text)
{
	json_t *arr = ctx;

	(void)t_mono_usec;
	if (json_array_size(arr) >= RUN_ITEMS_MAX)
		return 0;
	json_array_append_new(arr, json_pack("{s:I, s:s}", "t_wall_usec", (json_int_t)t_wall_usec,
	                                     "text", text ? text : ""));
	return 0;
}

static json_t *summary_json(struct tm_store *st, int64_t run_id)
{
	struct tm_window w = {.kind = TM_WIN_ALL};
	struct tm_summary s;

	if (tm_summarize(st, run_id, &w, &s) != 0)
		return json_null();
	return tm_summary_json(&s);
}

/* The run's throttle limbo (report/run/throttle.h) for the panel; null on a store error. */
static json_t *throttle_json(struct tm_store *st, int64_t run_id)
{
	struct tm_throttle th;
	json_t *j;

	if (tm_throttle_find(st, run_id, 0, -1, &th) != 0)
		return json_null();
	j = tm_throttle_json(&th);
	return j ? j : json_null();
}

json_t *tm_api_run(struct tm_store *st, int64_t run_id, int *missing)
{
	struct tm_run_info ri;
	json_t *o, *events = json_array(), *marks = json_array();
	int rc = tm_store_run_get(st, run_id, &ri);

	*missing = rc == 1;
	if (rc != 0 || tm_store_each_event(st, run_id, add_event, events) < 0 ||
	    tm_store_each_mark(st, run_id, add_mark, marks) < 0) {
		if (rc == 0)
			tm_run_info_release(&ri);
		json_decref(events);
		json_decref(marks);
		return NULL;
	}
	o = tm_run_json(&ri, TM_RUN_JSON_FULL);
	tm_run_info_release(&ri);
	json_object_set_new(o, "events", events);
	json_object_set_new(o, "marks", marks);
	return o;
}

json_t *tm_api_summary(struct tm_store *st, int64_t run_id, int *missing)
{
	struct tm_run_info ri;
	int rc = tm_store_run_get(st, run_id, &ri);

	*missing = rc == 1;
	if (rc != 0)
		return NULL;
	tm_run_info_release(&ri);
	return json_pack("{s:I, s:o, s:o}", "run_id", (json_int_t)run_id, "summary",
	                 summary_json(st, run_id), "throttle", throttle_json(st, run_id));
}

json_t *tm_api_bench(struct tm_store *st, int64_t bench_id)
{
	json_t *o = json_object(), *runs = tm_api_runs(st, NULL, bench_id), *table = NULL;
	char *text = NULL;

	if (!runs) {
		json_decref(o);
		return NULL;
	}
	if (tm_bench_table_json(st, bench_id, &text) == 0 && text)
		table = json_loads(text, 0, NULL);
	free(text);
	json_object_set_new(o, "bench_id", json_integer(bench_id));
	json_object_set_new(o, "table", table ? table : json_null());
	json_object_set_new(o, "runs", runs);
	return o;
}

json_t *tm_api_bench_sweep(struct tm_store *st, int64_t bench_id)
{
	int n = 0;
	json_t *c = tm_sweep_stored_curve(st, bench_id, NULL, &n, 0);

	if (c && json_is_null(c)) {
		json_decref(c);
		return json_pack("{s:n, s:[]}", "limit", "arms");
	}
	return c;
}
