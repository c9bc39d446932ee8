/*
 * The advice's numbers: each run's figures in each regime's window, the
 * per-arm profile from its survivors, the rules of docs/advise.md, and the
 * order of the arms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "advise/advise.h"
#include "advise/advise_int.h"
#include "base/error.h"
#include "base/sample.h"
#include "base/util.h"
#include "report/run/stats.h"
#include "report/run/summary.h"
#include "report/run/throttle.h"
#include "store/store.h"
#include "base/banned.h"

const char *tm_advise_refusal_name(enum tm_advise_refusal r)
{
	switch (r) {
	case TM_AR_NONE:
		return NULL;
	case TM_AR_NO_RUNS:
		return "no-runs";
	case TM_AR_NONE_SURVIVED:
		return "none-survived";
	case TM_AR_FEW_SAMPLES:
		return "too-few-samples";
	case TM_AR_SWAP:
		return "swap-on";
	case TM_AR_NO_ANON:
		return "anon-not-measured";
	}
	return "?";
}

/* One run in one window: what the profile needs from it. */
struct win_figs {
	bool have; /* the window holds samples */
	int64_t samples;
	double peak_anon, file_at_peak, duration_usec, psi_io_some_usec;
	double anon_median, refaults;
	double charge_peak;         /* the cgroup's whole charge at its peak, NAN: not measured */
	bool charge_from_watermark; /* the kernel's watermark set it (between samples) */
	double wm_from, wm_to;      /* the watermark before the window and at its end, NAN: none */
	double swap_used_max;       /* the most swap the run or its cgroup had, NAN: unknown */
	double host_swap_total;     /* NAN: unknown */
	double cg_swap_max;         /* the cgroup's swap limit, -1 none, NAN unknown */
};

struct walk {
	int64_t from, to; /* mono usec */
	double *anon;
	size_t n, cap;
	double refault_first, refault_last;
	double wm_before, wm_first, wm_last; /* the kernel's watermark (memory.peak) */
	double current_max;                  /* the largest memory.current sampled */
	struct win_figs *f;
};

static double max_nan(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a > b ? a : b;
}

static double get(const struct tm_sample *s, enum tm_metric m)
{
	return tm_sample_has(s, m) ? (double)s->v[m] : NAN;
}

static int walk_sample(void *ctx, const struct tm_sample *s)
{
	struct walk *w = ctx;
	struct win_figs *f = w->f;
	double anon = tm_sample_has(s, TM_M_CG_ANON_BYTES) ? get(s, TM_M_CG_ANON_BYTES)
	                                                   : get(s, TM_M_PROC_RSS_ANON_BYTES);

	double wm = get(s, TM_M_CG_PEAK_BYTES);
	if (s->t_mono_usec < w->from) {
		w->wm_before = wm;
		return 0;
	}
	if (s->t_mono_usec > w->to)
		return 0;
	if (isfinite(wm)) {
		if (isnan(w->wm_first))
			w->wm_first = wm;
		w->wm_last = wm;
	}
	w->current_max = max_nan(w->current_max, get(s, TM_M_CG_CURRENT_BYTES));
	if (isfinite(anon)) {
		if (tm_grow(&w->anon, &w->cap, w->n, sizeof(double), 256))
			return -1;
		w->anon[w->n++] = anon;
	}
	double rf = get(s, TM_M_CG_WORKINGSET_REFAULT_FILE);
	if (isfinite(rf)) {
		if (isnan(w->refault_first))
			w->refault_first = rf;
		w->refault_last = rf;
	}
	f->swap_used_max = max_nan(f->swap_used_max, get(s, TM_M_PROC_SWAP_BYTES));
	f->swap_used_max = max_nan(f->swap_used_max, get(s, TM_M_CG_SWAP_CURRENT_BYTES));
	f->host_swap_total = max_nan(f->host_swap_total, get(s, TM_M_HOST_SWAP_TOTAL_BYTES));
	if (tm_sample_has(s, TM_M_CG_SWAP_MAX_BYTES))
		f->cg_swap_max = get(s, TM_M_CG_SWAP_MAX_BYTES);
	return 0;
}

/* The cgroup's charge at its peak in the window: the largest memory.current
 * sampled, or the kernel's watermark (memory.peak, v1 max_usage_in_bytes)
 * when it rose from the sample before the window (or the window's first) to
 * its last, so that the peak was reached in the window, between samples
 * too: a burst shorter than the interval is in it. */
static void charge_peak(const struct walk *wk, struct win_figs *f)
{
	double base = isfinite(wk->wm_before) ? wk->wm_before : wk->wm_first;

	f->charge_peak = wk->current_max;
	f->wm_from = base;
	f->wm_to = wk->wm_last;
	if (isfinite(wk->wm_last) && isfinite(base) && wk->wm_last > base &&
	    !(wk->wm_last <= f->charge_peak)) {
		f->charge_peak = wk->wm_last;
		f->charge_from_watermark = true;
	}
}

/* Fills F for RUN in window W.  0, or -1 after tm_error. */
static int window_figs(struct tm_store *st, int64_t run, const struct tm_window *w,
                       struct win_figs *f)
{
	struct tm_summary s;
	struct walk wk = {.refault_first = NAN,
	                  .refault_last = NAN,
	                  .wm_before = NAN,
	                  .wm_first = NAN,
	                  .wm_last = NAN,
	                  .current_max = NAN,
	                  .f = f};
	int rc = tm_summarize(st, run, w, &s);

	memset(f, 0, sizeof(*f));
	f->swap_used_max = f->host_swap_total = f->cg_swap_max = NAN;
	f->anon_median = f->refaults = f->charge_peak = f->wm_from = f->wm_to = NAN;
	if (rc)
		return rc < 0 ? -1 : 0;
	f->have = true;
	f->samples = s.samples;
	f->peak_anon = s.peak_anon_bytes;
	f->file_at_peak = s.file_at_peak_bytes;
	f->duration_usec = s.duration_usec;
	f->psi_io_some_usec = s.psi_io_some_usec;
	wk.from = s.window_start_mono_usec;
	wk.to = s.window_end_mono_usec;
	if (tm_store_each_sample(st, run, 0, -1, walk_sample, &wk)) {
		free(wk.anon);
		return -1;
	}
	f->anon_median = tm_median(wk.anon, wk.n);
	charge_peak(&wk, f);
	if (isfinite(wk.refault_first))
		f->refaults = wk.refault_last - wk.refault_first;
	free(wk.anon);
	return 0;
}

/* Swap was on while measuring run RUN: it used swap, or the host had swap
 * and the cgroup's swap was not limited to 0.  Fills WHY. */
static bool swap_was_on(const struct win_figs *f, int64_t run, char *why, size_t size)
{
	/* with no swap on the host nothing can be in swap: a small figure then is
	 * v1's memsw - usage read a moment apart, not swap */
	bool host_swap = !(f->host_swap_total == 0);
	if (host_swap && isfinite(f->swap_used_max) && f->swap_used_max > 0) {
		snprintf(why, size,
		         "swap was on while measuring: run %lld had %.1f MiB in swap, so anon "
		         "figures are too low by what went there",
		         (long long)run, f->swap_used_max / TM_MIB);
		return true;
	}
	if (isfinite(f->host_swap_total) && f->host_swap_total > 0 && !(f->cg_swap_max == 0)) {
		snprintf(
		    why, size,
		    "swap was on while measuring: the host had %.0f MiB of swap and run %lld's "
		    "cgroup was not limited to none (MemorySwapMax=0), so retained pages could "
		    "hide there",
		    f->host_swap_total / TM_MIB, (long long)run);
		return true;
	}
	return false;
}

/* The survivors' and killed runs' values for one arm and regime. */
struct arm_vals {
	double held[32], cache[32], refaults[32], psi_io[32], killed_cache[32], needed[32];
	int n, n_killed;
};

static void refuse(struct tm_advise_profile *p, enum tm_advise_refusal r, const char *why)
{
	if (p->refusal != TM_AR_NONE)
		return;
	p->refusal = r;
	snprintf(p->why, sizeof(p->why), "%s", why);
}

/* Folds one run's window figures into the profile P and the values V. */
static void add_run(struct tm_advise_profile *p, struct arm_vals *v, const struct win_figs *f,
                    int64_t run, bool survived, int min_samples)
{
	char why[256];

	if (!survived) {
		if (f->have && v->n_killed < 32)
			v->killed_cache[v->n_killed++] = f->file_at_peak;
		return;
	}
	if (!f->have || f->samples < min_samples) {
		snprintf(why, sizeof(why),
		         "too few samples in the window: run %lld has %lld, the rule needs %d",
		         (long long)run, (long long)(f->have ? f->samples : 0), min_samples);
		refuse(p, TM_AR_FEW_SAMPLES, why);
		return;
	}
	if (swap_was_on(f, run, why, sizeof(why)))
		refuse(p, TM_AR_SWAP, why);
	/* an anon peak the samples missed (the kernel's watermark above them
	 * all) is unknown; the charge's peak, which the kernel counted, then
	 * still bounds what the service needs */
	if (!isfinite(f->peak_anon) && !isfinite(f->charge_peak)) {
		snprintf(why, sizeof(why), "anon was not measured in run %lld", (long long)run);
		refuse(p, TM_AR_NO_ANON, why);
		return;
	}
	if (p->survivors == 0 || f->samples < p->min_samples)
		p->min_samples = f->samples;
	if (isfinite(f->peak_anon) &&
	    (isnan(p->anon_peak_bytes) || f->peak_anon > p->anon_peak_bytes)) {
		p->anon_peak_bytes = f->peak_anon;
		p->anon_peak_run = run;
	}
	if (isfinite(f->charge_peak)) {
		p->charge_measured++;
		if (isnan(p->charge_peak_bytes) || f->charge_peak > p->charge_peak_bytes) {
			p->charge_peak_bytes = f->charge_peak;
			p->charge_peak_run = run;
			p->charge_from_watermark = f->charge_from_watermark;
			p->charge_wm_from_bytes = f->wm_from;
			p->charge_wm_to_bytes = f->wm_to;
		}
	}
	p->survivors++;
	if (v->n < 32) {
		v->held[v->n] = f->anon_median;
		v->cache[v->n] = f->file_at_peak;
		v->refaults[v->n] = f->refaults;
		v->needed[v->n] =
		    max_nan(f->peak_anon + (isfinite(f->file_at_peak) ? f->file_at_peak : 0),
		            f->charge_peak);
		v->psi_io[v->n] =
		    f->duration_usec > 0 ? f->psi_io_some_usec / f->duration_usec : NAN;
		v->n++;
	}
}

/* max - min of the N values at V (NANs skipped), 0 when fewer than two. */
static double spread(const double *v, int n)
{
	double lo = NAN, hi = NAN;

	for (int i = 0; i < n; i++)
		if (isfinite(v[i])) {
			lo = isnan(lo) || v[i] < lo ? v[i] : lo;
			hi = isnan(hi) || v[i] > hi ? v[i] : hi;
		}
	return isfinite(lo) ? hi - lo : 0;
}

/* The rules of docs/advise.md, from the measured figures of P. */
static void apply_rules(struct tm_advise_profile *p, const struct tm_advise *a)
{
	double cache = isfinite(p->cache_bytes) ? p->cache_bytes : 0;
	double base;

	/* the busy window's peak, between samples too: memory.high is checked
	 * against the whole charge, so it must sit above that */
	p->needed_bytes = max_nan(p->anon_peak_bytes + cache, p->charge_peak_bytes);
	base = p->needed_bytes;
	if (isfinite(p->sweep_min_bytes) && p->sweep_min_bytes > base)
		base = p->sweep_min_bytes;
	/* the runs' spread, the kernel's granularity (a huge page moves a peak
	 * from run to run under THP always), and never below the floor */
	p->headroom_bytes =
	    fmax(fmax(p->needed_spread_bytes, TM_ADVISE_HEADROOM_MIN_BYTES), a->opts.granule_bytes);
	p->margin_bytes = fmax(a->opts.margin_frac * p->needed_bytes, TM_ADVISE_MARGIN_MIN_BYTES);
	p->memory_high_bytes = tm_advise_round_up(p->needed_bytes + p->headroom_bytes);
	if (isfinite(p->sweep_high_min_bytes) && p->sweep_high_min_bytes > p->memory_high_bytes)
		p->memory_high_bytes = tm_advise_round_up(p->sweep_high_min_bytes);
	p->memory_max_bytes =
	    fmax(tm_advise_round_up(base + p->margin_bytes), p->memory_high_bytes);
	p->swap_max_bytes = 0;
	p->sum_bytes = p->memory_max_bytes + a->reserve_bytes;
	p->leaves_bytes = a->opts.ram_bytes - p->sum_bytes;
}

/* Arm AI's profile in regime RI.  0 or -1. */
static int arm_profile(struct tm_store *st, struct tm_advise *a, int ai, int ri)
{
	struct tm_advise_profile *p = &a->arms[ai].prof[ri];
	const struct tm_bench_table *t = &a->table;
	struct arm_vals *v = calloc(1, sizeof(*v));

	if (!v)
		return tm_error("out of memory");
	p->anon_peak_bytes = p->charge_peak_bytes = NAN;
	p->charge_wm_from_bytes = p->charge_wm_to_bytes = NAN;
	p->sweep_min_bytes = a->arms[ai].sweep_min_bytes;
	p->sweep_high_min_bytes = a->arms[ai].sweep_high_min_bytes;
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		struct win_figs f;
		if (r->arm != ai || r->warmup || !tm_outcome_counts(r->outcome))
			continue;
		if (window_figs(st, r->run_id, &a->opts.regimes[ri].w, &f)) {
			free(v);
			return -1;
		}
		add_run(p, v, &f, r->run_id, r->outcome == TM_OUTCOME_COMPLETED,
		        a->opts.min_samples);
	}
	if (p->survivors == 0)
		refuse(p, TM_AR_NONE_SURVIVED,
		       "no run of this arm survived: no limit it can live under is known");
	p->anon_held_bytes = tm_median(v->held, (size_t)v->n);
	p->cache_bytes = tm_median(v->cache, (size_t)v->n);
	p->refaults = tm_median(v->refaults, (size_t)v->n);
	p->psi_io_share = tm_median(v->psi_io, (size_t)v->n);
	p->killed_cache_bytes = tm_median(v->killed_cache, (size_t)v->n_killed);
	p->needed_spread_bytes = spread(v->needed, v->n);
	free(v);
	if (p->refusal == TM_AR_NONE)
		apply_rules(p, a);
	return 0;
}

/* Arm AI's allocator settings, from its first run's environment. */
static int arm_env(struct tm_store *st, struct tm_advise_arm *arm)
{
	struct tm_run_info ri;
	int rc;

	if (arm->n_run_ids == 0)
		return 0;
	rc = tm_store_run_get(st, arm->run_ids[0], &ri);
	if (rc)
		return rc < 0 ? -1 : 0;
	json_t *env = ri.env_json ? json_loads(ri.env_json, 0, NULL) : NULL;
	const char *k;
	json_t *val;
	json_object_foreach(env, k, val)
	{
		if (arm->n_env == TM_ADVISE_MAX_ENV || !json_is_string(val))
			continue;
		snprintf(arm->env[arm->n_env++], sizeof(arm->env[0]), "%s=%s", k,
		         json_string_value(val));
	}
	json_decref(env);
	tm_run_info_release(&ri);
	return 0;
}

/* The limit KEY ("memory_max", "memory_high") run RUN asked for
 * (limits_json), NAN when none or unknown. */
static int requested_limit(struct tm_store *st, int64_t run, const char *key, double *out)
{
	struct tm_run_info ri;
	int rc = tm_store_run_get(st, run, &ri);

	*out = NAN;
	if (rc)
		return rc < 0 ? -1 : 0;
	json_t *l = ri.limits_json ? json_loads(ri.limits_json, 0, NULL) : NULL;
	json_t *r = json_object_get(json_object_get(l, key), "requested");
	if (json_is_integer(r) && json_integer_value(r) > 0)
		*out = (double)json_integer_value(r);
	json_decref(l);
	tm_run_info_release(&ri);
	return 0;
}

/* A run passes at its limit: it completed, and for a MemoryHigh sweep it
 * was not held in throttle limbo (and throttling was measured).  0 or -1. */
static int run_passes(struct tm_store *st, const struct tm_bench_run_row *r, bool high, bool *pass)
{
	struct tm_throttle th;

	*pass = r->outcome == TM_OUTCOME_COMPLETED;
	if (!*pass || !high)
		return 0;
	if (tm_throttle_find(st, r->run_id, 0, -1, &th))
		return -1;
	*pass = th.known && th.n == 0;
	return 0;
}

struct sweep_group {
	double limit;
	bool all_passed;
	int runs, survived;
};

/* The smallest limit of G (N groups) at which it and every larger limit
 * passed every run, NAN: none. */
static double smallest_passing(const struct sweep_group *g, int n)
{
	double min = NAN;

	for (double above = INFINITY;;) {
		int best = -1;
		for (int k = 0; k < n; k++)
			if (g[k].limit < above && (best < 0 || g[k].limit > g[best].limit))
				best = k;
		if (best < 0 || !g[best].all_passed)
			break;
		min = above = g[best].limit;
	}
	return min;
}

/* A sweep among arm AI's runs (two limits KEY or more, HIGH: MemoryHigh):
 * the smallest limit at which it and every larger limit passed every run,
 * into *MIN (NAN: none); survival is then counted at or above it. */
static int arm_sweep_min(struct tm_store *st, struct tm_advise *a, int ai, bool high, double *min)
{
	struct sweep_group g[64];
	int n = 0;
	const struct tm_bench_table *t = &a->table;

	*min = NAN;
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		double lim;
		bool pass;
		int k = 0;
		if (r->arm != ai || r->warmup || !tm_outcome_counts(r->outcome))
			continue;
		if (requested_limit(st, r->run_id, high ? "memory_high" : "memory_max", &lim) ||
		    run_passes(st, r, high, &pass))
			return -1;
		if (isnan(lim))
			continue;
		while (k < n && g[k].limit != lim)
			k++;
		if (k == n && n == 64)
			continue;
		if (k == n)
			g[n++] = (struct sweep_group){lim, true, 0, 0};
		g[k].all_passed &= pass;
		g[k].runs++;
		g[k].survived += r->outcome == TM_OUTCOME_COMPLETED;
	}
	if (n < 2 || isnan(*min = smallest_passing(g, n)))
		return 0;
	/* survival is judged where the arm can live: the sweep's deliberate
	 * kills (or throttled runs) below its smallest passing limit are not
	 * held against it */
	struct tm_advise_arm *arm = &a->arms[ai];
	arm->swept_below = arm->runs;
	arm->runs = arm->survived = 0;
	for (int k = 0; k < n; k++)
		if (g[k].limit >= *min) {
			arm->runs += g[k].runs;
			arm->survived += g[k].survived;
		}
	arm->swept_below -= arm->runs;
	return 0;
}

/* Fills the arms from the table: names, counts, run ids, settings. */
static int fill_arms(struct tm_store *st, struct tm_advise *a)
{
	const struct tm_bench_table *t = &a->table;

	a->n_arms = t->n_arms;
	for (int ai = 0; ai < t->n_arms; ai++) {
		struct tm_advise_arm *arm = &a->arms[ai];
		const struct tm_bench_arm_row *r = &t->arms[ai];
		snprintf(arm->name, sizeof(arm->name), "%s", r->name);
		snprintf(arm->allocator, sizeof(arm->allocator), "%s", r->allocator);
		arm->runs = r->runs;
		arm->survived = r->survived;
		arm->killed = r->oom_killed + r->killed;
		for (int i = 0; i < t->n_runs; i++)
			if (t->runs[i].arm == ai && !t->runs[i].warmup && arm->n_run_ids < 32)
				arm->run_ids[arm->n_run_ids++] = t->runs[i].run_id;
		arm->sweep_high_min_bytes = NAN;
		if (arm_env(st, arm) || arm_sweep_min(st, a, ai, false, &arm->sweep_min_bytes))
			return -1;
		/* a MemoryHigh sweep, when the runs were not a MemoryMax one */
		if (isnan(arm->sweep_min_bytes) &&
		    arm_sweep_min(st, a, ai, true, &arm->sweep_high_min_bytes))
			return -1;
	}
	return 0;
}

static void fill_defaults(struct tm_advise *a, const struct tm_advise_opts *opts)
{
	a->opts = *opts;
	if (a->opts.margin_frac <= 0)
		a->opts.margin_frac = TM_ADVISE_MARGIN_FRAC;
	if (a->opts.min_samples <= 0)
		a->opts.min_samples = TM_ADVISE_MIN_SAMPLES;
	if (a->opts.n_regimes == 0) {
		a->opts.n_regimes = 1;
		memset(&a->opts.regimes[0], 0, sizeof(a->opts.regimes[0]));
		snprintf(a->opts.regimes[0].name, sizeof(a->opts.regimes[0].name), "whole run");
		a->opts.regimes[0].w.kind = TM_WIN_ALL;
	}
	for (int i = 0; i < a->opts.n_reserves; i++)
		a->reserve_bytes += a->opts.reserves[i].bytes;
	a->recommended = -1;
	a->made_wall_usec = tm_now_wall_usec();
}

int tm_advise_compute(struct tm_store *st, const struct tm_advise_opts *opts, struct tm_advise *a)
{
	memset(a, 0, sizeof(*a));
	fill_defaults(a, opts);
	if (opts->n_runs == 0) {
		a->refusal = TM_AR_NO_RUNS;
		snprintf(a->why, sizeof(a->why), "no runs to advise from");
		return 0;
	}
	if (tm_bench_table_of_runs(st, opts->runs, opts->n_runs, &a->table) || fill_arms(st, a))
		return -1;
	for (int ai = 0; ai < a->n_arms; ai++)
		for (int ri = 0; ri < a->opts.n_regimes; ri++)
			if (arm_profile(st, a, ai, ri))
				return -1;
	tm_advise_rank(a);
	return 0;
}

void tm_advise_release(struct tm_advise *a)
{
	tm_bench_table_release(&a->table);
}
