/*
 * A run's events, progress points and marks: adding them, and reading them
 * back in time order or in the order they were stored (the push protocol
 * numbers them so).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "store/store_impl.h"
#include "base/banned.h"

/* The columns read back, per kind, after t_wall_usec and t_mono_usec. */
static const char *const item_table[] = {
    [TM_ITEM_EVENT] = "kind, pid, value, detail FROM events",
    [TM_ITEM_PROGRESS] = "value FROM progress",
    [TM_ITEM_MARK] = "text FROM marks",
};

static const char *const item_name[] = {
    [TM_ITEM_EVENT] = "events",
    [TM_ITEM_PROGRESS] = "progress",
    [TM_ITEM_MARK] = "marks",
};

/* One walk's callback, whichever kind it is. */
struct item_walk {
	enum tm_item_kind kind;
	union {
		tm_event_cb event;
		tm_progress_cb progress;
		tm_mark_cb mark;
	} cb;
	void *ctx;
};

int tm_store_add_event(struct tm_store *st, int64_t run_id, const struct tm_event *ev)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) || !(s = tm_st_cached(st, TM_ST_ADD_EVENT)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ev->t_wall_usec);
	sqlite3_bind_int64(s, 3, ev->t_mono_usec);
	sqlite3_bind_text(s, 4, ev->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 5, ev->pid);
	sqlite3_bind_int64(s, 6, ev->value);
	tm_st_bind_text(s, 7, ev->detail);
	return tm_st_step_done(st, s, false, "add event");
}

int tm_store_add_progress(struct tm_store *st, int64_t run_id, int64_t t_wall_usec,
                          int64_t t_mono_usec, double value)
{
	sqlite3_stmt *s;

	if (st->window_usec) {
		struct tm_pending_row row = {.stmt = TM_ST_ADD_PROGRESS,
		                             .v = {run_id, t_wall_usec, t_mono_usec},
		                             .d = value};
		return tm_st_pending_add(st, &row);
	}
	if (tm_st_begin_batch(st) || !(s = tm_st_cached(st, TM_ST_ADD_PROGRESS)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, t_wall_usec);
	sqlite3_bind_int64(s, 3, t_mono_usec);
	sqlite3_bind_double(s, 4, value);
	return tm_st_step_done(st, s, false, "add progress");
}

int tm_store_add_mark(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t t_mono_usec,
                      const char *text)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) || !(s = tm_st_cached(st, TM_ST_ADD_MARK)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, t_wall_usec);
	sqlite3_bind_int64(s, 3, t_mono_usec);
	sqlite3_bind_text(s, 4, text, -1, SQLITE_TRANSIENT);
	return tm_st_step_done(st, s, false, "add mark");
}

/* Hands the current row of S to W's callback. */
static int call(const struct item_walk *w, sqlite3_stmt *s)
{
	int64_t wall = sqlite3_column_int64(s, 0), mono = sqlite3_column_int64(s, 1);

	if (w->kind == TM_ITEM_PROGRESS)
		return w->cb.progress(w->ctx, wall, mono, sqlite3_column_double(s, 2));
	if (w->kind == TM_ITEM_MARK)
		return w->cb.mark(w->ctx, wall, mono, (const char *)sqlite3_column_text(s, 2));
	struct tm_event ev = {
	    .t_wall_usec = wall,
	    .t_mono_usec = mono,
	    .kind = (const char *)sqlite3_column_text(s, 2),
	    .pid = sqlite3_column_int64(s, 3),
	    .value = sqlite3_column_int64(s, 4),
	    .detail = (const char *)sqlite3_column_text(s, 5),
	};
	if (!ev.kind)
		ev.kind = "";
	return w->cb.event(w->ctx, &ev);
}

void tm_st_items_sql(enum tm_item_kind kind, enum tm_item_walk how, char *sql, size_t size)
{
	/* As stored, the rows are read along the table's own id (+run_id keeps
	 * the planner off the (run_id, t_mono_usec) index, whose order would
	 * need a sort of all of the run's rows for each batch). */
	static const char *const tail[] = {
	    [TM_WALK_BY_TIME] = "run_id = ?1 ORDER BY t_mono_usec, id LIMIT ?2 OFFSET ?3",
	    [TM_WALK_FROM_POSITION] = "+run_id = ?1 ORDER BY id LIMIT ?2 OFFSET ?3",
	    [TM_WALK_AFTER_ID] = "+run_id = ?1 AND id > ?3 ORDER BY id LIMIT ?2",
	};
	const char *cols = item_table[kind], *from = strstr(cols, " FROM ");

	snprintf(sql, size, "SELECT t_wall_usec, t_mono_usec, %.*s, id%s WHERE %s",
	         (int)(from - cols), cols, from, tail[how]);
}

/* The walk behind every iterator: by time, or as stored from position FROM
 * with at most LIMIT rows (LIMIT <= 0: all).  A walk as stored that starts
 * where the last one of its kind ended starts after that one's last id. */
static int walk(struct tm_store *st, int64_t run_id, bool as_stored, int64_t from, int64_t limit,
                const struct item_walk *w)
{
	struct tm_item_cursor *cur = &st->item_cursor[w->kind];
	bool after = as_stored && from > 0 && cur->run_id == run_id && cur->pos == from;
	enum tm_item_walk how = !as_stored ? TM_WALK_BY_TIME
	                        : after    ? TM_WALK_AFTER_ID
	                                   : TM_WALK_FROM_POSITION;
	int64_t rows = 0, last_id = after ? cur->last_id : 0;
	char sql[256];
	sqlite3_stmt *s;
	int rc = 0, step;

	tm_st_items_sql(w->kind, how, sql, sizeof(sql));
	if (tm_st_prepare(st, sql, &s, item_name[w->kind]))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, limit > 0 ? limit : -1);
	sqlite3_bind_int64(s, 3, after ? cur->last_id : from > 0 ? from : 0);
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		last_id = sqlite3_column_int64(s, sqlite3_column_count(s) - 1);
		rows++;
		rc = call(w, s);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, item_name[w->kind]);
	sqlite3_finalize(s);
	if (as_stored && !rc && rows)
		*cur = (struct tm_item_cursor){run_id, (from > 0 ? from : 0) + rows, last_id};
	return rc;
}

int tm_store_each_event(struct tm_store *st, int64_t run_id, tm_event_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_EVENT, {.event = cb}, ctx};
	return walk(st, run_id, false, 0, 0, &w);
}

int tm_store_each_progress(struct tm_store *st, int64_t run_id, tm_progress_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_PROGRESS, {.progress = cb}, ctx};
	return walk(st, run_id, false, 0, 0, &w);
}

int tm_store_each_mark(struct tm_store *st, int64_t run_id, tm_mark_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_MARK, {.mark = cb}, ctx};
	return walk(st, run_id, false, 0, 0, &w);
}

int tm_store_each_event_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                             tm_event_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_EVENT, {.event = cb}, ctx};
	return walk(st, run_id, true, from, limit, &w);
}

int tm_store_each_progress_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                                tm_progress_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_PROGRESS, {.progress = cb}, ctx};
	return walk(st, run_id, true, from, limit, &w);
}

int tm_store_each_mark_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                            tm_mark_cb cb, void *ctx)
{
	struct item_walk w = {TM_ITEM_MARK, {.mark = cb}, ctx};
	return walk(st, run_id, true, from, limit, &w);
}

int tm_store_count_items(struct tm_store *st, int64_t run_id, struct tm_item_counts *out)
{
	sqlite3_stmt *s;
	int rc;

	if (tm_st_prepare(st,
	                  "SELECT (SELECT count(*) FROM events WHERE run_id = ?1),"
	                  " (SELECT count(*) FROM progress WHERE run_id = ?1),"
	                  " (SELECT count(*) FROM marks WHERE run_id = ?1)",
	                  &s, "prepare counts"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->events = sqlite3_column_int64(s, 0);
		out->progress = sqlite3_column_int64(s, 1);
		out->marks = sqlite3_column_int64(s, 2);
		rc = 0;
	} else {
		rc = tm_st_error(st, "count items");
	}
	sqlite3_finalize(s);
	return rc;
}
