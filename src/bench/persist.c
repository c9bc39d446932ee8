/* What a bench writes about itself: limits text and the spec as JSON; see bench/persist.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/util.h"
#include "bench/param.h"
#include "bench/persist.h"
#include "cgroup/cgroup.h"
#include "report/run/runjson.h"
#include "base/banned.h"

static size_t limit_part(char *buf, size_t size, const char *key, int64_t bytes)
{
	char num[32];
	int n;

	if (bytes == TM_LIMIT_UNSET)
		return 0;
	if (bytes == INT64_MAX)
		snprintf(num, sizeof(num), "max");
	else if (bytes == 0)
		snprintf(num, sizeof(num), "0");
	else if (bytes % (1024 * 1024) == 0)
		snprintf(num, sizeof(num), "%lldM", (long long)(bytes / (1024 * 1024)));
	else
		snprintf(num, sizeof(num), "%lld", (long long)bytes);
	n = snprintf(buf, size, "%s=%s ", key, num);
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

void tm_bench_limits_text(const struct tm_bench_spec *sp, const struct tm_bench_arm *arm, char *buf,
                          size_t size)
{
	int64_t max = arm->memory_max_bytes != TM_LIMIT_UNSET ? arm->memory_max_bytes
	                                                      : sp->rec.limits.memory_max_bytes;
	int64_t high = arm->memory_high_bytes != TM_LIMIT_UNSET ? arm->memory_high_bytes
	                                                        : sp->rec.limits.memory_high_bytes;
	int64_t swap = arm->swap_max_bytes != TM_LIMIT_UNSET ? arm->swap_max_bytes
	                                                     : sp->rec.limits.swap_max_bytes;
	size_t n = 0;

	buf[0] = '\0';
	n += limit_part(buf + n, size - n, "MemoryMax", max);
	n += limit_part(buf + n, size - n, "MemoryHigh", high);
	n += limit_part(buf + n, size - n, "MemorySwapMax", swap);
	if (n)
		buf[n - 1] = '\0';
}

static json_t *argv_json(char *const *argv)
{
	json_t *a = json_array();
	for (; argv && *argv; argv++)
		json_array_append_new(a, json_string(*argv));
	return a;
}

static json_t *arm_spec_json(const struct tm_bench_spec *sp, const struct tm_bench_arm *arm,
                             const char *env_text)
{
	char limits[256];
	json_t *env = json_object();

	for (int i = 0; i < arm->n_env; i++)
		json_object_set_new(env, arm->env[i].name, json_string(arm->env[i].value));
	tm_bench_limits_text(sp, arm, limits, sizeof(limits));
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", arm->name, "allocator",
	                      tm_bench_alloc_name(arm->alloc), "expect", tm_bench_arm_expect(arm),
	                      "env_text", env_text ? env_text : "", "limits_text", limits);
	json_object_set_new(o, "declared_env", env);
	json_object_set_new(o, "preload", tm_json_str(arm->preload));
	json_object_set_new(o, "exec_start", tm_json_str(arm->exec_start));
	json_object_set_new(o, "memory_max_bytes", json_integer(arm->memory_max_bytes));
	json_object_set_new(o, "memory_high_bytes", json_integer(arm->memory_high_bytes));
	json_object_set_new(o, "swap_max_bytes", json_integer(arm->swap_max_bytes));
	return o;
}

char *tm_bench_spec_json(const struct tm_bench_spec *sp, char *const *argv, char *const *env_text)
{
	json_t *arms = json_array(), *o = json_object();
	char *text;

	for (int i = 0; i < sp->n_arms; i++)
		json_array_append_new(
		    arms, arm_spec_json(sp, &sp->arms[i], env_text ? env_text[i] : NULL));
	json_object_set_new(o, "command", argv_json(argv));
	json_object_set_new(o, "arms", arms);
	json_object_set_new(o, "runs", json_integer(sp->runs));
	json_object_set_new(o, "warmup", json_integer(sp->warmup));
	json_object_set_new(o, "order", json_string(tm_bench_order_name(sp->order)));
	json_object_set_new(o, "seed", json_integer(sp->seed));
	json_object_set_new(o, "window", tm_json_str(sp->window));
	json_object_set_new(o, "restore", tm_json_str(sp->restore));
	json_object_set_new(o, "unit", tm_json_str(sp->unit));
	json_object_set_new(o, "prepare", tm_json_str(sp->prepare));
	json_object_set_new(o, "cleanup", tm_json_str(sp->cleanup));
	json_object_set_new(o, "progress_regex", tm_json_str(sp->rec.progress_regex));
	json_object_set_new(o, "units", sp->rec.has_units ? json_real(sp->rec.units) : json_null());
	json_object_set_new(o, "units_from", tm_json_str(sp->rec.units_from));
	json_object_set_new(o, "until_progress",
	                    sp->rec.stop_at_progress ? json_real(sp->rec.until_progress)
	                                             : json_null());
	json_object_set_new(o, "timeout_usec", json_integer(sp->rec.timeout_usec));
	json_object_set_new(o, "settle_usec", json_integer(sp->rec.settle_usec));
	json_object_set_new(o, "interval_usec", json_integer(sp->rec.interval_usec));
	json_object_set_new(o, "drop_caches", json_boolean(sp->drop_caches));
	json_object_set_new(o, "inherit_env", json_boolean(sp->inherit_env));
	json_object_set_new(o, "heap", json_boolean(sp->rec.heap));
	json_object_set_new(o, "param", tm_bench_param_json(&sp->param));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}
