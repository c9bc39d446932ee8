/* Read documents: the lists of benches and sweeps, and a sweep's whole curve. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "report/run/runjson.h"
#include "report/sweep/sweepcurve.h"
#include "serve/api.h"
#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

/* Whether the array of strings ARR holds S. */
static bool has_str(json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) if (!strcmp(json_string_value(v), s)) return true;
	return false;
}

/* Files run RI in its bench of CTX ({"ID": {id, runs, arms, machine}}). */
static int add_bench_run(void *ctx, const struct tm_run_info *ri)
{
	json_t *by_id = ctx, *b, *arms;
	char key[24];

	if (ri->bench_id <= 0)
		return 0;
	snprintf(key, sizeof(key), "%lld", (long long)ri->bench_id);
	b = json_object_get(by_id, key);
	if (!b) {
		if (json_object_size(by_id) >= TM_API_BENCHES_MAX)
			return 0;
		b = json_pack("{s:I, s:i, s:[], s:o}", "id", (json_int_t)ri->bench_id, "runs", 0,
		              "arms", "machine", tm_json_str(ri->machine));
		if (!b || json_object_set_new(by_id, key, b))
			return tm_error("out of memory");
	}
	json_object_set_new(b, "runs",
	                    json_integer(json_integer_value(json_object_get(b, "runs")) + 1));
	arms = json_object_get(b, "arms");
	if (ri->arm && json_array_size(arms) < 64 && !has_str(arms, ri->arm))
		json_array_append_new(arms, json_string(ri->arm));
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* A sweep's probe is a bench named "sweep ARM MemoryMax=64.0 MiB" (or
 * MemoryHigh=), as bench/sweep.c names it: ARM into ARM (of ARMLEN) and
 * the limit's name into *LIMIT; false for any other bench. */
static bool probe_of(const char *name, char *arm, size_t armlen, const char **limit)
{
	static const char *const kinds[] = {" MemoryMax=", " MemoryHigh="};
	const char *at;

	if (!name || strncmp(name, "sweep ", 6))
		return false;
	for (size_t k = 0; k < 2; k++) {
		at = strstr(name + 6, kinds[k]);
		if (at && at > name + 6 && (size_t)(at - name - 6) < armlen) {
			snprintf(arm, armlen, "%.*s", (int)(at - name - 6), name + 6);
			*limit = k ? "MemoryHigh" : "MemoryMax";
			return true;
		}
	}
	return false;
}

/* The command of a bench's spec, as compact JSON text (malloc'd), or NULL. */
static char *command_of(const char *spec_json)
{
	json_t *spec = json_loads(spec_json ? spec_json : "", 0, NULL);
	char *s = spec
	              ? json_dumps(json_object_get(spec, "command"), JSON_COMPACT | JSON_ENCODE_ANY)
	              : NULL;

	json_decref(spec);
	return s;
}

/* The sweep (of SWEEPS, the last one) probe B joins: the same limit,
 * machine and command, and an arm that is the previous probe's or new to
 * it (an arm coming back after another one is the next sweep); else a new
 * sweep.  B's "sweep_id" is set. */
static void file_probe(json_t *sweeps, json_t *b, const char *arm, const char *limit,
                       const char *command, const char *last_arm)
{
	json_t *s = json_array_get(sweeps, json_array_size(sweeps) - 1);
	json_t *arms = s ? json_object_get(s, "arms") : NULL;

	if (!s || strcmp(json_string_value(json_object_get(s, "limit")), limit) ||
	    !json_equal(json_object_get(s, "machine"), json_object_get(b, "machine")) ||
	    strcmp(json_string_value(json_object_get(s, "command")), command) ||
	    (strcmp(last_arm, arm) && has_str(arms, arm))) {
		s = json_pack("{s:O, s:s, s:O, s:s, s:[], s:[], s:i, s:O, s:O}", "id",
		              json_object_get(b, "id"), "limit", limit, "machine",
		              json_object_get(b, "machine"), "command", command, "arms", "benches",
		              "runs", 0, "started_wall_usec",
		              json_object_get(b, "started_wall_usec"), "ended_wall_usec",
		              json_object_get(b, "ended_wall_usec"));
		json_array_append_new(sweeps, s);
		arms = json_object_get(s, "arms");
	}
	if (!has_str(arms, arm))
		json_array_append_new(arms, json_string(arm));
	json_array_append(json_object_get(s, "benches"), json_object_get(b, "id"));
	json_object_set(s, "ended_wall_usec", json_object_get(b, "ended_wall_usec"));
	json_object_set(b, "sweep_id", json_object_get(s, "id"));
}

/* Fills bench B from the benches table and files it in SWEEPS when it is a
 * probe.  0, or -1 after tm_error. */
static int describe_bench(struct tm_store *st, json_t *b, json_t *sweeps, char *last_arm,
                          size_t last_len)
{
	struct tm_bench_info bi;
	char arm[128];
	const char *limit;
	int rc = tm_bench_store_get(st, json_integer_value(json_object_get(b, "id")), &bi);

	if (rc < 0)
		return -1;
	json_object_set_new(b, "name", tm_json_str(rc == 0 ? bi.name : NULL));
	if (rc == 0 && bi.machine)
		json_object_set_new(b, "machine", json_string(bi.machine));
	json_object_set_new(b, "started_wall_usec",
	                    rc == 0 ? json_integer(bi.started_wall_usec) : json_null());
	json_object_set_new(b, "ended_wall_usec",
	                    rc == 0 && bi.ended_wall_usec > 0 ? json_integer(bi.ended_wall_usec)
	                                                      : json_null());
	json_object_set_new(b, "sweep_id", json_null());
	if (rc == 0 && probe_of(bi.name, arm, sizeof(arm), &limit)) {
		char *command = command_of(bi.spec_json);
		file_probe(sweeps, b, arm, limit, command ? command : "", last_arm);
		snprintf(last_arm, last_len, "%s", arm);
		free(command);
	}
	if (rc == 0)
		tm_bench_info_release(&bi);
	return 0;
}

/* Every bench with runs, oldest first, into *BENCHES, and the sweeps their
 * probes make into *SWEEPS.  0, or -1 after tm_error. */
static int catalog(struct tm_store *st, json_t **benches, json_t **sweeps)
{
	json_t *by_id = json_object(), *v;
	const char *key;
	int64_t *ids = NULL;
	size_t n = 0;
	char last_arm[128] = "";
	int rc = -1;

	*benches = json_array();
	*sweeps = json_array();
	if (!by_id || !*benches || !*sweeps || tm_store_each_run(st, 0, add_bench_run, by_id))
		goto out;
	ids = calloc(json_object_size(by_id) + 1, sizeof(*ids));
	if (!ids) {
		tm_error("out of memory");
		goto out;
	}
	json_object_foreach(by_id, key, v) ids[n++] = json_integer_value(json_object_get(v, "id"));
	qsort(ids, n, sizeof(*ids), cmp_id);
	rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		char k[24];
		snprintf(k, sizeof(k), "%lld", (long long)ids[i]);
		v = json_object_get(by_id, k);
		rc = describe_bench(st, v, *sweeps, last_arm, sizeof(last_arm));
		json_array_append(*benches, v);
	}
out:
	free(ids);
	json_decref(by_id);
	if (rc) {
		json_decref(*benches);
		json_decref(*sweeps);
		*benches = *sweeps = NULL;
	}
	return rc;
}

/* ARR reversed (newest first), a new reference; ARR's reference is taken. */
static json_t *reversed(json_t *arr)
{
	json_t *out = json_array();

	for (size_t i = json_array_size(arr); out && i > 0; i--)
		json_array_append(out, json_array_get(arr, i - 1));
	json_decref(arr);
	return out;
}

json_t *tm_api_benches(struct tm_store *st)
{
	json_t *benches, *sweeps;

	if (catalog(st, &benches, &sweeps))
		return NULL;
	json_decref(sweeps);
	return reversed(benches);
}

json_t *tm_api_sweeps(struct tm_store *st)
{
	json_t *benches, *sweeps, *s;
	size_t i;

	if (catalog(st, &benches, &sweeps))
		return NULL;
	json_array_foreach(sweeps, i, s)
	{
		int64_t runs = 0;
		size_t j;
		json_t *id, *b;
		json_array_foreach(json_object_get(s, "benches"), j,
		                   id) for (size_t k = 0; (b = json_array_get(benches, k));
		                            k++) if (json_equal(json_object_get(b, "id"), id))
		    runs += json_integer_value(json_object_get(b, "runs"));
		json_object_set_new(s, "runs", json_integer(runs));
		json_object_del(s, "command");
	}
	json_decref(benches);
	return reversed(sweeps);
}

/* The curve of ARM over LIMIT from bench BENCH_ID's stored sweep, appended
 * to ARMS (nothing when it has none).  0, or -1 after tm_error. */
static int add_arm_curve(struct tm_store *st, int64_t bench_id, const char *arm, const char *limit,
                         json_t *arms)
{
	int n = 0;
	size_t i;
	json_t *c = tm_sweep_stored_curve(st, bench_id, NULL, &n, 0), *a;

	if (!c)
		return -1;
	if (json_is_object(c) &&
	    !strcmp(json_string_value(json_object_get(c, "limit")) ?: "", limit))
		json_array_foreach(
		    json_object_get(c, "arms"), i,
		    a) if (!strcmp(json_string_value(json_object_get(a, "arm")) ?: "", arm))
		    json_array_append(arms, a);
	json_decref(c);
	return 0;
}

/* The first bench of sweep S that ran ARM (a probe of it), or 0. */
static int64_t first_bench_of(json_t *benches, json_t *s, const char *arm)
{
	size_t i;
	json_t *b;

	json_array_foreach(
	    benches, i,
	    b) if (json_equal(json_object_get(b, "sweep_id"), json_object_get(s, "id")) &&
	           has_str(json_object_get(b, "arms"),
	                   arm)) return json_integer_value(json_object_get(b, "id"));
	return 0;
}

json_t *tm_api_sweep(struct tm_store *st, int64_t sweep_id, int *missing)
{
	json_t *benches, *sweeps, *s = NULL, *doc = NULL, *arm;
	size_t i;

	*missing = 0;
	if (catalog(st, &benches, &sweeps))
		return NULL;
	json_array_foreach(sweeps, i,
	                   s) if (json_integer_value(json_object_get(s, "id")) == sweep_id) break;
	if (i == json_array_size(sweeps)) {
		*missing = 1;
		goto out;
	}
	doc = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:[]}", "id", json_object_get(s, "id"),
	                "limit", json_object_get(s, "limit"), "machine",
	                json_object_get(s, "machine"), "benches", json_object_get(s, "benches"),
	                "started_wall_usec", json_object_get(s, "started_wall_usec"),
	                "ended_wall_usec", json_object_get(s, "ended_wall_usec"), "arms");
	json_array_foreach(json_object_get(s, "arms"), i, arm)
	{
		const char *name = json_string_value(arm);
		if (add_arm_curve(st, first_bench_of(benches, s, name), name,
		                  json_string_value(json_object_get(s, "limit")),
		                  json_object_get(doc, "arms"))) {
			json_decref(doc);
			doc = NULL;
			break;
		}
	}
out:
	json_decref(benches);
	json_decref(sweeps);
	return doc;
}
