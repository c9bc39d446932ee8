/*
 * The bench table from the store: the bench's spec, its runs, each run's
 * summary over the bench's window, and how busy the machine was.
 */
#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/error.h"
#include "base/sample.h"
#include "base/util.h"
#include "report/bench/benchparam.h"
#include "report/bench/benchtab.h"
#include "report/run/summary.h"
#include "report/run/throttle.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* A shell-like rendering of the JSON argv, for the header line. */
static char *command_text(json_t *argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	size_t i;
	json_t *v;

	if (!f)
		return NULL;
	json_array_foreach(argv, i, v)
	{
		const char *s = json_string_value(v);
		if (!s)
			continue;
		fprintf(f, i ? " " : "");
		if (strpbrk(s, " \t'\"$\\") || !*s)
			fprintf(f, "'%s'", s);
		else
			fputs(s, f);
	}
	fclose(f);
	if (buf && !*buf) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int load_spec(struct tm_bench_table *t, const char *spec_text)
{
	json_error_t err;
	json_t *spec = json_loads(spec_text, 0, &err), *arms, *a;
	size_t i;

	if (!spec)
		return tm_error("bench %lld: bad spec in the store: %s", (long long)t->bench_id,
		                err.text);
	arms = json_object_get(spec, "arms");
	json_array_foreach(arms, i, a)
	{
		if (t->n_arms == TM_BENCH_TAB_MAX_ARMS)
			break;
		struct tm_bench_arm_row *r = &t->arms[t->n_arms++];
		copy(r->name, sizeof(r->name), json_string_value(json_object_get(a, "name")));
		copy(r->allocator, sizeof(r->allocator),
		     json_string_value(json_object_get(a, "allocator")));
		r->env_text = dup_or_null(json_string_value(json_object_get(a, "env_text")));
		r->limits_text = dup_or_null(json_string_value(json_object_get(a, "limits_text")));
	}
	copy(t->window, sizeof(t->window), json_string_value(json_object_get(spec, "window")));
	t->settle_usec = json_integer_value(json_object_get(spec, "settle_usec"));
	t->command = command_text(json_object_get(spec, "command"));
	json_t *u = json_object_get(spec, "units");
	t->units = json_is_number(u) ? json_number_value(u) : NAN;
	t->units_from = dup_or_null(json_string_value(json_object_get(spec, "units_from")));
	json_decref(spec);
	return 0;
}

/* 0, 1 when there is no such bench, -1. */
static int load_bench_row(struct tm_store *st, struct tm_bench_table *t)
{
	struct tm_bench_info b;
	int rc = tm_bench_store_get(st, t->bench_id, &b);

	if (rc)
		return rc;
	copy(t->name, sizeof(t->name), b.name);
	t->seed = b.seed;
	copy(t->order, sizeof(t->order), b.order);
	copy(t->host, sizeof(t->host), b.host);
	t->started_wall_usec = b.started_wall_usec;
	t->ended_wall_usec = b.ended_wall_usec;
	rc = load_spec(t, b.spec_json ? b.spec_json : "");
	tm_bench_info_release(&b);
	return rc;
}

struct run_list {
	struct tm_bench_table *t;
	size_t cap;
	int64_t *started, *ended; /* wall usec, per run */
};

static int arm_index(const struct tm_bench_table *t, const char *name)
{
	for (int i = 0; name && i < t->n_arms; i++)
		if (!strcmp(t->arms[i].name, name))
			return i;
	return -1;
}

/* A table of loose runs (tm_bench_table_of_runs): the arm is the run's arm
 * name, else its allocator, else "run ID"; a new name adds an arm. */
static int add_loose_arm(struct tm_bench_table *t, const struct tm_run_info *ri, int *arm)
{
	char name[64];

	if (ri->arm && *ri->arm)
		copy(name, sizeof(name), ri->arm);
	else if (ri->allocator && *ri->allocator)
		copy(name, sizeof(name), ri->allocator);
	else
		snprintf(name, sizeof(name), "run %lld", (long long)ri->id);
	*arm = arm_index(t, name);
	if (*arm >= 0)
		return 0;
	if (t->n_arms == TM_BENCH_TAB_MAX_ARMS)
		return tm_error("more than %d arms", TM_BENCH_TAB_MAX_ARMS);
	struct tm_bench_arm_row *r = &t->arms[t->n_arms];
	copy(r->name, sizeof(r->name), name);
	copy(r->allocator, sizeof(r->allocator), ri->allocator);
	*arm = t->n_arms++;
	return 0;
}

static int collect_run(void *ctx, const struct tm_run_info *ri)
{
	struct run_list *l = ctx;
	struct tm_bench_table *t = l->t;

	if ((size_t)t->n_runs == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		void *r = realloc(t->runs, cap * sizeof(*t->runs));
		void *s = realloc(l->started, cap * sizeof(int64_t));
		void *e = s ? realloc(l->ended, cap * sizeof(int64_t)) : NULL;
		if (r)
			t->runs = r;
		if (s)
			l->started = s;
		if (e)
			l->ended = e;
		if (!r || !s || !e)
			return tm_error("out of memory");
		l->cap = cap;
	}
	struct tm_bench_run_row *row = &t->runs[t->n_runs];
	memset(row, 0, sizeof(*row));
	if (!t->n_runs)
		copy(t->cgroup_mode, sizeof(t->cgroup_mode), ri->cgroup_mode);
	row->run_id = ri->id;
	row->seq = ri->bench_seq;
	row->arm = arm_index(t, ri->arm);
	if (t->bench_id == 0 && add_loose_arm(t, ri, &row->arm))
		return -1;
	/* a run that never ended (the recorder died) counts as interrupted */
	row->outcome =
	    ri->outcome && *ri->outcome ? tm_outcome_of(ri->outcome) : TM_OUTCOME_INTERRUPTED;
	copy(row->reason, sizeof(row->reason), ri->reason);
	for (int f = 0; f < TM_BF_COUNT; f++)
		row->fig[f] = NAN;
	row->steal_share = row->other_share = row->work_wall_usec = NAN;
	l->started[t->n_runs] = ri->started_wall_usec;
	l->ended[t->n_runs] = ri->ended_wall_usec;
	t->n_runs++;
	return 0;
}

/* warmup, the work's wall time and the rig's own CPU from bench_runs;
 * WALL stays 0 and RIG_CPU -1 when unknown.  0, or -1 after tm_error. */
static int load_note(struct tm_store *st, int64_t run_id, bool *warmup, int64_t *wall,
                     int64_t *rig_cpu)
{
	struct tm_bench_run_note n;
	int rc = tm_bench_store_note(st, run_id, &n);

	*warmup = n.warmup;
	*wall = n.wall_usec;
	*rig_cpu = n.rig_cpu_usec;
	return rc < 0 ? -1 : 0;
}

/* How busy the machine was around a run: the first and last samples that carry the host's CPU. */
struct noise {
	bool have_first;
	struct tm_sample first, last;
};

static bool host_cpu(const struct tm_sample *s)
{
	return tm_sample_has(s, TM_M_HOST_CPU_TOTAL_USEC) &&
	       tm_sample_has(s, TM_M_HOST_CPU_BUSY_USEC);
}

static int noise_sample(void *ctx, const struct tm_sample *s)
{
	struct noise *n = ctx;

	if (!host_cpu(s))
		return 0;
	if (!n->have_first) {
		n->first = *s;
		n->have_first = true;
	}
	n->last = *s;
	return 0;
}

static double own_cpu(const struct tm_sample *s)
{
	if (tm_sample_has(s, TM_M_CG_CPU_USAGE_USEC))
		return (double)s->v[TM_M_CG_CPU_USAGE_USEC];
	if (tm_sample_has(s, TM_M_PROC_UTIME_USEC) && tm_sample_has(s, TM_M_PROC_STIME_USEC))
		return (double)(s->v[TM_M_PROC_UTIME_USEC] + s->v[TM_M_PROC_STIME_USEC]);
	return NAN;
}

/* Shares need enough machine time to mean something: /proc/stat counts in
 * 10 ms ticks and the rig's own start-up weighs on very short runs. */
#define NOISE_MIN_TOTAL_USEC 2000000.0

/* The run's share of the machine; 0, or -1 after tm_error (a store
 * error: no share is better than one from part of the run). */
static int load_noise(struct tm_store *st, struct tm_bench_run_row *row, int64_t rig_cpu)
{
	struct noise *n = calloc(1, sizeof(*n));

	if (!n)
		return tm_error("out of memory");
	if (tm_store_each_sample(st, row->run_id, 0, -1, noise_sample, n) < 0) {
		free(n);
		return -1;
	}
	if (n->have_first) {
		double total = (double)(n->last.v[TM_M_HOST_CPU_TOTAL_USEC] -
		                        n->first.v[TM_M_HOST_CPU_TOTAL_USEC]);
		double busy = (double)(n->last.v[TM_M_HOST_CPU_BUSY_USEC] -
		                       n->first.v[TM_M_HOST_CPU_BUSY_USEC]);
		double own = own_cpu(&n->last) - own_cpu(&n->first);
		if (rig_cpu > 0)
			own += (double)rig_cpu;
		if (total < NOISE_MIN_TOTAL_USEC)
			total = 0;
		if (total > 0 && tm_sample_has(&n->last, TM_M_HOST_CPU_STEAL_USEC) &&
		    tm_sample_has(&n->first, TM_M_HOST_CPU_STEAL_USEC))
			row->steal_share = (double)(n->last.v[TM_M_HOST_CPU_STEAL_USEC] -
			                            n->first.v[TM_M_HOST_CPU_STEAL_USEC]) /
			                   total;
		if (total > 0 && isfinite(own))
			row->other_share = fmax(0, busy - own) / total;
	}
	free(n);
	return 0;
}

/* The work done: --units / --units-from when given, else the progress made. */
static double work_units(const struct tm_summary *s)
{
	return isfinite(s->units) ? s->units : s->progress_last - s->progress_first;
}

/* The run's throttle limbo, for the notes.  0 or -1. */
static int load_throttle(struct tm_store *st, struct tm_bench_run_row *row)
{
	struct tm_throttle th;

	if (tm_throttle_find(st, row->run_id, 0, -1, &th))
		return -1;
	row->throttle_spans = th.known ? th.n : 0;
	if (row->throttle_spans > 0)
		tm_throttle_span_text(&th.spans[0], row->throttle, sizeof(row->throttle));
	return 0;
}

static double per_unit(double usec, const struct tm_summary *s)
{
	double units = work_units(s);
	return isfinite(units) && units > 0 ? usec / units : NAN;
}

static double sum_present(double a, double b)
{
	if (isnan(a))
		return b;
	if (isnan(b))
		return a;
	return a + b;
}

/* What a derived figure is computed from: the run's summary, the figures
 * above it in the registry, and the whole run's wall time. */
struct derive_ctx {
	const struct tm_summary *s;
	const double *fig;
	bool whole_run;
	int64_t wall_usec;
};

static double derive_peak_mem(const struct derive_ctx *c)
{
	return isfinite(c->s->cg_peak_bytes) ? c->s->cg_peak_bytes : c->s->peak_current_bytes;
}

/* a whole run's wall time is the work's, not the settle after it */
static double derive_wall(const struct derive_ctx *c)
{
	return c->whole_run && c->wall_usec > 0 ? (double)c->wall_usec : c->s->duration_usec;
}

static double derive_io(const struct derive_ctx *c)
{
	return sum_present(c->s->io_read_bytes, c->s->io_write_bytes);
}

static double derive_progress(const struct derive_ctx *c)
{
	return isfinite(c->s->progress_last) ? c->s->progress_last : c->s->units;
}

static double derive_rate(const struct derive_ctx *c)
{
	double wall = c->fig[TM_BF_WALL];
	if (isfinite(c->s->units) && !(c->s->progress_rate_per_min > 0) && wall > 0)
		return c->s->units / (wall / 60e6);
	return c->s->progress_rate_per_min;
}

static double derive_wall_per_unit(const struct derive_ctx *c)
{
	return per_unit(c->fig[TM_BF_WALL], c->s);
}

static double derive_cpu_per_unit(const struct derive_ctx *c)
{
	return isfinite(c->s->cpu_usec_per_unit) && !isfinite(c->s->units)
	           ? c->s->cpu_usec_per_unit
	           : per_unit(c->s->cpu_usec, c->s);
}

/* the split of held after, all three from its sample */
static double derive_heap_end(const struct derive_ctx *c)
{
	return c->s->end_na == TM_END_OOM_KILLED ? c->s->heap_live_last_seen_bytes
	                                         : c->s->anon_heap_live_end_bytes;
}

/* Where each figure's value comes from (the registry's FROM): a double of
 * the summary, a derive_ function (a name the registry gives that has no
 * function here does not compile), or the scraped gauges (benchscrape.c). */
enum fig_src { FROM_FIELD, FROM_DERIVED, FROM_SCRAPED };
static const struct {
	enum fig_src kind;
	size_t offset; /* FROM_FIELD */
	double (*derive)(const struct derive_ctx *c);
} fig_from[TM_BF_COUNT] = {
/* SRC_ pasted to the registry's FROM (FIELD(name), DERIVED(fn), SCRAPED) */
#define SRC_FIELD(name)                                                                            \
	{                                                                                          \
		FROM_FIELD, offsetof(struct tm_summary, name), NULL                                \
	}
#define SRC_DERIVED(fn)                                                                            \
	{                                                                                          \
		FROM_DERIVED, 0, derive_##fn                                                       \
	}
#define SRC_SCRAPED                                                                                \
	{                                                                                          \
		FROM_SCRAPED, 0, NULL                                                              \
	}
#define TM_BF_FROM(id, key, label, unit, scale, noise, agg, param, rank, from)                     \
	[TM_BF_##id] = SRC_##from,
    TM_BENCH_FIG_LIST(TM_BF_FROM)
#undef TM_BF_FROM
#undef SRC_FIELD
#undef SRC_DERIVED
#undef SRC_SCRAPED
};

bool tm_bench_fig_sourced(int f)
{
	if (f < 0 || f >= TM_BF_COUNT)
		return false;
	switch (fig_from[f].kind) {
	case FROM_FIELD:
		return fig_from[f].offset + sizeof(double) <= sizeof(struct tm_summary);
	case FROM_DERIVED:
		return fig_from[f].derive != NULL;
	case FROM_SCRAPED:
		return f >= TM_BF_SCRAPED_1_PEAK &&
		       f < TM_BF_SCRAPED_1_PEAK + 2 * TM_BENCH_SCRAPED_SLOTS;
	}
	return false;
}

static void figures_from(struct tm_bench_run_row *row, const struct tm_summary *s, bool whole_run,
                         int64_t wall_usec)
{
	const struct derive_ctx c = {s, row->fig, whole_run, wall_usec};

	for (int f = 0; f < TM_BF_COUNT; f++) {
		if (fig_from[f].kind == FROM_FIELD)
			memcpy(&row->fig[f], (const char *)s + fig_from[f].offset, sizeof(double));
		else if (fig_from[f].kind == FROM_DERIVED)
			row->fig[f] = fig_from[f].derive(&c);
	}
	row->held_kind = tm_summary_held_kind(s);
}

/* Each collected run's figures over the table's window. */
static int fill_runs(struct tm_store *st, struct tm_bench_table *t, struct run_list *lp)
{
	struct run_list l = *lp;
	struct tm_window w = {.kind = TM_WIN_ALL}, all = {.kind = TM_WIN_ALL};
	int rc = 0;

	if (t->window[0] && tm_window_parse(t->window, &w))
		return -1;
	for (int i = 0; i < t->n_runs; i++) {
		struct tm_bench_run_row *row = &t->runs[i];
		struct tm_summary s;
		int64_t wall, rig_cpu;
		if (load_note(st, row->run_id, &row->warmup, &wall, &rig_cpu)) {
			rc = -1;
			goto out;
		}
		if (wall <= 0 && l.ended[i] > l.started[i])
			wall = l.ended[i] - l.started[i];
		if (wall > 0)
			row->work_wall_usec = (double)wall;
		int r = tm_summarize(st, row->run_id, &w, &s);
		if (r < 0) {
			rc = -1;
			goto out;
		}
		if (r == 0)
			figures_from(row, &s, w.kind == TM_WIN_ALL, wall);
		/* how far the run got is a whole-run figure, whatever the window */
		if (w.kind != TM_WIN_ALL && tm_summarize(st, row->run_id, &all, &s) == 0)
			row->fig[TM_BF_PROGRESS] = s.progress_last;
		else if (w.kind == TM_WIN_ALL && wall > 0)
			row->fig[TM_BF_WALL] = (double)wall;
		if (load_noise(st, row, rig_cpu) || load_throttle(st, row)) {
			rc = -1;
			goto out;
		}
	}
	rc = tm_bench_scraped_fill(st, t);
out:
	return rc;
}

static int load_runs(struct tm_store *st, struct tm_bench_table *t)
{
	struct run_list l = {.t = t};
	int rc = tm_store_each_run(st, t->bench_id, collect_run, &l) ? -1 : 0;

	if (rc == 0)
		rc = fill_runs(st, t, &l);
	free(l.started);
	free(l.ended);
	return rc;
}

int tm_bench_table_of_runs(struct tm_store *st, const int64_t *run_ids, int n,
                           struct tm_bench_table *t)
{
	struct run_list l = {.t = t};
	int rc = 0;

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n && rc == 0; i++) {
		struct tm_run_info ri;
		int r = tm_store_run_get(st, run_ids[i], &ri);
		if (r)
			rc = r < 0 ? -1
			           : tm_error("no run %lld in the store", (long long)run_ids[i]);
		else {
			rc = collect_run(&l, &ri);
			tm_run_info_release(&ri);
		}
	}
	if (rc == 0)
		rc = fill_runs(st, t, &l);
	if (rc == 0)
		tm_bench_table_compute(t);
	free(l.started);
	free(l.ended);
	return rc;
}

int tm_bench_table_load(struct tm_store *st, int64_t bench_id, struct tm_bench_table *t)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->bench_id = bench_id;
	t->units = NAN;
	rc = load_bench_row(st, t);
	if (rc == 0)
		rc = load_runs(st, t);
	if (rc == 0)
		tm_bench_table_compute(t);
	if (rc == 0)
		rc = tm_bench_param_attach(st, t); /* bench --param: per value */
	return rc;
}

int tm_bench_table_json(struct tm_store *st, int64_t bench_id, char **json_out)
{
	struct tm_bench_table t;
	int rc = tm_bench_table_load(st, bench_id, &t);

	*json_out = NULL;
	if (rc == 1)
		rc = tm_error("no bench %lld in the store", (long long)bench_id);
	if (rc == 0 && !(*json_out = tm_bench_table_to_json(&t)))
		rc = tm_error("out of memory");
	tm_bench_table_release(&t);
	return rc;
}

/* "run 7 (arm jemalloc) was removed ...": a bench's runs that are gone. */
static int print_removed(void *ctx, const struct tm_removed_run *r)
{
	char when[32];
	time_t t = (time_t)(r->removed_wall_usec / 1000000);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(ctx,
	        "run %" PRId64 " (arm %s, run %" PRId64 " of the bench) was removed (%s, %s): "
	        "the table leaves it out\n",
	        r->run_id, r->arm ? r->arm : "?", r->bench_seq, r->how ? r->how : "?", when);
	return 0;
}

int tm_bench_table_print(struct tm_store *st, int64_t bench_id, FILE *out)
{
	struct tm_bench_table t;
	int rc = tm_bench_table_load(st, bench_id, &t);

	if (rc == 0) {
		tm_bench_table_write_text(&t, out);
		rc = tm_store_each_removed(st, bench_id, print_removed, out) ? -1 : 0;
	}
	tm_bench_table_release(&t);
	return rc;
}
