/*
 * A sweep's curve: each limit's runs judged as bench --sweep judges a
 * probe, as JSON; and the curve of a stored bench, found again from the
 * runs in the store (report --bench N --html, the API).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/outcome.h"
#include "base/util.h"
#include "report/bench/benchtab.h"
#include "report/run/stats.h"
#include "report/sweep/sweepcurve.h"
#include "report/run/throttle.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "report/run/runjson.h"
#include "base/banned.h"

/* A limit a run did not set (cgroup/cgroup.h's TM_LIMIT_UNSET). */
#define UNSET (-1)

const char *tm_sweep_kind_name(enum tm_sweep_kind k)
{
	return k == TM_SWEEP_KIND_HIGH ? "MemoryHigh" : "MemoryMax";
}

int tm_sweep_point_judge(struct tm_store *st, struct tm_sweep_point *p)
{
	struct tm_bench_table *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return tm_error("out of memory");
	double rate[TM_SWEEP_MAX_POINT_RUNS], psi[TM_SWEEP_MAX_POINT_RUNS];
	size_t n = 0;

	rc = tm_bench_table_of_runs(st, p->runs, p->n_runs, t);
	p->peak_anon = p->wall_usec = p->rate_per_min = p->psi_mem_share = NAN;
	p->tried = p->survived = p->throttled = p->throttle_unknown = 0;
	for (int i = 0; rc == 0 && i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		struct tm_throttle th;
		if (r->warmup || !tm_outcome_counts(r->outcome))
			continue;
		if (n < TM_SWEEP_MAX_POINT_RUNS) {
			/* every run's pace, a throttled one stopped by its timeout too */
			rate[n] = r->fig[TM_BF_RATE];
			psi[n++] = r->fig[TM_BF_WALL] > 0
			               ? r->fig[TM_BF_PSI_MEM] / r->fig[TM_BF_WALL]
			               : NAN;
		}
		p->tried++;
		p->survived += r->outcome == TM_OUTCOME_COMPLETED;
		if ((rc = tm_throttle_find(st, r->run_id, 0, -1, &th)))
			break;
		p->throttled += th.known && th.n > 0;
		p->throttle_unknown += !th.known;
	}
	if (rc == 0 && t->n_arms > 0) {
		const struct tm_bench_arm_row *a = &t->arms[0];
		p->peak_anon =
		    a->survived ? a->stat[TM_BF_PEAK_ANON].median : a->killed_peak.median;
		p->wall_usec = a->survived ? a->stat[TM_BF_WALL].median : a->killed_wall.median;
	}
	if (rc == 0) {
		p->rate_per_min = tm_median(rate, n);
		p->psi_mem_share = tm_median(psi, n);
	}
	tm_bench_table_release(t);
	free(t);
	return rc;
}

bool tm_sweep_point_passed(const struct tm_sweep_point *p, enum tm_sweep_kind k)
{
	if (p->tried == 0 || p->survived < p->tried)
		return false;
	return k != TM_SWEEP_KIND_HIGH || (p->throttled == 0 && p->throttle_unknown == 0);
}

int tm_sweep_curve_head(enum tm_sweep_kind k, const char *head[TM_SWEEP_CELLS])
{
	static const char *const cols[TM_SWEEP_CELLS] = {
	    NULL, "survived", "peak anon MiB", "wall s", "rate /min", "psi mem", "throttled"};
	int n = k == TM_SWEEP_KIND_HIGH ? TM_SWEEP_CELLS : 4;

	for (int i = 0; i < n; i++)
		head[i] = i ? cols[i] : tm_sweep_kind_name(k);
	return n;
}

static void fmt_or_na(char *buf, size_t size, const char *fmt, double v)
{
	if (isfinite(v))
		snprintf(buf, size, fmt, v);
	else
		snprintf(buf, size, "n/a");
}

int tm_sweep_point_cells(const struct tm_sweep_point *p, enum tm_sweep_kind k,
                         char cells[TM_SWEEP_CELLS][TM_SWEEP_CELL_SIZE])
{
	tm_fmt_mib(cells[0], TM_SWEEP_CELL_SIZE, p->limit);
	snprintf(cells[1], TM_SWEEP_CELL_SIZE, "%d/%d", p->survived, p->tried);
	fmt_or_na(cells[2], TM_SWEEP_CELL_SIZE, p->survived == 0 ? "%.1f (killed)" : "%.1f",
	          p->peak_anon / TM_MIB);
	fmt_or_na(cells[3], TM_SWEEP_CELL_SIZE, "%.2f", p->wall_usec / 1e6);
	if (k != TM_SWEEP_KIND_HIGH)
		return 4;
	fmt_or_na(cells[4], TM_SWEEP_CELL_SIZE, "%.0f", p->rate_per_min);
	fmt_or_na(cells[5], TM_SWEEP_CELL_SIZE, "%.0f %%", 100 * p->psi_mem_share);
	snprintf(cells[6], TM_SWEEP_CELL_SIZE, "%d/%d", p->throttled, p->tried);
	return TM_SWEEP_CELLS;
}

/* The line above an arm's curve: what the curve says of its limit. */
static void verdict_text(char *buf, size_t size, const char *arm, enum tm_sweep_kind k,
                         int64_t smallest, int64_t largest_failed, bool interrupted)
{
	char a[32], b[32];

	if (smallest < 0) {
		snprintf(buf, size, "%s: no %s measured passes every run", arm,
		         tm_sweep_kind_name(k));
		return;
	}
	tm_fmt_mib(a, sizeof(a), smallest);
	if (largest_failed < 0) {
		snprintf(buf, size, "%s: passes every run already at the smallest %s measured, %s",
		         arm, tm_sweep_kind_name(k), a);
		return;
	}
	snprintf(buf, size, "%s: smallest %s passing every run %s (%s did not)%s", arm,
	         tm_sweep_kind_name(k), a, tm_fmt_mib(b, sizeof(b), largest_failed),
	         interrupted ? " — interrupted" : "");
}

json_t *tm_sweep_arm_json(const char *arm, enum tm_sweep_kind k, int64_t smallest,
                          int64_t largest_failed, bool interrupted,
                          const struct tm_sweep_point *points, int n)
{
	json_t *o = json_object(), *pts = json_array(), *cols = json_array();
	const char *head[TM_SWEEP_CELLS];
	char cells[TM_SWEEP_CELLS][TM_SWEEP_CELL_SIZE], verdict[512];
	int nc = tm_sweep_curve_head(k, head);

	verdict_text(verdict, sizeof(verdict), arm, k, smallest, largest_failed, interrupted);
	json_object_set_new(o, "arm", json_string(arm));
	json_object_set_new(o, "smallest_passing_bytes",
	                    smallest >= 0 ? json_integer(smallest) : json_null());
	json_object_set_new(o, "largest_failing_bytes",
	                    largest_failed >= 0 ? json_integer(largest_failed) : json_null());
	json_object_set_new(o, "interrupted", json_boolean(interrupted));
	json_object_set_new(o, "verdict", json_string(verdict));
	for (int c = 0; c < nc; c++)
		json_array_append_new(cols, json_string(head[c]));
	json_object_set_new(o, "columns", cols);
	for (int i = 0; i < n; i++) {
		const struct tm_sweep_point *p = &points[i];
		json_t *runs = json_array(), *text = json_array();
		for (int r = 0; r < p->n_runs; r++)
			json_array_append_new(runs, json_integer(p->runs[r]));
		nc = tm_sweep_point_cells(p, k, cells);
		for (int c = 0; c < nc; c++)
			json_array_append_new(text, json_string(cells[c]));
		json_array_append_new(
		    pts,
		    json_pack("{s:I, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:o}",
		              "limit_bytes", (json_int_t)p->limit, "runs", p->tried, "survived",
		              p->survived, "throttled", p->throttled, "peak_anon_bytes",
		              tm_json_num(p->peak_anon), "wall_usec", tm_json_num(p->wall_usec),
		              "rate_per_min", tm_json_num(p->rate_per_min), "psi_mem_share",
		              tm_json_num(p->psi_mem_share), "run_ids", runs, "reused", p->reused,
		              "text", text));
	}
	json_object_set_new(o, "curve", pts);
	return o;
}

/* ---- the curve of a stored bench ---- */

struct stored_arm {
	char *arm, *command_json, *env_json;
	int64_t lim[3]; /* the bench's own memory_max, memory_high, swap_max */
	/* the points over MemoryMax and over MemoryHigh */
	struct tm_sweep_point pts[2][TM_SWEEP_MAX_POINTS];
	int n[2];
};

struct stored {
	struct stored_arm arms[TM_BENCH_TAB_MAX_ARMS];
	int n;
	struct tm_store *st;
};

enum { L_MAX, L_HIGH, L_SWAP };

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int64_t requested(json_t *limits, const char *key)
{
	json_t *r = json_object_get(json_object_get(limits, key), "requested");
	return json_is_integer(r) ? (int64_t)json_integer_value(r) : UNSET;
}

static void limits_of(const char *limits_json, int64_t lim[3])
{
	json_t *l = limits_json ? json_loads(limits_json, 0, NULL) : NULL;
	lim[L_MAX] = requested(l, "memory_max");
	lim[L_HIGH] = requested(l, "memory_high");
	lim[L_SWAP] = requested(l, "swap_max");
	json_decref(l);
}

/* The bench's arms: name, command, environment and limits. */
static int stored_arm_of(void *ctx, const struct tm_run_info *ri)
{
	struct stored *s = ctx;

	if (!ri->arm || s->n == TM_BENCH_TAB_MAX_ARMS)
		return 0;
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->arms[i].arm, ri->arm) == 0)
			return 0;
	struct stored_arm *a = &s->arms[s->n++];
	limits_of(ri->limits_json, a->lim);
	a->arm = strdup(ri->arm);
	a->command_json = ri->command_json ? strdup(ri->command_json) : NULL;
	a->env_json = ri->env_json ? strdup(ri->env_json) : NULL;
	return a->arm ? 0 : tm_error("out of memory");
}

/* Run ID at LIMIT among the points PTS (N of them). */
static void add_point(struct tm_sweep_point *pts, int *n, int64_t limit, int64_t id)
{
	int k = 0;

	while (k < *n && pts[k].limit != limit)
		k++;
	if (k == TM_SWEEP_MAX_POINTS)
		return;
	if (k == *n) {
		memset(&pts[k], 0, sizeof(pts[k]));
		pts[k].limit = limit;
		(*n)++;
	}
	if (pts[k].n_runs < TM_SWEEP_MAX_POINT_RUNS)
		pts[k].runs[pts[k].n_runs++] = id;
}

/* Every stored run of the same arm, command and environment: at its
 * MemoryMax when its MemoryHigh and swap are the bench's, at its MemoryHigh
 * when its MemoryMax and swap are (the probes of a sweep, made at any time). */
static int stored_probe_of(void *ctx, const struct tm_run_info *ri)
{
	struct stored *s = ctx;
	struct tm_bench_run_note note;
	int64_t lim[3];

	if (!ri->arm || ri->bench_id <= 0 || !ri->outcome ||
	    !tm_outcome_counts(tm_outcome_of(ri->outcome)))
		return 0;
	for (int i = 0; i < s->n; i++) {
		struct stored_arm *a = &s->arms[i];
		if (strcmp(a->arm, ri->arm) || !same_text(a->command_json, ri->command_json) ||
		    !same_text(a->env_json, ri->env_json))
			continue;
		limits_of(ri->limits_json, lim);
		bool by_max = lim[L_MAX] != UNSET && lim[L_HIGH] == a->lim[L_HIGH] &&
		              lim[L_SWAP] == a->lim[L_SWAP];
		bool by_high = lim[L_HIGH] != UNSET && lim[L_MAX] == a->lim[L_MAX] &&
		               lim[L_SWAP] == a->lim[L_SWAP];
		if (!by_max && !by_high)
			return 0;
		if (tm_bench_store_note(s->st, ri->id, &note) < 0)
			return -1;
		if (note.warmup)
			return 0;
		if (by_max)
			add_point(a->pts[L_MAX], &a->n[L_MAX], lim[L_MAX], ri->id);
		if (by_high)
			add_point(a->pts[L_HIGH], &a->n[L_HIGH], lim[L_HIGH], ri->id);
		return 0;
	}
	return 0;
}

static int cmp_point(const void *a, const void *b)
{
	int64_t x = ((const struct tm_sweep_point *)a)->limit,
	        y = ((const struct tm_sweep_point *)b)->limit;
	return x < y ? -1 : x > y;
}

/* Judges the N points PTS of kind K; the smallest limit passing with every
 * larger one, and the largest below it that did not. */
static int stored_curve(struct tm_store *st, struct tm_sweep_point *pts, int n,
                        enum tm_sweep_kind k, int64_t *smallest, int64_t *largest_failed)
{
	*smallest = *largest_failed = -1;
	for (int i = 0; i < n; i++)
		if (tm_sweep_point_judge(st, &pts[i]))
			return -1;
	qsort(pts, (size_t)n, sizeof(pts[0]), cmp_point);
	for (int i = n - 1; i >= 0; i--) {
		if (!tm_sweep_point_passed(&pts[i], k)) {
			*largest_failed = pts[i].limit;
			break;
		}
		*smallest = pts[i].limit;
	}
	return 0;
}

/* The kind the bench was swept over: the limit with more distinct values
 * among its arms' runs (MemoryMax on a tie), or -1 when neither has two. */
static int swept_kind(const struct stored *s)
{
	int sum[2] = {0, 0};

	for (int i = 0; i < s->n; i++)
		for (int k = 0; k < 2; k++)
			sum[k] += s->arms[i].n[k] >= 2 ? s->arms[i].n[k] : 0;
	if (sum[L_MAX] == 0 && sum[L_HIGH] == 0)
		return -1;
	return sum[L_HIGH] > sum[L_MAX] ? TM_SWEEP_KIND_HIGH : TM_SWEEP_KIND_MAX;
}

/* The JSON of the arms of kind K (with two points or more) into ARMS. */
static int curve_arms(struct stored *s, enum tm_sweep_kind k, json_t *arms, int64_t *runs,
                      int *n_runs, int max_runs)
{
	int li = k == TM_SWEEP_KIND_HIGH ? L_HIGH : L_MAX;

	for (int i = 0; i < s->n; i++) {
		struct stored_arm *a = &s->arms[i];
		int64_t lo, bad;
		if (a->n[li] < 2)
			continue;
		if (stored_curve(s->st, a->pts[li], a->n[li], k, &lo, &bad))
			return -1;
		json_array_append_new(
		    arms, tm_sweep_arm_json(a->arm, k, lo, bad, false, a->pts[li], a->n[li]));
		for (int p = 0; p < a->n[li]; p++)
			for (int r = 0; r < a->pts[li][p].n_runs && *n_runs < max_runs; r++)
				runs[(*n_runs)++] = a->pts[li][p].runs[r];
	}
	return 0;
}

json_t *tm_sweep_stored_curve(struct tm_store *st, int64_t bench_id, int64_t *runs, int *n_runs,
                              int max_runs)
{
	struct stored *s = calloc(1, sizeof(*s));
	json_t *o = NULL, *arms = json_array();
	int rc, kind = -1;

	if (!s || !arms) {
		free(s);
		json_decref(arms);
		return tm_error("out of memory"), NULL;
	}
	s->st = st;
	*n_runs = 0;
	rc = tm_store_each_run(st, bench_id, stored_arm_of, s);
	if (rc == 0)
		rc = tm_store_each_run(st, 0, stored_probe_of, s);
	if (rc == 0 && (kind = swept_kind(s)) >= 0)
		rc = curve_arms(s, (enum tm_sweep_kind)kind, arms, runs, n_runs, max_runs);
	if (rc == 0 && kind >= 0) {
		o = json_object();
		json_object_set_new(o, "limit", json_string(tm_sweep_kind_name(kind)));
		json_object_set_new(o, "arms", arms);
	} else {
		json_decref(arms);
		o = rc == 0 ? json_null() : NULL;
	}
	for (int i = 0; i < s->n; i++) {
		free(s->arms[i].arm);
		free(s->arms[i].command_json);
		free(s->arms[i].env_json);
	}
	free(s);
	return o;
}
