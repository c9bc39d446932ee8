/*
 * The summary's accumulator (summary_int.h): a run's samples one at a time,
 * each figure kept as it goes, and the few samples that figures about one
 * sample need (around the anon peak, at the end of the work) kept in a
 * ring, so that a week of samples costs no more memory than a minute.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/run/rtacc.h"
#include "report/run/summary_int.h"
#include "base/banned.h"

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

void tm_sum_point(const struct tm_sample *s, struct pt *p)
{
	p->t = s->t_mono_usec;
	p->wall = s->t_wall_usec;
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
	p->heap_peak_proven = get(s, TM_M_HEAP_PEAK_PROVEN_BYTES);
	p->heap_skew = get(s, TM_M_HEAP_READ_SKEW_BYTES);
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
	p->failcnt = get(s, TM_M_CG_FAILCNT);
	p->lim_max = get(s, TM_M_CG_MAX_BYTES);
	p->lim_high = get(s, TM_M_CG_HIGH_BYTES);
	p->gc_live = get(s, TM_M_GC_HEAP_LIVE_BYTES);
	p->gc_cycles = get(s, TM_M_GC_CYCLES);
	p->heap_exe = get(s, TM_M_HEAP_EXE_PROCS);
	p->thp_collapses = get(s, TM_M_CG_THP_COLLAPSE_ALLOC);
	p->hpage = get(s, TM_M_HOST_HPAGE_PMD_BYTES);
}

int tm_acc_init(struct acc *a, int64_t from, int64_t to, int64_t interval_usec,
                const struct progs *pr)
{
	memset(a, 0, sizeof(*a));
	a->from = from;
	a->to = to;
	a->late_usec = interval_usec / 4;
	a->pr = pr;
	a->anon_so_far = a->cpu_so_far = NAN;
	for (size_t k = 0; k < PT_NF; k++)
		tm_facc_init(&a->f[k]);
	a->heap_allocs_first = NAN;
	a->snap_for = a->last_af = a->peak_i = -1;
	a->peak = NAN;
	a->ap.median_file_low_bytes = a->ap.median_file_high_bytes = NAN;
	tm_sketch_init(&a->files);
	tm_sketch_init(&a->files_lo);
	tm_sketch_init(&a->files_hi);
	a->pa = malloc((pr->n ? pr->n : 1) * sizeof(double));
	a->pc = malloc((pr->n ? pr->n : 1) * sizeof(double));
	if (!a->pa || !a->pc)
		return -1;
	return tm_rt_acc_init(a);
}

void tm_acc_release(struct acc *a)
{
	free(a->pa);
	free(a->pc);
	tm_sketch_release(&a->files);
	tm_sketch_release(&a->files_lo);
	tm_sketch_release(&a->files_hi);
	tm_rt_acc_release(a);
}

/* Places the progress points before time T at the values seen so far
 * (the last finite anon and CPU at or before each point). */
static void place_progress(struct acc *a, int64_t t, bool in_bucket)
{
	while (a->pi < a->pr->n && a->pr->p[a->pi].t < t) {
		a->pa[a->pi] = in_bucket ? NAN : a->anon_so_far;
		a->pc[a->pi] = in_bucket ? NAN : a->cpu_so_far;
		a->pi++;
	}
}

void tm_facc_init(struct facc *f)
{
	*f = (struct facc){NAN, NAN, NAN, NAN};
}

void tm_facc_take(struct facc *f, double v)
{
	if (!isfinite(v))
		return;
	if (!isfinite(f->first)) {
		f->first = f->max = v;
		f->rises = 0;
	} else {
		if (v > f->last)
			f->rises += v - f->last;
		if (v > f->max)
			f->max = v;
	}
	f->last = v;
}

/* The first-sample figures of a window starting at the run's start. */
static void first_values(struct acc *a, const struct pt *p)
{
	if (!a->heap_first_seen && isfinite(p->heap_alloc)) {
		a->heap_first_seen = true;
		a->heap_allocs_first = p->heap_allocs;
	}
}

/* The kept samples around the peak and at the end of the work. */
static void keep_context(struct acc *a, const struct pt *p, int64_t i)
{
	a->ring[i % TAIL] = *p;
	if (isfinite(p->anon) && (!isfinite(a->peak) || p->anon > a->peak)) {
		a->peak = p->anon;
		a->peak_i = i;
		a->peak_pt = *p;
		a->peak_frozen = false;
		a->ap.peak_in_rollups = false;
	}
	if (a->peak_i >= 0 && !a->peak_frozen && i == a->peak_i + PEAK_HALF) {
		memcpy(a->peak_win, a->ring, sizeof(a->ring));
		a->peak_frozen = true;
	}
	if (tm_sum_alive(p) && isfinite(p->anon))
		a->last_af = i;
	if (a->last_af >= 0 && i == a->last_af + 8 && a->snap_for != a->last_af) {
		memcpy(a->snap, a->ring, sizeof(a->ring));
		a->snap_for = a->last_af;
	}
}

void tm_acc_sample(struct acc *a, const struct tm_sample *s)
{
	struct pt p;

	tm_sum_point(s, &p);
	place_progress(a, p.t, false);
	if (isfinite(p.anon))
		a->anon_so_far = p.anon;
	if (isfinite(p.cpu))
		a->cpu_so_far = p.cpu;
	tm_rt_acc_sample(a, s, &p, p.t < a->from || p.t > a->to ? -1 : a->n);
	if (p.t < a->from) {
		a->any_before = true;
		return;
	}
	if (p.t > a->to)
		return;
	if (a->n == 0) {
		a->first_pt = p;
		a->first_t = p.t;
		a->at_start = !a->any_before;
	}
	a->last_t = p.t;
	a->last_pt = p;
	a->late += p.late > a->late_usec;
	for (size_t k = 0; k < PT_NF; k++)
		tm_facc_take(&a->f[k], *pt_field(&p, k));
	first_values(a, &p);
	tm_sketch_add(&a->files, p.file, 1);
	if (a->ap.rollup_samples) {
		tm_sketch_add(&a->files_lo, p.file, 1);
		tm_sketch_add(&a->files_hi, p.file, 1);
	}
	keep_context(a, &p, a->n);
	a->end_in_bucket = false;
	if (a->th)
		tm_throttle_stream_add(a->th, p.t, p.wall, p.ev_high, p.psi_mf);
	a->n++;
}

static struct agg agg1(const struct tm_rollup *r, enum tm_metric m)
{
	const struct tm_rollup_metric *x = &r->m[m];
	if (!tm_rollup_has(r, m))
		return (struct agg){.has = false};
	return (struct agg){true,
	                    (double)x->first,
	                    (double)x->last,
	                    (double)x->min,
	                    (double)x->max,
	                    (double)x->rises,
	                    x->n};
}

static struct agg agg2(const struct tm_rollup *r, enum tm_metric a, enum tm_metric b)
{
	return tm_rollup_has(r, a) ? agg1(r, a) : agg1(r, b);
}

/* A sum of two metrics: first and last exact when both are in every
 * sample; min, max and rises bounds. */
static struct agg aggsum(const struct tm_rollup *r, enum tm_metric a, enum tm_metric b)
{
	struct agg x = agg1(r, a), y = agg1(r, b);
	if (!x.has || !y.has)
		return (struct agg){.has = false};
	return (struct agg){true,          x.first + y.first, x.last + y.last,      x.min + y.min,
	                    x.max + y.max, x.rises + y.rises, x.n < y.n ? x.n : y.n};
}

double tm_acc_src_get(const struct tm_sample *s, struct tm_acc_src src)
{
	return src.b == TM_METRIC_COUNT ? get(s, src.a) : sum2(s, src.a, src.b);
}

struct agg tm_acc_src_agg(const struct tm_rollup *r, struct tm_acc_src src)
{
	return src.b == TM_METRIC_COUNT ? agg1(r, src.a) : aggsum(r, src.a, src.b);
}

/* The index of a point field among the PT_NF doubles. */
#define FK(field) ((offsetof(struct pt, field) - offsetof(struct pt, anon)) / sizeof(double))

/* The point field K of bucket R, as tm_sum_point() takes it from a sample. */
static struct agg bucket_field(const struct tm_rollup *r, size_t k)
{
	static const enum tm_metric one[PT_NF] = {
#define F(field, m) [FK(field)] = m
	    F(file, TM_M_CG_FILE_BYTES),
	    F(current, TM_M_CG_CURRENT_BYTES),
	    F(cg_peak, TM_M_CG_PEAK_BYTES),
	    F(rss, TM_M_PROC_RSS_BYTES),
	    F(heap_live, TM_M_HEAP_LIVE_BYTES),
	    F(heap_held, TM_M_HEAP_HELD_BYTES),
	    F(procs, TM_M_PROC_COUNT),
	    F(heap_alloc, TM_M_HEAP_ALLOC_BYTES),
	    F(heap_allocs, TM_M_HEAP_ALLOCS),
	    F(heap_frees, TM_M_HEAP_FREES),
	    F(heap_procs, TM_M_HEAP_PROCS),
	    F(heap_peak, TM_M_HEAP_PEAK_BYTES),
	    F(heap_peak_proven, TM_M_HEAP_PEAK_PROVEN_BYTES),
	    F(heap_skew, TM_M_HEAP_READ_SKEW_BYTES),
	    F(psi_ms, TM_M_CG_PSI_MEM_SOME_USEC),
	    F(psi_mf, TM_M_CG_PSI_MEM_FULL_USEC),
	    F(psi_is, TM_M_CG_PSI_IO_SOME_USEC),
	    F(psi_if, TM_M_CG_PSI_IO_FULL_USEC),
	    F(ev_high, TM_M_CG_EVENTS_HIGH),
	    F(ev_max, TM_M_CG_EVENTS_MAX),
	    F(ev_oom, TM_M_CG_EVENTS_OOM),
	    F(ev_oom_kill, TM_M_CG_EVENTS_OOM_KILL),
	    F(failcnt, TM_M_CG_FAILCNT),
	    F(lim_max, TM_M_CG_MAX_BYTES),
	    F(lim_high, TM_M_CG_HIGH_BYTES),
	    F(gc_live, TM_M_GC_HEAP_LIVE_BYTES),
	    F(gc_cycles, TM_M_GC_CYCLES),
	    F(heap_exe, TM_M_HEAP_EXE_PROCS),
	    F(thp_collapses, TM_M_CG_THP_COLLAPSE_ALLOC),
	    F(hpage, TM_M_HOST_HPAGE_PMD_BYTES),
#undef F
	};
#define IS(field) (k == FK(field))
	if (IS(anon))
		return agg2(r, TM_M_CG_ANON_BYTES, TM_M_PROC_RSS_ANON_BYTES);
	if (IS(cpu))
		return tm_rollup_has(r, TM_M_CG_CPU_USAGE_USEC)
		           ? agg1(r, TM_M_CG_CPU_USAGE_USEC)
		           : aggsum(r, TM_M_PROC_UTIME_USEC, TM_M_PROC_STIME_USEC);
	if (IS(io_r))
		return agg2(r, TM_M_CG_IO_READ_BYTES, TM_M_PROC_READ_BYTES);
	if (IS(io_w))
		return agg2(r, TM_M_CG_IO_WRITE_BYTES, TM_M_PROC_WRITE_BYTES);
#undef IS
	return agg1(r, one[k]);
}

void tm_facc_bucket(struct facc *f, const struct agg *g)
{
	if (!g->has)
		return;
	if (!isfinite(f->first)) {
		f->first = g->first;
		f->max = g->max;
		f->rises = g->rises;
	} else {
		f->rises += g->rises + (g->first > f->last ? g->first - f->last : 0);
		if (g->max > f->max)
			f->max = g->max;
	}
	f->last = g->last;
}

/* A point of a bucket's first (FIRST) or last values. */
static void bucket_point(const struct agg *g, bool first, int64_t t, struct pt *p)
{
	p->t = t;
	p->wall = 0;
	p->late = 0;
	for (size_t k = 0; k < PT_NF; k++)
		*pt_field(p, k) = g[k].has ? (first ? g[k].first : g[k].last) : NAN;
}

void tm_acc_bucket(struct acc *a, const struct tm_rollup *r)
{
	struct agg g[PT_NF];
	struct pt first, last;
	size_t placed = a->pi;

	if (r->t_last_mono_usec < a->from || r->t_first_mono_usec > a->to || r->samples <= 0)
		return;
	for (size_t k = 0; k < PT_NF; k++)
		g[k] = bucket_field(r, k);
	bucket_point(g, true, r->t_first_mono_usec, &first);
	bucket_point(g, false, r->t_last_mono_usec, &last);
	place_progress(a, r->t_first_mono_usec, false);
	place_progress(a, r->t_last_mono_usec + 1, true); /* inside: not known */
	a->ap.progress_in_rollups |=
	    a->pi > placed && a->pr->p[a->pi - 1].t >= r->t_first_mono_usec;
	if (isfinite(last.anon))
		a->anon_so_far = last.anon;
	if (isfinite(last.cpu))
		a->cpu_so_far = last.cpu;
	tm_rt_acc_bucket(a, r, &first, &last);
	if (a->n == 0) {
		a->first_pt = first;
		a->first_t = r->t_first_mono_usec;
		a->at_start = !a->any_before && r->first_seq == 0;
	}
	a->last_t = r->t_last_mono_usec;
	a->last_pt = a->bucket_end = last;
	a->end_in_bucket = true;
	a->late += r->late_samples;
	for (size_t k = 0; k < PT_NF; k++)
		tm_facc_bucket(&a->f[k], &g[k]);
	first_values(a, &first);
	if (g[FK(file)].has) {
		tm_sketch_add(&a->files_lo, g[FK(file)].min, g[FK(file)].n);
		tm_sketch_add(&a->files_hi, g[FK(file)].max, g[FK(file)].n);
	}
	if (g[FK(anon)].has && (!isfinite(a->peak) || g[FK(anon)].max > a->peak)) {
		a->peak = g[FK(anon)].max;
		a->peak_i = -1;
		a->ap.peak_in_rollups = true;
	}
	if (a->th)
		tm_throttle_stream_unknown(
		    a->th, a->ap.long_run ? "a run this long is read from its hour "
		                            "rollups, which cannot show a stall"
		                          : "raw samples of part of the run were pruned "
		                            "(its rollups cannot show a stall)");
	a->n += r->samples;
	a->raw_base = a->n;
	a->ap.rollup_samples += r->samples;
	a->ap.rollup_buckets++;
	if (r->level == TM_ROLLUP_MINUTE)
		a->ap.minute = true;
	else
		a->ap.hour = true;
}

/* The kept samples [max(LO, END - TAIL), END) of RING (ring[i % TAIL] is
 * sample i) in order into OUT; their count, the first's index in *BASE. */
static size_t window_of(const struct pt *ring, int64_t end, int64_t lo, struct pt *out,
                        int64_t *base)
{
	int64_t from = end - TAIL > lo ? end - TAIL : lo;
	size_t n = 0;

	if (from < 0)
		from = 0;
	*base = from;
	for (int64_t i = from; i < end; i++)
		out[n++] = ring[i % TAIL];
	return n;
}

static void max_into(double *acc, double v)
{
	if (isfinite(v) && (!isfinite(*acc) || v > *acc))
		*acc = v;
}

static double delta(const struct facc *f)
{
	return isfinite(f->first) ? f->last - f->first : NAN;
}

/* The split at the anon peak, from the samples kept around it. */
static void peak_figures(struct acc *a, struct tm_summary *s, struct pt *w)
{
	int64_t base;
	size_t n;
	double own;

	if (a->ap.peak_in_rollups || a->peak_i < 0)
		return;
	s->file_at_peak_bytes = a->peak_pt.file;
	n = a->peak_frozen
	        ? window_of(a->peak_win, a->peak_i + PEAK_HALF + 1, a->raw_base, w, &base)
	        : window_of(a->ring, a->n, a->raw_base, w, &base);
	if (a->peak_i >= base && a->peak_i < base + (int64_t)n)
		tm_sum_split_anon(
		    w, n, (size_t)(a->peak_i - base), &s->anon_heap_live_at_peak_bytes,
		    &s->anon_allocator_held_at_peak_bytes, &s->anon_other_at_peak_bytes,
		    &s->anon_split_at_peak_skew_bytes, &own);
}

/* Held after the work (and the figures of its sample) from a rolled-up end:
 * the last values of the last bucket, when the target was alive at its end. */
static void bucket_end_figures(struct acc *a, struct tm_summary *s, struct tm_acc_end *e)
{
	const struct pt *p = &a->bucket_end;

	a->ap.end_in_rollups = true;
	e->in_bucket = true;
	e->end = p;
	if (!tm_sum_alive(p) || !isfinite(p->anon))
		return;
	e->end_alive = true;
	s->held_anon_bytes = p->anon;
	s->held_sample_mono_usec = p->t;
	s->gc_heap_live_at_held_bytes = p->gc_live;
	if (!isfinite(s->heap_live_end_bytes))
		s->heap_live_end_bytes = p->heap_live;
}

/* Held after the work: the sample held_index picks among the last kept;
 * where it was, for the runtimes' figures of the end, into E. */
static void end_figures(struct acc *a, struct tm_summary *s, struct pt *w, struct tm_acc_end *e)
{
	int64_t base = 0, h = INT64_MAX;
	size_t n = 0;

	/* live at the end is the tree's while it was alive to be measured (the
	 * sample of held after): once every process has exited it holds 0 */
	if (a->end_in_bucket) {
		bucket_end_figures(a, s, e);
		return;
	}
	if (a->last_af >= a->raw_base && a->snap_for == a->last_af)
		n = window_of(a->snap, a->last_af + 9, a->raw_base, w, &base);
	else
		n = window_of(a->ring, a->n, a->raw_base, w, &base);
	size_t i = a->last_af >= a->raw_base ? tm_sum_held_index(w, n) : n;
	if (i < n) {
		h = base + (int64_t)i;
		s->held_anon_bytes = w[i].anon;
		s->held_sample_mono_usec = w[i].t;
		s->heap_live_end_bytes = w[i].heap_live;
		s->gc_heap_live_at_held_bytes = w[i].gc_live;
		tm_sum_split_anon(w, n, i, &s->anon_heap_live_end_bytes,
		                  &s->anon_allocator_held_end_bytes, &s->anon_other_end_bytes,
		                  &s->anon_split_end_skew_bytes,
		                  &s->anon_allocator_held_end_own_bytes);
	}
	e->w = w;
	e->n = n;
	e->base = base;
	e->held = h;
}

static void median_figures(struct acc *a, struct tm_summary *s)
{
	double err;

	if (a->ap.rollup_samples) {
		/* bounds stay bounds: widened by the sketch's own error */
		a->ap.median_file_low_bytes = tm_sketch_median(&a->files_lo, &err) * (1 - err);
		a->ap.median_file_high_bytes = tm_sketch_median(&a->files_hi, &err) * (1 + err);
		return;
	}
	s->median_file_bytes = tm_sketch_median(&a->files, &err);
	a->ap.median_file_rel_error = err;
}

static void cost_figures(struct acc *a, struct tm_summary *s)
{
	s->cpu_usec = delta(&a->f[FK(cpu)]);
	s->io_read_bytes = delta(&a->f[FK(io_r)]);
	s->io_write_bytes = delta(&a->f[FK(io_w)]);
	s->psi_mem_some_usec = delta(&a->f[FK(psi_ms)]);
	s->psi_mem_full_usec = delta(&a->f[FK(psi_mf)]);
	s->psi_io_some_usec = delta(&a->f[FK(psi_is)]);
	s->psi_io_full_usec = delta(&a->f[FK(psi_if)]);
	s->high_events = delta(&a->f[FK(ev_high)]);
	/* memory.events max on v2; v1 counts the same hits in memory.failcnt */
	s->max_events =
	    isfinite(a->f[FK(ev_max)].first) ? delta(&a->f[FK(ev_max)]) : delta(&a->f[FK(failcnt)]);
	s->oom_events = delta(&a->f[FK(ev_oom)]);
	s->oom_kills = delta(&a->f[FK(ev_oom_kill)]);
	s->heap_alloc_bytes = a->f[FK(heap_alloc)].rises;
	s->heap_allocs = a->f[FK(heap_allocs)].rises;
	if (a->n > 1 && a->last_t > a->first_t)
		s->heap_alloc_bytes_per_sec =
		    s->heap_alloc_bytes / ((double)(a->last_t - a->first_t) / 1e6);
	s->gc_heap_live_peak_bytes = a->f[FK(gc_live)].max;
	s->gc_heap_live_end_bytes = a->f[FK(gc_live)].last;
	s->gc_cycles = a->f[FK(gc_cycles)].rises;
	s->heap_exe_procs = a->f[FK(heap_exe)].max;
	s->thp_collapses = delta(&a->f[FK(thp_collapses)]);
	s->hpage_bytes = a->f[FK(hpage)].max;
}

/* The tree's heap peak, since it began: a recorder that combines processes
 * by their lifetimes (heap/heaptree.h) stores its upper bound and the
 * proven figure as running values, the last of each being the whole run's
 * (the bound can only tighten as processes' exits become known); a run
 * recorded before summed each process's peak in every sample. */
static void heap_peak_figures(struct acc *a, struct tm_summary *s)
{
	const struct facc *up = &a->f[FK(heap_peak)], *pr = &a->f[FK(heap_peak_proven)];
	if (!isfinite(pr->last)) {
		max_into(&s->heap_peak_bytes, up->max);
		return;
	}
	s->heap_peak_proven_bytes = pr->max;
	s->heap_peak_bytes = up->last > pr->max ? up->last : pr->max;
}

/* True when khugepaged collapsed huge pages in the run and the kernel's
 * peak K is within one huge page (and noise) of the samples' highest
 * memory.current C: a collapse charges its new huge page before it frees
 * the pages it copies, so memory.current passes anon by a huge page for a
 * moment that anon never holds (mm/khugepaged.c, collapse_huge_page). */
static bool peak_by_collapse(const struct tm_summary *s, double k, double c)
{
	return isfinite(s->thp_collapses) && s->thp_collapses > 0 && isfinite(s->hpage_bytes) &&
	       s->hpage_bytes > 0 && !tm_anon_fell_steeply(k - s->hpage_bytes, c);
}

/* The kernel's own high-water mark of the run's fresh cgroup (memory.peak,
 * v1's max_usage_in_bytes) is the peak of memory.current; when it is above
 * every sample's by more than noise (tm_anon_fell_steeply: 1 MiB and 2 %),
 * the samples missed the peak (an OOM kill between two samples), so the
 * anon peak and the figures at it are not known: NAN, and why.  But for a
 * huge page's collapse (peak_by_collapse): the samples' peak stands, and
 * the report says by how much memory.peak is above it. */
static void kernel_peak(struct tm_summary *s)
{
	double k = s->cg_peak_bytes, c = s->peak_current_bytes;
	if (!isfinite(k))
		return;
	if (isfinite(c) && tm_anon_fell_steeply(k, c) && peak_by_collapse(s, k, c)) {
		s->peak_over_by_collapse_bytes = k - c;
	} else if (!isfinite(c) || tm_anon_fell_steeply(k, c)) {
		s->peak_anon_missed = true;
		s->peak_anon_sampled_bytes = s->peak_anon_bytes;
		s->peak_anon_bytes = NAN;
		s->file_at_peak_bytes = NAN;
		s->anon_heap_live_at_peak_bytes = NAN;
		s->anon_allocator_held_at_peak_bytes = NAN;
		s->anon_other_at_peak_bytes = NAN;
	}
	max_into(&s->peak_current_bytes, k);
}

/* Counters start from zero in a fresh cgroup, and the heap shim's in a
 * process we launched, so the window's first sample would hide whatever
 * happened before it: count from zero when the window starts at the
 * beginning of the run. */
static void count_from_start(struct acc *a, struct tm_summary *s, const struct tm_run_info *ri)
{
	if (!a->at_start || strcmp(ri->target ? ri->target : "", "command"))
		return;
	/* the shim's own peak (between samples too) is since the process began */
	heap_peak_figures(a, s);
	if (a->heap_first_seen && isfinite(s->heap_alloc_bytes)) {
		s->heap_alloc_bytes += a->f[FK(heap_alloc)].first;
		s->heap_allocs += a->heap_allocs_first;
		if (s->duration_usec > 0)
			s->heap_alloc_bytes_per_sec =
			    s->heap_alloc_bytes / (s->duration_usec / 1e6);
	}
	/* --runtime's GC count starts with the process we launched */
	if (isfinite(s->gc_cycles))
		s->gc_cycles += a->f[FK(gc_cycles)].first;
	if (!ri->cgroup_path)
		return;
	if (isfinite(a->first_pt.ev_oom_kill) && isfinite(s->oom_kills))
		s->oom_kills += a->first_pt.ev_oom_kill;
	if (isfinite(a->first_pt.thp_collapses) && isfinite(s->thp_collapses))
		s->thp_collapses += a->first_pt.thp_collapses;
	if (isfinite(a->first_pt.ev_high) && isfinite(s->high_events))
		s->high_events += a->first_pt.ev_high;
	double max0 = isfinite(a->first_pt.ev_max) ? a->first_pt.ev_max : a->first_pt.failcnt;
	if (isfinite(max0) && isfinite(s->max_events))
		s->max_events += max0;
	kernel_peak(s);
}

int tm_acc_finish(struct acc *a, struct tm_summary *s, const struct tm_run_info *ri)
{
	struct tm_acc_end e = {.held = INT64_MAX};
	struct pt *w;

	place_progress(a, INT64_MAX, false);
	if (a->n == 0)
		return 1;
	if (!(w = malloc(TAIL * sizeof(*w))))
		return -1;
	s->samples = a->n;
	s->late_samples = a->late;
	s->window_start_mono_usec = a->first_t;
	s->window_end_mono_usec = a->last_t;
	s->duration_usec = (double)(a->last_t - a->first_t);
	s->peak_anon_bytes = a->peak;
	s->peak_current_bytes = a->f[FK(current)].max;
	s->cg_peak_bytes = a->f[FK(cg_peak)].max;
	s->peak_file_bytes = a->f[FK(file)].max;
	s->peak_rss_bytes = a->f[FK(rss)].max;
	s->heap_live_peak_bytes = a->f[FK(heap_live)].max;
	s->limit_max_bytes = a->f[FK(lim_max)].last;
	s->limit_high_bytes = a->f[FK(lim_high)].last;
	s->final_anon_bytes = a->last_pt.anon;
	median_figures(a, s);
	peak_figures(a, s, w);
	end_figures(a, s, w, &e);
	cost_figures(a, s);
	count_from_start(a, s, ri);
	e.from_start = a->at_start && !strcmp(ri->target ? ri->target : "", "command");
	tm_rt_acc_finish(a, &e, s);
	s->approx = a->ap;
	free(w);
	return 0;
}
