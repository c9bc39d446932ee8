/* What tidemark guard took and did for a run, in the report (guardsnaps.h). */
#include <inttypes.h>
#include <time.h>

#include "base/error.h"
#include "base/util.h"
#include "report/run/guardsnaps.h"
#include "store/snapshots.h"
#include "base/banned.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static int add_row(void *ctx, const struct tm_snapshot_row *r)
{
	json_t *o = json_object();
	if (!o)
		return -1;
	json_object_set_new(o, "t_wall_usec", json_integer(r->wall_usec));
	json_object_set_new(o, "taken_wall_usec", json_integer(r->taken_usec));
	json_object_set_new(o, "rule", str_or_null(r->rule));
	json_object_set_new(o, "kind", str_or_null(r->kind));
	json_object_set_new(o, "pid", r->pid > 0 ? json_integer(r->pid) : json_null());
	json_object_set_new(o, "path", str_or_null(r->path));
	json_object_set_new(o, "summary", str_or_null(r->summary));
	json_object_set_new(o, "file_bytes",
	                    r->file_bytes >= 0 ? json_integer(r->file_bytes) : json_null());
	json_object_set_new(o, "ok", json_boolean(r->ok));
	return json_array_append_new(ctx, o);
}

json_t *tm_guard_snaps_json(struct tm_store *st, int64_t run)
{
	json_t *arr = json_array();
	if (!arr) {
		tm_error("out of memory");
		return NULL;
	}
	if (tm_store_each_snapshot(st, run, add_row, arr)) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static const char *text_of(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

void tm_guard_snaps_text(FILE *out, const json_t *rows)
{
	size_t i, n = json_array_size(rows);
	const json_t *o;
	json_array_foreach(rows, i, o)
	{
		if (i == 12) {
			fprintf(out, "  guard       and %zu more (tidemark report --json)\n",
			        n - i);
			break;
		}
		char when[16], safe[600], pid[32] = "", size[48] = "";
		time_t t =
		    (time_t)(json_integer_value(json_object_get(o, "t_wall_usec")) / 1000000);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		if (json_is_integer(json_object_get(o, "pid")))
			snprintf(pid, sizeof(pid), " of pid %" JSON_INTEGER_FORMAT,
			         json_integer_value(json_object_get(o, "pid")));
		if (json_is_integer(json_object_get(o, "file_bytes")))
			snprintf(size, sizeof(size), " (%" JSON_INTEGER_FORMAT " bytes)",
			         json_integer_value(json_object_get(o, "file_bytes")));
		bool file = json_is_string(json_object_get(o, "path"));
		fprintf(out, "  guard       %s %s: %s%s%s%s%s%s: %s\n", when, text_of(o, "rule"),
		        text_of(o, "kind"), file ? pid : "", file ? " " : "",
		        file ? text_of(o, "path") : "", size,
		        json_is_true(json_object_get(o, "ok")) ? "" : " not done",
		        tm_text_safe(safe, sizeof(safe), text_of(o, "summary")));
	}
}
