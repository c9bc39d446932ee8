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
#include "store/varint.h"
#include "base/banned.h"

/*
 * The rows are packed one after another into one buffer (st->pending): the
 * statement (a byte), its integer parameters as zigzag varints, then its
 * double (8 bytes) or its blob (a varint of its length + 1, 0 for none, and
 * its bytes).  A sample of one process or of 50 (a blob of about 33 bytes)
 * waits in about 60 bytes, where a row of fixed size (120 bytes) and a
 * chunk of its own for the blob took about 170, and the buffer is one
 * allocation that never outgrows its bound (bench/README.md).
 */

/* The most rows (and bytes of the buffer) that wait: past either, the
 * next tm_store_commit_due() commits whatever the window says.  32 KiB
 * hold a 5-minute window at 1 s (about 18 KiB) and 500 samples at 100 ms;
 * the buffer and SQLite's cache of a recording (cmd/record.c) are what a
 * recorder's memory grows by in its first minutes (issue 23). */
#define PENDING_MAX_ROWS  4096
#define PENDING_MAX_BYTES (32 * 1024)

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

static bool has_blob(enum tm_stmt_id id)
{
	return id == TM_ST_ADD_SAMPLE || id == TM_ST_PUT_ROLLUP;
}

/* Room for NEED more bytes in the buffer.  0, or -1 after tm_error. */
static int reserve(struct tm_store *st, size_t need)
{
	size_t cap = st->pending_cap ? st->pending_cap : 4096;
	unsigned char *p;

	if (st->pending_len + need <= st->pending_cap)
		return 0;
	while (cap < st->pending_len + need)
		cap *= 2;
	if (!(p = realloc(st->pending, cap)))
		return tm_error("out of memory");
	st->pending = p;
	st->pending_cap = cap;
	return 0;
}

int tm_st_pending_add(struct tm_store *st, const struct tm_pending_row *row)
{
	int n = int_params(row->stmt);
	unsigned char *p;

	tm_assert((unsigned)row->stmt < 256 && n <= 11);
	if (reserve(st, 1 + (size_t)(n + 1) * TM_VARINT_MAX + sizeof(double) + row->len))
		return -1;
	p = st->pending + st->pending_len;
	*p++ = (unsigned char)row->stmt;
	for (int i = 0; i < n; i++)
		p = tm_varint_put(p, tm_zigzag(row->v[i]));
	if (has_blob(row->stmt)) {
		p = tm_varint_put(p, row->blob ? (uint64_t)row->len + 1 : 0);
		if (row->blob && row->len)
			memcpy(p, row->blob, row->len);
		p += row->blob ? row->len : 0;
	} else {
		memcpy(p, &row->d, sizeof(row->d));
		p += sizeof(row->d);
	}
	if (!st->npending)
		st->pending_since_usec = tm_now_mono_usec();
	st->npending++;
	st->pending_len = (size_t)(p - st->pending);
	tm_assert(st->pending_len <= st->pending_cap);
	return 0;
}

void tm_st_pending_drop(struct tm_store *st)
{
	st->npending = 0;
	st->pending_len = 0;
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
	return st->npending >= PENDING_MAX_ROWS || st->pending_len >= PENDING_MAX_BYTES;
}

/* Binds and writes the row at *P (never past END) and moves *P past it. */
static int replay_one(struct tm_store *st, const unsigned char **p, const unsigned char *end)
{
	enum tm_stmt_id id = (enum tm_stmt_id) * *p;
	sqlite3_stmt *s = tm_st_cached(st, id);
	int n = int_params(id);
	uint64_t v;

	(*p)++;
	if (!s)
		return -1;
	for (int i = 0; i < n; i++) {
		if (tm_varint_get(p, end, &v))
			return tm_error("the rows waiting for the commit are damaged");
		sqlite3_bind_int64(s, i + 1, tm_unzigzag(v));
	}
	if (has_blob(id)) {
		if (tm_varint_get(p, end, &v) || (v && v - 1 > (uint64_t)(end - *p)))
			return tm_error("the rows waiting for the commit are damaged");
		/* v 0: no blob (NULL); else v - 1 bytes */
		sqlite3_bind_blob(s, n + 1, v ? *p : NULL, v ? (int)(v - 1) : 0, SQLITE_STATIC);
		*p += v ? v - 1 : 0;
	} else {
		double d;
		if ((size_t)(end - *p) < sizeof(d))
			return tm_error("the rows waiting for the commit are damaged");
		memcpy(&d, *p, sizeof(d));
		*p += sizeof(d);
		sqlite3_bind_double(s, n + 1, d);
	}
	return tm_st_step_done(st, s, false, "write waiting rows");
}

int tm_st_pending_replay(struct tm_store *st)
{
	const unsigned char *p = st->pending, *end = st->pending + st->pending_len;
	int rc = 0;

	if (!st->npending)
		return 0;
	if (tm_st_begin_batch(st))
		return -1;
	for (size_t i = 0; i < st->npending && !rc; i++)
		rc = replay_one(st, &p, end);
	tm_assert(rc || p == end);
	tm_st_pending_drop(st);
	return rc;
}
