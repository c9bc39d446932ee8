/*
 * Rows that wait for the commit window (tm_store_set_commit_window): the
 * samples, progress points and scraped values of a recorder, held in memory
 * and written in the transaction of the next commit, so a long recording
 * writes the file's pages once per window instead of once per sample.
 */
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

/* The most rows (and bytes of encoded samples) that wait: past either, the
 * next tm_store_commit_due() commits whatever the window says. */
#define PENDING_MAX_ROWS  4096
#define PENDING_MAX_BYTES (1024 * 1024)

/* How many integer parameters each staged statement binds before its
 * double (progress, scraped) or its blob (samples, rollups). */
static int int_params(enum tm_stmt_id id)
{
	switch (id) {
	case TM_ST_ADD_SAMPLE:
		return 5;
	case TM_ST_PUT_ROLLUP:
		return 11;
	case TM_ST_ADD_PROGRESS:
		return 3;
	default:
		return 4;
	}
}

int tm_st_pending_add(struct tm_store *st, const struct tm_pending_row *row)
{
	struct tm_pending_row *r;

	if (st->npending == st->pending_cap) {
		size_t cap = st->pending_cap ? 2 * st->pending_cap : 64;
		struct tm_pending_row *p = realloc(st->pending, cap * sizeof(*p));
		if (!p)
			return tm_error("out of memory");
		st->pending = p;
		st->pending_cap = cap;
	}
	tm_assert(st->npending < st->pending_cap);
	r = &st->pending[st->npending];
	*r = *row;
	if (row->len) {
		if (!(r->blob = malloc(row->len)))
			return tm_error("out of memory");
		memcpy(r->blob, row->blob, row->len);
	}
	if (!st->npending)
		st->pending_since_usec = tm_now_mono_usec();
	st->npending++;
	st->pending_bytes += row->len + sizeof(*r);
	return 0;
}

void tm_st_pending_drop(struct tm_store *st)
{
	for (size_t i = 0; i < st->npending; i++)
		free(st->pending[i].blob);
	st->npending = 0;
	st->pending_bytes = 0;
}

void tm_st_pending_free(struct tm_store *st)
{
	tm_st_pending_drop(st);
	free(st->pending);
	st->pending = NULL;
	st->pending_cap = 0;
}

bool tm_st_pending_full(const struct tm_store *st)
{
	return st->npending >= PENDING_MAX_ROWS || st->pending_bytes >= PENDING_MAX_BYTES;
}

static int replay_one(struct tm_store *st, const struct tm_pending_row *r)
{
	sqlite3_stmt *s = tm_st_cached(st, r->stmt);
	int n = int_params(r->stmt);

	if (!s)
		return -1;
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(s, i + 1, r->v[i]);
	if (r->stmt == TM_ST_ADD_SAMPLE || r->stmt == TM_ST_PUT_ROLLUP)
		sqlite3_bind_blob(s, n + 1, r->blob, (int)r->len, SQLITE_STATIC);
	else
		sqlite3_bind_double(s, n + 1, r->d);
	return tm_st_step_done(st, s, false, "write waiting rows");
}

int tm_st_pending_replay(struct tm_store *st)
{
	int rc = 0;

	if (!st->npending)
		return 0;
	if (tm_st_begin_batch(st))
		return -1;
	for (size_t i = 0; i < st->npending && !rc; i++)
		rc = replay_one(st, &st->pending[i]);
	tm_st_pending_drop(st);
	return rc;
}
