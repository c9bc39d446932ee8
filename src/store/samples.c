/* Samples: writing them in seq order (a delta against the run's last one,
 * remembered per run) and reading them back decoded. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/store_impl.h"
#include "base/banned.h"

static struct tm_writer_state *writer_for(struct tm_store *st, int64_t run_id, bool create)
{
	struct tm_writer_state *victim = &st->writers[0];

	for (int i = 0; i < TM_WRITER_CACHE; i++) {
		struct tm_writer_state *w = &st->writers[i];
		if (w->run_id == run_id) {
			w->lru = ++st->lru_clock;
			return w;
		}
		if (w->lru < victim->lru)
			victim = w;
	}
	if (!create)
		return NULL;
	if (victim->run_id && tm_st_rollup_flush(st, victim))
		return NULL;
	memset(victim, 0, sizeof(*victim));
	victim->run_id = run_id;
	victim->last.seq = -1;
	victim->lru = ++st->lru_clock;
	return victim;
}

static int load_last_cb(void *ctx, const struct tm_sample *s)
{
	*(struct tm_sample *)ctx = *s;
	return 0;
}

/* Makes W hold the run's last stored sample (after a restart, or for a
 * run this process did not start, as the server does). */
static int writer_load(struct tm_store *st, struct tm_writer_state *w)
{
	int64_t last;
	int rc = tm_store_last_seq(st, w->run_id, &last);

	w->last.seq = -1;
	if (rc)
		return rc;
	if (last >= 0)
		rc = tm_store_each_sample(st, w->run_id, last, last, load_last_cb, &w->last);
	if (!rc && w->last.seq != last)
		return tm_error("store '%s': cannot decode the last sample of run %" PRId64,
		                st->path, w->run_id);
	return rc ? rc : tm_st_rollup_load(st, w);
}

int tm_st_writer(struct tm_store *st, int64_t run_id, struct tm_writer_state **out)
{
	struct tm_writer_state *w = writer_for(st, run_id, false);

	if (!w) {
		if (tm_st_begin_batch(st) || !(w = writer_for(st, run_id, true)))
			return -1;
		if (writer_load(st, w)) {
			w->run_id = 0;
			return -1;
		}
	}
	*out = w;
	return 0;
}

void tm_st_writer_drop(struct tm_store *st, int64_t run_id)
{
	struct tm_writer_state *w = writer_for(st, run_id, false);
	if (w)
		w->run_id = 0;
	for (int k = 0; k < TM_ITEM_KINDS; k++) /* its items' positions are gone too */
		if (st->item_cursor[k].run_id == run_id)
			st->item_cursor[k] = (struct tm_item_cursor){0};
}

int tm_store_add_sample(struct tm_store *st, int64_t run_id, const struct tm_sample *s)
{
	unsigned char data[TM_SAMPLE_ENC_MAX];
	size_t len;
	struct tm_writer_state *w;
	const struct tm_sample *prev;
	sqlite3_stmt *ins;

	if (tm_st_writer(st, run_id, &w))
		return -1;
	if (s->seq != w->last.seq + 1)
		return tm_error("store '%s': run %" PRId64 " expects sample %" PRId64
		                ", got %" PRId64,
		                st->path, run_id, w->last.seq + 1, s->seq);
	prev = s->seq % TM_KEYFRAME_EVERY ? &w->last : NULL;
	len = tm_sample_encode(s, prev, data);
	struct tm_pending_row row = {
	    .stmt = TM_ST_ADD_SAMPLE,
	    .v = {run_id, s->seq, s->t_wall_usec, s->t_mono_usec, s->late_usec},
	    .blob = data,
	    .len = len,
	};
	if (st->window_usec) {
		if (tm_st_pending_add(st, &row))
			return -1;
	} else {
		if (tm_st_begin_batch(st) || !(ins = tm_st_cached(st, TM_ST_ADD_SAMPLE)))
			return -1;
		for (int i = 0; i < 5; i++)
			sqlite3_bind_int64(ins, i + 1, row.v[i]);
		sqlite3_bind_blob(ins, 6, data, (int)len, SQLITE_STATIC);
		if (tm_st_step_done(st, ins, false, "add sample"))
			return -1;
	}
	if (tm_st_rollup_add(st, w, s, st->window_usec > 0))
		return -1;
	w->last = *s;
	return 0;
}

int tm_store_last_seq(struct tm_store *st, int64_t run_id, int64_t *seq)
{
	int rc = tm_st_query_int64(st, "SELECT max(seq) FROM samples WHERE run_id = ?", NULL,
	                           run_id, seq);
	if (rc == 1)
		*seq = -1;
	return rc < 0 ? -1 : 0;
}

/* Where a walk of samples is: the next seq it expects, the sample before
 * (the base of the next delta), and the damaged row whose dependents it
 * is skipping (DAMAGED_SEQ >= 0) with how many it skipped. */
struct walk {
	struct tm_store *st;
	int64_t run_id, expect, damaged_seq, skipped;
	struct tm_sample *cur, *prev;
};

/* One row of a walk: 0 decoded into W->cur, 1 skipped (damaged, or a delta
 * on a damaged row), -1 after tm_error (a gap the encoding cannot cross). */
static int walk_row(struct walk *w, int64_t seq, const unsigned char *data, int len)
{
	/* a gap is fine before a keyframe: every 256th sample, or the first
	 * one kept after a prune (tm_st_make_keyframe) */
	bool key = seq % TM_KEYFRAME_EVERY == 0 || (len > 0 && (data[0] & 1));

	if (!key && w->damaged_seq >= 0) {
		w->skipped++;
		tm_st_damage_note(w->st, w->run_id, w->damaged_seq, seq + 1, w->skipped);
		return 1;
	}
	if (seq != w->expect && !key)
		return tm_error("store '%s': run %" PRId64 " lacks sample %" PRId64, w->st->path,
		                w->run_id, w->expect);
	bool delta_ok = seq % TM_KEYFRAME_EVERY && seq == w->expect && w->damaged_seq < 0;
	if (tm_sample_decode(data, (size_t)len, delta_ok ? w->prev : NULL, w->cur)) {
		w->damaged_seq = seq;
		w->skipped = 1;
		tm_st_damage_note(w->st, w->run_id, seq, seq + 1, 1);
		return 1;
	}
	w->damaged_seq = -1;
	return 0;
}

int tm_store_each_sample(struct tm_store *st, int64_t run_id, int64_t from_seq, int64_t to_seq,
                         tm_sample_cb cb, void *ctx)
{
	/* decoding starts at the keyframe at or before FROM_SEQ */
	int64_t start = from_seq < 0 ? 0 : from_seq - from_seq % TM_KEYFRAME_EVERY;
	struct walk w = {.st = st, .run_id = run_id, .expect = start, .damaged_seq = -1};
	sqlite3_stmt *s;
	int rc = 0, step;

	w.cur = malloc(sizeof(*w.cur));
	w.prev = malloc(sizeof(*w.prev));
	if (!w.cur || !w.prev) {
		free(w.cur);
		free(w.prev);
		return tm_error("out of memory");
	}
	if (sqlite3_prepare_v2(
	        st->db,
	        "SELECT seq, t_wall_usec, t_mono_usec, late_usec, data FROM samples"
	        " WHERE run_id = ? AND seq >= ? AND (? < 0 OR seq <= ?) ORDER BY seq",
	        -1, &s, NULL) != SQLITE_OK) {
		free(w.cur);
		free(w.prev);
		return tm_st_error(st, "prepare samples");
	}
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, start);
	sqlite3_bind_int64(s, 3, to_seq);
	sqlite3_bind_int64(s, 4, to_seq);
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(s, 0);
		struct tm_sample *tmp;

		rc = walk_row(&w, seq, sqlite3_column_blob(s, 4), sqlite3_column_bytes(s, 4));
		w.expect = seq + 1;
		if (rc) {
			rc = rc < 0 ? -1 : 0;
			continue;
		}
		w.cur->seq = seq;
		w.cur->t_wall_usec = sqlite3_column_int64(s, 1);
		w.cur->t_mono_usec = sqlite3_column_int64(s, 2);
		w.cur->late_usec = sqlite3_column_int64(s, 3);
		if (seq >= from_seq)
			rc = cb(ctx, w.cur);
		tmp = w.prev;
		w.prev = w.cur;
		w.cur = tmp;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = tm_st_error(st, "read samples");
	else if (!rc && w.damaged_seq >= 0 && to_seq < 0)
		tm_st_damage_note(st, run_id, w.damaged_seq, INT64_MAX, w.skipped);
	sqlite3_finalize(s);
	free(w.cur);
	free(w.prev);
	return rc;
}

int tm_store_seq_at(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t *seq)
{
	sqlite3_stmt *s;
	int64_t floor;
	int rc;

	/* from the rollups' floor: the walk along seq no longer crosses the
	 * whole run to reach its last hour */
	if (tm_st_rollup_seq_floor(st, run_id, t_wall_usec, &floor) ||
	    tm_st_prepare(
	        st,
	        "SELECT seq FROM samples WHERE run_id = ? AND seq >= ? AND t_wall_usec >= ?"
	        " ORDER BY seq LIMIT 1",
	        &s, "prepare seq by time"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, floor);
	sqlite3_bind_int64(s, 3, t_wall_usec);
	rc = tm_st_step_row(st, s, "seq by time");
	if (rc == 0)
		*seq = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

static int take_one(void *ctx, const struct tm_sample *s)
{
	*(struct tm_sample *)ctx = *s;
	return 1;
}

int tm_st_make_keyframe(struct tm_store *st, int64_t run_id, int64_t seq)
{
	unsigned char data[TM_SAMPLE_ENC_MAX];
	struct tm_sample *s = malloc(sizeof(*s));
	sqlite3_stmt *up;
	int rc;

	if (!s)
		return tm_error("out of memory");
	s->seq = -1;
	rc = tm_store_each_sample(st, run_id, seq, seq, take_one, s);
	if (rc >= 0 && s->seq != seq)
		rc = tm_error("store '%s': run %" PRId64 " has no sample %" PRId64, st->path,
		              run_id, seq);
	if (rc >= 0 &&
	    !tm_st_prepare(st, "UPDATE samples SET data = ? WHERE run_id = ? AND seq = ?", &up,
	                   "prepare keyframe")) {
		size_t len = tm_sample_encode(s, NULL, data);
		sqlite3_bind_blob(up, 1, data, (int)len, SQLITE_STATIC);
		sqlite3_bind_int64(up, 2, run_id);
		sqlite3_bind_int64(up, 3, seq);
		rc = tm_st_step_done(st, up, true, "write keyframe");
	} else if (rc >= 0) {
		rc = -1;
	}
	free(s);
	return rc < 0 ? -1 : 0;
}
