/*
 * Damaged samples: rows of the samples table whose bytes no longer decode
 * (bit rot on an SD card).  A walk leaves them out, with the deltas after
 * each that cannot be decoded without it, and notes them here per handle;
 * readers say how many they left out, and a check moves them to the
 * damaged_samples table (never deletes them).  docs/store.md.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

/* Warnings one handle prints before it only counts. */
#define DAMAGE_WARN_MAX 8

static void warn_new(struct tm_store *st, int64_t run_id, int64_t seq)
{
	if (st->damage_quiet || st->damage_warned > DAMAGE_WARN_MAX)
		return;
	if (st->damage_warned++ == DAMAGE_WARN_MAX) {
		tm_warn("store '%s': more damaged samples; 'tidemark runs check' lists them",
		        st->path);
		return;
	}
	tm_warn("store '%s': run %" PRId64 " sample %" PRId64 " cannot be decoded (damaged):"
	        " left out, with the samples after it that depend on it; 'tidemark runs"
	        " check --quarantine' moves them aside",
	        st->path, run_id, seq);
}

void tm_st_damage_note(struct tm_store *st, int64_t run_id, int64_t seq, int64_t end_seq,
                       int64_t rows)
{
	struct tm_damage *d = NULL;

	for (int i = 0; i < st->ndamage && !d; i++)
		if (st->damage[i].run_id == run_id && st->damage[i].seq == seq)
			d = &st->damage[i];
	if (!d) {
		if (!st->damage)
			st->damage = calloc(TM_DAMAGE_MAX, sizeof(*st->damage));
		if (!st->damage || st->ndamage >= TM_DAMAGE_MAX) {
			warn_new(st, run_id, seq);
			st->damage_warned = DAMAGE_WARN_MAX + 1;
			return;
		}
		d = &st->damage[st->ndamage++];
		*d = (struct tm_damage){run_id, seq, seq + 1, 1};
		warn_new(st, run_id, seq);
	}
	if (end_seq > d->end_seq)
		d->end_seq = end_seq;
	if (rows > d->rows)
		d->rows = rows;
}

void tm_st_damage_free(struct tm_store *st)
{
	free(st->damage);
	st->damage = NULL;
	st->ndamage = 0;
}

static int cmp_seq(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void tm_store_sample_damage(struct tm_store *st, int64_t run_id, struct tm_sample_damage *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < st->ndamage; i++) {
		const struct tm_damage *d = &st->damage[i];
		if (d->run_id != run_id)
			continue;
		out->damaged++;
		out->left_out += d->rows;
		if (out->nseqs < TM_DAMAGE_SEQS)
			out->seqs[out->nseqs++] = d->seq;
		else
			out->more = true;
	}
	qsort(out->seqs, (size_t)out->nseqs, sizeof(out->seqs[0]), cmp_seq);
	if (st->ndamage >= TM_DAMAGE_MAX)
		out->more = true;
}

/* Forgets what the handle noted of RUN_ID. */
static void forget_run(struct tm_store *st, int64_t run_id)
{
	int n = 0;

	for (int i = 0; i < st->ndamage; i++)
		if (st->damage[i].run_id != run_id)
			st->damage[n++] = st->damage[i];
	st->ndamage = n;
}

static int no_sample(void *ctx, const struct tm_sample *s)
{
	(void)ctx, (void)s;
	return 0;
}

/* Moves the rows of damage D to damaged_samples (in the batch). */
static int move_rows(struct tm_store *st, const struct tm_damage *d, int64_t now_wall_usec)
{
	static const char *const sql[] = {
	    "INSERT OR REPLACE INTO damaged_samples(run_id, seq, t_wall_usec, t_mono_usec,"
	    " late_usec, data, why, quarantined_wall_usec) SELECT run_id, seq, t_wall_usec,"
	    " t_mono_usec, late_usec, data, CASE WHEN seq = ?2 THEN 'cannot be decoded'"
	    " ELSE 'a delta on damaged sample ' || ?2 END, ?4 FROM samples"
	    " WHERE run_id = ?1 AND seq >= ?2 AND seq < ?3",
	    "DELETE FROM samples WHERE run_id = ?1 AND seq >= ?2 AND seq < ?3 AND ?4 = ?4",
	};
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		sqlite3_stmt *s;
		if (tm_st_prepare(st, sql[i], &s, "prepare quarantine"))
			return -1;
		sqlite3_bind_int64(s, 1, d->run_id);
		sqlite3_bind_int64(s, 2, d->seq);
		sqlite3_bind_int64(s, 3, d->end_seq);
		sqlite3_bind_int64(s, 4, now_wall_usec);
		if (tm_st_step_done(st, s, true, "quarantine samples"))
			return -1;
	}
	return 0;
}

/* Moves every damaged sample noted of RUN_ID aside, in one batch. */
static int quarantine(struct tm_store *st, int64_t run_id, int64_t now_wall_usec)
{
	if (tm_store_commit(st) || tm_st_begin_batch(st))
		return -1;
	tm_st_writer_drop(st, run_id);
	for (int i = 0; i < st->ndamage; i++)
		if (st->damage[i].run_id == run_id &&
		    move_rows(st, &st->damage[i], now_wall_usec)) {
			tm_store_abandon(st);
			return -1;
		}
	return tm_store_commit(st);
}

static void add_damage(struct tm_sample_damage *to, const struct tm_sample_damage *d)
{
	for (int i = 0; i < d->nseqs && to->nseqs < TM_DAMAGE_SEQS; i++)
		to->seqs[to->nseqs++] = d->seqs[i];
	to->more = to->more || d->more || to->damaged + d->damaged > to->nseqs;
	to->damaged += d->damaged;
	to->left_out += d->left_out;
}

int tm_store_check_samples(struct tm_store *st, int64_t run_id, bool move, int64_t now_wall_usec,
                           struct tm_sample_damage *out)
{
	struct tm_sample_damage round;
	int rc;

	memset(out, 0, sizeof(*out));
	st->damage_quiet = true;
	do {
		forget_run(st, run_id);
		rc = tm_store_each_sample(st, run_id, 0, -1, no_sample, NULL);
		tm_store_sample_damage(st, run_id, &round);
		add_damage(out, &round);
		if (!rc && move && round.damaged)
			rc = quarantine(st, run_id, now_wall_usec);
		/* a full log: what it could not hold is found once this is moved */
	} while (!rc && move && round.damaged && st->ndamage >= TM_DAMAGE_MAX);
	st->damage_quiet = false;
	forget_run(st, run_id);
	return rc;
}

int tm_store_quarantined(struct tm_store *st, int64_t run_id, int64_t *rows)
{
	int rc;

	*rows = 0;
	if (sqlite3_table_column_metadata(st->db, NULL, "damaged_samples", "run_id", NULL, NULL,
	                                  NULL, NULL, NULL) != SQLITE_OK)
		return 0;
	rc = tm_st_query_int64(st, "SELECT count(*) FROM damaged_samples WHERE run_id = ?", NULL,
	                       run_id, rows);
	return rc < 0 ? -1 : 0;
}
