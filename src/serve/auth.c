/* Tokens: creation, hashing at rest, constant-time checks. */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/auth.h"
#include "store/store.h"
#include "base/banned.h"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS tokens ("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,"
    " hash TEXT NOT NULL, created_wall_usec INTEGER NOT NULL, UNIQUE(name, kind));"
    "CREATE TABLE IF NOT EXISTS machines ("
    " name TEXT PRIMARY KEY, first_push_wall_usec INTEGER NOT NULL,"
    " last_push_wall_usec INTEGER NOT NULL, last_addr TEXT,"
    " batches INTEGER NOT NULL DEFAULT 0, samples INTEGER NOT NULL DEFAULT 0);";

static bool kind_valid(const char *kind)
{
	return !strcmp(kind, "write") || !strcmp(kind, "read");
}

int tm_auth_init(struct tm_store *st)
{
	return tm_store_exec(st, schema);
}

static void hex(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = 0;
}

static void token_hash(const char *token, char out[65])
{
	uint8_t d[32];

	tm_sha256(token, strlen(token), d);
	hex(d, 32, out);
}

int tm_token_add(struct tm_store *st, const char *name, const char *kind,
                 char out[TM_TOKEN_LEN + 1])
{
	uint8_t raw[32];
	char hash[65];
	sqlite3_stmt *q;
	int rc;

	if (!tm_name_valid(name))
		return tm_error("invalid token name '%s' (1-64 of A-Z a-z 0-9 . _ -)", name);
	if (!kind_valid(kind))
		return tm_error("invalid token kind '%s'", kind);
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return tm_error("cannot get random bytes: %s", strerror(errno));
	memcpy(out, "tm_", 3);
	hex(raw, 32, out + 3);
	token_hash(out, hash);
	if (sqlite3_prepare_v2(tm_store_sqlite(st),
	                       "INSERT OR REPLACE INTO tokens(name, kind, hash, created_wall_usec)"
	                       " VALUES (?, ?, ?, ?)",
	                       -1, &q, NULL) != SQLITE_OK)
		return tm_error("cannot store token: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, tm_now_wall_usec());
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return tm_error("cannot store token: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	return tm_store_commit(st);
}

int tm_token_remove(struct tm_store *st, const char *name, const char *kind)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(tm_store_sqlite(st),
	                       "DELETE FROM tokens WHERE name = ? AND kind = ?", -1, &q,
	                       NULL) != SQLITE_OK)
		return tm_error("cannot remove token: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return tm_error("cannot remove token: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	if (tm_store_commit(st) < 0)
		return -1;
	return sqlite3_changes(tm_store_sqlite(st)) > 0 ? 0 : 1;
}

int tm_token_check(struct tm_store *st, const char *token, const char *kind, char *name_out)
{
	char want[65];
	sqlite3_stmt *q;
	int found = 0, rc;

	if (!token || strlen(token) != TM_TOKEN_LEN)
		return 1;
	token_hash(token, want);
	if (sqlite3_prepare_v2(tm_store_sqlite(st), "SELECT name, kind, hash FROM tokens", -1, &q,
	                       NULL) != SQLITE_OK)
		return tm_error("cannot read tokens: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	/* Every row is compared so the time taken does not say which matched. */
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		const char *k = (const char *)sqlite3_column_text(q, 1);
		const char *h = (const char *)sqlite3_column_text(q, 2);
		bool kind_ok = !strcmp(k, kind) || !strcmp(k, "write");
		if (h && strlen(h) == 64 && tm_ct_equal(h, want, 64) && kind_ok && !found) {
			snprintf(name_out, TM_NAME_MAX + 1, "%s", name);
			found = 1;
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return tm_error("cannot read tokens: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	return found ? 0 : 1;
}

int tm_token_each(struct tm_store *st, tm_token_cb cb, void *ctx)
{
	sqlite3_stmt *q;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(
	        tm_store_sqlite(st),
	        "SELECT name, kind, created_wall_usec FROM tokens ORDER BY name, kind", -1, &q,
	        NULL) != SQLITE_OK)
		return tm_error("cannot read tokens: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		ret = cb(ctx, (const char *)sqlite3_column_text(q, 0),
		         (const char *)sqlite3_column_text(q, 1), sqlite3_column_int64(q, 2));
		if (ret)
			break;
	}
	sqlite3_finalize(q);
	if (!ret && rc != SQLITE_DONE)
		return tm_error("cannot read tokens: %s", sqlite3_errmsg(tm_store_sqlite(st)));
	return ret;
}
