/* The runs table: a run's start, its end, and reading runs back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store_impl.h"
#include "base/banned.h"

static void make_uuid(char out[37])
{
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
		if (n <= 0) {
			/* no entropy source: time and pid still make it unique enough */
			int64_t t = tm_now_wall_usec() ^ ((int64_t)getpid() << 40);
			for (size_t i = got; i < sizeof(b); i++)
				b[i] = (unsigned char)(t >> (8 * (i % 8)));
			break;
		}
		got += (size_t)n;
	}
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
	         b[13], b[14], b[15]);
}

int tm_store_run_begin(struct tm_store *st, const struct tm_run_meta *m, int64_t *run_id)
{
	static const char sql[] =
	    "INSERT INTO runs(uuid, machine, kernel, cgroup_mode, target, cgroup_path,"
	    " command_json, env_json, limits_json, allocator, interval_usec,"
	    " started_wall_usec, started_mono_usec, bench_id, arm, bench_seq)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	char uuid[37];
	sqlite3_stmt *s;
	int rc;

	if (tm_st_begin_batch(st))
		return -1;
	if (tm_st_prepare(st, sql, &s, "prepare run"))
		return -1;
	if (!m->uuid)
		make_uuid(uuid);
	sqlite3_bind_text(s, 1, m->uuid ? m->uuid : uuid, -1, SQLITE_TRANSIENT);
	tm_st_bind_text(s, 2, m->machine);
	tm_st_bind_text(s, 3, m->kernel);
	tm_st_bind_text(s, 4, m->cgroup_mode);
	tm_st_bind_text(s, 5, m->target);
	tm_st_bind_text(s, 6, m->cgroup_path);
	tm_st_bind_text(s, 7, m->command_json);
	tm_st_bind_text(s, 8, m->env_json);
	tm_st_bind_text(s, 9, m->limits_json);
	tm_st_bind_text(s, 10, m->allocator);
	sqlite3_bind_int64(s, 11, m->interval_usec);
	sqlite3_bind_int64(s, 12, m->started_wall_usec);
	sqlite3_bind_int64(s, 13, m->started_mono_usec);
	if (m->bench_id > 0) {
		sqlite3_bind_int64(s, 14, m->bench_id);
		tm_st_bind_text(s, 15, m->arm);
		sqlite3_bind_int64(s, 16, m->bench_seq);
	}
	rc = tm_st_step_done(st, s, true, "add run");
	if (!rc)
		*run_id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int tm_store_run_end(struct tm_store *st, int64_t run_id, const struct tm_run_end *e)
{
	static const char sql[] = "UPDATE runs SET ended_wall_usec = ?, outcome = ?, exit_code = ?,"
	                          " term_signal = ?, reason = coalesce(?, reason) WHERE id = ?";
	sqlite3_stmt *s;
	int rc;

	if (tm_st_begin_batch(st))
		return -1;
	if (tm_st_prepare(st, sql, &s, "prepare run end"))
		return -1;
	sqlite3_bind_int64(s, 1, e->ended_wall_usec);
	tm_st_bind_text(s, 2, tm_outcome_name(e->outcome));
	sqlite3_bind_int(s, 3, e->exit_code);
	sqlite3_bind_int(s, 4, e->term_signal);
	tm_st_bind_text(s, 5, e->reason);
	sqlite3_bind_int64(s, 6, run_id);
	rc = tm_st_step_done(st, s, true, "end run");
	return rc;
}

int tm_store_run_set_text(struct tm_store *st, int64_t run_id, const char *column,
                          const char *value)
{
	static const char *const allowed[] = {"allocator",   "limits_json", "env_json", "reason",
	                                      "cgroup_path", "cgroup_mode", "outcome",  "machine"};
	char sql[128];
	sqlite3_stmt *s;
	bool ok = false;
	int rc;

	for (size_t i = 0; i < TM_ARRAY_SIZE(allowed); i++)
		ok |= !strcmp(column, allowed[i]);
	if (!ok)
		TM_BUG("runs.%s is not a settable column", column);
	if (tm_st_begin_batch(st))
		return -1;
	snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ? WHERE id = ?", column);
	if (tm_st_prepare(st, sql, &s, "prepare run update"))
		return -1;
	tm_st_bind_text(s, 1, value);
	sqlite3_bind_int64(s, 2, run_id);
	rc = tm_st_step_done(st, s, true, "update run");
	return rc;
}

#define TM_STR_(x) #x
#define TM_STR(x)  TM_STR_(x)
#define SEEN_SCAN  TM_STR(TM_SEEN_SCAN_SAMPLES)
#define SLACK_SEC  TM_STR(TM_FUTURE_SLACK_SEC)

#define RUN_COLUMNS                                                                                \
	"r.id, uuid, machine, kernel, cgroup_mode, target, cgroup_path, command_json,"             \
	" env_json, limits_json, allocator, interval_usec, started_wall_usec,"                     \
	" started_mono_usec, ended_wall_usec, outcome, reason, arm, exit_code, term_signal,"       \
	" bench_id, bench_seq, (SELECT max(seq) + 1 FROM samples WHERE run_id = r.id),"            \
	" (SELECT t_wall_usec FROM samples WHERE run_id = r.id ORDER BY seq DESC LIMIT 1),"        \
	" (SELECT max(t_wall_usec) FROM (SELECT t_wall_usec FROM samples WHERE run_id = r.id"      \
	"  ORDER BY seq DESC LIMIT " SEEN_SCAN ") WHERE t_wall_usec <="                            \
	"  (CAST(strftime('%s', 'now') AS INTEGER) + " SLACK_SEC ") * 1000000)"

static void read_run_row(sqlite3_stmt *s, struct tm_run_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->id = sqlite3_column_int64(s, 0);
	ri->uuid = tm_st_dup_text(s, 1);
	ri->machine = tm_st_dup_text(s, 2);
	ri->kernel = tm_st_dup_text(s, 3);
	ri->cgroup_mode = tm_st_dup_text(s, 4);
	ri->target = tm_st_dup_text(s, 5);
	ri->cgroup_path = tm_st_dup_text(s, 6);
	ri->command_json = tm_st_dup_text(s, 7);
	ri->env_json = tm_st_dup_text(s, 8);
	ri->limits_json = tm_st_dup_text(s, 9);
	ri->allocator = tm_st_dup_text(s, 10);
	ri->interval_usec = sqlite3_column_int64(s, 11);
	ri->started_wall_usec = sqlite3_column_int64(s, 12);
	ri->started_mono_usec = sqlite3_column_int64(s, 13);
	ri->ended_wall_usec = sqlite3_column_int64(s, 14);
	ri->outcome = tm_st_dup_text(s, 15);
	ri->reason = tm_st_dup_text(s, 16);
	ri->arm = tm_st_dup_text(s, 17);
	ri->exit_code = sqlite3_column_type(s, 18) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 18);
	ri->term_signal = sqlite3_column_int(s, 19);
	ri->bench_id = sqlite3_column_int64(s, 20);
	ri->bench_seq = sqlite3_column_int64(s, 21);
	ri->sample_count = sqlite3_column_int64(s, 22);
	ri->last_sample_wall_usec = sqlite3_column_int64(s, 23); /* NULL reads as 0 */
	ri->seen_wall_usec = sqlite3_column_int64(s, 24);
}

void tm_run_info_release(struct tm_run_info *ri)
{
	char **strs[] = {&ri->uuid,        &ri->machine,     &ri->kernel,       &ri->cgroup_mode,
	                 &ri->target,      &ri->cgroup_path, &ri->command_json, &ri->env_json,
	                 &ri->limits_json, &ri->allocator,   &ri->outcome,      &ri->reason,
	                 &ri->arm};
	for (size_t i = 0; i < TM_ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
}

int tm_store_run_get(struct tm_store *st, int64_t run_id, struct tm_run_info *out)
{
	sqlite3_stmt *s;
	int rc;

	if (tm_st_prepare(st, "SELECT " RUN_COLUMNS " FROM runs r WHERE r.id = ?", &s,
	                  "prepare run"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	rc = tm_st_step_row(st, s, "read run");
	if (rc == 0)
		read_run_row(s, out);
	sqlite3_finalize(s);
	return rc;
}

int tm_store_run_by_uuid(struct tm_store *st, const char *uuid, int64_t *run_id)
{
	return tm_st_query_int64(st, "SELECT id FROM runs WHERE uuid = ?", uuid, 0, run_id);
}

int tm_store_latest_run(struct tm_store *st, int64_t *run_id)
{
	return tm_st_query_int64(st, "SELECT max(id) FROM runs", NULL, 0, run_id);
}

/* Steps S (prepared and bound) through its rows, calling CB on each. */
static int each_run_row(struct tm_store *st, sqlite3_stmt *s, tm_run_cb cb, void *ctx)
{
	int rc = 0, step;

	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct tm_run_info ri;
		read_run_row(s, &ri);
		rc = cb(ctx, &ri);
		tm_run_info_release(&ri);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read runs");
	sqlite3_finalize(s);
	return rc;
}

int tm_store_each_run(struct tm_store *st, int64_t bench_id, tm_run_cb cb, void *ctx)
{
	sqlite3_stmt *s;

	if (tm_st_prepare(st,
	                  bench_id > 0 ? "SELECT " RUN_COLUMNS
	                                 " FROM runs r WHERE bench_id = ? ORDER BY bench_seq, r.id"
	                               : "SELECT " RUN_COLUMNS " FROM runs r ORDER BY r.id",
	                  &s, "prepare runs"))
		return -1;
	if (bench_id > 0)
		sqlite3_bind_int64(s, 1, bench_id);
	return each_run_row(st, s, cb, ctx);
}

int tm_store_each_run_page(struct tm_store *st, const struct tm_run_page *pg, tm_run_cb cb,
                           void *ctx)
{
	sqlite3_stmt *s;

	if (tm_st_prepare(st,
	                  "SELECT " RUN_COLUMNS " FROM runs r WHERE (?1 IS NULL OR machine = ?1)"
	                  " AND (?2 = 0 OR bench_id = ?2) AND (?3 = 0 OR r.id < ?3)"
	                  " ORDER BY r.id DESC LIMIT ?4",
	                  &s, "prepare run page"))
		return -1;
	tm_st_bind_text(s, 1, pg->machine);
	sqlite3_bind_int64(s, 2, pg->bench_id);
	sqlite3_bind_int64(s, 3, pg->before_id);
	sqlite3_bind_int64(s, 4, pg->limit);
	return each_run_row(st, s, cb, ctx);
}
