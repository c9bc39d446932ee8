/*
 * Throttle limbo from a run's series: sampling intervals in which memory
 * PSI full stayed above the threshold, joined across gaps shorter than the
 * join limit (a service that waits between units of work stalls in none of
 * the intervals it waits in), become stretches; one is kept when it is
 * sustained, memory full took its share over the whole of it, memory.high
 * events rose over it and the progress rate in it fell below the rate
 * before it began (or the run records no progress, which the text then
 * says).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/sample.h"
#include "base/util.h"
#include "report/run/throttle.h"
#include "store/store.h"
#include "report/run/runjson.h"
#include "base/banned.h"

struct tpt {
	int64_t mono, wall;
	double high, full; /* counters; NAN when absent */
};

struct tm_throttle_stream {
	int64_t from, to;
	struct {
		int64_t mono;
		double v;
	} * g;
	size_t ng;
	size_t n;               /* points taken */
	struct tpt first, prev; /* the window's first point, the last one */
	struct tpt start;       /* where the stalled stretch in progress began */
	struct tpt last_stall;  /* the end of its last stalled interval */
	size_t stalled;         /* its stalled intervals (its gaps not counted) */
	bool in, high_ok, full_ok;
	/* the last stretch judged: where it ended and the rate before it, so a
	 * stretch soon after is compared with the pace before both */
	int64_t judged_end;
	double judged_before;
	bool judged;
	const char *unknown; /* set: the run cannot tell, for this reason */
	struct tm_throttle out;
};

/* The last progress value at or before MONO, NAN when none yet. */
static double progress_at(const struct tm_throttle_stream *ts, int64_t mono)
{
	double v = NAN;
	for (size_t i = 0; i < ts->ng && ts->g[i].mono <= mono; i++)
		v = ts->g[i].v;
	return v;
}

/* Units per minute between mono times A and B, NAN when unknown.  When
 * no progress was recorded by A yet, from the first progress point. */
static double rate(const struct tm_throttle_stream *ts, int64_t a, int64_t b)
{
	double pa = progress_at(ts, a), pb = progress_at(ts, b);

	if (isnan(pa) && ts->ng && ts->g[0].mono < b) {
		a = ts->g[0].mono;
		pa = ts->g[0].v;
	}
	if (b <= a || isnan(pa) || isnan(pb))
		return NAN;
	return (pb - pa) * 60e6 / (double)(b - a);
}

/* An interval of memory full stall at or above the threshold.  (The
 * kernel sleeps a throttled task up to 2 s an allocation, so memory.high
 * events need not rise in every interval: they are counted over the
 * stretch.) */
static bool interval_stalled(const struct tpt *a, const struct tpt *b)
{
	double dt = (double)(b->mono - a->mono);
	return dt > 0 && (b->full - a->full) / dt >= TM_THROTTLE_FULL_SHARE;
}

/* The rate before a stretch from A, as long as LEN: over as long a time
 * before it, or, when that reaches into the stretch judged last, the rate
 * before that one (a throttled pace is no measure of the normal one). */
static double rate_before(const struct tm_throttle_stream *ts, const struct tpt *a, int64_t len)
{
	int64_t before = a->mono - len;

	if (ts->judged && before < ts->judged_end)
		return ts->judged_before;
	if (before < ts->first.mono)
		before = ts->first.mono;
	return before < a->mono ? rate(ts, before, a->mono) : NAN;
}

/* Points A..B held STALLED stalled intervals, with gaps shorter than the
 * join limit between them: keep the stretch when it is long enough, memory
 * full took its share over the whole of it, memory.high events rose, and
 * the rate fell (or is not known). */
static void consider(struct tm_throttle_stream *ts, const struct tpt *a, const struct tpt *b,
                     size_t stalled)
{
	struct tm_throttle *out = &ts->out;
	int64_t len = b->mono - a->mono;
	struct tm_throttle_span s = {
	    .start_wall_usec = a->wall,
	    .end_wall_usec = b->wall,
	    .start_mono_usec = a->mono,
	    .end_mono_usec = b->mono,
	    .high_events = b->high - a->high,
	    .mem_full_share = len > 0 ? (b->full - a->full) / (double)len : 0,
	};

	if (stalled < TM_THROTTLE_MIN_INTERVALS || !(s.high_events > 0) ||
	    s.mem_full_share < TM_THROTTLE_FULL_SHARE)
		return; /* too short, or a stall that memory.high did not cause */
	s.rate_during_per_min = rate(ts, a->mono, b->mono);
	s.rate_before_per_min = rate_before(ts, a, len);
	ts->judged = true;
	ts->judged_end = b->mono;
	ts->judged_before = s.rate_before_per_min;
	if (isfinite(s.rate_during_per_min) && isfinite(s.rate_before_per_min) &&
	    s.rate_during_per_min >= TM_THROTTLE_RATE_FALL * s.rate_before_per_min)
		return; /* held at high, but the work went on: not limbo */
	if (out->n < TM_THROTTLE_MAX_SPANS)
		out->spans[out->n] = s;
	out->n++;
	out->throttled_usec += (double)len;
}

/* The longest run of unstalled time that still joins two stalled pieces:
 * a service that waits between units shows intervals without stall in the
 * middle of a throttled stretch. */
static int64_t join_gap(int64_t interval_usec)
{
	int64_t by_intervals = TM_THROTTLE_JOIN_INTERVALS * interval_usec;
	return by_intervals > TM_THROTTLE_JOIN_USEC ? by_intervals : TM_THROTTLE_JOIN_USEC;
}

struct tm_throttle_stream *tm_throttle_stream_new(int64_t from_mono_usec, int64_t to_mono_usec,
                                                  const int64_t *prog_mono, const double *prog_v,
                                                  size_t n)
{
	struct tm_throttle_stream *ts = calloc(1, sizeof(*ts));

	if (!ts || (n && !(ts->g = calloc(n, sizeof(*ts->g))))) {
		free(ts);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		ts->g[i].mono = prog_mono[i];
		ts->g[i].v = prog_v[i];
	}
	ts->ng = n;
	ts->from = from_mono_usec;
	ts->to = to_mono_usec;
	ts->high_ok = ts->full_ok = true;
	return ts;
}

void tm_throttle_stream_add(struct tm_throttle_stream *ts, int64_t mono, int64_t wall, double high,
                            double full)
{
	struct tpt p = {mono, wall, high, full};

	if (mono < ts->from || (ts->to >= 0 && mono > ts->to))
		return;
	ts->high_ok &= isfinite(high);
	ts->full_ok &= isfinite(full);
	if (ts->n == 0) {
		ts->first = ts->prev = p;
		ts->n = 1;
		return;
	}
	bool th = interval_stalled(&ts->prev, &p);
	if (th && !ts->in) {
		ts->start = ts->prev;
		ts->stalled = 0;
		ts->in = true;
	}
	if (th) {
		ts->last_stall = p;
		ts->stalled++;
	} else if (ts->in && p.mono - ts->last_stall.mono > join_gap(p.mono - ts->prev.mono)) {
		consider(ts, &ts->start, &ts->last_stall, ts->stalled);
		ts->in = false;
	}
	ts->prev = p;
	ts->n++;
}

void tm_throttle_stream_unknown(struct tm_throttle_stream *ts, const char *why)
{
	ts->unknown = why;
}

void tm_throttle_stream_finish(struct tm_throttle_stream *ts, struct tm_throttle *out)
{
	struct tm_throttle *o = &ts->out;

	if (ts->in)
		consider(ts, &ts->start, &ts->last_stall, ts->stalled);
	o->known = false;
	if (ts->unknown)
		snprintf(o->why, sizeof(o->why), "%s", ts->unknown);
	else if (ts->n < 2)
		snprintf(o->why, sizeof(o->why), "fewer than two samples");
	else if (!ts->high_ok)
		snprintf(
		    o->why, sizeof(o->why),
		    "memory.high events were not measured (cgroup v1 has no memory.high, or no "
		    "cgroup)");
	else if (!ts->full_ok)
		snprintf(o->why, sizeof(o->why),
		         "the cgroup's memory pressure (PSI) was not measured");
	else
		o->known = true;
	if (!o->known) {
		o->n = 0;
		o->throttled_usec = 0;
	}
	*out = *o;
	free(ts->g);
	free(ts);
}

struct find_ctx {
	struct tm_throttle_stream *ts;
	int64_t *mono;
	double *v;
	size_t n, cap;
};

static int take_progress(void *ctx, int64_t wall, int64_t mono, double v)
{
	struct find_ctx *f = ctx;
	size_t cap = f->cap;
	(void)wall;
	if (tm_grow(&f->mono, &cap, f->n, sizeof(*f->mono), 256) ||
	    tm_grow(&f->v, &f->cap, f->n, sizeof(*f->v), 256))
		return -1;
	f->mono[f->n] = mono;
	f->v[f->n++] = v;
	return 0;
}

static int take_sample(void *ctx, const struct tm_sample *s)
{
	struct find_ctx *f = ctx;
	tm_throttle_stream_add(
	    f->ts, s->t_mono_usec, s->t_wall_usec,
	    tm_sample_has(s, TM_M_CG_EVENTS_HIGH) ? (double)s->v[TM_M_CG_EVENTS_HIGH] : NAN,
	    tm_sample_has(s, TM_M_CG_PSI_MEM_FULL_USEC) ? (double)s->v[TM_M_CG_PSI_MEM_FULL_USEC]
	                                                : NAN);
	return 0;
}

int tm_throttle_find(struct tm_store *st, int64_t run_id, int64_t from_mono_usec,
                     int64_t to_mono_usec, struct tm_throttle *out)
{
	struct find_ctx f = {0};
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (tm_store_each_progress(st, run_id, take_progress, &f))
		rc = -1;
	else if (!(f.ts = tm_throttle_stream_new(from_mono_usec, to_mono_usec, f.mono, f.v, f.n)))
		rc = tm_error("out of memory");
	else if (tm_store_each_sample(st, run_id, 0, -1, take_sample, &f))
		rc = -1;
	if (f.ts) {
		tm_throttle_stream_finish(f.ts, out);
		if (rc)
			out->known = false;
	}
	free(f.mono);
	free(f.v);
	return rc;
}

/* 926000 as "926,000". */
static void thousands(char *buf, size_t size, double v)
{
	char raw[32];
	size_t len, o = 0;

	snprintf(raw, sizeof(raw), "%.0f", v);
	len = strlen(raw);
	for (size_t i = 0; i < len && o + 2 < size; i++) {
		if (i > 0 && raw[i - 1] != '-' && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
}

static void clock_text(char *buf, size_t size, int64_t wall_usec)
{
	time_t t = (time_t)(wall_usec / 1000000);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, "%H:%M:%S", &tm);
}

void tm_throttle_span_text(const struct tm_throttle_span *s, char *buf, size_t size)
{
	char a[16], b[16], h[32], r[96];

	clock_text(a, sizeof(a), s->start_wall_usec);
	clock_text(b, sizeof(b), s->end_wall_usec);
	thousands(h, sizeof(h), s->high_events);
	if (isnan(s->rate_during_per_min))
		snprintf(r, sizeof(r), "rate not known (no progress recorded)");
	else if (isnan(s->rate_before_per_min))
		snprintf(r, sizeof(r), "rate %.3g units/min (none before to compare)",
		         s->rate_during_per_min);
	else
		snprintf(r, sizeof(r), "rate %.0f → %.0f units/min", s->rate_before_per_min,
		         s->rate_during_per_min);
	snprintf(buf, size,
	         "throttled by memory.high from %s to %s: %s high events, memory full %.0f %%, %s",
	         a, b, h, 100 * s->mem_full_share, r);
}

json_t *tm_throttle_json(const struct tm_throttle *t)
{
	json_t *o = json_object(), *spans = json_array();
	char text[256];

	if (!o || !spans) {
		json_decref(o);
		json_decref(spans);
		return NULL;
	}
	json_object_set_new(o, "known", json_boolean(t->known));
	if (!t->known) {
		json_object_set_new(o, "why", json_string(t->why));
		json_decref(spans);
		return o;
	}
	for (int i = 0; i < t->n && i < TM_THROTTLE_MAX_SPANS; i++) {
		const struct tm_throttle_span *s = &t->spans[i];
		json_t *j = json_object();
		json_object_set_new(j, "start_wall_usec", json_integer(s->start_wall_usec));
		json_object_set_new(j, "end_wall_usec", json_integer(s->end_wall_usec));
		json_object_set_new(j, "high_events", json_real(s->high_events));
		json_object_set_new(j, "mem_full_share", json_real(s->mem_full_share));
		json_object_set_new(j, "rate_before_per_min", tm_json_num(s->rate_before_per_min));
		json_object_set_new(j, "rate_during_per_min", tm_json_num(s->rate_during_per_min));
		tm_throttle_span_text(s, text, sizeof(text));
		json_object_set_new(j, "text", json_string(text));
		json_array_append_new(spans, j);
	}
	json_object_set_new(o, "spans", spans);
	json_object_set_new(o, "throttled_usec", json_real(t->throttled_usec));
	return o;
}
