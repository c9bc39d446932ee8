/*
 * Figures of one run, from its stored series.  The window is turned into
 * monotonic times first; then one pass over the samples (summary_acc.c)
 * collects what each figure needs, in bounded memory.  Where a run's old
 * raw samples were pruned, its rollups stand in for them (s->approx says
 * what that leaves inexact).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "report/run/stats.h"
#include "base/bunch.h"
#include "base/outcome.h"
#include "report/run/endrule.h"
#include "report/run/rtreport.h"
#include "report/run/summary.h"
#include "report/run/summary_int.h"
#include "store/store.h"
#include "base/banned.h"

struct markv {
	int64_t t;
	char text[64];
};

struct marks {
	struct markv *m;
	size_t n, cap;
};

static int collect_progress(void *ctx, int64_t wall, int64_t mono, double v)
{
	struct progs *pr = ctx;
	(void)wall;
	if (tm_grow(&pr->p, &pr->cap, pr->n, sizeof(*pr->p), 256))
		return -1;
	pr->p[pr->n++] = (struct prog){mono, v};
	return 0;
}

static int collect_mark(void *ctx, int64_t wall, int64_t mono, const char *text)
{
	struct marks *mk = ctx;
	(void)wall;
	if (tm_grow(&mk->m, &mk->cap, mk->n, sizeof(*mk->m), 16))
		return -1;
	mk->m[mk->n].t = mono;
	snprintf(mk->m[mk->n].text, sizeof(mk->m[mk->n].text), "%s", text);
	mk->n++;
	return 0;
}

int tm_window_parse(const char *spec, struct tm_window *w)
{
	const char *colon = strchr(spec, ':');
	char a[128], b[128];
	int64_t usec;

	memset(w, 0, sizeof(*w));
	if (!colon || strchr(colon + 1, ':') || (size_t)(colon - spec) >= sizeof(a) ||
	    strlen(colon + 1) >= sizeof(b))
		return tm_error("bad window '%s': expected A:B (progress), 10s:2m (time) or "
		                "@MARK:@MARK",
		                spec);
	memcpy(a, spec, (size_t)(colon - spec));
	a[colon - spec] = '\0';
	snprintf(b, sizeof(b), "%s", colon + 1);
	if (a[0] == '@' || b[0] == '@') {
		w->kind = TM_WIN_MARKS;
		w->has_a = a[0] == '@' && a[1];
		w->has_b = b[0] == '@' && b[1];
		if ((a[0] && a[0] != '@') || (b[0] && b[0] != '@'))
			return tm_error("bad window '%s': both ends must be marks (@NAME)", spec);
		if (strlen(a) > sizeof(w->mark_a) || strlen(b) > sizeof(w->mark_b))
			return tm_error("bad window '%s': mark names are at most %zu characters",
			                spec, sizeof(w->mark_a) - 1);
		memcpy(w->mark_a, w->has_a ? a + 1 : "", w->has_a ? strlen(a) : 1);
		memcpy(w->mark_b, w->has_b ? b + 1 : "", w->has_b ? strlen(b) : 1);
		return 0;
	}
	w->has_a = a[0] != '\0';
	w->has_b = b[0] != '\0';
	if (!w->has_a && !w->has_b)
		return tm_error("bad window '%s': give at least one end", spec);
	/* plain numbers are progress units; numbers with a time unit are times */
	bool timed = false, plain = false;
	const char *ends[2] = {a, b};
	double *vals[2] = {&w->a, &w->b};
	for (int i = 0; i < 2; i++) {
		char *end;
		if (!ends[i][0])
			continue;
		*vals[i] = strtod(ends[i], &end);
		if (end != ends[i] && !*end && isfinite(*vals[i])) {
			plain = true;
		} else if (!tm_parse_duration(ends[i], &usec)) {
			*vals[i] = (double)usec;
			timed = true;
		} else {
			return tm_error("bad window '%s': '%s' is neither a number nor a time",
			                spec, ends[i]);
		}
	}
	if (timed && plain)
		return tm_error("bad window '%s': give both ends as times (10s:2m) or both as "
		                "progress values",
		                spec);
	w->kind = timed ? TM_WIN_TIME : TM_WIN_PROGRESS;
	if (w->has_a && w->has_b && w->b < w->a)
		return tm_error("bad window '%s': it ends before it starts", spec);
	return 0;
}

/* First time progress reaches V, or -1. */
static int64_t progress_time(const struct progs *pr, double v)
{
	for (size_t i = 0; i < pr->n; i++)
		if (pr->p[i].v >= v)
			return pr->p[i].t;
	return -1;
}

static int64_t mark_time(const struct marks *mk, const char *text)
{
	for (size_t i = 0; i < mk->n; i++)
		if (!strcmp(mk->m[i].text, text))
			return mk->m[i].t;
	return -1;
}

/* Turns the window into [*from, *to] in monotonic usec. */
static int resolve_window(const struct tm_window *w, int64_t run_start, const struct progs *pr,
                          const struct marks *mk, int64_t *from, int64_t *to)
{
	*from = INT64_MIN;
	*to = INT64_MAX;
	if (!w || w->kind == TM_WIN_ALL)
		return 0;
	if (w->kind == TM_WIN_TIME) {
		if (w->has_a)
			*from = run_start + (int64_t)w->a;
		if (w->has_b)
			*to = run_start + (int64_t)w->b;
		return 0;
	}
	if (w->kind == TM_WIN_PROGRESS) {
		if (w->has_a && (*from = progress_time(pr, w->a)) < 0)
			return tm_error("the run never reached progress %g", w->a);
		if (w->has_b && (*to = progress_time(pr, w->b)) < 0)
			*to = INT64_MAX; /* killed before the end: the window runs to the end */
		return 0;
	}
	if (w->has_a && (*from = mark_time(mk, w->mark_a)) < 0)
		return tm_error("the run has no mark '%s'", w->mark_a);
	if (w->has_b && (*to = mark_time(mk, w->mark_b)) < 0)
		*to = INT64_MAX;
	return 0;
}

/* Every figure at its start value (report/run/summaryfigs.h): NAN until read. */
static void init_nan(struct tm_summary *s)
{
#define TM_SUMMARY_START(name, start) s->name = (start);
#define TM_SUMMARY_NO_START(name, part)
	TM_SUMMARY_FIG_LIST(TM_SUMMARY_START, TM_SUMMARY_NO_START)
#undef TM_SUMMARY_START
#undef TM_SUMMARY_NO_START
	s->peak_anon_sampled_bytes = NAN;
	s->peak_over_by_collapse_bytes = NAN;
	s->heap_live_last_seen_bytes = NAN;
	s->gc_heap_live_at_held_bytes = NAN;
	tm_rt_report_reset(s);
}

bool tm_sum_alive(const struct pt *p)
{
	return !isfinite(p->procs) || p->procs > 0;
}

/* The same counts of the shim in A and B: the same processes, and no
 * allocation or free between them, so the allocators hold what they held. */
static bool same_heap(const struct pt *a, const struct pt *b)
{
	return isfinite(a->heap_allocs) && a->heap_allocs == b->heap_allocs &&
	       a->heap_frees == b->heap_frees && a->heap_procs == b->heap_procs &&
	       a->heap_live == b->heap_live;
}

/*
 * The allocators' answer for sample I (heap_held_bytes): its own, else that
 * of the nearest sample around it with the same heap counts (same_heap: no
 * allocator call between them, the test the recorder applies to an answer
 * it reads).  The answer comes when the process gets to it, so on a loaded
 * machine a sample can come before it.  NAN when none has one.  (P is the
 * samples kept around I: summary_acc.c keeps 32 or more on either side.)
 */
double tm_sum_held_answer(const struct pt *p, size_t n, size_t i)
{
	for (size_t d = 0; d < n; d++) {
		bool any = false;
		if (i >= d && same_heap(&p[i - d], &p[i])) {
			any = true;
			if (isfinite(p[i - d].heap_held))
				return p[i - d].heap_held;
		}
		if (d && i + d < n && same_heap(&p[i + d], &p[i])) {
			any = true;
			if (isfinite(p[i + d].heap_held))
				return p[i + d].heap_held;
		}
		if (!any)
			break;
	}
	return n && i < n ? p[i].heap_held : NAN;
}

/* Splits the anon of sample I into live heap, held by the allocator (its
 * own figure, capped at anon - live) and other anon (the rest); never below
 * 0.  Live above anon (blocks allocated, never touched) leaves 0 for both.
 * When the heap moved by more than noise while the sample read anon
 * (heap_skew; tm_anon_fell_steeply's 1 MiB and 2 %), the parts are not of
 * one moment: all NAN, and *SKEW says by how much (else NAN).  *OWN: the
 * allocators' own figure before the cap (NAN: none). */
void tm_sum_split_anon(const struct pt *p, size_t n, size_t i, double *live, double *held,
                       double *other, double *skew, double *own)
{
	double answer = tm_sum_held_answer(p, n, i);
	*live = isfinite(p[i].anon) ? p[i].heap_live : NAN;
	*held = *other = *skew = NAN;
	*own = answer > 0 ? answer : isfinite(answer) ? 0 : NAN;
	if (isfinite(p[i].anon) && isfinite(p[i].heap_skew) &&
	    tm_anon_fell_steeply(p[i].anon + p[i].heap_skew, p[i].anon)) {
		*live = NAN;
		*skew = p[i].heap_skew;
		return;
	}
	if (!isfinite(p[i].anon) || !isfinite(p[i].heap_live) || !isfinite(answer))
		return;
	double rest = p[i].anon > p[i].heap_live ? p[i].anon - p[i].heap_live : 0;
	double h = answer > 0 ? answer : 0;
	*held = h < rest ? h : rest;
	*other = rest - *held;
}

bool tm_anon_fell_steeply(double before_bytes, double after_bytes)
{
	return isfinite(before_bytes) && isfinite(after_bytes) &&
	       before_bytes - after_bytes >= 1048576.0 && after_bytes < 0.98 * before_bytes;
}

/*
 * The sample of "held after the work": the last one while the target was
 * alive, unless it is inside the exit of the target's last processes: when
 * the next sample finds no process and anon fell steeply into it, the
 * kernel was tearing the exiting memory down, and the sample before holds
 * what the work held (up to 3 samples back while anon kept falling so, for
 * an exit longer than an interval).  A sample in which a process was
 * mid-exit has no heap figures: the one before it is taken (up to 3 back).
 * n when there is none.  (P is the
 * window's last samples, as summary_acc.c keeps them.)
 */
/* A process mid-exit withholds its sample's heap figures (heap/heapshm.c):
 * the last of up to 3 samples before I that has them, alive, when I has
 * none; else I. */
static size_t before_exiting(const struct pt *p, size_t i)
{
	if (isfinite(p[i].heap_live))
		return i;
	for (size_t j = i; j > 0 && i - j < 3; j--) {
		const struct pt *q = &p[j - 1];
		if (!tm_sum_alive(q) || !isfinite(q->anon))
			break;
		if (isfinite(q->heap_live))
			return j - 1;
	}
	return i;
}

size_t tm_sum_held_index(const struct pt *p, size_t n)
{
	size_t i = n;
	while (i > 0 && (!tm_sum_alive(&p[i - 1]) || !isfinite(p[i - 1].anon)))
		i--;
	if (i-- == 0)
		return n;
	i = before_exiting(p, i);
	if (i + 1 >= n || tm_sum_alive(&p[i + 1]))
		return i; /* the run ended with the target alive: no exit seen */
	for (int back = 0; back < 3 && i > 0 && tm_sum_alive(&p[i - 1]) &&
	                   tm_anon_fell_steeply(p[i - 1].anon, p[i].anon);
	     back++)
		i--;
	return i;
}

/* Progress over the window [FROM, TO]: first, last, rate, and the slopes of
 * anon and CPU on progress (from PA and PC, the values at each point's
 * time; NAN slopes when NO_FIT: points in a rolled-up stretch). */
static void progress_figures(const struct progs *pr, const double *pa, const double *pc,
                             int64_t from, int64_t to, bool no_fit, struct tm_summary *s)
{
	double *x = malloc((pr->n ? pr->n : 1) * sizeof(double));
	double *ya = malloc((pr->n ? pr->n : 1) * sizeof(double));
	double *yc = malloc((pr->n ? pr->n : 1) * sizeof(double));
	int64_t t_first = 0, t_last = 0;
	size_t k = 0;

	if (!x || !ya || !yc)
		goto out;
	for (size_t i = 0; i < pr->n; i++) {
		if (pr->p[i].t < from || pr->p[i].t > to)
			continue;
		if (!k) {
			s->progress_first = pr->p[i].v;
			t_first = pr->p[i].t;
		}
		s->progress_last = pr->p[i].v;
		t_last = pr->p[i].t;
		x[k] = pr->p[i].v;
		ya[k] = pa[i];
		yc[k] = pc[i];
		k++;
	}
	int64_t *times = malloc((k ? k : 1) * sizeof(*times));
	struct tm_arrivals arr = {0};
	size_t j = 0;
	for (size_t i = 0; times && i < pr->n; i++)
		if (pr->p[i].t >= from && pr->p[i].t <= to)
			times[j++] = pr->p[i].t;
	if (times)
		tm_progress_arrivals(times, k, &arr);
	s->progress_bunched = times && k >= 2 && !arr.supported;
	free(times);
	s->progress_points = (double)k;
	s->progress_points_bunched = (double)arr.largest;
	s->progress_instants = (double)arr.instants;
	if (s->progress_bunched)
		k = 0; /* no rate, no slopes: the times are the buffer's, not the work's */
	if (k >= 2 && t_last > t_first)
		s->progress_rate_per_min =
		    (s->progress_last - s->progress_first) / ((double)(t_last - t_first) / 60e6);
	if (no_fit || tm_linreg(x, ya, k, &s->anon_bytes_per_unit, &s->anon_per_unit_r2)) {
		s->anon_bytes_per_unit = NAN;
		s->anon_per_unit_r2 = NAN;
	}
	if (no_fit || tm_linreg(x, yc, k, &s->cpu_usec_per_unit, &s->cpu_per_unit_r2)) {
		s->cpu_usec_per_unit = NAN;
		s->cpu_per_unit_r2 = NAN;
	}
out:
	free(x);
	free(ya);
	free(yc);
}

const char *tm_summary_held_kind(const struct tm_summary *s)
{
	if (!isfinite(s->anon_allocator_held_end_bytes))
		return NULL;
	if (s->anon_allocator_held_end_own_bytes > s->anon_allocator_held_end_bytes)
		return "capped";
	return s->anon_allocator_held_bound ? "upper bound" : "exact";
}

bool tm_summary_approximate(const struct tm_summary *s)
{
	return s->approx.rollup_samples > 0 || s->approx.median_file_rel_error > 0;
}

/* Where the run's data is: raw samples from FIRST_RAW (-1: none), and the
 * seqs its buckets cover. */
struct sources {
	int64_t first_raw, first_raw_mono, first_raw_wall;
	int64_t min_first, min_last, hour_first, hour_last;
	int64_t through; /* the last seq summarised from buckets */
	bool long_run;   /* raw samples before FIRST_RAW kept, but read from hour buckets */
};

struct feed {
	struct acc *a;
	struct sources *src;
	int64_t below; /* buckets starting at or past this seq are left to a finer source */
};

static int feed_bucket(void *ctx, const struct tm_rollup *r)
{
	struct feed *f = ctx;

	if (r->first_seq <= f->src->through || r->first_seq >= f->below)
		return 0;
	tm_acc_bucket(f->a, r);
	f->src->through = r->last_seq;
	return 0;
}

static int feed_sample(void *ctx, const struct tm_sample *s)
{
	tm_acc_sample(ctx, s);
	return 0;
}

static int first_times(void *ctx, const struct tm_sample *s)
{
	struct sources *src = ctx;
	src->first_raw_mono = s->t_mono_usec;
	src->first_raw_wall = s->t_wall_usec;
	return 1;
}

/* A run with more raw samples than this is summarised from its hour
 * buckets up to the last LONG_RUN_TAIL samples or so (the start of the hour
 * bucket that holds the sample that far back), and from its raw samples
 * after, so that a report's cost does not grow with the run's length
 * (issue 23): peaks, counts, totals and duration stay exact, and what a
 * rollup cannot give exactly is labelled, as for a pruned run. */
#define LONG_RUN_SAMPLES 100000
#define LONG_RUN_TAIL    3600

/* For a long run, where its raw samples are read from (a later seq than
 * its first raw sample), when hour buckets cover everything before. */
static int long_run_cut(struct tm_store *st, int64_t run_id, struct sources *src)
{
	int64_t last, cut, min_from = src->min_first < 0 ? INT64_MAX : src->min_first;

	if (src->first_raw < 0 || src->hour_first < 0 || src->hour_first > src->first_raw ||
	    src->hour_first > min_from || tm_store_last_seq(st, run_id, &last))
		return 0;
	if (last - src->first_raw + 1 <= LONG_RUN_SAMPLES)
		return 0;
	if (tm_store_rollup_start_before(st, run_id, TM_ROLLUP_HOUR, last - LONG_RUN_TAIL, &cut))
		return -1;
	if (cut <= src->first_raw || cut > src->hour_last + 1)
		return 0;
	src->first_raw = cut;
	src->min_first = -1; /* hour buckets up to the cut, none of the minutes */
	src->long_run = true;
	return 0;
}

static int find_sources(struct tm_store *st, int64_t run_id, bool whole, struct sources *src)
{
	memset(src, 0, sizeof(*src));
	src->through = -1;
	if (tm_store_first_seq(st, run_id, &src->first_raw) ||
	    tm_store_rollup_span(st, run_id, TM_ROLLUP_MINUTE, &src->min_first, &src->min_last) ||
	    tm_store_rollup_span(st, run_id, TM_ROLLUP_HOUR, &src->hour_first, &src->hour_last))
		return -1;
	if (whole && long_run_cut(st, run_id, src))
		return -1;
	if (src->first_raw > 0 &&
	    tm_store_each_sample(st, run_id, src->first_raw, src->first_raw, first_times, src) < 0)
		return -1;
	return 0;
}

/* Hour buckets where no minute bucket is left, minute buckets where no raw
 * sample is, then the raw samples. */
static int feed_all(struct tm_store *st, int64_t run_id, struct sources *src, struct acc *a)
{
	int64_t raw_from = src->first_raw < 0 ? INT64_MAX : src->first_raw;
	int64_t min_from = src->min_first < 0 ? INT64_MAX : src->min_first;
	struct feed f = {a, src, min_from < raw_from ? min_from : raw_from};

	if (src->first_raw != 0) {
		if (tm_store_each_rollup(st, run_id, TM_ROLLUP_HOUR, 0, 0, feed_bucket, &f))
			return -1;
		f.below = raw_from;
		if (src->min_first >= 0 && /* none, or a long run's: not read */
		    tm_store_each_rollup(st, run_id, TM_ROLLUP_MINUTE, 0, 0, feed_bucket, &f))
			return -1;
	}
	if (src->first_raw < 0)
		return 0;
	int64_t from = src->through + 1 > src->first_raw ? src->through + 1 : src->first_raw;
	return tm_store_each_sample(st, run_id, from, -1, feed_sample, a);
}

/* The window needs raw samples: refuse one that starts where they were pruned. */
static int check_window(const struct tm_window *w, const struct sources *src, int64_t from,
                        int64_t run_id)
{
	if (!w || w->kind == TM_WIN_ALL || src->first_raw == 0 ||
	    (src->first_raw > 0 && from >= src->first_raw_mono))
		return 0;
	return tm_error("run %lld: its raw samples %s were pruned (its rollups stay); a window "
	                "needs raw samples: report the whole run, or a window after them",
	                (long long)run_id, src->first_raw < 0 ? "" : "before the window's start");
}

struct loaded {
	struct tm_run_info ri;
	struct progs pr;
	struct marks mk;
	int64_t from, to;
};

static int load(struct tm_store *st, int64_t run_id, const struct tm_window *w, struct loaded *l)
{
	int rc = tm_store_run_get(st, run_id, &l->ri);

	if (rc)
		return rc > 0 ? tm_error("no run %lld in the store", (long long)run_id) : -1;
	rc = tm_store_each_progress(st, run_id, collect_progress, &l->pr);
	if (!rc)
		rc = tm_store_each_mark(st, run_id, collect_mark, &l->mk);
	if (!rc)
		rc = resolve_window(w, l->ri.started_mono_usec, &l->pr, &l->mk, &l->from, &l->to);
	return rc;
}

/* The events end_rules needs: whether tidemark stopped the recording while
 * the target ran, and when --until-progress's target was reached. */
struct end_events {
	bool stopped;
	int64_t progress_target_mono;
};

static int end_event(void *ctx, const struct tm_event *ev)
{
	struct end_events *e = ctx;

	if (!strcmp(ev->kind, "timeout") || !strcmp(ev->kind, "interrupted") ||
	    !strcmp(ev->kind, "invalid"))
		e->stopped = true;
	else if (!strcmp(ev->kind, "progress_target") && e->progress_target_mono < 0)
		e->progress_target_mono = ev->t_mono_usec;
	return 0;
}

/*
 * "Held after the work" and what is measured with it need an after, with
 * the program alive to be measured (report/run/endrule.h).  For a window that
 * runs to the run's end, those figures are NAN and S says why, or S says
 * how they were measured.  0 or -1 (a store error).
 */
static int end_rules(struct tm_store *st, const struct loaded *l, const struct tm_window *w,
                     struct tm_summary *s)
{
	const struct tm_run_info *ri = &l->ri;
	struct end_events ev = {false, -1};
	struct tm_end_facts f = {TM_OUTCOME_LIVE};
	int64_t mark = mark_time(&l->mk, "end");

	if (w && w->kind != TM_WIN_ALL && w->has_b)
		return 0;
	if (ri->outcome && tm_outcome_parse(ri->outcome, &f.outcome))
		return 0; /* an outcome this build does not know: the figures as read */
	if (tm_store_each_event(st, ri->id, end_event, &ev))
		return -1;
	f.ended = ri->ended_wall_usec != 0;
	f.command = ri->target && !strcmp(ri->target, "command");
	f.stopped = ev.stopped;
	f.work_end_mono_usec =
	    mark >= 0 && (ev.progress_target_mono < 0 || mark < ev.progress_target_mono)
	        ? mark
	        : ev.progress_target_mono;
	f.held_mono_usec = s->held_sample_mono_usec;
	s->work_end_mono_usec = f.work_end_mono_usec;
	s->end_na = tm_end_decide(&f, &s->end_kind);
	if (s->end_na == TM_END_MEASURED)
		return 0;
	s->heap_live_last_seen_bytes = s->anon_heap_live_end_bytes;
	s->held_anon_bytes = s->heap_live_end_bytes = s->gc_heap_live_at_held_bytes = NAN;
	s->anon_heap_live_end_bytes = s->anon_allocator_held_end_bytes = NAN;
	s->anon_other_end_bytes = s->anon_split_end_skew_bytes = NAN;
	s->anon_allocator_held_end_own_bytes = NAN;
	tm_rt_report_withhold(s);
	return 0;
}

/* Whether the run's allocator gives what it holds as an upper bound of the
 * resident: jemalloc's stats.resident, mimalloc's committed bytes. */
static bool held_is_bound(const struct tm_run_info *ri)
{
	return ri->allocator &&
	       (strstr(ri->allocator, "jemalloc") || strstr(ri->allocator, "mimalloc"));
}

/* The throttle stream over the window, with the run's progress points. */
static struct tm_throttle_stream *throttle_stream(const struct loaded *l)
{
	int64_t *mono = malloc((l->pr.n ? l->pr.n : 1) * sizeof(*mono));
	double *v = malloc((l->pr.n ? l->pr.n : 1) * sizeof(*v));
	struct tm_throttle_stream *ts = NULL;

	if (mono && v) {
		for (size_t i = 0; i < l->pr.n; i++) {
			mono[i] = l->pr.p[i].t;
			v[i] = l->pr.p[i].v;
		}
		ts = tm_throttle_stream_new(l->from, l->to == INT64_MAX ? -1 : l->to, mono, v,
		                            l->pr.n);
	}
	free(mono);
	free(v);
	return ts;
}

int tm_summarize_throttle(struct tm_store *st, int64_t run_id, const struct tm_window *w,
                          struct tm_summary *out, struct tm_throttle *th)
{
	struct loaded l = {0};
	struct sources src = {0};
	struct acc *a = calloc(1, sizeof(*a));
	int rc;

	memset(out, 0, sizeof(*out));
	init_nan(out);
	out->run_id = run_id;
	out->held_sample_mono_usec = out->work_end_mono_usec = -1;
	if (!a)
		return tm_error("out of memory");
	rc = load(st, run_id, w, &l);
	if (!rc)
		rc = find_sources(st, run_id, !w || w->kind == TM_WIN_ALL, &src);
	if (!rc)
		rc = check_window(w, &src, l.from, run_id);
	if (!rc && tm_acc_init(a, l.from, l.to, l.ri.interval_usec, &l.pr))
		rc = tm_error("out of memory");
	if (!rc)
		a->ap.long_run = src.long_run; /* says why buckets are read */
	if (!rc && th && !(a->th = throttle_stream(&l)))
		rc = tm_error("out of memory");
	if (!rc)
		rc = feed_all(st, run_id, &src, a);
	if (!rc)
		rc = tm_acc_finish(a, out, &l.ri);
	if (!rc) {
		out->approx.raw_from_wall_usec = src.first_raw_wall;
		out->approx.long_run = src.long_run && out->approx.rollup_samples > 0;
		progress_figures(&l.pr, a->pa, a->pc, out->window_start_mono_usec,
		                 out->window_end_mono_usec, out->approx.progress_in_rollups, out);
	}
	if (!rc)
		rc = end_rules(st, &l, w, out);
	if (!rc)
		out->anon_allocator_held_bound = held_is_bound(&l.ri);
	if (!rc && (!w || w->kind == TM_WIN_ALL))
		rc = tm_summary_units(st, run_id, out);
	if (a->th) {
		tm_throttle_stream_finish(a->th, th);
		if (rc)
			th->known = false;
	}
	tm_acc_release(a);
	free(a);
	tm_run_info_release(&l.ri);
	free(l.pr.p);
	free(l.mk.m);
	return rc;
}

int tm_summarize(struct tm_store *st, int64_t run_id, const struct tm_window *w,
                 struct tm_summary *out)
{
	return tm_summarize_throttle(st, run_id, w, out, NULL);
}
