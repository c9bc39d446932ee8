/*
 * A run as JSON, written in one place for every output that shows one:
 * `report --json`, `runs --json`, the server's API and the push protocol.
 * A new column of struct tm_run_info is added here once.
 */
#ifndef TM_REPORT_RUNJSON_H
#define TM_REPORT_RUNJSON_H

#include <stdbool.h>

#include <jansson.h>

struct tm_run_info;
struct tm_summary;

enum tm_run_json_form {
	/* Every column under its own name (id, uuid, machine, kernel, cgroup_mode,
	 * target, cgroup_path, command, env, limits, allocator, interval_usec,
	 * started_wall_usec, started_mono_usec, ended_wall_usec, outcome, reason,
	 * exit_code, term_signal, bench_id, arm, bench_seq, sample_count), with
	 * last_sample_wall_usec (null when none) and state (tm_run_state_name,
	 * as of now); the
	 * JSON text columns (command, env, limits) parsed back into JSON; absent
	 * text, or a JSON column that does not parse, as null. */
	TM_RUN_JSON_FULL,
	/* The push protocol's "run" (docs/push-protocol.md): what is known when
	 * a run starts; JSON columns as text (command_json, env_json,
	 * limits_json); absent text left out.  No id, no end. */
	TM_RUN_JSON_PUSH,
	/* The push protocol's "end": ended_wall_usec, outcome ("completed" when
	 * none is stored), exit_code, term_signal, and reason when there is one. */
	TM_RUN_JSON_PUSH_END,
};

/* A figure as JSON: V as a number, or null when it is not finite (NAN is
 * how a figure that is not known travels: missing is not zero).  A new
 * reference the caller owns (or NULL when out of memory). */
json_t *tm_json_num(double v);
/* A count or an amount (bytes, usec) as JSON: an integer when V is a whole
 * number (up to 2^53), else as tm_json_num.  A new reference. */
json_t *tm_json_amount(double v);
/* Whether the figure NAME (its unit in its name, docs/ARCHITECTURE.md) is a
 * count or an amount: it ends in _bytes, _usec, _events, _kills, _allocs,
 * _gcs, _cycles, _points, _bunched or samples, and is no rate (no
 * "_per_").  ("units" is not: a job's units of work may be fractional.) */
bool tm_figure_is_amount(const char *name);
/* Whether NAME is a limit (limit_*_bytes): -1 there means "no limit". */
bool tm_figure_is_limit(const char *name);
/* V as JSON and CSV show the figure NAME: NAN (null, an empty field) for a
 * limit's "none" (-1), which is no amount (rule 3); else V. */
double tm_figure_out(const char *name, double v);
/* The figure NAME of value V as JSON: tm_figure_out, then an integer for a
 * whole amount (tm_figure_is_amount), a number, or null.  A new reference. */
json_t *tm_json_figure(const char *name, double v);
/* S as a JSON string, or null when S is NULL.  A new reference. */
json_t *tm_json_str(const char *s);

/* Whether a run is still being recorded.  A run that has no end and no
 * sample for TM_STALE_INTERVALS intervals (at least TM_STALE_MIN_USEC) is
 * stale: its recorder died or can no longer reach the store or server.
 * When it was last seen is the latest of its start, last sample and
 * seen_wall_usec that is not dated in the future (TM_FUTURE_SLACK_USEC past
 * NOW_WALL_USEC): a sample or start dated 2099 never makes a run live. */
enum tm_run_state { TM_RUN_LIVE, TM_RUN_STALE, TM_RUN_ENDED };
#define TM_STALE_INTERVALS 5
#define TM_STALE_MIN_USEC  30000000LL
enum tm_run_state tm_run_state(const struct tm_run_info *ri, int64_t now_wall_usec);
/* "live", "stale" or "ended". */
const char *tm_run_state_name(enum tm_run_state st);

/* RI in FORM: a new object (the caller decrefs it), or NULL when out of
 * memory. */
json_t *tm_run_json(const struct tm_run_info *ri, enum tm_run_json_form form);

/* A summary's figures under the names of report/run/summary_fields.h (a
 * figure that was not measured as null), with samples and late_samples:
 * `report --json`'s "figures" and the API's "summary".  NULL when out of
 * memory. */
json_t *tm_summary_json(const struct tm_summary *s);

#endif
