/* A bench's table on the terminal, as JSON, and its exports; see bench/runner.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "bench/runner.h"
#include "report/bench/benchphases.h"
#include "report/bench/benchtab.h"
#include "store/store.h"
#include "base/banned.h"

static int export_one(struct tm_bench_table *t, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char fmt[8], path[4096];
	FILE *f;

	snprintf(fmt, sizeof(fmt), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	if (colon && colon[1])
		snprintf(path, sizeof(path), "%s", colon + 1);
	else
		snprintf(path, sizeof(path), "bench-%lld.%s", (long long)t->bench_id, fmt);
	if (!(f = fopen(path, "w")))
		return tm_error("--export: cannot write '%s': %s", path, strerror(errno));
	if (!strcmp(fmt, "json")) {
		char *json = tm_bench_table_to_json(t);
		if (json)
			fprintf(f, "%s\n", json);
		free(json);
	} else if (!strcmp(fmt, "csv")) {
		tm_bench_table_write_csv(t, f);
	} else if (!strcmp(fmt, "md")) {
		tm_bench_table_write_md(t, f);
	} else {
		fclose(f);
		return tm_error("--export: unknown format '%s' (json, csv, md)", fmt);
	}
	if (fclose(f))
		return tm_error("--export: cannot write '%s': %s", path, strerror(errno));
	tm_note("wrote %s", path);
	return 0;
}

int tm_bench_show_table(struct tm_store *st, const char *store_name, int64_t bench_id,
                        const struct tm_bench_output *out)
{
	struct tm_bench_table t;
	int rc = tm_bench_table_load(st, bench_id, &t);

	if (rc == 1)
		rc = tm_error("no bench %lld in %s", (long long)bench_id, store_name);
	if (rc == 0 && out->phases) {
		/* the arms phase by phase: as JSON instead of the table's, as
		 * text after it */
		if (!out->json) {
			tm_bench_table_write_text(&t, stdout);
			fputc('\n', stdout);
		}
		rc = tm_bench_phases_print(st, bench_id, &out->split, out->json, stdout);
	} else if (rc == 0 && out->json) {
		char *json = tm_bench_table_to_json(&t);
		if (json)
			printf("%s\n", json);
		free(json);
	} else if (rc == 0) {
		tm_bench_table_write_text(&t, stdout);
	}
	for (int i = 0; rc == 0 && i < out->n_exports; i++)
		rc = export_one(&t, out->exports[i]);
	tm_bench_table_release(&t);
	return rc;
}
