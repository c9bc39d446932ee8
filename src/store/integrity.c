/*
 * The file's health: SQLite's quick_check, and knowing when to run it.
 * Each read-write handle leaves a row in open_handles (its boot, process
 * and handle) while it is open and removes it at a clean close; a row whose
 * process is gone is a handle that was never closed (a crash, SIGKILL, a
 * power cut), and the next open runs PRAGMA quick_check.  docs/store.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

const char tm_st_handles_schema[] =
    "CREATE TABLE IF NOT EXISTS open_handles(boot_id TEXT NOT NULL, pid INTEGER NOT NULL,"
    " start_ticks INTEGER NOT NULL, handle INTEGER NOT NULL, opened_wall_usec INTEGER,"
    " PRIMARY KEY(boot_id, pid, start_ticks, handle)) WITHOUT ROWID;";

static void boot_id(char *buf, size_t size)
{
	if (tm_read_small("/proc/sys/kernel/random/boot_id", buf, size) < 0)
		snprintf(buf, size, "unknown");
	*strchrnul(buf, '\n') = '\0';
}

/* When process PID started (clock ticks after boot), or -1 when there is
 * no such process. */
static int64_t start_ticks(int64_t pid)
{
	char path[64], buf[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	if (tm_read_small(path, buf, sizeof(buf)) < 0 || !(p = strrchr(buf, ')')))
		return -1;
	/* after "(comm)": state is field 3, starttime field 22 */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

int tm_st_handle_register(struct tm_store *st)
{
	char boot[64];
	sqlite3_stmt *s;

	boot_id(boot, sizeof(boot));
	if (tm_st_prepare(st,
	                  "INSERT OR REPLACE INTO open_handles(boot_id, pid, start_ticks, handle,"
	                  " opened_wall_usec) VALUES (?,?,?,?,?)",
	                  &s, "prepare open_handles"))
		return -1;
	sqlite3_bind_text(s, 1, boot, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, (int64_t)getpid());
	sqlite3_bind_int64(s, 3, start_ticks((int64_t)getpid()));
	sqlite3_bind_int64(s, 4, (int64_t)(uintptr_t)st);
	sqlite3_bind_int64(s, 5, tm_now_wall_usec());
	if (tm_st_step_done(st, s, true, "register handle"))
		return -1;
	st->registered = true;
	return 0;
}

void tm_st_handle_unregister(struct tm_store *st)
{
	char boot[64];
	sqlite3_stmt *s;

	if (!st->registered)
		return;
	boot_id(boot, sizeof(boot));
	if (sqlite3_prepare_v2(st->db,
	                       "DELETE FROM open_handles WHERE boot_id = ? AND pid = ? AND"
	                       " start_ticks = ? AND handle = ?",
	                       -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(s, 1, boot, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, (int64_t)getpid());
	sqlite3_bind_int64(s, 3, start_ticks((int64_t)getpid()));
	sqlite3_bind_int64(s, 4, (int64_t)(uintptr_t)st);
	sqlite3_step(s);
	sqlite3_finalize(s);
}

/* How many handles of the file were never closed: 0 or more, -1 when the
 * file has no open_handles table (an older tidemark wrote it). */
static int64_t unclosed_handles(struct tm_store *st)
{
	char boot[64];
	sqlite3_stmt *q;
	int64_t n = 0;

	boot_id(boot, sizeof(boot));
	if (sqlite3_prepare_v2(st->db, "SELECT boot_id, pid, start_ticks FROM open_handles", -1, &q,
	                       NULL) != SQLITE_OK)
		return -1;
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(q, 0);
		int64_t pid = sqlite3_column_int64(q, 1), ticks = sqlite3_column_int64(q, 2);
		if (!b || strcmp(b, boot) || start_ticks(pid) != ticks)
			n++;
	}
	sqlite3_finalize(q);
	return n;
}

/* Runs SQL with the boot id as ?1 and PID, TICKS as ?2, ?3. */
static void exec_handle(struct tm_store *st, const char *sql, const char *boot, int64_t pid,
                        int64_t ticks)
{
	sqlite3_stmt *s;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(s, 1, boot, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 2, pid);
	sqlite3_bind_int64(s, 3, ticks);
	sqlite3_step(s);
	sqlite3_finalize(s);
}

/* Removes the rows of handles whose process is gone (a read-write handle;
 * at most 64 processes' at a time). */
static void forget_unclosed(struct tm_store *st)
{
	char boot[64];
	sqlite3_stmt *q;
	int64_t gone[64][2];
	int n = 0;

	boot_id(boot, sizeof(boot));
	exec_handle(st, "DELETE FROM open_handles WHERE boot_id <> ?1 AND ?2 = ?3", boot, 0, 0);
	if (sqlite3_prepare_v2(st->db, "SELECT pid, start_ticks FROM open_handles", -1, &q, NULL) !=
	    SQLITE_OK)
		return;
	while (sqlite3_step(q) == SQLITE_ROW && n < 64) {
		gone[n][0] = sqlite3_column_int64(q, 0);
		gone[n][1] = sqlite3_column_int64(q, 1);
		if (start_ticks(gone[n][0]) != gone[n][1])
			n++;
	}
	sqlite3_finalize(q);
	for (int i = 0; i < n; i++)
		exec_handle(st,
		            "DELETE FROM open_handles WHERE boot_id = ?1 AND pid = ?2 AND"
		            " start_ticks = ?3",
		            boot, gone[i][0], gone[i][1]);
}

int tm_store_quick_check(struct tm_store *st)
{
	sqlite3_stmt *q;
	int bad = 0, step;

	if (tm_st_prepare(st, "PRAGMA quick_check(10)", &q, "quick_check"))
		return sqlite3_errcode(st->db) == SQLITE_CORRUPT ||
		               sqlite3_errcode(st->db) == SQLITE_NOTADB
		           ? 1
		           : -1;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(q, 0);
		if (line && !strcmp(line, "ok"))
			continue;
		char one[320];
		bad = 1;
		snprintf(one, sizeof(one), "%s", line ? line : "?");
		for (char *nl = strchr(one, '\n'); nl; nl = strchr(nl, '\n'))
			*nl = ' ';
		tm_warn("store '%s' is damaged (SQLite's quick_check): %s", st->path, one);
	}
	if (step != SQLITE_DONE) {
		bad = 1;
		tm_warn("store '%s' is damaged (SQLite's quick_check): %s", st->path,
		        sqlite3_errmsg(st->db));
	}
	sqlite3_finalize(q);
	return bad;
}

void tm_st_check_unclean(struct tm_store *st, bool writable)
{
	int64_t n = unclosed_handles(st);

	if (n <= 0)
		return;
	if (tm_store_quick_check(st) > 0)
		tm_warn("store '%s' was not closed cleanly and is damaged: figures that read the"
		        " damaged parts fail with an error; 'tidemark runs check' says what is"
		        " left",
		        st->path);
	if (writable)
		forget_unclosed(st);
}
