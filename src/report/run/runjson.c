/* A run, and its summary, as JSON; see report/run/runjson.h. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "base/util.h"
#include "report/run/endrule.h"
#include "report/run/rtreport.h"
#include "report/run/runjson.h"
#include "report/run/summary.h"
#include "report/run/summary_fields.h"
#include "store/store.h"
#include "base/banned.h"

/* Text as a string; absent text as null, or left out for the wire. */
static void text(json_t *o, bool wire, const char *key, const char *v)
{
	if (v)
		json_object_set_new(o, key, json_string(v));
	else if (!wire)
		json_object_set_new(o, key, json_null());
}

/* A JSON text column: parsed under KEY, or (the wire) as text under COLUMN. */
static void embedded(json_t *o, bool wire, const char *key, const char *column, const char *v)
{
	json_t *j;

	if (wire) {
		text(o, true, column, v);
		return;
	}
	j = v ? json_loads(v, 0, NULL) : NULL;
	json_object_set_new(o, key, j ? j : json_null());
}

static void integer(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer(v));
}

static json_t *end_json(const struct tm_run_info *ri)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	integer(o, "ended_wall_usec", ri->ended_wall_usec);
	text(o, true, "outcome", ri->outcome ? ri->outcome : tm_outcome_name(TM_OUTCOME_COMPLETED));
	integer(o, "exit_code", ri->exit_code);
	integer(o, "term_signal", ri->term_signal);
	text(o, true, "reason", ri->reason);
	return o;
}

json_t *tm_run_json(const struct tm_run_info *ri, enum tm_run_json_form form)
{
	bool wire = form == TM_RUN_JSON_PUSH;
	json_t *o;

	if (form == TM_RUN_JSON_PUSH_END)
		return end_json(ri);
	if (!(o = json_object()))
		return NULL;
	if (!wire)
		integer(o, "id", ri->id);
	text(o, wire, "uuid", ri->uuid);
	text(o, wire, "machine", ri->machine);
	text(o, wire, "kernel", ri->kernel);
	text(o, wire, "cgroup_mode", ri->cgroup_mode);
	text(o, wire, "target", ri->target);
	text(o, wire, "cgroup_path", ri->cgroup_path);
	embedded(o, wire, "command", "command_json", ri->command_json);
	embedded(o, wire, "env", "env_json", ri->env_json);
	embedded(o, wire, "limits", "limits_json", ri->limits_json);
	text(o, wire, "allocator", ri->allocator);
	integer(o, "interval_usec", ri->interval_usec);
	integer(o, "started_wall_usec", ri->started_wall_usec);
	integer(o, "started_mono_usec", ri->started_mono_usec);
	text(o, wire, "arm", ri->arm);
	integer(o, "bench_seq", ri->bench_seq);
	if (wire)
		return o;
	integer(o, "ended_wall_usec", ri->ended_wall_usec);
	text(o, false, "outcome", ri->outcome);
	text(o, false, "reason", ri->reason);
	integer(o, "exit_code", ri->exit_code);
	integer(o, "term_signal", ri->term_signal);
	integer(o, "bench_id", ri->bench_id);
	integer(o, "sample_count", ri->sample_count);
	json_object_set_new(o, "last_sample_wall_usec",
	                    ri->last_sample_wall_usec ? json_integer(ri->last_sample_wall_usec)
	                                              : json_null());
	text(o, false, "state", tm_run_state_name(tm_run_state(ri, tm_now_wall_usec())));
	return o;
}

/* The later of SEEN and T, unless T is dated in the future (after NOW
 * plus the slack): such a time says nothing of when the run was seen. */
static int64_t seen_at(int64_t seen, int64_t t, int64_t now_wall_usec)
{
	return t > seen && t <= now_wall_usec + TM_FUTURE_SLACK_USEC ? t : seen;
}

enum tm_run_state tm_run_state(const struct tm_run_info *ri, int64_t now_wall_usec)
{
	int64_t seen = seen_at(0, ri->started_wall_usec, now_wall_usec);
	seen = seen_at(seen, ri->last_sample_wall_usec, now_wall_usec);
	seen = seen_at(seen, ri->seen_wall_usec, now_wall_usec);
	int64_t grace = TM_STALE_INTERVALS * ri->interval_usec;

	if (ri->ended_wall_usec)
		return TM_RUN_ENDED;
	if (grace < TM_STALE_MIN_USEC)
		grace = TM_STALE_MIN_USEC;
	return now_wall_usec - seen > grace ? TM_RUN_STALE : TM_RUN_LIVE;
}

const char *tm_run_state_name(enum tm_run_state st)
{
	switch (st) {
	case TM_RUN_LIVE:
		return "live";
	case TM_RUN_STALE:
		return "stale";
	case TM_RUN_ENDED:
		return "ended";
	}
	return "?";
}

json_t *tm_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *tm_json_amount(double v)
{
	/* 2^53: every integer up to it is exact in a double */
	if (isfinite(v) && v == floor(v) && fabs(v) <= 9007199254740992.0)
		return json_integer((json_int_t)v);
	return tm_json_num(v);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

bool tm_figure_is_amount(const char *name)
{
	static const char *const tails[] = {"_bytes",   "_usec",  "_events",    "_kills",
	                                    "_allocs",  "_gcs",   "_cycles",    "_points",
	                                    "_bunched", "_procs", "_collapses", "samples"};

	if (strstr(name, "_per_"))
		return false;
	for (size_t i = 0; i < TM_ARRAY_SIZE(tails); i++)
		if (ends_with(name, tails[i]))
			return true;
	return false;
}

bool tm_figure_is_limit(const char *name)
{
	return strncmp(name, "limit_", 6) == 0 && ends_with(name, "_bytes");
}

double tm_figure_out(const char *name, double v)
{
	return tm_figure_is_limit(name) && v < 0 ? NAN : v;
}

json_t *tm_json_figure(const char *name, double v)
{
	v = tm_figure_out(name, v);
	return tm_figure_is_amount(name) ? tm_json_amount(v) : tm_json_num(v);
}

json_t *tm_json_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* What is not exact, and its bound (see struct tm_summary_approx). */
static json_t *approx_json(const struct tm_summary_approx *a)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (a->median_file_rel_error > 0 && a->rollup_samples == 0)
		json_object_set_new(o, "median_file_bytes",
		                    json_pack("{s:s, s:f}", "method", "streaming sketch",
		                              "relative_error", a->median_file_rel_error));
	if (a->rollup_samples == 0)
		return o;
	json_object_set_new(o, "rollup_samples", json_integer(a->rollup_samples));
	json_object_set_new(o, "rollup_buckets", json_integer(a->rollup_buckets));
	json_object_set_new(o, "rollup_levels",
	                    json_string(a->minute && a->hour ? "minute,hour"
	                                : a->hour            ? "hour"
	                                                     : "minute"));
	json_object_set_new(o, "raw_from_wall_usec",
	                    a->raw_from_wall_usec ? json_integer(a->raw_from_wall_usec)
	                                          : json_null());
	if (a->long_run) /* kept, but read from rollups: a long run */
		json_object_set_new(o, "long_run", json_true());
	json_object_set_new(o, "median_file_bytes",
	                    json_pack("{s:s, s:o, s:o}", "method",
	                              "between the medians of the buckets' minima and maxima",
	                              "low", tm_json_num(a->median_file_low_bytes), "high",
	                              tm_json_num(a->median_file_high_bytes)));
	json_object_set_new(o, "peak_in_rollups", json_boolean(a->peak_in_rollups));
	json_object_set_new(o, "end_in_rollups", json_boolean(a->end_in_rollups));
	json_object_set_new(o, "progress_in_rollups", json_boolean(a->progress_in_rollups));
	return o;
}

json_t *tm_summary_json(const struct tm_summary *s)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	for (size_t i = 0; i < TM_ARRAY_SIZE(tm_summary_fields); i++) {
		const char *name = tm_summary_fields[i].name;
		json_object_set_new(o, name,
		                    tm_json_figure(name, tm_summary_get(s, &tm_summary_fields[i])));
	}
	/* what the allocator-held part is: exact, an upper bound, or capped */
	const char *kind = tm_summary_held_kind(s);
	json_object_set_new(o, "anon_allocator_held_end_is",
	                    kind ? json_string(kind) : json_null());
	/* how held after the work was measured, or why it is n/a */
	const char *how = tm_end_kind_name(s->end_kind);
	json_object_set_new(o, "held_anon_end_is", how ? json_string(how) : json_null());
	json_object_set_new(o, "held_anon_na_reason",
	                    s->end_na != TM_END_MEASURED ? json_string(tm_end_na_text(s->end_na))
	                                                 : json_null());
	integer(o, "samples", s->samples);
	integer(o, "late_samples", s->late_samples);
	json_object_set_new(o, "progress_bunched", json_boolean(s->progress_bunched));
	tm_rt_report_json(o, s); /* the members of a runtime with a part of its own */
	if (tm_summary_approximate(s))
		json_object_set_new(o, "approximate", approx_json(&s->approx));
	return o;
}
