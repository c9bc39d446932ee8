/*
 * bench --sweep: per arm, the smallest MemoryMax (or MemoryHigh) at which
 * every run survives, by bisection between LO and HI to a resolution, and
 * the survival curve it walked.  Each probe (one limit, --runs runs) is a
 * bench of its own; runs of the same arm, command, environment and limits
 * already in the store count towards a probe, so a sweep run again, or
 * resumed after an interruption, makes only the runs it lacks.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "bench/runner.h"
#include "report/sweep/sweepcurve.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

#define MAX_PROBES     TM_SWEEP_MAX_POINTS
#define MAX_PROBE_RUNS TM_SWEEP_MAX_POINT_RUNS

struct arm_sweep {
	const char *name;
	struct tm_sweep_point probes[MAX_PROBES];
	int n;
	int64_t smallest;       /* the smallest limit that passed, -1 none */
	int64_t largest_failed; /* the largest that did not, -1 none */
	bool interrupted;
};

/* What a stored run must match to count for a probe. */
struct match {
	const char *arm, *env_text;
	char *const *argv;
	struct tm_limits limits;
	int which; /* enum tm_bench_sweep_limit */
	struct tm_store *st;
	struct tm_sweep_point *p;
	int rc;
};

static bool argv_equal(const char *command_json, char *const *argv)
{
	json_t *a = command_json ? json_loads(command_json, 0, NULL) : NULL;
	size_t i = 0;
	bool eq = json_is_array(a);

	for (; eq && argv[i]; i++)
		eq = i < json_array_size(a) &&
		     !strcmp(json_string_value(json_array_get(a, i)) ?: "", argv[i]);
	eq = eq && i == json_array_size(a);
	json_decref(a);
	return eq;
}

/* ENV_JSON's pairs are exactly the words of ENV_TEXT ("VAR=VAL ..."). */
static bool env_equal(const char *env_json, const char *env_text)
{
	json_t *e = env_json ? json_loads(env_json, 0, NULL) : json_object();
	const char *k;
	json_t *v;
	size_t words = 0;
	bool eq = json_is_object(e);

	for (const char *p = env_text; *p; p++)
		words += (p == env_text || p[-1] == ' ') && *p != ' ';
	eq = eq && json_object_size(e) == words;
	json_object_foreach(e, k, v)
	{
		char pair[512];
		snprintf(pair, sizeof(pair), "%s=%s", k, json_string_value(v) ?: "");
		const char *at = strstr(env_text, pair);
		size_t len = strlen(pair);
		eq = eq && at && (at == env_text || at[-1] == ' ') && (at[len] == ' ' || !at[len]);
	}
	json_decref(e);
	return eq;
}

/* The requested value of limit KEY in LIMITS_JSON, or TM_LIMIT_UNSET. */
static int64_t requested(json_t *limits, const char *key)
{
	json_t *r = json_object_get(json_object_get(limits, key), "requested");
	return json_is_integer(r) ? (int64_t)json_integer_value(r) : TM_LIMIT_UNSET;
}

static bool limits_equal(const char *limits_json, const struct tm_limits *want)
{
	json_t *l = limits_json ? json_loads(limits_json, 0, NULL) : NULL;
	bool eq = requested(l, "memory_max") == want->memory_max_bytes &&
	          requested(l, "memory_high") == want->memory_high_bytes &&
	          requested(l, "swap_max") == want->swap_max_bytes;
	json_decref(l);
	return eq;
}

static int match_run(void *ctx, const struct tm_run_info *ri)
{
	struct match *m = ctx;
	struct tm_bench_run_note note;

	if (!ri->arm || strcmp(ri->arm, m->arm) || ri->bench_id <= 0 || !ri->outcome ||
	    !tm_outcome_counts(tm_outcome_of(ri->outcome)) || m->p->n_runs == MAX_PROBE_RUNS)
		return 0;
	if (!limits_equal(ri->limits_json, &m->limits) || !argv_equal(ri->command_json, m->argv) ||
	    !env_equal(ri->env_json, m->env_text))
		return 0;
	if (tm_bench_store_note(m->st, ri->id, &note) < 0)
		return -1;
	if (note.warmup)
		return 0;
	m->p->runs[m->p->n_runs++] = ri->id;
	bool seen = false;
	for (int i = 0; i < m->p->n_benches; i++)
		seen |= m->p->benches[i] == ri->bench_id;
	if (!seen && m->p->n_benches < 8)
		m->p->benches[m->p->n_benches++] = ri->bench_id;
	return 0;
}

/* The kind of curve a sweep of WHICH (enum tm_bench_sweep_limit) draws. */
static enum tm_sweep_kind kind_of(int which)
{
	return which == TM_SWEEP_MEMORY_HIGH ? TM_SWEEP_KIND_HIGH : TM_SWEEP_KIND_MAX;
}

static bool passed(const struct tm_sweep_point *p, int which)
{
	return tm_sweep_point_passed(p, kind_of(which));
}

static int judge(struct tm_store *st, struct tm_sweep_point *p)
{
	return tm_sweep_point_judge(st, p);
}

struct sweep {
	struct tm_bench_plan *plan;
	const struct tm_bench_spec *sp;
	struct tm_store *st;
	int ai;
	struct arm_sweep *as;
};

static void set_limit(struct tm_limits *l, int which, int64_t v)
{
	if (which == TM_SWEEP_MEMORY_MAX)
		l->memory_max_bytes = v;
	else
		l->memory_high_bytes = v;
}

/* One probe at LIMIT: the runs in the store first, then the missing ones.
 * 0, 1 interrupted, -1. */
static int probe(struct sweep *sw, int64_t limit, struct tm_sweep_point **out)
{
	struct tm_sweep_point *p = &sw->as->probes[sw->as->n];
	struct match m = {.arm = sw->as->name, .st = sw->st, .p = p, .which = sw->sp->sweep.limit};
	char name[160], mib[32];
	int rc = 0;

	if (sw->as->n == MAX_PROBES)
		return tm_error("sweep: more than %d probes", MAX_PROBES);
	memset(p, 0, sizeof(*p));
	p->limit = limit;
	if (tm_bench_plan_arm(sw->plan, sw->ai, &m.argv, &m.env_text, &m.limits))
		return -1;
	set_limit(&m.limits, sw->sp->sweep.limit, limit);
	if (tm_store_each_run(sw->st, 0, match_run, &m))
		return -1;
	p->reused = p->n_runs;
	int missing = (int)sw->sp->runs - p->n_runs;
	tm_fmt_mib(mib, sizeof(mib), limit);
	if (missing > 0) {
		struct tm_bench_probe pr;
		snprintf(name, sizeof(name), "sweep %s %s=%s", sw->as->name,
		         sw->sp->sweep.limit == TM_SWEEP_MEMORY_MAX ? "MemoryMax" : "MemoryHigh",
		         mib);
		rc = tm_bench_run_probe(sw->plan, sw->st, sw->ai, &m.limits, missing, name, &pr);
		if (rc < 0)
			return -1;
		p->n_runs = p->n_benches = 0;
		if (tm_store_each_run(sw->st, 0, match_run, &m))
			return -1;
	}
	if (judge(sw->st, p))
		return -1;
	tm_note("sweep %s at %s: survived %d/%d%s%s", sw->as->name, mib, p->survived, p->tried,
	        p->throttled ? ", throttled" : "",
	        p->reused ? " (runs reused from the store)" : "");
	sw->as->n++;
	*out = p;
	return rc;
}

static int64_t mid_of(int64_t lo, int64_t hi)
{
	int64_t mid = lo + (hi - lo) / 2;
	return mid / 1048576 * 1048576 > lo ? mid / 1048576 * 1048576 : mid;
}

/* Bisection for one arm.  0, 1 interrupted, -1. */
static int sweep_arm(struct sweep *sw)
{
	const struct tm_bench_sweep *cfg = &sw->sp->sweep;
	struct tm_sweep_point *p;
	int64_t ok, bad;
	int rc;

	sw->as->smallest = sw->as->largest_failed = -1;
	if ((rc = probe(sw, cfg->hi, &p)))
		return rc;
	if (!passed(p, cfg->limit)) {
		sw->as->largest_failed = cfg->hi;
		return 0;
	}
	ok = cfg->hi;
	if ((rc = probe(sw, cfg->lo, &p)))
		return rc;
	if (passed(p, cfg->limit)) {
		sw->as->smallest = cfg->lo;
		return 0;
	}
	bad = cfg->lo;
	while (ok - bad > cfg->resolution) {
		int64_t mid = mid_of(bad, ok);
		if ((rc = probe(sw, mid, &p)))
			break;
		if (passed(p, cfg->limit))
			ok = mid;
		else
			bad = mid;
	}
	sw->as->smallest = ok;
	sw->as->largest_failed = bad;
	return rc;
}

static int cmp_probe(const void *a, const void *b)
{
	int64_t x = ((const struct tm_sweep_point *)a)->limit,
	        y = ((const struct tm_sweep_point *)b)->limit;
	return x < y ? -1 : x > y;
}

static const char *limit_name(int which)
{
	return tm_sweep_kind_name(kind_of(which));
}

static void print_verdict(const struct tm_bench_spec *sp, const struct arm_sweep *as, FILE *f)
{
	char a[32], b[32], r[32];

	tm_fmt_mib(r, sizeof(r), sp->sweep.resolution);
	if (as->smallest < 0) {
		tm_fmt_mib(a, sizeof(a), sp->sweep.hi);
		fprintf(f, "%s: no %s up to %s passes every run: raise HI\n", as->name,
		        limit_name(sp->sweep.limit), a);
		return;
	}
	tm_fmt_mib(a, sizeof(a), as->smallest);
	if (as->largest_failed < 0) {
		fprintf(f, "%s: passes every run already at LO, %s=%s: lower LO\n", as->name,
		        limit_name(sp->sweep.limit), a);
		return;
	}
	tm_fmt_mib(b, sizeof(b), as->largest_failed);
	fprintf(f, "%s: smallest %s passing every run %s (%s did not; resolution %s)%s\n", as->name,
	        limit_name(sp->sweep.limit), a, b, r, as->interrupted ? " — interrupted" : "");
}

static void print_curve(const struct tm_bench_spec *sp, const struct arm_sweep *as, FILE *f)
{
	static const char *const fmt[TM_SWEEP_CELLS] = {"  %-11s", " %-9s", " %-15s", " %-8s",
	                                                " %-10s",  " %-8s", " %s"};
	const char *head[TM_SWEEP_CELLS];
	char cells[TM_SWEEP_CELLS][TM_SWEEP_CELL_SIZE];
	int n = tm_sweep_curve_head(kind_of(sp->sweep.limit), head);

	print_verdict(sp, as, f);
	for (int c = 0; c < n; c++)
		fprintf(f, fmt[c], head[c]);
	fputc('\n', f);
	for (int i = 0; i < as->n; i++) {
		n = tm_sweep_point_cells(&as->probes[i], kind_of(sp->sweep.limit), cells);
		for (int c = 0; c < n; c++)
			fprintf(f, fmt[c], cells[c]);
		fputc('\n', f);
	}
}

static json_t *curve_json(const struct tm_bench_spec *sp, const struct arm_sweep *as)
{
	return tm_sweep_arm_json(as->name, kind_of(sp->sweep.limit), as->smallest,
	                         as->largest_failed, as->interrupted, as->probes, as->n);
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* "the runs are in benches 3-8,11: tidemark advise --bench 3-8,11" */
static void print_benches(const struct arm_sweep *arms, int n, FILE *f)
{
	int64_t ids[MAX_PROBES * 8 * 4];
	size_t k = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < arms[i].n; j++)
			for (int b = 0; b < arms[i].probes[j].n_benches && k < TM_ARRAY_SIZE(ids);
			     b++)
				ids[k++] = arms[i].probes[j].benches[b];
	if (k == 0)
		return;
	qsort(ids, k, sizeof(ids[0]), cmp_id);
	fprintf(f, "\nthe runs are in benches ");
	char list[512];
	size_t len = 0;
	for (size_t i = 0; i < k;) {
		size_t j = i;
		while (j + 1 < k && ids[j + 1] <= ids[j] + 1)
			j++;
		int w = ids[j] > ids[i]
		            ? snprintf(list + len, sizeof(list) - len, "%s%lld-%lld",
		                       len ? "," : "", (long long)ids[i], (long long)ids[j])
		            : snprintf(list + len, sizeof(list) - len, "%s%lld", len ? "," : "",
		                       (long long)ids[i]);
		if (w < 0 || (size_t)w >= sizeof(list) - len)
			break;
		len += (size_t)w;
		i = j + 1;
	}
	fprintf(f, "%s: tidemark advise --bench %s\n", list, list);
}

/* The curves as bench --sweep --json prints them (and --export json writes). */
static json_t *sweep_json(const struct tm_bench_spec *sp, const struct arm_sweep *arms, int n)
{
	json_t *o = json_object(), *a = json_array();

	if (!o || !a) {
		json_decref(o);
		json_decref(a);
		return NULL;
	}
	json_object_set_new(o, "limit", json_string(limit_name(sp->sweep.limit)));
	json_object_set_new(o, "lo_bytes", json_integer(sp->sweep.lo));
	json_object_set_new(o, "hi_bytes", json_integer(sp->sweep.hi));
	json_object_set_new(o, "resolution_bytes", json_integer(sp->sweep.resolution));
	json_object_set_new(o, "runs_per_limit", json_integer(sp->runs));
	for (int i = 0; i < n; i++)
		json_array_append_new(a, curve_json(sp, &arms[i]));
	json_object_set_new(o, "arms", a);
	return o;
}

static void print_all(const struct tm_bench_spec *sp, struct arm_sweep *arms, int n, bool json,
                      FILE *f)
{
	char lo[32], hi[32], res[32];

	if (json) {
		json_t *o = sweep_json(sp, arms, n);
		if (o)
			json_dumpf(o, f, JSON_INDENT(2));
		fputc('\n', f);
		json_decref(o);
		return;
	}
	tm_fmt_mib(lo, sizeof(lo), sp->sweep.lo);
	tm_fmt_mib(hi, sizeof(hi), sp->sweep.hi);
	tm_fmt_mib(res, sizeof(res), sp->sweep.resolution);
	fprintf(f, "\nsweep %s %s..%s, resolution %s, %lld runs a limit\n",
	        limit_name(sp->sweep.limit), lo, hi, res, (long long)sp->runs);
	for (int i = 0; i < n; i++) {
		fputc('\n', f);
		print_curve(sp, &arms[i], f);
	}
	print_benches(arms, n, f);
}

/* The format of an --export spec "FMT[:PATH]" into FMT; PATH or NULL. */
static const char *export_fmt(const char *spec, char *fmt, size_t size)
{
	const char *colon = strchr(spec, ':');

	snprintf(fmt, size, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	return colon && colon[1] ? colon + 1 : NULL;
}

/* A sweep exports its curve, as JSON only: the per-bench table formats
 * (csv, md) have no curve.  0, or -1 after tm_error, before anything runs. */
static int check_exports(const struct tm_bench_output *out)
{
	char fmt[16];

	for (int i = 0; i < out->n_exports; i++) {
		export_fmt(out->exports[i], fmt, sizeof(fmt));
		if (strcmp(fmt, "json") != 0)
			return tm_error("--export %s: a sweep exports its curve as json only "
			                "(--export json[:PATH]); the table of each of its benches: "
			                "bench --table ID --export %s",
			                fmt, fmt);
	}
	return 0;
}

/* The smallest bench id of the sweep's probes, or 0. */
static int64_t first_bench(const struct arm_sweep *arms, int n)
{
	int64_t first = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < arms[i].n; j++)
			for (int b = 0; b < arms[i].probes[j].n_benches; b++) {
				int64_t id = arms[i].probes[j].benches[b];
				if (!first || id < first)
					first = id;
			}
	return first;
}

/* --export json[:PATH]: the curves, to PATH or sweep-ID.json (ID: the
 * sweep's first bench).  0, or -1 after tm_error. */
static int export_curves(const struct tm_bench_spec *sp, const struct arm_sweep *arms, int n,
                         const struct tm_bench_output *out)
{
	for (int i = 0; i < out->n_exports; i++) {
		char fmt[16], path[4096];
		const char *given = export_fmt(out->exports[i], fmt, sizeof(fmt));
		json_t *o = sweep_json(sp, arms, n);
		int rc;

		if (given)
			snprintf(path, sizeof(path), "%s", given);
		else
			snprintf(path, sizeof(path), "sweep-%lld.json",
			         (long long)first_bench(arms, n));
		rc = o ? json_dump_file(o, path, JSON_INDENT(2)) : -1;
		json_decref(o);
		if (rc)
			return tm_error("--export: cannot write '%s'", path);
		tm_note("wrote %s", path);
	}
	return 0;
}

enum tm_bench_status tm_bench_sweep(struct tm_bench_plan *plan, struct tm_store *st,
                                    const char *store_name, const struct tm_bench_output *out)
{
	const struct tm_bench_spec *sp = tm_bench_plan_spec(plan);
	struct arm_sweep *arms = calloc((size_t)sp->n_arms, sizeof(*arms));
	int rc = 0, done = 0;

	if (check_exports(out)) {
		free(arms);
		return TM_BENCH_BAD_INPUT;
	}
	if (!arms)
		return tm_error("out of memory"), TM_BENCH_FAILED;
	if (tm_bench_push_begin(plan, store_name)) {
		free(arms);
		return TM_BENCH_FAILED;
	}
	tm_note("sweep into %s", store_name);
	for (; done < sp->n_arms && rc == 0; done++) {
		struct sweep sw = {.plan = plan, .sp = sp, .st = st, .ai = done, .as = &arms[done]};
		arms[done].name = sp->arms[done].name;
		rc = sweep_arm(&sw);
		arms[done].interrupted = rc == 1;
		if (rc == 0 && sp->sweep.limit == TM_SWEEP_MEMORY_HIGH &&
		    arms[done].probes[0].throttle_unknown) {
			rc = tm_error(
			    "--sweep MemoryHigh needs memory.high events and memory pressure, "
			    "which this host's runs do not have (cgroup v1 cannot throttle; "
			    "run it on cgroup v2)");
			done++;
			break;
		}
	}
	tm_bench_push_end(plan);
	for (int i = 0; i < done; i++)
		qsort(arms[i].probes, (size_t)arms[i].n, sizeof(struct tm_sweep_point), cmp_probe);
	print_all(sp, arms, done, out->json, stdout);
	if (export_curves(sp, arms, done, out) && rc == 0)
		rc = -1;
	free(arms);
	if (rc == 1)
		tm_error(
		    "sweep interrupted: the curve covers the limits so far; every run is stored");
	return rc ? TM_BENCH_FAILED : TM_BENCH_OK;
}
