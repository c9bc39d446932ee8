/*
 * The rollups table: each run's open minute and hour buckets, kept in the
 * writer's state and written in the batch of the samples they hold, so the
 * file's rollups always match its samples; reading them back.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/store_impl.h"
#include "base/banned.h"

#define ROLLUP_COLS                                                                                \
	"bucket_wall_usec, first_seq, last_seq, samples, late_samples, t_first_wall_usec,"         \
	" t_last_wall_usec, t_first_mono_usec, t_last_mono_usec, data"

static int64_t level_sec(enum tm_rollup_level l)
{
	return tm_rollup_width_usec(l) / 1000000;
}

/* Fills R from a row of ROLLUP_COLS starting at column 0.  0 or -1. */
static int row_to_rollup(struct tm_store *st, sqlite3_stmt *q, int64_t run_id,
                         enum tm_rollup_level l, struct tm_rollup *r)
{
	tm_rollup_reset(r, run_id, l, sqlite3_column_int64(q, 0));
	r->first_seq = sqlite3_column_int64(q, 1);
	r->last_seq = sqlite3_column_int64(q, 2);
	r->samples = sqlite3_column_int64(q, 3);
	r->late_samples = sqlite3_column_int64(q, 4);
	r->t_first_wall_usec = sqlite3_column_int64(q, 5);
	r->t_last_wall_usec = sqlite3_column_int64(q, 6);
	r->t_first_mono_usec = sqlite3_column_int64(q, 7);
	r->t_last_mono_usec = sqlite3_column_int64(q, 8);
	if (tm_rollup_decode(sqlite3_column_blob(q, 9), (size_t)sqlite3_column_bytes(q, 9), r))
		return tm_error("store '%s': run %" PRId64 " %s rollup at %" PRId64
		                " cannot be decoded",
		                st->path, run_id, tm_rollup_level_name(l), r->bucket_wall_usec);
	return 0;
}

/* The run's newest bucket of level L into R (R->samples 0 when none). */
static int load_newest(struct tm_store *st, int64_t run_id, enum tm_rollup_level l,
                       struct tm_rollup *r)
{
	sqlite3_stmt *q;
	int rc;

	tm_rollup_reset(r, run_id, l, 0);
	if (tm_st_prepare(st,
	                  "SELECT " ROLLUP_COLS " FROM rollups WHERE run_id = ? AND level_sec = ?"
	                  " ORDER BY bucket_wall_usec DESC LIMIT 1",
	                  &q, "prepare rollup"))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, level_sec(l));
	rc = tm_st_step_row(st, q, "read rollup");
	if (rc == 0)
		rc = row_to_rollup(st, q, run_id, l, r);
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

static int catch_up_cb(void *ctx, const struct tm_sample *s)
{
	void **a = ctx;
	return tm_st_rollup_add(a[0], a[1], s, false);
}

int tm_st_rollup_load(struct tm_store *st, struct tm_writer_state *w)
{
	int64_t interval = 0, through = INT64_MAX;

	if (tm_st_query_int64(st, "SELECT interval_usec FROM runs WHERE id = ?", NULL, w->run_id,
	                      &interval) < 0)
		return -1;
	w->late_usec = interval / 4;
	for (int l = 0; l < TM_ROLLUP_LEVELS; l++) {
		w->dirty[l] = false;
		if (load_newest(st, w->run_id, (enum tm_rollup_level)l, &w->roll[l]))
			return -1;
		if (w->roll[l].last_seq < through)
			through = w->roll[l].last_seq;
	}
	if (through >= w->last.seq)
		return 0;
	/* samples stored before this file had rollups (or by an older tidemark) */
	void *ctx[2] = {st, w};
	return tm_store_each_sample(st, w->run_id, through + 1, w->last.seq, catch_up_cb, ctx);
}

/* Writes R in the batch, or with WAIT, stages it to be written in the
 * next commit with the samples that wait (pending.c). */
static int put(struct tm_store *st, const struct tm_rollup *r, bool wait)
{
	unsigned char data[TM_ROLLUP_ENC_MAX];
	struct tm_pending_row row = {
	    .stmt = TM_ST_PUT_ROLLUP,
	    .v = {r->run_id, level_sec(r->level), r->bucket_wall_usec, r->first_seq, r->last_seq,
	          r->samples, r->late_samples, r->t_first_wall_usec, r->t_last_wall_usec,
	          r->t_first_mono_usec, r->t_last_mono_usec},
	    .blob = data,
	    .len = tm_rollup_encode(r, data),
	};
	sqlite3_stmt *ins;

	if (wait)
		return tm_st_pending_add(st, &row);
	if (tm_st_begin_batch(st) || !(ins = tm_st_cached(st, TM_ST_PUT_ROLLUP)))
		return -1;
	for (int i = 0; i < 11; i++)
		sqlite3_bind_int64(ins, i + 1, row.v[i]);
	sqlite3_bind_blob(ins, 12, data, (int)row.len, SQLITE_STATIC);
	return tm_st_step_done(st, ins, false, "write rollup");
}

int tm_st_rollup_add(struct tm_store *st, struct tm_writer_state *w, const struct tm_sample *s,
                     bool wait)
{
	for (int l = 0; l < TM_ROLLUP_LEVELS; l++) {
		struct tm_rollup *r = &w->roll[l];
		int64_t b = tm_rollup_bucket_of((enum tm_rollup_level)l, s->t_wall_usec);

		if (r->samples && s->seq <= r->last_seq)
			continue; /* already in (catching up one level behind another) */
		if (!r->samples) {
			tm_rollup_reset(r, w->run_id, (enum tm_rollup_level)l, b);
		} else if (b > r->bucket_wall_usec) {
			if (w->dirty[l] && put(st, r, wait))
				return -1;
			w->dirty[l] = false;
			tm_rollup_reset(r, w->run_id, (enum tm_rollup_level)l, b);
		} /* a clock stepped back: the sample stays in the open bucket */
		tm_rollup_add(r, s, w->late_usec);
		w->dirty[l] = true;
	}
	return 0;
}

int tm_st_rollup_flush(struct tm_store *st, struct tm_writer_state *w)
{
	for (int l = 0; l < TM_ROLLUP_LEVELS; l++) {
		if (!w->dirty[l])
			continue;
		if (put(st, &w->roll[l], false))
			return -1;
		w->dirty[l] = false;
	}
	return 0;
}

int tm_st_rollup_flush_all(struct tm_store *st)
{
	for (int i = 0; i < TM_WRITER_CACHE; i++)
		if (st->writers[i].run_id && tm_st_rollup_flush(st, &st->writers[i]))
			return -1;
	return 0;
}

int tm_st_rollup_seq_floor(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t *floor)
{
	*floor = 0;
	if (!st->has_rollups)
		return 0;
	for (int l = 0; l < TM_ROLLUP_LEVELS; l++) {
		sqlite3_stmt *q;
		int step;

		if (tm_st_prepare(
		        st,
		        "SELECT last_seq FROM rollups WHERE run_id = ? AND level_sec = ?"
		        " AND bucket_wall_usec < ? ORDER BY bucket_wall_usec DESC LIMIT 1",
		        &q, "prepare rollup floor"))
			return -1;
		sqlite3_bind_int64(q, 1, run_id);
		sqlite3_bind_int64(q, 2, level_sec((enum tm_rollup_level)l));
		sqlite3_bind_int64(q, 3, tm_rollup_bucket_of((enum tm_rollup_level)l, t_wall_usec));
		step = sqlite3_step(q);
		if (step == SQLITE_ROW && sqlite3_column_int64(q, 0) + 1 > *floor)
			*floor = sqlite3_column_int64(q, 0) + 1;
		sqlite3_finalize(q);
		if (step != SQLITE_ROW && step != SQLITE_DONE)
			return tm_st_error(st, "read rollup floor");
	}
	return 0;
}

int tm_store_each_rollup(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         int64_t from_wall_usec, int64_t to_wall_usec, tm_rollup_cb cb, void *ctx)
{
	struct tm_rollup *r;
	sqlite3_stmt *q;
	int rc = 0, step = SQLITE_DONE;

	if (!st->has_rollups)
		return 0; /* a file from before rollups, opened read-only */
	if (!(r = malloc(sizeof(*r))))
		return tm_error("out of memory");
	if (tm_st_prepare(st,
	                  "SELECT " ROLLUP_COLS " FROM rollups WHERE run_id = ? AND level_sec = ?"
	                  " AND bucket_wall_usec >= ? AND (? <= 0 OR bucket_wall_usec <= ?)"
	                  " ORDER BY bucket_wall_usec",
	                  &q, "prepare rollups")) {
		free(r);
		return -1;
	}
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, level_sec(level));
	sqlite3_bind_int64(q, 3, from_wall_usec);
	sqlite3_bind_int64(q, 4, to_wall_usec);
	sqlite3_bind_int64(q, 5, to_wall_usec);
	while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW)
		if (!(rc = row_to_rollup(st, q, run_id, level, r)))
			rc = cb(ctx, r);
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read rollups");
	sqlite3_finalize(q);
	free(r);
	return rc;
}

int tm_store_first_seq(struct tm_store *st, int64_t run_id, int64_t *seq)
{
	int rc = tm_st_query_int64(st, "SELECT min(seq) FROM samples WHERE run_id = ?", NULL,
	                           run_id, seq);
	if (rc == 1)
		*seq = -1;
	return rc < 0 ? -1 : 0;
}

int tm_store_rollup_span(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         int64_t *first_seq, int64_t *last_seq)
{
	sqlite3_stmt *q;
	int rc;

	*first_seq = *last_seq = -1;
	if (!st->has_rollups)
		return 0;
	/* the first and the last bucket along the key, not every bucket's row:
	 * a year of minutes is half a million of them (seqs grow with the
	 * buckets: a clock that steps back leaves its samples in the open one) */
	if (tm_st_prepare(
	        st,
	        "SELECT (SELECT first_seq FROM rollups WHERE run_id = ?1 AND level_sec = ?2"
	        " ORDER BY bucket_wall_usec LIMIT 1),"
	        " (SELECT last_seq FROM rollups WHERE run_id = ?1 AND level_sec = ?2"
	        " ORDER BY bucket_wall_usec DESC LIMIT 1)",
	        &q, "prepare rollup span"))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, level_sec(level));
	rc = tm_st_step_row(st, q, "rollup span");
	if (rc == 0 && sqlite3_column_type(q, 0) != SQLITE_NULL) {
		*first_seq = sqlite3_column_int64(q, 0);
		*last_seq = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

int tm_store_rollup_start_before(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                                 int64_t at_most, int64_t *first_seq)
{
	sqlite3_stmt *q;
	int rc;

	*first_seq = -1;
	if (!st->has_rollups)
		return 0;
	if (tm_st_prepare(st,
	                  "SELECT max(first_seq) FROM rollups"
	                  " WHERE run_id = ? AND level_sec = ? AND first_seq <= ?",
	                  &q, "prepare rollup start"))
		return -1;
	sqlite3_bind_int64(q, 1, run_id);
	sqlite3_bind_int64(q, 2, level_sec(level));
	sqlite3_bind_int64(q, 3, at_most);
	rc = tm_st_step_row(st, q, "rollup start");
	if (rc == 0 && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*first_seq = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}
