/*
 * Figures of one run, from its stored series.  The window is turned into
 * monotonic times first; then one pass over the samples collects what each
 * figure needs.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "report/stats.h"
#include "base/bunch.h"
#include "report/summary.h"
#include "store/store.h"
#include "base/banned.h"

/* One sample, reduced to what the figures need. */
struct pt {
	int64_t t;
	double anon, file, current, cg_peak, rss, heap_live, heap_held, procs;
	double heap_alloc, heap_allocs, heap_frees, heap_procs, heap_peak;
	double cpu, io_r, io_w, psi_ms, psi_mf, psi_is, psi_if;
	double ev_high, ev_max, ev_oom, ev_oom_kill, lim_max, lim_high;
	double jvm_used, jvm_cap, jvm_old, jvm_meta, jvm_gcs, jvm_gc_usec; /* hsperfdata */
	double gc_live, gc_cycles;                                         /* --runtime go|ghc */
	int64_t late;
};

struct series {
	struct pt *p;
	size_t n, cap;
	int64_t interval;
};

struct prog {
	int64_t t;
	double v;
};

struct progs {
	struct prog *p;
	size_t n, cap;
};

struct markv {
	int64_t t;
	char text[64];
};

struct marks {
	struct markv *m;
	size_t n, cap;
};

static double get(const struct tm_sample *s, enum tm_metric m)
{
	return tm_sample_has(s, m) ? (double)s->v[m] : NAN;
}

/* The first present of two metrics: a cgroup figure, else the tree's. */
static double get2(const struct tm_sample *s, enum tm_metric a, enum tm_metric b)
{
	return tm_sample_has(s, a) ? (double)s->v[a] : get(s, b);
}

static double sum2(const struct tm_sample *s, enum tm_metric a, enum tm_metric b)
{
	return tm_sample_has(s, a) && tm_sample_has(s, b) ? (double)(s->v[a] + s->v[b]) : NAN;
}

static int collect_sample(void *ctx, const struct tm_sample *s)
{
	struct series *se = ctx;
	struct pt *p;

	if (tm_grow(&se->p, &se->cap, se->n, sizeof(*se->p), 1024))
		return -1;
	p = &se->p[se->n++];
	p->t = s->t_mono_usec;
	p->late = s->late_usec;
	p->anon = get2(s, TM_M_CG_ANON_BYTES, TM_M_PROC_RSS_ANON_BYTES);
	p->file = get(s, TM_M_CG_FILE_BYTES);
	p->current = get(s, TM_M_CG_CURRENT_BYTES);
	p->cg_peak = get(s, TM_M_CG_PEAK_BYTES);
	p->rss = get(s, TM_M_PROC_RSS_BYTES);
	p->heap_live = get(s, TM_M_HEAP_LIVE_BYTES);
	p->heap_held = get(s, TM_M_HEAP_HELD_BYTES);
	p->heap_alloc = get(s, TM_M_HEAP_ALLOC_BYTES);
	p->heap_allocs = get(s, TM_M_HEAP_ALLOCS);
	p->heap_frees = get(s, TM_M_HEAP_FREES);
	p->heap_procs = get(s, TM_M_HEAP_PROCS);
	p->heap_peak = get(s, TM_M_HEAP_PEAK_BYTES);
	p->procs = get(s, TM_M_PROC_COUNT);
	p->cpu = tm_sample_has(s, TM_M_CG_CPU_USAGE_USEC)
	             ? get(s, TM_M_CG_CPU_USAGE_USEC)
	             : sum2(s, TM_M_PROC_UTIME_USEC, TM_M_PROC_STIME_USEC);
	p->io_r = get2(s, TM_M_CG_IO_READ_BYTES, TM_M_PROC_READ_BYTES);
	p->io_w = get2(s, TM_M_CG_IO_WRITE_BYTES, TM_M_PROC_WRITE_BYTES);
	p->psi_ms = get(s, TM_M_CG_PSI_MEM_SOME_USEC);
	p->psi_mf = get(s, TM_M_CG_PSI_MEM_FULL_USEC);
	p->psi_is = get(s, TM_M_CG_PSI_IO_SOME_USEC);
	p->psi_if = get(s, TM_M_CG_PSI_IO_FULL_USEC);
	p->ev_high = get(s, TM_M_CG_EVENTS_HIGH);
	p->ev_max = get(s, TM_M_CG_EVENTS_MAX);
	p->ev_oom = get(s, TM_M_CG_EVENTS_OOM);
	p->ev_oom_kill = get(s, TM_M_CG_EVENTS_OOM_KILL);
	p->lim_max = get(s, TM_M_CG_MAX_BYTES);
	p->lim_high = get(s, TM_M_CG_HIGH_BYTES);
	p->jvm_used = get(s, TM_M_JVM_HEAP_USED_BYTES);
	p->jvm_cap = get(s, TM_M_JVM_HEAP_COMMITTED_BYTES);
	p->jvm_old = get(s, TM_M_JVM_OLD_USED_BYTES);
	p->jvm_meta = get(s, TM_M_JVM_METASPACE_USED_BYTES);
	p->jvm_gcs = sum2(s, TM_M_JVM_YOUNG_GCS, TM_M_JVM_FULL_GCS);
	p->jvm_gc_usec = sum2(s, TM_M_JVM_YOUNG_GC_USEC, TM_M_JVM_FULL_GC_USEC);
	p->gc_live = get(s, TM_M_GC_HEAP_LIVE_BYTES);
	p->gc_cycles = get(s, TM_M_GC_CYCLES);
	return 0;
}

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

static void init_nan(struct tm_summary *s)
{
	double *fields[] = {
	    &s->duration_usec,
	    &s->peak_anon_bytes,
	    &s->final_anon_bytes,
	    &s->held_anon_bytes,
	    &s->peak_current_bytes,
	    &s->cg_peak_bytes,
	    &s->median_file_bytes,
	    &s->peak_file_bytes,
	    &s->file_at_peak_bytes,
	    &s->peak_rss_bytes,
	    &s->heap_live_peak_bytes,
	    &s->heap_live_end_bytes,
	    &s->anon_heap_live_end_bytes,
	    &s->anon_allocator_held_end_bytes,
	    &s->anon_other_end_bytes,
	    &s->anon_heap_live_at_peak_bytes,
	    &s->anon_allocator_held_at_peak_bytes,
	    &s->anon_other_at_peak_bytes,
	    &s->heap_alloc_bytes,
	    &s->heap_allocs,
	    &s->heap_alloc_bytes_per_sec,
	    &s->heap_peak_bytes,
	    &s->limit_max_bytes,
	    &s->limit_high_bytes,
	    &s->high_events,
	    &s->max_events,
	    &s->oom_events,
	    &s->oom_kills,
	    &s->cpu_usec,
	    &s->io_read_bytes,
	    &s->io_write_bytes,
	    &s->psi_mem_some_usec,
	    &s->psi_mem_full_usec,
	    &s->psi_io_some_usec,
	    &s->psi_io_full_usec,
	    &s->progress_first,
	    &s->progress_last,
	    &s->progress_rate_per_min,
	    &s->anon_bytes_per_unit,
	    &s->anon_per_unit_r2,
	    &s->cpu_usec_per_unit,
	    &s->cpu_per_unit_r2,
	    &s->units,
	    &s->units_per_min,
	    &s->wall_usec_per_unit,
	    &s->jvm_heap_used_peak_bytes,
	    &s->jvm_heap_used_end_bytes,
	    &s->jvm_heap_committed_end_bytes,
	    &s->jvm_old_used_end_bytes,
	    &s->jvm_metaspace_used_end_bytes,
	    &s->jvm_old_after_gc_end_bytes,
	    &s->jvm_gcs,
	    &s->jvm_gc_usec,
	    &s->anon_minus_jvm_heap_used_end_bytes,
	    &s->gc_heap_live_peak_bytes,
	    &s->gc_heap_live_end_bytes,
	    &s->gc_cycles,
	};
	for (size_t i = 0; i < TM_ARRAY_SIZE(fields); i++)
		*fields[i] = NAN;
	tm_jvm_split_compute(NAN, NAN, NAN, NAN, &s->jvm_split); /* no JVM */
}

static void max_into(double *acc, double v)
{
	if (isfinite(v) && (!isfinite(*acc) || v > *acc))
		*acc = v;
}

/* last - first of a counter over the window; NAN when never present. */
static double counter_delta(const struct pt *p, size_t n, size_t off)
{
	double first = NAN, last = NAN;
	for (size_t i = 0; i < n; i++) {
		double v;
		memcpy(&v, (const char *)&p[i] + off, sizeof(v));
		if (!isfinite(v))
			continue;
		if (!isfinite(first))
			first = v;
		last = v;
	}
	return isfinite(first) ? last - first : NAN;
}

#define DELTA(p, n, field) counter_delta(p, n, offsetof(struct pt, field))

/* The rises of a sum of per-process counters: a process that exits takes
 * its share out of the sum, which is not a negative rate. */
static double counter_rises(const struct pt *p, size_t n, size_t off)
{
	double prev = NAN, total = NAN;
	for (size_t i = 0; i < n; i++) {
		double v;
		memcpy(&v, (const char *)&p[i] + off, sizeof(v));
		if (!isfinite(v))
			continue;
		if (!isfinite(total))
			total = 0;
		else if (v > prev)
			total += v - prev;
		prev = v;
	}
	return total;
}

#define RISES(p, n, field) counter_rises(p, n, offsetof(struct pt, field))

static bool alive(const struct pt *p)
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
 * machine a sample can come before it.  NAN when none has one.
 */
static double held_answer(const struct pt *p, size_t n, size_t i)
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
 * 0.  Live above anon (blocks allocated, never touched) leaves 0 for both. */
static void split_anon(const struct pt *p, size_t n, size_t i, double *live, double *held,
                       double *other)
{
	double answer = held_answer(p, n, i);
	*live = isfinite(p[i].anon) ? p[i].heap_live : NAN;
	*held = *other = NAN;
	if (!isfinite(p[i].anon) || !isfinite(p[i].heap_live) || !isfinite(answer))
		return;
	double rest = p[i].anon > p[i].heap_live ? p[i].anon - p[i].heap_live : 0;
	double h = answer > 0 ? answer : 0;
	*held = h < rest ? h : rest;
	*other = rest - *held;
}

/* anon fell from PREV to P by 1 MiB and 2 % at least: more than a live
 * program's noise (the kernel frees an exiting process's memory over more
 * than one sample when it is large or the machine is loaded) */
static bool steep_fall(const struct pt *prev, const struct pt *p)
{
	return isfinite(prev->anon) && isfinite(p->anon) && prev->anon - p->anon >= 1048576.0 &&
	       p->anon < 0.98 * prev->anon;
}

/*
 * The sample of "held after the work": the last one while the target was
 * alive, unless it is inside the exit of the target's last processes: when
 * the next sample finds no process and anon fell steeply into it, the
 * kernel was tearing the exiting memory down, and the sample before holds
 * what the work held (up to 3 samples back while anon kept falling so, for
 * an exit longer than an interval).  n when there is none.
 */
static size_t held_index(const struct pt *p, size_t n)
{
	size_t i = n;
	while (i > 0 && (!alive(&p[i - 1]) || !isfinite(p[i - 1].anon)))
		i--;
	if (i-- == 0)
		return n;
	if (i + 1 >= n || alive(&p[i + 1]))
		return i; /* the run ended with the target alive: no exit seen */
	for (int back = 0; back < 3 && i > 0 && alive(&p[i - 1]) && steep_fall(&p[i - 1], &p[i]);
	     back++)
		i--;
	return i;
}

static void memory_figures(const struct pt *p, size_t n, struct tm_summary *s)
{
	double *files = malloc((n ? n : 1) * sizeof(*files));
	size_t peak_i = 0;

	for (size_t i = 0; i < n; i++) {
		if (isfinite(p[i].anon) &&
		    (!isfinite(s->peak_anon_bytes) || p[i].anon > s->peak_anon_bytes)) {
			s->peak_anon_bytes = p[i].anon;
			peak_i = i;
		}
		max_into(&s->peak_current_bytes, p[i].current);
		max_into(&s->cg_peak_bytes, p[i].cg_peak);
		max_into(&s->peak_file_bytes, p[i].file);
		max_into(&s->peak_rss_bytes, p[i].rss);
		max_into(&s->heap_live_peak_bytes, p[i].heap_live);
		if (files)
			files[i] = p[i].file;
		if (isfinite(p[i].lim_max))
			s->limit_max_bytes = p[i].lim_max;
		if (isfinite(p[i].lim_high))
			s->limit_high_bytes = p[i].lim_high;
	}
	if (files)
		s->median_file_bytes = tm_median(files, n);
	free(files);
	if (n) {
		s->final_anon_bytes = p[n - 1].anon;
		s->file_at_peak_bytes = p[peak_i].file;
		split_anon(p, n, peak_i, &s->anon_heap_live_at_peak_bytes,
		           &s->anon_allocator_held_at_peak_bytes, &s->anon_other_at_peak_bytes);
	}
	/* live at the end: the final counters of a tree whose processes all
	 * exited are in the last sample (read from the regions they kept) */
	if (n && !alive(&p[n - 1]) && isfinite(p[n - 1].heap_live))
		s->heap_live_end_bytes = p[n - 1].heap_live;
	/* held: the last sample while the target was still alive, not in its exit */
	size_t i = held_index(p, n);
	if (i < n) {
		s->held_anon_bytes = p[i].anon;
		if (!isfinite(s->heap_live_end_bytes))
			s->heap_live_end_bytes = p[i].heap_live;
		split_anon(p, n, i, &s->anon_heap_live_end_bytes, &s->anon_allocator_held_end_bytes,
		           &s->anon_other_end_bytes);
	}
}

/* Sample I's anon as Java heap + the shim's malloc + other (jvmsplit.h),
 * every figure from that one sample (the allocators' answer from a neighbour
 * with the same heap counts, as held_answer). */
static void jvm_split(const struct pt *p, size_t n, size_t i, struct tm_summary *s)
{
	tm_jvm_split_compute(p[i].anon, p[i].jvm_used, p[i].heap_live, held_answer(p, n, i),
	                     &s->jvm_split);
	if (isfinite(p[i].anon) && p[i].anon >= p[i].jvm_used)
		s->anon_minus_jvm_heap_used_end_bytes = p[i].anon - p[i].jvm_used;
}

/* The JVMs' heap (hsperfdata): the peak of used, and the figures of the last
 * sample that has them while the target lived, at or before the "held"
 * sample (held_index: not one inside the target's exit). */
static void jvm_figures(const struct pt *p, size_t n, struct tm_summary *s)
{
	size_t h = held_index(p, n);
	for (size_t i = 0; i < n; i++)
		max_into(&s->jvm_heap_used_peak_bytes, p[i].jvm_used);
	for (size_t i = h < n ? h + 1 : n; i-- > 0;) {
		if (!alive(&p[i]) || !isfinite(p[i].jvm_used))
			continue;
		s->jvm_heap_used_end_bytes = p[i].jvm_used;
		s->jvm_heap_committed_end_bytes = p[i].jvm_cap;
		s->jvm_old_used_end_bytes = p[i].jvm_old;
		s->jvm_metaspace_used_end_bytes = p[i].jvm_meta;
		jvm_split(p, n, i, s);
		break;
	}
	for (size_t i = 0; i < n; i++) {
		max_into(&s->gc_heap_live_peak_bytes, p[i].gc_live);
		if (isfinite(p[i].gc_live))
			s->gc_heap_live_end_bytes = p[i].gc_live;
	}
	s->gc_cycles = RISES(p, n, gc_cycles);
	s->jvm_gcs = RISES(p, n, jvm_gcs);
	s->jvm_gc_usec = RISES(p, n, jvm_gc_usec);
}

/* The JVMs' old gen after their latest GC as of the window's end (the last
 * sample with the JVMs' heap while the target lived): the old gen used in
 * the first sample that saw the GC time rise (HotSpot adds a collection's
 * time when it ends; its count rises when it starts, so a sample taken
 * during one sees the count but the old gen of before), the first time
 * seen rising from 0; forgotten when the time falls (a JVM left).  All
 * samples before the end count: the latest GC may come before the window. */
static void old_after_gc(const struct pt *p, size_t a, size_t b, struct tm_summary *s)
{
	double prev = NAN, cur = NAN;
	size_t end = b;

	while (end > a && !(alive(&p[end - 1]) && isfinite(p[end - 1].jvm_used)))
		end--;
	for (size_t i = 0; end > a && i < end; i++) {
		double g = p[i].jvm_gc_usec;
		if (!isfinite(g))
			continue;
		if (isfinite(prev) && g < prev)
			cur = NAN;
		if (isfinite(prev) ? g > prev : g > 0)
			cur = p[i].jvm_old;
		prev = g;
	}
	if (end > a)
		s->jvm_old_after_gc_end_bytes = cur;
}

/*
 * The last finite anon and CPU values at or before a time, for progress
 * points taken in time order: the cursor only moves forward, so a run's
 * points cost one pass over its samples, not one pass each.  A point
 * earlier than the last one starts the walk again.
 */
struct at_cursor {
	size_t i;
	int64_t t;
	double anon, cpu;
};

static void value_at(const struct pt *p, size_t n, int64_t t, struct at_cursor *c)
{
	if (t < c->t)
		*c = (struct at_cursor){0, INT64_MIN, NAN, NAN};
	c->t = t;
	for (; c->i < n && p[c->i].t <= t; c->i++) {
		if (isfinite(p[c->i].anon))
			c->anon = p[c->i].anon;
		if (isfinite(p[c->i].cpu))
			c->cpu = p[c->i].cpu;
	}
}

static void progress_figures(const struct pt *p, size_t n, const struct progs *pr, int64_t from,
                             int64_t to, struct tm_summary *s)
{
	double *x = malloc((pr->n ? pr->n : 1) * sizeof(double));
	double *ya = malloc((pr->n ? pr->n : 1) * sizeof(double));
	double *yc = malloc((pr->n ? pr->n : 1) * sizeof(double));
	int64_t t_first = 0, t_last = 0;
	struct at_cursor at = {0, INT64_MIN, NAN, NAN};
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
		value_at(p, n, pr->p[i].t, &at);
		ya[k] = at.anon;
		yc[k] = at.cpu;
		k++;
	}
	int64_t *times = malloc((k ? k : 1) * sizeof(*times));
	size_t bunch = 0, j = 0;
	for (size_t i = 0; times && i < pr->n; i++)
		if (pr->p[i].t >= from && pr->p[i].t <= to)
			times[j++] = pr->p[i].t;
	s->progress_bunched = times && tm_progress_bunched(times, k, &bunch);
	free(times);
	s->progress_points = (double)k;
	s->progress_points_bunched = (double)bunch;
	if (s->progress_bunched)
		k = 0; /* no rate, no slopes: the times are the buffer's, not the work's */
	if (k >= 2 && t_last > t_first)
		s->progress_rate_per_min =
		    (s->progress_last - s->progress_first) / ((double)(t_last - t_first) / 60e6);
	if (tm_linreg(x, ya, k, &s->anon_bytes_per_unit, &s->anon_per_unit_r2)) {
		s->anon_bytes_per_unit = NAN;
		s->anon_per_unit_r2 = NAN;
	}
	if (tm_linreg(x, yc, k, &s->cpu_usec_per_unit, &s->cpu_per_unit_r2)) {
		s->cpu_usec_per_unit = NAN;
		s->cpu_per_unit_r2 = NAN;
	}
out:
	free(x);
	free(ya);
	free(yc);
}

static void cost_figures(const struct pt *p, size_t n, struct tm_summary *s)
{
	s->cpu_usec = DELTA(p, n, cpu);
	s->io_read_bytes = DELTA(p, n, io_r);
	s->io_write_bytes = DELTA(p, n, io_w);
	s->psi_mem_some_usec = DELTA(p, n, psi_ms);
	s->psi_mem_full_usec = DELTA(p, n, psi_mf);
	s->psi_io_some_usec = DELTA(p, n, psi_is);
	s->psi_io_full_usec = DELTA(p, n, psi_if);
	s->high_events = DELTA(p, n, ev_high);
	s->max_events = DELTA(p, n, ev_max);
	s->oom_events = DELTA(p, n, ev_oom);
	s->oom_kills = DELTA(p, n, ev_oom_kill);
	s->heap_alloc_bytes = RISES(p, n, heap_alloc);
	s->heap_allocs = RISES(p, n, heap_allocs);
	if (n > 1 && p[n - 1].t > p[0].t)
		s->heap_alloc_bytes_per_sec =
		    s->heap_alloc_bytes / ((double)(p[n - 1].t - p[0].t) / 1e6);
}

/* Counters start from zero in a fresh cgroup, and the heap shim's in a
 * process we launched, so the window's first sample would hide whatever
 * happened before it: count from zero when the window starts at the
 * beginning of the run. */
static void count_from_start(const struct pt *all, size_t nall, const struct pt *p,
                             struct tm_summary *s, const struct tm_run_info *ri)
{
	if (p != all || !nall || strcmp(ri->target ? ri->target : "", "command"))
		return;
	/* the shim's own peak (between samples too) is since the process began:
	 * a window's figure only when the window does */
	for (size_t i = 0; i < (size_t)s->samples && i < nall; i++)
		max_into(&s->heap_peak_bytes, p[i].heap_peak);
	size_t h = 0; /* the first sample that saw the shim */
	while (h < nall && !isfinite(all[h].heap_alloc))
		h++;
	if (h < nall && isfinite(s->heap_alloc_bytes)) {
		s->heap_alloc_bytes += all[h].heap_alloc;
		s->heap_allocs += all[h].heap_allocs;
		if (s->duration_usec > 0)
			s->heap_alloc_bytes_per_sec =
			    s->heap_alloc_bytes / (s->duration_usec / 1e6);
	}
	/* the JVMs' GC counts (hsperfdata) start with the JVMs we launched */
	for (size_t g = 0; g < nall && isfinite(s->jvm_gcs); g++)
		if (isfinite(all[g].jvm_gcs)) {
			s->jvm_gcs += all[g].jvm_gcs;
			s->jvm_gc_usec += isfinite(all[g].jvm_gc_usec) ? all[g].jvm_gc_usec : 0;
			break;
		}
	/* --runtime's GC count starts with the process we launched */
	for (size_t g = 0; g < nall && isfinite(s->gc_cycles); g++)
		if (isfinite(all[g].gc_cycles)) {
			s->gc_cycles += all[g].gc_cycles;
			break;
		}
	if (!ri->cgroup_path)
		return;
	if (isfinite(all[0].ev_oom_kill) && isfinite(s->oom_kills))
		s->oom_kills += all[0].ev_oom_kill;
	if (isfinite(all[0].ev_high) && isfinite(s->high_events))
		s->high_events += all[0].ev_high;
}

int tm_summarize(struct tm_store *st, int64_t run_id, const struct tm_window *w,
                 struct tm_summary *out)
{
	struct series se = {0};
	struct progs pr = {0};
	struct marks mk = {0};
	struct tm_run_info ri;
	int64_t from, to;
	size_t a = 0, b;
	int rc;

	memset(out, 0, sizeof(*out));
	init_nan(out);
	out->run_id = run_id;
	rc = tm_store_run_get(st, run_id, &ri);
	if (rc)
		return rc > 0 ? tm_error("no run %lld in the store", (long long)run_id) : -1;
	rc = tm_store_each_sample(st, run_id, 0, -1, collect_sample, &se);
	if (!rc)
		rc = tm_store_each_progress(st, run_id, collect_progress, &pr);
	if (!rc)
		rc = tm_store_each_mark(st, run_id, collect_mark, &mk);
	if (!rc)
		rc = resolve_window(w, ri.started_mono_usec, &pr, &mk, &from, &to);
	if (rc)
		goto out;
	while (a < se.n && se.p[a].t < from)
		a++;
	for (b = a; b < se.n && se.p[b].t <= to; b++)
		;
	if (a == b) {
		rc = 1;
		goto out;
	}
	out->samples = (int64_t)(b - a);
	for (size_t i = a; i < b; i++)
		out->late_samples += se.p[i].late > ri.interval_usec / 4;
	out->window_start_mono_usec = se.p[a].t;
	out->window_end_mono_usec = se.p[b - 1].t;
	out->duration_usec = (double)(se.p[b - 1].t - se.p[a].t);
	memory_figures(se.p + a, b - a, out);
	jvm_figures(se.p + a, b - a, out);
	old_after_gc(se.p, a, b, out);
	cost_figures(se.p + a, b - a, out);
	count_from_start(se.p, se.n, se.p + a, out, &ri);
	progress_figures(se.p, se.n, &pr, se.p[a].t, se.p[b - 1].t, out);
	if (!w || w->kind == TM_WIN_ALL)
		rc = tm_summary_units(st, run_id, out);
out:
	tm_run_info_release(&ri);
	free(se.p);
	free(pr.p);
	free(mk.m);
	return rc;
}
