/* A run's series as CSV, and the report's CSV field rule (report/run/seriescsv.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "report/run/scraped.h"
#include "report/run/seriescsv.h"
#include "store/store.h"
#include "base/banned.h"

int tm_series_note_pruned(struct tm_store *st, int64_t run_id)
{
	int64_t first;

	if (tm_store_first_seq(st, run_id, &first))
		return -1;
	if (first > 0)
		tm_warn("run %" PRId64 ": samples 0 to %" PRId64 " were pruned (their rollups: "
		        "report --series --rollup minute|hour)",
		        run_id, first - 1);
	return 0;
}

/* V as text, or "" for a limit's "none" (-1). */
static const char *amount(char *buf, size_t size, int64_t v)
{
	if (v < 0)
		return "";
	snprintf(buf, size, "%" PRId64, v);
	return buf;
}

static int rollup_row(void *ctx, const struct tm_rollup *r)
{
	FILE *out = ctx;
	char b[2][24];
	fprintf(out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64,
	        r->bucket_wall_usec, r->first_seq, r->last_seq, r->samples, r->late_samples);
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		const struct tm_rollup_metric *a = &r->m[m];
		if (!tm_rollup_has(r, m))
			fputs(",,,,", out);
		else if (a->min >= 0)
			fprintf(out, ",%" PRId64 ",%" PRId64 ",%.17g,%" PRId64, a->min, a->max,
			        tm_rollup_mean(r, m), a->last);
		else /* a limit that was "none" (-1) in the bucket: no amount, no mean */
			fprintf(out, ",,%s,,%s", amount(b[0], sizeof(b[0]), a->max),
			        amount(b[1], sizeof(b[1]), a->last));
	}
	fputc('\n', out);
	return 0;
}

int tm_series_csv_rollup(struct tm_store *st, int64_t run_id, enum tm_rollup_level level, FILE *out)
{
	fputs("bucket_wall_usec,first_seq,last_seq,samples,late_samples", out);
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		const char *n = tm_metric_info(m)->name;
		fprintf(out, ",%s_min,%s_max,%s_mean,%s_last", n, n, n, n);
	}
	fputc('\n', out);
	return tm_store_each_rollup(st, run_id, level, 0, 0, rollup_row, out);
}

int tm_series_csv(struct tm_store *st, int64_t run_id, const char *name, int rollup, FILE *out)
{
	int rc;

	if (rollup)
		return tm_series_csv_rollup(st, run_id,
		                            rollup == 1 ? TM_ROLLUP_MINUTE : TM_ROLLUP_HOUR, out);
	if (tm_series_note_pruned(st, run_id))
		return -1;
	rc = name ? tm_scraped_series_csv(st, run_id, name, out)
	          : tm_scraped_all_csv(st, run_id, out);
	if (rc == 1)
		rc =
		    tm_error("run %" PRId64 " has no series '%s' (a metric, or a scraped series as "
		             "report lists it)",
		             run_id, name);
	return rc;
}

void tm_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
