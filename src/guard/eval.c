/* Rules of `tidemark guard`: evaluation over a run's samples (rule.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guard/rule.h"
#include "base/banned.h"

/* A limit this large is no limit (cgroup v1 writes 2^63 rounded to pages). */
#define NO_LIMIT_BYTES (1LL << 60)

static bool has(const struct tm_sample *s, enum tm_metric m)
{
	return tm_sample_has(s, m);
}

/* The threshold in bytes at S, or -1 when its reference is not known. */
static double threshold_bytes(const struct tm_guard_rule *r, const struct tm_sample *s)
{
	enum tm_metric ref;
	switch (r->ref) {
	case TM_GUARD_REF_BYTES:
		return (double)r->bytes;
	case TM_GUARD_REF_MAX:
		ref = TM_M_CG_MAX_BYTES;
		break;
	case TM_GUARD_REF_HIGH:
		ref = TM_M_CG_HIGH_BYTES;
		break;
	case TM_GUARD_REF_COMMITTED:
		ref = TM_M_JVM_OLD_COMMITTED_BYTES;
		break;
	default:
		return -1;
	}
	if (!has(s, ref) || s->v[ref] <= 0 || s->v[ref] >= NO_LIMIT_BYTES)
		return -1;
	return r->share * (double)s->v[ref];
}

static bool level_holds(const struct tm_guard_rule *r, const struct tm_sample *s)
{
	double t = threshold_bytes(r, s);
	return t >= 0 && has(s, r->metric) && (double)s->v[r->metric] > t;
}

/* HIGH_RATE and PSI_FULL: the counter's rise since the previous sample, per
 * second or as a share of the time between them. */
static bool counter_holds(const struct tm_guard_rule *r, struct tm_guard_state *st,
                          const struct tm_sample *s)
{
	bool known = has(s, r->metric);
	bool holds = false;
	if (known && st->prev_counter_known && st->have_prev &&
	    s->t_mono_usec > st->prev_mono_usec && s->v[r->metric] >= st->prev_counter) {
		double dt = (double)(s->t_mono_usec - st->prev_mono_usec);
		double d = (double)(s->v[r->metric] - st->prev_counter);
		holds =
		    r->kind == TM_GUARD_HIGH_RATE ? d * 1e6 / dt > r->per_sec : d / dt > r->share;
	}
	st->prev_counter_known = known;
	st->prev_counter = known ? s->v[r->metric] : 0;
	return holds;
}

/* JVM_OLD: each GC seen at a sample (its count rose) is above the line or
 * not; N in a row hold.  Between GCs the state stays. */
static bool jvm_old_holds(const struct tm_guard_rule *r, struct tm_guard_state *st,
                          const struct tm_sample *s)
{
	if (!has(s, TM_M_JVM_LOG_GCS)) {
		st->gcs_known = false;
		return st->streak >= r->count;
	}
	int64_t gcs = s->v[TM_M_JVM_LOG_GCS];
	bool new_gc = st->gcs_known ? gcs > st->last_gcs : gcs > 0;
	st->last_gcs = gcs;
	st->gcs_known = true;
	if (new_gc)
		st->streak = level_holds(r, s) ? st->streak + 1 : 0;
	return st->streak >= r->count;
}

/* HEAP_GROWS: a rise starts at a sample; it breaks when the live heap falls
 * below where it started.  Holds once it lasted FOR with the live heap at
 * its top, above its start. */
static bool grows_holds(const struct tm_guard_rule *r, struct tm_guard_state *st,
                        const struct tm_sample *s)
{
	if (!has(s, r->metric)) {
		st->growing = false;
		return false;
	}
	int64_t v = s->v[r->metric], t = s->t_mono_usec;
	if (!st->growing || v < st->grow_v) {
		st->growing = true;
		st->grow_t = t;
		st->grow_v = st->grow_max = v;
		return false;
	}
	if (v > st->grow_max)
		st->grow_max = v;
	return t - st->grow_t >= r->for_usec && v == st->grow_max && v > st->grow_v;
}

/* Whether the condition holds at S, before durations. */
static bool holds_now(const struct tm_guard_rule *r, struct tm_guard_state *st,
                      const struct tm_sample *s)
{
	switch (r->kind) {
	case TM_GUARD_LEVEL:
		return level_holds(r, s);
	case TM_GUARD_HIGH_RATE:
	case TM_GUARD_PSI_FULL:
		return counter_holds(r, st, s);
	case TM_GUARD_JVM_OLD:
		return jvm_old_holds(r, st, s);
	case TM_GUARD_HEAP_GROWS:
		return grows_holds(r, st, s);
	case TM_GUARD_KIND_COUNT:
		break;
	}
	/* no default: a kind of TM_GUARD_KINDS without its case fails -Wswitch */
	return false;
}

bool tm_guard_rule_step(const struct tm_guard_rule *r, struct tm_guard_state *st,
                        const struct tm_sample *s)
{
	bool now = holds_now(r, st, s);
	bool fire = false;
	if (r->kind == TM_GUARD_HEAP_GROWS) {
		/* re-armed only when the rise breaks, not at each plateau */
		if (!st->growing || st->grow_t == s->t_mono_usec)
			st->fired = false;
		fire = now && !st->fired;
	} else if (now) {
		if (!st->holding)
			st->since_mono_usec = s->t_mono_usec;
		fire = !st->fired && s->t_mono_usec - st->since_mono_usec >= r->for_usec;
	} else {
		st->fired = false;
	}
	st->holding = now;
	if (fire)
		st->fired = true;
	st->have_prev = true;
	st->prev_mono_usec = s->t_mono_usec;
	return fire;
}

static const char *ref_name(enum tm_guard_ref ref)
{
	switch (ref) {
	case TM_GUARD_REF_MAX:
		return "memory.max";
	case TM_GUARD_REF_HIGH:
		return "memory.high";
	case TM_GUARD_REF_COMMITTED:
		return "the old generation's committed size";
	default:
		return "";
	}
}

const char *tm_guard_rule_describe(const struct tm_guard_rule *r, char *buf, size_t size)
{
	const char *m = tm_metric_info(r->metric)->name;
	char dur[48] = "";
	if (r->for_usec)
		snprintf(dur, sizeof(dur), " for %.3g s", (double)r->for_usec / 1e6);
	switch (r->kind) {
	case TM_GUARD_HIGH_RATE:
		snprintf(buf, size, "%s rising faster than %g/s%s", m, r->per_sec, dur);
		break;
	case TM_GUARD_PSI_FULL:
		snprintf(buf, size, "%s above %g%% of wall time%s", m, r->share * 100, dur);
		break;
	case TM_GUARD_HEAP_GROWS:
		snprintf(buf, size, "%s growing%s", m, dur);
		break;
	default:
		if (r->ref == TM_GUARD_REF_BYTES)
			snprintf(buf, size, "%s > %" PRId64 " bytes", m, r->bytes);
		else
			snprintf(buf, size, "%s > %g%% of %s", m, r->share * 100, ref_name(r->ref));
		if (r->kind == TM_GUARD_JVM_OLD)
			snprintf(buf + strlen(buf), size - strlen(buf),
			         " after %" PRId64 " GC%s in a row", r->count,
			         r->count == 1 ? "" : "s");
		else
			snprintf(buf + strlen(buf), size - strlen(buf), "%s", dur);
	}
	return buf;
}
