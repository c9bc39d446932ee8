/* Decoding, validating and filing pushed batches. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/metrics.h"
#include "base/util.h"
#include "serve/ingest.h"
#include "store/store.h"
#include "base/banned.h"

#define WALL_MIN 946684800000000LL  /* 2000-01-01 */
#define WALL_MAX 4102444800000000LL /* 2100-01-01 */
#define MONO_MAX (1LL << 62)
#define POS_MAX  (1LL << 40)

/* Refuses keys not in ALLOWED (a NULL-terminated list). */
static int only_keys(json_t *obj, const char *where, const char *const *allowed, struct tm_err *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		bool ok = false;
		for (size_t i = 0; allowed[i] && !ok; i++)
			ok = !strcmp(key, allowed[i]);
		if (!ok)
			return tm_err_set(err, 0, "%s: unknown field '%.64s'", where, key);
	}
	return 0;
}

static int get_int(json_t *obj, const char *where, const char *key, bool required, int64_t min,
                   int64_t max, int64_t *out, struct tm_err *err)
{
	json_t *v = json_object_get(obj, key);

	if (!v) {
		if (required)
			return tm_err_set(err, 0, "%s: missing '%s'", where, key);
		return 0;
	}
	if (!json_is_integer(v))
		return tm_err_set(err, 0, "%s: '%s' must be an integer", where, key);
	*out = json_integer_value(v);
	if (*out < min || *out > max)
		return tm_err_set(err, 0, "%s: '%s' out of range [%lld, %lld]", where, key,
		                  (long long)min, (long long)max);
	return 0;
}

/* No C0 control (but newline and tab when ALLOW_WS), no DEL, and none of
 * the Unicode characters that hide or reorder text (C1, the format
 * characters, separators, invisible fillers: tm_text_is_hidden_control). */
static bool no_controls(const char *s, size_t n, bool allow_ws)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t len;
		if (c == 0 || c == 0x7f || (c < 0x20 && !(allow_ws && (c == '\n' || c == '\t'))))
			return false;
		if (tm_text_is_hidden_control((const unsigned char *)s + i, n - i, &len))
			return false;
	}
	return true;
}

enum str_check { STR_TEXT, STR_MULTILINE, STR_NAME, STR_UUID, STR_PATH, STR_KIND };

static bool str_ok(const char *s, size_t n, enum str_check how)
{
	switch (how) {
	case STR_TEXT:
		return no_controls(s, n, false);
	case STR_MULTILINE:
		return no_controls(s, n, true);
	case STR_NAME:
		return tm_name_valid(s);
	case STR_PATH:
		return n > 0 && s[0] == '/' && no_controls(s, n, false);
	case STR_UUID:
	case STR_KIND:
		if (n == 0)
			return false;
		for (size_t i = 0; i < n; i++) {
			char c = s[i];
			bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
			          (how == STR_UUID && ((c >= 'A' && c <= 'Z') || c == '-'));
			if (!ok)
				return false;
		}
		return true;
	}
	return false;
}

/* *OUT is left NULL when the key is absent or JSON null and not required. */
static int get_str(json_t *obj, const char *where, const char *key, bool required, size_t max_len,
                   enum str_check how, const char **out, struct tm_err *err)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return tm_err_set(err, 0, "%s: missing '%s'", where, key);
		return 0;
	}
	if (!json_is_string(v))
		return tm_err_set(err, 0, "%s: '%s' must be a string", where, key);
	size_t n = json_string_length(v);
	if (n > max_len)
		return tm_err_set(err, 0, "%s: '%s' longer than %zu bytes", where, key, max_len);
	if (n != strlen(json_string_value(v)) || !str_ok(json_string_value(v), n, how))
		return tm_err_set(err, 0, "%s: '%s' has characters not allowed there", where, key);
	*out = json_string_value(v);
	return 0;
}

static int one_of(const char *s, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(s, list[i]))
			return 0;
	return -1;
}

/* A string field that must itself hold JSON of TYPE (array or object). */
static int get_json_text(json_t *obj, const char *key, json_type type, size_t max_len,
                         const char **out, struct tm_err *err)
{
	if (get_str(obj, "run", key, false, max_len, STR_MULTILINE, out, err) < 0)
		return -1;
	if (!*out)
		return 0;
	json_t *inner = json_loads(*out, JSON_REJECT_DUPLICATES, NULL);
	bool ok = inner && json_typeof(inner) == type;
	json_decref(inner);
	if (!ok)
		return tm_err_set(err, 0, "run: '%s' must hold a JSON %s", key,
		                  type == JSON_ARRAY ? "array" : "object");
	return 0;
}

static int decode_meta(json_t *run, struct tm_run_meta *m, struct tm_err *err)
{
	static const char *const keys[] = {"uuid",
	                                   "machine",
	                                   "kernel",
	                                   "cgroup_mode",
	                                   "target",
	                                   "cgroup_path",
	                                   "command_json",
	                                   "env_json",
	                                   "limits_json",
	                                   "allocator",
	                                   "interval_usec",
	                                   "started_wall_usec",
	                                   "started_mono_usec",
	                                   "arm",
	                                   "bench_seq",
	                                   NULL};
	static const char *const modes[] = {"v1", "v2", "hybrid", NULL};
	static const char *const targets[] = {"command", "pid", "cgroup", NULL};

	if (!json_is_object(run))
		return tm_err_set(err, 0, "missing 'run' object");
	if (only_keys(run, "run", keys, err) < 0 ||
	    get_str(run, "run", "uuid", true, 64, STR_UUID, &m->uuid, err) < 0 ||
	    get_str(run, "run", "machine", false, TM_NAME_MAX, STR_NAME, &m->machine, err) < 0 ||
	    get_str(run, "run", "kernel", false, 128, STR_TEXT, &m->kernel, err) < 0 ||
	    get_str(run, "run", "cgroup_mode", false, 8, STR_TEXT, &m->cgroup_mode, err) < 0 ||
	    get_str(run, "run", "target", false, 8, STR_TEXT, &m->target, err) < 0 ||
	    get_str(run, "run", "cgroup_path", false, 4096, STR_PATH, &m->cgroup_path, err) < 0 ||
	    get_json_text(run, "command_json", JSON_ARRAY, 16384, &m->command_json, err) < 0 ||
	    get_json_text(run, "env_json", JSON_OBJECT, 16384, &m->env_json, err) < 0 ||
	    get_json_text(run, "limits_json", JSON_OBJECT, 4096, &m->limits_json, err) < 0 ||
	    get_str(run, "run", "allocator", false, 256, STR_TEXT, &m->allocator, err) < 0 ||
	    get_str(run, "run", "arm", false, TM_NAME_MAX, STR_NAME, &m->arm, err) < 0 ||
	    get_int(run, "run", "interval_usec", true, 1000, 3600000000LL, &m->interval_usec, err) <
	        0 ||
	    get_int(run, "run", "started_wall_usec", true, WALL_MIN, WALL_MAX,
	            &m->started_wall_usec, err) < 0 ||
	    get_int(run, "run", "started_mono_usec", false, 0, MONO_MAX, &m->started_mono_usec,
	            err) < 0 ||
	    get_int(run, "run", "bench_seq", false, 0, 1000000, &m->bench_seq, err) < 0)
		return -1;
	if (m->cgroup_mode && one_of(m->cgroup_mode, modes) < 0)
		return tm_err_set(err, 0, "run: unknown cgroup_mode");
	if (m->target && one_of(m->target, targets) < 0)
		return tm_err_set(err, 0, "run: unknown target");
	m->bench_id = 0; /* local to the collector's store: the server files "bench" */
	return 0;
}

static int decode_end(json_t *end, struct tm_run_end *e, struct tm_err *err)
{
	static const char *const keys[] = {"ended_wall_usec", "outcome", "exit_code",
	                                   "term_signal",     "reason",  NULL};
	const char *outcome = NULL;
	int64_t code = -1, sig = 0;

	if (!json_is_object(end))
		return tm_err_set(err, 0, "'end' must be an object");
	if (only_keys(end, "end", keys, err) < 0 ||
	    get_int(end, "end", "ended_wall_usec", true, WALL_MIN, WALL_MAX, &e->ended_wall_usec,
	            err) < 0 ||
	    get_str(end, "end", "outcome", true, 16, STR_TEXT, &outcome, err) < 0 ||
	    get_int(end, "end", "exit_code", false, -1, 255, &code, err) < 0 ||
	    get_int(end, "end", "term_signal", false, 0, 128, &sig, err) < 0 ||
	    get_str(end, "end", "reason", false, 1024, STR_MULTILINE, &e->reason, err) < 0)
		return -1;
	if (tm_outcome_parse(outcome, &e->outcome) || e->outcome == TM_OUTCOME_LIVE)
		return tm_err_set(err, 0, "end: unknown outcome");
	e->exit_code = (int)code;
	e->term_signal = (int)sig;
	return 0;
}

static int decode_values(json_t *vals, struct tm_sample *s, struct tm_err *err)
{
	const char *key;
	json_t *v;

	if (!json_is_object(vals))
		return tm_err_set(err, 0, "sample %lld: 'values' must be an object",
		                  (long long)s->seq);
	json_object_foreach(vals, key, v)
	{
		int m = tm_metric_by_name(key);
		if (m < 0)
			return tm_err_set(err, 0, "sample %lld: unknown metric '%.64s'",
			                  (long long)s->seq, key);
		if (!json_is_integer(v))
			return tm_err_set(err, 0, "sample %lld: '%s' must be an integer",
			                  (long long)s->seq, key);
		if (!tm_metric_value_ok((enum tm_metric)m, json_integer_value(v)))
			return tm_err_set(err, 0,
			                  "sample %lld: '%s' is %lld: no metric is negative but a "
			                  "limit's -1 (none)",
			                  (long long)s->seq, key, (long long)json_integer_value(v));
		tm_sample_set(s, (enum tm_metric)m, json_integer_value(v));
	}
	return 0;
}

static int decode_sample(json_t *o, struct tm_sample *s, struct tm_err *err)
{
	static const char *const keys[] = {"seq",    "t_wall_usec", "t_mono_usec", "late_usec",
	                                   "values", "scraped",     NULL};

	if (!json_is_object(o))
		return tm_err_set(err, 0, "samples: each sample must be an object");
	tm_sample_clear(s);
	s->late_usec = 0;
	s->t_mono_usec = 0;
	if (only_keys(o, "sample", keys, err) < 0 ||
	    get_int(o, "sample", "seq", true, 0, POS_MAX, &s->seq, err) < 0 ||
	    get_int(o, "sample", "t_wall_usec", true, WALL_MIN, WALL_MAX, &s->t_wall_usec, err) <
	        0 ||
	    get_int(o, "sample", "t_mono_usec", false, 0, MONO_MAX, &s->t_mono_usec, err) < 0 ||
	    get_int(o, "sample", "late_usec", false, 0, MONO_MAX, &s->late_usec, err) < 0)
		return -1;
	json_t *vals = json_object_get(o, "values");
	if (!vals)
		return tm_err_set(err, 0, "sample %lld: missing 'values'", (long long)s->seq);
	return decode_values(vals, s, err);
}

static int decode_event(json_t *o, struct tm_batch_event *e, struct tm_err *err)
{
	static const char *const keys[] = {"i",   "t_wall_usec", "t_mono_usec", "kind",
	                                   "pid", "value",       "detail",      NULL};

	if (!json_is_object(o))
		return tm_err_set(err, 0, "events: each event must be an object");
	memset(&e->ev, 0, sizeof(e->ev));
	if (only_keys(o, "event", keys, err) < 0 ||
	    get_int(o, "event", "i", true, 0, POS_MAX, &e->i, err) < 0 ||
	    get_int(o, "event", "t_wall_usec", true, WALL_MIN, WALL_MAX, &e->ev.t_wall_usec, err) <
	        0 ||
	    get_int(o, "event", "t_mono_usec", false, 0, MONO_MAX, &e->ev.t_mono_usec, err) < 0 ||
	    get_str(o, "event", "kind", true, 32, STR_KIND, &e->ev.kind, err) < 0 ||
	    get_int(o, "event", "pid", false, 0, 1LL << 32, &e->ev.pid, err) < 0 ||
	    get_int(o, "event", "value", false, INT64_MIN, INT64_MAX, &e->ev.value, err) < 0 ||
	    get_str(o, "event", "detail", false, 1024, STR_MULTILINE, &e->ev.detail, err) < 0)
		return -1;
	return 0;
}

static int decode_progress(json_t *o, struct tm_batch_progress *p, struct tm_err *err)
{
	static const char *const keys[] = {"i", "t_wall_usec", "t_mono_usec", "value", NULL};
	json_t *v;

	if (!json_is_object(o))
		return tm_err_set(err, 0, "progress: each point must be an object");
	p->t_mono_usec = 0;
	if (only_keys(o, "progress", keys, err) < 0 ||
	    get_int(o, "progress", "i", true, 0, POS_MAX, &p->i, err) < 0 ||
	    get_int(o, "progress", "t_wall_usec", true, WALL_MIN, WALL_MAX, &p->t_wall_usec, err) <
	        0 ||
	    get_int(o, "progress", "t_mono_usec", false, 0, MONO_MAX, &p->t_mono_usec, err) < 0)
		return -1;
	v = json_object_get(o, "value");
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return tm_err_set(err, 0, "progress: 'value' must be a finite number");
	p->value = json_number_value(v);
	return 0;
}

static int decode_mark(json_t *o, struct tm_batch_mark *m, struct tm_err *err)
{
	static const char *const keys[] = {"i", "t_wall_usec", "t_mono_usec", "text", NULL};

	if (!json_is_object(o))
		return tm_err_set(err, 0, "marks: each mark must be an object");
	m->t_mono_usec = 0;
	if (only_keys(o, "mark", keys, err) < 0 ||
	    get_int(o, "mark", "i", true, 0, POS_MAX, &m->i, err) < 0 ||
	    get_int(o, "mark", "t_wall_usec", true, WALL_MIN, WALL_MAX, &m->t_wall_usec, err) < 0 ||
	    get_int(o, "mark", "t_mono_usec", false, 0, MONO_MAX, &m->t_mono_usec, err) < 0 ||
	    get_str(o, "mark", "text", true, 256, STR_TEXT, &m->text, err) < 0)
		return -1;
	return 0;
}

/* Decodes the array KEY into *ITEMS (SIZE bytes each) with DECODE; checks
 * that positions (read by POS) are consecutive. */
typedef int (*item_decoder)(json_t *o, void *item, struct tm_err *err);
typedef int64_t (*item_pos)(const void *item);

static int decode_array(json_t *root, const char *key, size_t max, size_t size, item_decoder decode,
                        item_pos pos, void **items, size_t *n, struct tm_err *err)
{
	json_t *arr = json_object_get(root, key), *o;
	size_t i;

	*items = NULL;
	*n = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return tm_err_set(err, 0, "'%s' must be an array", key);
	if (json_array_size(arr) > max)
		return tm_err_set(err, 0, "'%s': more than %zu in one batch", key, max);
	if (json_array_size(arr) == 0)
		return 0;
	*items = calloc(json_array_size(arr), size);
	if (!*items)
		return tm_err_set(err, 0, "out of memory");
	json_array_foreach(arr, i, o)
	{
		char *item = (char *)*items + i * size;
		if (decode(o, item, err) < 0)
			return -1;
		if (i > 0 && pos(item) != pos(item - size) + 1)
			return tm_err_set(err, 0,
			                  "'%s': positions must be consecutive (%lld after %lld)",
			                  key, (long long)pos(item), (long long)pos(item - size));
		(*n)++;
	}
	return 0;
}

static int dec_sample(json_t *o, void *it, struct tm_err *err)
{
	return decode_sample(o, it, err);
}
static int64_t pos_sample(const void *it)
{
	return ((const struct tm_sample *)it)->seq;
}
static int dec_event(json_t *o, void *it, struct tm_err *err)
{
	return decode_event(o, it, err);
}
static int64_t pos_event(const void *it)
{
	return ((const struct tm_batch_event *)it)->i;
}
static int dec_progress(json_t *o, void *it, struct tm_err *err)
{
	return decode_progress(o, it, err);
}
static int64_t pos_progress(const void *it)
{
	return ((const struct tm_batch_progress *)it)->i;
}
static int dec_mark(json_t *o, void *it, struct tm_err *err)
{
	return decode_mark(o, it, err);
}
static int64_t pos_mark(const void *it)
{
	return ((const struct tm_batch_mark *)it)->i;
}

/* Every string in V (a bench's spec) free of the controls that could hide
 * or forge text where the server prints it (newlines and tabs allowed). */
static bool strings_ok(json_t *v, int depth)
{
	const char *key;
	json_t *x;
	size_t i;
	bool ok = depth <= 8;

	if (ok && json_is_string(v))
		ok = strlen(json_string_value(v)) == json_string_length(v) &&
		     no_controls(json_string_value(v), json_string_length(v), true);
	if (ok && json_is_object(v)) {
		json_object_foreach(v, key, x)
		{
			ok = ok && no_controls(key, strlen(key), false) && strings_ok(x, depth + 1);
		}
	}
	if (ok && json_is_array(v)) {
		json_array_foreach(v, i, x)
		{
			ok = ok && strings_ok(x, depth + 1);
		}
	}
	return ok;
}

/* A bench's spec (benches.spec_json): an object whose arms each have a
 * valid name, and nothing the table could print that hides text. */
static int check_spec(const char *text, struct tm_err *err)
{
	json_t *spec = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *arms, *a;
	size_t i;
	int rc = 0;

	arms = json_object_get(spec, "arms");
	if (!json_is_object(spec) || !json_is_array(arms) || json_array_size(arms) > 64 ||
	    !strings_ok(spec, 0))
		rc = tm_err_set(err, 0, "bench: 'spec_json' must hold the bench's spec");
	json_array_foreach(arms, i, a)
	{
		const char *name = json_string_value(json_object_get(a, "name"));
		if (!rc && !(name && tm_name_valid(name)))
			rc = tm_err_set(err, 0, "bench: arm %zu has no valid name", i);
	}
	json_decref(spec);
	return rc;
}

static int decode_bench(json_t *o, struct tm_batch_bench *bn, struct tm_err *err)
{
	static const char *const keys[] = {"uuid",  "name", "spec_json",         "seed",
	                                   "order", "host", "started_wall_usec", "ended_wall_usec",
	                                   NULL};
	if (!json_is_object(o))
		return tm_err_set(err, 0, "'bench' must be an object");
	if (only_keys(o, "bench", keys, err) < 0 ||
	    get_str(o, "bench", "uuid", true, 64, STR_UUID, &bn->uuid, err) < 0 ||
	    get_str(o, "bench", "name", false, 256, STR_TEXT, &bn->name, err) < 0 ||
	    get_str(o, "bench", "spec_json", true, 65536, STR_MULTILINE, &bn->spec_json, err) < 0 ||
	    get_int(o, "bench", "seed", false, INT64_MIN, INT64_MAX, &bn->seed, err) < 0 ||
	    get_str(o, "bench", "order", false, 16, STR_KIND, &bn->order, err) < 0 ||
	    get_str(o, "bench", "host", false, 256, STR_TEXT, &bn->host, err) < 0 ||
	    get_int(o, "bench", "started_wall_usec", true, WALL_MIN, WALL_MAX,
	            &bn->started_wall_usec, err) < 0 ||
	    get_int(o, "bench", "ended_wall_usec", false, WALL_MIN, WALL_MAX, &bn->ended_wall_usec,
	            err) < 0)
		return -1;
	return check_spec(bn->spec_json, err);
}

/* bench --param's value of the run: {name, value, text}. */
static int decode_param(json_t *o, struct tm_batch_bench_run *n, struct tm_err *err)
{
	static const char *const keys[] = {"name", "value", "text", NULL};
	json_t *v = json_object_get(o, "value");

	if (!json_is_object(o))
		return tm_err_set(err, 0, "bench_run: 'param' must be an object");
	if (only_keys(o, "bench_run: param", keys, err) < 0 ||
	    get_str(o, "bench_run: param", "name", true, TM_NAME_MAX, STR_NAME, &n->param_name,
	            err) < 0 ||
	    get_str(o, "bench_run: param", "text", true, 256, STR_TEXT, &n->param_text, err) < 0)
		return -1;
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return tm_err_set(err, 0, "bench_run: param 'value' must be a finite number");
	n->param_value = json_number_value(v);
	return 0;
}

static int decode_bench_run(json_t *o, struct tm_batch_bench_run *n, struct tm_err *err)
{
	static const char *const keys[] = {"arm_index",    "warmup", "wall_usec",
	                                   "rig_cpu_usec", "param",  NULL};
	int64_t arm = 0;
	json_t *w = json_object_get(o, "warmup");

	n->wall_usec = 0;
	n->rig_cpu_usec = -1;
	if (!json_is_object(o))
		return tm_err_set(err, 0, "'bench_run' must be an object");
	if (only_keys(o, "bench_run", keys, err) < 0 ||
	    get_int(o, "bench_run", "arm_index", true, 0, 63, &arm, err) < 0 ||
	    get_int(o, "bench_run", "wall_usec", false, 1, MONO_MAX, &n->wall_usec, err) < 0 ||
	    get_int(o, "bench_run", "rig_cpu_usec", false, 0, MONO_MAX, &n->rig_cpu_usec, err) < 0)
		return -1;
	if (w && !json_is_boolean(w))
		return tm_err_set(err, 0, "bench_run: 'warmup' must be true or false");
	if (json_object_get(o, "param") && decode_param(json_object_get(o, "param"), n, err))
		return -1;
	n->arm_index = (int)arm;
	n->warmup = json_is_true(w);
	return 0;
}

/* The bench a run belongs to, and what it noted of the run. */
static int decode_bench_parts(json_t *root, struct tm_batch *b, struct tm_err *err)
{
	json_t *bench = json_object_get(root, "bench"), *note = json_object_get(root, "bench_run");

	if (note && !bench)
		return tm_err_set(err, 0, "'bench_run' needs 'bench'");
	if (bench && (decode_bench(bench, &b->bench, err) < 0 ||
	              (note && decode_bench_run(note, &b->bench_run, err) < 0)))
		return -1;
	b->has_bench = bench != NULL;
	b->has_bench_run = note != NULL;
	return 0;
}

/* One {name, kind, source, value, t_wall_usec} of sample SEQ's "scraped". */
static int decode_scraped(json_t *o, int64_t seq, struct tm_batch_scraped *v, struct tm_err *err)
{
	static const char *const keys[] = {"name", "kind", "source", "value", "t_wall_usec", NULL};
	static const char *const kinds[] = {"gauge",     "counter", "untyped",
	                                    "histogram", "summary", NULL};
	char where[48];
	json_t *val;

	snprintf(where, sizeof(where), "sample %lld: scraped", (long long)seq);
	if (!json_is_object(o))
		return tm_err_set(err, 0, "%s: each must be an object", where);
	v->seq = seq;
	if (only_keys(o, where, keys, err) < 0 ||
	    get_str(o, where, "name", true, 255, STR_TEXT, &v->name, err) < 0 ||
	    get_str(o, where, "kind", true, 16, STR_KIND, &v->kind, err) < 0 ||
	    get_str(o, where, "source", false, 1023, STR_TEXT, &v->source, err) < 0 ||
	    get_int(o, where, "t_wall_usec", true, WALL_MIN, WALL_MAX, &v->t_wall_usec, err) < 0)
		return -1;
	if (!*v->name || one_of(v->kind, kinds) < 0)
		return tm_err_set(err, 0, "%s: an empty name or an unknown kind", where);
	val = json_object_get(o, "value");
	if (!json_is_number(val) || !isfinite(json_number_value(val)))
		return tm_err_set(err, 0, "%s: 'value' must be a finite number", where);
	v->value = json_number_value(val);
	return 0;
}

/* Every sample's "scraped" values (record --scrape), in sample order. */
static int decode_all_scraped(json_t *root, struct tm_batch *b, struct tm_err *err)
{
	json_t *samples = json_object_get(root, "samples"), *o, *arr, *v;
	size_t i, k, n = 0;

	json_array_foreach(samples, i, o)
	{
		arr = json_object_get(o, "scraped");
		if (arr && (!json_is_array(arr) || json_array_size(arr) > TM_BATCH_MAX_SCRAPED))
			return tm_err_set(err, 0,
			                  "sample %lld: 'scraped' must be an array of at most %d",
			                  (long long)b->samples[i].seq, TM_BATCH_MAX_SCRAPED);
		n += arr ? json_array_size(arr) : 0;
	}
	if (!n)
		return 0;
	if (!(b->scraped = calloc(n, sizeof(*b->scraped))))
		return tm_err_set(err, 0, "out of memory");
	json_array_foreach(samples, i, o)
	{
		arr = json_object_get(o, "scraped");
		json_array_foreach(arr, k, v)
		{
			if (decode_scraped(v, b->samples[i].seq, &b->scraped[b->n_scraped], err))
				return -1;
			b->n_scraped++;
		}
	}
	return 0;
}

static int decode_root(json_t *root, struct tm_batch *b, struct tm_err *err)
{
	static const char *const keys[] = {"v",     "run", "samples", "events",    "progress",
	                                   "marks", "end", "bench",   "bench_run", NULL};
	int64_t v = 0;

	if (!json_is_object(root))
		return tm_err_set(err, 0, "the body must be a JSON object");
	if (only_keys(root, "batch", keys, err) < 0 ||
	    get_int(root, "batch", "v", true, 1, 1000, &v, err) < 0)
		return -1;
	if (v != TM_PUSH_PROTOCOL)
		return tm_err_set(err, 0, "protocol version %lld not supported (this server: %d)",
		                  (long long)v, TM_PUSH_PROTOCOL);
	if (decode_meta(json_object_get(root, "run"), &b->meta, err) < 0 ||
	    decode_bench_parts(root, b, err) < 0)
		return -1;
	if (json_object_get(root, "end")) {
		if (decode_end(json_object_get(root, "end"), &b->end, err) < 0)
			return -1;
		b->has_end = true;
	}
	if (decode_array(root, "samples", TM_BATCH_MAX_SAMPLES, sizeof(struct tm_sample),
	                 dec_sample, pos_sample, (void **)&b->samples, &b->n_samples, err) < 0 ||
	    decode_array(root, "events", TM_BATCH_MAX_ITEMS, sizeof(struct tm_batch_event),
	                 dec_event, pos_event, (void **)&b->events, &b->n_events, err) < 0 ||
	    decode_array(root, "progress", TM_BATCH_MAX_ITEMS, sizeof(struct tm_batch_progress),
	                 dec_progress, pos_progress, (void **)&b->progress, &b->n_progress,
	                 err) < 0 ||
	    decode_array(root, "marks", TM_BATCH_MAX_ITEMS, sizeof(struct tm_batch_mark), dec_mark,
	                 pos_mark, (void **)&b->marks, &b->n_marks, err) < 0 ||
	    decode_all_scraped(root, b, err) < 0)
		return -1;
	return 0;
}

/* What the body may cost before it is parsed: one pass over its bytes
 * counts containers, values and nesting, so that a body that would take
 * far more memory parsed than it takes as text (8 MiB of `[{},{},...]` is
 * 2.8 million objects, ~650 MB) is refused before jansson builds any of
 * it.  0, or -1 with the reason in ERR. */
static int check_cost(const char *body, size_t len, struct tm_err *err)
{
	size_t containers = 0, values = 1, depth = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char c = body[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
		} else if (c == '{' || c == '[') {
			if (++depth > TM_BATCH_MAX_DEPTH)
				return tm_err_set(err, 0, "nested deeper than %d",
				                  TM_BATCH_MAX_DEPTH);
			if (++containers > TM_BATCH_MAX_CONTAINERS)
				return tm_err_set(err, 0,
				                  "more than %d objects and arrays in one batch",
				                  TM_BATCH_MAX_CONTAINERS);
		} else if (c == '}' || c == ']') {
			depth -= depth > 0; /* unbalanced: jansson says so */
		} else if ((c == ',' || c == ':') && ++values > TM_BATCH_MAX_VALUES) {
			return tm_err_set(err, 0, "more than %d values in one batch",
			                  TM_BATCH_MAX_VALUES);
		}
	}
	return 0;
}

int tm_batch_decode(const char *body, size_t len, struct tm_batch *out, struct tm_err *err)
{
	json_error_t jerr;
	json_t *root;

	memset(out, 0, sizeof(*out));
	if (check_cost(body, len, err) < 0)
		return -1;
	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return tm_err_set(err, 0, "not valid JSON: %s (line %d)", jerr.text, jerr.line);
	out->json = root;
	if (decode_root(root, out, err) < 0) {
		tm_batch_release(out);
		return -1;
	}
	return 0;
}

void tm_batch_release(struct tm_batch *b)
{
	json_decref(b->json);
	free(b->samples);
	free(b->events);
	free(b->progress);
	free(b->marks);
	free(b->scraped);
	memset(b, 0, sizeof(*b));
}
