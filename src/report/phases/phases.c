/*
 * A run's phases from arrays of samples, progress points and marks (pure:
 * no store, no I/O).  The rules are in phases.h and docs/phases.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bunch.h"
#include "base/error.h"
#include "base/util.h"
#include "report/phases/phases.h"
#include "report/run/summary.h"
#include "base/banned.h"

#define NO TM_METRIC_COUNT

/* The generic series; each runtime's own are in its file (rtphases.h). */
static const struct tm_phase_series_desc anon = {
    "anon", "anon", {TM_PH_EITHER, TM_M_CG_ANON_BYTES, TM_M_PROC_RSS_ANON_BYTES},
    {{0}},  NULL,   NULL};
static const struct tm_phase_series_desc heap = {
    "heap_live", "heap", {TM_PH_ONE, TM_M_HEAP_LIVE_BYTES, NO}, {{0}}, NULL, NULL};
static const struct tm_phase_series_desc gc_live = {
    "gc_heap_live", "gc live", {TM_PH_ONE, TM_M_GC_HEAP_LIVE_BYTES, NO}, {{0}}, NULL, NULL};

static const struct tm_phase_series_desc *const series[TM_PS_COUNT] = {
    [TM_PS_ANON] = &anon,
    [TM_PS_HEAP] = &heap,
#define TM_X_PS_PTR(id, desc, nin) [TM_PS_##id] = &desc,
    TM_RT_PHASE_SERIES_LIST(TM_X_PS_PTR)
#undef TM_X_PS_PTR
        [TM_PS_GC_LIVE] = &gc_live,
};

const struct tm_phase_series_desc *tm_phase_series(enum tm_phase_series s)
{
	return series[s < TM_PS_COUNT ? s : TM_PS_ANON];
}

/* Each series' inputs: where in tm_phase_pt.in, how many (rtphases.h). */
static const struct {
	int at, n;
} inputs[TM_PS_COUNT] = {
#define TM_X_PS_IN(id, desc, nin) [TM_PS_##id] = {TM_PSI_##id, nin},
    TM_RT_PHASE_SERIES_LIST(TM_X_PS_IN)
#undef TM_X_PS_IN
};

int tm_phase_series_inputs(enum tm_phase_series s, int *at)
{
	*at = s < TM_PS_COUNT ? inputs[s].at : 0;
	return s < TM_PS_COUNT ? inputs[s].n : 0;
}

const char *tm_phase_series_key(enum tm_phase_series s)
{
	return s < TM_PS_COUNT ? series[s]->key : "?";
}

const char *tm_phase_series_label(enum tm_phase_series s)
{
	return s < TM_PS_COUNT ? series[s]->label : "?";
}

void tm_phase_pts_derive(struct tm_phase_pt *pts, size_t n)
{
	for (int s = 0; s < TM_PS_COUNT; s++)
		if (series[s]->derive)
			series[s]->derive(pts, n, (enum tm_phase_series)s);
}

int tm_phase_split_parse(const char *spec, struct tm_phase_split *out)
{
	const char *p = spec;

	memset(out, 0, sizeof(*out));
	out->kind = TM_SPLIT_PROGRESS;
	while (*p) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !isfinite(v) || (*end && *end != ','))
			return tm_error("--phases-at '%s': expected progress values separated by "
			                "commas (1000,2000,3000)",
			                spec);
		if (out->n_at == TM_PHASE_MAX_AT)
			return tm_error("--phases-at '%s': at most %d values", spec,
			                TM_PHASE_MAX_AT);
		if (out->n_at && v <= out->at[out->n_at - 1])
			return tm_error("--phases-at '%s': the values must increase (%g after %g)",
			                spec, v, out->at[out->n_at - 1]);
		out->at[out->n_at++] = v;
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return tm_error("--phases-at '%s': a value after the last comma", spec);
	}
	if (!out->n_at)
		return tm_error("--phases-at '%s': give at least one progress value", spec);
	return 0;
}

void tm_phases_release(struct tm_phases *ph)
{
	free(ph->p);
	memset(ph, 0, sizeof(*ph));
}

static void note(struct tm_phases *ph, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct tm_phases *ph, const char *fmt, ...)
{
	va_list ap;

	if (ph->n_notes == TM_PHASE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(ph->notes[ph->n_notes++], sizeof(ph->notes[0]), fmt, ap);
	va_end(ap);
}

/* A phase boundary: when it opens and the phase's name. */
struct bound {
	int64_t t;
	size_t order; /* as given, to keep equal times in their order */
	char name[TM_PHASE_NAME_MAX];
};

static int cmp_bound(const void *a, const void *b)
{
	const struct bound *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int cmp_prog(const void *a, const void *b)
{
	const struct tm_phase_prog *x = a, *y = b;
	return (x->t_usec > y->t_usec) - (x->t_usec < y->t_usec);
}

/* Boundaries at the marks inside [T0, T1] (in time order) into B, named
 * "text", "text#2", ... when a text comes again.  0, or -1 after tm_error. */
static int mark_bounds(const struct tm_phase_mark *mk, size_t nm, int64_t t0, int64_t t1,
                       struct bound *b, size_t *nb, struct tm_phases *ph)
{
	struct bound *all = malloc((nm ? nm : 1) * sizeof(*all));
	size_t n = 0, before = 0, after = 0;
	bool sorted = true;

	if (!all)
		return tm_error("out of memory");
	for (size_t i = 0; i < nm; i++) {
		all[i] = (struct bound){.t = mk[i].t_usec, .order = i};
		snprintf(all[i].name, sizeof(all[i].name), "%s", mk[i].text);
		sorted &= i == 0 || mk[i].t_usec >= mk[i - 1].t_usec;
	}
	qsort(all, nm, sizeof(*all), cmp_bound);
	if (!sorted)
		note(ph, "the marks were not in time order: phases follow their times");
	for (size_t i = 0; i < nm; i++) {
		if (all[i].t > t1) {
			after++;
			all[i].order = SIZE_MAX; /* left out */
			continue;
		}
		if (all[i].t < t0) {
			all[i].t = t0;
			before++;
		}
		int seen = 1;
		for (size_t j = 0; j < i; j++)
			seen += all[j].order != SIZE_MAX && !strcmp(all[j].name, all[i].name);
		b[n] = all[i];
		if (seen > 1)
			snprintf(b[n].name, sizeof(b[n].name), "%.*s#%d",
			         (int)sizeof(b[n].name) - 12, all[i].name, seen);
		n++;
	}
	if (before)
		note(ph, "%zu mark%s came before the first sample: %s at the run's start", before,
		     before == 1 ? "" : "s",
		     before == 1 ? "its phase starts" : "their phases start");
	if (after)
		note(ph, "%zu mark%s came after the last sample while the target lived: left out",
		     after, after == 1 ? "" : "s");
	free(all);
	*nb = n;
	return 0;
}

/* Boundaries where progress first reached each of SPLIT's values inside
 * [T0, T1] (PR sorted); names "A..B". */
static size_t progress_bounds(const struct tm_phase_prog *pr, size_t np,
                              const struct tm_phase_split *split, int64_t t0, int64_t t1,
                              struct bound *b, struct tm_phases *ph)
{
	size_t n = 0;

	for (int i = 0; i < split->n_at; i++) {
		size_t j = 0;
		while (j < np && pr[j].v < split->at[i])
			j++;
		if (j == np || pr[j].t_usec > t1) {
			note(ph,
			     "progress never reached %g while the target lived: the split ends "
			     "there",
			     split->at[i]);
			break;
		}
		b[n].t = pr[j].t_usec < t0 ? t0 : pr[j].t_usec;
		b[n].order = (size_t)i;
		if (i + 1 < split->n_at)
			snprintf(b[n].name, sizeof(b[n].name), "%g..%g", split->at[i],
			         split->at[i + 1]);
		else
			snprintf(b[n].name, sizeof(b[n].name), "%g..end", split->at[i]);
		n++;
	}
	/* the last phase reached runs to the end, not to a value it never saw */
	if (n && n < (size_t)split->n_at)
		snprintf(b[n - 1].name, sizeof(b[n - 1].name), "%g..end", split->at[n - 1]);
	return n;
}

/* Progress at time T: the last point at or before it, else the first point. */
static double progress_at(const struct tm_phase_prog *pr, size_t np, int64_t t)
{
	double v = np ? pr[0].v : NAN;
	for (size_t i = 0; i < np && pr[i].t_usec <= t; i++)
		v = pr[i].v;
	return v;
}

static double first_reading(const struct tm_phase_pt *p, size_t a, size_t b, int s)
{
	for (size_t i = a; i < b; i++)
		if (isfinite(p[i].v[s]))
			return p[i].v[s];
	return NAN;
}

static double last_reading(const struct tm_phase_pt *p, size_t a, size_t b, int s)
{
	for (size_t i = b; i-- > a;)
		if (isfinite(p[i].v[s]))
			return p[i].v[s];
	return NAN;
}

static void init_row(struct tm_phase *r)
{
	for (int s = 0; s < TM_PS_COUNT; s++)
		r->start[s] = r->end[s] = r->change[s] = r->per_unit[s] = NAN;
	r->peak_anon_bytes = r->progress_start = r->progress_end = r->units = NAN;
	r->rate_per_min = NAN;
}

/* Each phase's start, end and change of every series (phases.h's rule),
 * from the samples [FIRST[k], FIRST[k+1]) of phase k. */
static void series_figures(const struct tm_phase_pt *p, const size_t *first, struct tm_phases *ph)
{
	for (int s = 0; s < TM_PS_COUNT; s++) {
		bool started = false;
		double prev_end = NAN;
		for (int k = 0; k < ph->n; k++) {
			struct tm_phase *r = &ph->p[k];
			size_t a = first[k], b = first[k + 1];
			if (a == b)
				continue; /* no sample: nothing read, the next starts from prev_end
				           */
			double f = first_reading(p, a, b, s);
			/* a series that begins inside a phase (a runtime's counters once it
			 * is up, old after GC at the first GC) has no value at its
			 * start: not its first reading, which would claim no change */
			r->start[s] = started ? prev_end : a == 0 ? p[0].v[s] : NAN;
			r->end[s] = last_reading(p, a, b, s);
			r->change[s] = r->end[s] - r->start[s];
			started |= isfinite(f);
			prev_end = r->end[s];
			ph->has[s] |= isfinite(f);
		}
		ph->total.start[s] = p[0].v[s]; /* at the run's start, or unknown */
		ph->total.end[s] = last_reading(p, 0, first[ph->n], s);
		ph->total.change[s] = ph->total.end[s] - ph->total.start[s];
	}
	for (int k = 0; k <= ph->n; k++) {
		struct tm_phase *r = k < ph->n ? &ph->p[k] : &ph->total;
		size_t a = k < ph->n ? first[k] : 0, b = k < ph->n ? first[k + 1] : first[ph->n];
		for (size_t i = a; i < b; i++)
			if (isfinite(p[i].v[TM_PS_ANON]) &&
			    !(p[i].v[TM_PS_ANON] <= r->peak_anon_bytes))
				r->peak_anon_bytes = p[i].v[TM_PS_ANON];
		r->samples = (int)(b - a);
	}
}

/* Units of progress, per-unit costs and rates; none when bunched. */
static void progress_figures(const struct tm_phase_prog *pr, size_t np, const int64_t *bt,
                             struct tm_phases *ph)
{
	int64_t *times = malloc((np ? np : 1) * sizeof(*times));

	for (size_t i = 0; times && i < np; i++)
		times[i] = pr[i].t_usec;
	ph->progress_bunched = times && tm_progress_bunched(times, np, NULL);
	for (int k = 0; k <= ph->n && np && !ph->progress_bunched; k++) {
		struct tm_phase *r = k < ph->n ? &ph->p[k] : &ph->total;
		int64_t from = k < ph->n ? bt[k] : bt[0], to = k < ph->n ? bt[k + 1] : bt[ph->n];
		bool last = k >= ph->n - 1;
		r->progress_start = progress_at(pr, np, from);
		r->progress_end = last ? pr[np - 1].v : progress_at(pr, np, to);
		r->units = r->progress_end - r->progress_start;
		for (int s = 0; s < TM_PS_COUNT; s++)
			if (r->units > 0)
				r->per_unit[s] = r->change[s] / r->units;
		size_t a = 0, m = 0;
		while (a < np && pr[a].t_usec < from)
			a++;
		while (a + m < np && (pr[a + m].t_usec < to || last))
			m++;
		r->bunched = times && m >= 2 && tm_progress_bunched(times + a, m, NULL);
		if (!r->bunched && r->duration_usec > 0)
			r->rate_per_min = r->units / (r->duration_usec / 60e6);
	}
	if (ph->progress_bunched)
		note(ph, "the progress points arrived at once, in too few instants (block-buffered "
		         "output): no units, per-unit costs or rates");
	free(times);
}

/* Phase K spans [BT[K], BT[K+1]); FIRST[K] is its first sample. */
static int build_phases(const struct tm_phase_pt *p, size_t n, const struct bound *b, size_t nb,
                        const double *lead_at, struct tm_phases *ph, int64_t **bt_out,
                        size_t **first_out)
{
	int64_t t0 = p[0].t_usec, t1 = p[n - 1].t_usec;
	bool lead = nb == 0 || b[0].t > t0; /* a phase before the first boundary */
	size_t np = nb + lead;
	int64_t *bt = malloc((np + 1) * sizeof(*bt));
	size_t *first = malloc((np + 1) * sizeof(*first));

	ph->p = calloc(np, sizeof(*ph->p));
	if (!bt || !first || !ph->p) {
		free(bt);
		free(first);
		return tm_error("out of memory");
	}
	ph->n = (int)np;
	for (size_t k = 0; k < np; k++) {
		struct tm_phase *r = &ph->p[k];
		init_row(r);
		bt[k] = lead && k == 0 ? t0 : b[k - lead].t;
		if (lead && k == 0 && ph->kind == TM_SPLIT_PROGRESS && lead_at)
			snprintf(r->name, sizeof(r->name), "start..%g", lead_at[0]);
		else
			snprintf(r->name, sizeof(r->name), "%s",
			         lead && k == 0 ? (nb ? "(start)" : "(whole run)")
			                        : b[k - lead].name);
	}
	bt[np] = t1;
	for (size_t k = 0, i = 0; k <= np; k++) {
		/* the last phase keeps the last sample (at T1 itself) */
		while (k < np && i < n && p[i].t_usec < bt[k])
			i++;
		first[k] = k == np ? n : i;
	}
	for (size_t k = 0; k < np; k++) {
		ph->p[k].start_offset_usec = (double)(bt[k] - t0);
		ph->p[k].duration_usec = (double)(bt[k + 1] - bt[k]);
	}
	*bt_out = bt;
	*first_out = first;
	return 0;
}

static bool gone(const struct tm_phase_pt *p)
{
	return isfinite(p->procs) && p->procs <= 0;
}

/* One past the run's last sample: the last while the target lived, not
 * inside the exit of its last processes (a sample before one that finds
 * none, whose anon fell steeply into it: up to 3 back), as "held after"
 * is taken. */
static size_t span_end(const struct tm_phase_pt *p, size_t n)
{
	size_t last = n;

	while (last > 0 && gone(&p[last - 1]))
		last--;
	if (last == 0 || last == n)
		return last;
	for (int back = 0;
	     back < 3 && last > 1 &&
	     tm_anon_fell_steeply(p[last - 2].v[TM_PS_ANON], p[last - 1].v[TM_PS_ANON]);
	     back++)
		last--;
	return last;
}

int tm_phases_compute(const struct tm_phase_pt *pts, size_t n, const struct tm_phase_prog *pr,
                      size_t np, const struct tm_phase_mark *mk, size_t nm,
                      const struct tm_phase_split *split, struct tm_phases *out)
{
	struct tm_phase_prog *prs = malloc((np ? np : 1) * sizeof(*prs));
	struct bound *b = NULL;
	int64_t *bt = NULL;
	size_t *first = NULL, nb = 0, last = n;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	init_row(&out->total);
	snprintf(out->total.name, sizeof(out->total.name), "run");
	out->kind = split ? split->kind : TM_SPLIT_MARKS;
	last = span_end(pts, n);
	if (!prs)
		return tm_error("out of memory");
	if (!last) {
		free(prs);
		return 1;
	}
	if (np)
		memcpy(prs, pr, np * sizeof(*prs));
	qsort(prs, np, sizeof(*prs), cmp_prog);
	b = malloc(((nm > TM_PHASE_MAX_AT ? nm : TM_PHASE_MAX_AT) + 1) * sizeof(*b));
	if (!b) {
		rc = tm_error("out of memory");
		goto out;
	}
	if (out->kind == TM_SPLIT_PROGRESS) {
		int64_t *times = malloc((np ? np : 1) * sizeof(*times));
		for (size_t i = 0; times && i < np; i++)
			times[i] = prs[i].t_usec;
		bool bunched = times && tm_progress_bunched(times, np, NULL);
		free(times);
		if (bunched) {
			rc = tm_error(
			    "cannot split at progress values: the run's progress points "
			    "arrived at once, in too few instants (block-buffered output), "
			    "so their times are not the work's");
			goto out;
		}
		nb = progress_bounds(prs, np, split, pts[0].t_usec, pts[last - 1].t_usec, b, out);
	} else {
		if ((rc = mark_bounds(mk, nm, pts[0].t_usec, pts[last - 1].t_usec, b, &nb, out)))
			goto out;
		if (!nm)
			note(out, "the run has no marks (tidemark mark TEXT, or echo TEXT > "
			          "$TIDEMARK_MARK from inside the command): one phase");
	}
	if ((rc = build_phases(pts, last, b, nb, split && split->n_at ? split->at : NULL, out, &bt,
	                       &first)))
		goto out;
	out->total.duration_usec = (double)(pts[last - 1].t_usec - pts[0].t_usec);
	out->total.start_offset_usec = 0;
	series_figures(pts, first, out);
	progress_figures(prs, np, bt, out);
out:
	if (rc)
		tm_phases_release(out);
	free(prs);
	free(b);
	free(bt);
	free(first);
	return rc;
}
