/*
 * Retention: pruning a run's raw samples and old rollups (after making sure
 * its rollups hold everything), removing whole runs, and the removed_runs
 * table that says what went.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

void tm_keep_default(struct tm_keep *k)
{
	k->raw_usec = 7 * 86400000000LL;
	k->minute_usec = 90 * 86400000000LL;
	k->hour_usec = TM_KEEP_FOREVER;
}

int64_t tm_keep_prune_every_usec(const struct tm_keep *k)
{
	int64_t shortest = k->raw_usec;

	shortest = k->minute_usec < shortest ? k->minute_usec : shortest;
	shortest = k->hour_usec < shortest ? k->hour_usec : shortest;
	int64_t every = shortest / 100;
	return every < 5000000 ? 5000000 : every > 600000000 ? 600000000 : every;
}

/* "forever", "7d", "2w", or any tm_parse_duration form ("30s", "12h"). */
static int parse_period(const char *v, int64_t *out)
{
	size_t n = strlen(v);
	char num[32];
	int64_t secs;

	if (!strcmp(v, "forever")) {
		*out = TM_KEEP_FOREVER;
		return 0;
	}
	if (n >= 2 && n < sizeof(num) && (v[n - 1] == 'd' || v[n - 1] == 'w')) {
		memcpy(num, v, n - 1);
		num[n - 1] = '\0';
		if (tm_parse_int64(num, &secs) || secs < 0 || secs > 100000)
			return -1;
		*out = secs * (v[n - 1] == 'd' ? 1 : 7) * 86400000000LL;
		return 0;
	}
	return tm_parse_duration(v, out) || *out < 0 ? -1 : 0;
}

int tm_keep_parse(const char *spec, struct tm_keep *k, struct tm_err *err)
{
	char buf[256], *save = NULL;
	struct tm_keep out = *k;

	if (strlen(spec) >= sizeof(buf) || !*spec) {
		return tm_err_set(err, 0, "'%s': expected raw=7d,minute=90d,hour=forever", spec);
	}
	memcpy(buf, spec, strlen(spec) + 1);
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		int64_t *field = NULL, v;
		if (eq) {
			*eq = '\0';
			field = !strcmp(kv, "raw")      ? &out.raw_usec
			        : !strcmp(kv, "minute") ? &out.minute_usec
			        : !strcmp(kv, "hour")   ? &out.hour_usec
			                                : NULL;
		}
		if (!field) {
			return tm_err_set(err, 0, "'%s': expected raw=, minute= or hour= periods",
			                  spec);
		}
		if (parse_period(eq + 1, &v)) {
			return tm_err_set(err, 0,
			                  "'%s': '%s' is not a period (30s, 12h, 7d, forever)",
			                  spec, eq + 1);
		}
		*field = v;
	}
	*k = out;
	return 0;
}

/* Runs SQL with two integer parameters; the rows it changed in *CHANGED. */
static int exec2(struct tm_store *st, const char *sql, int64_t a, int64_t b, int64_t *changed)
{
	sqlite3_stmt *s;

	if (tm_st_prepare(st, sql, &s, "prepare prune"))
		return -1;
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_int64(s, 2, b);
	if (tm_st_step_done(st, s, true, "prune"))
		return -1;
	if (changed)
		*changed += sqlite3_changes(st->db);
	return 0;
}

/* The seq below which raw samples go: the first sample newer than the
 * cutoff, and never past the last (the writer continues from it). */
static int raw_cut(struct tm_store *st, int64_t run_id, int64_t cutoff_wall, int64_t last,
                   int64_t *cut)
{
	int64_t s;
	int rc = tm_store_seq_at(st, run_id, cutoff_wall, &s);

	if (rc < 0)
		return -1;
	*cut = rc == 1 || s > last ? last : s;
	return 0;
}

static bool table_exists(struct tm_store *st, const char *name)
{
	int64_t one;
	return tm_st_query_int64(st,
	                         "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                         name, 0, &one) == 0;
}

static int64_t cutoff(int64_t now, int64_t keep)
{
	return keep == TM_KEEP_FOREVER || keep > now ? INT64_MIN : now - keep;
}

static int prune_in_batch(struct tm_store *st, int64_t run_id, const struct tm_keep *k, int64_t now,
                          struct tm_prune_stats *out)
{
	struct tm_writer_state *w = NULL;
	int64_t last, cut;

	/* the writer's state brings the rollups up to the last sample */
	if (tm_st_writer(st, run_id, &w) || tm_st_rollup_flush(st, w))
		return -1;
	if (tm_store_last_seq(st, run_id, &last))
		return -1;
	int64_t raw_before = cutoff(now, k->raw_usec);
	if (last >= 0 && raw_before != INT64_MIN) {
		int64_t first;
		if (raw_cut(st, run_id, raw_before, last, &cut) ||
		    tm_store_first_seq(st, run_id, &first))
			return -1;
		if (cut > first &&
		    ((cut % TM_KEYFRAME_EVERY && tm_st_make_keyframe(st, run_id, cut)) ||
		     exec2(st, "DELETE FROM samples WHERE run_id = ? AND seq < ?", run_id, cut,
		           &out->samples)))
			return -1;
		/* the scraped values of the samples that went (and of any pruned
		 * before this was done); the series rows stay, so their names do */
		if (table_exists(st, "scrape_values") &&
		    exec2(st, "DELETE FROM scrape_values WHERE run_id = ? AND seq < ?", run_id,
		          cut > first ? cut : first, &out->scraped_values))
			return -1;
	}
	static const char del_sql[] =
	    "DELETE FROM rollups WHERE run_id = ?1 AND level_sec = %d AND bucket_wall_usec < ?2"
	    " AND bucket_wall_usec < (SELECT max(bucket_wall_usec) FROM rollups"
	    " WHERE run_id = ?1 AND level_sec = %d)";
	for (int l = 0; l < TM_ROLLUP_LEVELS; l++) {
		int64_t keep = l == TM_ROLLUP_MINUTE ? k->minute_usec : k->hour_usec;
		int64_t before = cutoff(now, keep), width = tm_rollup_width_usec(l);
		char sql[sizeof(del_sql) + 32];
		if (before == INT64_MIN)
			continue;
		snprintf(sql, sizeof(sql), del_sql, (int)(width / 1000000), (int)(width / 1000000));
		/* a bucket goes once it ended before the cutoff */
		if (exec2(st, sql, run_id, before - width + 1,
		          l == TM_ROLLUP_MINUTE ? &out->minute_rows : &out->hour_rows))
			return -1;
	}
	return 0;
}

/* Free pages a prune or a removal leaves before any go back to the file
 * system: at least this many, and at least a quarter of the file (a
 * recorder's own prunes free a few pages at a time, which its next samples
 * reuse: moving them would only write more), and at most GIVE_BACK_MAX_PAGES
 * a time (the cost of one call is bounded). */
#define GIVE_BACK_MIN_PAGES 256
#define GIVE_BACK_MAX_PAGES "4096"

/* Gives free pages back to the file system (a file made with incremental
 * vacuum: docs/store.md; an older file has none to give).  A failure is
 * only said: the pages stay free in the file, for its next rows. */
static void give_back(struct tm_store *st)
{
	int64_t free_pages = 0, pages = 0, mode = 0;

	if (tm_st_query_int64(st, "PRAGMA auto_vacuum", NULL, 0, &mode) || mode != 2 ||
	    tm_st_query_int64(st, "PRAGMA freelist_count", NULL, 0, &free_pages) ||
	    tm_st_query_int64(st, "PRAGMA page_count", NULL, 0, &pages))
		return;
	if (free_pages < GIVE_BACK_MIN_PAGES || free_pages * 4 < pages)
		return;
	if (sqlite3_exec(st->db, "PRAGMA incremental_vacuum(" GIVE_BACK_MAX_PAGES ")", NULL, NULL,
	                 NULL) != SQLITE_OK)
		tm_warn("store '%s': the freed pages stay in the file (%s)", st->path,
		        sqlite3_errmsg(st->db));
}

int tm_store_prune_run(struct tm_store *st, int64_t run_id, const struct tm_keep *k,
                       int64_t now_wall_usec, struct tm_prune_stats *out)
{
	struct tm_prune_stats got = {0};

	if (tm_store_commit(st) || tm_st_begin_batch(st))
		return -1;
	if (prune_in_batch(st, run_id, k, now_wall_usec, &got) || tm_store_commit(st)) {
		tm_store_abandon(st);
		return -1;
	}
	out->samples += got.samples;
	out->minute_rows += got.minute_rows;
	out->hour_rows += got.hour_rows;
	out->scraped_values += got.scraped_values;
	give_back(st);
	return 0;
}

static int delete_in_batch(struct tm_store *st, int64_t run_id, const char *how, int64_t now)
{
	static const char *const tables[] = {"samples", "rollups", "events", "progress", "marks"};
	sqlite3_stmt *s;
	char sql[96];

	if (tm_st_prepare(st,
	                  "INSERT OR REPLACE INTO removed_runs(run_id, uuid, bench_id, arm, "
	                  "bench_seq, samples, removed_wall_usec, how) SELECT id, uuid, bench_id, "
	                  "arm, bench_seq, (SELECT count(*) FROM samples WHERE run_id = ?1), ?2, ?3"
	                  " FROM runs WHERE id = ?1",
	                  &s, "prepare remove"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, now);
	sqlite3_bind_text(s, 3, how, -1, SQLITE_TRANSIENT);
	if (tm_st_step_done(st, s, true, "remove run"))
		return -1;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = ?1 AND ?2 = ?2",
		         tables[i]);
		if (exec2(st, sql, run_id, 0, NULL))
			return -1;
	}
	/* other parts' tables, when this file has them */
	static const char *const others[] = {"bench_runs", "scrape_values", "scrape_series",
	                                     "damaged_samples", "snapshots"};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE run_id = ?1 AND ?2 = ?2",
		         others[i]);
		if (table_exists(st, others[i]) && exec2(st, sql, run_id, 0, NULL))
			return -1;
	}
	return exec2(st, "DELETE FROM runs WHERE id = ?1 AND ?2 = ?2", run_id, 0, NULL);
}

int tm_store_run_delete(struct tm_store *st, int64_t run_id, const char *how, int64_t now_wall_usec)
{
	int64_t one;
	int rc = tm_st_query_int64(st, "SELECT 1 FROM runs WHERE id = ?", NULL, run_id, &one);

	if (rc)
		return rc;
	if (tm_store_commit(st) || tm_st_begin_batch(st))
		return -1;
	tm_st_writer_drop(st, run_id);
	if (delete_in_batch(st, run_id, how, now_wall_usec) || tm_store_commit(st)) {
		tm_store_abandon(st);
		return -1;
	}
	give_back(st);
	return 0;
}

int tm_store_each_removed(struct tm_store *st, int64_t bench_id, tm_removed_cb cb, void *ctx)
{
	sqlite3_stmt *q;
	int rc = 0, step = SQLITE_DONE;

	if (!table_exists(st, "removed_runs"))
		return 0;
	if (tm_st_prepare(
	        st,
	        "SELECT run_id, bench_id, bench_seq, samples, removed_wall_usec, uuid, arm,"
	        " how FROM removed_runs WHERE ?1 = 0 OR bench_id = ?1 ORDER BY run_id",
	        &q, "prepare removed runs"))
		return -1;
	sqlite3_bind_int64(q, 1, bench_id);
	while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW) {
		struct tm_removed_run r = {
		    .run_id = sqlite3_column_int64(q, 0),
		    .bench_id = sqlite3_column_int64(q, 1),
		    .bench_seq = sqlite3_column_int64(q, 2),
		    .samples = sqlite3_column_int64(q, 3),
		    .removed_wall_usec = sqlite3_column_int64(q, 4),
		    .uuid = (const char *)sqlite3_column_text(q, 5),
		    .arm = (const char *)sqlite3_column_text(q, 6),
		    .how = (const char *)sqlite3_column_text(q, 7),
		};
		rc = cb(ctx, &r);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read removed runs");
	sqlite3_finalize(q);
	return rc;
}
