/*
 * advise --verify: a bench of the proposed settings.  The recommended arm
 * runs again, N times, with the command, hooks, progress and restored
 * state of the bench its runs came from, under the proposed MemoryMax,
 * MemoryHigh and MemorySwapMax; it is verified only when every run
 * survived and none was held in throttle limbo.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "advise/advise.h"
#include "base/error.h"
#include "bench/bench.h"
#include "bench/runner.h"
#include "report/run/throttle.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

/* One argument as the experiment file's command line splits it back. */
static int put_arg(FILE *f, const char *a)
{
	if (*a && !strpbrk(a, " \t'\"\\"))
		return fputs(a, f) < 0 ? -1 : 0;
	if (!strchr(a, '\''))
		return fprintf(f, "'%s'", a) < 0 ? -1 : 0;
	return tm_error("--verify: cannot quote the argument '%s'", a);
}

static void put_str(FILE *f, json_t *spec, const char *json_key, const char *ini_key)
{
	const char *v = json_string_value(json_object_get(spec, json_key));
	if (v && *v)
		fprintf(f, "%s=%s\n", ini_key, v);
}

static void put_usec(FILE *f, json_t *spec, const char *json_key, const char *ini_key)
{
	json_int_t v = json_integer_value(json_object_get(spec, json_key));
	if (v > 0)
		fprintf(f, "%s=%lldms\n", ini_key, (long long)((v + 999) / 1000));
}

static void put_bool(FILE *f, json_t *spec, const char *json_key, const char *ini_key)
{
	if (json_is_true(json_object_get(spec, json_key)))
		fprintf(f, "%s=yes\n", ini_key);
}

/* The [bench] section: what the source bench ran with. */
static int bench_section(FILE *f, json_t *spec, int runs)
{
	json_t *cmd = json_object_get(spec, "command"), *v;
	size_t i;

	fprintf(f, "[bench]\nRuns=%d\n", runs);
	put_usec(f, spec, "interval_usec", "Interval");
	put_usec(f, spec, "timeout_usec", "Timeout");
	put_usec(f, spec, "settle_usec", "Settle");
	put_str(f, spec, "progress_regex", "Progress");
	put_str(f, spec, "units_from", "UnitsFrom");
	put_str(f, spec, "restore", "Restore");
	put_str(f, spec, "prepare", "Prepare");
	put_str(f, spec, "cleanup", "Cleanup");
	put_bool(f, spec, "drop_caches", "DropCaches");
	put_bool(f, spec, "heap", "Heap");
	if (json_is_number(json_object_get(spec, "until_progress")))
		fprintf(f, "UntilProgress=%.17g\n",
		        json_number_value(json_object_get(spec, "until_progress")));
	if (json_is_integer(json_object_get(spec, "units")))
		fprintf(f, "Units=%lld\n",
		        (long long)json_integer_value(json_object_get(spec, "units")));
	if (!json_is_array(cmd) || json_array_size(cmd) == 0)
		return tm_error("--verify: the source bench has no shared command");
	fputs("ExecStart=", f);
	json_array_foreach(cmd, i, v)
	{
		if ((i && fputc(' ', f) < 0) || put_arg(f, json_string_value(v) ?: ""))
			return -1;
	}
	fputc('\n', f);
	return 0;
}

/* The arm's section: its allocator and declared environment, the proposed limits. */
static int arm_section(FILE *f, json_t *spec, const char *arm, const struct tm_advise_profile *p)
{
	json_t *arms = json_object_get(spec, "arms"), *a, *env, *v;
	const char *k;
	size_t i;

	json_array_foreach(arms, i, a)
	{
		if (strcmp(json_string_value(json_object_get(a, "name")) ?: "", arm))
			continue;
		fprintf(f, "[%s]\nAllocator=%s\n", arm,
		        json_string_value(json_object_get(a, "allocator")) ?: "glibc");
		env = json_object_get(a, "declared_env");
		json_object_foreach(env, k, v)
		{
			fprintf(f, "Environment=\"%s=%s\"\n", k, json_string_value(v) ?: "");
		}
		fprintf(f, "MemoryMax=%.0fM\nMemoryHigh=%.0fM\nMemorySwapMax=0\n",
		        p->memory_max_bytes / 1048576, p->memory_high_bytes / 1048576);
		return 0;
	}
	return tm_error("--verify: arm '%s' is not in its bench's spec", arm);
}

/* The experiment file for the verification, malloc'd into *TEXT.  0 or -1. */
static int verify_ini(struct tm_store *st, const struct tm_advise *a, int regime, int runs,
                      char **text)
{
	const struct tm_advise_arm *arm = &a->arms[a->recommended];
	struct tm_run_info ri;
	struct tm_bench_info b;
	size_t len = 0;
	int rc = tm_store_run_get(st, arm->run_ids[0], &ri);

	*text = NULL;
	if (rc)
		return rc < 0 ? -1 : tm_error("--verify: run %" PRId64 " is gone", arm->run_ids[0]);
	int64_t bench = ri.bench_id;
	tm_run_info_release(&ri);
	if (bench <= 0)
		return tm_error("--verify needs runs from a bench (run %" PRId64 " is not in one): "
		                "it reruns that bench's command, hooks and restored state",
		                arm->run_ids[0]);
	if ((rc = tm_bench_store_get(st, bench, &b)))
		return rc < 0 ? -1 : tm_error("--verify: no bench %" PRId64, bench);
	json_t *spec = json_loads(b.spec_json ? b.spec_json : "", 0, NULL);
	FILE *f = open_memstream(text, &len);
	rc = !spec || !f ? tm_error("--verify: bench %" PRId64 " has no readable spec", bench)
	                 : bench_section(f, spec, runs);
	if (rc == 0)
		rc = arm_section(f, spec, arm->name, &arm->prof[regime]);
	if (f)
		fclose(f);
	json_decref(spec);
	tm_bench_info_release(&b);
	return rc;
}

static int count_run(void *ctx, const struct tm_run_info *ri)
{
	struct tm_advise_verify *v = ctx;
	struct tm_throttle th;

	if (tm_throttle_find(v->st, ri->id, 0, -1, &th))
		return -1;
	v->throttled += th.known && th.n > 0;
	if (!th.known && !v->why[0])
		snprintf(v->why, sizeof(v->why), "%s", th.why);
	v->throttle_unknown += !th.known;
	return 0;
}

static void verdict(const struct tm_advise *a, int regime, struct tm_advise_verify *v)
{
	const struct tm_advise_profile *p = &a->arms[a->recommended].prof[regime];
	char lim[96];

	snprintf(lim, sizeof(lim), "MemoryMax=%.0fM MemoryHigh=%.0fM",
	         p->memory_max_bytes / 1048576, p->memory_high_bytes / 1048576);
	v->verified = v->tried > 0 && v->survived == v->tried && v->throttled == 0 &&
	              v->throttle_unknown == 0;
	if (v->verified)
		snprintf(v->text, sizeof(v->text),
		         "yes: bench %" PRId64 ", %d/%d runs survived under %s, none throttled",
		         v->bench_id, v->survived, v->tried, lim);
	else if (v->survived < v->tried || v->tried == 0)
		snprintf(v->text, sizeof(v->text),
		         "no: bench %" PRId64 ", %d/%d runs survived under %s", v->bench_id,
		         v->survived, v->tried, lim);
	else if (v->throttled)
		snprintf(v->text, sizeof(v->text),
		         "no: bench %" PRId64 ", %d/%d runs survived under %s but %d were held in "
		         "throttle limbo",
		         v->bench_id, v->survived, v->tried, lim, v->throttled);
	else
		snprintf(v->text, sizeof(v->text),
		         "no: bench %" PRId64 ", %d/%d runs survived under %s, but throttling was "
		         "not measured (%s)",
		         v->bench_id, v->survived, v->tried, lim, v->why);
}

int tm_advise_verify(struct tm_store *st, const struct tm_advise *a, int regime, int runs,
                     struct tm_advise_verify *v)
{
	struct tm_bench_spec *sp = calloc(1, sizeof(*sp));
	struct tm_bench_plan *plan = NULL;
	struct tm_bench_probe pr;
	char *ini = NULL, name[128];
	int rc;

	memset(v, 0, sizeof(*v));
	v->st = st;
	if (!sp)
		return tm_error("out of memory");
	if (a->recommended < 0 || a->arms[a->recommended].prof[regime].refusal != TM_AR_NONE) {
		free(sp);
		return tm_error("--verify: nothing to verify (%s)",
		                a->why[0] ? a->why : a->arms[a->recommended].prof[regime].why);
	}
	tm_bench_spec_init(sp);
	rc = verify_ini(st, a, regime, runs, &ini);
	if (rc == 0)
		rc = tm_bench_parse_ini(sp, ini, "advise --verify");
	if (rc == 0 && tm_bench_plan_new(sp, NULL, &plan) != TM_BENCH_OK)
		rc = -1;
	snprintf(name, sizeof(name), "advise --verify %s (%s)", a->arms[a->recommended].name,
	         a->opts.regimes[regime].name);
	struct tm_limits lim;
	char *const *argv;
	const char *env;
	if (rc == 0 && tm_bench_plan_arm(plan, 0, &argv, &env, &lim))
		rc = -1;
	if (rc == 0 && (rc = tm_bench_run_probe(plan, st, 0, &lim, runs, name, &pr)) == 0) {
		v->bench_id = pr.bench_id;
		v->tried = pr.tried;
		v->survived = pr.survived;
		rc = tm_store_each_run(st, pr.bench_id, count_run, v) ? -1 : 0;
		verdict(a, regime, v);
	} else if (rc > 0)
		rc = tm_error("--verify interrupted: not verified");
	tm_bench_plan_free(plan);
	tm_bench_spec_release(sp);
	free(sp);
	free(ini);
	return rc;
}
